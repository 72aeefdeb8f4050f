// Tensors: a kernel parameter of pointer, shape and strides, and tile loads and stores on it.
// Its host side (TensorArg, tensor(), TensorFacts) is the runtime's cutlet/runtime/tensor_arg.h.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <source_location>
#include <string>
#include <vector>

#include "cutlet/language/pointer.h"
#include "cutlet/language/tile.h"
#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/tensor_arg.h"

namespace cutlet {

/// A kernel parameter: a tensor of T with R dimensions (launched with a TensorArg). Read and
/// write it with tile loads and stores: `load(t, {rows, cols}, mask, other)`.
template <ScalarType T, int R>
class Tensor {
 public:
  using element_type = T;
  static constexpr int rank = R;
  static constexpr bool is_tensor = true;

  Tensor(ir::ValueId record, std::uint64_t facts) : record_(record), facts_(facts) {}

  /// The extent of dimension d (an i32 read from the parameter).
  Value<std::int32_t> shape(int d) const {
    return Value<std::int32_t>::wrap(detail::builder().field(record_.get(), 8 + 4 * d, ir::Type::i32(),
                                                             facts_ & (TensorFacts::kShapeDiv16 << d) ? 16 : 1));
  }
  /// The stride of dimension d in elements (the constant 1 for a unit-stride last dimension).
  Value<std::int32_t> stride(int d) const {
    if (d == R - 1 && (facts_ & TensorFacts::kUnitStride)) return Value<std::int32_t>(1);
    return Value<std::int32_t>::wrap(detail::builder().field(record_.get(), 8 + 4 * R + 4 * d, ir::Type::i32(),
                                                             facts_ & (TensorFacts::kStrideDiv16 << d) ? 16 : 1));
  }
  /// The data pointer (an IR value of type ptr<T, global>).
  ir::ValueId data() const {
    return detail::builder().field(record_.get(), 0, ir::Type::pointer(detail::ir_type_of<T>(), ir::AddressSpace::Global),
                                   facts_ & TensorFacts::kAligned ? 16 : 1);
  }
  std::uint64_t facts() const { return facts_; }

