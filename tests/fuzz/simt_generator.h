// Random valid per-thread programs from a seed.
#pragma once

#include <cstdint>

#include "fuzz/simt_program.h"

namespace cutlet::fuzz {

/// The program of `seed` (the same program for the same seed): a few statements over a few
/// scalar types, with if/else, loops, shared-memory exchanges, shuffles, votes and atomics.
/// It never does what the kernel language leaves undefined, for any inputs: signed
/// arithmetic whose range may overflow goes through the unsigned type, divisors cannot be
/// zero (or -1 under the minimum), shift amounts are masked to the width, and floats are
/// clamped before they become integers.
SimtProgram generate_simt_program(std::uint64_t seed);

/// Whether the programs of `seed` may also round f16, bf16 and f32 values through the FP8
/// formats (one seed in 16; the others' programs are those of the generator before FP8).
bool has_fp8_roundings(std::uint64_t seed);

}  // namespace cutlet::fuzz
