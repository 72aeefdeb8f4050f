// Creation, recording, waiting on and timing of CUDA events.
#include "cutlet/runtime/event.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "cutlet/runtime/cuda_error.h"
#include "cutlet/runtime/stream.h"
#include "device_state.h"
#include "host_queue.h"

namespace cutlet {

Event::Event(Device device, bool timing) : device_(device) {
  if (device.is_cpu()) {
    auto e = std::make_shared<detail::HostEvent>();
    e->timing = timing;
    handle_ = new std::shared_ptr<detail::HostEvent>(std::move(e));
    return;
  }
  const detail::DeviceState& s = detail::device_state(device.ordinal());
  detail::ensure_current(s);
  CUevent ev = nullptr;
  CUresult r =
      detail::driver().cuEventCreate(&ev, timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING);
  if (r != CUDA_SUCCESS) detail::throw_cuda_error(r, "cuEventCreate(" + s.label + ")");
  handle_ = ev;
  generation_ = s.generation.load(std::memory_order_acquire);
}

Event::Event(Event&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)),
      device_(other.device_),
      stream_(other.stream_),
      green_(other.green_),
      generation_(other.generation_) {}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    Event old(std::move(*this));
    handle_ = std::exchange(other.handle_, nullptr);
    device_ = other.device_;
    stream_ = other.stream_;
    green_ = other.green_;
    generation_ = other.generation_;
  }
  return *this;
}

Event::~Event() {
  if (!handle_) return;
  if (device_.is_cpu()) {
    delete static_cast<std::shared_ptr<detail::HostEvent>*>(handle_);
    return;
  }
  // An event of a context that Device::reset destroyed is gone already.
  if (const detail::DriverApi* api = detail::g_driver_api.load(std::memory_order_acquire))
    if (detail::generation_of(device_.ordinal()) == generation_)
      api->cuEventDestroy(static_cast<CUevent>(handle_));  // errors (e.g. at exit) ignored
}

void Event::fail(int result, const char* call) const {
  const detail::DeviceState& s = detail::device_state(device_.ordinal());
  detail::throw_stream_error(s, static_cast<CUstream>(stream_), green_, static_cast<CUresult>(result),
                             std::string(call) + "(" + s.label + ")");
}

void* Event::require(const char* op) const {
  if (!handle_) throw Error(std::string("Event::") + op + " on an empty (moved-from) Event");
  return handle_;
}

void Event::record(const Stream& stream) {
  auto ev = static_cast<CUevent>(require("record"));
  if (stream.device() != device_)
    throw Error("Event::record: the event belongs to " + detail::device_label(device_.ordinal()) +
                " but the stream to " + detail::device_label(stream.device().ordinal()) +
                "; create the event on the stream's device");
  if (device_.is_cpu()) {
    // Complete once the stream's queue reaches this record.
    std::shared_ptr<detail::HostEvent> e = detail::host_event(handle_);
    std::uint64_t seq;
    {
      std::lock_guard lock(e->mutex);
      seq = ++e->recorded;
    }
    detail::host_queue(stream).push_uncaptured([e, seq] { e->complete(seq, detail::running_queue_error()); },
                                                "an event record");
    return;
  }
  const detail::DeviceState& s = detail::device_state(device_.ordinal());
  detail::ensure_current(s, stream);
  CUresult r = detail::driver().cuEventRecord(ev, static_cast<CUstream>(stream.handle()));
  stream_ = stream.handle();
  green_ = stream.green_context() != nullptr;
  if (r != CUDA_SUCCESS) fail(r, "cuEventRecord");
}

void Event::synchronize() const {
  auto ev = static_cast<CUevent>(require("synchronize"));
  if (device_.is_cpu()) {
    const std::shared_ptr<detail::HostEvent>& e = detail::host_event(handle_);
    e->wait(e->last_record());
    std::lock_guard lock(e->mutex);
    if (e->failed) std::rethrow_exception(e->failed);
    return;
  }
  if (!green_) detail::check_usable(detail::device_state(device_.ordinal()));
  CUresult r = detail::driver().cuEventSynchronize(ev);
  if (r != CUDA_SUCCESS) fail(r, "cuEventSynchronize");
}

bool Event::query() const {
  auto ev = static_cast<CUevent>(require("query"));
  if (device_.is_cpu()) {
    std::shared_ptr<detail::HostEvent> e = detail::host_event(handle_);
    std::lock_guard lock(e->mutex);
    if (e->completed < e->recorded) return false;
    if (e->failed) std::rethrow_exception(e->failed);
    return true;
  }
  if (!green_) detail::check_usable(detail::device_state(device_.ordinal()));
  CUresult r = detail::driver().cuEventQuery(ev);
  if (r == CUDA_SUCCESS) return true;
  if (r == CUDA_ERROR_NOT_READY) return false;
  fail(r, "cuEventQuery");
}

bool Event::synchronize_for(std::chrono::nanoseconds timeout) const {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + timeout;
  // Polled without sleeping for the first 200 us (a sleep lasts ~50 us at the least), so that
  // a kernel of microseconds is seen at once; then sleeps doubling up to 1 ms.
  const auto spin_until = Clock::now() + std::chrono::microseconds(200);
  auto pause = std::chrono::microseconds(5);
  for (;;) {
    if (query()) return true;
    const auto now = Clock::now();
    if (now >= deadline) return false;
    if (now < spin_until) continue;
    std::this_thread::sleep_for(std::min<Clock::duration>(pause, deadline - now));
    pause = std::min<std::chrono::microseconds>(pause * 2, std::chrono::milliseconds(1));
  }
}

float Event::elapsed_ms(const Event& start, const Event& end) {
  auto a = static_cast<CUevent>(start.require("elapsed_ms"));
  auto b = static_cast<CUevent>(end.require("elapsed_ms"));
  if (start.device_.is_cpu() || end.device_.is_cpu()) {
    if (start.device_ != end.device_)
      throw Error("Event::elapsed_ms: one event is of the CPU device and the other of a GPU; time both on one device");
    // The driver's codes for the same mistakes, so that programs catching them behave alike.
    auto fail = [](int code, const char* name, const char* what) {
      throw CudaError(code, "cuEventElapsedTime (the CPU device)", name, std::string("Event::elapsed_ms: ") + what);
    };
    std::shared_ptr<detail::HostEvent> x = detail::host_event(start.handle_), y = detail::host_event(end.handle_);
    if (!x->timing || !y->timing)
      fail(CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "both events must be timing events (timing = true)");
    std::scoped_lock lock(x->mutex, y->mutex);
    if (x->recorded == 0 || y->recorded == 0)
      fail(CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "both events must be recorded before they are timed");
    if (x->completed < x->recorded || y->completed < y->recorded)
      fail(CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "an event has not completed yet: synchronize the end event first");
    return std::chrono::duration<float, std::milli>(y->when - x->when).count();
  }
  float ms = 0;
  CUresult r = detail::driver().cuEventElapsedTime(&ms, a, b);
  if (r != CUDA_SUCCESS) {
    std::string hint;
    if (r == CUDA_ERROR_NOT_READY)
      hint = "an event has not completed yet: synchronize the end event first";
    else if (r == CUDA_ERROR_INVALID_HANDLE)
      hint = "both events must be timing events (timing = true) of one device, and both recorded";
    detail::throw_cuda_error(r, "cuEventElapsedTime", hint);
  }
  return ms;
}

}  // namespace cutlet
