// Specializations of the CPU device: the traced IR compiled for the host CPU (HostKernel)
// and wrapped as a Function of Device::cpu(), which launch() runs.
#include "host_load.h"

#include <chrono>
#include <memory>
#include <utility>

#include "cutlet/backend/host_kernel.h"
#include "cutlet/runtime/launch.h"

namespace cutlet::detail {
namespace {

/// What a Function of the CPU device runs: the kernel compiled for the host.
class HostKernelEntry final : public HostEntry {
 public:
  explicit HostKernelEntry(HostKernel kernel) : kernel_(std::move(kernel)) {}
  void run(const Dim3& grid, const Dim3& block, void** args, std::size_t dynamic_shared_bytes) const override {
    auto dim = [](const Dim3& d) {
      return HostDim{static_cast<std::uint32_t>(d.x), static_cast<std::uint32_t>(d.y), static_cast<std::uint32_t>(d.z)};
    };
    kernel_.run(dim(grid), dim(block), args, dynamic_shared_bytes);
  }
  const std::vector<std::size_t>& param_sizes() const override { return kernel_.param_sizes(); }
  std::size_t static_shared_bytes() const override { return kernel_.static_shared_bytes(); }
  const HostKernel& kernel() const { return kernel_; }

 private:
  HostKernel kernel_;
};

}  // namespace

std::shared_ptr<LoadedKernel> loaded_on_cpu(HostKernel kernel, double ms, CompileSource source) {
  const std::string name = kernel.name();
  auto entry = std::make_shared<HostKernelEntry>(std::move(kernel));
  auto compiled = std::make_shared<CompiledKernel>();
  compiled->name = name;
  compiled->llvm_ir_opt = entry->kernel().llvm_ir();
  // HostKernel gives each block the kernel's own shared memory itself: a launch reserves none.
  compiled->resources.dynamic_shared_bytes = 0;
  compiled->timings.lower_ms = ms;
  auto lk = std::make_shared<LoadedKernel>(LoadedKernel{compiled, std::nullopt, Function::host(entry, name)});
  lk->compile_ms = ms;
  lk->source = source;
  return lk;
}

}  // namespace cutlet::detail
