// A cooperative grid on the host: its blocks run by turns in rounds between grid_sync()s.
#include "host_cooperative_grid.h"

#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cutlet/error.h"
#include "host_fault_guard.h"
#include "host_thread_pool.h"

namespace cutlet::backend {

void run_cooperative_grid(const std::string& kernel, HostThreadEntry entry, void** args, const std::uint32_t (&grid)[3],
                          const std::uint32_t (&block)[3], std::size_t shared_bytes, bool checked) {
  const std::uint64_t blocks = std::uint64_t{grid[0]} * grid[1] * grid[2];
  std::vector<std::unique_ptr<HostBlockRunner>> runners(blocks);
  std::vector<std::uint8_t> done(blocks, 0);  // the block's threads have all returned

  // A round runs every block that has not returned until it returns or waits at grid_sync():
  // the host's threads take blocks from `next`; the one that settles the last block of the
  // round ends it (releases the blocks, starts the next round, or ends the launch).
  std::atomic<std::uint64_t> next{0}, settled{0};
  std::mutex mutex;
  std::condition_variable round_over;
  std::uint64_t round = 0;  // guarded by mutex
  bool finished = false;    // guarded by mutex
  std::exception_ptr failure;
  std::atomic<bool> stop{false};

  auto end_round = [&] {
    std::uint64_t waiting = 0, returned = 0, first_waiting = 0, first_returned = 0;
    for (std::uint64_t i = 0; i < blocks; ++i) {
      if (done[i]) {
        if (returned++ == 0) first_returned = i;
      } else if (waiting++ == 0) {
        first_waiting = i;
      }
    }
    if (waiting > 0 && returned > 0)
      throw Error("cutlet: kernel '" + kernel + "' on the CPU can make no progress: " + std::to_string(waiting) +
                  " blocks wait at grid_sync() (the first: " + runners[first_waiting]->name() + "), which " +
                  std::to_string(returned) + " blocks returned without reaching (the first: " +
                  runners[first_returned]->name() + "). On a GPU this hangs: every thread of the grid that has " +
                  "not returned must reach each grid_sync()");
    for (std::uint64_t i = 0; i < blocks; ++i)
      if (!done[i]) runners[i]->release_grid_sync();
    std::lock_guard lock(mutex);
    if (waiting == 0) {
      finished = true;
    } else {
      settled.store(0);
      next.store(0);
      ++round;
    }
    round_over.notify_all();
  };

  auto work = [&] {
    try {
      for (;;) {
        std::uint64_t my_round;
        {
          std::lock_guard lock(mutex);
          if (finished || stop) return;
          my_round = round;
        }
        for (std::uint64_t i = next.fetch_add(1); i < blocks; i = next.fetch_add(1)) {
          if (stop.load(std::memory_order_relaxed)) return;
          if (!done[i]) {
            if (!runners[i]) {
              runners[i] = std::make_unique<HostBlockRunner>();
              const std::uint32_t index[3] = {static_cast<std::uint32_t>(i % grid[0]),
                                              static_cast<std::uint32_t>(i / grid[0] % grid[1]),
                                              static_cast<std::uint32_t>(i / (std::uint64_t{grid[0]} * grid[1]))};
              runners[i]->start(kernel, entry, args, grid, block, index, shared_bytes, checked);
            }
            bool returned = false;
            if (const std::optional<HostFault> fault = catch_faults([&] { returned = runners[i]->resume(); })) {
              const std::string where = runners[i]->name();
              runners[i].reset();  // its fibers were dropped in the middle of the block
              HostBlockRunner::forget_dropped_block();
              throw HostKernelFault(fault_message(kernel, *fault, where), fault->illegal_address());
            }
            done[i] = returned;
          }
          if (settled.fetch_add(1) + 1 == blocks) end_round();
        }
        std::unique_lock lock(mutex);
        round_over.wait(lock, [&] { return finished || stop || round != my_round; });
      }
    } catch (...) {
      std::lock_guard lock(mutex);
      if (!failure) failure = std::current_exception();
      stop = true;
      round_over.notify_all();
    }
  };
  HostThreadPool& pool = HostThreadPool::instance();
  pool.run(static_cast<unsigned>(std::min<std::uint64_t>(blocks - 1, pool.size())), work);
  if (failure) std::rethrow_exception(failure);
}

}  // namespace cutlet::backend
