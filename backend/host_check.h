// Checked execution on the host (KernelOptions::checked): every access of a kernel's loads,
// stores and atomics (a tile's element by element) is checked against the bounds of the CPU device's
// buffers and of the block's shared memory, and shared-memory accesses of different threads
// between two barriers with a write among them are reported as races, naming the kernel's
// source lines, the threads, the block, the address and the buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace cutlet::backend {

/// What an access does (the flags of cutlet_host_check).
enum HostAccessFlags : std::uint32_t {
  kHostAccessWrite = 1,   ///< a store (else a load)
  kHostAccessShared = 2,  ///< to shared memory
  kHostAccessAtomic = 4,  ///< an atomic: in bounds, never a race
};

/// A block's check state. Each host thread has one of its own; runners that interleave
/// several blocks on one host thread (a cooperative grid's) keep one per block and switch.
struct HostBlockCheck;
/// A new, empty check state.
std::shared_ptr<HostBlockCheck> host_check_new_state();
/// Makes `state` the calling host thread's current check state (null: its own again).
void host_check_use(HostBlockCheck* state);

/// Starts checking a block on the calling host thread: its shared memory, its thread
/// indices' shape (threads are named by their state), no failure yet.
void host_check_begin_block(const void* shared, std::size_t shared_bytes);
/// The block's barrier completed: accesses before it no longer race with those after.
void host_check_barrier();
/// The first access the calling host thread's block failed since host_check_begin_block, or
/// "" if none.
const std::string& host_check_failure();

}  // namespace cutlet::backend

extern "C" {
/// Checks an access of `bytes` bytes at `address` (flags: HostAccessFlags) at `where` (the
/// kernel's "file:line") by the thread whose state is `thread` (kHostThreadStateWords words):
/// returns whether the access may go ahead. The first failure is kept for
/// host_check_failure(); a failed access is skipped.
bool cutlet_host_check(const void* address, std::uint64_t bytes, std::uint32_t flags, const char* where,
                       const std::uint32_t* thread);
/// host_check_barrier() for code run in phases.
void cutlet_host_check_barrier();
}
