// NVRTC programs and the Linker, run: a CUDA C++ __device__ function called from a linked
// kernel, a CUDA C++ kernel calling a PTX function, LTO-IR (needs a GPU).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "../gpu_test_support.h"
#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/launch.h"
#include "cutlet/runtime/linker.h"
#include "cutlet/runtime/module.h"
#include "cutlet/runtime/program.h"
#include "test_kernels.h"

namespace {

std::vector<std::uint32_t> run(const cutlet::ObjectCode& cubin, const char* kernel, std::uint32_t n) {
  cutlet::Stream s(cutlet::Device(0));
  cutlet::Module m = cutlet::Module::load(s.device(), cubin.bytes());
  cutlet::Buffer<std::uint32_t> out(n, s.device());
  out.fill_bytes(s, 0xff);
  std::uint64_t p = out.data();
  std::uint32_t count = n;
  void* args[] = {&p, &count};
  cutlet::launch(s, m.function(kernel), {.grid = cutlet::ceil_div(n, 128), .block = 128}, args);
  return out.to_host(s);
}

cutlet::ProgramOptions relocatable() {
  cutlet::ProgramOptions o;  // the default architecture: device 0's
  o.relocatable = true;
  return o;
}

TEST(Program, NvrtcKernelRuns) {
  CUTLET_REQUIRE_CUDA("CUDA C++ compiled by NVRTC");
  const char* src = R"(
extern "C" __global__ void squares(unsigned* out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i * i;
})";
  const cutlet::ObjectCode cubin = cutlet::Program(src).compile(cutlet::CodeKind::cubin);
  const auto host = run(cubin, "squares", 1001);
  for (std::uint32_t i = 0; i < 1001; ++i) ASSERT_EQ(host[i], i * i);
}

TEST(Program, NvrtcDeviceFunctionCalledFromALinkedKernel) {
  CUTLET_REQUIRE_CUDA("CUDA C++ compiled by NVRTC");
  const cutlet::ObjectCode callee =
      cutlet::Program(cutlet::test::kAddSevenCu, relocatable(), "add_seven.cu").compile(cutlet::CodeKind::ptx);
  const cutlet::ObjectCode cubin = cutlet::Linker().add_ptx(cutlet::test::kCallerPtx, "caller.ptx").add(callee).link();
  const auto host = run(cubin, "call_add_seven", 5000);
  for (std::uint32_t i = 0; i < 5000; ++i) ASSERT_EQ(host[i], i + 7) << i;
}

TEST(Program, NvrtcDeviceFunctionAsLtoIr) {
  CUTLET_REQUIRE_CUDA("CUDA C++ compiled by NVRTC");
  const cutlet::ObjectCode lto =
      cutlet::Program(cutlet::test::kAddSevenCu, relocatable(), "add_seven.cu").compile(cutlet::CodeKind::ltoir);
  const cutlet::ObjectCode cubin = cutlet::Linker().add(lto).add_ptx(cutlet::test::kCallerPtx, "caller.ptx").link();
  const auto host = run(cubin, "call_add_seven", 777);
  EXPECT_EQ(host[0], 7u);
  EXPECT_EQ(host[776], 783u);
}

TEST(Program, CudaCppKernelCallingAPtxFunction) {
  CUTLET_REQUIRE_CUDA("CUDA C++ compiled by NVRTC");
  const cutlet::ObjectCode kernel =
      cutlet::Program(cutlet::test::kTriplePlusCu, relocatable(), "triple.cu").compile(cutlet::CodeKind::ptx);
  const cutlet::ObjectCode cubin =
      cutlet::Linker().add(kernel).add_ptx(cutlet::test::kTimesThreePtx, "times_three.ptx").link();
  const auto host = run(cubin, "triple_plus", 300);
  for (std::uint32_t i = 0; i < 300; ++i) ASSERT_EQ(host[i], 3 * i + 127) << i;
}

}  // namespace
