#include "fuzz/simt_kernel.h"

#include <optional>
#include <stdexcept>
#include <variant>
#include <vector>

namespace cutlet::fuzz {
namespace {

using AnyValue = std::variant<Value<bool>, Value<std::int8_t>, Value<std::int16_t>, Value<std::int32_t>,
                              Value<std::int64_t>, Value<std::uint8_t>, Value<std::uint16_t>, Value<std::uint32_t>,
                              Value<std::uint64_t>, Value<half>, Value<bfloat16>, Value<float>, Value<double>>;
using AnyVar = std::variant<Var<bool>, Var<std::int8_t>, Var<std::int16_t>, Var<std::int32_t>, Var<std::int64_t>,
                            Var<std::uint8_t>, Var<std::uint16_t>, Var<std::uint32_t>, Var<std::uint64_t>, Var<half>,
                            Var<bfloat16>, Var<float>, Var<double>>;
using AnyPtr = std::variant<Ptr<std::int8_t>, Ptr<std::int16_t>, Ptr<std::int32_t>, Ptr<std::int64_t>, Ptr<std::uint8_t>,
                            Ptr<std::uint16_t>, Ptr<std::uint32_t>, Ptr<std::uint64_t>, Ptr<half>, Ptr<bfloat16>,
                            Ptr<float>, Ptr<double>>;
using AnyAccumulator = std::variant<Ptr<std::int32_t>, Ptr<std::uint32_t>, Ptr<std::int64_t>, Ptr<std::uint64_t>>;
using AnySharedAccumulator =
    std::variant<SharedPtr<std::int32_t>, SharedPtr<std::uint32_t>, SharedPtr<std::int64_t>, SharedPtr<std::uint64_t>>;

template <class T>
AnyValue any(const Value<T>& v) {
  return AnyValue(std::in_place_type<Value<T>>, v);
}

template <class V>
using element_of = typename std::remove_cvref_t<V>::element_type;

template <class T>
inline constexpr bool is_wide_float_v = std::is_same_v<T, float> || std::is_same_v<T, double>;
/// The types FP8 conversions start from (not f64: cutlet refuses it, to round once).
template <class T>
inline constexpr bool is_fp8_source_v = std::is_same_v<T, half> || std::is_same_v<T, bfloat16> || std::is_same_v<T, float>;
template <class T>
inline constexpr bool is_wide_int_v = std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t> ||
                                      std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::uint64_t>;
template <class T>
inline constexpr bool is_int_v = detail::is_int_v<T>;

[[noreturn]] void not_in_language(const char* what, Scalar s) {
  throw std::logic_error(std::string("fuzzed program: ") + what + " is not defined for " + scalar_name(s));
}

template <class T>
Value<T> constant_of(std::uint64_t b) {
  if constexpr (std::is_same_v<T, bool>) return Value<bool>(b != 0);
  else if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) return Value<T>(static_cast<float>(value_of<T>(b)));
  else return Value<T>(value_of<T>(b));
}

template <class T>
AnyValue unary(UnaryOp op, const Value<T>& x) {
  switch (op) {
    case UnaryOp::Neg: if constexpr (!std::is_same_v<T, bool>) return any(-x); break;
    case UnaryOp::BitNot: if constexpr (is_int_v<T>) return any(~x); break;
    case UnaryOp::LogicalNot: if constexpr (std::is_same_v<T, bool>) return any(!x); break;
    case UnaryOp::Abs:
      if constexpr (is_wide_float_v<T> || std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>) return any(cutlet::abs(x));
      break;
    case UnaryOp::Sqrt: if constexpr (is_wide_float_v<T>) return any(cutlet::sqrt(x)); break;
    case UnaryOp::Floor: if constexpr (is_wide_float_v<T>) return any(cutlet::floor(x)); break;
    case UnaryOp::Ceil: if constexpr (is_wide_float_v<T>) return any(cutlet::ceil(x)); break;
    case UnaryOp::Trunc: if constexpr (is_wide_float_v<T>) return any(cutlet::trunc(x)); break;
    case UnaryOp::Rint: if constexpr (is_wide_float_v<T>) return any(cutlet::rint(x)); break;
    case UnaryOp::Round: if constexpr (is_wide_float_v<T>) return any(cutlet::round(x)); break;
    case UnaryOp::Popc: if constexpr (is_wide_int_v<T>) return any(cutlet::popc(x)); break;
    case UnaryOp::Clz: if constexpr (is_wide_int_v<T>) return any(cutlet::clz(x)); break;
    case UnaryOp::Ffs: if constexpr (is_wide_int_v<T>) return any(cutlet::ffs(x)); break;
    case UnaryOp::Brev: if constexpr (is_wide_int_v<T>) return any(cutlet::brev(x)); break;
    case UnaryOp::IsNan: if constexpr (is_wide_float_v<T>) return any(cutlet::isnan(x)); break;
    case UnaryOp::IsInf: if constexpr (is_wide_float_v<T>) return any(cutlet::isinf(x)); break;
    case UnaryOp::IsFinite: if constexpr (is_wide_float_v<T>) return any(cutlet::isfinite(x)); break;
    case UnaryOp::RoundFp8E4M3:
      if constexpr (is_fp8_source_v<T>) return any(cutlet::cast<T>(cutlet::cast<float8_e4m3>(x)));
      break;
    case UnaryOp::RoundFp8E5M2:
      if constexpr (is_fp8_source_v<T>) return any(cutlet::cast<T>(cutlet::cast<float8_e5m2>(x)));
      break;
  }
  not_in_language(op_name(op), scalar_of<T>());
}

template <class T>
AnyValue binary(BinaryOp op, const Value<T>& x, const Value<T>& y) {
  constexpr bool number = !std::is_same_v<T, bool>;
  switch (op) {
    case BinaryOp::Add: if constexpr (number) return any(x + y); break;
    case BinaryOp::Sub: if constexpr (number) return any(x - y); break;
    case BinaryOp::Mul: if constexpr (number) return any(x * y); break;
    case BinaryOp::Div: if constexpr (number) return any(x / y); break;
    case BinaryOp::Rem: if constexpr (is_int_v<T>) return any(x % y); break;
    case BinaryOp::And: if constexpr (std::is_integral_v<T>) return any(x & y); break;
    case BinaryOp::Or: if constexpr (std::is_integral_v<T>) return any(x | y); break;
    case BinaryOp::Xor: if constexpr (std::is_integral_v<T>) return any(x ^ y); break;
    case BinaryOp::Shl: if constexpr (is_int_v<T>) return any(x << y); break;
    case BinaryOp::Shr: if constexpr (is_int_v<T>) return any(x >> y); break;
    case BinaryOp::Min: if constexpr (number) return any(cutlet::min(x, y)); break;
    case BinaryOp::Max: if constexpr (number) return any(cutlet::max(x, y)); break;
    case BinaryOp::Fmod: if constexpr (is_wide_float_v<T>) return any(cutlet::fmod(x, y)); break;
    case BinaryOp::Copysign: if constexpr (is_wide_float_v<T>) return any(cutlet::copysign(x, y)); break;
    case BinaryOp::Mulhi: if constexpr (is_wide_int_v<T>) return any(cutlet::mulhi(x, y)); break;
  }
  not_in_language(op_name(op), scalar_of<T>());
}

template <class T>
Value<bool> compare(CmpOp op, const Value<T>& x, const Value<T>& y) {
  switch (op) {
    case CmpOp::Eq: return x == y;
    case CmpOp::Ne: return x != y;
    default: break;
  }
  if constexpr (!std::is_same_v<T, bool>) {
    switch (op) {
      case CmpOp::Lt: return x < y;
      case CmpOp::Le: return x <= y;
      case CmpOp::Gt: return x > y;
      case CmpOp::Ge: return x >= y;
      default: break;
    }
  }
  not_in_language(op_name(op), scalar_of<T>());
}

template <class T>
AnyValue approx(ApproxFn fn, const Value<T>& x) {
  if constexpr (is_wide_float_v<T>) {
    switch (fn) {
      case ApproxFn::Exp: return any(cutlet::exp(x));
      case ApproxFn::Exp2: return any(cutlet::exp2(x));
      case ApproxFn::Log: return any(cutlet::log(x));
      case ApproxFn::Log2: return any(cutlet::log2(x));
      case ApproxFn::Sin: return any(cutlet::sin(x));
      case ApproxFn::Cos: return any(cutlet::cos(x));
      case ApproxFn::Tanh: return any(cutlet::tanh(x));
      case ApproxFn::Erf: return any(cutlet::erf(x));
      case ApproxFn::Atan: return any(cutlet::atan(x));
      case ApproxFn::Cbrt: return any(cutlet::cbrt(x));
      case ApproxFn::Rsqrt: return any(cutlet::rsqrt(x));
      case ApproxFn::Expm1: return any(cutlet::expm1(x));
      case ApproxFn::Log1p: return any(cutlet::log1p(x));
    }
  }
  not_in_language(op_name(fn), scalar_of<T>());
}

template <class T>
void atomic(AtomicOp op, const ElementRef<T>& ref, const Value<T>& v, Scope scope) {
  switch (op) {
    case AtomicOp::Add: atomic_add(ref, v, scope); break;
    case AtomicOp::Sub: atomic_sub(ref, v, scope); break;
    case AtomicOp::And: atomic_and(ref, v, scope); break;
    case AtomicOp::Or: atomic_or(ref, v, scope); break;
    case AtomicOp::Xor: atomic_xor(ref, v, scope); break;
    case AtomicOp::Min: atomic_min(ref, v, scope); break;
    case AtomicOp::Max: atomic_max(ref, v, scope); break;
  }
}

/// Calls f(std::type_identity<T>{}) for accumulator type `s` (i32, u32, i64, u64).
template <class F>
void with_accumulator_type(Scalar s, F&& f) {
  switch (s) {
    case Scalar::I32: f(std::type_identity<std::int32_t>{}); break;
    case Scalar::U32: f(std::type_identity<std::uint32_t>{}); break;
    case Scalar::I64: f(std::type_identity<std::int64_t>{}); break;
    default: f(std::type_identity<std::uint64_t>{}); break;
  }
}

class Emitter {
 public:
  Emitter(const SimtProgram& p, std::vector<AnyPtr> in, std::vector<AnyPtr> out, std::vector<AnyAccumulator> acc)
      : p_(p), in_(std::move(in)), out_(std::move(out)), acc_(std::move(acc)),
        tid_(thread_idx().x), gid_(block_idx().x * block_dim().x + thread_idx().x) {}

