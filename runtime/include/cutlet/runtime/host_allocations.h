// The CPU device's live memory allocations, which kernels run in checked mode
// (KernelOptions::checked) check their accesses against.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace cutlet {

/// A block of the CPU device's memory: its address and size in bytes.
struct HostAllocation {
  std::uint64_t address = 0;
  std::size_t bytes = 0;
};

/// The CPU device's allocations around `address`: the one that holds it, if any, else the
/// nearest one below it and the nearest one above it.
struct HostAllocationsAround {
  std::optional<HostAllocation> holder, below, above;
};

/// Looks `address` up among the CPU device's live allocations (buffers, pools' blocks).
HostAllocationsAround host_allocations_around(std::uint64_t address);

/// How many allocations of the CPU device are live, and their bytes: what the host's free
/// memory, which every process moves, cannot tell (e.g. that failed allocations leak nothing).
struct HostAllocationTotals {
  std::size_t count = 0;
  std::size_t bytes = 0;
};
/// The CPU device's live allocations (buffers, pools' blocks kept or in use), counted now.
HostAllocationTotals host_allocation_totals();

}  // namespace cutlet
