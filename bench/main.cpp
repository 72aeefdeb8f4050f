// cutlet_bench's entry point: Google Benchmark, or a child-process mode used by the benchmarks.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench_support.h"

namespace {

/// The value of `--name=value` among argv, or nullptr.
const char* flag_value(int argc, char** argv, const char* name) {
  const std::size_t len = std::strlen(name);
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], name, len) == 0 && argv[i][len] == '=') return argv[i] + len + 1;
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  // Compile benchmarks must not be answered by the toolkit's on-disk caches (GPU.md); set
  // before the driver or nvJitLink first run. An explicit setting in the environment wins.
  ::setenv("CUDA_CACHE_DISABLE", "1", 0);

  // Child mode, run by the benchmarks themselves: `--cutlet-child=compile --cutlet-seed=N`.
  if (const char* mode = flag_value(argc, argv, "--cutlet-child")) {
    const char* seed = flag_value(argc, argv, "--cutlet-seed");
    if (std::string(mode) == "compile") return cutlet::bench::compile_child_main(seed ? std::atoi(seed) : 1);
    std::fprintf(stderr, "cutlet_bench: unknown child mode '%s' (known: compile)\n", mode);
    return 2;
  }

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