  void run() {
    for (const auto& v : p_.vars)
      with_scalar(v.type, [&]<class T>(std::type_identity<T>) { vars_.push_back(std::make_unique<AnyVar>(std::in_place_type<Var<T>>, constant_of<T>(0))); });
    bool any_shared = false;
    for (const auto& a : p_.accumulators) {
      if (!a.shared) {
        shared_.emplace_back();
        continue;
      }
      any_shared = true;
      with_accumulator_type(a.type, [&]<class T>(std::type_identity<T>) {
        auto s = shared_array<T>(1);
        if_(tid_ == 0, [&] { s[0] = constant_of<T>(accumulator_identity(a.op, a.type)); });
        shared_.emplace_back(AnySharedAccumulator(std::in_place_type<SharedPtr<T>>, s));
      });
    }
    if (any_shared) syncthreads();
    block(p_.body);
    if (any_shared) {
      syncthreads();
      for (std::size_t k = 0; k < p_.accumulators.size(); ++k) {
        const auto& a = p_.accumulators[k];
        if (!a.shared) continue;
        with_accumulator_type(a.type, [&]<class T>(std::type_identity<T>) {
          auto s = std::get<SharedPtr<T>>(*shared_[k]);
          auto g = std::get<Ptr<T>>(acc_[accumulator_buffer(a.type)]);
          // The block's partial of a subtraction is already negated (identity 0 minus the
          // values): it is added.
          const AtomicOp flush = a.op == AtomicOp::Sub ? AtomicOp::Add : a.op;
          if_(tid_ == 0, [&] { atomic(flush, g[a.slot], s[0].load(), Scope::Device); });
        });
      }
    }
  }

