#include "fuzz/simt_generator.h"

#include <algorithm>
#include <random>

#include "fuzz/value_range.h"

namespace cutlet::fuzz {
namespace {

using I128 = __int128;

class Generator {
 public:
  explicit Generator(std::uint64_t seed)
      : rng_(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull), fp8_(has_fp8_roundings(seed)) {
    p_.seed = seed;
  }

  SimtProgram run() {
    p_.block = 32 * uniform(1, 4);
    p_.grid = uniform(1, 3);
    palette_ = {Scalar::I32};
    const int extra = uniform(1, 3);
    for (int i = 0; i < extra; ++i) palette_.push_back(kBufferTypes[uniform(0, 11)]);
    // The FP8 seeds compute in a type FP8 conversions start from, too.
    if (fp8_) palette_.push_back(chance(50) ? Scalar::F32 : chance(50) ? Scalar::F16 : Scalar::BF16);
    left_ = uniform(3, 8);
    p_.body = block(0, true, left_);
    // Every variable ends in an output, so that whatever reached it is checked.
    for (std::size_t v = 0; v < p_.vars.size() && v < 4; ++v) {
      Expr read = var_ref(static_cast<int>(v));
      if (read.type == Scalar::Bool) read = make_cast(Scalar::U8, read);
      p_.body.push_back(store(read));
    }
    if (p_.outputs.empty()) p_.body.push_back(store(gen(pick_value_type(), 3)));
    return std::move(p_);
  }

 private:
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(int percent) { return uniform(0, 99) < percent; }
  std::uint64_t bits() { return rng_(); }

  Scalar pick_value_type() { return palette_[uniform(0, static_cast<int>(palette_.size()) - 1)]; }
  Scalar pick_type_or_bool() { return chance(15) ? Scalar::Bool : pick_value_type(); }

  // ---- leaves ----

  Expr constant(Scalar t) {
    if (t == Scalar::Bool) return make_const(t, uniform(0, 1));
    if (is_integer(t)) {
      const int k = uniform(0, 9);
      if (k < 5) {
        const int lo = is_signed_int(t) ? -8 : 0;
        return make_const(t, static_cast<std::uint64_t>(static_cast<I128>(uniform(lo, lo + 16))));
      }
      if (k < 7) {
        const I128 edges[] = {integer_min(t), integer_max(t), integer_min(t) + 1, integer_max(t) - 1};
        return make_const(t, static_cast<std::uint64_t>(edges[uniform(0, 3)]));
      }
      return make_const(t, bits());
    }
    if (chance(60)) return make_float_const(t, std::ldexp(static_cast<double>(uniform(-16, 16)), uniform(-3, 3)));
    for (;;) {  // random finite bits
      const std::uint64_t b = truncate_bits(t, bits());
      if (std::isfinite(float_value(t, b))) return make_const(t, b);
    }
  }

  Expr input(Scalar t) {
    const int slot = uniform(0, std::min(p_.inputs[static_cast<int>(t)], 1));
    p_.inputs[static_cast<int>(t)] = std::max(p_.inputs[static_cast<int>(t)], slot + 1);
    Expr e;
    e.kind = ExprKind::Input;
    e.type = t;
    e.index = slot;
    e.offset = chance(25) ? uniform(1, p_.threads() - 1 > 0 ? p_.threads() - 1 : 1) : 0;
    set_full_range(e);
    return e;
  }

  Expr var_ref(int v) {
    Expr e;
    e.kind = ExprKind::Var;
    e.type = p_.vars[v].type;
    e.index = v;
    e.lo = p_.vars[v].lo;
    e.hi = p_.vars[v].hi;
    return e;
  }

