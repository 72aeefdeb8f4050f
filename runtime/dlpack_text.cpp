// Names of DLPack dtypes and device types, and what cutlet cannot take of them.
#include "dlpack_text.h"

#include "cutlet/runtime/dlpack.h"

namespace cutlet {
namespace {

/// The names of DLDataTypeCode's codes 6 to 17 (as of DLPack 1.3), whose width is part of the
/// type, by number, so that this file compiles with any 1.x header.
constexpr const char* kFixedWidthNames[] = {
    "bool",                // 6: kDLBool
    "float8_e3m4",         // 7: fp8, fp6 and fp4 from DLPack 1.1 on
    "float8_e4m3",         // 8
    "float8_e4m3b11fnuz",  // 9
    "float8_e4m3fn",       // 10
    "float8_e4m3fnuz",     // 11
    "float8_e5m2",         // 12
    "float8_e5m2fnuz",     // 13
    "float8_e8m0fnu",      // 14
    "float6_e2m3fn",       // 15
    "float6_e3m2fn",       // 16
    "float4_e2m1fn",       // 17
};
constexpr int kFirstFixedWidthCode = 6;
constexpr int kLastKnownCode = 17;
/// The widths of kFixedWidthNames' types, in bits.
constexpr int kFixedWidthBits[] = {8, 8, 8, 8, 8, 8, 8, 8, 8, 6, 6, 4};

}  // namespace

std::string dlpack_dtype_name(DLDataType dtype) {
  std::string s;
  const int code = dtype.code;
  const std::string bits = std::to_string(dtype.bits);
  switch (code) {
    case kDLInt: s = "int" + bits; break;
    case kDLUInt: s = "uint" + bits; break;
    case kDLFloat: s = "float" + bits; break;
    case kDLBfloat: s = "bfloat" + bits; break;
    case kDLComplex: s = "complex" + bits; break;
    case kDLOpaqueHandle: s = "opaque handle of " + bits + " bits"; break;
    default:
      if (code >= kFirstFixedWidthCode && code <= kLastKnownCode) {
        s = kFixedWidthNames[code - kFirstFixedWidthCode];
        if (dtype.bits != kFixedWidthBits[code - kFirstFixedWidthCode]) s += " of " + bits + " bits";
      } else {
        s = "dtype code " + std::to_string(code) + ", " + bits + " bits";
      }
  }
  if (dtype.lanes != 1) s += "x" + std::to_string(dtype.lanes);
  return s;
}

namespace detail {

std::string dlpack_shape_text(std::span<const std::int64_t> values) {
  std::string s = "[";
  for (std::size_t i = 0; i < values.size(); ++i) s += (i ? "," : "") + std::to_string(values[i]);
  return s + "]";
}

namespace {

/// The DLDeviceType enumerator of `type` ("kDLROCM"), by number as of DLPack 1.3; "" when
/// DLPack defines none.
const char* device_type_name(std::int32_t type) {
  switch (type) {
    case 1: return "kDLCPU";
    case 2: return "kDLCUDA";
    case 3: return "kDLCUDAHost";
    case 4: return "kDLOpenCL";
    case 7: return "kDLVulkan";
    case 8: return "kDLMetal";
    case 9: return "kDLVPI";
    case 10: return "kDLROCM";
    case 11: return "kDLROCMHost";
    case 12: return "kDLExtDev";
    case 13: return "kDLCUDAManaged";
    case 14: return "kDLOneAPI";
    case 15: return "kDLWebGPU";
    case 16: return "kDLHexagon";
    case 17: return "kDLMAIA";
    case 18: return "kDLTrn";
    default: return "";
  }
}

}  // namespace

std::string dlpack_device_problem(DLDevice device) {
  const std::int32_t type = device.device_type;
  if (type == kDLCUDA && Device::cpu_selected())
    return "its memory is CUDA device memory, and CUTLET_DEVICE=cpu runs every kernel on the CPU device, which "
           "cannot read it: copy the tensor to the host first (PyTorch: .cpu(), CuPy: .get()), or unset "
           "CUTLET_DEVICE";
  if (type == kDLCUDA || type == kDLCUDAHost || type == kDLCUDAManaged || type == kDLCPU) {
    if (device.device_id >= 0) return "";
    return "its device_id is " + std::to_string(device.device_id) + ", not a device ordinal";
  }
  const std::string takes =
      "cutlet takes CUDA memory: kDLCUDA (device memory), kDLCUDAManaged (managed memory) or kDLCUDAHost "
      "(page-locked host memory), and host memory (kDLCPU) for the CPU device";
  if (type == kDLROCM || type == kDLROCMHost)
    return std::string("its memory is AMD ROCm memory (") + device_type_name(type) +
           "), not CUDA memory: cutlet runs on NVIDIA GPUs only; " + takes;
  const std::string name = device_type_name(type);
  return "its memory is of DLPack device type " + std::to_string(type) + (name.empty() ? "" : " (" + name + ")") +
         ", not CUDA memory; " + takes + ": copy the tensor to a CUDA device first";
}

std::string dlpack_dtype_problem(DLDataType dtype) {
  const std::string name = dlpack_dtype_name(dtype);
  if (dtype.lanes != 1)
    return "its dtype " + name + " has " + std::to_string(dtype.lanes) + " vector lanes; cutlet takes one lane";
  if (dtype.code == kDLOpaqueHandle) return "its elements are opaque handles, not numbers";
  if (dtype.code > kLastKnownCode)
    return "its dtype code " + std::to_string(dtype.code) + " is unknown to cutlet (DLPack 1.3 defines 0 to " +
           std::to_string(kLastKnownCode) + ")";
  if (dtype.bits == 0 || dtype.bits % 8 != 0)
    return "its elements (" + name + ") are " + std::to_string(dtype.bits) +
           " bits wide, and cutlet addresses whole bytes only";
  return "";
}

}  // namespace detail
}  // namespace cutlet
