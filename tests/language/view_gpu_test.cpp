// Multi-dimensional views: row-major and strided indexing, the 64-bit specialization for huge
// buffers, and bounds checking.
#include <unistd.h>

#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;

namespace {

TEST(ViewGpu, RowMajorTransposeAndStridedColumns) {
  CUTLET_REQUIRE_GPU();
  auto k = kernel([](Ptr<float> out, Ptr<float> in, i32 rows, i32 cols) {
    auto A = view(in, {rows, cols}, "A");
    auto T = view(out, {cols, rows}, "T");
    // Every other column of A, as a strided view: shape (rows, ceil(cols / 2)), strides (cols, 2).
    View<float, 2> Even(in, {rows, (cols + 1) / 2}, {cols, 2}, "Even");
    i32 c = block_idx().x * block_dim().x + thread_idx().x;
    i32 r = block_idx().y * block_dim().y + thread_idx().y;
    if_((r < rows) & (c < cols), [&] {
      T(c, r) = A(r, c) + 0.0f;
      if_(c < (cols + 1) / 2, [&] { T(c, r) = T(c, r) + 1000.0f * Even(r, c); });
    });
  }, {.name = "views", .bounds_check = true});
  Stream st;
  const int rows = 123, cols = 77;
  auto h = random_vector<float>(rows * cols, 51, -1.0f, 1.0f);
  Buffer<float> in(st, h);
  auto out = poisoned<float>(st, rows * cols);
  k.launch(st, {.grid = {ceil_div(cols, 16), ceil_div(rows, 16)}, .block = {16, 16}}, out, in, rows, cols);
  auto r = out.to_host(st);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      float want = h[i * cols + j];
      if (j < (cols + 1) / 2) want += 1000.0f * h[i * cols + 2 * j];
      ASSERT_FLOAT_EQ(r[j * rows + i], want) << i << "," << j;
    }
}

TEST(ViewGpu, BuffersOf2To31ElementsGetSixtyFourBitIndexing) {
  CUTLET_REQUIRE_GPU();
  auto k = kernel([](Ptr<std::uint8_t> big, i64 rows, i64 cols) {
    auto B = view(big, {rows, cols}, "B");
    i64 r = rows - 1 - cast<std::int64_t>(thread_idx().x);
    B(r, cols - 1) = cast<std::uint8_t>(thread_idx().x + 7);
  }, {.name = "wide_view"});
  Stream st;
  const std::int64_t rows = 65537, cols = 32769;  // 2^31 + 98305 elements
  Buffer<std::uint8_t> big(static_cast<std::size_t>(rows * cols), st.device());
  big.fill_bytes(st, 0);
  auto before = cache_stats();
  k.launch(st, {.grid = 1, .block = 4}, big, rows, cols);
  st.synchronize();
  EXPECT_EQ(cache_stats().traces - before.traces, 1u);
  // Read the last rows back through a non-owning buffer over them.
  auto last = Buffer<std::uint8_t>::wrap(big.data() + static_cast<std::uint64_t>((rows - 4) * cols),
                                         static_cast<std::size_t>(4 * cols), st.device());
  auto got = last.to_host(st);
  for (int t = 0; t < 4; ++t) {
    std::size_t at = static_cast<std::size_t>((3 - t) * cols + cols - 1);
    EXPECT_EQ(got[at], t + 7) << t;
  }
  // A small buffer with the same argument types uses another (32-bit) specialization.
  Buffer<std::uint8_t> small(64, st.device());
  small.fill_bytes(st, 0);
  k.launch(st, {.grid = 1, .block = 4}, small, std::int64_t{8}, std::int64_t{8});
  EXPECT_EQ(small.to_host(st)[63], 7);
  EXPECT_EQ(cache_stats().traces - before.traces, 2u);
}

TEST(ViewGpu, OutOfBoundsIndexIsReported) {
  CUTLET_REQUIRE_GPU();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        dup2(2, 1);  // device printf writes to stdout; the death test reads stderr
        auto k = kernel([](Ptr<float> a, i32 n) {
          auto A = view(a, {n}, "weights");
          i32 t = thread_idx().x;
          A(t) = 1.0f;  // thread n is out of bounds
        }, {.name = "oob", .bounds_check = true});
        Stream st;
        Buffer<float> a(16, st.device());
        try {
          k.launch(st, {.grid = 1, .block = 9}, a, 8);
          st.synchronize();
        } catch (const CudaError& e) {
          std::fflush(stdout);
          std::fprintf(stderr, "caught: %s\n", e.what());
          std::_Exit(3);
        }
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(3), "index 8 is outside \\[0, 8\\) in dimension 0 of view 'weights'(.|\n)*caught: .*CUDA_ERROR_ASSERT");
}

}  // namespace
