// Tests of choose_host_warps: a tile kernel traced for the host keeps the most warps (at most
// its own) that leave each thread at least kHostElementsPerThread elements of its largest
// tile; kernels traced for a GPU and per-thread kernels keep theirs.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "cutlet/ir/builder.h"
#include "cutlet/ir/passes/passes.h"
#include "cutlet/ir/verifier.h"

namespace cutlet::ir {
namespace {

/// A kernel of `warps` warps storing a splat tile of `shape` (and a 16-element one).
Function splat_store(std::vector<std::int64_t> shape, int warps, bool host) {
  Function f("splat_store");
  f.set_tile_warps(warps);
  f.set_host_target(host);
  Builder b(f);
  ValueId out = b.add_param(Type::pointer(Type::f32()));
  ValueId x = b.add_param(Type::f32());
  b.tile_store(out, b.tile_splat(b.const_int(Type::i32(), 0), shape), b.tile_splat(x, shape));
  b.tile_store(out, b.tile_splat(b.const_int(Type::i32(), 0), std::vector<std::int64_t>{16}), b.tile_splat(x, std::vector<std::int64_t>{16}));
  verify(f);
  return f;
}

TEST(ChooseHostWarps, HostTilesGetSixteenElementsPerThreadAtLeast) {
  EXPECT_EQ(choose_host_warps(splat_store({1024}, 4, true)).tile_warps(), 2);   // 16 each
  EXPECT_EQ(choose_host_warps(splat_store({4096}, 8, true)).tile_warps(), 8);   // 16 each
  EXPECT_EQ(choose_host_warps(splat_store({64, 64}, 4, true)).tile_warps(), 4); // 32 each: its own
  EXPECT_EQ(choose_host_warps(splat_store({32, 32}, 8, true)).tile_warps(), 2);
  EXPECT_EQ(choose_host_warps(splat_store({64}, 4, true)).tile_warps(), 1);     // fewer than 16 each
}

TEST(ChooseHostWarps, TileKernelsWithPerThreadCodeKeepTheirWarps) {
  Function f = splat_store({1024}, 4, true);
  {
    Builder b(f);
    b.store(b.ptr_add(f.params()[0], b.special(SpecialReg::ThreadIdxX)), f.params()[1]);
  }
  EXPECT_EQ(choose_host_warps(std::move(f)).tile_warps(), 4);
}

TEST(ChooseHostWarps, GpuAndPerThreadKernelsKeepTheirWarps) {
  EXPECT_EQ(choose_host_warps(splat_store({1024}, 4, false)).tile_warps(), 4);
  Function simt("simt");
  simt.set_host_target(true);
  Builder b(simt);
  b.add_param(Type::i32());
  EXPECT_EQ(choose_host_warps(simt).tile_warps(), 0);
}

}  // namespace
}  // namespace cutlet::ir
