#include "fuzz/fuzz_ops.h"

#include <bit>
#include <cmath>
#include <limits>

namespace cutlet::fuzz {

const char* op_name(UnaryOp op) {
  static constexpr const char* names[] = {"neg",   "bitnot", "not",  "abs", "sqrt", "floor", "ceil",  "trunc",   "rint",
                                          "round", "popc",   "clz",  "ffs", "brev", "isnan", "isinf", "isfinite",
                                          "fp8e4m3", "fp8e5m2"};
  return names[static_cast<int>(op)];
}
const char* op_name(BinaryOp op) {
  static constexpr const char* names[] = {"add", "sub", "mul", "div", "rem",  "and",      "or",   "xor",
                                          "shl", "shr", "min", "max", "fmod", "copysign", "mulhi"};
  return names[static_cast<int>(op)];
}
const char* op_name(CmpOp op) {
  static constexpr const char* names[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  return names[static_cast<int>(op)];
}
const char* op_name(ApproxFn fn) {
  static constexpr const char* names[] = {"exp", "exp2", "log",  "log2",  "sin",   "cos",  "tanh",
                                          "erf", "atan", "cbrt", "rsqrt", "expm1", "log1p"};
  return names[static_cast<int>(fn)];
}

void OpFlags::set_undefined(const std::string& what) {
  if (!undefined && !ambiguous) why = what;
  undefined = true;
}
void OpFlags::set_ambiguous(const std::string& what) {
  if (!undefined && !ambiguous) why = what;
  ambiguous = true;
}

namespace {

bool is_wide_float(Scalar s) { return s == Scalar::F32 || s == Scalar::F64; }
bool is_wide_int(Scalar s) { return is_integer(s) && scalar_bits(s) >= 32; }

std::uint64_t sign_bit(Scalar s) { return std::uint64_t{1} << (scalar_bits(s) - 1); }

bool is_nan_bits(Scalar s, std::uint64_t b) { return std::isnan(float_value(s, b)); }

/// A NaN whose quiet bit (the mantissa's top bit) is clear.
bool is_signalling_nan(Scalar s, std::uint64_t b) {
  if (!is_nan_bits(s, b)) return false;
  const int mantissa = s == Scalar::F16 ? 10 : s == Scalar::BF16 ? 7 : s == Scalar::F32 ? 23 : 52;
  return ((b >> (mantissa - 1)) & 1) == 0;
}

/// A float of type s from an exactly computed long double result (rounded once).
std::uint64_t float_result(Scalar s, long double v) { return round_to_float_bits(s, v); }

std::uint64_t float_min_max(BinaryOp op, Scalar s, std::uint64_t a, std::uint64_t b, OpFlags& flags) {
  if (is_signalling_nan(s, a) || is_signalling_nan(s, b)) flags.set_ambiguous("min/max of a signalling NaN");
  const bool na = is_nan_bits(s, a), nb = is_nan_bits(s, b);
  if (na) return b;
  if (nb) return a;
  const long double x = float_value(s, a), y = float_value(s, b);
  if (x == 0 && y == 0 && a != b) flags.set_ambiguous("min/max of +0 and -0");
  if (op == BinaryOp::Min) return y < x ? b : a;
  return y > x ? b : a;
}

std::uint64_t float_binary(BinaryOp op, Scalar s, std::uint64_t a, std::uint64_t b, OpFlags& flags) {
  if (op == BinaryOp::Min || op == BinaryOp::Max) return float_min_max(op, s, a, b, flags);
  if (op == BinaryOp::Copysign) {
    // The sign of a NaN an invalid operation made is not specified (x86 makes it negative,
    // the GPU positive): copying it is not a defined result.
    if (is_nan_bits(s, b)) flags.set_ambiguous("copysign from a NaN");
    return (a & ~sign_bit(s)) | (b & sign_bit(s));
  }
  if (s == Scalar::F64) {
    const double x = std::bit_cast<double>(a), y = std::bit_cast<double>(b);
    switch (op) {
      case BinaryOp::Add: return bits_of(x + y);
      case BinaryOp::Sub: return bits_of(x - y);
      case BinaryOp::Mul: return bits_of(x * y);
      case BinaryOp::Div: return bits_of(x / y);
      case BinaryOp::Fmod: return bits_of(std::fmod(x, y));
      default: break;
    }
  } else {
    // f32 natively; f16 and bf16 through f32, which rounds their + - * / correctly.
    const float x = static_cast<float>(float_value(s, a)), y = static_cast<float>(float_value(s, b));
    float r = 0;
    switch (op) {
      case BinaryOp::Add: r = x + y; break;
      case BinaryOp::Sub: r = x - y; break;
      case BinaryOp::Mul: r = x * y; break;
      case BinaryOp::Div: r = x / y; break;
      case BinaryOp::Fmod: r = std::fmod(x, y); break;
      default: break;
    }
    return float_result(s, r);
  }
  flags.set_undefined(std::string(op_name(op)) + " on " + scalar_name(s));
  return 0;
}

std::uint64_t integer_binary(BinaryOp op, Scalar s, std::uint64_t a, std::uint64_t b, OpFlags& flags) {
  const bool sgn = is_signed_int(s);
  const int w = scalar_bits(s);
  const __int128 x = integer_value(s, a), y = integer_value(s, b);
  const __int128 lo = integer_min(s), hi = integer_max(s);
  auto checked = [&](__int128 r, const char* what) {
    if (sgn && (r < lo || r > hi)) flags.set_undefined(std::string("signed overflow in ") + what + " of " + scalar_name(s));
    return truncate_bits(s, static_cast<std::uint64_t>(r));
  };
  switch (op) {
    case BinaryOp::Add: return checked(x + y, "add");
    case BinaryOp::Sub: return checked(x - y, "sub");
    case BinaryOp::Mul:
      if (sgn) return checked(x * y, "mul");
      return truncate_bits(s, static_cast<std::uint64_t>(static_cast<unsigned __int128>(x) * static_cast<unsigned __int128>(y)));
    case BinaryOp::Div:
    case BinaryOp::Rem:
      if (y == 0) {
        flags.set_undefined(std::string(op_name(op)) + " by zero");
        return 0;
      }
      if (sgn && x == lo && y == -1) {
        flags.set_undefined(std::string(op_name(op)) + " of the minimum by -1");
        return 0;
      }
      return truncate_bits(s, static_cast<std::uint64_t>(op == BinaryOp::Div ? x / y : x % y));
    case BinaryOp::And: return a & b;
    case BinaryOp::Or: return a | b;
    case BinaryOp::Xor: return a ^ b;
    case BinaryOp::Shl:
    case BinaryOp::Shr:
      if (y < 0 || y >= w) {
        flags.set_undefined("shift by " + std::to_string(static_cast<long long>(y)) + " of " + scalar_name(s));
        return 0;
      }
      if (op == BinaryOp::Shl) return truncate_bits(s, a << static_cast<int>(y));
      return truncate_bits(s, static_cast<std::uint64_t>(x >> static_cast<int>(y)));  // arithmetic for signed
    case BinaryOp::Min: return x < y ? a : b;
    case BinaryOp::Max: return x > y ? a : b;
    case BinaryOp::Mulhi:
      if (sgn) return truncate_bits(s, static_cast<std::uint64_t>((x * y) >> w));
      return truncate_bits(s, static_cast<std::uint64_t>(
                                  (static_cast<unsigned __int128>(x) * static_cast<unsigned __int128>(y)) >> w));
    default: break;
  }
  flags.set_undefined(std::string(op_name(op)) + " on " + scalar_name(s));
  return 0;
}

std::uint64_t bit_reverse(std::uint64_t v, int w) {
  std::uint64_t r = 0;
  for (int i = 0; i < w; ++i) r |= ((v >> i) & 1) << (w - 1 - i);
  return r;
}

}  // namespace

bool defined_for(UnaryOp op, Scalar s) {
  switch (op) {
    case UnaryOp::Neg: return s != Scalar::Bool;
    case UnaryOp::BitNot: return is_integer(s);
    case UnaryOp::LogicalNot: return s == Scalar::Bool;
    case UnaryOp::Abs: return s == Scalar::I32 || s == Scalar::I64 || is_wide_float(s);
    case UnaryOp::Popc:
    case UnaryOp::Clz:
    case UnaryOp::Ffs:
    case UnaryOp::Brev: return is_wide_int(s);
    case UnaryOp::RoundFp8E4M3:
    case UnaryOp::RoundFp8E5M2: return s == Scalar::F16 || s == Scalar::BF16 || s == Scalar::F32;
    default: return is_wide_float(s);
  }
}

bool defined_for(BinaryOp op, Scalar s) {
  switch (op) {
    case BinaryOp::Add:
    case BinaryOp::Sub:
    case BinaryOp::Mul:
    case BinaryOp::Div:
    case BinaryOp::Min:
    case BinaryOp::Max: return s != Scalar::Bool;
    case BinaryOp::Rem:
    case BinaryOp::Shl:
    case BinaryOp::Shr: return is_integer(s);
    case BinaryOp::And:
    case BinaryOp::Or:
    case BinaryOp::Xor: return is_integer(s) || s == Scalar::Bool;
    case BinaryOp::Fmod:
    case BinaryOp::Copysign: return is_wide_float(s);
    case BinaryOp::Mulhi: return is_wide_int(s);
  }
  return false;
}

bool defined_for(CmpOp op, Scalar s) { return s != Scalar::Bool || op == CmpOp::Eq || op == CmpOp::Ne; }

Scalar result_type(UnaryOp op, Scalar s) {
  switch (op) {
    case UnaryOp::IsNan:
    case UnaryOp::IsInf:
    case UnaryOp::IsFinite: return Scalar::Bool;
    case UnaryOp::Popc:
    case UnaryOp::Clz:
    case UnaryOp::Ffs: return Scalar::I32;
    default: return s;
  }
}

std::uint64_t eval_unary(UnaryOp op, Scalar s, std::uint64_t a, OpFlags& flags) {
  const int w = scalar_bits(s);
  if (is_float(s)) {
    const long double x = float_value(s, a);
    switch (op) {
      case UnaryOp::Neg: return a ^ sign_bit(s);
      case UnaryOp::Abs: return a & ~sign_bit(s);
      case UnaryOp::Sqrt: return s == Scalar::F32 ? bits_of(std::sqrt(static_cast<float>(x))) : bits_of(std::sqrt(static_cast<double>(x)));
      case UnaryOp::Floor: return float_result(s, std::floor(x));
      case UnaryOp::Ceil: return float_result(s, std::ceil(x));
      case UnaryOp::Trunc: return float_result(s, std::trunc(x));
      case UnaryOp::Rint: return float_result(s, std::rint(x));
      case UnaryOp::Round: return float_result(s, std::round(x));
      case UnaryOp::IsNan: return std::isnan(x) ? 1 : 0;
      case UnaryOp::IsInf: return std::isinf(x) ? 1 : 0;
      case UnaryOp::IsFinite: return std::isfinite(x) ? 1 : 0;
      // Exact: every FP8 value is an f16, bf16 and f32 value, and x an f32 one.
      case UnaryOp::RoundFp8E4M3: return float_result(s, static_cast<float>(float8_e4m3(static_cast<float>(x))));
      case UnaryOp::RoundFp8E5M2: return float_result(s, static_cast<float>(float8_e5m2(static_cast<float>(x))));
      default: break;
    }
  } else if (s == Scalar::Bool) {
    if (op == UnaryOp::LogicalNot) return a ^ 1;
  } else {
    const __int128 x = integer_value(s, a);
    const std::uint64_t u = truncate_bits(s, a);
    switch (op) {
      case UnaryOp::Neg:
        if (is_signed_int(s) && x == integer_min(s)) flags.set_undefined(std::string("negating the minimum ") + scalar_name(s));
        return truncate_bits(s, static_cast<std::uint64_t>(-x));
      case UnaryOp::BitNot: return truncate_bits(s, ~a);
      case UnaryOp::Abs:
        if (x == integer_min(s)) flags.set_undefined(std::string("abs of the minimum ") + scalar_name(s));
        return truncate_bits(s, static_cast<std::uint64_t>(x < 0 ? -x : x));
      case UnaryOp::Popc: return static_cast<std::uint64_t>(std::popcount(u));
      case UnaryOp::Clz: return static_cast<std::uint64_t>(w == 64 ? std::countl_zero(u) : std::countl_zero(u) - (64 - w));
      case UnaryOp::Ffs: return u == 0 ? 0 : static_cast<std::uint64_t>(std::countr_zero(u) + 1);
      case UnaryOp::Brev: return bit_reverse(u, w);
      default: break;
    }
  }
  flags.set_undefined(std::string(op_name(op)) + " on " + scalar_name(s));
  return 0;
}

std::uint64_t eval_binary(BinaryOp op, Scalar s, std::uint64_t a, std::uint64_t b, OpFlags& flags) {
  if (is_float(s)) return float_binary(op, s, a, b, flags);
  if (s == Scalar::Bool) {
    switch (op) {
      case BinaryOp::And: return a & b & 1;
      case BinaryOp::Or: return (a | b) & 1;
      case BinaryOp::Xor: return (a ^ b) & 1;
      default: flags.set_undefined(std::string(op_name(op)) + " on bool"); return 0;
    }
  }
  return integer_binary(op, s, a, b, flags);
}

bool eval_compare(CmpOp op, Scalar s, std::uint64_t a, std::uint64_t b) {
  if (is_float(s)) {
    const long double x = float_value(s, a), y = float_value(s, b);
    switch (op) {
      case CmpOp::Eq: return x == y;
      case CmpOp::Ne: return x != y;  // unordered: true for NaN, as the GPU's fcmp une
      case CmpOp::Lt: return x < y;
      case CmpOp::Le: return x <= y;
      case CmpOp::Gt: return x > y;
      case CmpOp::Ge: return x >= y;
    }
  }
  const __int128 x = s == Scalar::Bool ? static_cast<__int128>(a & 1) : integer_value(s, a);
  const __int128 y = s == Scalar::Bool ? static_cast<__int128>(b & 1) : integer_value(s, b);
  switch (op) {
    case CmpOp::Eq: return x == y;
    case CmpOp::Ne: return x != y;
    case CmpOp::Lt: return x < y;
    case CmpOp::Le: return x <= y;
    case CmpOp::Gt: return x > y;
    case CmpOp::Ge: return x >= y;
  }
  return false;
}

std::uint64_t eval_cast(Scalar from, Scalar to, std::uint64_t a, OpFlags& flags) {
  if (from == to) return a;
  if (to == Scalar::Bool) {
    if (is_float(from)) return float_value(from, a) != 0 ? 1 : 0;  // NaN is true
    return truncate_bits(from, a) != 0 ? 1 : 0;
  }
  if (from == Scalar::Bool) {
    if (is_float(to)) return round_to_float_bits(to, (a & 1) ? 1.0L : 0.0L);
    return a & 1;
  }
  if (is_integer(from)) {
    const __int128 x = integer_value(from, a);
    if (is_integer(to)) return truncate_bits(to, static_cast<std::uint64_t>(x));
    return round_to_float_bits(to, static_cast<long double>(x));
  }
  const long double x = float_value(from, a);
  if (is_float(to)) return round_to_float_bits(to, x);
  const long double t = std::trunc(x);
  if (std::isnan(x) || t < static_cast<long double>(integer_min(to)) || t > static_cast<long double>(integer_max(to))) {
    flags.set_undefined(std::string("converting ") + value_text(from, a) + " to " + scalar_name(to));
    return 0;
  }
  return truncate_bits(to, static_cast<std::uint64_t>(static_cast<__int128>(t)));
}

std::uint64_t eval_fma(Scalar s, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  if (s == Scalar::F32)
    return bits_of(std::fma(value_of<float>(a), value_of<float>(b), value_of<float>(c)));
  return bits_of(std::fma(value_of<double>(a), value_of<double>(b), value_of<double>(c)));
}

std::uint64_t eval_approx(ApproxFn fn, Scalar s, std::uint64_t a) {
  const long double x = float_value(s, a);
  long double r = 0;
  switch (fn) {
    case ApproxFn::Exp: r = std::exp(x); break;
    case ApproxFn::Exp2: r = std::exp2(x); break;
    case ApproxFn::Log: r = std::log(x); break;
    case ApproxFn::Log2: r = std::log2(x); break;
    case ApproxFn::Sin: r = std::sin(x); break;
    case ApproxFn::Cos: r = std::cos(x); break;
    case ApproxFn::Tanh: r = std::tanh(x); break;
    case ApproxFn::Erf: r = std::erf(x); break;
    case ApproxFn::Atan: r = std::atan(x); break;
    case ApproxFn::Cbrt: r = std::cbrt(x); break;
    case ApproxFn::Rsqrt: r = 1.0L / std::sqrt(x); break;
    case ApproxFn::Expm1: r = std::expm1(x); break;
    case ApproxFn::Log1p: r = std::log1p(x); break;
  }
  return round_to_float_bits(s, r);
}

int approx_tolerance_ulps(ApproxFn fn, Scalar s) {
  // CUDA's documented maximum errors (CUDA C++ Programming Guide, mathematical functions),
  // f32 then f64, plus 2 ulps for the host's long double functions and the final rounding.
  static constexpr int f32[] = {2, 2, 1, 1, 2, 2, 2, 2, 2, 1, 2, 1, 1};
  static constexpr int f64[] = {1, 1, 1, 1, 2, 2, 2, 2, 2, 1, 1, 1, 1};
  const int documented = (s == Scalar::F32 ? f32 : f64)[static_cast<int>(fn)];
  return documented + 2;
}

std::uint64_t ulp_distance(Scalar s, std::uint64_t a, std::uint64_t b) {
  const bool na = is_nan_bits(s, a), nb = is_nan_bits(s, b);
  if (na && nb) return 0;
  if (na || nb) return std::numeric_limits<std::uint64_t>::max();
  auto ordered = [&](std::uint64_t v) -> __int128 {
    const std::uint64_t mag = truncate_bits(s, v) & ~sign_bit(s);
    return (v & sign_bit(s)) ? -static_cast<__int128>(mag) : static_cast<__int128>(mag);
  };
  const __int128 d = ordered(a) - ordered(b);
  return static_cast<std::uint64_t>(d < 0 ? -d : d);
}

bool same_result(Scalar s, std::uint64_t a, std::uint64_t b) {
  a = truncate_bits(s, a);
  b = truncate_bits(s, b);
  if (a == b) return true;
  return is_float(s) && is_nan_bits(s, a) && is_nan_bits(s, b);
}

}  // namespace cutlet::fuzz
