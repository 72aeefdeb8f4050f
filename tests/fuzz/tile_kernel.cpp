#include "fuzz/tile_kernel.h"

#include <cmath>
#include <cstring>
#include <sstream>

#include "fuzz/tile_evaluator.h"

namespace cutlet::fuzz {
namespace {

class TileEmitter {
 public:
  TileEmitter(const TileProgram& p, const Tensor<float, 2>& x, const Tensor<float, 2>& y, const Tensor<half, 2>& bh,
              const Tensor<bfloat16, 2>& bb)
      : p_(p), x_(x), y_(y), bh_(bh), bb_(bb), rows_(program_id(0) * p.m + arange(p.m)),
        rr_(expand_dims(rows_, 1)), cc_(expand_dims(arange(p.n), 0)),
        mask_((rr_ < x.shape(0)) & (cc_ < x.shape(1))) {}

  Tile<float> emit(const TileExpr& e) {
    const std::vector<std::int64_t> shape = {p_.m, p_.n};
    switch (e.kind) {
      case TileExprKind::LoadX: return load(x_, {rr_, cc_}, mask_, Value<float>(e.value));
      case TileExprKind::LoadY: return load(y_, {rr_, cc_}, mask_, Value<float>(e.value));
      case TileExprKind::Const: return full<float>(shape, e.value);
      case TileExprKind::Binary: {
        const Tile<float> a = emit(e.args[0]), b = emit(e.args[1]);
        switch (e.op) {
          case 0: return a + b;
          case 1: return a - b;
          case 2: return a * b;
          case 3: return minimum(a, b);
          default: return maximum(a, b);
        }
      }
      case TileExprKind::Unary: {
        const Tile<float> a = emit(e.args[0]);
        return e.op ? cutlet::abs(a) : -a;
      }
      case TileExprKind::RowReduce: {
        const Tile<float> a = emit(e.args[0]);
        return broadcast_to(expand_dims(e.op ? cutlet::max(a, 1) : cutlet::sum(a, 1), 1), shape);
      }
      case TileExprKind::ColReduce: {
        const Tile<float> a = emit(e.args[0]);
        return broadcast_to(expand_dims(e.op ? cutlet::max(a, 0) : cutlet::sum(a, 0), 0), shape);
      }
      case TileExprKind::Cumsum: return cumsum(emit(e.args[0]), e.op);
      case TileExprKind::Dot: {
        const Tile<float> a = emit(e.args[0]);
        auto kr = expand_dims(arange(p_.n), 1), kc = expand_dims(arange(p_.n), 0);
        if (e.op == 0) return dot(cast<half>(a), load(bh_, {kr, kc}));
        return dot(cast<bfloat16>(a), load(bb_, {kr, kc}));
      }
      case TileExprKind::Loop: {
        const Tile<float> init = emit(e.args[0]);
        return for_range(0, e.trips, 1, init, [&](i32 i, Tile<float> acc) {
          return acc * e.value + emit(e.args[1]) + cast<float>(i);
        });
      }
    }
    return full<float>(shape, 0.0f);
  }

  const Tile<std::int32_t>& rows() const { return rows_; }
  const Tile<std::int32_t>& rr() const { return rr_; }
  const Tile<std::int32_t>& cc() const { return cc_; }
  const Tile<bool>& mask() const { return mask_; }

 private:
  const TileProgram& p_;
  const Tensor<float, 2>& x_;
  const Tensor<float, 2>& y_;
  const Tensor<half, 2>& bh_;
  const Tensor<bfloat16, 2>& bb_;
  Tile<std::int32_t> rows_, rr_, cc_;
  Tile<bool> mask_;
};

constexpr unsigned char kPoison = 0xCD;
constexpr int kGuard = 16;

/// Equal floats (either zero, any NaN) where `error` is 0, else within `error`.
bool close(float want, float got, double error) {
  if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got);
  if (error == 0 || !std::isfinite(want)) return want == got;
  return std::fabs(static_cast<double>(want) - got) <= error;
}

}  // namespace

void TileBody::operator()(Tensor<float, 2> out, Tensor<float, 1> out_row, Tensor<float, 2> x, Tensor<float, 2> y,
                          Tensor<half, 2> bh, Tensor<bfloat16, 2> bb) const {
  const TileProgram& p = *program;
  TileEmitter em(p, x, y, bh, bb);
  store(out, {em.rr(), em.cc()}, em.emit(p.tile), em.mask());
  store(out_row, {em.rows()}, cutlet::sum(em.emit(p.row), 1), em.rows() < out_row.shape(0));
}

TileFuzzKernel make_tile_fuzz_kernel(const TileProgram& program) {
  KernelOptions options;
  options.name = tile_kernel_name(program);
  options.fma_contraction = false;
  return tile_kernel(TileBody{std::make_shared<const TileProgram>(program)}, std::move(options), 4);
}

std::string run_tile_on_gpu(const TileProgram& p, const Stream& s, std::uint64_t data_seed) {
  const TileData d = random_tile_data(p, data_seed);
  const TileExpected want = evaluate_tile(p, d);
  Buffer<float> x(s, d.x), y(s, d.y);
  Buffer<half> bh(s, d.bh);
  Buffer<bfloat16> bb(s, d.bb);
  Buffer<float> out(want.out.size() + kGuard, s.device()), out_row(want.out_row.size() + kGuard, s.device());
  out.fill_bytes(s, kPoison);
  out_row.fill_bytes(s, kPoison);
  auto k = make_tile_fuzz_kernel(p);
  const std::int64_t rows = p.rows, cols = p.cols, n = p.n;
  k.launch(s, {.grid = p.grid}, tensor(out, {rows, cols}), tensor(out_row, {rows}), tensor(x, {rows, cols}),
           tensor(y, {rows, cols}), tensor(bh, {n, n}), tensor(bb, {n, n}));
  const std::vector<float> got = out.to_host(s), got_row = out_row.to_host(s);
  float poison = 0;
  std::memset(&poison, kPoison, sizeof poison);
  std::ostringstream os;
  int bad = 0;
  auto check = [&](const char* name, std::size_t i, float w, float g, double error) {
    if (close(w, g, error)) return;
    if (bad++ < 8) os << "  " << name << "[" << i << "]: expected " << w << " (within " << error << "), got " << g << "\n";
  };
  for (std::size_t i = 0; i < want.out.size(); ++i) check("out", i, want.out[i], got[i], want.out_error[i]);
  for (std::size_t i = 0; i < want.out_row.size(); ++i) check("out_row", i, want.out_row[i], got_row[i], want.row_error[i]);
  for (int i = 0; i < kGuard; ++i) {
    check("out past its end", want.out.size() + i, poison, got[want.out.size() + i], 0);
    check("out_row past its end", want.out_row.size() + i, poison, got_row[want.out_row.size() + i], 0);
  }
  if (bad == 0) return "";
  return std::to_string(bad) + " element(s) differ from the host reference:\n" + os.str();
}

}  // namespace cutlet::fuzz
