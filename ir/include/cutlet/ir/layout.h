// Tile layouts: how a tile's elements are spread over a block's threads and their registers,
// or where in shared memory they are. A layout is part of a tile's type
// (`tile<128x64xf32, #mma<warps=[4,2]>>`), assigned by the assign-layouts pass; only
// tile.convert_layout moves a register tile from one layout to another, and only the ops of
// shared memory (tile.local_*, tile.async_copy) make tiles in a shared layout.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cutlet::ir {

/// How a layout's placement came about. Both are blocked placements (below); the kind names
/// the role, is printed, and is part of equality.
enum class LayoutKind : std::uint8_t {
  Blocked,  ///< chosen for memory accesses or elementwise work
  Mma,      ///< the accumulator of m16n8 mma.sync: spt [1, 2], tpw [8, 4], order [1, 0]
  Shared,   ///< not in registers: the tile is a buffer in shared memory (see `strides`)
  DotOperand,  ///< the a or b fragments of mma.sync k-steps, as the tensor cores read them
  Wgmma,   ///< the accumulator of Hopper's m64nNk16 wgmma: spt [1, 2], tpw [8, 4], lane_reps [2, 1], warps along M
};

/// A blocked placement gives each thread `spt[d]` consecutive elements along dimension d,
/// lays `tpw[d]` threads of a warp and `wpc[d]` warps of the block side by side along d, and
/// repeats that pattern until the tile's extent is covered; where the pattern is larger than
/// the extent, threads hold copies (coordinates wrap). A slice (slice_dim >= 0) is the layout
/// of a reduction's result: its parent's placement with one dimension removed, each value held
/// by every thread that held an element of its row. A thread's elements are numbered
/// row-major over the per-dimension register indices.
///
/// `lane_reps[d]` (empty: 1 along every dimension) repeats the lanes' pattern along d that
/// many times, register by register, before the warps take over: along d a thread's element
/// is at (outer * cover(d)) + (warp * lane_reps * tpw + rep * tpw + lane) * spt + e. The wgmma
/// accumulator needs it (a warp holds rows g and g + 8 of its 16, then the next warp's 16
/// follow); blocked layouts of cutlet's own choosing never have it.
///
/// A shared layout (kind Shared) holds no registers: element (i0, i1, ...) of the tile is
/// sum(i_d * strides[d]) elements from the start of its shared-memory buffer (rows padded so
/// that the reads of a warp hit distinct banks). spt, tpw, wpc and order are empty. A
/// swizzled shared layout (swizzle = 32, 64 or 128 bytes) is the canonical layout wgmma and
/// TMA read: its last two dimensions [R, C] are held as C / (swizzle / element bytes) column
/// blocks of R rows of `swizzle` bytes each (block after block), and within a block the
/// 16-byte chunks of each row are permuted by the XOR of address bits (swizzled_offset);
/// strides[d] for the dimensions before those (a ring's stages) are as above.
///
/// A dot-operand layout (kind DotOperand) holds operand `operand` (0: a, 1: b) of the
/// mma.sync k-steps of a dot whose accumulator is the mma layout of warps `wpc` ([wm, wn]):
/// each thread's registers are its fragments, k-step by k-step, m-tile (n-tile) by m-tile, in
/// the order mma.sync takes them, `k_width` elements to a 32-bit fragment word (2 for 16-bit
/// types, 1 for tf32). The a fragments are held by the wn warps of a row of warps alike, the b
/// fragments by the wm warps of a column. `transposed`: the tile is the operand transposed
/// ([K, M] for a, [N, K] for b), as the dot reads it (tile_dot.h). Only tile.local_load makes
/// such tiles and only tile.dot reads them (loops may carry them); spt, tpw and order are empty.
struct Layout {
  LayoutKind kind = LayoutKind::Blocked;
  std::vector<std::int64_t> shape;  ///< for a slice, the parent's with 1 along the removed dimension
  std::vector<int> spt, tpw, wpc;   ///< per dimension: size per thread, threads per warp, warps
  std::vector<int> order;           ///< dimensions, fastest varying first
  int slice_dim = -1;               ///< >= 0: this is the slice without that dimension
  std::vector<std::int64_t> strides;  ///< shared layouts: elements between neighbours along each dimension
  int operand = 0;                    ///< dot-operand layouts: 0 for a, 1 for b
  int k_width = 0;                    ///< dot-operand layouts: elements per fragment word
  bool transposed = false;            ///< dot-operand layouts: the tile is the operand transposed
  std::vector<int> lane_reps;         ///< per dimension: repeats of the lanes' pattern (empty: none)
  int swizzle = 0;                    ///< shared layouts: 0, or the swizzle span in bytes (32, 64, 128)

