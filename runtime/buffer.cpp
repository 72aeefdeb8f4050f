// Allocation, release, copies and fills of device memory.
#include "cutlet/runtime/buffer.h"

#include <string>
#include <utility>

#include "device_state.h"

namespace cutlet {
namespace {

std::string describe(const DeviceMemory& m) {
  return m.empty() ? std::string("empty device memory (0 bytes)")
                   : std::to_string(m.bytes()) + "-byte device memory";
}

/// Throws unless [offset, offset + bytes) lies within `m`.
void check_range(const char* op, const DeviceMemory& m, std::size_t bytes, std::size_t offset) {
  if (offset > m.bytes() || bytes > m.bytes() - offset)
    throw Error(std::string("DeviceMemory::") + op + ": " + std::to_string(bytes) +
                " bytes at offset " + std::to_string(offset) + " do not fit in the " + describe(m) +
                "; copy at most " + std::to_string(offset > m.bytes() ? 0 : m.bytes() - offset) +
                " bytes there");
}

void check_stream(const char* op, const DeviceMemory& m, const Stream& stream) {
  if (stream.device() != m.device())
    throw Error(std::string("DeviceMemory::") + op + ": the memory is on " +
                detail::device_label(m.device().ordinal()) + " but the stream on " +
                detail::device_label(stream.device().ordinal()) +
                "; use a stream of the memory's device");
}

}  // namespace

namespace detail {

void throw_buffer_size_error(const char* op, std::size_t wanted, std::size_t available,
                             std::size_t element_size) {
  throw Error(std::string(op) + ": " + std::to_string(wanted) + " elements (" +
              std::to_string(wanted * element_size) + " bytes) do not fit in a buffer of " +
              std::to_string(available) + " elements (" + std::to_string(available * element_size) +
              " bytes)");
}

void throw_buffer_overflow(std::size_t n, std::size_t element_size) {
  throw Error("Buffer: " + std::to_string(n) + " elements of " + std::to_string(element_size) +
              " bytes overflow the size of an address space");
}

}  // namespace detail

DeviceMemory::DeviceMemory(std::size_t bytes, Device device) : device_(device) {
  if (bytes == 0) return;
  const detail::DeviceState& s = detail::device_state(device.ordinal());
  detail::ensure_current(s);
  const detail::DriverApi& api = detail::driver();
  CUdeviceptr ptr = 0;
  CUresult r = api.cuMemAlloc(&ptr, bytes);
  if (r != CUDA_SUCCESS) {
    std::size_t free_bytes = 0, total_bytes = 0;
    std::string free_text = "an unknown number of bytes are free";
    if (api.cuMemGetInfo(&free_bytes, &total_bytes) == CUDA_SUCCESS)
      free_text =
          std::to_string(free_bytes) + " of " + std::to_string(total_bytes) + " bytes are free";
    detail::throw_cuda_error(
        r, "cuMemAlloc(" + std::to_string(bytes) + " bytes)",
        std::to_string(bytes) + " bytes were requested on " + s.label + ", where " + free_text);
  }
  address_ = ptr;
  bytes_ = bytes;
  owning_ = true;
}

DeviceMemory DeviceMemory::wrap(std::uint64_t address, std::size_t bytes, Device device) {
  if (address == 0 && bytes != 0)
    throw Error("DeviceMemory::wrap: null device address given with " + std::to_string(bytes) +
                " bytes; wrap a valid allocation, or 0 bytes for empty memory");
  DeviceMemory m;
  m.address_ = address;
  m.bytes_ = address == 0 ? 0 : bytes;
  m.device_ = device;
  return m;
}

DeviceMemory::DeviceMemory(DeviceMemory&& other) noexcept
    : address_(std::exchange(other.address_, 0)),
      bytes_(std::exchange(other.bytes_, 0)),
      device_(other.device_),
      owning_(std::exchange(other.owning_, false)) {}

DeviceMemory& DeviceMemory::operator=(DeviceMemory&& other) noexcept {
  if (this != &other) {
    DeviceMemory old(std::move(*this));
    address_ = std::exchange(other.address_, 0);
    bytes_ = std::exchange(other.bytes_, 0);
    device_ = other.device_;
    owning_ = std::exchange(other.owning_, false);
  }
  return *this;
}

DeviceMemory::~DeviceMemory() {
  if (!owning_ || address_ == 0) return;
  try {
    detail::ensure_current(device_.ordinal());
    detail::driver().cuMemFree(static_cast<CUdeviceptr>(address_));
  } catch (...) {  // never throw from a destructor; the driver may already be shut down
  }
}

void DeviceMemory::copy_from_host(const Stream& stream, const void* src, std::size_t bytes,
                                  std::size_t offset) {
  check_range("copy_from_host", *this, bytes, offset);
  if (bytes == 0) return;
  if (!src) throw Error("DeviceMemory::copy_from_host: null host source pointer");
  check_stream("copy_from_host", *this, stream);
  detail::ensure_current(device_.ordinal());
  CUresult r = detail::driver().cuMemcpyHtoDAsync(static_cast<CUdeviceptr>(address_ + offset), src,
                                                  bytes, static_cast<CUstream>(stream.handle()));
  if (r != CUDA_SUCCESS)
    detail::throw_cuda_error(r, "cuMemcpyHtoDAsync(" + std::to_string(bytes) + " bytes)");
}

void DeviceMemory::copy_to_host(const Stream& stream, void* dst, std::size_t bytes,
                                std::size_t offset) const {
  check_range("copy_to_host", *this, bytes, offset);
  if (bytes == 0) return;
  if (!dst) throw Error("DeviceMemory::copy_to_host: null host destination pointer");
  check_stream("copy_to_host", *this, stream);
  detail::ensure_current(device_.ordinal());
  CUresult r = detail::driver().cuMemcpyDtoHAsync(dst, static_cast<CUdeviceptr>(address_ + offset),
                                                  bytes, static_cast<CUstream>(stream.handle()));
  if (r != CUDA_SUCCESS)
    detail::throw_cuda_error(r, "cuMemcpyDtoHAsync(" + std::to_string(bytes) + " bytes)");
}

void DeviceMemory::copy_from(const Stream& stream, const DeviceMemory& src, std::size_t bytes) {
  if (bytes > src.bytes_ || bytes > bytes_)
    throw Error("DeviceMemory::copy_from: cannot copy " + std::to_string(bytes) +
                " bytes from a source of " + std::to_string(src.bytes_) +
                " bytes into a destination of " + std::to_string(bytes_) + " bytes");
  if (bytes == 0) return;
  if (src.address_ < address_ + bytes && address_ < src.address_ + bytes)
    throw Error("DeviceMemory::copy_from: source and destination overlap");
  check_stream("copy_from", *this, stream);
  detail::ensure_current(device_.ordinal());
  CUresult r = detail::driver().cuMemcpyDtoDAsync(static_cast<CUdeviceptr>(address_),
                                                  static_cast<CUdeviceptr>(src.address_), bytes,
                                                  static_cast<CUstream>(stream.handle()));
  if (r != CUDA_SUCCESS)
    detail::throw_cuda_error(r, "cuMemcpyDtoDAsync(" + std::to_string(bytes) + " bytes)");
}

void DeviceMemory::fill_bytes(const Stream& stream, unsigned char value) {
  if (bytes_ == 0) return;
  check_stream("fill_bytes", *this, stream);
  detail::ensure_current(device_.ordinal());
  CUresult r = detail::driver().cuMemsetD8Async(static_cast<CUdeviceptr>(address_), value, bytes_,
                                                static_cast<CUstream>(stream.handle()));
  if (r != CUDA_SUCCESS)
    detail::throw_cuda_error(r, "cuMemsetD8Async(" + std::to_string(bytes_) + " bytes)");
}

}  // namespace cutlet
