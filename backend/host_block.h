// The GPU's execution model for one block of a kernel run on the host CPU: its threads, their
// special registers, its shared memory, and the points where threads wait for each other
// (barriers, warp operations), behind the cutlet_host_* functions host-lowered kernels call.
//
// Most kernels run a block in phases (host_phases.h). Those that phases cannot express (warp
// operations over part of a warp, grid_sync) run each thread as a fiber (a stack of its own, switched
// with Boost.Context's fcontext):
// a thread runs until it reaches a barrier or a warp operation, then the next thread runs; a
// barrier completes when every thread of the block that has not exited has arrived, a warp
// operation when every lane of its mask has. Threads never run concurrently within a block,
// so shared memory needs no locks; blocks run on several host threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cutlet::backend {

/// The special registers of one thread, as host-lowered kernels read them: i32 words in
/// ir::SpecialReg's order (threadIdx x y z, blockDim x y z, blockIdx x y z, gridDim x y z,
/// lane).
inline constexpr int kHostThreadStateWords = 13;

/// The warp collectives of cutlet_host_warp: the four shuffles in ir::ShuffleKind's order
/// (their arg the source lane, delta or lane mask), the votes, match and redux (signed and
/// unsigned minima and maxima apart).
enum class HostWarpOp : std::uint32_t {
  ShuffleIdx, ShuffleUp, ShuffleDown, ShuffleXor,
  VoteAll, VoteAny, VoteBallot,
  MatchAny, MatchAll,
  ReduxAdd, ReduxMinSigned, ReduxMinUnsigned, ReduxMaxSigned, ReduxMaxUnsigned, ReduxAnd, ReduxOr, ReduxXor,
};

/// Runs one thread of a block: `thread` is its state (kHostThreadStateWords words).
using HostThreadEntry = void (*)(void** args, std::uint32_t* thread);

/// Runs the threads of blocks as fibers, one block at a time, on the calling host thread.
/// Keeps its fibers' stacks between blocks. Not thread-safe: one per host thread.
class HostBlockRunner {
 public:
  HostBlockRunner();
  ~HostBlockRunner();
  HostBlockRunner(const HostBlockRunner&) = delete;
  HostBlockRunner& operator=(const HostBlockRunner&) = delete;

  /// Runs every thread of block `block_index` (x, y, z) of a launch of `kernel` (name, for
  /// messages) over `grid` blocks of `block` threads, with `shared_bytes` of shared memory,
  /// until all have returned. Throws cutlet::Error when the threads can no longer make
  /// progress (some wait at a barrier or warp operation the others never reach), naming
  /// where each waits, or when a thread's assert_ failed.
  /// `checked`: the kernel's accesses are checked (host_check.h); the block starts the check.
  /// A thread that reaches grid_sync() here (outside a cooperative run) throws too.
  void run(const std::string& kernel, HostThreadEntry entry, void** args, const std::uint32_t (&grid)[3],
           const std::uint32_t (&block)[3], const std::uint32_t (&block_index)[3], std::size_t shared_bytes,
           bool checked = false);

  /// For a cooperative grid, whose blocks are all resident at once: sets the block up as
  /// run() does, without running it. A checked block keeps its own check state, since the
  /// blocks of the grid take turns on each host thread.
  void start(const std::string& kernel, HostThreadEntry entry, void** args, const std::uint32_t (&grid)[3],
             const std::uint32_t (&block)[3], const std::uint32_t (&block_index)[3], std::size_t shared_bytes,
             bool checked);
  /// Runs the started block's threads (on whatever host thread calls it) until all have
  /// returned (true) or every thread that has not waits at grid_sync() (false). Throws as
  /// run() does, also for a checked access that failed.
  bool resume();
  /// Every block of the grid reached grid_sync(): the block's threads waiting there go on
  /// at the next resume(). Like a barrier, it orders the block's shared-memory accesses.
  void release_grid_sync();
  /// "block (x, y, z)", for messages.
  std::string name() const;
  /// After a hardware fault dropped the frames of a block this host thread was running
  /// (catch_faults): forgets that block and its check state, which resume() would have reset
  /// on its way out. The runner itself must be discarded.
  static void forget_dropped_block();

  struct Block;

 private:
  std::unique_ptr<Block> block_;
};

}  // namespace cutlet::backend

namespace cutlet::backend {
/// What the last cutlet_host_phases_assert_fail on this host thread recorded: "assertion
/// failed: <message> (<file>:<line>) in thread (x, y, z) of block (x, y, z)".
const std::string& host_phases_failure();
}  // namespace cutlet::backend

/// The functions host-lowered kernels call (resolved by the JIT to these definitions).
extern "C" {
/// Special register `reg` (ir::SpecialReg) of the calling thread: device functions read them
/// so, kernels from their state parameter.
std::uint32_t cutlet_host_special(std::uint32_t reg);
/// The calling block's shared memory.
void* cutlet_host_shared();
/// grid_sync() of a cooperative launch: waits until every thread of every block of the grid
/// that has not returned has arrived (HostBlockRunner::resume returns, and the grid's runner
/// releases the block once all blocks are there).
void cutlet_host_grid_sync();
/// bar.sync 0: waits until every thread of the block that has not exited has arrived.
void cutlet_host_barrier();
/// bar.red: the barrier, returning the count of threads whose `pred` was non-zero (kind 0),
/// whether all had it (1) or any had it (2), over the threads that arrived.
std::uint32_t cutlet_host_barrier_reduce(std::uint32_t kind, std::uint32_t pred);
/// The warp collective `op` (HostWarpOp) over the lanes of `mask` in the calling thread's
/// warp, each lane giving `value` and `arg`: waits until every lane of the mask that has not
/// exited has arrived, and returns this lane's result.
std::uint64_t cutlet_host_warp(std::uint32_t op, std::uint32_t mask, std::uint64_t value, std::uint32_t arg);
/// Warp collective `op` (a vote, match or redux; HostWarpOp) over the lanes of `group` (bits)
/// of a warp of `width` lanes whose values (zero-extended) are `values`: replaces each value
/// of a lane in `group` with that lane's result, the others left as they are. For kernels run
/// in phases (host_phases.h), which need no fibers: one call a warp.
void cutlet_host_lanes(std::uint32_t op, std::uint64_t* values, std::uint32_t width, std::uint32_t group);
/// A failed assert_ in a kernel run in phases: records it, with the thread whose state
/// (kHostThreadStateWords words) is `thread`, for host_phases_failure().
void cutlet_host_phases_assert_fail(const char* message, const char* file, std::uint32_t line, const std::uint32_t* thread);
/// The lanes of the calling thread's warp that have not exited.
std::uint32_t cutlet_host_active_mask();
/// __assertfail: ends the block with an error naming the assertion's message, file and line
/// and the thread (`function` and `char_size` as CUDA passes them).
[[noreturn]] void cutlet_host_assert_fail(const char* message, const char* file, std::uint32_t line, const char* function,
                                          std::uint64_t char_size);
/// vprintf: prints `format` with the arguments packed in `args` as CUDA's device printf packs
/// them (each at its natural alignment, floats as doubles, narrow integers as 32-bit), in one
/// write to stdout; returns the characters printed.
int cutlet_host_vprintf(const char* format, const void* args);
}
