// Tile kernels' out-of-line parts: broadcasting, arange, reductions, tensors, program ids.
#include "cutlet/language/tensor.h"

#include "cutlet/ir/ops.h"
#include "cutlet/language/index.h"

namespace cutlet {
namespace detail {

namespace {
std::string shape_text(const std::vector<std::int64_t>& s) {
  std::string r = "[";
  for (std::size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}
}  // namespace

std::vector<std::int64_t> broadcast_shapes(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b,
                                           const std::source_location& where) {
  const std::size_t n = std::max(a.size(), b.size());
  std::vector<std::int64_t> r(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const std::int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (x != y && x != 1 && y != 1)
      throw_trace_error("tiles of shapes " + shape_text(a) + " and " + shape_text(b) +
                            " do not broadcast: dimension " + std::to_string(i) + " is " + std::to_string(x) + " vs " +
                            std::to_string(y) + " (extents must match or be 1)",
                        where);
    r[i] = std::max(x, y);
  }
  return r;
}

ir::ValueId broadcast_value(ir::ValueId x, const std::vector<std::int64_t>& shape) {
  ir::Builder& b = builder();
  ir::Type t = b.function().type_of(x);
  if (!t.is_tile()) return b.tile_splat(x, shape);
  while (t.shape().size() < shape.size()) {
    x = b.tile_expand_dims(x, 0);
    t = b.function().type_of(x);
  }
  return b.tile_broadcast(x, shape);
}

std::vector<ir::ValueId> broadcast_all(std::vector<ir::ValueId> values, const std::source_location& where) {
  std::vector<std::int64_t> shape;
  for (ir::ValueId v : values) shape = broadcast_shapes(shape, shape_of(v), where);
  if (shape.empty()) return values;  // all scalars
  for (ir::ValueId& v : values) v = broadcast_value(v, shape);
  return values;
}

ir::ValueId tile_reduce(ir::ReduceKind kind, ir::ValueId t, int axis, const std::source_location& where) {
  set_location(where);
  ir::Type type = builder().function().type_of(t);
  if (!type.is_tile()) throw_trace_error("a reduction needs a tile, not a scalar", where);
  const int rank = static_cast<int>(type.shape().size());
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank)
    throw_trace_error("reduction axis out of range for a rank-" + std::to_string(rank) + " tile", where);
  return builder("cutlet reduction").tile_reduce(kind, t, axis);
}

Tile<std::int32_t> axis_index(const std::vector<std::int64_t>& shape, int axis, const std::source_location& where) {
  set_location(where);
  ir::Builder& b = builder("cutlet::argmax");
  ir::ValueId idx = b.tile_arange(shape.at(axis));
  for (int d = 0; d < axis; ++d) idx = b.tile_expand_dims(idx, 0);
  for (std::size_t d = axis + 1; d < shape.size(); ++d) idx = b.tile_expand_dims(idx, static_cast<int>(d));
  return Tile<std::int32_t>::wrap(b.tile_broadcast(idx, shape));
}

bool is_int_constant(ir::ValueId v, std::int64_t k) {
  const ir::Instruction* d = builder().function().def_of(v);
  if (!d || d->op != ir::Opcode::Const) return false;
  const ir::Attribute value = ir::ops::Const(*d).value();
  return std::holds_alternative<std::int64_t>(value) && std::get<std::int64_t>(value) == k;
}

}  // namespace detail

Tile<std::int32_t> arange(std::int64_t n, std::source_location where) {
  detail::set_location(where);
  return Tile<std::int32_t>::wrap(detail::builder("cutlet::arange").tile_arange(n));
}

namespace {
/// Refuses a grid axis other than 0, 1 or 2 for `what`.
void check_grid_axis(const char* what, int axis, const std::source_location& where) {
  if (axis < 0 || axis > 2)
    detail::throw_trace_error(std::string(what) + "(" + std::to_string(axis) +
                                  "): the grid axis must be 0, 1 or 2 (x, y or z)",
                              where);
}
}  // namespace

Value<std::int32_t> program_id(int axis, std::source_location where) {
  check_grid_axis("program_id", axis, where);
  detail::set_location(where);
  const Index3 b = block_idx();
  return axis == 0 ? b.x : axis == 1 ? b.y : b.z;
}

Value<std::int32_t> num_programs(int axis, std::source_location where) {
  check_grid_axis("num_programs", axis, where);
  detail::set_location(where);
  const Index3 g = grid_dim();
  return axis == 0 ? g.x : axis == 1 ? g.y : g.z;
}

}  // namespace cutlet
