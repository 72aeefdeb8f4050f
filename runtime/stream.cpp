// Creation, release, synchronization, waits and host functions of CUDA streams.
#include "cutlet/runtime/stream.h"

#include <cstdint>
#include <cstdio>
#include <exception>
#include <utility>

#include "cutlet/runtime/event.h"
#include "device_state.h"
#include "host_queue.h"
#include "scratch_slot.h"

namespace cutlet {
namespace {

/// Destroys an owned CUstream of device `ordinal` when the last holder lets go, unless the
/// device was reset since it was made in `generation` (the reset destroyed it, and its handle
/// may name a stream of the new context). Errors (e.g. at exit) are ignored.
struct StreamDestroyer {
  int ordinal;
  std::uint64_t generation;
  void operator()(void* stream) const noexcept {
    const detail::DriverApi* api = detail::g_driver_api.load(std::memory_order_acquire);
    if (api && detail::generation_of(ordinal) == generation)
      api->cuStreamDestroy(static_cast<CUstream>(stream));
  }
};

/// Runs `fn`, reporting (not throwing) what it throws, as the driver's host functions do.
void run_reporting(std::function<void()>& fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cutlet: a host function queued with Stream::launch_host_function threw "
                         "(ignored; the stream goes on): %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "cutlet: a host function queued with Stream::launch_host_function threw "
                         "a non-standard exception (ignored; the stream goes on)\n");
  }
}

/// The trampoline cuLaunchHostFunc calls: runs and deletes the std::function.
void CUDA_CB run_host_function(void* data) {
  std::unique_ptr<std::function<void()>> fn(static_cast<std::function<void()>*>(data));
  run_reporting(*fn);
}

}  // namespace

Stream::Stream() : Stream(Device::current()) {}

Stream::Stream(Device device) : Stream(device, StreamOptions{}) {}

Stream::Stream(Device device, StreamOptions options) : device_(device) {
  if (device.is_cpu()) {
    // A queue with a thread of its own runs the stream's work (host_queue.h). The CPU device
    // has one priority (its range is 0..0), into which the priority is clamped, as the driver
    // clamps it into a GPU's range.
    options.priority = 0;
    std::shared_ptr<detail::HostQueue> queue = detail::make_host_queue(options);
    handle_ = queue.get();
    owning_ = true;
    keep_ = std::move(queue);
    scratch_ = std::make_shared<detail::ScratchSlot>();
    return;
  }
  const detail::DeviceState& s = detail::device_state(device.ordinal());
  detail::ensure_current(s);
  CUstream stream = nullptr;
  const unsigned flags = options.non_blocking ? CU_STREAM_NON_BLOCKING : CU_STREAM_DEFAULT;
  CUresult r = options.priority == 0
                   ? detail::driver().cuStreamCreate(&stream, flags)
                   : detail::driver().cuStreamCreateWithPriority(&stream, flags, options.priority);
  if (r != CUDA_SUCCESS) detail::throw_cuda_error(r, "cuStreamCreate(" + s.label + ")");
  handle_ = stream;
  owning_ = true;
  keep_ = std::shared_ptr<void>(stream, StreamDestroyer{device.ordinal(), s.generation.load(std::memory_order_acquire)});
  scratch_ = std::make_shared<detail::ScratchSlot>();
}

Stream::Stream(void* handle, Device device, bool owning) noexcept
    : handle_(handle), device_(device), owning_(owning) {}

Stream Stream::wrap(void* cu_stream, Device device) noexcept {
  return Stream(cu_stream, device, false);
}

Stream Stream::legacy_default(Device device) noexcept {
  return Stream(CU_STREAM_LEGACY, device, false);
}

Stream Stream::per_thread_default(Device device) noexcept {
  return Stream(CU_STREAM_PER_THREAD, device, false);
}

StreamPriorityRange Stream::priority_range(Device device) {
  if (device.is_cpu()) return {};
  const detail::DeviceState& s = detail::device_state(device.ordinal());
  detail::ensure_current(s);
  StreamPriorityRange range;
  CUresult r = detail::driver().cuCtxGetStreamPriorityRange(&range.least, &range.greatest);
  if (r != CUDA_SUCCESS) detail::throw_cuda_error(r, "cuCtxGetStreamPriorityRange(" + s.label + ")");
  return range;
}

Stream Stream::share() const noexcept {
  Stream s(handle_, device_, false);
  s.green_ = green_;
  s.context_ = context_;
  s.keep_ = keep_;
  return s;
}

Stream::Stream(Stream&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)),
      device_(other.device_),
      owning_(std::exchange(other.owning_, false)),
      green_(std::exchange(other.green_, nullptr)),
      context_(std::exchange(other.context_, nullptr)),
      keep_(std::move(other.keep_)),
      scratch_(std::move(other.scratch_)) {}

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    Stream old(std::move(*this));  // released at the end of this scope
    handle_ = std::exchange(other.handle_, nullptr);
    device_ = other.device_;
    owning_ = std::exchange(other.owning_, false);
    green_ = std::exchange(other.green_, nullptr);
    context_ = std::exchange(other.context_, nullptr);
    keep_ = std::move(other.keep_);
    scratch_ = std::move(other.scratch_);
  }
  return *this;
}

