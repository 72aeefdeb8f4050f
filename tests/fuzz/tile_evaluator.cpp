#include "fuzz/tile_evaluator.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace cutlet::fuzz {
namespace {

constexpr double kF32Eps = 0x1p-23;

/// An [m, n] tile: values as the GPU rounds them, and error bounds.
struct Approx {
  std::vector<float> v;
  std::vector<double> e;
};

/// The bound of one more rounding of r when the operands already carry errors.
double rounding(double carried, float r) { return carried > 0 ? carried + kF32Eps * std::fabs(r) : 0; }

class TileInterpreter {
 public:
  TileInterpreter(const TileProgram& p, const TileData& d, int pid) : p_(p), d_(d), pid_(pid), size_(p.m * p.n) {}

  Approx eval(const TileExpr& x) {
    Approx r{std::vector<float>(size_), std::vector<double>(size_, 0)};
    switch (x.kind) {
      case TileExprKind::LoadX:
      case TileExprKind::LoadY: {
        const auto& src = x.kind == TileExprKind::LoadX ? d_.x : d_.y;
        for (int i = 0; i < p_.m; ++i)
          for (int j = 0; j < p_.n; ++j) {
            const int row = pid_ * p_.m + i;
            r.v[i * p_.n + j] = row < p_.rows && j < p_.cols ? src[row * p_.cols + j] : x.value;
          }
        return r;
      }
      case TileExprKind::Const: std::fill(r.v.begin(), r.v.end(), x.value); return r;
      case TileExprKind::Binary: {
        const Approx a = eval(x.args[0]), b = eval(x.args[1]);
        for (int k = 0; k < size_; ++k) {
          const float u = a.v[k], w = b.v[k];
          const double eu = a.e[k], ew = b.e[k];
          switch (x.op) {
            case 0: r.v[k] = u + w; r.e[k] = rounding(eu + ew, r.v[k]); break;
            case 1: r.v[k] = u - w; r.e[k] = rounding(eu + ew, r.v[k]); break;
            case 2:
              r.v[k] = u * w;
              r.e[k] = rounding(eu * std::fabs(w) + ew * std::fabs(u) + eu * ew, r.v[k]);
              break;
            case 3: r.v[k] = std::fmin(u, w); r.e[k] = std::max(eu, ew); break;
            default: r.v[k] = std::fmax(u, w); r.e[k] = std::max(eu, ew); break;
          }
        }
        return r;
      }
      case TileExprKind::Unary: {
        r = eval(x.args[0]);
        for (auto& v : r.v) v = x.op ? std::fabs(v) : -v;
        return r;
      }
      case TileExprKind::RowReduce:
      case TileExprKind::ColReduce:
      case TileExprKind::Cumsum: {
        const Approx a = eval(x.args[0]);
        const bool along_rows = x.kind == TileExprKind::RowReduce || (x.kind == TileExprKind::Cumsum && x.op == 1);
        const bool is_max = x.kind != TileExprKind::Cumsum && x.op == 1;
        const int lines = along_rows ? p_.m : p_.n, length = along_rows ? p_.n : p_.m;
        for (int l = 0; l < lines; ++l) {
          auto at = [&](int k) { return along_rows ? l * p_.n + k : k * p_.n + l; };
          double sum = 0, magnitude = 0, carried = 0;
          float best = a.v[at(0)];
          for (int k = 0; k < length; ++k) {
            sum += a.v[at(k)];
            magnitude += std::fabs(a.v[at(k)]);
            best = std::fmax(best, a.v[at(k)]);
            carried = is_max ? std::max(carried, a.e[at(k)]) : carried + a.e[at(k)];
            if (x.kind == TileExprKind::Cumsum) {
              r.v[at(k)] = static_cast<float>(sum);
              r.e[at(k)] = carried + (k + 1) * kF32Eps * magnitude;
            }
          }
          if (x.kind == TileExprKind::Cumsum) continue;
          const float value = is_max ? best : static_cast<float>(sum);
          const double error = is_max ? carried : carried + length * kF32Eps * magnitude;
          for (int k = 0; k < length; ++k) {
            r.v[at(k)] = value;
            r.e[at(k)] = error;
          }
        }
        return r;
      }
      case TileExprKind::Dot: {
        const Approx a = eval(x.args[0]);
        const double cast_eps = x.op == 0 ? 0x1p-10 : 0x1p-7;
        std::vector<float> ah(size_);
        std::vector<double> ae(size_);
        for (int k = 0; k < size_; ++k) {
          ah[k] = x.op == 0 ? static_cast<float>(half(a.v[k])) : static_cast<float>(bfloat16(a.v[k]));
          ae[k] = a.e[k] > 0 ? a.e[k] + cast_eps * std::fabs(a.v[k]) : 0;
        }
        for (int i = 0; i < p_.m; ++i)
          for (int j = 0; j < p_.n; ++j) {
            double sum = 0, magnitude = 0, carried = 0;
            for (int k = 0; k < p_.n; ++k) {
              const double b = x.op == 0 ? static_cast<float>(d_.bh[k * p_.n + j]) : static_cast<float>(d_.bb[k * p_.n + j]);
              sum += static_cast<double>(ah[i * p_.n + k]) * b;
              magnitude += std::fabs(static_cast<double>(ah[i * p_.n + k]) * b);
              carried += ae[i * p_.n + k] * std::fabs(b);
            }
            r.v[i * p_.n + j] = static_cast<float>(sum);
            r.e[i * p_.n + j] = carried + (p_.n + 1) * kF32Eps * magnitude;
          }
        return r;
      }
      case TileExprKind::Loop: {
        Approx acc = eval(x.args[0]);
        const Approx b = eval(x.args[1]);
        for (int i = 0; i < x.trips; ++i)
          for (int k = 0; k < size_; ++k) {
            const float scaled = acc.v[k] * x.value;
            const double es = rounding(acc.e[k] * std::fabs(x.value), scaled);
            const float plus = scaled + b.v[k];
            const double ep = rounding(es + b.e[k], plus);
            acc.v[k] = plus + static_cast<float>(i);
            acc.e[k] = rounding(ep, acc.v[k]);
          }
        return acc;
      }
    }
    return r;
  }

