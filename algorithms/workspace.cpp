// Temporary storage of the algorithms (workspace.h).
#include "cutlet/algorithms/workspace.h"

#include <string>
#include <utility>

#include "cutlet/error.h"

namespace cutlet::algorithms {

Workspace Workspace::from(std::shared_ptr<MemoryResource> resource) {
  if (!resource) throw Error("cutlet::algorithms::Workspace::from: the memory resource is null");
  Workspace w;
  w.resource_ = std::move(resource);
  return w;
}

Workspace Workspace::borrow(const DeviceMemory& memory) {
  if (memory.empty()) throw Error("cutlet::algorithms::Workspace::borrow: the memory is empty");
  Workspace w;
  w.address_ = memory.address();
  w.bytes_ = memory.bytes();
  w.device_ = memory.device().ordinal();
  return w;
}

namespace detail {

Scratch::Scratch(StreamScratch lease) noexcept : lease_(std::move(lease)) { address_ = lease_.address(); }

Scratch::Scratch(DeviceMemory owned) noexcept : owned_(std::move(owned)) { address_ = owned_.address(); }

Scratch acquire(const Workspace& workspace, const Stream& stream, std::size_t bytes, const char* algorithm) {
  if (workspace.borrowed()) {
    if (workspace.device_ordinal() != stream.device().ordinal())
      throw Error(std::string("cutlet::algorithms::") + algorithm + ": the workspace is memory of device " +
                  std::to_string(workspace.device_ordinal()) + " but the stream is of device " +
                  std::to_string(stream.device().ordinal()));
    if (workspace.bytes() < bytes)
      throw Error(std::string("cutlet::algorithms::") + algorithm + ": the workspace holds " +
                  std::to_string(workspace.bytes()) + " bytes but this call needs " + std::to_string(bytes));
    return Scratch(workspace.address());
  }
  if (workspace.resource()) return Scratch(DeviceMemory(bytes, stream, workspace.resource()));
  return Scratch(StreamScratch(bytes, stream));
}

void zero_bytes(const Stream& stream, std::uint64_t address, std::size_t bytes) {
  DeviceMemory::wrap(address, bytes, stream.device()).fill_bytes(stream, 0);
}

void copy_bytes(const Stream& stream, std::uint64_t dst, std::uint64_t src, std::size_t bytes) {
  DeviceMemory::wrap(dst, bytes, stream.device()).copy_from(stream, DeviceMemory::wrap(src, bytes, stream.device()), bytes);
}

}  // namespace detail
}  // namespace cutlet::algorithms
