// Shared memory, local arrays, block barriers and memory fences.
#pragma once

#include <source_location>

#include "cutlet/language/pointer.h"

namespace cutlet {

/// A static shared-memory array of `count` elements (a trace-time number), one per block,
/// uninitialized: CUDA's `__shared__ T a[count]`. Each call makes a distinct array.
template <ScalarType T>
SharedPtr<T> shared_array(std::int64_t count, std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  if (count < 1) detail::throw_trace_error("shared_array needs at least one element, not " + std::to_string(count), where);
  return SharedPtr<T>::wrap(detail::builder("cutlet::shared_array").shared_alloc(detail::ir_type_of<T>(), count));
}

/// The block's dynamic shared memory as an array of T: CUDA's `extern __shared__ T a[]`.
/// Its size is LaunchConfig::shared_bytes; every call returns the same memory.
template <ScalarType T>
SharedPtr<T> dynamic_shared() {
  return SharedPtr<T>::wrap(detail::builder("cutlet::dynamic_shared").dynamic_shared(detail::ir_type_of<T>()));
}

/// The most local memory one thread may have, in bytes (CUDA's per-thread limit).
inline constexpr std::int64_t kMaxLocalBytesPerThread = 512 * 1024;

/// A per-thread array of `count` elements in registers or local memory, uninitialized:
/// CUDA's `T a[count]` inside a kernel. Indexing with trace-time constants keeps it in
/// registers; data-dependent indexing places it in local memory. At most
/// kMaxLocalBytesPerThread bytes.
template <ScalarType T>
LocalPtr<T> local_array(std::int64_t count, std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  if (count < 1) detail::throw_trace_error("local_array needs at least one element, not " + std::to_string(count), where);
  if (count > kMaxLocalBytesPerThread / static_cast<std::int64_t>(sizeof(T)))
    detail::throw_trace_error("local_array of " + std::to_string(count) + " elements of " +
                                  std::to_string(sizeof(T)) + " bytes (" +
                                  detail::number_text(static_cast<double>(count) * sizeof(T)) +
                                  " bytes) is too large for one thread's local memory (" +
                                  std::to_string(kMaxLocalBytesPerThread / 1024) +
                                  " KiB at most); use shared_array for data a block shares, or global memory (a Ptr "
                                  "argument) for large buffers",
                              where);
  return LocalPtr<T>::wrap(detail::builder("cutlet::local_array").local_alloc(detail::ir_type_of<T>(), count));
}

/// Waits until every thread of the block has reached it; shared and global writes made
/// before it are visible to the block after it (`__syncthreads`). All threads of the block
/// must reach the same barrier.
inline void syncthreads() { detail::builder("cutlet::syncthreads").barrier(); }
/// syncthreads that also returns how many threads had `pred` true (`__syncthreads_count`).
inline i32 syncthreads_count(const Value<bool>& pred) {
  return i32::wrap(detail::builder().barrier_reduce(ir::BarrierReduceKind::Count, pred.id()));
}
/// syncthreads that also returns whether `pred` was true on every thread (`__syncthreads_and`).
inline Value<bool> syncthreads_and(const Value<bool>& pred) {
  return Value<bool>::wrap(detail::builder().barrier_reduce(ir::BarrierReduceKind::And, pred.id()));
}
/// syncthreads that also returns whether `pred` was true on any thread (`__syncthreads_or`).
inline Value<bool> syncthreads_or(const Value<bool>& pred) {
  return Value<bool>::wrap(detail::builder().barrier_reduce(ir::BarrierReduceKind::Or, pred.id()));
}

/// Waits until every thread of every block of the grid has reached it; global writes made
/// before it are visible to the whole grid after it (cooperative groups'
/// `this_grid().sync()`). The kernel must be launched with LaunchConfig::cooperative set,
/// which makes the driver check that all blocks can be resident at once; launching it
/// otherwise throws an Error naming the grid_sync() call. All threads of the grid must
/// reach the same grid_sync().
inline void grid_sync(std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  detail::builder("cutlet::grid_sync").grid_sync();
}

/// Orders this thread's memory accesses as seen by the block (`__threadfence_block`).
inline void threadfence_block() { detail::builder().fence(ir::MemoryScope::Block); }
/// Orders this thread's memory accesses as seen by the whole device (`__threadfence`).
inline void threadfence() { detail::builder().fence(ir::MemoryScope::Device); }
/// Orders this thread's memory accesses as seen by the host and peer devices too
/// (`__threadfence_system`).
inline void threadfence_system() { detail::builder().fence(ir::MemoryScope::System); }

}  // namespace cutlet