 private:
  const TileProgram& p_;
  const TileData& d_;
  const int pid_, size_;
};

}  // namespace

TileData random_tile_data(const TileProgram& p, std::uint64_t seed) {
  std::mt19937_64 rng(seed ^ 0xA0761D6478BD642Full);
  auto nonzero = [&](float lo, float hi) {
    for (;;)
      if (float v = std::uniform_real_distribution<float>(lo, hi)(rng); v != 0) return v;
  };
  TileData d;
  d.x.resize(static_cast<std::size_t>(p.rows) * p.cols);
  d.y.resize(d.x.size());
  for (auto& v : d.x) v = nonzero(-2, 2);
  for (auto& v : d.y) v = nonzero(-2, 2);
  for (int k = 0; k < p.n * p.n; ++k) {
    d.bh.push_back(half(nonzero(-0.25f, 0.25f)));
    d.bb.push_back(bfloat16(nonzero(-0.25f, 0.25f)));
  }
  return d;
}

TileExpected evaluate_tile(const TileProgram& p, const TileData& data) {
  TileExpected r;
  r.out.assign(static_cast<std::size_t>(p.rows) * p.cols, 0);
  r.out_error.assign(r.out.size(), 0);
  r.out_row.assign(p.rows, 0);
  r.row_error.assign(p.rows, 0);
  for (int pid = 0; pid < p.grid; ++pid) {
    TileInterpreter in(p, data, pid);
    const Approx tile = in.eval(p.tile);
    const Approx row = in.eval(p.row);
    for (int i = 0; i < p.m; ++i) {
      const int g = pid * p.m + i;
      if (g >= p.rows) continue;
      for (int j = 0; j < p.cols; ++j) {
        r.out[g * p.cols + j] = tile.v[i * p.n + j];
        r.out_error[g * p.cols + j] = tile.e[i * p.n + j];
      }
      double sum = 0, magnitude = 0, carried = 0;
      for (int j = 0; j < p.n; ++j) {
        sum += row.v[i * p.n + j];
        magnitude += std::fabs(row.v[i * p.n + j]);
        carried += row.e[i * p.n + j];
      }
      r.out_row[g] = static_cast<float>(sum);
      r.row_error[g] = carried + (p.n + 1) * kF32Eps * magnitude;
    }
  }
  return r;
}

}  // namespace cutlet::fuzz
