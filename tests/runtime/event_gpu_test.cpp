// Events: recording, waiting and timing (needs a GPU).
#include <gtest/gtest.h>

#include <utility>

#include "../gpu_test_support.h"
#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/cuda_error.h"
#include "cutlet/runtime/event.h"
#include "cutlet/runtime/stream.h"

namespace {

TEST(Event, TimesABigCopy) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  const std::size_t n = std::size_t{1} << 28;  // 1 GiB of floats each way
  cutlet::Buffer<float> a(n, s.device());
  cutlet::Buffer<float> b(n, s.device());
  a.fill_bytes(s, 0x3f);
  cutlet::Event start(s.device());
  cutlet::Event end(s.device());
  start.record(s);
  b.copy_from(s, a);
  end.record(s);
  end.synchronize();
  EXPECT_TRUE(end.query());
  const float ms = cutlet::Event::elapsed_ms(start, end);
  EXPECT_GT(ms, 0.0f);
  // 2 GiB moved at no more than ~5 TB/s takes at least 0.4 ms; an unrecorded or reordered
  // event would give about 0. The upper bound catches a time in the wrong unit: a GPU copies
  // this in about a millisecond, the CPU device (a memcpy, slower still under sanitizers on a
  // busy machine, where it has taken over a second) in seconds.
  EXPECT_GT(ms, 0.4f);
  EXPECT_LT(ms, s.device().is_cpu() ? 60000.0f : 1000.0f);
}

TEST(Event, NeverRecordedIsComplete) {
  CUTLET_REQUIRE_GPU();
  cutlet::Event e(cutlet::Device(0));
  EXPECT_NE(e.handle(), nullptr);
  EXPECT_TRUE(e.query());
  e.synchronize();
}

TEST(Event, NonTimingEventCannotBeTimed) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  cutlet::Event a(s.device(), false);
  cutlet::Event b(s.device(), false);
  a.record(s);
  b.record(s);
  b.synchronize();
  EXPECT_THROW((void)cutlet::Event::elapsed_ms(a, b), cutlet::CudaError);
}

TEST(Event, MovedFromEventThrows) {
  CUTLET_REQUIRE_GPU();
  cutlet::Stream s(cutlet::Device(0));
  cutlet::Event a(s.device());
  cutlet::Event b(std::move(a));
  EXPECT_EQ(a.handle(), nullptr);
  EXPECT_NE(b.handle(), nullptr);
  EXPECT_THROW(a.record(s), cutlet::Error);
  b.record(s);
  b.synchronize();
}

}  // namespace
