// The NVTX ranges a compile opens, by name and in order: trace, each IR pass, the compile,
// LLVM's lowering, optimisation and code generation, nvJitLink.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <cutlet/cutlet.h>

#include "cutlet/ir/pipeline.h"
#include "cutlet/jit/disk_cache.h"
#include "range_recorder.h"

using namespace cutlet;

namespace {

/// Turns the disk cache off for the test (so that the compiler runs), and back as it was.
class NoDiskCache {
 public:
  NoDiskCache() : saved_(disk_cache()->settings()) { set_disk_cache_settings(DiskCacheSettings{}); }
  ~NoDiskCache() { set_disk_cache_settings(saved_); }

 private:
  DiskCacheSettings saved_;
};

std::ptrdiff_t position(const std::vector<std::string>& names, const std::string& name) {
  auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? -1 : it - names.begin();
}

TEST(SpecializationRanges, CompileOpensARangePerStageInOrder) {
  NoDiskCache no_disk;
  test::RangeRecorder ranges;
  auto k = kernel([](f32 a, Ptr<float> x, Ptr<float> y, i32 n) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < n, [&] { y[i] = a * x[i] + y[i]; });
  }, {.name = "ranges_saxpy", .target = Target{90}});
  auto compiled = k.compile();
  ASSERT_FALSE(compiled->cubin.empty());
  const auto names = ranges.recorded();
  std::vector<std::string> expected = {"cutlet trace ranges_saxpy"};
  for (const auto& p : ir::default_pipeline()) expected.push_back("cutlet pass " + std::string(p.name) + " ranges_saxpy");
  for (const char* stage : {"compile", "lower", "llvm-opt", "codegen", "nvJitLink"})
    expected.push_back("cutlet " + std::string(stage) + " ranges_saxpy sm_90");
  std::ptrdiff_t last = -1;
  for (const auto& e : expected) {
    const std::ptrdiff_t at = position(names, e);
    EXPECT_GT(at, last) << e << " missing or out of order in:\n" << test::joined(names);
    last = std::max(last, at);
  }
}

TEST(SpecializationRanges, AMemoryCacheHitOpensNoCompilerRanges) {
  NoDiskCache no_disk;
  auto make = [] {
    return kernel([](Ptr<int> y) { y[0] = 7; }, {.name = "ranges_reused"});
  };
  auto first = make();
  first.compile();
  test::RangeRecorder ranges;
  auto second = make();  // another Kernel object, the same IR: the compiled code is shared
  second.compile();
  const auto names = ranges.recorded();
  EXPECT_NE(position(names, "cutlet trace ranges_reused"), -1) << test::joined(names);
  EXPECT_EQ(position(names, "cutlet compile ranges_reused sm_90"), -1) << test::joined(names);
  EXPECT_EQ(position(names, "cutlet llvm-opt ranges_reused sm_90"), -1) << test::joined(names);
}

}  // namespace