 private:
  AnyValue expr(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Const:
        return with_scalar(e.type, [&]<class T>(std::type_identity<T>) -> AnyValue { return any(constant_of<T>(e.value)); });
      case ExprKind::Input:
        return with_scalar(e.type, [&]<class T>(std::type_identity<T>) -> AnyValue {
          if constexpr (std::is_same_v<T, bool>) {
            not_in_language("an input", e.type);
          } else {
            auto ptr = std::get<Ptr<T>>(in_[buffer_index(e.type)]);
            i32 thread = e.offset ? (gid_ + e.offset) % p_.threads() : gid_;
            return any(ptr[thread * p_.inputs[static_cast<int>(e.type)] + e.index].load());
          }
        });
      case ExprKind::Var:
        return std::visit([](const auto& v) { return any(v.get()); }, *vars_.at(e.index));
      case ExprKind::Special:
        switch (static_cast<SpecialIndex>(e.op)) {
          case SpecialIndex::ThreadX: return any(thread_idx().x);
          case SpecialIndex::BlockX: return any(block_idx().x);
          case SpecialIndex::GlobalId: return any(gid_);
          case SpecialIndex::LaneId: return any(lane_id());
        }
        break;
      case ExprKind::LoopIndex: return any(loops_.at(e.index));
      case ExprKind::Unary:
        return std::visit([&](const auto& x) { return unary(static_cast<UnaryOp>(e.op), x); }, expr(e.args[0]));
      case ExprKind::Binary: {
        const AnyValue b = expr(e.args[1]);
        return std::visit([&](const auto& x) {
          return binary(static_cast<BinaryOp>(e.op), x, std::get<Value<element_of<decltype(x)>>>(b));
        }, expr(e.args[0]));
      }
      case ExprKind::Compare: {
        const AnyValue b = expr(e.args[1]);
        return std::visit([&](const auto& x) {
          return any(compare(static_cast<CmpOp>(e.op), x, std::get<Value<element_of<decltype(x)>>>(b)));
        }, expr(e.args[0]));
      }
      case ExprKind::Select: {
        const Value<bool> c = std::get<Value<bool>>(expr(e.args[0]));
        const AnyValue b = expr(e.args[2]);
        return std::visit([&](const auto& x) {
          using T = element_of<decltype(x)>;
          return any(Value<T>(cutlet::select(c, x, std::get<Value<T>>(b))));
        }, expr(e.args[1]));
      }
      case ExprKind::Cast: {
        const AnyValue a = expr(e.args[0]);
        return with_scalar(e.type, [&]<class To>(std::type_identity<To>) -> AnyValue {
          return std::visit([](const auto& x) { return any(cutlet::cast<To>(x)); }, a);
        });
      }
      case ExprKind::Bitcast: {
        const AnyValue a = expr(e.args[0]);
        return with_scalar(e.type, [&]<class To>(std::type_identity<To>) -> AnyValue {
          return std::visit([&](const auto& x) -> AnyValue {
            using From = element_of<decltype(x)>;
            if constexpr (sizeof(From) == sizeof(To) && !std::is_same_v<From, bool> && !std::is_same_v<To, bool>)
              return any(cutlet::bitcast<To>(x));
            else
              not_in_language("this bitcast", e.type);
          }, a);
        });
      }
      case ExprKind::Fma: {
        const AnyValue b = expr(e.args[1]), c = expr(e.args[2]);
        return std::visit([&](const auto& x) -> AnyValue {
          using T = element_of<decltype(x)>;
          if constexpr (is_wide_float_v<T>)
            return any(Value<T>(cutlet::fma(x, std::get<Value<T>>(b), std::get<Value<T>>(c))));
          else
            not_in_language("fma", e.type);
        }, expr(e.args[0]));
      }
      case ExprKind::FunnelShift: {
        const u32 lo = std::get<u32>(expr(e.args[0])), hi = std::get<u32>(expr(e.args[1]));
        const u32 shift = std::get<u32>(expr(e.args[2]));
        return any(e.op == 0 ? funnel_shift_left(lo, hi, shift) : funnel_shift_right(lo, hi, shift));
      }
    }
    throw std::logic_error("fuzzed program: unknown expression");
  }

