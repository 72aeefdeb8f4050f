// half and bfloat16, the host-side 16-bit floating-point types kernels compute with as
// Value<half> / Value<bfloat16>; they live in the runtime (cutlet/runtime/half.h).
#pragma once

#include "cutlet/runtime/half.h"
