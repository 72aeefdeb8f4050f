// Checked execution on the CPU device (KernelOptions::checked): a planted out-of-bounds write
// and a planted missing syncthreads() race, each reported with its source line, thread, block
// and address; correct kernels run checked with their results unchanged.
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include <string>
#include <vector>

using namespace cutlet;

namespace {

int oob_line = 0;

/// Writes one element past the end of `out` from the last thread of the grid.
auto off_by_one() {
  return kernel(
      [](Ptr<int> out, i32 n) {
        i32 i = block_idx().x * block_dim().x + thread_idx().x;
        oob_line = __LINE__ + 1;
        if_(i <= n, [&] { out[i] = i; });  // <= : one too many
      },
      {.name = "checked_off_by_one", .checked = true});
}

TEST(CpuChecked, AnOutOfBoundsWriteIsReportedWithItsLineThreadAndBuffer) {
  Stream s(Device::cpu());
  const int n = 100;
  Buffer<int> out(n, s);
  try {
    off_by_one().launch(s, {.grid = 2, .block = 64}, out, n);
    s.synchronize();
    FAIL() << "a write past the end of a buffer ran unreported";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("checked_off_by_one"), std::string::npos) << m;
    EXPECT_NE(m.find("out-of-bounds write of 4 bytes"), std::string::npos) << m;
    EXPECT_NE(m.find("past the end of the buffer of 400 bytes"), std::string::npos) << m;
    EXPECT_NE(m.find("cpu_checked_host_test.cpp:" + std::to_string(oob_line)), std::string::npos) << m;
    EXPECT_NE(m.find("thread (36, 0, 0) of block (1, 0, 0)"), std::string::npos) << m;
  }
}

int race_write_line = 0, race_read_line = 0;

/// Each thread writes its element of a shared array and reads its neighbour's with no
/// syncthreads() between: a race between the neighbours.
auto missing_barrier() {
  return kernel(
      [](Ptr<int> out, Ptr<int> in) {
        auto buf = shared_array<int>(128);
        i32 t = thread_idx().x;
        race_write_line = __LINE__ + 1;
        buf[t] = in[t];
        race_read_line = __LINE__ + 1;
        out[t] = buf[(t + 1) % 128].load();
      },
      {.name = "checked_missing_barrier", .checked = true});
}

TEST(CpuChecked, AMissingSyncthreadsIsReportedAsASharedMemoryRace) {
  Stream s(Device::cpu());
  std::vector<int> host(128);
  for (int i = 0; i < 128; ++i) host[i] = 3 * i + 1;
  Buffer<int> in(128, s), out(128, s);
  in.copy_from_host(s, host);
  try {
    missing_barrier().launch(s, {.grid = 1, .block = 128}, out, in);
    s.synchronize();
    FAIL() << "a shared-memory race ran unreported";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("checked_missing_barrier"), std::string::npos) << m;
    EXPECT_NE(m.find("a shared-memory race"), std::string::npos) << m;
    EXPECT_NE(m.find("cpu_checked_host_test.cpp:" + std::to_string(race_write_line)), std::string::npos) << m;
    EXPECT_NE(m.find("cpu_checked_host_test.cpp:" + std::to_string(race_read_line)), std::string::npos) << m;
    EXPECT_NE(m.find("with no syncthreads() between them"), std::string::npos) << m;
  }
}

/// The same kernel with the barrier, and a shared-memory histogram with atomics: checked, no
/// report, the right results.
TEST(CpuChecked, CorrectKernelsRunCheckedWithTheirResults) {
  auto rotate = kernel(
      [](Ptr<int> out, Ptr<int> in) {
        auto buf = shared_array<int>(128);
        i32 t = thread_idx().x;
        buf[t] = in[t];
        syncthreads();
        out[t] = buf[(t + 1) % 128].load();
      },
      {.name = "checked_rotate", .checked = true});
  auto histogram = kernel(
      [](Ptr<std::uint32_t> hist, Ptr<int> in, i32 n) {
        auto bins = shared_array<std::uint32_t>(16);
        i32 t = thread_idx().x;
        if_(t < 16, [&] { bins[t] = std::uint32_t{0}; });
        syncthreads();
        for_range(t, n, block_dim().x, [&](i32 i) { atomic_add(bins[in[i] & 15], std::uint32_t{1}); });
        syncthreads();
        if_(t < 16, [&] { hist[t] = bins[t].load(); });
      },
      {.name = "checked_histogram", .checked = true});
  Stream s(Device::cpu());
  std::vector<int> host(128);
  for (int i = 0; i < 128; ++i) host[i] = 7 * i + 3;
  Buffer<int> in(128, s), out(128, s);
  Buffer<std::uint32_t> hist(16, s);
  in.copy_from_host(s, host);
  rotate.launch(s, {.grid = 1, .block = 128}, out, in);
  histogram.launch(s, {.grid = 1, .block = 64}, hist, in, 128);
  const std::vector<int> r = out.to_host(s);
  const std::vector<std::uint32_t> h = hist.to_host(s);
  std::vector<std::uint32_t> want(16, 0);
  for (int i = 0; i < 128; ++i) {
    EXPECT_EQ(r[i], host[(i + 1) % 128]) << i;
    ++want[host[i] & 15];
  }
  EXPECT_EQ(h, want);
}

