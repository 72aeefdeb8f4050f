// Ready-made operators for the algorithms: sums, products, minima, maxima, bitwise ones,
// comparisons, equality and the identity.
#pragma once

#include "cutlet/language/value.h"
#include "cutlet/language/vector.h"

namespace cutlet::algorithms {

/// a + b (associative and commutative for integers; for floats up to rounding).
struct plus {
  template <class A, class B>
  auto operator()(const A& a, const B& b) const {
    return a + b;
  }
};

/// a * b.
struct multiplies {
  template <class A, class B>
  auto operator()(const A& a, const B& b) const {
    return a * b;
  }
};

/// The smaller of a and b (cutlet::min: for floats, if one is NaN, the other).
struct minimum {
  template <class A, class B>
  auto operator()(const A& a, const B& b) const {
    return cutlet::min(a, b);
  }
};

/// The larger of a and b (cutlet::max: for floats, if one is NaN, the other).
struct maximum {
  template <class A, class B>
  auto operator()(const A& a, const B& b) const {
    return cutlet::max(a, b);
  }
};

/// a & b (integers).
struct bit_and {
  template <class A, class B>
  auto operator()(const A& a, const B& b) const {
    return a & b;
  }
};

/// a | b (integers).
struct bit_or {
  template <class A, class B>
  auto operator()(const A& a, const B& b) const {
    return a | b;
  }
};

/// a ^ b (integers).
struct bit_xor {
  template <class A, class B>
  auto operator()(const A& a, const B& b) const {
    return a ^ b;
  }
};

/// a < b (the default comparator of lower_bound and upper_bound: ascending order).
struct less {
  template <class A, class B>
  auto operator()(const A& a, const B& b) const {
    return a < b;
  }
};

/// a > b (descending order).
struct greater {
  template <class A, class B>
  auto operator()(const A& a, const B& b) const {
    return a > b;
  }
};

/// a == b (the default equality of unique and run_length_encode; for floats NaN equals
/// nothing, and -0.0 equals 0.0).
struct equal_to {
  template <class A, class B>
  auto operator()(const A& a, const B& b) const -> decltype(a == b) {  // no == (structs): not a BinaryPredicate
    return a == b;
  }
  /// For Vecs (VecElement's equality): true where every lane is equal, lane by lane as above.
  template <class T, int N>
  Value<bool> operator()(const Vec<T, N>& a, const Vec<T, N>& b) const {
    Value<bool> all = a[0] == b[0];
    for (int k = 1; k < N; ++k) all = all & (a[k] == b[k]);
    return all;
  }
};

/// x itself (a Value or a Struct, unchanged): the transform of a plain copy, e.g. a gather,
/// transform(stream, permutation_iterator(values, indices), n, out, identity{}).
struct identity {
  template <class X>
  X operator()(const X& x) const {
    return x;
  }
};

}  // namespace cutlet::algorithms
