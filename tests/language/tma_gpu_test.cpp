// Hopper's TMA from the per-thread language against a CPU reference: boxes loaded into shared
// memory through an mbarrier and stored back, over ragged edges (the loads read zeros past
// the tensor, the stores write nothing there), for f32 and bf16, outputs poisoned first.
#include <gtest/gtest.h>

#include <cmath>

#include <cutlet/cutlet.h>

#include <cstring>
#include <vector>

#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;

namespace {

constexpr int kBoxRows = 32, kBoxCols = 32;

/// out = in * 3 + 1, box by box: block (x, y) loads the box at rows 32y, columns 32x with
/// TMA, every thread rewrites its elements in shared memory, and one thread stores the box.
/// `seen` receives each box as loaded (zeros past the tensor's edge included).
template <class T>
auto box_kernel() {
  return kernel(
      [](TmaDescriptor<T, 2> in, TmaDescriptor<T, 2> out, Ptr<T> seen, i32 boxes_x) {
        auto box = shared_array<T>(kBoxRows * kBoxCols);
        auto bar = shared_array<std::uint64_t>(1);
        i32 row = block_idx().y * kBoxRows, col = block_idx().x * kBoxCols;
        i32 t = thread_idx().x;
        if_(t == 0, [&] {
          mbarrier_init(bar, 1);
          fence_proxy_async();
          mbarrier_arrive_expect_tx(bar, kBoxRows * kBoxCols * static_cast<int>(sizeof(T)));
          tma_load(box, in, {row, col}, bar);
        });
        syncthreads();
        mbarrier_wait(bar, 0);
        i32 first = (block_idx().y * boxes_x + block_idx().x) * (kBoxRows * kBoxCols);
        for_range(0, kBoxRows * kBoxCols / 128, [&](i32 k) {
          i32 e = k * 128 + t;
          Var<T> v = box[e];
          seen[first + e] = v;
          box[e] = cast<T>(cast<float>(v) * 3.0f + 1.0f);
        });
        fence_proxy_async();
        syncthreads();
        if_(t == 0, [&] {
          tma_store(out, {row, col}, box);
          bulk_commit();
          bulk_wait(0);
        });
      },
      {.name = "tma_box"});
}

template <class T>
void check_boxes(int rows, int cols) {
  Stream st;
  std::vector<float> src = test::random_vector<float>(static_cast<std::size_t>(rows) * cols, 7, -4.0f, 4.0f);
  std::vector<T> host(src.size());
  for (std::size_t i = 0; i < src.size(); ++i) host[i] = static_cast<T>(src[i]);
  Buffer<T> in(st, host);
  auto out = test::poisoned<T>(st, host.size());
  const int bx = (cols + kBoxCols - 1) / kBoxCols, by = (rows + kBoxRows - 1) / kBoxRows;
  auto seen = test::poisoned<T>(st, static_cast<std::size_t>(bx) * by * kBoxRows * kBoxCols);
  const std::uint32_t box[2] = {kBoxRows, kBoxCols};
  const TensorMap in_map = cached_tensor_map(tensor_map_spec(tensor(in, {rows, cols}), box));
  const TensorMap out_map = cached_tensor_map(tensor_map_spec(tensor(out, {rows, cols}), box));
  box_kernel<T>().launch(st, {.grid = {static_cast<unsigned>(bx), static_cast<unsigned>(by)}, .block = 128}, in_map,
                         out_map, seen, bx);
  const auto got = out.to_host(st);
  const auto loaded = seen.to_host(st);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const std::size_t i = static_cast<std::size_t>(r) * cols + c;
      // The kernel's multiply-add is contracted into one FMA (KernelOptions::fma_contraction).
      const T want = static_cast<T>(std::fma(static_cast<float>(host[i]), 3.0f, 1.0f));
      ASSERT_EQ(static_cast<float>(got[i]), static_cast<float>(want)) << r << ", " << c;
    }
  for (int y = 0; y < by; ++y)
    for (int x = 0; x < bx; ++x)
      for (int e = 0; e < kBoxRows * kBoxCols; ++e) {
        const int r = y * kBoxRows + e / kBoxCols, c = x * kBoxCols + e % kBoxCols;
        const float want = r < rows && c < cols ? static_cast<float>(host[static_cast<std::size_t>(r) * cols + c]) : 0.0f;
        const T v = loaded[(static_cast<std::size_t>(y) * bx + x) * kBoxRows * kBoxCols + e];
        ASSERT_EQ(static_cast<float>(v), want) << "box (" << x << ", " << y << ") element " << e
                                               << (r < rows && c < cols ? "" : ", past the edge: TMA fills zeros");
      }
}

TEST(TmaGpu, BoxesOfF32OverRaggedEdges) {
  CUTLET_REQUIRE_TMA();
  check_boxes<float>(100, 72);  // 100 = 3 * 32 + 4 rows, 72 = 2 * 32 + 8 columns
}

TEST(TmaGpu, BoxesOfBf16OverRaggedEdges) {
  CUTLET_REQUIRE_TMA();
  check_boxes<bfloat16>(33, 200);
}

TEST(TmaGpu, AWholeTensorOfOneBox) {
  CUTLET_REQUIRE_TMA();
  check_boxes<float>(32, 32);
}

}  // namespace
