// The host reference of a SimtProgram: every thread of the launch interpreted in lockstep.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "fuzz/simt_program.h"

namespace cutlet::fuzz {

/// A launch's data as bit patterns: per buffer type (kBufferTypes order) the input elements,
/// and per accumulator type (kAccumulatorTypes order) the accumulators' starting values.
struct SimtData {
  std::array<std::vector<std::uint64_t>, 12> inputs;
  std::array<std::vector<std::uint64_t>, 4> accumulators;
};

/// Random non-zero inputs and accumulator starting values for `p` (the same for the same seed).
SimtData random_simt_data(const SimtProgram& p, std::uint64_t seed);

/// What the program computes: the output buffers (elements never stored hold `poison`'s
/// bytes), the accumulators, and whether anything undefined or ambiguous was met.
struct SimtExpected {
  std::array<std::vector<std::uint64_t>, 12> outputs;
  std::array<std::vector<std::uint64_t>, 4> accumulators;
  OpFlags flags;
};

/// Interprets `p` on `data`; output elements no thread stores keep the bits of bytes `poison`.
SimtExpected evaluate_simt(const SimtProgram& p, const SimtData& data, std::uint8_t poison);

}  // namespace cutlet::fuzz
