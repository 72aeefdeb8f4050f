// Internal: a cooperative grid on the host, whose blocks are all resident at once so that
// their threads can wait for each other at grid_sync().
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "host_block.h"

namespace cutlet::backend {

/// Runs every block of a launch of `kernel` (name, for messages) over `grid` blocks of
/// `block` threads, each thread a fiber (HostBlockRunner), all blocks resident at once: the
/// host's threads take the blocks by turns, each until its threads have returned or wait at
/// grid_sync(); once every block waits there, all go on. Returns when every thread has
/// returned. Throws cutlet::Error as HostBlockRunner does, and when some blocks wait at
/// grid_sync() that others returned without reaching (a GPU hangs there).
void run_cooperative_grid(const std::string& kernel, HostThreadEntry entry, void** args, const std::uint32_t (&grid)[3],
                          const std::uint32_t (&block)[3], std::size_t shared_bytes, bool checked);

}  // namespace cutlet::backend
