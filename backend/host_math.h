// The libdevice functions of kernels run on the host: host implementations under libdevice's
// names, where the host C library's function of that name is missing or less accurate.
#pragma once

#include <cstdint>
#include <string>

/// FP8 conversions of host code (fp8_convert.cpp's host lowering), rounding as the GPU's
/// `cvt.rn.satfinite` does: f32 to E4M3 or E5M2 bits, and those bits to f32 (exactly).
extern "C" {
std::uint8_t cutlet_host_f32_to_e4m3(float x);
std::uint8_t cutlet_host_f32_to_e5m2(float x);
float cutlet_host_e4m3_to_f32(std::uint8_t bits);
float cutlet_host_e5m2_to_f32(std::uint8_t bits);
}

namespace cutlet::backend {

/// The host implementation of libdevice function `name` (e.g. "__nv_rsqrtf", "__nv_popc",
/// "__nv_isnand") where the C library has none under libdevice's name less its "__nv_"
/// prefix, or one less accurate than libdevice's, with libdevice's signature and results;
/// nullptr for the others.
void* host_libdevice_function(const std::string& name);

/// The C library's name of libdevice function `name`: less its "__nv_" or "__nv_fast_"
/// prefix (__nv_expf, __nv_fast_expf: expf; approximate math is exact on the host).
std::string c_library_name(const std::string& name);

}  // namespace cutlet::backend
