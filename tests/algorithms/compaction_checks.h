// Checks of what an algorithm wrote into an output poisoned first (poisoned() of
// kernel_test_support.h, the bytes 0xCD): the expected items, and nothing past them.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include <cutlet/cutlet.h>

namespace cutlet::test {

/// got[0, want.size()) == want bit for bit, and got[want.size(), got.size()) still poisoned.
template <class T>
void expect_prefix(const std::vector<T>& got, const std::vector<T>& want, const char* what) {
  ASSERT_GE(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(std::memcmp(&got[i], &want[i], sizeof(T)), 0) << what << " " << i << " of " << want.size();
  T poison;
  std::memset(static_cast<void*>(&poison), 0xCD, sizeof(T));
  for (std::size_t i = want.size(); i < got.size(); ++i)
    ASSERT_EQ(std::memcmp(&got[i], &poison, sizeof(T)), 0) << what << " " << i << " past the written items";
}

/// A compaction's count[0] and out[0, m) against `want`, and out[m, out.size()) still poisoned.
template <class T>
void expect_selected(const Stream& st, const std::vector<T>& want, const Buffer<T>& out,
                     const Buffer<std::int32_t>& count) {
  ASSERT_EQ(count.to_host(st)[0], static_cast<std::int32_t>(want.size())) << "selected count";
  expect_prefix(out.to_host(st), want, "item");
}

}  // namespace cutlet::test
