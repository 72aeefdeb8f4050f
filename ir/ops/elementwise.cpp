// The rules of the leaves and the elementwise ops: constants, registers, arithmetic,
// comparisons, select, casts and math functions; and their constant folds.
#include <cmath>
#include <limits>

#include "cutlet/ir/builder.h"
#include "cutlet/ir/math.h"
#include "rules.h"

namespace cutlet::ir {
namespace {

constexpr std::int64_t kMathFunctions = 0
#define MATH(name, text, arity, rule, f32, f64, i32, i64, u32, u64) +1
#include "cutlet/ir/math.def"
#undef MATH
    ;

bool operand_class_allows(OperandClass c, Type t) {
  switch (c) {
    case OperandClass::Any: return true;
    case OperandClass::Scalar: return t.is_scalar();
    case OperandClass::Numeric: return t.is_integer() || (t.is_float() && !t.is_fp8());
    case OperandClass::Integer: return t.is_integer();
    case OperandClass::IntOrBool: return t.is_integer() || t.is_bool();
  }
  return false;
}

const char* operand_class_name(OperandClass c) {
  switch (c) {
    case OperandClass::Any: return "any type";
    case OperandClass::Scalar: return "scalars";
    case OperandClass::Numeric: return "integers and floats";
    case OperandClass::Integer: return "integers";
    case OperandClass::IntOrBool: return "integers and bools";
  }
  return "?";
}

std::optional<std::int64_t> int_constant(const FoldInput& in, std::size_t i) {
  const auto& c = in.constants[i];
  if (!c || !(in.types[i].is_integer() || in.types[i].is_bool())) return std::nullopt;
  return std::get<std::int64_t>(*c);
}

std::optional<double> float_constant(const FoldInput& in, std::size_t i) {
  const auto& c = in.constants[i];
  if (!c || !in.types[i].is_float()) return std::nullopt;
  return std::get<double>(*c);
}

Folded constant(std::int64_t v) { return Folded{kNone, Attribute{v}}; }
Folded constant_f(double v) { return Folded{kNone, Attribute{v}}; }
Folded constant_b(bool v) { return constant(v ? 1 : 0); }
Folded operand(const FoldInput& in, std::size_t i) { return Folded{in.operands[i], std::nullopt}; }

template <class T>
T fold_arith(Opcode op, T a, T b, bool& ok) {
  ok = true;
  switch (op) {
    case Opcode::Add: return a + b;
    case Opcode::Sub: return a - b;
    case Opcode::Mul: return a * b;
    case Opcode::Min: return b < a ? b : a;
    case Opcode::Max: return a < b ? b : a;
    default: ok = false; return T{};
  }
}

}  // namespace

std::string fp8_storage_only(const std::string& what, Type t) {
  return what + " is not defined for " + t.str() +
         ": FP8 values are storage only (load, store, select, cast); cast them to f16, bf16 or f32 to compute";
}

std::vector<Type> infer_const(const OpTypes& t) {
  Type r = t.given_result();
  const bool is_int = std::holds_alternative<std::int64_t>(t.attrs[0]);
  if (!((r.is_float() && !is_int) || ((r.is_integer() || r.is_bool()) && is_int)))
    t.fail("constant value does not match its type " + r.str());
  if (is_int && normalize_int(r, t.int_attr(0)) != t.int_attr(0)) t.fail("constant out of range for " + r.str());
  return {r};
}

std::vector<Type> infer_special(const OpTypes& t) {
  if (t.int_attr(0) < 0 || t.int_attr(0) > static_cast<std::int64_t>(SpecialReg::LaneId)) t.fail("bad register");
  return {Type::i32()};
}

std::vector<Type> infer_same_as_operands(const OpTypes& t) {
  const OperandClass c = op_info(t.op).operand_class;
  const char* name = mnemonic(t.op);
  Type a = t.operands[0];
  for (Type b : t.operands)
    if (b != a) t.fail(std::string(name) + " needs operands of one type, got " + a.str() + " and " + b.str());
  const bool elementwise = a.is_scalar() || a.is_vector() || a.is_tile();
  if (!elementwise || !operand_class_allows(c, a.scalar_type()))
    t.fail(elementwise && a.scalar_type().is_fp8() ? fp8_storage_only(name, a)
                                                   : std::string(name) + " is defined for " + operand_class_name(c) + ", not " + a.str());
  return {a};
}

std::vector<Type> infer_cmp(const OpTypes& t) {
  Type a = t.operands[0], b = t.operands[1];
  const std::int64_t p = t.int_attr(0);
  if (p < 0 || p > static_cast<std::int64_t>(Predicate::Ge)) t.fail("bad predicate " + std::to_string(p));
  const char* pname = predicate_name(static_cast<Predicate>(p));
  if (a != b) t.fail(std::string("cmp ") + pname + " needs operands of one type, got " + a.str() + " and " + b.str());
  if (!(a.is_scalar() || a.is_tile()) || !a.scalar_type().is_scalar())
    t.fail("cmp needs scalar or tile operands, not " + a.str());
  if (a.scalar_type().is_fp8()) t.fail(fp8_storage_only(std::string("cmp ") + pname, a));
  return {a.is_tile() ? a.with_element(Type::i1()) : Type::i1()};
}

std::vector<Type> infer_select(const OpTypes& t) {
  Type c = t.operands[0], a = t.operands[1], b = t.operands[2];
  if (a != b) t.fail("select needs both choices of one type, got " + a.str() + " and " + b.str());
  if (c.is_tile() || a.is_tile()) {
    if (!a.is_tile() || c != a.with_element(Type::i1()))
      t.fail("a tile select needs an i1 tile condition of the choices' shape, got " + c.str() + " for " + a.str());
  } else if (!c.is_bool()) {
    t.fail("select needs an i1 condition, got " + c.str());
  }
  return {a};
}

std::vector<Type> infer_cast(const OpTypes& t) {
  Type from = t.operands[0], to = t.given_result();
  if (from.is_tile() || to.is_tile()) {
    if (!from.is_tile() || !to.is_tile() || to != from.with_element(to.element()))
      t.fail("a cast converts the elements of a tile, keeping its shape: not " + from.str() + " to " + to.str());
  } else if (!from.is_scalar() || !to.is_scalar()) {
    t.fail("cast converts scalars, not " + from.str() + " to " + to.str());
  }
  // Through f32 an f64 would be rounded twice; the GPU converts to FP8 from f32, f16 and bf16.
  if (from.scalar_type() == Type::f64() && to.scalar_type().is_fp8())
    t.fail("cannot cast f64 to " + to.scalar_type().str() + " (it would round twice): cast to f32 first");
  return {to};
}

std::vector<Type> infer_bitcast(const OpTypes& t) {
  Type from = t.operands[0], to = t.given_result();
  if (!from.is_scalar() || !to.is_scalar() || from.bits() != to.bits())
    t.fail("bitcast needs scalars of equal width, not " + from.str() + " to " + to.str());
  return {to};
}

std::vector<Type> infer_math(const OpTypes& t) {
  const std::int64_t id = t.int_attr(0);
  if (id < 0 || id >= kMathFunctions) t.fail("bad math function " + std::to_string(id));
  const auto fn = static_cast<MathFn>(id);
  const MathInfo& m = math_info(fn);
  if (t.operands.size() != static_cast<std::size_t>(m.arity))
    t.fail(std::string(m.name) + " takes " + std::to_string(m.arity) + " operands, not " + std::to_string(t.operands.size()));
  Type a = t.operands[0];
  for (Type b : t.operands)
    if (b != a) t.fail(std::string(m.name) + " needs operands of one type, got " + a.str() + " and " + b.str());
  if ((a.is_scalar() || a.is_tile()) && a.scalar_type().is_fp8()) t.fail(fp8_storage_only(m.name, a));
  if (!(a.is_scalar() || a.is_tile()) || !math_implementation(fn, a.scalar_type()))
    t.fail(std::string(m.name) + " is not defined for " + a.str());
  Type r = math_result_type(fn, a.scalar_type());
  return {a.is_tile() ? a.with_element(r) : r};
}

std::optional<Folded> fold_binary(const FoldInput& in) {
  Type t = in.types[0];
  if (!t.is_scalar()) return std::nullopt;
  const Opcode op = in.op;
  auto ia = int_constant(in, 0), ib = int_constant(in, 1);
  if (ia && ib) {
    std::int64_t x = *ia, y = *ib;
    bool is_unsigned = t.is_unsigned_integer() || t.is_bool();
    std::uint64_t ux = static_cast<std::uint64_t>(x), uy = static_cast<std::uint64_t>(y);
    if (t.is_bool()) ux &= 1, uy &= 1;
    switch (op) {
      case Opcode::Add: return constant(static_cast<std::int64_t>(ux + uy));
      case Opcode::Sub: return constant(static_cast<std::int64_t>(ux - uy));
      case Opcode::Mul: return constant(static_cast<std::int64_t>(ux * uy));
      case Opcode::Div:
      case Opcode::Rem:
        if (y == 0) return std::nullopt;
        // Unsigned values narrower than 64 bits are stored zero-extended.
        if (is_unsigned) return constant(static_cast<std::int64_t>(op == Opcode::Div ? ux / uy : ux % uy));
        if (x == std::numeric_limits<std::int64_t>::min() && y == -1) return std::nullopt;
        return constant(op == Opcode::Div ? x / y : x % y);
      case Opcode::Min: return constant(is_unsigned ? static_cast<std::int64_t>(std::min(ux, uy)) : std::min(x, y));
      case Opcode::Max: return constant(is_unsigned ? static_cast<std::int64_t>(std::max(ux, uy)) : std::max(x, y));
      case Opcode::And: return constant(x & y);
      case Opcode::Or: return constant(x | y);
      case Opcode::Xor: return constant(x ^ y);
      case Opcode::Shl:
        if (uy >= static_cast<std::uint64_t>(t.bits())) return std::nullopt;
        return constant(static_cast<std::int64_t>(ux << uy));
      case Opcode::Shr:
        if (uy >= static_cast<std::uint64_t>(t.bits())) return std::nullopt;
        return constant(is_unsigned ? static_cast<std::int64_t>(ux >> uy) : (x >> y));
      default: return std::nullopt;
    }
  }
  auto fa = float_constant(in, 0), fb = float_constant(in, 1);
  if (fa && fb && (t == Type::f32() || t == Type::f64())) {
    bool ok = false;
    double r;
    if (t == Type::f32()) {
      r = fold_arith<float>(op, static_cast<float>(*fa), static_cast<float>(*fb), ok);
      if (!ok && op == Opcode::Div) ok = true, r = static_cast<float>(*fa) / static_cast<float>(*fb);
    } else {
      r = fold_arith<double>(op, *fa, *fb, ok);
      if (!ok && op == Opcode::Div) ok = true, r = *fa / *fb;
    }
    // min/max of NaN follow the non-NaN operand on the GPU; leave those to run time.
    if ((op == Opcode::Min || op == Opcode::Max) && (std::isnan(*fa) || std::isnan(*fb))) ok = false;
    if (ok) return constant_f(r);
    return std::nullopt;
  }
  // Integer identities (exact for every input; float ones are not, because of -0.0 and NaN).
  if (t.is_integer() || t.is_bool()) {
    auto is = [&](std::optional<std::int64_t> c, std::int64_t v) { return c && *c == normalize_int(t, v); };
    switch (op) {
      case Opcode::Add: case Opcode::Or: case Opcode::Xor:
        if (is(ib, 0)) return operand(in, 0);
        if (is(ia, 0)) return operand(in, 1);
        break;
      case Opcode::Sub: case Opcode::Shl: case Opcode::Shr:
        if (is(ib, 0)) return operand(in, 0);
        break;
      case Opcode::Mul:
        if (is(ib, 1)) return operand(in, 0);
        if (is(ia, 1)) return operand(in, 1);
        if (is(ib, 0) || is(ia, 0)) return constant(0);
        break;
      case Opcode::Div:
        if (is(ib, 1)) return operand(in, 0);
        break;
      case Opcode::And:
        if (is(ib, -1)) return operand(in, 0);
        if (is(ia, -1)) return operand(in, 1);
        if (is(ib, 0) || is(ia, 0)) return constant(0);
        break;
      default: break;
    }
    if (t.is_bool() && op == Opcode::Or && (is(ia, 1) || is(ib, 1))) return constant_b(true);
  }
  return std::nullopt;
}

std::optional<Folded> fold_unary(const FoldInput& in) {
  if (!in.types[0].is_scalar()) return std::nullopt;
  if (auto c = int_constant(in, 0))
    return constant(in.op == Opcode::Neg ? static_cast<std::int64_t>(0ull - static_cast<std::uint64_t>(*c)) : ~*c);
  if (auto c = float_constant(in, 0); c && in.op == Opcode::Neg) return constant_f(-*c);
  return std::nullopt;
}

std::optional<Folded> fold_cmp(const FoldInput& in) {
  Type t = in.types[0];
  if (!t.is_scalar()) return std::nullopt;
  const auto p = static_cast<Predicate>(std::get<std::int64_t>(in.attrs[0]));
  auto ia = int_constant(in, 0), ib = int_constant(in, 1);
  if (ia && ib) {
    bool u = t.is_unsigned_integer() || t.is_bool();
    auto x = *ia, y = *ib;
    auto ux = static_cast<std::uint64_t>(x), uy = static_cast<std::uint64_t>(y);
    bool r = false;
    switch (p) {
      case Predicate::Eq: r = x == y; break;
      case Predicate::Ne: r = x != y; break;
      case Predicate::Lt: r = u ? ux < uy : x < y; break;
      case Predicate::Le: r = u ? ux <= uy : x <= y; break;
      case Predicate::Gt: r = u ? ux > uy : x > y; break;
      case Predicate::Ge: r = u ? ux >= uy : x >= y; break;
    }
    return constant_b(r);
  }
  auto fa = float_constant(in, 0), fb = float_constant(in, 1);
  // f16/bf16 constants are kept unrounded until lowering: compare them at run time.
  if (fa && fb && (t == Type::f32() || t == Type::f64())) {
    double x = *fa, y = *fb;
    bool r = false;
    switch (p) {
      case Predicate::Eq: r = x == y; break;
      case Predicate::Ne: r = x != y; break;
      case Predicate::Lt: r = x < y; break;
      case Predicate::Le: r = x <= y; break;
      case Predicate::Gt: r = x > y; break;
      case Predicate::Ge: r = x >= y; break;
    }
    return constant_b(r);
  }
  return std::nullopt;
}

std::optional<Folded> fold_select(const FoldInput& in) {
  if (in.types[0].is_tile() || in.types[1].is_tile()) return std::nullopt;
  if (in.operands[1] == in.operands[2]) return operand(in, 1);
  if (auto k = int_constant(in, 0)) return operand(in, *k ? 1 : 2);
  return std::nullopt;
}

std::optional<Folded> fold_cast(const FoldInput& in) {
  Type from = in.types[0], to = in.result;
  if (from == to) return operand(in, 0);
  if (!from.is_scalar()) return std::nullopt;
  if (auto c = int_constant(in, 0)) {
    bool u = from.is_unsigned_integer() || from.is_bool();
    if (to.is_bool()) return constant_b(*c != 0);
    if (to.is_integer()) return constant(normalize_int(to, *c));
    // Round once, directly to the target type, as cvt.rn does.
    if (to == Type::f32())
      return constant_f(u ? static_cast<float>(static_cast<std::uint64_t>(*c)) : static_cast<float>(*c));
    if (to == Type::f64())
      return constant_f(u ? static_cast<double>(static_cast<std::uint64_t>(*c)) : static_cast<double>(*c));
  }
  if (auto c = float_constant(in, 0); c && (from == Type::f32() || from == Type::f64())) {
    if (to == Type::f32() || to == Type::f64()) return constant_f(*c);
    if (to.is_bool()) return constant_b(*c != 0.0);
    // Float to integer: fold only when the value is in range (out of range is undefined).
    double tv = std::trunc(*c);
    if (to.is_signed_integer() && to.bits() <= 32 && tv >= std::ldexp(-1.0, to.bits() - 1) &&
        tv < std::ldexp(1.0, to.bits() - 1))
      return constant(static_cast<std::int64_t>(tv));
    if (to.is_unsigned_integer() && to.bits() <= 32 && tv >= 0 && tv < std::ldexp(1.0, to.bits()))
      return constant(static_cast<std::int64_t>(tv));
  }
  return std::nullopt;
}

std::optional<Folded> fold_bitcast(const FoldInput& in) {
  if (in.types[0] == in.result) return operand(in, 0);
  return std::nullopt;
}

}  // namespace cutlet::ir
