// Tile layouts: register numbering, the default, slice and mma layouts, text and hash.
#include "cutlet/ir/layout.h"

#include <algorithm>
#include <cmath>

#include "cutlet/ir/hash.h"

namespace cutlet::ir {

bool Layout::same_placement(const Layout& o) const {
  if (is_shared() || o.is_shared() || is_dot_operand() || o.is_dot_operand()) return *this == o;
  auto reps = [](const Layout& l) { return l.lane_reps.empty() ? std::vector<int>(l.spt.size(), 1) : l.lane_reps; };
  return shape == o.shape && spt == o.spt && tpw == o.tpw && wpc == o.wpc && order == o.order && slice_dim == o.slice_dim &&
         reps(*this) == reps(o);
}

int Layout::regs_along(int d) const {
  if (d == slice_dim) return 1;
  const std::int64_t reps = std::max<std::int64_t>(1, shape[d] / cover(d));
  return static_cast<int>(reps * spt[d] * lane_reps_along(d));
}

int Layout::num_regs() const {
  if (is_dot_operand()) {
    // A warp's part of the operand (its rows of a, its columns of b) over its 32 lanes.
    const std::int64_t mn = shape[static_cast<std::size_t>(operand == 0 ? (transposed ? 1 : 0) : (transposed ? 0 : 1))];
    const std::int64_t k = shape[0] * shape[1] / mn;
    return static_cast<int>(mn * k / (32 * wpc[static_cast<std::size_t>(operand)]));
  }
  int n = 1;
  for (int d = 0; d < rank(); ++d) n *= regs_along(d);
  return n;
}

std::vector<int> Layout::reg_indices(int r) const {
  std::vector<int> j(rank(), 0);
  for (int d = rank() - 1; d >= 0; --d) {
    j[d] = r % regs_along(d);
    r /= regs_along(d);
  }
  return j;
}

int Layout::reg_of(const std::vector<int>& j) const {
  int r = 0;
  for (int d = 0; d < rank(); ++d) r = r * regs_along(d) + (d == slice_dim ? 0 : j[d]);
  return r;
}

int Layout::lane_stride(int d) const {
  int stride = 1;
  for (int o : order) {
    if (o == d) break;
    stride *= tpw[o];
  }
  return stride;
}

int Layout::warp_stride(int d) const {
  int stride = 1;
  for (int o : order) {
    if (o == d) break;
    stride *= wpc[o];
  }
  return stride;
}

std::vector<std::int64_t> Layout::tile_shape() const {
  std::vector<std::int64_t> s;
  for (int d = 0; d < rank(); ++d)
    if (d != slice_dim) s.push_back(shape[d]);
  return s;
}

Layout Layout::with_shape(std::vector<std::int64_t> s) const {
  Layout l = *this;
  if (is_slice()) s[static_cast<std::size_t>(slice_dim)] = 1;
  l.shape = std::move(s);
  return l;
}

namespace {
template <class T>
std::string list(const std::vector<T>& v) {
  std::string r = "[";
  for (std::size_t i = 0; i < v.size(); ++i) r += (i ? "," : "") + std::to_string(v[i]);
  return r + "]";
}
}  // namespace

std::string Layout::str() const {
  if (is_slice()) {
    Layout parent = *this;
    parent.slice_dim = -1;
    return "#slice<dim=" + std::to_string(slice_dim) + ", " + parent.str() + ">";
  }
  if (kind == LayoutKind::Mma) return "#mma<warps=" + list(wpc) + ">";
  if (kind == LayoutKind::Wgmma) return "#wgmma<warps=" + list(wpc) + ">";
  if (kind == LayoutKind::Shared)
    return "#shared<strides=" + list(strides) + (swizzle ? ", swizzle=" + std::to_string(swizzle) : "") + ">";
  if (kind == LayoutKind::DotOperand)
    return std::string("#dot_op<") + (operand == 0 ? "a" : "b") + (transposed ? "^T" : "") + ", warps=" + list(wpc) +
           ", k_width=" + std::to_string(k_width) + ">";
  return "#blocked<spt=" + list(spt) + ", tpw=" + list(tpw) + ", wpc=" + list(wpc) + ", order=" + list(order) + ">";
}

std::uint64_t Layout::structural_hash() const {
  Hasher h;
  h.add(static_cast<std::uint64_t>(kind));
  h.add(static_cast<std::uint64_t>(slice_dim + 1));
  for (const auto* v : {&spt, &tpw, &wpc, &order}) {
    h.add(v->size());
    for (int x : *v) h.add(static_cast<std::uint64_t>(x));
  }
  for (auto e : shape) h.add(static_cast<std::uint64_t>(e));
  h.add(strides.size());
  for (auto e : strides) h.add(static_cast<std::uint64_t>(e));
  h.add(static_cast<std::uint64_t>(operand));
  h.add(static_cast<std::uint64_t>(k_width));
  h.add(static_cast<std::uint64_t>(transposed));
  h.add(lane_reps.size());
  for (int x : lane_reps) h.add(static_cast<std::uint64_t>(x));
  h.add(static_cast<std::uint64_t>(swizzle));
  return h.value();
}

Layout shared_layout(std::vector<std::int64_t> shape, std::vector<std::int64_t> strides) {
  Layout l;
  l.kind = LayoutKind::Shared;
  l.shape = std::move(shape);
  l.strides = std::move(strides);
  return l;
}

Layout dot_operand_layout(const Layout& mma, int operand, std::vector<std::int64_t> shape, int k_width, bool transposed) {
  Layout l;
  l.kind = LayoutKind::DotOperand;
  l.shape = std::move(shape);
  l.wpc = mma.wpc;
  l.operand = operand;
  l.k_width = k_width;
  l.transposed = transposed;
  return l;
}

std::int64_t swizzled_offset(std::int64_t row, std::int64_t col, std::int64_t rows, int swizzle, int elem_bytes) {
  const std::int64_t per_row = swizzle / elem_bytes;
  const std::int64_t at = row * swizzle + (col % per_row) * elem_bytes;
  const std::int64_t chunks = swizzle / 16;
  return (col / per_row) * rows * swizzle + (at ^ (((at >> 7) & (chunks - 1)) << 4));
}

Layout default_layout(const std::vector<std::int64_t>& shape, int warps, int vec) {
  Layout l;
  const int n = static_cast<int>(shape.size());
  l.shape = shape;
  l.spt.assign(n, 1);
  l.tpw.assign(n, 1);
  l.wpc.assign(n, 1);
  for (int d = n - 1; d >= 0; --d) l.order.push_back(d);
  l.spt[n - 1] = static_cast<int>(std::min<std::int64_t>(vec, shape[n - 1]));
  // Lanes fill the fastest dimensions first; what is left repeats along the fastest.
  int lanes = 32;
  for (int d : l.order) {
    const std::int64_t room = std::max<std::int64_t>(1, shape[d] / l.spt[d]);
    l.tpw[d] = static_cast<int>(std::min<std::int64_t>(lanes, room));
    lanes /= l.tpw[d];
  }
  l.tpw[l.order[0]] *= lanes;
  // Warps fill the slowest dimensions first (so row reductions stay inside a warp).
  int left = warps;
  for (int d = 0; d < n; ++d) {
    const std::int64_t room = std::max<std::int64_t>(1, shape[d] / (std::int64_t{l.spt[d]} * l.tpw[d]));
    l.wpc[d] = static_cast<int>(std::min<std::int64_t>(left, room));
    left /= l.wpc[d];
  }
  l.wpc[l.order[0]] *= left;
  return l;
}

Layout slice_layout(const Layout& parent, int dim) {
  Layout l = parent;
  l.slice_dim = dim;
  l.shape[static_cast<std::size_t>(dim)] = 1;
  return l;
}

Layout insert_dim_layout(const Layout& l, int axis, std::vector<std::int64_t> result_shape) {
  Layout dst = l;
  dst.shape = std::move(result_shape);
  dst.spt.insert(dst.spt.begin() + axis, 1);
  dst.tpw.insert(dst.tpw.begin() + axis, 1);
  dst.wpc.insert(dst.wpc.begin() + axis, 1);
  if (!dst.lane_reps.empty()) dst.lane_reps.insert(dst.lane_reps.begin() + axis, 1);
  for (int& d : dst.order)
    if (d >= axis) ++d;
  dst.order.push_back(axis);
  return dst;
}

std::optional<Layout> mma_layout(std::int64_t m, std::int64_t n, int warps, bool whole_rows) {
  int best_wm = 0;
  double best_score = 1e30;
  for (int wm = 1; wm <= warps; wm *= 2) {
    const int wn = warps / wm;
    if (m % (16 * wm) != 0 || n % (8 * wn) != 0) continue;
    const double score = std::abs(static_cast<double>(m / wm) - static_cast<double>(n / wn));
    if (score < best_score) best_wm = wm, best_score = score;
  }
  if (best_wm == 0) return std::nullopt;
  if (whole_rows && m % (16 * warps) == 0 && n % 8 == 0) best_wm = warps;
  Layout l;
  l.kind = LayoutKind::Mma;
  l.shape = {m, n};
  l.spt = {1, 2};
  l.tpw = {8, 4};
  l.wpc = {best_wm, warps / best_wm};
  l.order = {1, 0};
  return l;
}

std::optional<Layout> wgmma_layout(std::int64_t m, std::int64_t n, int warps) {
  if (warps % 4 != 0 || m % (16 * warps) != 0 || n % 8 != 0) return std::nullopt;
  Layout l;
  l.kind = LayoutKind::Wgmma;
  l.shape = {m, n};
  l.spt = {1, 2};
  l.tpw = {8, 4};
  l.lane_reps = {2, 1};
  l.wpc = {warps, 1};
  l.order = {1, 0};
  return l;
}

}  // namespace cutlet::ir