  void assign(int var, const AnyValue& v) {
    std::visit([&](auto& dst) { dst = std::get<Value<element_of<decltype(dst)>>>(v); }, *vars_.at(var));
  }

  void store_output(int output, const AnyValue& v) {
    const OutputInfo& o = p_.outputs.at(output);
    const int count = p_.outputs_of(o.type);
    std::visit([&](const auto& x) {
      using T = element_of<decltype(x)>;
      if constexpr (std::is_same_v<T, bool>) {
        not_in_language("an output", o.type);
      } else {
        auto ptr = std::get<Ptr<T>>(out_[buffer_index(o.type)]);
        ptr[gid_ * count + o.slot] = x;
      }
    }, v);
  }

  void vote(const Stmt& s) {
    const AnyValue v = expr(s.value);
    const auto op = static_cast<VoteOp>(s.op);
    switch (op) {
      case VoteOp::Ballot: assign(s.target, any(ballot_sync(full_mask, std::get<Value<bool>>(v)))); return;
      case VoteOp::Any: assign(s.target, any(any_sync(full_mask, std::get<Value<bool>>(v)))); return;
      case VoteOp::All: assign(s.target, any(all_sync(full_mask, std::get<Value<bool>>(v)))); return;
      case VoteOp::BlockCount: assign(s.target, any(syncthreads_count(std::get<Value<bool>>(v)))); return;
      case VoteOp::BlockAnd: assign(s.target, any(syncthreads_and(std::get<Value<bool>>(v)))); return;
      case VoteOp::BlockOr: assign(s.target, any(syncthreads_or(std::get<Value<bool>>(v)))); return;
      default: break;
    }
    std::visit([&](const auto& x) {
      using T = element_of<decltype(x)>;
      if constexpr (std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::uint32_t>) {
        switch (op) {
          case VoteOp::ReduceAdd: assign(s.target, any(Value<T>(reduce_add_sync(full_mask, x)))); break;
          case VoteOp::ReduceMin: assign(s.target, any(Value<T>(reduce_min_sync(full_mask, x)))); break;
          case VoteOp::ReduceMax: assign(s.target, any(Value<T>(reduce_max_sync(full_mask, x)))); break;
          case VoteOp::ReduceAnd: assign(s.target, any(Value<T>(reduce_and_sync(full_mask, x)))); break;
          case VoteOp::ReduceOr: assign(s.target, any(Value<T>(reduce_or_sync(full_mask, x)))); break;
          default: assign(s.target, any(Value<T>(reduce_xor_sync(full_mask, x)))); break;
        }
      } else {
        not_in_language(op_name(op), scalar_of<T>());
      }
    }, v);
  }

