// Kernels compiled ahead of time: choosing an embedded image per device, loading it once per
// device and context, and launching it as Kernel::launch would.
#include "cutlet/runtime/aot_kernel.h"

#include <string>

#include "cutlet/error.h"

namespace cutlet::aot {
namespace {

std::string sm_name(int sm) { return "sm_" + std::to_string(sm); }

std::string argument_prefix(const ExportedKernel& kernel, const LaunchConfig& config, std::size_t index) {
  return "cutlet: argument " + std::to_string(index + 1) + " of " + kernel.info().name + " launched at " +
         to_string(config.where);
}

}  // namespace

const Image* select_image(std::span<const Image> images, ComputeCapability cc) noexcept {
  const Image* best = nullptr;
  for (const Image& i : images)
    if (i.kind == ImageKind::cubin && i.sm / 10 == cc.major && i.sm % 10 <= cc.minor && (!best || i.sm > best->sm))
      best = &i;
  if (best) return best;
  for (const Image& i : images)
    if (i.kind == ImageKind::ptx && i.sm <= cc.sm() && (!best || i.sm > best->sm)) best = &i;
  return best;
}

std::string describe_images(std::span<const Image> images) {
  std::string cubins, ptx;
  for (const Image& i : images) {
    std::string& list = i.kind == ImageKind::cubin ? cubins : ptx;
    list += (list.empty() ? "" : ", ") + sm_name(i.sm);
  }
  std::string r;
  if (!cubins.empty()) r = "cubins for " + cubins;
  if (!ptx.empty()) r += (r.empty() ? "" : "; ") + std::string("PTX for ") + ptx + " and newer";
  return r.empty() ? "no code" : r;
}

ExportedKernel::~ExportedKernel() = default;

const ExportedKernel::Loaded& ExportedKernel::loaded(const Device& device) {
  const int ordinal = device.ordinal();
  const std::uint64_t generation = device.generation();
  if (ordinal < kFastDevices)
    if (const Loaded* l = fast_[ordinal].load(std::memory_order_acquire); l && l->generation == generation) [[likely]]
      return *l;
  std::lock_guard lock(mu_);
  for (const auto& l : all_)
    if (l->device == ordinal && l->generation == generation) return *l;
  const ComputeCapability cc = device.compute_capability();
  const Image* image = select_image(info_.images, cc);
  if (!image)
    throw Error("cutlet: " + std::string(info_.name) + " (kernel '" + info_.entry + "') has " +
                describe_images(info_.images) + ", none of which runs on device " + std::to_string(ordinal) + " (" +
                device.name() + "), which is " + sm_name(cc.sm()) + "; export it for " + sm_name(cc.sm()) +
                " too (Exporter::targets), or with PTX for an older architecture");
  Module module = Module::load(device, {reinterpret_cast<const char*>(image->data), image->size});
  Function function = module.function(info_.entry);
  all_.push_back(std::make_unique<Loaded>(Loaded{std::move(module), function, image, ordinal, generation}));
  const Loaded* l = all_.back().get();
  if (ordinal < kFastDevices) fast_[ordinal].store(l, std::memory_order_release);
  return *l;
}

const Function& ExportedKernel::function(const Device& device) { return loaded(device).function; }

const Image& ExportedKernel::image(const Device& device) { return *loaded(device).image; }

void ExportedKernel::launch(const Stream& stream, const LaunchConfig& config, void** args) {
  const Loaded& l = loaded(stream.device());
  if (info_.grid_sync_at && !config.cooperative) [[unlikely]]
    throw Error("cutlet: " + std::string(info_.name) + " launched at " + to_string(config.where) +
                " calls grid_sync() (at " + info_.grid_sync_at +
                ") but is not launched cooperatively; set LaunchConfig::cooperative = true (the grid must then fit "
                "on the device at once: see max_cooperative_blocks)");
  if (info_.block_threads == 0 && l.image->dynamic_shared_bytes == 0) return cutlet::launch(stream, l.function, config, args);
  LaunchConfig c = config;
  if (info_.block_threads != 0) {
    if (config.block != Dim3{} && config.block != Dim3{info_.block_threads}) [[unlikely]]
      throw Error("cutlet: tile kernel " + std::string(info_.name) + " launched at " + to_string(config.where) +
                  " with " + std::to_string(config.block.count()) + " threads per block, but it runs on " +
                  std::to_string(info_.block_threads / 32) + " warps (" + std::to_string(info_.block_threads) +
                  " threads); give only the grid");
    c.block = Dim3{info_.block_threads};
  }
  if (l.image->dynamic_shared_bytes != 0) {
    c.shared_bytes += static_cast<std::size_t>(l.image->dynamic_shared_bytes);
    const std::size_t limit = stream.device().limits().max_shared_per_block_optin;
    const std::size_t static_bytes = static_cast<std::size_t>(l.function.static_shared_bytes());
    if (c.shared_bytes + static_bytes > limit) [[unlikely]]
      throw Error("cutlet: " + std::string(info_.name) + " launched at " + to_string(config.where) + " needs " +
                  std::to_string(c.shared_bytes + static_bytes) + " bytes of shared memory per block (" +
                  std::to_string(l.image->dynamic_shared_bytes) + " for its own buffers, " +
                  std::to_string(static_bytes) + " static, " + std::to_string(config.shared_bytes) +
                  " given as shared_bytes), more than the " + std::to_string(limit) +
                  " a block of this device may have; give less shared_bytes, or export the kernel with smaller "
                  "buffers (for a tile kernel: fewer tile_stages or smaller tiles)");
  }
  cutlet::launch(stream, l.function, c, args);
}

std::uint64_t buffer_argument(const ExportedKernel& kernel, const LaunchConfig& config, std::size_t index,
                              std::uint64_t address, std::size_t elements) {
  if (address == 0) [[unlikely]]
    throw Error(argument_prefix(kernel, config, index) +
                " is an empty Buffer (no device memory); allocate it before launching");
  if (elements > static_cast<std::size_t>(0x7fffffff)) [[unlikely]]
    throw Error(argument_prefix(kernel, config, index) + " is a Buffer of " + std::to_string(elements) +
                " elements, but the exported specialization indexes with 32 bits (fewer than 2^31 elements); "
                "launch the kernel through the JIT, which compiles 64-bit indices for such buffers");
  return address;
}

void check_tensor_facts(const ExportedKernel& kernel, const LaunchConfig& config, std::size_t index,
                        std::uint64_t assumed, std::uint64_t actual, int rank) {
  const std::uint64_t missing = missing_tensor_facts(assumed, actual, rank);
  if (missing == 0) return;
  throw Error(argument_prefix(kernel, config, index) +
              " is a tensor without facts the exported specialization was compiled to assume: " +
              tensor_facts_list(missing, rank) +
              " (the tensor has: " + tensor_facts_text(actual, rank) +
              "); pass a tensor that has them, or export a specialization for such tensors too "
              "(Exporter::add_for with a TensorArg like this one, or with .generic())");
}

}  // namespace cutlet::aot
