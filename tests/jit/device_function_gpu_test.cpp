// Device functions: compiled once, called from kernels (several times, with several argument
// types), and exported as PTX functions that other code links against.
#include "kernel_test_support.h"
#include "gpu_test_support.h"
#include "cutlet/runtime/linker.h"
#include "cutlet/runtime/program.h"
#include "runtime/test_kernels.h"

using namespace cutlet;
using namespace cutlet::test;

namespace {

auto make_poly() {
  return device_function([](auto x, auto c) { return (x * x + c) * x; }, "poly");
}

TEST(DeviceFunction, TracedOnceAndCalledFromAKernel) {
  auto poly = make_poly();
  auto k = kernel([poly](Ptr<float> y, Ptr<double> z, i32 n) {
    i32 i = thread_idx().x;
    if_(i < n, [&] {
      y[i] = poly(y[i], 1.5f) + poly(y[i] * 2.0f, -1.0f);  // one float specialization, called twice
      z[i] = poly(z[i], 0.25);                               // a second (double) specialization
    });
  }, {.name = "calls_poly"});
  std::string text = ir::print(k.trace_ir());
  EXPECT_NE(text.find("func @poly("), std::string::npos) << text;
  EXPECT_NE(text.find("func @poly_1("), std::string::npos) << text;
  std::size_t calls = 0;
  for (std::size_t at = text.find("= call "); at != std::string::npos; at = text.find("= call ", at + 1)) ++calls;
  EXPECT_EQ(calls, 3u) << text;  // poly twice (one definition), poly_1 once
  std::string ptx = k.compile<>()->ptx;
  EXPECT_NE(ptx.find(".func  (.param .b32 func_retval0) poly("), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("call.uni (retval0)"), std::string::npos) << ptx;
}

TEST(DeviceFunction, ExportedPtxDefinesAVisibleFunction) {
  auto mad = device_function([](f32 a, f32 b, f32 c) { return a * b + c; }, "cutlet_mad");
  std::string ptx = mad.ptx();
  EXPECT_NE(ptx.find(".visible .func  (.param .b32 func_retval0) cutlet_mad("), std::string::npos) << ptx;
  EXPECT_EQ(ptx.find(".entry"), std::string::npos) << ptx;
}

TEST(DeviceFunction, RecursionIsATraceError) {
  std::function<f32(f32)> self;
  auto f = device_function([&self](f32 x) { return self(x); }, "recursive");
  self = [&f](f32 x) { return f(x); };
  auto k = kernel([&f](Ptr<float> y) { y[0] = f(y[0]); });
  std::string msg = message_of([&] { k.trace_ir(); });
  EXPECT_NE(msg.find("must not be recursive"), std::string::npos) << msg;
}

TEST(DeviceFunctionGpu, ResultsMatchTheInlinedComputation) {
  CUTLET_REQUIRE_GPU();
  auto poly = make_poly();
  auto k = kernel([poly](Ptr<float> y, i32 n) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < n, [&] { y[i] = poly(y[i], 1.5f) + poly(y[i] * 2.0f, -1.0f); });
  }, {.name = "poly_gpu"});
  Stream st;
  const int n = 3001;
  auto h = random_vector<float>(n, 61, -2.0f, 2.0f);
  Buffer<float> y(st, h);
  k.launch(st, {.grid = ceil_div(n, 128), .block = 128}, y, n);
  auto r = y.to_host(st);
  for (int i = 0; i < n; ++i) {
    float x = h[i], x2 = 2.0f * x;
    float want = (x * x + 1.5f) * x + (x2 * x2 - 1.0f) * x2;
    ASSERT_NEAR(r[i], want, 1e-4f * (1 + std::fabs(want))) << i;
  }
}

/// CUDA C++ (NVRTC) calling a cutlet device function: `triple_plus` declares
/// `extern "C" __device__ int times_three(int)`, which cutlet defines and exports as PTX.
ObjectCode link_cuda_cpp_with_cutlet_function() {
  auto times_three = device_function([](i32 x) { return x * 3; }, "times_three");
  ProgramOptions po;
  po.relocatable = true;
  ObjectCode kernel = Program(test::kTriplePlusCu, po, "triple.cu").compile(CodeKind::ptx);
  return Linker().add(kernel).add_ptx(times_three.ptx(), "times_three.ptx").link();
}

TEST(DeviceFunction, CudaCppLinksAgainstAnExportedDeviceFunction) {
  ObjectCode cubin = link_cuda_cpp_with_cutlet_function();
  EXPECT_GT(cubin.bytes().size(), 1000u);
}

TEST(DeviceFunctionGpu, CudaCppKernelCallsACutletDeviceFunction) {
  CUTLET_REQUIRE_CUDA("linking with CUDA C++ code");
  ObjectCode cubin = link_cuda_cpp_with_cutlet_function();
  Stream st;
  Module m = Module::load(st.device(), cubin.bytes());
  const std::uint32_t n = 300;
  auto out = poisoned<int>(st, n);
  std::uint64_t p = out.data();
  std::uint32_t count = n;
  void* args[] = {&p, &count};
  launch(st, m.function("triple_plus"), {.grid = ceil_div(n, 128), .block = 128}, args);
  auto host = out.to_host(st);
  for (std::uint32_t i = 0; i < n; ++i) ASSERT_EQ(host[i], static_cast<int>(3 * i + 127)) << i;
}

}  // namespace