  void stmt(const Stmt& s) {
    switch (s.kind) {
      case StmtKind::Assign: assign(s.target, expr(s.value)); return;
      case StmtKind::Store: store_output(s.target, expr(s.value)); return;
      case StmtKind::StoreApprox:
        store_output(s.target, std::visit([&](const auto& x) { return approx(static_cast<ApproxFn>(s.op), x); }, expr(s.value)));
        return;
      case StmtKind::If: {
        const Value<bool> c = std::get<Value<bool>>(expr(s.value));
        if (s.else_body.empty()) if_(c, [&] { block(s.body); });
        else if_(c, [&] { block(s.body); }, [&] { block(s.else_body); });
        return;
      }
      case StmtKind::For: {
        const i32 end = std::get<i32>(expr(s.value));
        for_range(s.begin, end, s.step, [&](i32 i) {
          loops_.push_back(i);
          block(s.body);
          loops_.pop_back();
        });
        return;
      }
      case StmtKind::Exchange: {
        const AnyValue v = expr(s.value);
        std::visit([&](const auto& x) {
          using T = element_of<decltype(x)>;
          auto shared = shared_array<T>(p_.block);
          shared[tid_] = x;
          syncthreads();
          assign(s.target, any(shared[(tid_ + s.amount) % p_.block].load()));
          syncthreads();
        }, v);
        return;
      }
      case StmtKind::Shuffle: {
        const AnyValue v = expr(s.value);
        std::visit([&](const auto& x) {
          using T = element_of<decltype(x)>;
          if constexpr (sizeof(T) == 4 || sizeof(T) == 8) {
            const i32 amount(s.amount);
            switch (static_cast<ShuffleOp>(s.op)) {
              case ShuffleOp::Idx: assign(s.target, any(shfl_sync(full_mask, x, amount))); break;
              case ShuffleOp::Up: assign(s.target, any(shfl_up_sync(full_mask, x, amount))); break;
              case ShuffleOp::Down: assign(s.target, any(shfl_down_sync(full_mask, x, amount))); break;
              case ShuffleOp::Xor: assign(s.target, any(shfl_xor_sync(full_mask, x, amount))); break;
            }
          } else {
            not_in_language("a shuffle", scalar_of<T>());
          }
        }, v);
        return;
      }
      case StmtKind::Vote: vote(s); return;
      case StmtKind::Atomic: {
        const AccumulatorInfo& a = p_.accumulators.at(s.target);
        const AnyValue v = expr(s.value);
        with_accumulator_type(a.type, [&]<class T>(std::type_identity<T>) {
          const Value<T> x = std::get<Value<T>>(v);
          if (a.shared) atomic(a.op, std::get<SharedPtr<T>>(*shared_.at(s.target))[0], x, Scope::Block);
          else atomic(a.op, std::get<Ptr<T>>(acc_[accumulator_buffer(a.type)])[a.slot], x, Scope::Device);
        });
        return;
      }
    }
  }

