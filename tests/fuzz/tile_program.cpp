#include "fuzz/tile_program.h"

#include <random>
#include <sstream>

namespace cutlet::fuzz {
namespace {

class TileGenerator {
 public:
  explicit TileGenerator(std::uint64_t seed) : rng_(seed * 0xBF58476D1CE4E5B9ull + 0x94D049BB133111EBull) {}

  TileProgram run(std::uint64_t seed) {
    TileProgram p;
    p.seed = seed;
    p.m = uniform(0, 1) ? 32 : 16;
    static constexpr int ns[] = {16, 32, 64};
    p.n = ns[uniform(0, 2)];
    p.grid = uniform(1, 2);
    p.rows = uniform((p.grid - 1) * p.m + 1, p.grid * p.m);
    p.cols = uniform(1, p.n);
    p.tile = gen(3);
    p.row = gen(2);
    return p;
  }

 private:
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  float small_constant() {
    static constexpr float values[] = {0.0f, 1.5f, -2.0f, 0.5f, -1.0f};
    return values[uniform(0, 4)];
  }

  TileExpr leaf() {
    TileExpr e;
    const int k = uniform(0, 4);
    e.kind = k < 2 ? TileExprKind::LoadX : k < 4 ? TileExprKind::LoadY : TileExprKind::Const;
    e.value = small_constant();
    return e;
  }

  TileExpr gen(int depth) {
    if (depth <= 0 || uniform(0, 3) == 0) return leaf();
    TileExpr e;
    switch (uniform(0, 9)) {
      case 0: case 1: case 2:
        e.kind = TileExprKind::Binary;
        e.op = static_cast<std::uint8_t>(uniform(0, 4));
        e.args = {gen(depth - 1), gen(depth - 1)};
        return e;
      case 3:
        e.kind = TileExprKind::Unary;
        e.op = static_cast<std::uint8_t>(uniform(0, 1));
        break;
      case 4: e.kind = TileExprKind::RowReduce; e.op = static_cast<std::uint8_t>(uniform(0, 1)); break;
      case 5: e.kind = TileExprKind::ColReduce; e.op = static_cast<std::uint8_t>(uniform(0, 1)); break;
      case 6: e.kind = TileExprKind::Cumsum; e.op = static_cast<std::uint8_t>(uniform(0, 1)); break;
      case 7: case 8: e.kind = TileExprKind::Dot; e.op = static_cast<std::uint8_t>(uniform(0, 1)); break;
      default:
        e.kind = TileExprKind::Loop;
        e.trips = uniform(0, 3);
        static constexpr float factors[] = {0.5f, -1.0f, 1.5f};
        e.value = factors[uniform(0, 2)];
        e.args = {gen(depth - 1), gen(depth - 1)};
        return e;
    }
    e.args = {gen(depth - 1)};
    return e;
  }

  std::mt19937_64 rng_;
};

}  // namespace

bool is_tile_seed(std::uint64_t seed) { return seed % 4 == 3; }

TileProgram generate_tile_program(std::uint64_t seed) { return TileGenerator(seed).run(seed); }

std::string tile_kernel_name(const TileProgram& p) { return "fuzz_tile_" + std::to_string(p.seed); }

std::string to_string(const TileExpr& e) {
  std::ostringstream os;
  auto args = [&] {
    for (const auto& a : e.args) os << " " << to_string(a);
    os << ")";
  };
  switch (e.kind) {
    case TileExprKind::LoadX: os << "x[other " << e.value << "]"; break;
    case TileExprKind::LoadY: os << "y[other " << e.value << "]"; break;
    case TileExprKind::Const: os << e.value; break;
    case TileExprKind::Binary: {
      static constexpr const char* names[] = {"add", "sub", "mul", "minimum", "maximum"};
      os << "(" << names[e.op];
      args();
      break;
    }
    case TileExprKind::Unary: os << (e.op ? "(abs" : "(neg"); args(); break;
    case TileExprKind::RowReduce: os << (e.op ? "(row_max" : "(row_sum"); args(); break;
    case TileExprKind::ColReduce: os << (e.op ? "(col_max" : "(col_sum"); args(); break;
    case TileExprKind::Cumsum: os << "(cumsum axis " << int(e.op); args(); break;
    case TileExprKind::Dot: os << (e.op ? "(dot.bf16 bb" : "(dot.f16 bh"); args(); break;
    case TileExprKind::Loop: os << "(loop " << e.trips << " x acc*" << e.value << "+b+i"; args(); break;
  }
  return os.str();
}

std::string to_string(const TileProgram& p) {
  std::ostringstream os;
  os << "tile seed " << p.seed << ": tile " << p.m << "x" << p.n << ", grid " << p.grid << ", tensors " << p.rows << "x"
     << p.cols << "\n  out = " << to_string(p.tile) << "\n  out_row = row sums of " << to_string(p.row) << "\n";
  return os.str();
}

}  // namespace cutlet::fuzz
