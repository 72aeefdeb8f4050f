// The host's threads for the blocks of kernels run on the CPU.
#include "host_thread_pool.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace cutlet::backend {
namespace {

/// One run(): its function and the helper calls still to return.
struct Job {
  const std::function<void()>* fn;
  unsigned remaining;
  std::mutex mutex;
  std::condition_variable done;
};

}  // namespace

struct HostThreadPool::State {
  std::mutex mutex;
  std::condition_variable wake;
  std::deque<Job*> calls;  ///< one entry per helper call asked for
  std::vector<std::thread> threads;
};

HostThreadPool::HostThreadPool() : state_(new State) {
  const unsigned n = std::max(1u, std::thread::hardware_concurrency()) - 1;
  for (unsigned i = 0; i < n; ++i)
    state_->threads.emplace_back([s = state_] {
      std::unique_lock lock(s->mutex);
      for (;;) {
        s->wake.wait(lock, [&] { return !s->calls.empty(); });
        Job* job = s->calls.front();
        s->calls.pop_front();
        lock.unlock();
        (*job->fn)();
        {
          std::lock_guard job_lock(job->mutex);
          if (--job->remaining == 0) job->done.notify_all();
        }
        lock.lock();
      }
    });
  for (auto& t : state_->threads) t.detach();  // they live as long as the process
}

HostThreadPool& HostThreadPool::instance() {
  static auto* pool = new HostThreadPool;  // never destroyed: its threads never end
  return *pool;
}

unsigned HostThreadPool::size() const { return static_cast<unsigned>(state_->threads.size()); }

void HostThreadPool::run(unsigned helpers, const std::function<void()>& fn) {
  helpers = std::min(helpers, size());
  Job job{&fn, helpers, {}, {}};
  if (helpers > 0) {
    {
      std::lock_guard lock(state_->mutex);
      for (unsigned i = 0; i < helpers; ++i) state_->calls.push_back(&job);
    }
    state_->wake.notify_all();
  }
  fn();
  std::unique_lock lock(job.mutex);
  job.done.wait(lock, [&] { return job.remaining == 0; });
}

}  // namespace cutlet::backend
