// NVRTC programs: PTX, cubin and LTO-IR from CUDA C++, CCCL headers, errors (no GPU needed).
#include "cutlet/runtime/program.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "runtime_test_support.h"
#include "test_kernels.h"

namespace {

const char* kSaxpyCu = R"(
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
template <class T> __global__ void fill(T* out, T value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}
)";

cutlet::ProgramOptions sm90() {
  cutlet::ProgramOptions o;
  o.arch = "sm_90";
  return o;
}

TEST(ProgramNoGpu, CompilesCudaCppToPtx) {
  cutlet::ProgramOptions o = sm90();
  o.name_expressions = {"fill<float>"};
  const cutlet::ObjectCode ptx = cutlet::Program(kSaxpyCu, o, "saxpy.cu").compile(cutlet::CodeKind::ptx);
  EXPECT_EQ(ptx.kind, cutlet::CodeKind::ptx);
  EXPECT_EQ(ptx.name, "saxpy.cu");
  EXPECT_CONTAINS(ptx.text(), ".visible .entry saxpy(");
  EXPECT_CONTAINS(ptx.text(), ".target sm_90");
  EXPECT_NE(ptx.text().back(), '\0');
  // The template instantiation exists under its mangled name.
  const std::string& mangled = ptx.lowered_name("fill<float>");
  EXPECT_TRUE(mangled.starts_with("_Z")) << mangled;
  EXPECT_CONTAINS(ptx.text(), ".entry " + mangled);
  EXPECT_CONTAINS(cutlet::test::error_message([&] { (void)ptx.lowered_name("fill<int>"); }),
                  "name_expressions");
}

TEST(ProgramNoGpu, CubinAndLtoIr) {
  const cutlet::Program p(kSaxpyCu, sm90());
  const cutlet::ObjectCode cubin = p.compile(cutlet::CodeKind::cubin);
  ASSERT_GT(cubin.data.size(), 64u);
  EXPECT_EQ(std::memcmp(cubin.data.data(), "\x7f" "ELF", 4), 0);
  const cutlet::ObjectCode lto = p.compile(cutlet::CodeKind::ltoir);
  EXPECT_EQ(lto.kind, cutlet::CodeKind::ltoir);
  EXPECT_GT(lto.data.size(), 0u);
  EXPECT_THROW((void)p.compile(cutlet::CodeKind::fatbin), cutlet::Error);
}

TEST(ProgramNoGpu, CcclHeadersAreOnTheIncludePath) {
  const std::string src = std::string(R"(
#include <cuda/std/type_traits>
#include <cub/warp/warp_reduce.cuh>
extern "C" __global__ void warp_sum(const int* in, int* out) {
  using WarpReduce = cub::WarpReduce<int>;
  __shared__ typename WarpReduce::TempStorage temp;
  static_assert(cuda::std::is_same_v<int, int>);
  int s = WarpReduce(temp).Sum(in[threadIdx.x]);
  if (threadIdx.x == 0) *out = s;
}
)");
  const cutlet::ObjectCode ptx = cutlet::Program(src, sm90(), "warp_sum.cu").compile(cutlet::CodeKind::ptx);
  EXPECT_CONTAINS(ptx.text(), ".entry warp_sum(");
  bool has_cccl = false;
  for (const std::string& d : cutlet::Program::toolkit_include_dirs()) has_cccl |= d.ends_with("cccl");
  EXPECT_TRUE(has_cccl);
}

TEST(ProgramNoGpu, CompileErrorCarriesTheLog) {
  const std::string bad = "extern \"C\" __global__ void k(int* p) {\n  *p = undeclared_thing;\n}\n";
  try {
    (void)cutlet::Program(bad, sm90(), "broken.cu").compile(cutlet::CodeKind::ptx);
    FAIL() << "compiling broken code did not throw";
  } catch (const cutlet::ProgramError& e) {
    EXPECT_CONTAINS(e.what(), "broken.cu");
    EXPECT_CONTAINS(e.what(), "undeclared_thing");
    EXPECT_CONTAINS(e.what(), "sm_90");
    EXPECT_CONTAINS(e.what(), "NVRTC log");
  }
}

TEST(ProgramNoGpu, RelocatableKeepsDeviceFunctions) {
  cutlet::ProgramOptions o = sm90();
  o.relocatable = true;
  const cutlet::ObjectCode ptx = cutlet::Program(cutlet::test::kAddSevenCu, o).compile(cutlet::CodeKind::ptx);
  EXPECT_CONTAINS(ptx.text(), ".visible .func");
  EXPECT_CONTAINS(ptx.text(), "add_seven");
  const auto opts = cutlet::Program(cutlet::test::kAddSevenCu, o).nvrtc_options(cutlet::CodeKind::ptx);
  EXPECT_EQ(opts.front(), "-arch=sm_90");
  EXPECT_NE(std::find(opts.begin(), opts.end(), "-rdc=true"), opts.end());
}

}  // namespace
