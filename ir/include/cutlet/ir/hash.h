// A small, fast, process-independent 64-bit hash combiner for structural hashes and cache keys.
#pragma once

#include <cstdint>
#include <string_view>

namespace cutlet {

/// Accumulates 64-bit words and bytes into a hash that is the same in every process and
/// on every run (no per-process seed), so it can key on-disk caches.
class Hasher {
 public:
  void add(std::uint64_t v) {
    h_ ^= mix(v + 0x9e3779b97f4a7c15ull + (h_ << 6) + (h_ >> 2));
  }
  void add(std::string_view s) {
    add(static_cast<std::uint64_t>(s.size()));
    std::uint64_t w = 0;
    int n = 0;
    for (unsigned char c : s) {
      w = (w << 8) | c;
      if (++n == 8) {
        add(w);
        w = 0;
        n = 0;
      }
    }
    if (n) add(w);
  }
  std::uint64_t value() const { return mix(h_); }

 private:
  static std::uint64_t mix(std::uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
  }
  std::uint64_t h_ = 0x243f6a8885a308d3ull;
};

}  // namespace cutlet
