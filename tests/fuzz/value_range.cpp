#include "fuzz/value_range.h"

#include <algorithm>
#include <initializer_list>

namespace cutlet::fuzz {
namespace {

using I128 = __int128;

I128 abs128(I128 v) { return v < 0 ? -v : v; }

int bit_length(I128 v) {
  int n = 0;
  for (v = abs128(v); v; v >>= 1) ++n;
  return n;
}

I128 min_of(std::initializer_list<I128> l) { return *std::min_element(l.begin(), l.end()); }
I128 max_of(std::initializer_list<I128> l) { return *std::max_element(l.begin(), l.end()); }

/// The smallest 2^k - 1 at least v (v >= 0).
I128 ones_covering(I128 v) {
  I128 m = 0;
  while (m < v) m = m * 2 + 1;
  return m;
}

/// The range of e's operation from its operands' ranges, before wrapping to the type:
/// false when unknown.
bool raw_range(const Expr& e, I128& lo, I128& hi) {
  const auto& a = e.args;
  switch (e.kind) {
    case ExprKind::Unary: {
      const Expr& x = a[0];
      switch (static_cast<UnaryOp>(e.op)) {
        case UnaryOp::Neg: lo = -x.hi; hi = -x.lo; return true;
        case UnaryOp::BitNot:
          if (is_signed_int(e.type)) { lo = -x.hi - 1; hi = -x.lo - 1; }
          else { lo = integer_max(e.type) - x.hi; hi = integer_max(e.type) - x.lo; }
          return true;
        case UnaryOp::Abs:
          hi = std::max(abs128(x.lo), abs128(x.hi));
          lo = (x.lo <= 0 && x.hi >= 0) ? 0 : std::min(abs128(x.lo), abs128(x.hi));
          return true;
        case UnaryOp::Popc:
        case UnaryOp::Clz:
        case UnaryOp::Ffs: lo = 0; hi = scalar_bits(x.type); return true;
        default: return false;
      }
    }
    case ExprKind::Binary: {
      const Expr& x = a[0];
      const Expr& y = a[1];
      switch (static_cast<BinaryOp>(e.op)) {
        case BinaryOp::Add: lo = x.lo + y.lo; hi = x.hi + y.hi; return true;
        case BinaryOp::Sub: lo = x.lo - y.hi; hi = x.hi - y.lo; return true;
        case BinaryOp::Mul:
          if (std::max(bit_length(x.lo), bit_length(x.hi)) + std::max(bit_length(y.lo), bit_length(y.hi)) > 126) return false;
          lo = min_of({x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi});
          hi = max_of({x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi});
          return true;
        case BinaryOp::Div:
          if (y.lo <= 0 && y.hi >= 0) return false;
          lo = min_of({x.lo / y.lo, x.lo / y.hi, x.hi / y.lo, x.hi / y.hi});
          hi = max_of({x.lo / y.lo, x.lo / y.hi, x.hi / y.lo, x.hi / y.hi});
          return true;
        case BinaryOp::Rem: {
          const I128 m = std::max(abs128(y.lo), abs128(y.hi)) - 1;
          if (x.lo >= 0) { lo = 0; hi = std::min(x.hi, m); }
          else if (x.hi <= 0) { lo = std::max(x.lo, -m); hi = 0; }
          else { lo = -m; hi = m; }
          return true;
        }
        case BinaryOp::And:
          if (x.lo >= 0 && y.lo >= 0) { lo = 0; hi = std::min(x.hi, y.hi); return true; }
          if (x.lo >= 0) { lo = 0; hi = x.hi; return true; }
          if (y.lo >= 0) { lo = 0; hi = y.hi; return true; }
          return false;
        case BinaryOp::Or:
        case BinaryOp::Xor:
          if (x.lo < 0 || y.lo < 0) return false;
          lo = static_cast<BinaryOp>(e.op) == BinaryOp::Or ? std::max(x.lo, y.lo) : 0;
          hi = ones_covering(std::max(x.hi, y.hi));
          return true;
        case BinaryOp::Shr:
          if (y.lo < 0 || y.hi >= scalar_bits(e.type)) return false;
          lo = std::min(x.lo >> static_cast<int>(y.lo), x.lo >> static_cast<int>(y.hi));
          hi = std::max(x.hi >> static_cast<int>(y.lo), x.hi >> static_cast<int>(y.hi));
          return true;
        case BinaryOp::Min: lo = std::min(x.lo, y.lo); hi = std::min(x.hi, y.hi); return true;
        case BinaryOp::Max: lo = std::max(x.lo, y.lo); hi = std::max(x.hi, y.hi); return true;
        default: return false;
      }
    }
    case ExprKind::Select: lo = std::min(a[1].lo, a[2].lo); hi = std::max(a[1].hi, a[2].hi); return true;
    case ExprKind::Cast: {
      const Scalar from = a[0].type;
      if (from == Scalar::Bool) { lo = 0; hi = 1; return true; }
      if (is_integer(from)) { lo = a[0].lo; hi = a[0].hi; return true; }
      lo = is_signed_int(e.type) ? -100 : 0;
      hi = is_signed_int(e.type) ? 100 : 200;
      return true;
    }
    default: return false;
  }
}

/// Sets e's range from its operands (the type's whole range when unknown or wrapping).
void settle(Expr& e) {
  if (!is_integer(e.type)) {
    e.lo = 0;
    e.hi = e.type == Scalar::Bool ? 1 : 0;
    return;
  }
  I128 lo = 0, hi = 0;
  if (raw_range(e, lo, hi) && lo >= integer_min(e.type) && hi <= integer_max(e.type)) {
    e.lo = lo;
    e.hi = hi;
  } else {
    set_full_range(e);
  }
}

Expr node(ExprKind kind, Scalar t, std::uint8_t op, std::vector<Expr> args) {
  Expr e;
  e.kind = kind;
  e.type = t;
  e.op = op;
  e.args = std::move(args);
  settle(e);
  return e;
}

/// Whether e's operation (already built) may leave its type's range.
bool may_overflow(const Expr& e) {
  I128 lo = 0, hi = 0;
  return !raw_range(e, lo, hi) || lo < integer_min(e.type) || hi > integer_max(e.type);
}

/// `op` of a (and b) computed in the unsigned type of signed t, converted back: wrapping.
Expr wrapped(ExprKind kind, std::uint8_t op, Scalar t, std::vector<Expr> args) {
  const Scalar u = unsigned_of(t);
  for (auto& x : args) x = make_cast(u, std::move(x));
  return make_cast(t, node(kind, u, op, std::move(args)));
}

Expr int_const(Scalar t, I128 v) { return make_const(t, static_cast<std::uint64_t>(v)); }

Expr safe_divisor(Scalar t, const Expr& dividend, Expr d) {
  if (is_unsigned_int(t)) {
    if (d.lo == 0) d = node(ExprKind::Binary, t, static_cast<std::uint8_t>(BinaryOp::Or), {std::move(d), int_const(t, 1)});
    return d;
  }
  const bool zero = d.lo <= 0 && d.hi >= 0;
  const bool minus_one = d.lo <= -1 && d.hi >= -1 && dividend.lo == integer_min(t);
  if (!zero && !minus_one) return d;
  // The divisor's low bits: 1 + (d & m) in [1, m + 1], or -2 - (d & m) in [-m - 2, -2].
  const int k = static_cast<int>((static_cast<std::uint64_t>(d.hi - d.lo) ^ static_cast<std::uint64_t>(d.lo)) % (scalar_bits(t) - 1));
  const I128 m = (static_cast<I128>(1) << k) - 1;
  Expr masked = node(ExprKind::Binary, t, static_cast<std::uint8_t>(BinaryOp::And), {std::move(d), int_const(t, m)});
  if (k % 2 == 0) return node(ExprKind::Binary, t, static_cast<std::uint8_t>(BinaryOp::Add), {std::move(masked), int_const(t, 1)});
  return node(ExprKind::Binary, t, static_cast<std::uint8_t>(BinaryOp::Sub), {int_const(t, -2), std::move(masked)});
}

}  // namespace

void set_full_range(Expr& e) {
  if (is_integer(e.type)) {
    e.lo = integer_min(e.type);
    e.hi = integer_max(e.type);
  } else {
    e.lo = 0;
    e.hi = e.type == Scalar::Bool ? 1 : 0;
  }
}

Expr make_const(Scalar t, std::uint64_t b) {
  Expr e;
  e.kind = ExprKind::Const;
  e.type = t;
  e.value = truncate_bits(t, b);
  if (is_integer(t)) e.lo = e.hi = integer_value(t, e.value);
  else if (t == Scalar::Bool) e.lo = e.hi = static_cast<I128>(e.value);
  return e;
}

Expr make_float_const(Scalar t, double v) { return make_const(t, round_to_float_bits(t, v)); }

Expr make_unary(UnaryOp op, Expr a) {
  const Scalar t = a.type;
  if (is_signed_int(t) && a.lo == integer_min(t)) {
    if (op == UnaryOp::Neg) return wrapped(ExprKind::Unary, static_cast<std::uint8_t>(op), t, {std::move(a)});
    if (op == UnaryOp::Abs) a = make_binary(BinaryOp::Max, std::move(a), int_const(t, integer_min(t) + 1));
  }
  return node(ExprKind::Unary, result_type(op, t), static_cast<std::uint8_t>(op), {std::move(a)});
}

Expr make_binary(BinaryOp op, Expr a, Expr b) {
  const Scalar t = a.type;
  const auto code = static_cast<std::uint8_t>(op);
  if (is_integer(t)) {
    if (op == BinaryOp::Div || op == BinaryOp::Rem) b = safe_divisor(t, a, std::move(b));
    if ((op == BinaryOp::Shl || op == BinaryOp::Shr) && (b.lo < 0 || b.hi >= scalar_bits(t)))
      b = node(ExprKind::Binary, t, static_cast<std::uint8_t>(BinaryOp::And), {std::move(b), int_const(t, scalar_bits(t) - 1)});
    if (is_signed_int(t) && (op == BinaryOp::Add || op == BinaryOp::Sub || op == BinaryOp::Mul)) {
      Expr plain;
      plain.kind = ExprKind::Binary;
      plain.type = t;
      plain.op = code;
      plain.args = {a, b};
      if (may_overflow(plain)) return wrapped(ExprKind::Binary, code, t, {std::move(a), std::move(b)});
    }
  }
  return node(ExprKind::Binary, t, code, {std::move(a), std::move(b)});
}

Expr make_compare(CmpOp op, Expr a, Expr b) {
  if (a.type == Scalar::Bool && op != CmpOp::Eq && op != CmpOp::Ne) op = CmpOp::Ne;
  return node(ExprKind::Compare, Scalar::Bool, static_cast<std::uint8_t>(op), {std::move(a), std::move(b)});
}

Expr make_select(Expr c, Expr a, Expr b) {
  const Scalar t = a.type;
  return node(ExprKind::Select, t, 0, {std::move(c), std::move(a), std::move(b)});
}

Expr make_cast(Scalar to, Expr a) {
  const Scalar from = a.type;
  if (from == to) return a;
  if (is_float(from) && is_integer(to)) {
    const double lo = is_signed_int(to) ? -100.0 : 0.5, hi = is_signed_int(to) ? 100.0 : 200.0;
    a = node(ExprKind::Binary, from, static_cast<std::uint8_t>(BinaryOp::Max), {std::move(a), make_float_const(from, lo)});
    a = node(ExprKind::Binary, from, static_cast<std::uint8_t>(BinaryOp::Min), {std::move(a), make_float_const(from, hi)});
  }
  return node(ExprKind::Cast, to, 0, {std::move(a)});
}

Expr make_bitcast(Scalar to, Expr a) { return node(ExprKind::Bitcast, to, 0, {std::move(a)}); }

Expr make_fma(Expr a, Expr b, Expr c) {
  const Scalar t = a.type;
  return node(ExprKind::Fma, t, 0, {std::move(a), std::move(b), std::move(c)});
}

Expr make_funnel(int right, Expr lo, Expr hi, Expr shift) {
  return node(ExprKind::FunnelShift, Scalar::U32, static_cast<std::uint8_t>(right), {std::move(lo), std::move(hi), std::move(shift)});
}

Expr fit(Expr e, __int128 lo, __int128 hi) {
  if (!is_integer(e.type) || (e.lo >= lo && e.hi <= hi)) return e;
  const Scalar t = e.type;
  e = node(ExprKind::Binary, t, static_cast<std::uint8_t>(BinaryOp::Max), {std::move(e), int_const(t, lo)});
  return node(ExprKind::Binary, t, static_cast<std::uint8_t>(BinaryOp::Min), {std::move(e), int_const(t, hi)});
}

}  // namespace cutlet::fuzz
