// The host side of a tile kernel's Tensor parameter: TensorArg (device address, shape, strides),
// made by cutlet::tensor(), and the TensorFacts that kernels are specialized on. Part of the
// runtime so that programs launching kernels compiled ahead of time pass tensors without the
// kernel language.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "cutlet/runtime/buffer.h"

namespace cutlet {

/// The host side of a Tensor<T, R> parameter: device address, shape and strides (in
/// elements, 32-bit: a tensor has fewer than 2^31 elements). Made by cutlet::tensor(). A
/// kernel receives these bytes as they are, as one by-value parameter.
template <class T, int R>
struct TensorArg {
  using element_type = T;
  static constexpr int rank = R;
  std::uint64_t data = 0;
  std::int32_t shape[R] = {};
  std::int32_t strides[R] = {};
  /// The TensorFacts a kernel may assume of this tensor (all that hold, by default).
  std::uint32_t facts_allowed = ~0u;

  /// This tensor without any specialization facts: the launch uses (and compiles once) the
  /// kernel's general code, which works for any alignment and strides.
  TensorArg generic() const {
    TensorArg t = *this;
    t.facts_allowed = 0;
    return t;
  }
};

namespace detail {
/// Throws Error "cutlet::tensor: <what>".
[[noreturn]] void throw_tensor_error(const std::string& what);
/// `v` as an extent or stride; throws Error naming `what` when it is outside 0..2^31-1.
std::int32_t checked_extent(std::int64_t v, const char* what);
}  // namespace detail

/// A tensor over `buffer`'s elements with `shape`, row-major (the last dimension
/// contiguous). Throws Error when the shape needs more elements than the buffer has.
template <class T, std::size_t R>
TensorArg<T, static_cast<int>(R)> tensor(const Buffer<T>& buffer, const std::int64_t (&shape)[R]) {
  TensorArg<T, static_cast<int>(R)> t;
  t.data = buffer.data();
  std::int64_t stride = 1;
  for (int d = static_cast<int>(R) - 1; d >= 0; --d) {
    t.shape[d] = detail::checked_extent(shape[d], "extent");
    t.strides[d] = detail::checked_extent(stride, "stride");
    stride *= shape[d];
  }
  if (static_cast<std::uint64_t>(stride) > buffer.size())
    detail::throw_tensor_error("a tensor of " + std::to_string(stride) + " elements over a buffer of " +
                               std::to_string(buffer.size()));
  return t;
}
/// A tensor with explicit strides (in elements) over device address `data` (from a Buffer,
/// DLPack or another library): no bounds are known, so none are checked.
template <class T, std::size_t R>
TensorArg<T, static_cast<int>(R)> tensor(std::uint64_t data, const std::int64_t (&shape)[R],
                                         const std::int64_t (&strides)[R]) {
  TensorArg<T, static_cast<int>(R)> t;
  t.data = data;
  for (std::size_t d = 0; d < R; ++d) {
    t.shape[d] = detail::checked_extent(shape[d], "extent");
    t.strides[d] = detail::checked_extent(strides[d], "stride");
  }
  return t;
}

/// Facts about a tensor argument that its kernel is specialized on (as Triton and cuTile
/// do): the data is 16-byte aligned; each extent and each stride is a multiple of 16; the
/// last stride is 1. They are part of the specialization key, so a launch with other facts
/// compiles (once) another specialization; KernelOptions cannot turn them off, but passing
/// a tensor whose facts are false simply selects the general code.
struct TensorFacts {
  static constexpr std::uint64_t kAligned = 1;
  static constexpr std::uint64_t kUnitStride = 2;
  static constexpr std::uint64_t kShapeDiv16 = 1 << 2;    ///< bit per dimension, from here
  static constexpr std::uint64_t kStrideDiv16 = 1 << 10;  ///< bit per dimension, from here
};

/// Facts of rank-`rank` tensors as text: "aligned, unit stride, shape[0] % 16 == 0, ...", or
/// "unaligned" and the rest (recompile explanations and launch errors name them so).
std::string tensor_facts_text(std::uint64_t facts, int rank);

/// Facts as requirements: "16-byte aligned data, a unit last stride, shape[1] % 16 == 0" (""
/// for none).
std::string tensor_facts_list(std::uint64_t facts, int rank);

/// The facts among `assumed` (what a compiled specialization relies on) that `actual` (a
/// tensor's) lacks; 0 when the tensor may be passed to it. A unit last stride makes the last
/// stride's divisibility irrelevant (the code never reads that stride), so it is not required
/// then.
std::uint64_t missing_tensor_facts(std::uint64_t assumed, std::uint64_t actual, int rank) noexcept;

namespace detail {
/// The TensorFacts that hold for `a` (none when a.facts_allowed is 0).
template <class T, int R>
std::uint64_t tensor_facts(const TensorArg<T, R>& a) {
  std::uint64_t f = 0;
  if (a.facts_allowed == 0) return 0;
  if (a.data % 16 == 0) f |= TensorFacts::kAligned;
  if (a.strides[R - 1] == 1) f |= TensorFacts::kUnitStride;
  for (int d = 0; d < R; ++d) {
    if (a.shape[d] % 16 == 0) f |= TensorFacts::kShapeDiv16 << d;
    if (a.strides[d] % 16 == 0) f |= TensorFacts::kStrideDiv16 << d;
  }
  return f;
}
}  // namespace detail

}  // namespace cutlet