int tile_oob_line = 0;

/// A tile kernel whose store mask lets one element past the end through.
auto tile_off_by_one() {
  return tile_kernel(
      [](Tensor<float, 1> out, Tensor<float, 1> in) {
        auto i = program_id(0) * 64 + arange(64);
        auto x = load(in, {i}, i < in.shape(0), Value<float>(0.0f));
        tile_oob_line = __LINE__ + 1;
        store(out, {i}, x * 2.0f, i <= out.shape(0));  // <= : one too many
      },
      {.name = "checked_tile_off_by_one", .checked = true}, 2);
}

TEST(CpuChecked, ATileStorePastTheEndIsReportedWithItsLine) {
  Stream s(Device::cpu());
  const int n = 100;
  Buffer<float> in(n, s), out(n, s);
  in.copy_from_host(s, std::vector<float>(n, 1.5f));
  try {
    tile_off_by_one().launch(s, {.grid = 2}, tensor(out, {n}), tensor(in, {n}));
    s.synchronize();
    FAIL() << "a tile store past the end of a buffer ran unreported";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("checked_tile_off_by_one"), std::string::npos) << m;
    EXPECT_NE(m.find("out-of-bounds write of 4 bytes"), std::string::npos) << m;
    EXPECT_NE(m.find("past the end of the buffer of 400 bytes"), std::string::npos) << m;
    EXPECT_NE(m.find("cpu_checked_host_test.cpp:" + std::to_string(tile_oob_line)), std::string::npos) << m;
  }
}

int grid_race_line = 0;

/// A cooperative grid whose blocks each stage their slice in shared memory, synchronize the
/// grid, and read a neighbour's element of the slice without a barrier after rewriting it.
auto grid_then_race() {
  return kernel(
      [](Ptr<int> out, Ptr<int> in) {
        auto buf = shared_array<int>(64);
        i32 t = thread_idx().x, i = block_idx().x * 64 + t;
        buf[t] = in[i];
        syncthreads();
        grid_sync();  // orders shared memory like a barrier: no race across it
        out[i] = buf[(t + 1) % 64] + in[(i + 64) % (64 * grid_dim().x)];
        grid_sync();
        buf[t] = out[i];
        grid_race_line = __LINE__ + 1;
        out[i] = buf[(t + 3) % 64].load();
      },
      {.name = "checked_grid_race", .checked = true});
}

TEST(CpuChecked, BlocksOfACooperativeGridAreCheckedEachOnItsOwn) {
  Stream s(Device::cpu());
  const int blocks = 3, n = 64 * blocks;
  std::vector<int> h(n);
  for (int i = 0; i < n; ++i) h[i] = 3 * i - 50;
  Buffer<int> in(s, h), out(n, s);
  try {
    grid_then_race().launch(s, {.grid = blocks, .block = 64, .cooperative = true}, out, in);
    s.synchronize();
    FAIL() << "a shared-memory race after a grid_sync() ran unreported";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("checked_grid_race"), std::string::npos) << m;
    EXPECT_NE(m.find("a shared-memory race"), std::string::npos) << m;
    EXPECT_NE(m.find("cpu_checked_host_test.cpp:" + std::to_string(grid_race_line)), std::string::npos) << m;
    EXPECT_EQ(m.find("cpu_checked_host_test.cpp:" + std::to_string(grid_race_line - 4)), std::string::npos) << m;
  }
}

}  // namespace
