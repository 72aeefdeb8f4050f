// Internal: the exception for a failed allocation, saying what was asked and what is free.
#pragma once

#include <cstddef>
#include <string>

#include "driver_api.h"

namespace cutlet::detail {

/// "N bytes", followed by " (X.YZ GiB)" (the largest binary unit) from 1 KiB up.
std::string byte_text(std::size_t bytes);

/// Throws CudaError for `result` of `call`, whose hint says that `bytes` bytes were
/// requested from `what` (e.g. "the memory pool of device 0 (...)") and how much device
/// memory is free and how much there is right now, both as byte_text gives them (cuMemGetInfo in the current context), followed by `extra`
/// when not empty.
[[noreturn]] void throw_allocation_error(CUresult result, const std::string& call,
                                         std::size_t bytes, const std::string& what,
                                         const std::string& extra = {});

/// The same for the CPU device, whose device memory is the host's: CUDA_ERROR_OUT_OF_MEMORY,
/// with the host's free and total memory.
[[noreturn]] void throw_host_allocation_error(const std::string& call, std::size_t bytes, const std::string& what,
                                              const std::string& extra = {});

}  // namespace cutlet::detail
