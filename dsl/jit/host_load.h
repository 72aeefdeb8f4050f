// Internal: loading a specialization on the CPU device.
#pragma once

#include <memory>

#include "cutlet/backend/compiler.h"
#include "cutlet/ir/function.h"
#include "cutlet/jit/specialization.h"

namespace cutlet::detail {

/// Compiles kernel `fn` for the host CPU (`options.target` is the host's) and returns it as
/// a LoadedKernel whose Function runs on Device::cpu(). Throws CompileError for what the host
/// target cannot run, naming it.
std::shared_ptr<LoadedKernel> load_on_cpu(const ir::Function& fn, const CompileOptions& options);

}  // namespace cutlet::detail