// scratch_ goes first (members are destroyed in reverse order): its kept block is freed on the
// stream, which its DeviceMemory keeps alive; keep_ destroys an owned stream once its last
// holder is gone.
Stream::~Stream() = default;

void* Stream::context() const {
  if (device_.is_cpu()) return nullptr;
  return detail::StreamAccess::context(*this, detail::device_state(device_.ordinal()));
}

void Stream::synchronize() const {
  if (device_.is_cpu()) return detail::host_queue(*this).synchronize();
  const detail::DeviceState& s = detail::device_state(device_.ordinal());
  detail::ensure_current(s, *this);  // a null handle means the current context's default stream
  CUresult r = detail::driver().cuStreamSynchronize(static_cast<CUstream>(handle_));
  if (r != CUDA_SUCCESS)
    detail::throw_stream_error(s, static_cast<CUstream>(handle_), green_ != nullptr, r,
                               "cuStreamSynchronize(" + s.label + ")");
}

bool Stream::query() const {
  if (device_.is_cpu()) return detail::host_queue(*this).query();
  const detail::DeviceState& s = detail::device_state(device_.ordinal());
  detail::ensure_current(s, *this);
  CUresult r = detail::driver().cuStreamQuery(static_cast<CUstream>(handle_));
  if (r == CUDA_SUCCESS) return true;
  if (r == CUDA_ERROR_NOT_READY) return false;
  detail::throw_stream_error(s, static_cast<CUstream>(handle_), green_ != nullptr, r,
                             "cuStreamQuery(" + s.label + ")");
}

void Stream::wait(const Event& event) const {
  if (!event.handle()) throw Error("Stream::wait: the event is empty (moved from)");
  if (device_.is_cpu() || event.device().is_cpu()) {
    if (!event.device().is_cpu()) {
      event.synchronize();  // a GPU's event: waited for here, before queueing more
      return;
    }
    std::shared_ptr<detail::HostEvent> e = detail::host_event(event.handle());
    const std::uint64_t seq = e->last_record();
    if (device_.is_cpu()) {
      detail::host_queue(*this).push_uncaptured([e, seq] { e->wait(seq); }, "a wait for an event");
    } else {
      e->wait(seq);  // a GPU stream waits for the CPU device's work: the host waits here
    }
    return;
  }
  const detail::DeviceState& s = detail::device_state(device_.ordinal());
  detail::ensure_current(s, *this);
  CUresult r = detail::driver().cuStreamWaitEvent(static_cast<CUstream>(handle_),
                                                  static_cast<CUevent>(event.handle()), 0);
  if (r != CUDA_SUCCESS)
    detail::throw_stream_error(s, static_cast<CUstream>(handle_), green_ != nullptr, r,
                               "cuStreamWaitEvent(" + s.label + ")");
}

void Stream::wait(const Stream& other) const {
  Event marker(other.device(), false);
  marker.record(other);
  wait(marker);  // the driver keeps the recorded state alive after the event is destroyed
}

void Stream::launch_host_function(std::function<void()> fn) const {
  if (!fn) throw Error("Stream::launch_host_function: empty std::function");
  if (device_.is_cpu()) {
    detail::host_queue(*this).push([fn = std::move(fn)]() mutable { run_reporting(fn); });
    return;
  }
  const detail::DeviceState& s = detail::device_state(device_.ordinal());
  detail::ensure_current(s, *this);
  auto* data = new std::function<void()>(std::move(fn));
  CUresult r = detail::driver().cuLaunchHostFunc(static_cast<CUstream>(handle_), run_host_function, data);
  if (r != CUDA_SUCCESS) {
    delete data;
    detail::throw_cuda_error(r, "cuLaunchHostFunc(" + s.label + ")");
  }
}

int Stream::priority() const {
  if (device_.is_cpu()) return detail::host_queue(*this).options().priority;
  const detail::DeviceState& s = detail::device_state(device_.ordinal());
  detail::ensure_current(s, *this);
  int p = 0;
  CUresult r = detail::driver().cuStreamGetPriority(static_cast<CUstream>(handle_), &p);
  if (r != CUDA_SUCCESS) detail::throw_cuda_error(r, "cuStreamGetPriority(" + s.label + ")");
  return p;
}

bool Stream::non_blocking() const {
  if (device_.is_cpu()) return handle_ == CU_STREAM_PER_THREAD ? false : detail::host_queue(*this).options().non_blocking;
  const detail::DeviceState& s = detail::device_state(device_.ordinal());
  detail::ensure_current(s, *this);
  unsigned flags = 0;
  CUresult r = detail::driver().cuStreamGetFlags(static_cast<CUstream>(handle_), &flags);
  if (r != CUDA_SUCCESS) detail::throw_cuda_error(r, "cuStreamGetFlags(" + s.label + ")");
  return (flags & CU_STREAM_NON_BLOCKING) != 0;
}

}  // namespace cutlet
