// Generated kernels (seeds CUTLET_FUZZ_START.. for CUTLET_FUZZ_COUNT, default 0..999) all
// trace, pass the IR verifier, compile to PTX and link to a cubin with nvJitLink. No GPU.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include <cutlet/cutlet.h>

#include "cutlet/ir/verifier.h"
#include "fuzz/fuzz_settings.h"
#include "fuzz/simt_generator.h"
#include "fuzz/simt_kernel.h"
#include "fuzz/tile_kernel.h"

namespace cutlet::fuzz {
namespace {

/// Empty when `cubin` is an ELF file for NVIDIA GPUs (e_machine EM_CUDA = 190); else why not.
std::string not_a_cuda_elf(const std::vector<char>& cubin) {
  if (cubin.size() < 20) return "a cubin of only " + std::to_string(cubin.size()) + " bytes";
  if (std::memcmp(cubin.data(), "\x7f" "ELF", 4) != 0) return "a cubin without the ELF magic";
  const int machine = static_cast<std::uint8_t>(cubin[18]) | (static_cast<std::uint8_t>(cubin[19]) << 8);
  return machine == 190 ? "" : "a cubin for e_machine " + std::to_string(machine);
}

/// Traces, verifies, compiles and links kernel `k` named `name`; empty on success.
template <class K>
std::string compile_failure(const K& k, const std::string& name) {
  try {
    ir::verify(k.template trace_ir<>());
    auto compiled = k.template compile<>();
    if (compiled->ptx.find(".entry " + name + "(") == std::string::npos) return "no entry " + name + " in the PTX";
    return not_a_cuda_elf(compiled->cubin);
  } catch (const std::exception& e) {
    return e.what();
  }
}

TEST(KernelFuzzCodegen, GeneratedKernelsTraceVerifyCompileAndLink) {
  const SeedRange range = seed_range_from_environment(1000);
  int failures = 0;
  for (std::uint64_t seed = range.first; seed < range.first + range.count && failures < 10; ++seed) {
    std::string why, program;
    if (is_tile_seed(seed)) {
      const TileProgram p = generate_tile_program(seed);
      program = to_string(p);
      why = compile_failure(make_tile_fuzz_kernel(p), tile_kernel_name(p));
    } else {
      const SimtProgram p = generate_simt_program(seed);
      program = to_string(p);
      why = compile_failure(make_simt_kernel(p), "fuzz_simt_" + std::to_string(seed));
    }
    if (!why.empty()) {
      ++failures;
      ADD_FAILURE() << "seed " << seed << ": " << why << "\n" << program;
    }
  }
}

// The FP8 seeds round values through both FP8 formats; the other seeds' programs never do
// (so that the regression seeds keep their programs).
TEST(KernelFuzzCodegen, Fp8RoundingsAppearInTheFp8SeedsOnly) {
  int e4m3 = 0, e5m2 = 0;
  for (std::uint64_t seed = 0; seed < 1000; ++seed) {
    if (is_tile_seed(seed)) continue;
    const std::string program = to_string(generate_simt_program(seed));
    const bool any = program.find("fp8e") != std::string::npos;
    if (!has_fp8_roundings(seed)) {
      EXPECT_FALSE(any) << "seed " << seed << "\n" << program;
      continue;
    }
    e4m3 += program.find("fp8e4m3") != std::string::npos;
    e5m2 += program.find("fp8e5m2") != std::string::npos;
  }
  EXPECT_GE(e4m3, 10);
  EXPECT_GE(e5m2, 10);
}

}  // namespace
}  // namespace cutlet::fuzz
