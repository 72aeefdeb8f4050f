// The work queues of the CPU device's streams: one thread per stream running its operations
// in order.
#include "host_queue.h"

#include <string>
#include <utility>
#include <vector>

#include "cutlet/runtime/cuda_error.h"
#include "driver_api.h"

namespace cutlet::detail {
namespace {

/// The queue whose thread this is, if any (so that an operation never waits for its own queue).
thread_local const HostQueue* t_running_queue = nullptr;

struct Registry {
  std::mutex mutex;
  std::vector<std::weak_ptr<HostQueue>> queues;
};

Registry& registry() {
  static auto* r = new Registry;  // never destroyed: queues may outlive static destruction
  return *r;
}

/// Special handles of the default streams (CU_STREAM_LEGACY, CU_STREAM_PER_THREAD).
bool is_default_handle(void* handle) {
  const auto h = reinterpret_cast<std::uintptr_t>(handle);
  return h == 0 || h == 0x1 || h == 0x2;
}

}  // namespace

HostQueue::HostQueue(StreamOptions options) : options_(options), thread_([this] { loop(); }) {}

HostQueue::~HostQueue() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void HostQueue::push(std::function<void()> op, HostGraphNode::Kind kind) {
  {
    std::lock_guard lock(mutex_);
    if (capture_) {
      HostGraphNode node;
      node.kind = kind;
      node.work = std::move(op);
      return record_locked(std::move(node));
    }
    ops_.push_back(std::move(op));
  }
  wake_.notify_one();
}

void HostQueue::push_launch(HostLaunch launch) {
  {
    std::lock_guard lock(mutex_);
    if (capture_) {
      HostGraphNode node;
      node.kind = HostGraphNode::Kind::kernel;
      node.launch.emplace(std::move(launch));
      return record_locked(std::move(node));
    }
    ops_.push_back([launch = std::move(launch)] { launch.run(); });
  }
  wake_.notify_one();
}

void HostQueue::record_locked(HostGraphNode node) {
  std::vector<const HostGraphNode*> after;
  if (capture_->tail) after.push_back(capture_->tail);
  capture_->tail = capture_->add(std::move(node), std::move(after));
}

void HostQueue::push_uncaptured(std::function<void()> op, const char* what) {
  {
    std::lock_guard lock(mutex_);
    if (capture_ && capture_->invalid.empty()) capture_->invalid = what;
    ops_.push_back(std::move(op));
  }
  wake_.notify_one();
}

void HostQueue::refuse_while_capturing_locked(const char* op) {
  if (!capture_) return;
  if (capture_->invalid.empty()) capture_->invalid = std::string(op) + " of the stream during the capture";
  throw CudaError(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, std::string(op) + " of a stream of the CPU device",
                  "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
                  "the stream is being captured into a graph, so its work has not run; end the capture "
                  "(Graph::end_capture), launch the graph, then synchronize");
}

void HostQueue::begin_capture() {
  std::lock_guard lock(mutex_);
  if (capture_)
    throw CudaError(CUDA_ERROR_ILLEGAL_STATE, "cuStreamBeginCapture(the CPU device)", "CUDA_ERROR_ILLEGAL_STATE",
                    "the stream is already being captured");
  capture_ = std::make_unique<HostGraph>();
}

std::unique_ptr<HostGraph> HostQueue::end_capture() {
  std::unique_ptr<HostGraph> graph;
  {
    std::lock_guard lock(mutex_);
    graph = std::move(capture_);
  }
  if (!graph)
    throw CudaError(CUDA_ERROR_ILLEGAL_STATE, "cuStreamEndCapture(the CPU device)", "CUDA_ERROR_ILLEGAL_STATE",
                    "the stream was not being captured");
  if (!graph->invalid.empty())
    throw CudaError(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "cuStreamEndCapture(the CPU device)",
                    "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
                    "an operation during the capture could not be captured and invalidated it: " + graph->invalid);
  graph->tail = nullptr;
  return graph;
}

void HostQueue::abandon_capture() noexcept {
  std::unique_ptr<HostGraph> graph;
  std::lock_guard lock(mutex_);
  graph = std::move(capture_);
}

std::exception_ptr HostQueue::pending_error() {
  std::lock_guard lock(mutex_);
  return error_;
}

std::exception_ptr HostQueue::take_error() {
  std::lock_guard lock(mutex_);
  return std::exchange(error_, nullptr);
}

std::exception_ptr running_queue_error() {
  return t_running_queue ? const_cast<HostQueue*>(t_running_queue)->pending_error() : nullptr;
}

bool HostQueue::capturing() {
  std::lock_guard lock(mutex_);
  return capture_ != nullptr;
}

void HostQueue::loop() {
  t_running_queue = this;
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stop_ || !ops_.empty(); });
    if (ops_.empty()) return;  // stopping, and everything ran
    std::function<void()> op = std::move(ops_.front());
    ops_.pop_front();
    running_ = true;
    lock.unlock();
    std::exception_ptr failed;
    try {
      op();
    } catch (...) {
      failed = std::current_exception();
    }
    op = nullptr;  // what it captured goes before the queue counts as idle
    lock.lock();
    running_ = false;
    if (failed && !error_) error_ = failed;
    if (ops_.empty()) idle_.notify_all();
  }
}

void HostQueue::rethrow_locked(std::unique_lock<std::mutex>& lock) {
  if (!error_) return;
  std::exception_ptr e = std::exchange(error_, nullptr);
  lock.unlock();
  std::rethrow_exception(e);
}

void HostQueue::synchronize() {
  if (t_running_queue == this) return;
  std::unique_lock lock(mutex_);
  refuse_while_capturing_locked("a synchronization");
  idle_.wait(lock, [&] { return ops_.empty() && !running_; });
  rethrow_locked(lock);
}

void HostQueue::wait_idle() noexcept {
  if (t_running_queue == this) return;
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [&] { return ops_.empty() && !running_; });
}

bool HostQueue::query() {
  std::unique_lock lock(mutex_);
  refuse_while_capturing_locked("a query");
  if (!ops_.empty() || running_) return false;
  rethrow_locked(lock);
  return true;
}

std::shared_ptr<HostQueue> make_host_queue(StreamOptions options) {
  auto q = std::make_shared<HostQueue>(options);
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::erase_if(r.queues, [](const std::weak_ptr<HostQueue>& w) { return w.expired(); });
  r.queues.push_back(q);
  return q;
}

HostQueue& host_queue(const Stream& stream) {
  if (!is_default_handle(stream.handle())) return *static_cast<HostQueue*>(stream.handle());
  // Never destroyed, as the GPUs' default streams live as long as the process.
  static auto* default_queue = new std::shared_ptr<HostQueue>(make_host_queue(StreamOptions{.non_blocking = false}));
  return **default_queue;
}

namespace {

std::vector<std::shared_ptr<HostQueue>> live_queues() {
  std::vector<std::shared_ptr<HostQueue>> live;
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const auto& w : r.queues)
    if (auto q = w.lock()) live.push_back(std::move(q));
  return live;
}

}  // namespace

void synchronize_host_queues() noexcept {
  for (const auto& q : live_queues()) q->wait_idle();  // errors stay for their streams
}

void synchronize_host_device() {
  const std::vector<std::shared_ptr<HostQueue>> live = live_queues();
  for (const auto& q : live) q->wait_idle();
  for (const auto& q : live)
    if (std::exception_ptr error = q->take_error()) std::rethrow_exception(error);
}

}  // namespace cutlet::detail
