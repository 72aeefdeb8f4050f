#include "fuzz/fuzz_scalar.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace cutlet::fuzz {

const char* scalar_name(Scalar s) {
  static constexpr const char* names[] = {"bool", "i8",  "i16", "i32",  "i64", "u8", "u16",
                                          "u32",  "u64", "f16", "bf16", "f32", "f64"};
  return names[static_cast<int>(s)];
}

int scalar_bits(Scalar s) {
  static constexpr int bits[] = {1, 8, 16, 32, 64, 8, 16, 32, 64, 16, 16, 32, 64};
  return bits[static_cast<int>(s)];
}

bool is_float(Scalar s) { return s == Scalar::F16 || s == Scalar::BF16 || s == Scalar::F32 || s == Scalar::F64; }
bool is_signed_int(Scalar s) { return s == Scalar::I8 || s == Scalar::I16 || s == Scalar::I32 || s == Scalar::I64; }
bool is_unsigned_int(Scalar s) { return s == Scalar::U8 || s == Scalar::U16 || s == Scalar::U32 || s == Scalar::U64; }
bool is_integer(Scalar s) { return is_signed_int(s) || is_unsigned_int(s); }

Scalar unsigned_of(Scalar s) {
  switch (s) {
    case Scalar::I8: return Scalar::U8;
    case Scalar::I16: return Scalar::U16;
    case Scalar::I32: return Scalar::U32;
    case Scalar::I64: return Scalar::U64;
    default: return s;
  }
}

Scalar signed_of(Scalar s) {
  switch (s) {
    case Scalar::U8: return Scalar::I8;
    case Scalar::U16: return Scalar::I16;
    case Scalar::U32: return Scalar::I32;
    case Scalar::U64: return Scalar::I64;
    default: return s;
  }
}

std::uint64_t truncate_bits(Scalar s, std::uint64_t b) {
  const int w = scalar_bits(s);
  return w == 64 ? b : b & ((std::uint64_t{1} << w) - 1);
}

__int128 integer_min(Scalar s) {
  if (!is_signed_int(s)) return 0;
  return -(static_cast<__int128>(1) << (scalar_bits(s) - 1));
}

__int128 integer_max(Scalar s) {
  if (s == Scalar::Bool) return 1;
  if (is_signed_int(s)) return (static_cast<__int128>(1) << (scalar_bits(s) - 1)) - 1;
  return (static_cast<__int128>(1) << scalar_bits(s)) - 1;
}

__int128 integer_value(Scalar s, std::uint64_t b) {
  b = truncate_bits(s, b);
  const int w = scalar_bits(s);
  if (is_signed_int(s) && w < 64 && (b >> (w - 1)) & 1) return static_cast<__int128>(b) - (static_cast<__int128>(1) << w);
  if (is_signed_int(s) && w == 64) return static_cast<std::int64_t>(b);
  return b;
}

long double float_value(Scalar s, std::uint64_t b) {
  switch (s) {
    case Scalar::F16: return static_cast<float>(half::from_bits(static_cast<std::uint16_t>(b)));
    case Scalar::BF16: return static_cast<float>(bfloat16::from_bits(static_cast<std::uint16_t>(b)));
    case Scalar::F32: return std::bit_cast<float>(static_cast<std::uint32_t>(b));
    default: return std::bit_cast<double>(b);
  }
}

namespace {
/// `v` rounded to nearest even to `precision` significant bits with exponents from
/// `min_exponent` on (gradual underflow); exact in a float for the 16-bit formats.
float round_to_precision(long double v, int precision, int min_exponent) {
  if (std::isnan(v)) return std::numeric_limits<float>::quiet_NaN();
  if (std::isinf(v) || v == 0) return static_cast<float>(v);
  int e = 0;
  (void)std::frexp(std::fabs(v), &e);
  int lead = e - 1;
  if (lead < min_exponent) lead = min_exponent;
  const int quantum = lead - (precision - 1);
  const long double r = std::rint(std::ldexp(v, -quantum));
  return static_cast<float>(std::ldexp(r, quantum));
}
}  // namespace

std::uint64_t round_to_float_bits(Scalar to, long double v) {
  switch (to) {
    case Scalar::F16: return half(round_to_precision(v, 11, -14)).bits;
    case Scalar::BF16: return bfloat16(round_to_precision(v, 8, -126)).bits;
    case Scalar::F32: return bits_of(static_cast<float>(v));
    default: return bits_of(static_cast<double>(v));
  }
}

std::string value_text(Scalar s, std::uint64_t b) {
  if (s == Scalar::Bool) return (b & 1) ? "true" : "false";
  if (is_float(s)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17Lg", float_value(s, b));
    return buf;
  }
  const __int128 v = integer_value(s, b);
  if (is_signed_int(s)) return std::to_string(static_cast<long long>(v));
  return std::to_string(static_cast<unsigned long long>(v));
}

}  // namespace cutlet::fuzz
