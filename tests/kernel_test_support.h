// Helpers for the kernel tests: random inputs, poisoned output buffers, exception messages.
#pragma once

#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace cutlet::test {

/// n random values in [lo, hi] (never all zero for a range that excludes only zero).
template <class T>
std::vector<T> random_vector(std::size_t n, std::uint64_t seed, T lo, T hi) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<T> d(lo, hi);
    for (auto& x : v) x = d(rng);
  } else {
    std::uniform_int_distribution<T> d(lo, hi);
    for (auto& x : v) x = d(rng);
  }
  return v;
}

/// A buffer of n elements filled with the byte 0xCD, so that unwritten outputs show.
template <class T>
Buffer<T> poisoned(const Stream& s, std::size_t n) {
  Buffer<T> b(n, s.device());
  b.fill_bytes(s, 0xCD);
  return b;
}

/// The what() of the exception `f` throws ("" and a test failure when none).
template <class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an exception";
  return "";
}

}  // namespace cutlet::test
