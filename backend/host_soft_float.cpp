// The compiler runtime's 16-bit float conversions for host code (host_soft_float.h).
#include "host_soft_float.h"

#include <bit>
#include <cmath>
#include <cstdint>

#include "cutlet/runtime/half.h"

namespace cutlet::backend {
namespace {

#if defined(__FLT16_MAX__)

/// `d` rounded to float toward zero, its lowest bit set when that was inexact (round to odd):
/// rounding this float again to a format of fewer bits gives d rounded once to that format.
float round_to_odd(double d) {
  float f = static_cast<float>(d);
  if (std::fabs(static_cast<double>(f)) > std::fabs(d)) f = std::nextafter(f, 0.0f);
  if (static_cast<double>(f) == d) return f;
  return std::bit_cast<float>(std::bit_cast<std::uint32_t>(f) | 1u);
}

_Float16 from_bits(std::uint16_t bits) { return std::bit_cast<_Float16>(bits); }

_Float16 float_to_bfloat16(float x) { return from_bits(detail::float_to_bfloat16_bits(x)); }
_Float16 double_to_bfloat16(double x) {
  if (std::isnan(x)) return float_to_bfloat16(static_cast<float>(x));
  return float_to_bfloat16(round_to_odd(x));
}
_Float16 float_to_half(float x) { return from_bits(detail::float_to_half_bits(x)); }
_Float16 double_to_half(double x) {
  if (std::isnan(x)) return float_to_half(static_cast<float>(x));
  return float_to_half(round_to_odd(x));
}
float half_to_float(_Float16 h) { return detail::half_bits_to_float(std::bit_cast<std::uint16_t>(h)); }
double half_to_double(_Float16 h) { return half_to_float(h); }

#endif

}  // namespace

const std::vector<std::pair<std::string, void*>>& host_soft_float_functions() {
  static const std::vector<std::pair<std::string, void*>> functions = {
#if defined(__FLT16_MAX__)
      {"__truncsfbf2", reinterpret_cast<void*>(&float_to_bfloat16)},
      {"__truncdfbf2", reinterpret_cast<void*>(&double_to_bfloat16)},
      {"__truncsfhf2", reinterpret_cast<void*>(&float_to_half)},
      {"__truncdfhf2", reinterpret_cast<void*>(&double_to_half)},
      {"__extendhfsf2", reinterpret_cast<void*>(&half_to_float)},
      {"__extendhfdf2", reinterpret_cast<void*>(&half_to_double)},
#endif
  };
  return functions;
}

}  // namespace cutlet::backend
