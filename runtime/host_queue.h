// Internal: the work queues of the CPU device's streams.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "cutlet/runtime/stream.h"
#include "host_graph.h"

namespace cutlet::detail {

/// The queue behind a stream of the CPU device: a thread of its own runs the stream's
/// operations (copies, fills, kernels, host functions, event records and waits) one after
/// another, in the order they were queued, as a GPU runs a stream's work. An operation that
/// throws (a kernel's failed assert_, threads that wait for each other forever) is kept and
/// rethrown by the next synchronize() or query(), as a kernel fault surfaces there on a GPU;
/// later operations still run.
class HostQueue {
 public:
  explicit HostQueue(StreamOptions options = {});
  /// Runs what is queued, then stops the thread.
  ~HostQueue();
  HostQueue(const HostQueue&) = delete;
  HostQueue& operator=(const HostQueue&) = delete;

  /// Queues `op` behind the operations queued so far; while a capture records, adds it to
  /// the graph as a node of `kind` (a copy, a fill or a host function) instead.
  void push(std::function<void()> op, HostGraphNode::Kind kind = HostGraphNode::Kind::host);
  /// Queues a kernel launch; while a capture records, adds it to the graph as a kernel node.
  void push_launch(HostLaunch launch);
  /// Queues `op`, which a capture cannot record (an event's record or wait, a stream-ordered
  /// free): while a capture records, `op` still runs in order and the capture fails, `what`
  /// saying why (as CUDA invalidates a capture that an operation breaks).
  void push_uncaptured(std::function<void()> op, const char* what);
  /// Waits until every operation queued so far has run, then rethrows the first error an
  /// operation raised since the last synchronize() or query(). Returns at once when called
  /// from an operation of this queue (which would otherwise wait for itself). While a
  /// capture records, fails it and throws CudaError (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED),
  /// as a GPU's stream does.
  void synchronize();
  /// Waits as synchronize() does, keeping any error for the stream's next synchronize().
  void wait_idle() noexcept;
  /// True when every operation queued so far has run (then rethrows as synchronize() does).
  /// Fails a capture as synchronize() does.
  bool query();

  /// Starts recording what is pushed into a new graph instead of running it. Throws CudaError
  /// (CUDA_ERROR_ILLEGAL_STATE) when the queue is recording already.
  void begin_capture();
  /// Stops recording and returns the graph. Throws CudaError when the queue was not recording
  /// (CUDA_ERROR_ILLEGAL_STATE) or an operation failed the capture
  /// (CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, saying which).
  std::unique_ptr<HostGraph> end_capture();
  /// Stops recording, if it was, and discards the graph.
  void abandon_capture() noexcept;
  /// Whether a capture records.
  bool capturing();
  /// The error kept for the stream's next synchronize() (null when none).
  std::exception_ptr pending_error();
  /// The error kept for the stream's next synchronize(), which no longer reports it (null
  /// when none).
  std::exception_ptr take_error();
  /// The options the stream was made with.
  const StreamOptions& options() const noexcept { return options_; }

 private:
  void loop();
  void rethrow_locked(std::unique_lock<std::mutex>& lock);
  /// Adds `node` to the capture's graph after the node recorded last (the lock held).
  void record_locked(HostGraphNode node);
  /// Throws, failing the capture, when one records (the lock held): for synchronize and query.
  void refuse_while_capturing_locked(const char* op);
  StreamOptions options_;
  std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::deque<std::function<void()>> ops_;
  bool running_ = false;  ///< an operation is running now
  bool stop_ = false;
  std::exception_ptr error_;
  std::unique_ptr<HostGraph> capture_;  ///< the graph a capture records into, if one does
  std::thread thread_;
};

/// The error that the queue whose operation is running on this thread keeps for its stream's
/// next synchronize() (null when none, or when called outside an operation).
std::exception_ptr running_queue_error();

/// A new queue, registered so that synchronize_host_queues() waits for it.
std::shared_ptr<HostQueue> make_host_queue(StreamOptions options);
/// The queue of `stream`, a stream of the CPU device: its own, or for the default streams
/// (the legacy and per-thread ones, a null handle) the CPU device's default queue.
HostQueue& host_queue(const Stream& stream);
/// Waits until every queue of the CPU device has run what was queued so far (the CPU
/// device's synchronize, and frees that are not stream-ordered, as cuMemFree waits for the
/// GPU). Errors stay with their queues.
void synchronize_host_queues() noexcept;
/// Device::synchronize() of the CPU device: waits as synchronize_host_queues() does, then
/// rethrows the error the first queue with one keeps (which its stream then no longer
/// reports), as cuCtxSynchronize reports a kernel fault on any stream of the context.
void synchronize_host_device();

}  // namespace cutlet::detail
