// Kernels compiled ahead of time (cutlet::aot::Exporter writes them into a C++ source): their
// embedded code for several architectures, the one chosen for a device when first launched
// there, and launches with the packed arguments of the generated launch functions. Needs the
// runtime alone: no LLVM, no nvJitLink.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <string>

#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/device.h"
#include "cutlet/runtime/driver.h"
#include "cutlet/runtime/float8.h"
#include "cutlet/runtime/half.h"
#include "cutlet/runtime/launch.h"
#include "cutlet/runtime/module.h"
#include "cutlet/runtime/stream.h"
#include "cutlet/runtime/tensor_arg.h"

namespace cutlet::aot {

/// What an Image holds.
enum class ImageKind : std::uint8_t {
  cubin,  ///< SASS linked for one architecture (ELF).
  ptx,    ///< PTX text, compiled by the driver for the device when loaded.
};

/// One compiled form of an exported kernel, as embedded in a generated source.
struct Image {
  ImageKind kind = ImageKind::cubin;
  /// For a cubin, the SM it was linked for (80 for sm_80): it runs on devices of the same
  /// major version with at least its minor version (sm_80 code runs on sm_86 and sm_89, not on
  /// sm_90). For PTX, the SM of its .target: the driver compiles it for that SM and every newer
  /// one.
  int sm = 0;
  /// The bytes; PTX text ends in a NUL.
  const unsigned char* data = nullptr;
  /// The number of bytes, a PTX text's NUL included.
  std::size_t size = 0;
  /// The dynamic shared memory the kernel's own code uses from offset 0 (ResourceUsage::
  /// dynamic_shared_bytes of the compile that made it: tile kernels' arena); launches add it
  /// to LaunchConfig::shared_bytes.
  int dynamic_shared_bytes = 0;
};

/// The fixed facts of one exported specialization, as the generated source states them. Every
/// pointer must stay valid while an ExportedKernel uses it (the generated source's are static).
struct KernelInfo {
  /// The launch function's qualified name, e.g. "mykernels::saxpy_f32" (for messages).
  const char* name = "";
  /// The kernel's .entry name in the images.
  const char* entry = "";
  /// The compiled forms, in any order (select_image picks one per device).
  std::span<const Image> images;
  /// For a tile kernel, its block size (32 * warps): every launch gets this block, and a
  /// LaunchConfig that asks for another is refused. 0 for a per-thread kernel, whose launches
  /// take LaunchConfig::block.
  int block_threads = 0;
  /// Where the kernel calls grid_sync() ("file:line"), which makes a cooperative launch
  /// (LaunchConfig::cooperative) necessary; null when it does not.
  const char* grid_sync_at = nullptr;
};

/// The image a device of compute capability `cc` runs: the cubin of the same major version
/// with the highest minor version not above the device's; without one, the PTX with the highest
/// SM not above the device's (the driver compiles it at load); nullptr when neither exists.
const Image* select_image(std::span<const Image> images, ComputeCapability cc) noexcept;

/// The images for messages: "cubins for sm_80, sm_90; PTX for sm_90 and newer".
std::string describe_images(std::span<const Image> images);

/// An exported specialization at run time: its code is loaded on each device at the first
/// launch there (and again after a Device::reset), from the image select_image chooses for the
/// device, and launched with the arguments the generated launch function packed. Thread-safe;
/// after the first launch on a device a launch costs an atomic load and cutlet::launch.
class ExportedKernel {
 public:
  /// Uses `info`, which must outlive this object. Loads nothing yet; needs no driver.
  explicit ExportedKernel(const KernelInfo& info) : info_(info) {}
  ExportedKernel(const ExportedKernel&) = delete;
  ExportedKernel& operator=(const ExportedKernel&) = delete;
  /// Unloads the modules it loaded.
  ~ExportedKernel();

  /// The facts it was made with.
  const KernelInfo& info() const noexcept { return info_; }

  /// The kernel loaded on `device`, loading it when this is the first use there (or the first
  /// since a Device::reset). Throws Error naming the device's architecture and the images there
  /// are when none runs on the device, and CudaError when the driver refuses the image.
  const Function& function(const Device& device);
  /// The image that function(device) loads (or loaded) on `device`; throws as function() does
  /// when there is none.
  const Image& image(const Device& device);

  /// Queues the kernel on `stream` with `config` and `args`, one pointer per kernel parameter
  /// in order (as cutlet::launch takes them). Before launching it adds the image's
  /// dynamic_shared_bytes to config.shared_bytes, and for a tile kernel sets the block to
  /// block_threads (a config.block other than (1,1,1) or that block is refused, as
  /// Kernel::launch refuses it); dynamic shared memory past 48 KiB is opted in to by
  /// cutlet::launch. Throws Error for a kernel calling grid_sync() launched without
  /// config.cooperative, for shared memory beyond the device's limit (naming the kernel's part
  /// of it), and whatever cutlet::launch throws.
  void launch(const Stream& stream, const LaunchConfig& config, void** args);

 private:
  struct Loaded {
    Module module;
    Function function;
    const Image* image;
    int device;
    std::uint64_t generation;
  };
  const Loaded& loaded(const Device& device);

  static constexpr int kFastDevices = 16;
  const KernelInfo& info_;
  std::atomic<const Loaded*> fast_[kFastDevices] = {};
  std::mutex mu_;
  std::deque<std::unique_ptr<Loaded>> all_;  ///< stale ones too: launches may still read them
};

/// For generated launch functions: the device address to pass for Buffer argument `index`
/// (0-based) of `kernel`. Throws Error naming the argument and config.where when the buffer is
/// empty, or holds 2^31 elements or more (exported specializations index with 32 bits).
std::uint64_t buffer_argument(const ExportedKernel& kernel, const LaunchConfig& config, std::size_t index,
                              std::uint64_t address, std::size_t elements);
template <class T>
std::uint64_t buffer_argument(const ExportedKernel& kernel, const LaunchConfig& config, std::size_t index,
                              const Buffer<T>& buffer) {
  return buffer_argument(kernel, config, index, buffer.data(), buffer.size());
}

/// For generated launch functions: throws Error naming the argument, the missing facts and
/// config.where when tensor argument `index` (0-based) lacks a TensorFacts fact that the
/// specialization was compiled to assume (`assumed`, see missing_tensor_facts).
void check_tensor_facts(const ExportedKernel& kernel, const LaunchConfig& config, std::size_t index,
                        std::uint64_t assumed, std::uint64_t actual, int rank);
template <class T, int R>
void check_tensor_argument(const ExportedKernel& kernel, const LaunchConfig& config, std::size_t index,
                           std::uint64_t assumed, const TensorArg<T, R>& tensor) {
  const std::uint64_t actual = cutlet::detail::tensor_facts(tensor);
  if (missing_tensor_facts(assumed, actual, R) != 0) [[unlikely]]
    check_tensor_facts(kernel, config, index, assumed, actual, R);
}

}  // namespace cutlet::aot
