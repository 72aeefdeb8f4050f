// Kernel and device-function names must be PTX names; others are refused where the kernel is
// made, with a spelling that works, instead of failing inside LLVM or ptxas.
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include "cutlet/ir/verifier.h"
#include "cutlet/jit/symbol_name.h"
#include "kernel_test_support.h"

using namespace cutlet;
using cutlet::test::message_of;

namespace {

TEST(SymbolName, PtxNamesAreLettersDigitsUnderscoresAndDollars) {
  EXPECT_TRUE(ir::is_symbol_name("softmax_fwd"));
  EXPECT_TRUE(ir::is_symbol_name("_k$1"));
  EXPECT_FALSE(ir::is_symbol_name(""));
  EXPECT_FALSE(ir::is_symbol_name("softmax-fwd"));
  EXPECT_FALSE(ir::is_symbol_name("my kernel"));
  EXPECT_FALSE(ir::is_symbol_name("a/b"));
  EXPECT_FALSE(ir::is_symbol_name("2mm"));
  EXPECT_FALSE(ir::is_symbol_name("gemm.v2"));
  EXPECT_FALSE(ir::is_symbol_name(std::string(1025, 'k')));
  EXPECT_EQ(detail::symbol_name_like("softmax-fwd"), "softmax_fwd");
  EXPECT_EQ(detail::symbol_name_like("2mm"), "_2mm");
}

TEST(SymbolName, KernelsWithOtherNamesAreRefusedWhereTheyAreMade) {
  for (const char* bad : {"softmax-fwd", "my kernel", "a/b", "2mm", "gemm.v2"}) {
    const int line = __LINE__ + 1;
    const std::string msg = message_of([&] { (void)kernel([](Ptr<float> y) { y[0] = 1.0f; }, {.name = bad}); });
    EXPECT_NE(msg.find(std::string("'") + bad + "' cannot name a kernel"), std::string::npos) << msg;
    EXPECT_NE(msg.find("symbol_name_test.cpp:" + std::to_string(line)), std::string::npos) << msg;
    EXPECT_NE(msg.find("write for example '" + detail::symbol_name_like(bad) + "'"), std::string::npos) << msg;
  }
  const std::string tile = message_of([&] {
    (void)tile_kernel([](Tensor<float, 1> y) { store(y, {arange(32)}, cast<float>(arange(32))); }, {.name = "tile-k"});
  });
  EXPECT_NE(tile.find("'tile-k' cannot name a kernel"), std::string::npos) << tile;
  const std::string fn = message_of([&] { (void)device_function([](f32 x) { return x; }, "dev fn"); });
  EXPECT_NE(fn.find("'dev fn' cannot name a device function"), std::string::npos) << fn;
  // A renaming through with_options is checked too.
  auto k = kernel([](Ptr<float> y) { y[0] = 1.0f; }, {.name = "fine"});
  EXPECT_THROW((void)k.with_options({.name = "not-fine"}), Error);
}

TEST(SymbolName, ValidNamesCompile) {
  auto k = kernel([](Ptr<float> y) { y[0] = 1.0f; }, {.name = "_ok$name2"});
  auto compiled = k.compile<>();
  EXPECT_NE(compiled->ptx.find(".entry _ok$name2("), std::string::npos);
}

TEST(SymbolName, TheVerifierRefusesFunctionsWithOtherNames) {
  ir::Function f("bad-name");
  EXPECT_THROW(ir::verify(f), ir::IRError);
  ir::Function g("good_name");
  EXPECT_NO_THROW(ir::verify(g));
}

}  // namespace