  Expr special() {
    Expr e;
    e.kind = ExprKind::Special;
    e.type = Scalar::I32;
    e.op = static_cast<std::uint8_t>(uniform(0, 3));
    e.lo = 0;
    switch (static_cast<SpecialIndex>(e.op)) {
      case SpecialIndex::ThreadX: e.hi = p_.block - 1; break;
      case SpecialIndex::BlockX: e.hi = p_.grid - 1; break;
      case SpecialIndex::GlobalId: e.hi = p_.threads() - 1; break;
      case SpecialIndex::LaneId: e.hi = 31; break;
    }
    return e;
  }

  Expr loop_index() {
    const int d = uniform(0, static_cast<int>(loops_.size()) - 1);
    Expr e;
    e.kind = ExprKind::LoopIndex;
    e.type = Scalar::I32;
    e.index = d;
    e.lo = loops_[d].first;
    e.hi = loops_[d].second;
    return e;
  }

  std::vector<int> vars_of(Scalar t) const {
    std::vector<int> out;
    for (std::size_t v = 0; v < p_.vars.size(); ++v)
      if (p_.vars[v].type == t) out.push_back(static_cast<int>(v));
    return out;
  }

  Expr leaf(Scalar t) {
    if (t == Scalar::Bool) {
      if (chance(30)) return constant(t);
      const Scalar s = pick_value_type();
      return make_compare(static_cast<CmpOp>(uniform(0, 5)), leaf(s), leaf(s));
    }
    for (;;) {
      switch (uniform(0, 4)) {
        case 0: return constant(t);
        case 1: return input(t);
        case 2:
          if (auto vs = vars_of(t); !vs.empty()) return var_ref(vs[uniform(0, static_cast<int>(vs.size()) - 1)]);
          break;
        case 3:
          if (t == Scalar::I32) return special();
          break;
        case 4:
          if (t == Scalar::I32 && !loops_.empty()) return loop_index();
          return input(t);
      }
    }
  }

  // ---- expressions ----

  Expr gen(Scalar t, int depth) {
    if (depth <= 0 || chance(25)) return leaf(t);
    const int d = depth - 1;
    if (t == Scalar::Bool) {
      switch (uniform(0, 5)) {
        case 0: case 1: {
          const Scalar s = chance(20) ? (chance(50) ? Scalar::F32 : Scalar::F64) : pick_value_type();
          CmpOp op = static_cast<CmpOp>(uniform(0, 5));
          return make_compare(op, gen(s, d), gen(s, d));
        }
        case 2: return make_unary(UnaryOp::LogicalNot, gen(t, d));
        case 3: return make_binary(static_cast<BinaryOp>(uniform(5, 7)), gen(t, d), gen(t, d));
        case 4: {
          const Scalar f = chance(50) ? Scalar::F32 : Scalar::F64;
          return make_unary(static_cast<UnaryOp>(uniform(14, 16)), gen(f, d));
        }
        default: return make_cast(t, gen(pick_value_type(), d));
      }
    }
    // Only the FP8 seeds draw here, so every other seed's program stays as it was.
    if (fp8_ && defined_for(UnaryOp::RoundFp8E4M3, t) && chance(20))
      return make_unary(chance(50) ? UnaryOp::RoundFp8E4M3 : UnaryOp::RoundFp8E5M2, gen(t, d));
    for (;;) {
      switch (uniform(0, 9)) {
        case 0: case 1: case 2: case 3: {
          const auto op = static_cast<BinaryOp>(uniform(0, 14));
          if (!defined_for(op, t)) break;
          return make_binary(op, gen(t, d), gen(t, d));
        }
        case 4: {
          const auto op = static_cast<UnaryOp>(uniform(0, 13));
          if (op == UnaryOp::Popc || op == UnaryOp::Clz || op == UnaryOp::Ffs) {
            if (t != Scalar::I32) break;
            static constexpr Scalar wide[] = {Scalar::I32, Scalar::I64, Scalar::U32, Scalar::U64};
            return make_unary(op, gen(wide[uniform(0, 3)], d));
          }
          if (!defined_for(op, t) || result_type(op, t) != t) break;
          return make_unary(op, gen(t, d));
        }
        case 5: return make_select(gen(Scalar::Bool, d), gen(t, d), gen(t, d));
        case 6: case 7: {
          Scalar from = pick_type_or_bool();
          if (from == t) from = Scalar::Bool;
          return make_cast(t, gen(from, d));
        }
        case 8: {
          if (t == Scalar::F32 || t == Scalar::F64) return make_fma(gen(t, d), gen(t, d), gen(t, d));
          if (t == Scalar::U32 && chance(50)) return make_funnel(uniform(0, 1), gen(t, d), gen(t, d), gen(t, d));
          // A bitcast from the integer of the same width (never from a float: NaN bits differ).
          Scalar from = Scalar::Bool;
          switch (scalar_bits(t)) {
            case 8: from = t == Scalar::I8 ? Scalar::U8 : Scalar::I8; break;
            case 16: from = t == Scalar::I16 ? Scalar::U16 : Scalar::I16; break;
            case 32: from = t == Scalar::I32 ? Scalar::U32 : Scalar::I32; break;
            default: from = t == Scalar::I64 ? Scalar::U64 : Scalar::I64; break;
          }
          return make_bitcast(t, gen(from, d));
        }
        default: return leaf(t);
      }
    }
  }

