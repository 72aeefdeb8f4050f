// The runtime tests' kernels (test_kernels.h) as Functions of any device: loaded from their
// hand-written PTX on a GPU; on the CPU device, the same kernels written in cutlet's language
// and compiled for the host, so that the tests of launch(), graphs and occupancy run there too.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include <cutlet/cutlet.h>

#include "test_kernels.h"

namespace cutlet::test {

/// The kernels of kTestPtx (and of kSm90Ptx where a GPU has sm_90) on one device. On the CPU
/// device: write42, reverse_through_shared, empty_kernel and pdl_double, with the parameters
/// and results their PTX documents.
class TestFunctions {
 public:
  /// Loads `ptx` on a GPU, or compiles the host versions on the CPU device.
  explicit TestFunctions(Device device, const char* ptx = kTestPtx) : device_(device) {
    if (!device.is_cpu()) {
      module_.emplace(Module::load(device, std::span<const char>(ptx, std::strlen(ptx))));
      return;
    }
    add("write42", kernel(
                       [](Ptr<std::uint32_t> out, u32 n) {
                         u32 i = cast<std::uint32_t>(block_idx().x * block_dim().x + thread_idx().x);
                         if_(i < n, [&] { out[i] = i + 42u; });
                       },
                       {.name = "write42"}));
    add("reverse_through_shared", kernel(
                                      [](Ptr<std::uint32_t> out, u32 offset_words) {
                                        auto s = dynamic_shared<std::uint32_t>();
                                        u32 t = cast<std::uint32_t>(thread_idx().x);
                                        u32 n = cast<std::uint32_t>(block_dim().x);
                                        s[offset_words + t] = t * 3u;
                                        syncthreads();
                                        out[t] = s[offset_words + n - 1u - t];
                                      },
                                      {.name = "reverse_through_shared"}));
    add("empty_kernel", kernel([] {}, {.name = "empty_kernel"}));
    // The PTX waits for the kernel it depends on (griddepcontrol.wait); the CPU device runs a
    // stream's kernels one after another, so the wait has nothing to wait for there.
    add("pdl_double", kernel(
                          [](Ptr<std::uint32_t> in, Ptr<std::uint32_t> out, u32 n) {
                            u32 i = cast<std::uint32_t>(block_idx().x * block_dim().x + thread_idx().x);
                            if_(i < n, [&] { out[i] = in[i] * 2u; });
                          },
                          {.name = "pdl_double"}));
  }

  /// The kernel named `name`.
  Function function(const std::string& name) const {
    if (module_) return module_->function(name);
    const auto it = host_.find(name);
    if (it == host_.end()) throw Error("TestFunctions: no host version of kernel '" + name + "'");
    return it->second->function;
  }
  /// The device the kernels are on.
  Device device() const { return device_; }

 private:
  template <class K>
  void add(const std::string& name, const K& k) {
    host_[name] = detail::load_cached(k.trace_ir(), k.options(), device_);
  }
  Device device_;
  std::optional<Module> module_;
  std::map<std::string, std::shared_ptr<const detail::LoadedKernel>> host_;
};

}  // namespace cutlet::test
