// Host-accessible memory resources: pinned host memory and managed memory.
#include <string>

#include "allocation_error.h"
#include "cutlet/runtime/memory_resource.h"
#include "device_state.h"
#include "host_device.h"

namespace cutlet {

std::string PinnedMemoryResource::describe() const {
  return "the pinned host memory mapped by " + detail::device_label(device().ordinal());
}

std::uint64_t PinnedMemoryResource::do_allocate(std::size_t bytes, const Stream*) {
  if (device().is_cpu()) return detail::host_allocate(bytes, describe(), MemoryKind::pinned_host);
  const detail::DeviceState& s = detail::device_state(device().ordinal());
  detail::ensure_current(s);
  void* p = nullptr;
  CUresult r = detail::driver().cuMemHostAlloc(&p, bytes, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
  if (r != CUDA_SUCCESS)
    detail::throw_cuda_error(r, "cuMemHostAlloc(" + std::to_string(bytes) + " bytes)",
                             std::to_string(bytes) + " bytes of pinned host memory were requested; "
                             "page-locked memory is limited by the host's RAM and its locked-memory "
                             "limit (ulimit -l)");
  return reinterpret_cast<std::uintptr_t>(p);
}

void PinnedMemoryResource::do_deallocate(std::uint64_t address, std::size_t, const Stream*) noexcept {
  if (device().is_cpu()) return detail::host_free_after_work(address);
  try {
    detail::ensure_current(device().ordinal());
    detail::driver().cuMemFreeHost(reinterpret_cast<void*>(static_cast<std::uintptr_t>(address)));
  } catch (...) {  // never throw from a free
  }
}

std::string ManagedMemoryResource::describe() const {
  return "the managed memory of " + detail::device_label(device().ordinal());
}

std::uint64_t ManagedMemoryResource::do_allocate(std::size_t bytes, const Stream*) {
  if (device().is_cpu()) return detail::host_allocate(bytes, describe(), MemoryKind::managed);
  const detail::DeviceState& s = detail::device_state(device().ordinal());
  detail::ensure_current(s);
  CUdeviceptr p = 0;
  CUresult r = detail::driver().cuMemAllocManaged(&p, bytes, CU_MEM_ATTACH_GLOBAL);
  if (r != CUDA_SUCCESS)
    detail::throw_allocation_error(r, "cuMemAllocManaged(" + std::to_string(bytes) + " bytes)",
                                   bytes, describe());
  return p;
}

void ManagedMemoryResource::do_deallocate(std::uint64_t address, std::size_t, const Stream*) noexcept {
  if (device().is_cpu()) return detail::host_free_after_work(address);
  try {
    detail::ensure_current(device().ordinal());
    detail::driver().cuMemFree(static_cast<CUdeviceptr>(address));
  } catch (...) {  // never throw from a free
  }
}

}  // namespace cutlet
