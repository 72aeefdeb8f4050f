// The rules of the tile ops in registers: making tiles, changing their shape, reductions and
// scans, loads, stores and atomics through tiles of offsets, dots, layout conversions.
// Tiles are compared by shape and element (unplaced): their layouts are the layout passes'
// and the verifier's business.
#include "rules.h"

namespace cutlet::ir {

namespace {
Type given_tile(const OpTypes& t) {
  Type r = t.given_result();
  if (!r.is_tile()) t.fail(std::string(mnemonic(t.op)) + " makes a tile, not " + r.str());
  check_tile_shape(t, r.shape());
  return r;
}

Type tile_operand(const OpTypes& t, std::size_t i, const char* what) {
  Type x = t.operands[i];
  if (!x.is_tile()) t.fail(std::string(what) + " of a non-tile " + x.str());
  return x;
}

/// The shape of `x` without dimension `axis` (checked), for reductions.
std::vector<std::int64_t> reduced_shape(const OpTypes& t, Type x, std::int64_t axis, const char* what) {
  const auto rank = static_cast<std::int64_t>(x.shape().size());
  if (axis < 0 || axis >= rank)
    t.fail(std::string(what) + " axis " + std::to_string(axis) + " of a rank-" + std::to_string(rank) + " tile");
  std::vector<std::int64_t> shape(x.shape().begin(), x.shape().end());
  shape.erase(shape.begin() + axis);
  return shape;
}

/// Checks the pointer, offsets and mask of a tile load, store or atomic ("load", "read").
void check_access(const OpTypes& t, const std::string& noun, const char* verb, bool shared_too, std::size_t mask_index) {
  Type p = t.operands[0], o = t.operands[1];
  const bool space_ok = p.is_pointer() && (p.address_space() == AddressSpace::Global ||
                                           (shared_too && p.address_space() == AddressSpace::Shared));
  if (!space_ok)
    t.fail("tile " + noun + "s " + verb + (shared_too ? " global or shared memory, not " : " global memory, not ") + p.str());
  if (!o.is_tile() || o.element() != Type::i32()) t.fail("tile " + noun + " offsets must be an i32 tile, not " + o.str());
  if (t.operands.size() > mask_index) {
    Type m = t.operands[mask_index];
    if (!m.is_tile() || !same_shape(m.shape(), o.shape()) || m.element() != Type::i1())
      t.fail("a tile " + noun + "'s mask must be an i1 tile of the offsets' shape, not " + m.str());
  }
}
}  // namespace

std::vector<Type> infer_tile_arange(const OpTypes& t) {
  Type r = given_tile(t);
  if (r.shape().size() != 1 || r.element() != Type::i32()) t.fail("arange makes a 1-D i32 tile, not " + r.str());
  return {r};
}

std::vector<Type> infer_tile_splat(const OpTypes& t) {
  Type x = t.operands[0];
  if (!x.is_scalar()) t.fail("tile splat of a non-scalar " + x.str());
  Type r = given_tile(t);
  if (r.element() != x) t.fail("a splat of " + x.str() + " makes a tile of it, not " + r.str());
  return {r};
}

std::vector<Type> infer_tile_broadcast(const OpTypes& t) {
  Type x = tile_operand(t, 0, "tile broadcast");
  Type r = given_tile(t);
  auto shape = r.shape();
  if (x.shape().size() != shape.size()) t.fail("broadcast keeps the rank: " + x.str() + " to " + shape_text(shape));
  if (r.element() != x.element()) t.fail("broadcast keeps the element type: " + x.str() + " to " + r.str());
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (x.shape()[d] != shape[d] && x.shape()[d] != 1)
      t.fail("cannot broadcast " + shape_text(x.shape()) + " to " + shape_text(shape) + ": dimension " +
             std::to_string(d) + " is neither equal nor 1");
  return {r};
}

std::vector<Type> infer_tile_expand_dims(const OpTypes& t) {
  Type x = tile_operand(t, 0, "expand_dims");
  std::vector<std::int64_t> shape(x.shape().begin(), x.shape().end());
  const std::int64_t axis = t.int_attr(0);
  if (axis < 0 || axis > static_cast<std::int64_t>(shape.size()))
    t.fail("expand_dims axis " + std::to_string(axis) + " is outside 0.." + std::to_string(shape.size()));
  shape.insert(shape.begin() + axis, 1);
  check_tile_shape(t, shape);
  return {Type::tile(shape, x.element())};
}

std::vector<Type> infer_tile_permute(const OpTypes& t) {
  Type x = tile_operand(t, 0, "permute");
  const std::size_t n = x.shape().size();
  if (t.attrs.size() != n)
    t.fail("a permutation of a rank-" + std::to_string(n) + " tile needs " + std::to_string(n) + " axes");
  std::vector<bool> seen(n, false);
  std::vector<std::int64_t> shape;
  for (std::size_t d = 0; d < n; ++d) {
    const std::int64_t p = t.int_attr(d);
    if (p < 0 || p >= static_cast<std::int64_t>(n) || seen[p])
      t.fail("the axes of a permutation must be 0.." + std::to_string(n - 1) + ", each once");
    seen[p] = true;
    shape.push_back(x.shape()[p]);
  }
  return {Type::tile(shape, x.element())};
}

std::vector<Type> infer_tile_reshape(const OpTypes& t) {
  Type x = tile_operand(t, 0, "reshape");
  Type r = given_tile(t);
  std::int64_t a = 1, b = 1;
  for (auto e : x.shape()) a *= e;
  for (auto e : r.shape()) b *= e;
  if (a != b || r.element() != x.element())
    t.fail("cannot reshape " + x.str() + " to " + shape_text(r.shape()) + ": the sizes differ");
  return {r};
}

std::vector<Type> infer_tile_reduce(const OpTypes& t) {
  Type x = tile_operand(t, 0, "reduction");
  if (x.element().is_bool()) t.fail("reductions combine numbers, not i1 tiles (cast them first)");
  if (x.element().is_fp8()) t.fail(fp8_storage_only("a reduction", x));
  auto shape = reduced_shape(t, x, t.int_attr(1), "reduction");
  return {shape.empty() ? x.element() : Type::tile(shape, x.element())};
}

namespace {
std::vector<Type> combine(const OpTypes& t, const char* what, bool scan) {
  if (t.operands.empty()) t.fail(std::string("a ") + what + " needs at least one tile");
  Type t0 = t.operands[0];
  for (Type x : t.operands)
    if (!x.is_tile() || !same_shape(x.shape(), t0.shape()))
      t.fail(std::string("the tiles of a ") + what + " must have one shape, got " + t0.str() + " and " + x.str());
  auto shape = reduced_shape(t, t0, t.int_attr(0), what);
  std::vector<Type> results;
  for (Type x : t.operands) results.push_back(scan ? x : shape.empty() ? x.element() : Type::tile(shape, x.element()));
  return results;
}
}  // namespace

std::vector<Type> infer_tile_reduce_with(const OpTypes& t) { return combine(t, "reduction", false); }
std::vector<Type> infer_tile_scan(const OpTypes& t) { return combine(t, "scan", true); }

std::vector<Type> infer_tile_load(const OpTypes& t) {
  check_access(t, "load", "read", true, 2);
  Type p = t.operands[0], o = t.operands[1];
  if (t.operands.size() > 3 && t.operands[3] != p.element())
    t.fail("a tile load's padding must be a " + p.element().str() + ", not " + t.operands[3].str());
  return {Type::tile(o.shape(), p.element())};
}

std::vector<Type> infer_tile_store(const OpTypes& t) {
  check_access(t, "store", "write", true, 3);
  Type p = t.operands[0], o = t.operands[1], v = t.operands[2];
  if (unplaced(v) != Type::tile(o.shape(), p.element()))
    t.fail("a tile store through " + p.str() + " at " + o.str() + " needs a tile of that shape and element, not " + v.str());
  return {};
}

std::vector<Type> infer_tile_atomic(const OpTypes& t) {
  check_access(t, "atomic", "update", false, 3);
  Type p = t.operands[0], o = t.operands[1], v = t.operands[2];
  if (unplaced(v) != Type::tile(o.shape(), p.element()))
    t.fail("a tile atomic through " + p.str() + " needs a value tile of the offsets' shape, not " + v.str());
  const auto kind = static_cast<AtomicKind>(t.int_attr(0));
  Type e = p.element();
  const bool ok = (e.bits() == 32 || e.bits() == 64) && !e.is_bool() &&
                  !(e.is_float() && kind != AtomicKind::Add && kind != AtomicKind::Exchange &&
                    !(e == Type::f32() && (kind == AtomicKind::Min || kind == AtomicKind::Max)));
  if (!ok || kind == AtomicKind::CompareExchange || kind == AtomicKind::Sub || kind == AtomicKind::Load)
    t.fail(std::string("tile atomic ") + atomic_kind_name(kind) + " is not available for " + e.str() +
           ": tile atomics are add, min, max, and, or, xor and exchange on 32- and 64-bit integers, add and "
           "exchange on f32/f64, and min and max on f32");
  return {v};
}

std::vector<Type> infer_tile_dot(const OpTypes& t) {
  Type a = t.operands[0], b = t.operands[1], acc = t.operands[2];
  if (!a.is_tile() || !b.is_tile() || !acc.is_tile() || a.shape().size() != 2 || b.shape().size() != 2 ||
      acc.shape().size() != 2)
    t.fail("dot multiplies 2-D tiles, not " + a.str() + " and " + b.str() + " into " + acc.str());
  // [M, K] @ [K, N] + [M, N], each of a and b possibly given transposed.
  const std::int64_t tr = t.int_attr(1);
  auto sa = a.shape(), sb = b.shape(), sc = acc.shape();
  const std::int64_t m = tr & ATransposed ? sa[1] : sa[0], ka = tr & ATransposed ? sa[0] : sa[1];
  const std::int64_t kb = tr & BTransposed ? sb[1] : sb[0], n = tr & BTransposed ? sb[0] : sb[1];
  if (ka != kb || m != sc[0] || n != sc[1])
    t.fail("dot of " + a.str() + " and " + b.str() + " into " + acc.str() + ": shapes [M, K] @ [K, N] + [M, N] do not match");
  // One element type, or FP8 of either format on each side.
  const Type e = a.element();
  if (e != b.element() && !(e.is_fp8() && b.element().is_fp8()))
    t.fail("dot needs inputs of one element type (or FP8 of either format), got " + a.str() + " and " + b.str());
  if (e != Type::f16() && e != Type::bf16() && e != Type::f32() && !e.is_fp8())
    t.fail("dot takes f16, bf16, f32 (tf32), f8e4m3 or f8e5m2 inputs, not " + e.str());
  if (acc.element() != Type::f32()) t.fail("dot accumulates in f32, not " + acc.element().str());
  if (ka < 16) t.fail("dot needs K >= 16, not " + std::to_string(ka));
  return {acc};
}

std::vector<Type> infer_tile_dot_wait(const OpTypes& t) {
  Type x = t.operands[0];
  if (!x.is_tile() || x.element() != Type::f32() || x.shape().size() != 2)
    t.fail("waits for a dot's f32 2-D accumulator tile, not " + x.str());
  if (x.layout() && !x.layout()->is_wgmma()) t.fail("waits for a wgmma dot's result, in the wgmma layout");
  if (t.int_attr(0) < 0) t.fail("needs the number of groups left pending");
  return {x};
}

std::vector<Type> infer_tile_convert_layout(const OpTypes& t) {
  Type x = t.operands[0], r = t.given_result();
  if (!x.is_tile() || !r.is_tile() || !r.layout() || r.layout()->is_shared() || r.without_layout() != x.without_layout())
    t.fail("must be (tile<S x T>) -> tile<S x T, layout>, in registers");
  return {r};
}

}  // namespace cutlet::ir
