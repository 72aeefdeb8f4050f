// Device printf output and device-side asserts (in a child process: an assert ends the
// CUDA context).
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;

namespace {

TEST(DiagnosticsGpu, PrintWritesEachThreadsLine) {
  CUTLET_REQUIRE_GPU();
  auto k = kernel([](Ptr<float> x) {
    i32 t = thread_idx().x;
    print("cutlet-print thread=%d value=%.2f big=%lld\n", t, x[t], cast<std::int64_t>(t) * 10000000000ll);
  }, {.name = "printer"});
  Stream st;
  Buffer<float> x(st, std::vector<float>{0.5f, 1.25f, -2.0f});
  std::fflush(stdout);
  char path[] = "/tmp/cutlet-print-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  int saved = dup(1);
  dup2(fd, 1);
  k.launch(st, {.grid = 1, .block = 3}, x);
  st.synchronize();
  std::fflush(stdout);
  dup2(saved, 1);
  close(saved);
  close(fd);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(path);
  std::string s = text.str();
  EXPECT_NE(s.find("cutlet-print thread=0 value=0.50 big=0"), std::string::npos) << s;
  EXPECT_NE(s.find("cutlet-print thread=1 value=1.25 big=10000000000"), std::string::npos) << s;
  EXPECT_NE(s.find("cutlet-print thread=2 value=-2.00 big=20000000000"), std::string::npos) << s;
}

TEST(DiagnosticsGpu, FailedAssertRaisesAtSynchronize) {
  CUTLET_REQUIRE_GPU();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        auto k = kernel([](Ptr<int> x, i32 n) {
          i32 t = thread_idx().x;
          assert_(x[t] < n, "values stay below n");
        }, {.name = "asserting"});
        Stream st;
        Buffer<int> x(st, std::vector<int>{1, 2, 30, 4});
        try {
          k.launch(st, {.grid = 1, .block = 4}, x, 10);
          st.synchronize();
          std::fprintf(stderr, "no error\n");
        } catch (const CudaError& e) {
          std::fprintf(stderr, "caught: %s\n", e.what());
          std::_Exit(3);
        }
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(3), "caught: .*CUDA_ERROR_ASSERT");
}

TEST(DiagnosticsGpu, PassingAssertCostsNothingVisible) {
  CUTLET_REQUIRE_GPU();
  auto k = kernel([](Ptr<int> x, i32 n) {
    i32 t = thread_idx().x;
    assert_(x[t] < n, "values stay below n");
    x[t] = x[t] + 1;
  }, {.name = "asserting_ok"});
  Stream st;
  Buffer<int> x(st, std::vector<int>{1, 2, 3, 4});
  k.launch(st, {.grid = 1, .block = 4}, x, 10);
  EXPECT_EQ(x.to_host(st), (std::vector<int>{2, 3, 4, 5}));
}

}  // namespace
