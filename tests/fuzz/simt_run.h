// Running a per-thread program's kernel on the GPU against its host reference.
#pragma once

#include <cstdint>
#include <string>

#include <cutlet/runtime/stream.h>

#include "fuzz/simt_program.h"

namespace cutlet::fuzz {

/// The outcome of one program on the GPU.
struct SimtRun {
  /// Empty when every output element and accumulator matched; else what differed, in words.
  std::string mismatch;
  /// True when no data set could be found whose result is unambiguous (min/max of zeros of
  /// opposite signs, or of signalling NaNs, on every try): nothing was compared.
  bool skipped = false;
};

/// Compiles and launches `p` on `stream` with random non-zero data (from `data_seed`; other
/// data when the host reference meets an ambiguous operation), outputs poisoned with 0xCD
/// bytes first, and compares: integers and exact float operations bit for bit (any NaN
/// equals any NaN), libdevice functions within their ulp bound, unwritten elements still
/// poisoned. Exceptions from tracing, compiling or launching propagate.
SimtRun run_simt_on_gpu(const SimtProgram& p, const Stream& stream, std::uint64_t data_seed);

}  // namespace cutlet::fuzz