 private:
  detail::TracedId record_;
  std::uint64_t facts_;
};

namespace detail {
bool is_int_constant(ir::ValueId v, std::int64_t k);
inline constexpr ir::ValueId kNoValue = ir::kNone;

/// The element offsets of `index` (one tile or scalar per dimension, broadcast together) in t.
template <class T, int R>
ir::ValueId tensor_offsets(const Tensor<T, R>& t, const std::vector<Tile<std::int32_t>>& index,
                           const std::source_location& where) {
  if (static_cast<int>(index.size()) != R)
    throw_trace_error("a rank-" + std::to_string(R) + " tensor is indexed with " + std::to_string(index.size()) +
                          " index tiles (give one per dimension)",
                      where);
  std::vector<std::int64_t> shape;
  for (const auto& i : index) shape = broadcast_shapes(shape, i.shape(), where);
  if (shape.empty()) shape = {1};  // all scalars: one element
  ir::ValueId off = kNoValue;
  for (int d = 0; d < R; ++d) {
    ir::ValueId term = broadcast_value(index[d].id(), shape);
    Value<std::int32_t> s = t.stride(d);
    if (!is_int_constant(s.id(), 1)) term = builder().binary(ir::Opcode::Mul, term, broadcast_value(s.id(), shape));
    off = off == kNoValue ? term : builder().binary(ir::Opcode::Add, off, term);
  }
  return off;
}
}  // namespace detail

/// The elements of t at `index` (one i32 tile or scalar per dimension, broadcast together to
/// the result's shape; a tile of one element when all are scalars) where `mask` is true, `other` elsewhere; masked-off elements are never
/// read. `load(in, {row, cols}, cols < in.shape(1), -INFINITY)`.
template <class T, int R>
Tile<T> load(const Tensor<T, R>& t, const std::vector<Tile<std::int32_t>>& index, const Tile<bool>& mask,
             const Value<T>& other, std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  ir::ValueId off = detail::tensor_offsets(t, index, where);
  const std::vector<std::int64_t> shape = detail::shape_of(off);
  ir::ValueId m = detail::broadcast_value(mask.id(), shape);
  return Tile<T>::wrap(detail::builder("cutlet::load").tile_load(t.data(), off, m, other.id()));
}
/// load() with zeros where the mask is false.
template <class T, int R>
Tile<T> load(const Tensor<T, R>& t, const std::vector<Tile<std::int32_t>>& index, const Tile<bool>& mask,
             std::source_location where = std::source_location::current()) {
  return load(t, index, mask, Value<T>::wrap(detail::constant<T>(0)), where);
}
/// load() of every element at `index` (the caller guarantees they are in bounds).
template <class T, int R>
Tile<T> load(const Tensor<T, R>& t, const std::vector<Tile<std::int32_t>>& index,
             std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  ir::ValueId off = detail::tensor_offsets(t, index, where);
  return Tile<T>::wrap(detail::builder("cutlet::load").tile_load(t.data(), off));
}

/// Stores `value` (broadcast to the index shape) into t at `index` where `mask` is true.
template <class T, int R>
void store(const Tensor<T, R>& t, const std::vector<Tile<std::int32_t>>& index, const Tile<T>& value,
           const Tile<bool>& mask, std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  ir::ValueId off = detail::tensor_offsets(t, index, where);
  const std::vector<std::int64_t> shape = detail::shape_of(off);
  detail::builder("cutlet::store")
      .tile_store(t.data(), off, detail::broadcast_value(value.id(), shape), detail::broadcast_value(mask.id(), shape));
}
/// store() of every element.
template <class T, int R>
void store(const Tensor<T, R>& t, const std::vector<Tile<std::int32_t>>& index, const Tile<T>& value,
           std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  ir::ValueId off = detail::tensor_offsets(t, index, where);
  const std::vector<std::int64_t> shape = detail::shape_of(off);
  detail::builder("cutlet::store").tile_store(t.data(), off, detail::broadcast_value(value.id(), shape));
}

/// Tile loads and stores through a pointer (Triton's pointer style): the elements p[offsets]
/// for an i32 tile of element offsets, from global memory (a Ptr parameter) or from shared
/// memory (a shared_array). With shared_array, syncthreads() and thread_idx(), a tile kernel
/// can hand tiles to per-thread code and back:
///
///     auto s = cutlet::shared_array<float>(256);
///     cutlet::store(s, cutlet::arange(256), tile);   // the tile, row-major, into shared memory
///     cutlet::syncthreads();
///     ... per-thread code reading and writing s[i] (thread_idx(), shuffles, atomics) ...
///     cutlet::syncthreads();
///     auto back = cutlet::load(s, cutlet::arange(256));
template <ScalarType T, ir::AddressSpace S>
Tile<T> load(const Ptr<T, S>& p, const Tile<std::int32_t>& offsets, const Tile<bool>& mask, const Value<T>& other,
             std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  ir::ValueId m = detail::broadcast_value(mask.id(), offsets.shape());
  return Tile<T>::wrap(detail::builder("cutlet::load").tile_load(p.id(), offsets.id(), m, other.id()));
}
template <ScalarType T, ir::AddressSpace S>
Tile<T> load(const Ptr<T, S>& p, const Tile<std::int32_t>& offsets, std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  return Tile<T>::wrap(detail::builder("cutlet::load").tile_load(p.id(), offsets.id()));
}
template <ScalarType T, ir::AddressSpace S>
void store(const Ptr<T, S>& p, const Tile<std::int32_t>& offsets, const Tile<T>& value, const Tile<bool>& mask,
           std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  auto shape = offsets.shape();
  detail::builder("cutlet::store")
      .tile_store(p.id(), offsets.id(), detail::broadcast_value(value.id(), shape), detail::broadcast_value(mask.id(), shape));
}
template <ScalarType T, ir::AddressSpace S>
void store(const Ptr<T, S>& p, const Tile<std::int32_t>& offsets, const Tile<T>& value,
           std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  detail::builder("cutlet::store").tile_store(p.id(), offsets.id(), detail::broadcast_value(value.id(), offsets.shape()));
}

namespace detail {
template <class T, int R>
Tile<T> tensor_atomic(ir::AtomicKind kind, const Tensor<T, R>& t, const std::vector<Tile<std::int32_t>>& index,
                      const Tile<T>& value, const Tile<bool>* mask, const std::source_location& where) {
  set_location(where);
  ir::ValueId off = tensor_offsets(t, index, where);
  const std::vector<std::int64_t> shape = shape_of(off);
  return Tile<T>::wrap(builder("cutlet atomic").tile_atomic(kind, t.data(), off, broadcast_value(value.id(), shape),
                                                            mask ? broadcast_value(mask->id(), shape) : ir::kNone));
}
}  // namespace detail

/// Atomic updates of tensor elements by a tile (a scatter: repeated indices all apply), where
/// `mask` is true; each returns the old values (zero where masked off). Relaxed, device scope.
/// add: 32/64-bit integers and floats; min/max: integers and f32; and/or/xor: integers;
/// exchange: all of them.
#define CUTLET_TILE_ATOMIC(NAME, KIND)                                                                            \
  template <class T, int R>                                                                                       \
  Tile<T> NAME(const Tensor<T, R>& t, const std::vector<Tile<std::int32_t>>& index, const Tile<T>& value,        \
               const Tile<bool>& mask, std::source_location where = std::source_location::current()) {           \
    return detail::tensor_atomic(KIND, t, index, value, &mask, where);                                            \
  }                                                                                                               \
  template <class T, int R>                                                                                       \
  Tile<T> NAME(const Tensor<T, R>& t, const std::vector<Tile<std::int32_t>>& index, const Tile<T>& value,        \
               std::source_location where = std::source_location::current()) {                                   \
    return detail::tensor_atomic(KIND, t, index, value, nullptr, where);                                          \
  }
CUTLET_TILE_ATOMIC(atomic_add, ir::AtomicKind::Add)
CUTLET_TILE_ATOMIC(atomic_min, ir::AtomicKind::Min)
CUTLET_TILE_ATOMIC(atomic_max, ir::AtomicKind::Max)
CUTLET_TILE_ATOMIC(atomic_and, ir::AtomicKind::And)
CUTLET_TILE_ATOMIC(atomic_or, ir::AtomicKind::Or)
CUTLET_TILE_ATOMIC(atomic_xor, ir::AtomicKind::Xor)
CUTLET_TILE_ATOMIC(atomic_exchange, ir::AtomicKind::Exchange)
#undef CUTLET_TILE_ATOMIC

/// The index of this tile-kernel instance (block) along grid axis 0, 1 or 2.
Value<std::int32_t> program_id(int axis, std::source_location where = std::source_location::current());
/// The number of instances along grid axis 0, 1 or 2.
Value<std::int32_t> num_programs(int axis, std::source_location where = std::source_location::current());

}  // namespace cutlet
