// How the algorithms hold an element in a kernel: a scalar as a Value, a user struct as a
// struct value (its 32-bit words), with one set of helpers (variables, shuffles, loads and
// stores, shared memory) so that one kernel body serves both.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "cutlet/algorithms/element.h"
#include "cutlet/language/memory.h"
#include "cutlet/language/pointer.h"
#include "cutlet/language/struct_param.h"
#include "cutlet/language/vector.h"
#include "cutlet/language/value.h"
#include "cutlet/language/warp.h"
#include "cutlet/runtime/buffer.h"

namespace cutlet::algorithms::detail {

/// The type a buffer of T is seen as in a kernel: T, or std::uint32_t (the words of its
/// structs) for a struct.
template <class T>
using storage_t = std::conditional_t<StructElement<T>, std::uint32_t, T>;

/// Words of storage_t one element takes: 1 for a scalar, the struct's words for a struct.
template <class T>
constexpr std::size_t storage_words() {
  if constexpr (StructElement<T>) return Struct<T>::word_count;
  else return 1;
}

/// The kernel parameter that takes one element of T by value: Value<T>, or Struct<T>.
template <class T>
using param_t = held_t<T>;

/// The name of an element type in kernel names: element_name's for scalars, "struct" and its
/// size in bytes for a struct ("struct12").
template <class T>
std::string held_name() {
  if constexpr (StructElement<T>) return "struct" + std::to_string(sizeof(T));
  else return element_name<T>();
}

/// A buffer of T as a kernel's Ptr<storage_t<T>> parameter takes it: the buffer itself for a
/// scalar, a borrowed buffer of its words for a struct.
template <class T>
decltype(auto) storage_view(const Buffer<T>& b) {
  if constexpr (StructElement<T>)
    return Buffer<std::uint32_t>::wrap(b.data(), b.size() * storage_words<T>(), b.device());
  else return (b);
}

/// Element i of a buffer of T (its words for a struct: one 8- or 16-byte load where the
/// struct's size allows, else one load a word), with cache hint `hint`.
template <class T, class I>
held_t<T> load_held(const Ptr<storage_t<T>>& p, const I& i, CacheHint hint = CacheHint::Default) {
  if constexpr (StructElement<T>) {
    constexpr int W = static_cast<int>(Struct<T>::word_count);
    std::vector<Value<std::uint32_t>> words;
    if constexpr (W == 2 || W == 4) {
      Vec<std::uint32_t, W> v = p.template vload<W>(i, hint);
      for (int k = 0; k < W; ++k) words.push_back(v[k]);
    } else {
      Ptr<std::uint32_t> first = p + cast<std::int64_t>(i) * W;
      for (int k = 0; k < W; ++k) words.push_back(first.load(k, hint));
    }
    return Struct<T>::from_words(std::move(words));
  } else {
    return p.load(i, hint);
  }
}

/// Stores `v` as element i of a buffer of T.
template <class T, class I>
void store_held(const Ptr<storage_t<T>>& p, const I& i, const held_t<T>& v) {
  if constexpr (StructElement<T>) {
    constexpr int W = static_cast<int>(Struct<T>::word_count);
    std::vector<Value<std::uint32_t>> words = v.words();
    Ptr<std::uint32_t> first = p + cast<std::int64_t>(i) * W;
    for (int k = 0; k < W; ++k) first[k] = words[static_cast<std::size_t>(k)];
  } else {
    p[i] = v;
  }
}

/// A mutable per-thread variable holding an element of T (Var<T>, or one Var a word of a
/// struct): assigned anywhere, read with get().
template <class T>
class HeldVar {
 public:
  HeldVar() : words_(storage_words<T>()) {}
  /// A variable holding `v` from the start.
  explicit HeldVar(const held_t<T>& v) {
    words_.reserve(storage_words<T>());  // no reallocation: a copied Var would be a new one
    if constexpr (StructElement<T>) {
      for (const auto& w : v.words()) words_.emplace_back(w);
    } else {
      words_.emplace_back(v);
    }
  }
  HeldVar& operator=(const held_t<T>& v) {
    if constexpr (StructElement<T>) {
      std::vector<Value<std::uint32_t>> w = v.words();
      for (std::size_t k = 0; k < w.size(); ++k) words_[k] = w[k];
    } else {
      words_[0] = v;
    }
    return *this;
  }
  held_t<T> get() const {
    if constexpr (StructElement<T>) {
      std::vector<Value<std::uint32_t>> w;
      for (const auto& var : words_) w.push_back(var.get());
      return Struct<T>::from_words(std::move(w));
    } else {
      return words_[0].get();
    }
  }

 private:
  std::vector<Var<storage_t<T>>> words_;
};

/// `shuffle` (a warp shuffle of one traced value) applied to `v`, word by word for a struct.
template <class T, class Shuffle>
held_t<T> shuffle_held(const held_t<T>& v, const Shuffle& shuffle) {
  if constexpr (StructElement<T>) {
    std::vector<Value<std::uint32_t>> w = v.words();
    for (auto& word : w) word = shuffle(word);
    return Struct<T>::from_words(std::move(w));
  } else {
    return shuffle(v);
  }
}

/// The `v` of lane (lane_id + delta); lanes past 31 keep their own (`__shfl_down_sync`).
template <class T>
held_t<T> shfl_down_held(const held_t<T>& v, const i32& delta) {
  return shuffle_held<T>(v, [&](const auto& x) { return shfl_down_sync(full_mask, x, delta); });
}

/// The `v` of lane (lane_id - delta); lanes below delta keep their own (`__shfl_up_sync`).
template <class T>
held_t<T> shfl_up_held(const held_t<T>& v, const i32& delta) {
  return shuffle_held<T>(v, [&](const auto& x) { return shfl_up_sync(full_mask, x, delta); });
}

/// The `v` of lane `src` (`__shfl_sync`).
template <class T>
held_t<T> shfl_idx_held(const held_t<T>& v, const i32& src) {
  return shuffle_held<T>(v, [&](const auto& x) { return shfl_sync(full_mask, x, src); });
}

/// A shared-memory array of `count` elements of T (struct words side by side).
template <class T>
class SharedHeld {
 public:
  explicit SharedHeld(std::int64_t count)
      : words_(shared_array<storage_t<T>>(count * static_cast<std::int64_t>(storage_words<T>()))) {}
  template <class I>
  held_t<T> load(const I& i) const {
    if constexpr (StructElement<T>) {
      std::vector<Value<std::uint32_t>> w;
      for (std::size_t k = 0; k < storage_words<T>(); ++k) w.push_back(words_[word(i, k)].load());
      return Struct<T>::from_words(std::move(w));
    } else {
      return words_[i].load();
    }
  }
  template <class I>
  void store(const I& i, const held_t<T>& v) const {
    if constexpr (StructElement<T>) {
      std::vector<Value<std::uint32_t>> w = v.words();
      for (std::size_t k = 0; k < w.size(); ++k) words_[word(i, k)] = w[k];
    } else {
      words_[i] = v;
    }
  }

 private:
  template <class I>
  static auto word(const I& i, std::size_t k) {
    return i * static_cast<std::int32_t>(storage_words<T>()) + static_cast<std::int32_t>(k);
  }
  SharedPtr<storage_t<T>> words_;
};

}  // namespace cutlet::algorithms::detail
