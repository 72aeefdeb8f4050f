#include "fuzz/simt_evaluator.h"

#include <cmath>
#include <random>

namespace cutlet::fuzz {
namespace {

/// A random non-zero value of type t: small numbers, whole-range integers, floats of
/// moderate and of any finite magnitude.
std::uint64_t random_nonzero(Scalar t, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> pct(0, 99);
  for (;;) {
    std::uint64_t b = 0;
    if (is_integer(t)) {
      b = pct(rng) < 50 ? static_cast<std::uint64_t>(std::uniform_int_distribution<int>(-100, 100)(rng)) : rng();
      if (is_unsigned_int(t) && pct(rng) < 50) b = std::uniform_int_distribution<int>(1, 200)(rng);
    } else if (pct(rng) < 85) {
      const double mag = std::exp(std::uniform_real_distribution<double>(std::log(0.01), std::log(100.0))(rng));
      b = round_to_float_bits(t, pct(rng) < 50 ? -mag : mag);
    } else {
      b = rng();
      if (!std::isfinite(float_value(t, truncate_bits(t, b)))) continue;
    }
    b = truncate_bits(t, b);
    if (is_integer(t) ? b != 0 : float_value(t, b) != 0) return b;
  }
}

std::uint64_t combine(AtomicOp op, Scalar t, std::uint64_t old, std::uint64_t v) {
  switch (op) {
    case AtomicOp::Add: return truncate_bits(t, old + v);
    case AtomicOp::Sub: return truncate_bits(t, old - v);
    case AtomicOp::And: return old & v;
    case AtomicOp::Or: return old | v;
    case AtomicOp::Xor: return old ^ v;
    case AtomicOp::Min: return integer_value(t, v) < integer_value(t, old) ? v : old;
    case AtomicOp::Max: return integer_value(t, v) > integer_value(t, old) ? v : old;
  }
  return old;
}

class Interpreter {
 public:
  Interpreter(const SimtProgram& p, const SimtData& d, std::uint8_t poison) : p_(p), d_(d), n_(p.threads()) {
    for (int b = 0; b < 12; ++b) {
      const Scalar t = kBufferTypes[b];
      r_.outputs[b].assign(static_cast<std::size_t>(n_) * p.outputs_of(t),
                           truncate_bits(t, 0x0101010101010101ull * poison));
    }
    r_.accumulators = d.accumulators;
    for (const auto& v : p.vars) vars_.emplace_back(n_, with_scalar(v.type, [](auto id) {
      using T = typename decltype(id)::type;
      if constexpr (std::is_same_v<T, bool>) return std::uint64_t{0};
      else return bits_of(T(0.0f));
    }));
  }

  SimtExpected run() {
    block(p_.body, std::vector<char>(n_, 1));
    return std::move(r_);
  }

 private:
  std::uint64_t eval(const Expr& e, int t) {
    auto arg = [&](int k) { return eval(e.args[k], t); };
    switch (e.kind) {
      case ExprKind::Const: return e.value;
      case ExprKind::Input: {
        const int thread = (t + e.offset) % n_;
        return d_.inputs[buffer_index(e.type)].at(static_cast<std::size_t>(thread) * p_.inputs[static_cast<int>(e.type)] + e.index);
      }
      case ExprKind::Var: return vars_.at(e.index)[t];
      case ExprKind::Special:
        switch (static_cast<SpecialIndex>(e.op)) {
          case SpecialIndex::ThreadX: return static_cast<std::uint64_t>(t % p_.block);
          case SpecialIndex::BlockX: return static_cast<std::uint64_t>(t / p_.block);
          case SpecialIndex::GlobalId: return static_cast<std::uint64_t>(t);
          case SpecialIndex::LaneId: return static_cast<std::uint64_t>(t % p_.block % 32);
        }
        return 0;
      case ExprKind::LoopIndex:
        return truncate_bits(Scalar::I32, static_cast<std::uint64_t>(static_cast<std::int64_t>(loops_.at(e.index)[t])));
      case ExprKind::Unary: return eval_unary(static_cast<UnaryOp>(e.op), e.args[0].type, arg(0), r_.flags);
      case ExprKind::Binary: return eval_binary(static_cast<BinaryOp>(e.op), e.type, arg(0), arg(1), r_.flags);
      case ExprKind::Compare: return eval_compare(static_cast<CmpOp>(e.op), e.args[0].type, arg(0), arg(1)) ? 1 : 0;
      case ExprKind::Select: {
        // Both sides are computed, as select does on the GPU.
        const std::uint64_t c = arg(0), a = arg(1), b = arg(2);
        return c ? a : b;
      }
      case ExprKind::Cast: return eval_cast(e.args[0].type, e.type, arg(0), r_.flags);
      case ExprKind::Bitcast: return truncate_bits(e.type, arg(0));
      case ExprKind::Fma: return eval_fma(e.type, arg(0), arg(1), arg(2));
      case ExprKind::FunnelShift: {
        const std::uint64_t x = (arg(1) << 32) | arg(0);
        const int s = static_cast<int>(arg(2) & 31);
        return e.op == 0 ? ((x << s) >> 32) & 0xffffffffu : (x >> s) & 0xffffffffu;
      }
    }
    return 0;
  }

