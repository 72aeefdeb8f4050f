// The rules of the tile ops of shared memory (made by the pipeline-loops pass): buffers in a
// shared layout, views of their stages and parts, loads into registers, asynchronous copies.
#include <algorithm>

#include "rules.h"

namespace cutlet::ir {

std::vector<Type> infer_tile_local_alloc(const OpTypes& t) {
  Type r = t.given_result();
  if (!is_shared_tile(r)) t.fail("must produce a tile in a shared layout");
  return {r};
}

std::vector<Type> infer_tile_local_dealloc(const OpTypes& t) {
  if (!is_shared_tile(t.operands[0])) t.fail("releases a tile in shared memory");
  return {};
}

std::vector<Type> infer_tile_local_store(const OpTypes& t) {
  Type v = t.operands[0], buf = t.operands[1];
  if (!v.is_tile() || !is_shared_tile(buf) || v.without_layout() != buf.without_layout())
    t.fail("must be (tile<S x T>, shared tile<S x T>)");
  return {};
}

std::vector<Type> infer_tile_local_index(const OpTypes& t) {
  Type ring = t.operands[0], r = t.given_result();
  if (!is_shared_tile(ring) || ring.shape().size() < 2 || t.operands[1] != Type::i32() || !is_shared_tile(r))
    t.fail("must be (shared tile<S x ...>, i32) -> shared tile<...>");
  const Layout& from = *ring.layout();
  const auto s = ring.shape();
  if (r.element() != ring.element() || !std::ranges::equal(r.shape(), s.subspan(1)) ||
      !std::ranges::equal(r.layout()->strides, std::span(from.strides).subspan(1)))
    t.fail("a stage of a ring has the ring's element type, inner shape and strides");
  return {r};
}

std::vector<Type> infer_tile_local_slice(const OpTypes& t) {
  // (shared tile) {offset per dimension} -> the part of it from those offsets, same strides
  Type x = t.operands[0], r = t.given_result();
  if (!is_shared_tile(x) || !is_shared_tile(r) || r.element() != x.element() || r.shape().size() != x.shape().size() ||
      t.attrs.size() != x.shape().size() || r.layout()->strides != x.layout()->strides)
    t.fail("must be (shared tile<S x T>) {an offset per dimension} -> shared tile<R x T> of the same strides");
  for (std::size_t d = 0; d < r.shape().size(); ++d)
    if (t.int_attr(d) < 0 || t.int_attr(d) + r.shape()[d] > x.shape()[d]) t.fail("the part must lie inside the tile");
  return {r};
}

std::vector<Type> infer_tile_local_load(const OpTypes& t) {
  Type x = t.operands[0], r = t.given_result();
  if (!is_shared_tile(x) || !r.is_tile() || !r.layout() || is_shared_tile(r) || r.without_layout() != x.without_layout())
    t.fail("must be (shared tile<S x T>) -> tile<S x T, layout> in registers");
  if (r.layout()->is_dot_operand() && r.shape().size() != 2) t.fail("loads 2-D dot operands");
  return {r};
}

std::vector<Type> infer_tile_async_copy(const OpTypes& t) {
  // (stage, ptr, offsets, valid[, mask]) {elements per copy}
  const auto& ot = t.operands;
  if (!is_shared_tile(ot[0]) || !ot[1].is_pointer() || ot[1].address_space() != AddressSpace::Global ||
      ot[1].element() != ot[0].element())
    t.fail("copies global ptr<T> into a shared tile of T");
  if (!ot[2].is_tile() || !ot[2].element().is_integer() || !std::ranges::equal(ot[2].shape(), ot[0].shape()))
    t.fail("offsets must be an integer tile of the stage's shape");
  if (ot[3] != Type::i1()) t.fail("valid must be i1");
  if (ot.size() == 5 && ot[4] != ot[2].with_element(Type::i1())) t.fail("mask must be an i1 tile in the offsets' layout");
  const std::int64_t w = t.int_attr(0);
  const std::int64_t bytes = w * ot[0].element().bits() / 8;
  if (w < 1 || (w & (w - 1)) != 0 || bytes > 16 || bytes < 4) t.fail("copies 4, 8 or 16 bytes at a time");
  return {};
}

std::vector<Type> infer_tile_async_wait(const OpTypes& t) {
  if (t.int_attr(0) < 0) t.fail("needs the number of groups left pending");
  return {};
}

}  // namespace cutlet::ir
