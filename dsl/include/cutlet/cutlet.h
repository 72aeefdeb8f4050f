// cutlet: GPU kernels written as C++ lambdas, traced, compiled by LLVM NVPTX and nvJitLink,
// cached, and launched on cuda.core-style streams and buffers. Include this one header.
#pragma once

#include "cutlet/backend/compiler.h"
#include "cutlet/backend/target.h"
#include "cutlet/dsl/atomic.h"
#include "cutlet/dsl/control.h"
#include "cutlet/dsl/device_function.h"
#include "cutlet/dsl/diagnostics.h"
#include "cutlet/dsl/half.h"
#include "cutlet/dsl/index.h"
#include "cutlet/dsl/kernel.h"
#include "cutlet/dsl/math.h"
#include "cutlet/dsl/memory.h"
#include "cutlet/dsl/pointer.h"
#include "cutlet/dsl/struct_param.h"
#include "cutlet/dsl/value.h"
#include "cutlet/dsl/vector.h"
#include "cutlet/dsl/view.h"
#include "cutlet/dsl/warp.h"
#include "cutlet/dump.h"
#include "cutlet/ir/printer.h"
#include "cutlet/runtime/runtime.h"