  // ---- statements ----

  int new_var(Scalar t, bool full_range) {
    VarInfo v{t, 0, t == Scalar::Bool ? 1 : 0};
    if (is_integer(t)) {
      v.lo = integer_min(t);
      v.hi = integer_max(t);
      if (!full_range && chance(50)) {
        const I128 r = scalar_bits(t) == 8 ? 100 : 1000;
        v.lo = std::max(v.lo, -r);
        v.hi = r;
      }
    }
    p_.vars.push_back(v);
    return static_cast<int>(p_.vars.size()) - 1;
  }

  /// A variable of type t to assign (an existing one or a new one).
  int target_var(Scalar t, bool full_range) {
    std::vector<int> ok;
    for (int v : vars_of(t))
      if (!full_range || (p_.vars[v].lo == integer_min(t) && p_.vars[v].hi == integer_max(t)) || !is_integer(t)) ok.push_back(v);
    if (!ok.empty() && chance(60)) return ok[uniform(0, static_cast<int>(ok.size()) - 1)];
    return new_var(t, full_range);
  }

  Stmt store(Expr value) {
    Stmt s;
    s.kind = StmtKind::Store;
    s.target = static_cast<int>(p_.outputs.size());
    p_.outputs.push_back({value.type, p_.outputs_of(value.type)});
    s.value = std::move(value);
    return s;
  }