  bool operator==(const Layout&) const = default;
  int rank() const { return static_cast<int>(shape.size()); }
  bool is_slice() const { return slice_dim >= 0; }
  /// Whether the tile lives in shared memory (kind Shared) rather than in registers.
  bool is_shared() const { return kind == LayoutKind::Shared; }
  /// Whether the tile is a dot operand's mma fragments (kind DotOperand).
  bool is_dot_operand() const { return kind == LayoutKind::DotOperand; }
  /// A shared layout's buffer size in elements: the outermost extent times its stride (a
  /// swizzled tile of rank 2: R * C).
  std::int64_t shared_elements() const {
    if (shape.empty()) return 0;
    if (swizzle && rank() == 2) return shape[0] * shape[1];
    return shape[0] * strides[0];
  }
  /// Whether the tile is a wgmma accumulator (kind Wgmma).
  bool is_wgmma() const { return kind == LayoutKind::Wgmma; }
  /// The repeats of the lanes' pattern along d (1 unless lane_reps says otherwise).
  int lane_reps_along(int d) const { return lane_reps.empty() ? 1 : lane_reps[static_cast<std::size_t>(d)]; }
  /// Whether `o` places every element in the same thread and register as this layout does
  /// (a conversion between them moves nothing), whatever the kinds.
  bool same_placement(const Layout& o) const;
  /// The elements one thread's layout pattern covers along d.
  std::int64_t cover(int d) const { return std::int64_t{spt[d]} * tpw[d] * lane_reps_along(d) * wpc[d]; }
  /// Registers along dimension d (1 for a slice's removed dimension).
  int regs_along(int d) const;
  /// Registers per thread.
  int num_regs() const;
  /// The per-dimension register indices of register r (0 along a slice's removed dimension).
  std::vector<int> reg_indices(int r) const;
  /// The register of per-dimension indices `j` (the removed dimension's index is ignored).
  int reg_of(const std::vector<int>& j) const;
  /// The coordinate offset of register index j along d, before adding the thread's part.
  std::int64_t reg_offset(int d, int j) const {
    const int t = j / spt[d], reps = lane_reps_along(d);
    return (t / reps) * cover(d) + std::int64_t{t % reps} * spt[d] * tpw[d] + j % spt[d];
  }
  /// Where dimension d's part of a lane (or warp) number starts: the product of the lanes
  /// (warps) of the dimensions before it in `order`.
  int lane_stride(int d) const;
  int warp_stride(int d) const;
  /// The tile shape this layout is for (the parent's shape less the removed dimension).
  std::vector<std::int64_t> tile_shape() const;
  /// The same placement for a tile of `s` (same rank; a slice keeps 1 along its dimension).
  Layout with_shape(std::vector<std::int64_t> s) const;
  /// Text form: "#blocked<spt=[1,4], tpw=[8,4], wpc=[4,1], order=[1,0]>", "#mma<warps=[4,2]>",
  /// "#slice<dim=1, #mma<warps=[4,2]>>", "#shared<strides=[5120,40,1]>",
  /// "#dot_op<b^T, warps=[4,2], k_width=2>".
  std::string str() const;
  /// A hash of the layout, identical in every process.
  std::uint64_t structural_hash() const;
};

/// The shared layout of a tile of `shape` held with the given element strides.
Layout shared_layout(std::vector<std::int64_t> shape, std::vector<std::int64_t> strides);

/// The dot-operand layout of operand `operand` (0: a, 1: b) of a dot whose accumulator is in
/// mma layout `mma`, for a tile of `shape` (the operand's k-steps, `transposed` if it is held
/// transposed) of elements `k_width` to a 32-bit word.
Layout dot_operand_layout(const Layout& mma, int operand, std::vector<std::int64_t> shape, int k_width, bool transposed);

/// The byte offset of element (row, col) of a swizzled shared tile of `rows` rows whose
/// elements are `elem_bytes` bytes (see Layout): the column block of `col`, the row in it,
/// and the row's 16-byte chunk XORed with bits 7 and up of the offset, as the hardware's
/// 32-, 64- and 128-byte swizzles do for a buffer aligned to 8 * swizzle bytes.
std::int64_t swizzled_offset(std::int64_t row, std::int64_t col, std::int64_t rows, int swizzle, int elem_bytes);

/// The layout cutlet gives a tile of `shape` in a block of `warps` warps: `vec` (a power of
/// two) consecutive elements per thread along the last dimension, lanes along the last
/// dimensions, warps along the first ones (so row reductions stay inside a warp).
Layout default_layout(const std::vector<std::int64_t>& shape, int warps, int vec = 4);

/// `parent` with dimension `dim` removed (the layout of a reduction along `dim`); its shape
/// keeps the parent's other extents and has 1 along `dim` (the removed extent does not place
/// the slice's elements: slices of parents that differ only there are one layout).
Layout slice_layout(const Layout& parent, int dim);

/// The layout of an expand_dims at `axis` of a tile in `l` (not a slice): a new dimension of
/// one element, held by every thread; the registers stay as they are.
Layout insert_dim_layout(const Layout& l, int axis, std::vector<std::int64_t> result_shape);

/// The mma accumulator layout of an M x N dot on `warps` warps, if tensor cores apply: the
/// warps split M and N so that each warp's part is as square as can be (the fewest fragment
/// reads per mma), or, with `whole_rows`, split M alone where M allows it (each warp holds
/// whole rows of the result).
std::optional<Layout> mma_layout(std::int64_t m, std::int64_t n, int warps, bool whole_rows = false);

/// The wgmma accumulator layout of an M x N dot on `warps` warps (a multiple of 4: whole
/// warpgroups), if wgmma applies: the warps split M alone, 16 rows each (a warpgroup's four
/// warps hold 64 consecutive rows, one m64 wgmma), repeating down M; N a multiple of 8.
std::optional<Layout> wgmma_layout(std::int64_t m, std::int64_t n, int warps);

}  // namespace cutlet::ir
