// Loading cubin, fatbin and PTX images as context-independent libraries, and their kernels.
#include "cutlet/runtime/module.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_set>
#include <utility>

#include "device_state.h"

namespace cutlet {
namespace {

bool starts_with(std::span<const char> image, const char (&magic)[4]) {
  return image.size() >= 4 && std::memcmp(image.data(), magic, 4) == 0;
}

std::string arch_hint(const detail::DeviceState& s, CUresult r) {
  const std::string sm = "sm_" + std::to_string(s.cc.sm());
  switch (r) {
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_INVALID_IMAGE:
      return "the image probably holds no code for " + s.label + ", which is " + sm +
             "; compile for " + sm + " (or include PTX the driver can compile)";
    case CUDA_ERROR_INVALID_PTX:
      return "the driver could not compile the PTX for " + s.label + " (" + sm +
             "); a .target above " + sm + " also causes this";
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
      return "the PTX .version is newer than this driver (CUDA " +
             std::to_string(detail::driver().version / 1000) + "." +
             std::to_string(detail::driver().version % 1000 / 10) +
             ") accepts; emit an older PTX ISA version or update the driver";
    default:
      return {};
  }
}

template <class U>
U read_le(std::span<const char> image, std::size_t offset) {
  U value = 0;
  std::memcpy(&value, image.data() + offset, sizeof(U));  // hosts are little-endian, as images
  return value;
}

/// The number of bytes a cubin (ELF64) or fatbin image says it spans, so that a truncated
/// image is rejected here instead of being read past its end by the driver; 0 when the
/// header itself is cut off.
std::uint64_t claimed_size(std::span<const char> image, bool elf) {
  if (elf) {
    if (image.size() < 64) return 0;
    const auto phoff = read_le<std::uint64_t>(image, 0x20);
    const auto shoff = read_le<std::uint64_t>(image, 0x28);
    const auto phsize =
        std::uint64_t{read_le<std::uint16_t>(image, 0x36)} * read_le<std::uint16_t>(image, 0x38);
    const auto shsize =
        std::uint64_t{read_le<std::uint16_t>(image, 0x3a)} * read_le<std::uint16_t>(image, 0x3c);
    return std::max({std::uint64_t{64}, phoff + phsize, shoff + shsize});
  }
  if (image.size() < 16) return 0;
  return std::uint64_t{read_le<std::uint16_t>(image, 6)} + read_le<std::uint64_t>(image, 8);
}

/// `name` as a C string that lives until the process exits: one copy per distinct name.
const char* intern(const std::string& name) {
  static std::mutex mu;
  static auto* names = new std::unordered_set<std::string>();  // never destroyed
  std::lock_guard lock(mu);
  return names->insert(name).first->c_str();
}

}  // namespace

Function Function::host(std::shared_ptr<const HostEntry> entry, const std::string& name) {
  // Launch records keep the name past the Function's life, as for GPU kernels.
  Function f(nullptr, nullptr, Device::cpu(), name, intern(name), static_cast<int>(entry->static_shared_bytes()));
  f.host_ = std::move(entry);
  return f;
}

FunctionAttributes Function::attributes() const {
  if (host_) {
    FunctionAttributes out;
    out.max_threads_per_block = detail::device_state(Device::kCpuOrdinal).limits.max_threads_per_block;
    out.shared_size_bytes = static_shared_bytes_;
    return out;
  }
  const detail::DriverApi& api = detail::driver();
  auto f = static_cast<CUfunction>(handle_);
  auto get = [&](CUfunction_attribute a) {
    int v = 0;
    CUresult r = api.cuFuncGetAttribute(&v, a, f);
    if (r != CUDA_SUCCESS)
      detail::throw_cuda_error(
          r, "cuFuncGetAttribute(kernel '" + name_ + "', attribute " + std::to_string(a) + ")");
    return v;
  };
  FunctionAttributes out;
  out.num_regs = get(CU_FUNC_ATTRIBUTE_NUM_REGS);
  out.shared_size_bytes = get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
  out.local_size_bytes = get(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
  out.const_size_bytes = get(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES);
  out.max_threads_per_block = get(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  out.ptx_version = get(CU_FUNC_ATTRIBUTE_PTX_VERSION);
  out.binary_version = get(CU_FUNC_ATTRIBUTE_BINARY_VERSION);
  return out;
}

Module Module::load(Device device, std::span<const char> image) {
  if (image.empty()) throw Error("Module::load: empty image");
  const detail::DeviceState& s = detail::device_state(device.ordinal());
  detail::ensure_current(s);

  // cubin (ELF) and fatbin images carry their own size; PTX text must end in a NUL.
  constexpr char kElfMagic[4] = {0x7f, 'E', 'L', 'F'};
  constexpr char kFatbinMagic[4] = {0x50, char(0xed), 0x55, char(0xba)};  // 0xba55ed50, LE
  const bool binary = starts_with(image, kElfMagic) || starts_with(image, kFatbinMagic);
  if (binary) {
    const std::uint64_t claimed = claimed_size(image, image[0] == kElfMagic[0]);
    if (claimed == 0 || claimed > image.size())
      throw Error("Module::load: the " +
                  std::string(image[0] == kElfMagic[0] ? "cubin (ELF)" : "fatbin") + " image is " +
                  std::to_string(image.size()) + " bytes long but its header " +
                  (claimed == 0 ? std::string("is cut off")
                                : "says it spans " + std::to_string(claimed) + " bytes") +
                  "; the image is truncated or corrupt");
  }
  std::string ptx_copy;
  const void* data = image.data();
  if (!binary && std::memchr(image.data(), '\0', image.size()) == nullptr) {
    ptx_copy.assign(image.data(), image.size());
    data = ptx_copy.c_str();
  }

  std::string log(16 * 1024, '\0');
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {log.data(),
                    reinterpret_cast<void*>(static_cast<std::uintptr_t>(log.size() - 1))};
  const detail::DriverApi& api = detail::driver();
  CUlibrary library = nullptr;
  CUresult r = api.cuLibraryLoadData(&library, data, options, values, 2, nullptr, nullptr, 0);
  CUmodule module = nullptr;
  if (r == CUDA_SUCCESS) {
    // Loads the code into the primary context now, so that errors surface here and the
    // first launch pays nothing.
    r = api.cuLibraryGetModule(&module, library);
    if (r != CUDA_SUCCESS) api.cuLibraryUnload(library);
  }
  if (r != CUDA_SUCCESS) {
    log.resize(std::strlen(log.c_str()));
    std::string hint = arch_hint(s, r);
    if (!log.empty()) hint += (hint.empty() ? "" : "; ") + std::string("driver log:\n") + log;
    detail::throw_cuda_error(r,
                             "cuLibraryLoadData(" + std::string(binary ? "binary" : "PTX") +
                                 " image of " + std::to_string(image.size()) + " bytes, " +
                                 s.label + ")",
                             hint);
  }
  return Module(library, module, device);
}

Function Module::function(const std::string& name) const {
  if (!library_) throw Error("Module::function('" + name + "') on an empty (moved-from) Module");
  const detail::DeviceState& s = detail::device_state(device_.ordinal());
  detail::ensure_current(s);  // cuKernelGetFunction answers for the current context
  const detail::DriverApi& api = detail::driver();
  CUkernel kernel = nullptr;
  CUresult r = api.cuLibraryGetKernel(&kernel, static_cast<CUlibrary>(library_), name.c_str());
  CUfunction f = nullptr;
  if (r == CUDA_SUCCESS) r = api.cuKernelGetFunction(&f, kernel);
  if (r != CUDA_SUCCESS)
    detail::throw_cuda_error(
        r, "cuLibraryGetKernel(\"" + name + "\")",
        r == CUDA_ERROR_NOT_FOUND
            ? "the module has no kernel named '" + name +
                  "'; the name must match the .entry exactly (CUDA C++ mangles names unless "
                  "the kernel is extern \"C\")"
            : std::string());
  int static_shared = 0;
  r = api.cuFuncGetAttribute(&static_shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f);
  if (r != CUDA_SUCCESS)
    detail::throw_cuda_error(r, "cuFuncGetAttribute(kernel '" + name + "', SHARED_SIZE_BYTES)");
  return Function(f, kernel, device_, name, intern(name), static_shared);
}

Module::Module(Module&& other) noexcept
    : library_(std::exchange(other.library_, nullptr)),
      handle_(std::exchange(other.handle_, nullptr)),
      device_(other.device_) {}

Module& Module::operator=(Module&& other) noexcept {
  if (this != &other) {
    Module old(std::move(*this));
    library_ = std::exchange(other.library_, nullptr);
    handle_ = std::exchange(other.handle_, nullptr);
    device_ = other.device_;
  }
  return *this;
}

Module::~Module() {
  if (!library_) return;
  if (const detail::DriverApi* api = detail::g_driver_api.load(std::memory_order_acquire))
    api->cuLibraryUnload(static_cast<CUlibrary>(library_));  // errors (e.g. at exit) ignored
}

}  // namespace cutlet
