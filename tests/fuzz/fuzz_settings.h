// Which seeds a fuzz test runs: CUTLET_FUZZ_START (first seed) and CUTLET_FUZZ_COUNT.
#pragma once

#include <cstdint>

namespace cutlet::fuzz {

/// Seeds [first, first + count).
struct SeedRange {
  std::uint64_t first = 0;
  std::uint64_t count = 0;
};

/// The unsigned decimal value of environment variable `name`, `fallback` when it is unset or
/// empty (spaces around the digits are ignored). Anything else throws cutlet::Error naming
/// the variable and its value: a misspelled count must not quietly run the default.
std::uint64_t env_count(const char* name, std::uint64_t fallback);

/// CUTLET_FUZZ_START (default 0) and CUTLET_FUZZ_COUNT (default `default_count`).
SeedRange seed_range_from_environment(std::uint64_t default_count);

}  // namespace cutlet::fuzz