  static bool all(const std::vector<char>& active) {
    for (char a : active)
      if (!a) return false;
    return true;
  }

  void store(int output, int t, std::uint64_t v) {
    const OutputInfo& o = p_.outputs.at(output);
    r_.outputs[buffer_index(o.type)].at(static_cast<std::size_t>(t) * p_.outputs_of(o.type) + o.slot) = v;
  }

  void vote(const Stmt& s) {
    std::vector<std::uint64_t> v(n_);
    for (int t = 0; t < n_; ++t) v[t] = eval(s.value, t);
    const auto op = static_cast<VoteOp>(s.op);
    const Scalar vt = s.value.type;
    const bool block_wide = op == VoteOp::BlockCount || op == VoteOp::BlockAnd || op == VoteOp::BlockOr;
    const int group = block_wide ? p_.block : 32;
    for (int base = 0; base < n_; base += group) {
      std::uint64_t acc = 0;
      switch (op) {
        case VoteOp::Ballot:
          for (int l = 0; l < group; ++l) acc |= (v[base + l] & 1) << l;
          break;
        case VoteOp::Any:
        case VoteOp::BlockOr:
          for (int l = 0; l < group; ++l) acc |= v[base + l] & 1;
          break;
        case VoteOp::All:
        case VoteOp::BlockAnd:
          acc = 1;
          for (int l = 0; l < group; ++l) acc &= v[base + l] & 1;
          break;
        case VoteOp::BlockCount:
          for (int l = 0; l < group; ++l) acc += v[base + l] & 1;
          break;
        case VoteOp::ReduceAdd:
          for (int l = 0; l < group; ++l) acc = truncate_bits(vt, acc + v[base + l]);
          break;
        case VoteOp::ReduceMin:
        case VoteOp::ReduceMax:
          acc = v[base];
          for (int l = 1; l < group; ++l)
            acc = combine(op == VoteOp::ReduceMin ? AtomicOp::Min : AtomicOp::Max, vt, acc, v[base + l]);
          break;
        case VoteOp::ReduceAnd:
          acc = truncate_bits(vt, ~std::uint64_t{0});
          for (int l = 0; l < group; ++l) acc &= v[base + l];
          break;
        case VoteOp::ReduceOr:
          for (int l = 0; l < group; ++l) acc |= v[base + l];
          break;
        case VoteOp::ReduceXor:
          for (int l = 0; l < group; ++l) acc ^= v[base + l];
          break;
      }
      for (int l = 0; l < group; ++l) vars_.at(s.target)[base + l] = acc;
    }
  }

