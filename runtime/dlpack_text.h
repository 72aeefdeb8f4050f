// Internal: how the DLPack messages name shapes, device types and what is wrong with a device.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <span>
#include <string>

namespace cutlet::detail {

/// "[3,4]".
std::string dlpack_shape_text(std::span<const std::int64_t> values);

/// Why cutlet cannot use memory of `device` ("its memory is host memory (kDLCPU) ...", with
/// what to pass instead); "" for the device types it takes (kDLCUDA, kDLCUDAHost and
/// kDLCUDAManaged with a device_id of 0 or more).
std::string dlpack_device_problem(DLDevice device);

/// Why cutlet cannot address elements of `dtype` (vector lanes, sub-byte, opaque, unknown
/// code); "" when it can.
std::string dlpack_dtype_problem(DLDataType dtype);

}  // namespace cutlet::detail
