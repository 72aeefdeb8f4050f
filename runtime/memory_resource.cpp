// The MemoryResource front end, plain device memory (cuMemAlloc) and pointer queries.
#include "cutlet/runtime/memory_resource.h"

#include <cstdio>
#include <mutex>
#include <vector>

#include "allocation_error.h"
#include "cutlet/runtime/driver.h"
#include "device_state.h"
#include "host_device.h"

namespace cutlet {
namespace detail {

std::string byte_text(std::size_t bytes) {
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  std::string out = std::to_string(bytes) + " bytes";
  if (bytes < 1024) return out;
  double v = static_cast<double>(bytes);
  int u = -1;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof text, " (%.2f %s)", v, kUnits[u]);
  return out + text;
}

namespace {

/// "N bytes were requested (X TiB) from <what>, where <free_text>[; <extra>]".
std::string allocation_text(std::size_t bytes, const std::string& what, const std::string& free_text,
                            const std::string& extra) {
  const std::string asked = byte_text(bytes);
  const std::size_t space = asked.find(' ', asked.find(' ') + 1);  // after "N bytes"
  const std::string requested = space == std::string::npos
                                    ? asked + " were requested"
                                    : asked.substr(0, space) + " were requested" + asked.substr(space);
  return requested + " from " + what + ", where " + free_text + (extra.empty() ? "" : "; " + extra);
}

}  // namespace

void throw_allocation_error(CUresult result, const std::string& call, std::size_t bytes,
                            const std::string& what, const std::string& extra) {
  std::size_t free_bytes = 0, total_bytes = 0;
  std::string free_text = "an unknown amount of device memory is free";
  if (driver().cuMemGetInfo(&free_bytes, &total_bytes) == CUDA_SUCCESS)
    free_text = byte_text(free_bytes) + " of " + byte_text(total_bytes) +
                " of device memory are free";
  throw_cuda_error(result, call, allocation_text(bytes, what, free_text, extra));
}

void throw_host_allocation_error(const std::string& call, std::size_t bytes, const std::string& what,
                                 const std::string& extra) {
  const Device cpu = Device::cpu();
  throw CudaError(CUDA_ERROR_OUT_OF_MEMORY, call, "CUDA_ERROR_OUT_OF_MEMORY",
                  allocation_text(bytes, what,
                                  byte_text(cpu.free_memory()) + " of " + byte_text(cpu.total_memory()) +
                                      " of device memory are free (the CPU device's memory is the host's)",
                                  extra));
}

}  // namespace detail

std::uint64_t MemoryResource::allocate(std::size_t bytes) {
  if (bytes == 0) return 0;
  return do_allocate(bytes, nullptr);
}

std::uint64_t MemoryResource::allocate(std::size_t bytes, const Stream& stream) {
  if (bytes == 0) return 0;
  if (stream_ordered() && stream.device() != device_)
    throw Error("MemoryResource::allocate: " + describe() + " cannot allocate on a stream of " +
                detail::device_label(stream.device().ordinal()) +
                "; use a stream of the resource's device");
  return do_allocate(bytes, &stream);
}

void MemoryResource::deallocate(std::uint64_t address, std::size_t bytes) noexcept {
  if (address != 0) do_deallocate(address, bytes, nullptr);
}

void MemoryResource::deallocate(std::uint64_t address, std::size_t bytes,
                                const Stream& stream) noexcept {
  if (address != 0) do_deallocate(address, bytes, &stream);
}

const std::shared_ptr<DeviceMemoryResource>& DeviceMemoryResource::shared(Device device) {
  static std::mutex mu;
  // Never destroyed: buffers freed during exit may still reach their resource.
  static auto* table = new std::vector<std::shared_ptr<DeviceMemoryResource>>();
  if (device.is_cpu()) {
    static auto* cpu = new std::shared_ptr<DeviceMemoryResource>(std::make_shared<DeviceMemoryResource>(device));
    return *cpu;
  }
  std::lock_guard lock(mu);
  if (table->empty()) table->resize(static_cast<std::size_t>(Device::count()));
  auto& slot = (*table)[static_cast<std::size_t>(device.ordinal())];
  if (!slot) slot = std::make_shared<DeviceMemoryResource>(device);
  return slot;
}

std::string DeviceMemoryResource::describe() const {
  if (device().is_cpu()) return "the host memory of the CPU device";
  return "the cuMemAlloc device memory of " + detail::device_label(device().ordinal());
}

std::uint64_t DeviceMemoryResource::do_allocate(std::size_t bytes, const Stream*) {
  if (device().is_cpu()) return detail::host_allocate(bytes, describe());
  const detail::DeviceState& s = detail::device_state(device().ordinal());
  detail::ensure_current(s);
  CUdeviceptr ptr = 0;
  CUresult r = detail::driver().cuMemAlloc(&ptr, bytes);
  if (r != CUDA_SUCCESS)
    detail::throw_allocation_error(r, "cuMemAlloc(" + std::to_string(bytes) + " bytes)", bytes, s.label);
  return ptr;
}

void DeviceMemoryResource::do_deallocate(std::uint64_t address, std::size_t, const Stream*) noexcept {
  if (device().is_cpu()) return detail::host_free_after_work(address);
  try {
    detail::ensure_current(device().ordinal());
    detail::driver().cuMemFree(static_cast<CUdeviceptr>(address));
  } catch (...) {  // never throw from a free; the driver may already be shut down
  }
}

PointerInfo pointer_info(std::uint64_t address) {
  PointerInfo info;
  const auto ptr = static_cast<CUdeviceptr>(address);
  unsigned type = 0;
  if (Device::cpu_selected() || !driver_available() ||
      detail::driver().cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, ptr) != CUDA_SUCCESS) {
    // Not an address the driver knows (CUDA_ERROR_INVALID_VALUE): the CPU device's memory, or none.
    if (const std::optional<MemoryKind> kind = detail::host_allocation_kind(address)) {
      info.known = true;
      info.kind = *kind;
      info.device = Device::kCpuOrdinal;
    }
    return info;
  }
  const detail::DriverApi& api = detail::driver();
  info.known = true;
  unsigned managed = 0;
  api.cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, ptr);
  int ordinal = -1;
  if (api.cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, ptr) == CUDA_SUCCESS)
    info.device = ordinal;
  info.kind = managed ? MemoryKind::managed
              : type == CU_MEMORYTYPE_HOST ? MemoryKind::pinned_host
                                           : MemoryKind::device;
  return info;
}

}  // namespace cutlet
