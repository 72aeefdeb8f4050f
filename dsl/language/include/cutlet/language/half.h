// half and bfloat16, the host-side 16-bit floating-point types kernels compute with as
// Value<half> / Value<bfloat16>, and the FP8 storage types float8_e4m3 and float8_e5m2; they
// live in the runtime (cutlet/runtime/half.h, cutlet/runtime/float8.h).
#pragma once

#include "cutlet/runtime/float8.h"
#include "cutlet/runtime/half.h"