  std::vector<Stmt> block(int depth, bool converged, int n) {
    std::vector<Stmt> out;
    for (int i = 0; i < n && left_ > 0; ++i) {
      --left_;
      Stmt s;
      const int k = uniform(0, 99);
      if (k < 25) {
        const Scalar t = pick_type_or_bool();
        s.kind = StmtKind::Assign;
        s.target = target_var(t, false);
        s.value = fit(gen(t, 3), p_.vars[s.target].lo, p_.vars[s.target].hi);
      } else if (k < 45) {
        s = store(gen(pick_value_type(), 3));
      } else if (k < 50) {
        const Scalar t = chance(50) ? Scalar::F32 : Scalar::F64;
        Expr v = gen(t, 2);
        s = store(v);
        s.kind = StmtKind::StoreApprox;
        s.op = static_cast<std::uint8_t>(uniform(0, kApproxFnCount - 1));
      } else if (k < 60 && depth < 2) {
        s.kind = StmtKind::If;
        s.value = gen(Scalar::Bool, 2);
        s.body = block(depth + 1, false, uniform(1, 3));
        if (chance(50)) s.else_body = block(depth + 1, false, uniform(1, 2));
      } else if (k < 70 && depth < 2) {
        s.kind = StmtKind::For;
        s.begin = uniform(-3, 3);
        static constexpr int steps[] = {1, 1, 2, -1};
        s.step = steps[uniform(0, 3)];
        const bool constant_trips = chance(60);
        if (constant_trips) {
          s.value = make_const(Scalar::I32, static_cast<std::uint64_t>(static_cast<I128>(s.begin + s.step * uniform(0, 4))));
        } else {
          Expr trips = make_binary(BinaryOp::And, gen(Scalar::I32, 2), make_const(Scalar::I32, 3));
          Expr span = make_binary(BinaryOp::Mul, trips, make_const(Scalar::I32, static_cast<std::uint64_t>(static_cast<I128>(s.step))));
          s.value = make_binary(BinaryOp::Add, make_const(Scalar::I32, static_cast<std::uint64_t>(static_cast<I128>(s.begin))), span);
        }
        const I128 far = s.begin + 4 * s.step;
        loops_.push_back({std::min<I128>(s.begin, far), std::max<I128>(s.begin, far)});
        s.body = block(depth + 1, converged && constant_trips, uniform(1, 3));
        loops_.pop_back();
      } else if (k < 76 && converged) {
        Scalar t = pick_value_type();
        s.kind = StmtKind::Exchange;
        s.target = target_var(t, false);
        s.amount = uniform(1, p_.block - 1);
        s.value = fit(gen(t, 2), p_.vars[s.target].lo, p_.vars[s.target].hi);
      } else if (k < 84 && converged) {
        static constexpr Scalar shufflable[] = {Scalar::I32, Scalar::U32, Scalar::I64, Scalar::U64, Scalar::F32, Scalar::F64};
        const Scalar t = chance(50) ? Scalar::I32 : shufflable[uniform(0, 5)];
        s.kind = StmtKind::Shuffle;
        s.op = static_cast<std::uint8_t>(uniform(0, 3));
        switch (static_cast<ShuffleOp>(s.op)) {
          case ShuffleOp::Idx: s.amount = uniform(0, 31); break;
          case ShuffleOp::Xor: s.amount = uniform(1, 31); break;
          default: s.amount = uniform(1, 16); break;
        }
        s.target = target_var(t, false);
        s.value = fit(gen(t, 2), p_.vars[s.target].lo, p_.vars[s.target].hi);
      } else if (k < 90 && converged) {
        const auto op = static_cast<VoteOp>(uniform(0, 11));
        s.kind = StmtKind::Vote;
        s.op = static_cast<std::uint8_t>(op);
        Scalar result = Scalar::Bool, operand = Scalar::Bool;
        switch (op) {
          case VoteOp::Ballot: result = Scalar::U32; break;
          case VoteOp::BlockCount: result = Scalar::I32; break;
          case VoteOp::Any: case VoteOp::All: case VoteOp::BlockAnd: case VoteOp::BlockOr: break;
          default: result = operand = chance(50) ? Scalar::I32 : Scalar::U32; break;
        }
        s.target = target_var(result, true);
        s.value = gen(operand, 2);
      } else {
        s.kind = StmtKind::Atomic;
        if (p_.accumulators.empty() || chance(40)) {
          const Scalar t = kAccumulatorTypes[uniform(0, 3)];
          p_.accumulators.push_back({t, static_cast<AtomicOp>(uniform(0, 6)), p_.accumulators_of(t), chance(30)});
        }
        s.target = uniform(0, static_cast<int>(p_.accumulators.size()) - 1);
        s.value = gen(p_.accumulators[s.target].type, 2);
      }
      out.push_back(std::move(s));
    }
    return out;
  }

  std::mt19937_64 rng_;
  bool fp8_;
  SimtProgram p_;
  std::vector<Scalar> palette_;
  std::vector<std::pair<I128, I128>> loops_;  ///< the index range of each enclosing loop
  int left_ = 0;                              ///< statements still to generate
};

}  // namespace

bool has_fp8_roundings(std::uint64_t seed) { return seed % 16 == 10; }

SimtProgram generate_simt_program(std::uint64_t seed) { return Generator(seed).run(); }

}  // namespace cutlet::fuzz
