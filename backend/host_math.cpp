// Host implementations of the libdevice functions the C library lacks (reciprocal square
// roots, classification with int results, the integer functions, with the GPU's results: abs
// of the most negative value wraps, clz of 0 is the width, ffs of 0 is 0) or has less
// accurate than libdevice (cbrt).
#include "host_math.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <map>

#include "cutlet/runtime/float8.h"

namespace cutlet::backend {
namespace {

float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
double rsqrt(double x) { return 1.0 / std::sqrt(x); }
// glibc's cbrt is off by up to 2.5 ulps, libdevice's by 1: one Newton step in long double.
double cbrt(double x) {
  long double r = std::cbrt(x);
  if (r != 0 && std::isfinite(r)) r -= (r * r * r - x) / (3 * r * r);
  return static_cast<double>(r);
}
int isnanf(float x) { return std::isnan(x); }
int isinff(float x) { return std::isinf(x); }
int finitef(float x) { return std::isfinite(x); }
int isnand(double x) { return std::isnan(x); }
int isinfd(double x) { return std::isinf(x); }
int isfinited(double x) { return std::isfinite(x); }

std::int32_t abs32(std::int32_t x) { return static_cast<std::int32_t>(x < 0 ? 0u - static_cast<std::uint32_t>(x) : static_cast<std::uint32_t>(x)); }
std::int64_t abs64(std::int64_t x) { return static_cast<std::int64_t>(x < 0 ? 0ull - static_cast<std::uint64_t>(x) : static_cast<std::uint64_t>(x)); }
std::int32_t popc32(std::uint32_t x) { return std::popcount(x); }
std::int32_t popc64(std::uint64_t x) { return std::popcount(x); }
std::int32_t clz32(std::uint32_t x) { return std::countl_zero(x); }
std::int32_t clz64(std::uint64_t x) { return std::countl_zero(x); }
std::int32_t ffs32(std::uint32_t x) { return x == 0 ? 0 : std::countr_zero(x) + 1; }
std::int32_t ffs64(std::uint64_t x) { return x == 0 ? 0 : std::countr_zero(x) + 1; }
std::uint32_t brev32(std::uint32_t x) {
  std::uint32_t r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
std::uint64_t brev64(std::uint64_t x) { return (std::uint64_t{brev32(static_cast<std::uint32_t>(x))} << 32) | brev32(static_cast<std::uint32_t>(x >> 32)); }
std::int32_t mulhi32(std::int32_t a, std::int32_t b) { return static_cast<std::int32_t>((std::int64_t{a} * b) >> 32); }
std::uint32_t umulhi32(std::uint32_t a, std::uint32_t b) { return static_cast<std::uint32_t>((std::uint64_t{a} * b) >> 32); }
std::int64_t mulhi64(std::int64_t a, std::int64_t b) { return static_cast<std::int64_t>((static_cast<__int128>(a) * b) >> 64); }
std::uint64_t umulhi64(std::uint64_t a, std::uint64_t b) {
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
}

}  // namespace

std::string c_library_name(const std::string& name) {
  return name.substr(name.starts_with("__nv_fast_") ? 10 : name.starts_with("__nv_") ? 5 : 0);
}

void* host_libdevice_function(const std::string& name) {
  static const std::map<std::string, void*> functions = {
      {"__nv_rsqrtf", reinterpret_cast<void*>(&rsqrtf)},     {"__nv_rsqrt", reinterpret_cast<void*>(&rsqrt)},
      {"__nv_cbrt", reinterpret_cast<void*>(&cbrt)},
      {"__nv_isnanf", reinterpret_cast<void*>(&isnanf)},     {"__nv_isinff", reinterpret_cast<void*>(&isinff)},
      {"__nv_finitef", reinterpret_cast<void*>(&finitef)},   {"__nv_isnand", reinterpret_cast<void*>(&isnand)},
      {"__nv_isinfd", reinterpret_cast<void*>(&isinfd)},     {"__nv_isfinited", reinterpret_cast<void*>(&isfinited)},
      {"__nv_abs", reinterpret_cast<void*>(&abs32)},         {"__nv_llabs", reinterpret_cast<void*>(&abs64)},
      {"__nv_popc", reinterpret_cast<void*>(&popc32)},       {"__nv_popcll", reinterpret_cast<void*>(&popc64)},
      {"__nv_clz", reinterpret_cast<void*>(&clz32)},         {"__nv_clzll", reinterpret_cast<void*>(&clz64)},
      {"__nv_ffs", reinterpret_cast<void*>(&ffs32)},         {"__nv_ffsll", reinterpret_cast<void*>(&ffs64)},
      {"__nv_brev", reinterpret_cast<void*>(&brev32)},       {"__nv_brevll", reinterpret_cast<void*>(&brev64)},
      {"__nv_mulhi", reinterpret_cast<void*>(&mulhi32)},     {"__nv_umulhi", reinterpret_cast<void*>(&umulhi32)},
      {"__nv_mul64hi", reinterpret_cast<void*>(&mulhi64)},   {"__nv_umul64hi", reinterpret_cast<void*>(&umulhi64)},
  };
  auto it = functions.find(name);
  return it == functions.end() ? nullptr : it->second;
}

}  // namespace cutlet::backend

extern "C" std::uint8_t cutlet_host_f32_to_e4m3(float x) { return cutlet::float8_e4m3(x).bits; }
extern "C" std::uint8_t cutlet_host_f32_to_e5m2(float x) { return cutlet::float8_e5m2(x).bits; }
extern "C" float cutlet_host_e4m3_to_f32(std::uint8_t bits) { return float(cutlet::float8_e4m3::from_bits(bits)); }
extern "C" float cutlet_host_e5m2_to_f32(std::uint8_t bits) { return float(cutlet::float8_e5m2::from_bits(bits)); }