  void stmt(const Stmt& s, const std::vector<char>& active) {
    switch (s.kind) {
      case StmtKind::Assign:
        for (int t = 0; t < n_; ++t)
          if (active[t]) vars_.at(s.target)[t] = eval(s.value, t);
        return;
      case StmtKind::Store:
        for (int t = 0; t < n_; ++t)
          if (active[t]) store(s.target, t, eval(s.value, t));
        return;
      case StmtKind::StoreApprox:
        for (int t = 0; t < n_; ++t)
          if (active[t]) store(s.target, t, eval_approx(static_cast<ApproxFn>(s.op), s.value.type, eval(s.value, t)));
        return;
      case StmtKind::If: {
        std::vector<char> then_mask(n_, 0), else_mask(n_, 0);
        for (int t = 0; t < n_; ++t)
          if (active[t]) (eval(s.value, t) ? then_mask : else_mask)[t] = 1;
        block(s.body, then_mask);
        block(s.else_body, else_mask);
        return;
      }
      case StmtKind::For: {
        std::vector<std::int32_t> index(n_, s.begin), end(n_, 0);
        for (int t = 0; t < n_; ++t)
          if (active[t]) end[t] = static_cast<std::int32_t>(integer_value(Scalar::I32, eval(s.value, t)));
        loops_.push_back(index);
        for (int trip = 0;; ++trip) {
          std::vector<char> running(n_, 0);
          bool any = false;
          for (int t = 0; t < n_; ++t) {
            const std::int32_t i = loops_.back()[t];
            running[t] = active[t] && (s.step > 0 ? i < end[t] : i > end[t]);
            any = any || running[t];
          }
          if (!any) break;
          if (trip > 64) {
            r_.flags.set_undefined("a loop of more than 64 trips");
            break;
          }
          block(s.body, running);
          for (int t = 0; t < n_; ++t)
            if (running[t]) loops_.back()[t] += s.step;
        }
        loops_.pop_back();
        return;
      }
      case StmtKind::Exchange:
      case StmtKind::Shuffle:
      case StmtKind::Vote: {
        if (!all(active)) {
          r_.flags.set_undefined("a block-wide or warp-wide statement where not every thread runs");
          return;
        }
        if (s.kind == StmtKind::Vote) {
          vote(s);
          return;
        }
        std::vector<std::uint64_t> v(n_);
        for (int t = 0; t < n_; ++t) v[t] = eval(s.value, t);
        for (int t = 0; t < n_; ++t) {
          int src = t;
          if (s.kind == StmtKind::Exchange) {
            const int base = t - t % p_.block;
            src = base + (t % p_.block + s.amount) % p_.block;
          } else {
            const int lane = t % 32, warp = t - lane;
            switch (static_cast<ShuffleOp>(s.op)) {
              case ShuffleOp::Idx: src = warp + s.amount % 32; break;
              case ShuffleOp::Up: src = lane >= s.amount ? t - s.amount : t; break;
              case ShuffleOp::Down: src = lane + s.amount < 32 ? t + s.amount : t; break;
              case ShuffleOp::Xor: src = warp + (lane ^ s.amount); break;
            }
          }
          vars_.at(s.target)[t] = v[src];
        }
        return;
      }
      case StmtKind::Atomic: {
        const AccumulatorInfo& a = p_.accumulators.at(s.target);
        auto& slot = r_.accumulators[accumulator_buffer(a.type)].at(a.slot);
        for (int t = 0; t < n_; ++t)
          if (active[t]) slot = combine(a.op, a.type, slot, eval(s.value, t));
        return;
      }
    }
  }

  void block(const std::vector<Stmt>& body, const std::vector<char>& active) {
    for (const auto& s : body) stmt(s, active);
  }

  const SimtProgram& p_;
  const SimtData& d_;
  const int n_;
  SimtExpected r_;
  std::vector<std::vector<std::uint64_t>> vars_;   ///< [variable][thread]
  std::vector<std::vector<std::int32_t>> loops_;   ///< [loop depth][thread]
};

}  // namespace

SimtData random_simt_data(const SimtProgram& p, std::uint64_t seed) {
  std::mt19937_64 rng(seed ^ 0xD1B54A32D192ED03ull);
  SimtData d;
  for (int b = 0; b < 12; ++b) {
    const Scalar t = kBufferTypes[b];
    d.inputs[b].resize(static_cast<std::size_t>(p.threads()) * p.inputs[static_cast<int>(t)]);
    for (auto& x : d.inputs[b]) x = random_nonzero(t, rng);
  }
  for (int a = 0; a < 4; ++a) {
    d.accumulators[a].resize(p.accumulators_of(kAccumulatorTypes[a]));
    for (auto& x : d.accumulators[a]) x = random_nonzero(kAccumulatorTypes[a], rng);
  }
  return d;
}

SimtExpected evaluate_simt(const SimtProgram& p, const SimtData& data, std::uint8_t poison) {
  return Interpreter(p, data, poison).run();
}

}  // namespace cutlet::fuzz
