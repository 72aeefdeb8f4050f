// The whole cutlet runtime: driver, devices, streams, events, memory resources, modules,
// launches, occupancy, graphs, green contexts, NVRTC programs, the linker, the host types of
// kernel arguments (half, bfloat16, TensorArg) and kernels compiled ahead of time. The interop
// headers cutlet/runtime/dlpack.h and cutlet/runtime/cccl.h are included separately.
#pragma once

#include "cutlet/runtime/aot_kernel.h"
#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/cuda_error.h"
#include "cutlet/runtime/device.h"
#include "cutlet/runtime/driver.h"
#include "cutlet/runtime/event.h"
#include "cutlet/runtime/float8.h"
#include "cutlet/runtime/graph.h"
#include "cutlet/runtime/green_context.h"
#include "cutlet/runtime/half.h"
#include "cutlet/runtime/launch.h"
#include "cutlet/runtime/linker.h"
#include "cutlet/runtime/memory_pool.h"
#include "cutlet/runtime/memory_resource.h"
#include "cutlet/runtime/module.h"
#include "cutlet/runtime/object_code.h"
#include "cutlet/runtime/occupancy.h"
#include "cutlet/runtime/program.h"
#include "cutlet/runtime/stream.h"
#include "cutlet/runtime/stream_scratch.h"
#include "cutlet/runtime/tensor_arg.h"
#include "cutlet/runtime/tensor_map.h"
