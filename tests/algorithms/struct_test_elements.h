// User structs for the algorithm tests over structs: four layouts (8, 12, 16 and 24 bytes:
// one 8-byte load, three word loads, one 16-byte load, six word loads) with 1-, 2-, 4- and
// 8-byte fields, an operator over each (traced and on the host), random inputs whose sums are
// exact in any order, and field-by-field comparison; and a 12-byte sort key with its order, for
// the merge sorts.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#include "cutlet/language/struct_param.h"
#include "cutlet/language/value.h"

namespace cutlet::test {

/// min, max and sum of floats (12 bytes: three word loads).
struct MinMaxSum {
  float lo, hi, sum;
};
/// The larger score and its index, with a count (16 bytes, an 8-byte field: one 16-byte load).
struct Best {
  float score;
  std::int32_t index;
  std::uint64_t count;
};
/// Fields of 2, 1, 1 and 4 bytes in two words (one 8-byte load).
struct Small {
  std::uint16_t most;
  std::int8_t least;
  bool any;
  float total;
};
/// A double, two floats and two ints (24 bytes, 8-aligned: six word loads).
struct Wide {
  double sum;
  float lo, hi;
  std::int32_t count, odd;
};

static_assert(sizeof(MinMaxSum) == 12 && sizeof(Best) == 16 && sizeof(Small) == 8 && sizeof(Wide) == 24);

struct MinMaxSumOp {
  Struct<MinMaxSum> operator()(const Struct<MinMaxSum>& a, const Struct<MinMaxSum>& b) const {
    return a.with(&MinMaxSum::lo, min(a[&MinMaxSum::lo], b[&MinMaxSum::lo]))
        .with(&MinMaxSum::hi, max(a[&MinMaxSum::hi], b[&MinMaxSum::hi]))
        .with(&MinMaxSum::sum, a[&MinMaxSum::sum] + b[&MinMaxSum::sum]);
  }
};
inline MinMaxSum host_op(MinMaxSum a, MinMaxSum b) {
  return {std::min(a.lo, b.lo), std::max(a.hi, b.hi), a.sum + b.sum};
}

/// The larger score, the smaller index among equal scores (a total order: commutative).
struct BestOp {
  Struct<Best> operator()(const Struct<Best>& a, const Struct<Best>& b) const {
    Value<bool> a_wins = (a[&Best::score] > b[&Best::score]) |
                         ((a[&Best::score] == b[&Best::score]) & (a[&Best::index] < b[&Best::index]));
    Struct<Best> r = select(a_wins, a, b);
    r.set(&Best::count, a[&Best::count] + b[&Best::count]);
    return r;
  }
};
inline Best host_op(Best a, Best b) {
  const bool a_wins = a.score > b.score || (a.score == b.score && a.index < b.index);
  Best r = a_wins ? a : b;
  r.count = a.count + b.count;
  return r;
}

struct SmallOp {
  Struct<Small> operator()(const Struct<Small>& a, const Struct<Small>& b) const {
    Struct<Small> r = a;
    r.set(&Small::most, max(a[&Small::most], b[&Small::most]));
    r.set(&Small::least, min(a[&Small::least], b[&Small::least]));
    r.set(&Small::any, a[&Small::any] | b[&Small::any]);
    r.set(&Small::total, a[&Small::total] + b[&Small::total]);
    return r;
  }
};
inline Small host_op(Small a, Small b) {
  return {std::max(a.most, b.most), std::min(a.least, b.least), a.any || b.any, a.total + b.total};
}

struct WideOp {
  Struct<Wide> operator()(const Struct<Wide>& a, const Struct<Wide>& b) const {
    return a.with(&Wide::sum, a[&Wide::sum] + b[&Wide::sum])
        .with(&Wide::lo, min(a[&Wide::lo], b[&Wide::lo]))
        .with(&Wide::hi, max(a[&Wide::hi], b[&Wide::hi]))
        .with(&Wide::count, a[&Wide::count] + b[&Wide::count])
        .with(&Wide::odd, a[&Wide::odd] ^ b[&Wide::odd]);
  }
};
inline Wide host_op(Wide a, Wide b) {
  return {a.sum + b.sum, std::min(a.lo, b.lo), std::max(a.hi, b.hi), a.count + b.count, a.odd ^ b.odd};
}

/// Random structs whose sums are exact in any order (small integers in floats and doubles).
template <class S>
std::vector<S> struct_input(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> d(-1000, 1000);
  std::vector<S> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    S& s = v[i];
    std::memset(&s, 0, sizeof(S));
    if constexpr (std::is_same_v<S, MinMaxSum>) {
      const float x = static_cast<float>(d(rng));
      s = {x, x, x};
    } else if constexpr (std::is_same_v<S, Best>) {
      // Few distinct scores: many ties, decided by the index.
      s = {static_cast<float>(d(rng) % 17), static_cast<std::int32_t>(i),
           1u + static_cast<std::uint64_t>(d(rng) + 1000)};
    } else if constexpr (std::is_same_v<S, Small>) {
      s = {static_cast<std::uint16_t>(d(rng) + 1000), static_cast<std::int8_t>(d(rng) % 128), d(rng) > 990,
           static_cast<float>(d(rng) % 8)};
    } else {
      const float x = static_cast<float>(d(rng));
      s = {static_cast<double>(d(rng)) * 4096.0, x, x, d(rng), d(rng)};
    }
  }
  return v;
}

template <class S>
bool same_fields(const S& a, const S& b) {
  if constexpr (std::is_same_v<S, MinMaxSum>) return a.lo == b.lo && a.hi == b.hi && a.sum == b.sum;
  else if constexpr (std::is_same_v<S, Best>) return a.score == b.score && a.index == b.index && a.count == b.count;
  else if constexpr (std::is_same_v<S, Small>)
    return a.most == b.most && a.least == b.least && a.any == b.any && a.total == b.total;
  else return a.sum == b.sum && a.lo == b.lo && a.hi == b.hi && a.count == b.count && a.odd == b.odd;
}

/// A 12-byte sort key: ordered by group ascending, then score descending; `id` is not
/// compared, and tells equivalent keys apart (for stability checks).
struct Entry {
  std::int32_t group;
  float score;
  std::uint32_t id;
};
/// Entry's order, traced.
struct EntryOrder {
  Value<bool> operator()(const Struct<Entry>& a, const Struct<Entry>& b) const {
    return (a[&Entry::group] < b[&Entry::group]) |
           ((a[&Entry::group] == b[&Entry::group]) & (a[&Entry::score] > b[&Entry::score]));
  }
};
/// Entry's order on the host.
inline bool host_entry_order(const Entry& a, const Entry& b) {
  return a.group < b.group || (a.group == b.group && a.score > b.score);
}

}  // namespace cutlet::test
