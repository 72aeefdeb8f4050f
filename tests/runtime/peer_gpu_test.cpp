// Two GPUs: peer access, copies between devices, objects bound to their device (needs 2 GPUs;
// skipped with fewer).
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "../gpu_test_support.h"
#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/event.h"
#include "cutlet/runtime/memory_pool.h"
#include "runtime_test_support.h"

namespace {

#define CUTLET_REQUIRE_TWO_GPUS()                                              \
  do {                                                                         \
    CUTLET_REQUIRE_CUDA("several GPUs");                                                      \
    if (cutlet::Device::count() < 2) GTEST_SKIP() << "needs at least 2 GPUs"; \
  } while (0)

TEST(Peer, CopyBetweenDevicesWithAndWithoutPeerAccess) {
  CUTLET_REQUIRE_TWO_GPUS();
  cutlet::Device d0(0), d1(1);
  cutlet::Stream s0(d0), s1(d1);
  std::vector<std::uint32_t> host(1 << 20);
  for (std::uint32_t i = 0; i < host.size(); ++i) host[i] = i * 2654435761u;
  cutlet::Buffer<std::uint32_t> a(s0, host);
  cutlet::Buffer<std::uint32_t> b(host.size(), d1);
  s0.synchronize();
  b.copy_from(s1, a);  // staged when no peer path is enabled
  EXPECT_EQ(b.to_host(s1), host);
  if (d1.can_access_peer(d0)) {
    d1.enable_peer_access(d0);
    d1.enable_peer_access(d0);  // again: no error
    cutlet::Buffer<std::uint32_t> c(host.size(), d1);
    c.copy_from(s1, a);
    EXPECT_EQ(c.to_host(s1), host);
    d1.disable_peer_access(d0);
  }
}

TEST(Peer, PoolAccessForAPeer) {
  CUTLET_REQUIRE_TWO_GPUS();
  cutlet::Device d0(0), d1(1);
  if (!d1.can_access_peer(d0)) GTEST_SKIP() << "no peer path between device 0 and device 1";
  auto pool = std::make_shared<cutlet::PoolMemoryResource>(d0);
  pool->set_access(d1);
  cutlet::Stream s0(d0), s1(d1);
  cutlet::Buffer<int> a(1000, s0, pool);
  a.fill_bytes(s0, 0x11);
  cutlet::Event done(d0, false);
  done.record(s0);
  s1.wait(done);  // cross-device wait
  cutlet::Buffer<int> b(1000, d1);
  b.copy_from(s1, a);
  EXPECT_EQ(b.to_host(s1)[999], 0x11111111);
}

TEST(Peer, ObjectsOfOneDeviceRejectStreamsOfAnother) {
  CUTLET_REQUIRE_TWO_GPUS();
  cutlet::Device d0(0), d1(1);
  cutlet::Stream s0(d0);
  cutlet::Buffer<int> on1(100, d1);
  const std::string msg = cutlet::test::error_message([&] { on1.fill_bytes(s0, 0); });
  EXPECT_CONTAINS(msg, "device 1");
  EXPECT_CONTAINS(msg, "device 0");
  EXPECT_CONTAINS(msg, "use a stream of the memory's device");
  cutlet::Event e1(d1);
  EXPECT_CONTAINS(cutlet::test::error_message([&] { e1.record(s0); }), "create the event on the stream's device");
  // With device 0 current, work for device 1 still lands on device 1.
  d0.set_current();
  cutlet::Stream s1(d1);
  on1.fill_bytes(s1, 0x01);
  EXPECT_EQ(on1.to_host(s1)[0], 0x01010101);
  EXPECT_EQ(cutlet::pointer_info(on1.data()).device, 1);
}

}  // namespace
