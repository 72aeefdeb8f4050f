// A random tile kernel as a small syntax tree over [M, N] f32 tiles, and its host reference.
//
// The kernel's parameters: out [rows, cols] and out_row [rows] (f32), x and y [rows, cols]
// (f32), bh [N, N] (f16) and bb [N, N] (bf16). Program p (of `grid`) handles rows
// p*M .. p*M + M - 1; rows and cols are not multiples of the tile, so loads and stores are
// masked at the edges (masked-off loads give `other`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cutlet::fuzz {

enum class TileExprKind : std::uint8_t {
  LoadX, LoadY,    ///< the program's [M, N] tile of x (y), `value` where masked off
  Const,           ///< `value` everywhere
  Binary,          ///< op 0 add, 1 sub, 2 mul, 3 minimum, 4 maximum of args[0], args[1]
  Unary,           ///< op 0 negation, 1 abs of args[0]
  RowReduce,       ///< sum (op 0) or max (op 1) of each row of args[0], broadcast back to [M, N]
  ColReduce,       ///< the same along columns
  Cumsum,          ///< inclusive prefix sums of args[0] along axis `op`
  Dot,             ///< cast<f16> (op 0) or cast<bf16> (op 1) of args[0], times bh (bb): [M, N] x [N, N]
  Loop,            ///< acc = args[0]; `trips` times: acc = acc * value + args[1] + i
};

struct TileExpr {
  TileExprKind kind = TileExprKind::Const;
  std::uint8_t op = 0;
  float value = 0;
  int trips = 0;
  std::vector<TileExpr> args;
};

struct TileProgram {
  std::uint64_t seed = 0;
  int m = 16, n = 16;         ///< the tile shape (powers of two)
  int grid = 1;               ///< programs
  int rows = 16, cols = 16;   ///< the tensors' extents (rows <= grid * m, cols <= n)
  TileExpr tile;              ///< stored to out
  TileExpr row;               ///< summed along rows, stored to out_row
};

/// Seeds whose fuzz case is a tile program (the others are per-thread programs).
bool is_tile_seed(std::uint64_t seed);
/// The tile program of `seed`.
TileProgram generate_tile_program(std::uint64_t seed);
std::string to_string(const TileProgram& p);
std::string to_string(const TileExpr& e);
/// The kernel's entry-point name.
std::string tile_kernel_name(const TileProgram& p);

}  // namespace cutlet::fuzz
