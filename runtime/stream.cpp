// Creation, destruction and synchronization of CUDA streams.
#include "cutlet/runtime/stream.h"

#include <utility>

#include "device_state.h"

namespace cutlet {

Stream::Stream() : Stream(Device::current()) {}

Stream::Stream(Device device) : device_(device) {
  const detail::DeviceState& s = detail::device_state(device.ordinal());
  detail::ensure_current(s);
  CUstream stream = nullptr;
  CUresult r = detail::driver().cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
  if (r != CUDA_SUCCESS) detail::throw_cuda_error(r, "cuStreamCreate(" + s.label + ")");
  handle_ = stream;
  owning_ = true;
}

Stream::Stream(void* handle, Device device, bool owning) noexcept
    : handle_(handle), device_(device), owning_(owning) {}

Stream Stream::wrap(void* cu_stream, Device device) noexcept {
  return Stream(cu_stream, device, false);
}

Stream::Stream(Stream&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)),
      device_(other.device_),
      owning_(std::exchange(other.owning_, false)) {}

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    Stream old(std::move(*this));  // destroyed at the end of this scope
    handle_ = std::exchange(other.handle_, nullptr);
    device_ = other.device_;
    owning_ = std::exchange(other.owning_, false);
  }
  return *this;
}

Stream::~Stream() {
  if (!owning_ || !handle_) return;
  if (const detail::DriverApi* api = detail::g_driver_api.load(std::memory_order_acquire))
    api->cuStreamDestroy(static_cast<CUstream>(handle_));  // errors (e.g. at exit) ignored
}

void Stream::synchronize() const {
  const detail::DeviceState& s = detail::device_state(device_.ordinal());
  detail::ensure_current(s);  // a null handle means the current context's default stream
  CUresult r = detail::driver().cuStreamSynchronize(static_cast<CUstream>(handle_));
  if (r != CUDA_SUCCESS) detail::throw_cuda_error(r, "cuStreamSynchronize(" + s.label + ")");
}

bool Stream::query() const {
  const detail::DeviceState& s = detail::device_state(device_.ordinal());
  detail::ensure_current(s);
  CUresult r = detail::driver().cuStreamQuery(static_cast<CUstream>(handle_));
  if (r == CUDA_SUCCESS) return true;
  if (r == CUDA_ERROR_NOT_READY) return false;
  detail::throw_cuda_error(r, "cuStreamQuery(" + s.label + ")");
}

}  // namespace cutlet