  void block(const std::vector<Stmt>& body) {
    for (const auto& s : body) stmt(s);
  }

  const SimtProgram& p_;
  std::vector<AnyPtr> in_, out_;
  std::vector<AnyAccumulator> acc_;
  i32 tid_, gid_;
  std::vector<std::unique_ptr<AnyVar>> vars_;
  std::vector<std::optional<AnySharedAccumulator>> shared_;
  std::vector<i32> loops_;
};

template <class... Ps>
std::vector<AnyPtr> pointers(const Ps&... ps) {
  std::vector<AnyPtr> v;
  (v.emplace_back(std::in_place_type<Ps>, ps), ...);
  return v;
}

}  // namespace

void SimtBody::operator()(Ptr<std::int8_t> in_i8, Ptr<std::int16_t> in_i16, Ptr<std::int32_t> in_i32,
                          Ptr<std::int64_t> in_i64, Ptr<std::uint8_t> in_u8, Ptr<std::uint16_t> in_u16,
                          Ptr<std::uint32_t> in_u32, Ptr<std::uint64_t> in_u64, Ptr<half> in_f16, Ptr<bfloat16> in_bf16,
                          Ptr<float> in_f32, Ptr<double> in_f64, Ptr<std::int8_t> out_i8, Ptr<std::int16_t> out_i16,
                          Ptr<std::int32_t> out_i32, Ptr<std::int64_t> out_i64, Ptr<std::uint8_t> out_u8,
                          Ptr<std::uint16_t> out_u16, Ptr<std::uint32_t> out_u32, Ptr<std::uint64_t> out_u64,
                          Ptr<half> out_f16, Ptr<bfloat16> out_bf16, Ptr<float> out_f32, Ptr<double> out_f64,
                          Ptr<std::int32_t> acc_i32, Ptr<std::uint32_t> acc_u32, Ptr<std::int64_t> acc_i64,
                          Ptr<std::uint64_t> acc_u64) const {
  std::vector<AnyAccumulator> acc;
  acc.emplace_back(std::in_place_type<Ptr<std::int32_t>>, acc_i32);
  acc.emplace_back(std::in_place_type<Ptr<std::uint32_t>>, acc_u32);
  acc.emplace_back(std::in_place_type<Ptr<std::int64_t>>, acc_i64);
  acc.emplace_back(std::in_place_type<Ptr<std::uint64_t>>, acc_u64);
  Emitter(*program,
          pointers(in_i8, in_i16, in_i32, in_i64, in_u8, in_u16, in_u32, in_u64, in_f16, in_bf16, in_f32, in_f64),
          pointers(out_i8, out_i16, out_i32, out_i64, out_u8, out_u16, out_u32, out_u64, out_f16, out_bf16, out_f32, out_f64),
          std::move(acc))
      .run();
}

SimtKernel make_simt_kernel(const SimtProgram& program) {
  KernelOptions options;
  options.name = "fuzz_simt_" + std::to_string(program.seed);
  options.fma_contraction = false;
  return SimtKernel(SimtBody{std::make_shared<const SimtProgram>(program)}, std::move(options));
}

}  // namespace cutlet::fuzz
