// Internal: loading a specialization on the CPU device.
#pragma once

#include <memory>

#include "cutlet/backend/compiler.h"
#include "cutlet/backend/host_kernel.h"
#include "cutlet/ir/function.h"
#include "cutlet/jit/specialization.h"

namespace cutlet::detail {

/// Host kernel `kernel` (compiled, or loaded from its image, in `ms`) as a LoadedKernel whose
/// Function runs on Device::cpu().
std::shared_ptr<LoadedKernel> loaded_on_cpu(HostKernel kernel, double ms, CompileSource source);

}  // namespace cutlet::detail
