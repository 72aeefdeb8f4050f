// Generated kernels against their host references on the GPU: seeds CUTLET_FUZZ_START.. for
// CUTLET_FUZZ_COUNT (default 200; CUTLET_FUZZ_COUNT=10000 for a full run), and the programs
// of fuzz_regressions.h. A mismatch prints the seed, the program and a minimised program
// that still fails.
#include <gtest/gtest.h>

#include <string>

#include "fuzz/fuzz_regressions.h"
#include "fuzz/fuzz_settings.h"
#include "fuzz/simt_generator.h"
#include "fuzz/simt_minimise.h"
#include "fuzz/simt_run.h"
#include "fuzz/tile_kernel.h"
#include "gpu_test_support.h"

namespace cutlet::fuzz {
namespace {

/// What went wrong with `p` on the GPU ("" when it matched); `skipped` counts ambiguous data.
std::string simt_failure(const SimtProgram& p, const Stream& s, int* skipped) {
  try {
    SimtRun r = run_simt_on_gpu(p, s, p.seed);
    if (r.skipped && skipped) ++*skipped;
    return r.mismatch;
  } catch (const std::exception& e) {
    return std::string("threw: ") + e.what();
  }
}

/// The report of a failing per-thread program: seed, program, what differed, and the
/// smallest program found that still fails the same way (a mismatch, or an exception).
std::string simt_report(const SimtProgram& p, const Stream& s, const std::string& why) {
  const bool threw = why.rfind("threw: ", 0) == 0;
  const SimtProgram small = minimise_simt(p, [&](const SimtProgram& c) {
    const std::string w = simt_failure(c, s, nullptr);
    return !w.empty() && (w.rfind("threw: ", 0) == 0) == threw && w.find("host reference met") == std::string::npos;
  });
  return "seed " + std::to_string(p.seed) + ": " + why + to_string(p) + "minimised, still failing:\n" + to_string(small);
}

std::string tile_failure(const TileProgram& p, const Stream& s) {
  try {
    return run_tile_on_gpu(p, s, p.seed);
  } catch (const std::exception& e) {
    return std::string("threw: ") + e.what();
  }
}

TEST(KernelFuzzGpu, GeneratedKernelsMatchTheirHostReferences) {
  CUTLET_REQUIRE_GPU();
  const SeedRange range = seed_range_from_environment(200);
  Stream s;
  int failures = 0, skipped = 0;
  for (std::uint64_t seed = range.first; seed < range.first + range.count && failures < 5; ++seed) {
    if (is_tile_seed(seed)) {
      const TileProgram p = generate_tile_program(seed);
      if (const std::string why = tile_failure(p, s); !why.empty()) {
        ++failures;
        ADD_FAILURE() << "seed " << seed << ": " << why << to_string(p);
      }
      continue;
    }
    const SimtProgram p = generate_simt_program(seed);
    if (const std::string why = simt_failure(p, s, &skipped); !why.empty()) {
      ++failures;
      ADD_FAILURE() << simt_report(p, s, why);
    }
  }
  // Ambiguous results (min/max of +0 and -0) are rare: most programs must be compared.
  EXPECT_LE(skipped * 10, static_cast<int>(range.count)) << skipped << " programs had no unambiguous data";
}

TEST(KernelFuzzGpu, RegressionPrograms) {
  CUTLET_REQUIRE_GPU();
  Stream s;
  for (const auto& r : kSimtRegressionSeeds) {
    const SimtProgram p = generate_simt_program(r.seed);
    if (const std::string why = simt_failure(p, s, nullptr); !why.empty())
      ADD_FAILURE() << "(" << r.why << ") " << simt_report(p, s, why);
  }
}

}  // namespace
}  // namespace cutlet::fuzz
