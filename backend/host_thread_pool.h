// Internal: the threads the blocks of kernels run on the host are spread over.
#pragma once

#include <functional>

namespace cutlet::backend {

/// One process-wide set of threads, one per hardware thread but the caller's, started on first
/// use and kept for the process's life, so that a launch on the host costs no thread creation.
/// Launches from several threads (several streams of the CPU device) share them.
class HostThreadPool {
 public:
  /// The pool (hardware_concurrency() - 1 threads; none on a one-core host).
  static HostThreadPool& instance();
  /// Its threads.
  unsigned size() const;
  /// Calls `fn` on the calling thread and on up to `helpers` of the pool's threads (fewer when
  /// the pool is busy with other launches: those calls may start late, or find nothing left to
  /// do), and returns when every call has returned. `fn` must share its work out itself (the
  /// block loop takes blocks from an atomic counter) and must not throw.
  void run(unsigned helpers, const std::function<void()>& fn);

 private:
  HostThreadPool();
  struct State;
  State* state_;
};

}  // namespace cutlet::backend
