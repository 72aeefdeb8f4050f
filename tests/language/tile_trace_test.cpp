// Tracing tile kernels: errors in tile operators and functions name the user's line, the IR
// of each tile op records it, tiles promote as Values do, and every math function of
// ir/math.def traces on tiles.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <cutlet/cutlet.h>

#include "kernel_test_support.h"

using namespace cutlet;
using cutlet::test::message_of;

namespace {

/// The trace error of `body(a, b)` for an f32 tile `a` of shape [64] and `b` of shape [32].
template <class F>
std::string error_of_mismatched(F body) {
  auto k = tile_kernel([&](Tensor<float, 1> y) {
    auto a = cast<float>(arange(64));
    auto b = cast<float>(arange(32));
    body(a, b);
    store(y, {arange(64)}, a);
  }, {.name = "tile_mismatch"});
  return message_of([&] { (void)k.trace_ir(); });
}

/// Expects `msg` to be a broadcast error at this file's `line`, not inside cutlet's headers.
void expect_broadcast_error_at(const std::string& msg, int line) {
  EXPECT_NE(msg.find("do not broadcast"), std::string::npos) << msg;
  EXPECT_NE(msg.find("tile_trace_test.cpp:" + std::to_string(line) + ")"), std::string::npos) << line << ": " << msg;
  EXPECT_EQ(msg.find("tile.h"), std::string::npos) << msg;
}

TEST(TileTrace, BroadcastErrorOfAnOperatorNamesTheUsersLine) {
  int line = 0;
  auto msg = error_of_mismatched([&](const Tile<float>& a, const Tile<float>& b) {
    line = __LINE__; (void)(a + b);
  });
  expect_broadcast_error_at(msg, line);
}

TEST(TileTrace, BroadcastErrorOfAComparisonNamesTheUsersLine) {
  int line = 0;
  auto msg = error_of_mismatched([&](const Tile<float>& a, const Tile<float>& b) {
    line = __LINE__; (void)(a < b);
  });
  expect_broadcast_error_at(msg, line);
}

TEST(TileTrace, BroadcastErrorOfAMathFunctionNamesTheUsersLine) {
  int line = 0;
  auto msg = error_of_mismatched([&](const Tile<float>& a, const Tile<float>& b) {
    line = __LINE__; (void)pow(a, b);
  });
  expect_broadcast_error_at(msg, line);
}

TEST(TileTrace, BroadcastErrorOfWhereNamesTheUsersLine) {
  int line = 0;
  auto msg = error_of_mismatched([&](const Tile<float>& a, const Tile<float>& b) {
    line = __LINE__; (void)where(a < 10.0f, a, b);
  });
  expect_broadcast_error_at(msg, line);
}

// The other forms: a scalar on either side of the tile operand that records the line, the
// three-operand functions and maximum.
TEST(TileTrace, BroadcastErrorsOfOtherFormsNameTheUsersLine) {
  std::vector<std::pair<int, std::string>> cases;
  auto add = [&](int line, auto body) { cases.emplace_back(line, error_of_mismatched(body)); };
  add(__LINE__, [](const Tile<float>& a, const Tile<float>& b) { (void)((2.0f * a) - b); });
  add(__LINE__, [](const Tile<float>& a, const Tile<float>& b) { (void)(b / (a + 1.0f)); });
  add(__LINE__, [](const Tile<float>& a, const Tile<float>& b) { (void)(a != b); });
  add(__LINE__, [](const Tile<float>& a, const Tile<float>& b) { (void)fma(a, 2.0f, b); });
  add(__LINE__, [](const Tile<float>& a, const Tile<float>& b) { (void)atan2(a, b); });
  add(__LINE__, [](const Tile<float>& a, const Tile<float>& b) { (void)maximum(a, b); });
  for (const auto& [line, msg] : cases) expect_broadcast_error_at(msg, line);
}

// Each tile op's IR carries the line of the expression that made it (what line info and
// later errors report), not a line of cutlet's headers.
TEST(TileTrace, TileOpsRecordTheUsersLine) {
  std::vector<std::pair<ir::Location, int>> seen;
  auto k = tile_kernel([&](Tensor<float, 1> y) {
    auto record = [&](ir::ValueId v, int line) { seen.emplace_back(detail::builder().function().def_of(v)->loc, line); };
    auto a = cast<float>(arange(64)); record(a.id(), __LINE__);
    auto n = -a; record(n.id(), __LINE__);
    auto s = a * 2.0f; record(s.id(), __LINE__);
    auto c = 1.0f < a; record(c.id(), __LINE__);
    auto e = exp(a); record(e.id(), __LINE__);
    auto m = maximum(a, 0.0f); record(m.id(), __LINE__);
    auto w = where(c, a, n); record(w.id(), __LINE__);
    store(y, {arange(64)}, n + s + e + m + w);
  }, {.name = "tile_lines"});
  (void)k.trace_ir();
  ASSERT_EQ(seen.size(), 7u);
  for (const auto& [loc, line] : seen) {
    ASSERT_TRUE(loc.known()) << line;
    EXPECT_NE(std::string(loc.file).find("tile_trace_test.cpp"), std::string::npos) << loc.file << " for line " << line;
    EXPECT_EQ(loc.line, static_cast<std::uint32_t>(line));
  }
}

// Tiles promote with Value's rules: integer with float gives the float, integers of one
// signedness and floats widen, host numbers take the tile's type; the narrower operand is
// converted (a cast to the result's tile type in the IR).
TEST(TileTrace, TilesPromoteAsValuesDo) {
  std::vector<std::string> types;
  auto k = tile_kernel([&](Tensor<float, 1> y) {
    auto i = arange(64);
    auto f = cast<float>(i);
    auto s = cast<std::int16_t>(i);
    auto h = cast<half>(i);
    auto a = f + i;  // f32 + i32
    auto b = s + i;  // i16 + i32
    auto c = h + f;  // f16 + f32
    auto d = i * Value<std::int64_t>(3);  // i32 tile * i64 scalar
    auto e = s * 3;  // a host number takes the tile's type
    auto g = where(i < 3, h, 1.0);  // f16 tile, host double
    static_assert(std::is_same_v<decltype(a), Tile<float>>);
    static_assert(std::is_same_v<decltype(b), Tile<std::int32_t>>);
    static_assert(std::is_same_v<decltype(c), Tile<float>>);
    static_assert(std::is_same_v<decltype(d), Tile<std::int64_t>>);
    static_assert(std::is_same_v<decltype(e), Tile<std::int16_t>>);
    static_assert(std::is_same_v<decltype(g), Tile<half>>);
    for (ir::ValueId v : {a.id(), b.id(), c.id(), d.id(), e.id(), g.id()})
      types.push_back(detail::builder().function().type_of(v).str());
    store(y, {i}, a + cast<float>(b) + c + cast<float>(d) + cast<float>(e) + cast<float>(g));
  }, {.name = "tile_promote"});
  const std::string text = ir::print(k.trace_ir());
  EXPECT_EQ(types, (std::vector<std::string>{"tile<64xf32>", "tile<64xi32>", "tile<64xf32>", "tile<64xi64>",
                                             "tile<64xi16>", "tile<64xf16>"}));
  // Only the promotions convert to i32 and i64 tiles.
  EXPECT_TRUE(std::regex_search(text, std::regex("= cast %[0-9]+ : tile<64xi32[,>]"))) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex("= cast %[0-9]+ : tile<64xi64[,>]"))) << text;
}

// Every function of ir/math.def on f32 tiles (the integer ones on i32 and u32 tiles), with
// tile and scalar operands mixed: one `math` op each, of the promoted and broadcast type.
TEST(TileTrace, EveryMathFunctionTracesOnTiles) {
  std::vector<std::string> types;
  auto k = tile_kernel([&](Tensor<float, 2> y, Tensor<std::int32_t, 1> n) {
    auto i = arange(32);
    auto x = cast<float>(i) * 0.01f;
    auto row = expand_dims(x, 0);  // [1, 32]
    auto col = expand_dims(x, 1);  // [32, 1]
    std::vector<Tile<float>> f = {
        sqrt(x),    rsqrt(x), cbrt(x),  exp(x),   exp2(x),  expm1(x),      log(x),       log2(x),   log10(x),
        log1p(x),   sin(x),   cos(x),   tan(x),   asin(x),  acos(x),       atan(x),      sinh(x),   cosh(x),
        tanh(x),    asinh(x), acosh(x), atanh(x), erf(x),   erfc(x),       lgamma(x),    tgamma(x), fabs(x),
        floor(x),   ceil(x),  trunc(x), round(x), rint(x),  abs(x),        pow(x, 2.0f), pow(2, x), atan2(x, x),
        fmin(x, 1), fmax(f32(0.5f), x), copysign(x, -1.0f), fmod(x, 0.3f), fma(x, 2.0f, 1.0f)};
    Tile<float> total = 0.0f;
    for (const auto& t : f) {
      types.push_back(detail::builder().function().type_of(t.id()).str());
      total = total + t;  // every result is used: none is removed before the IR is printed
    }
    static_assert(std::is_same_v<decltype(isnan(x)), Tile<bool>>);
    static_assert(std::is_same_v<decltype(popc(i)), Tile<std::int32_t>>);
    Tile<bool> nan = isnan(x) | isinf(x) | (isfinite(x) == false);
    auto u = cast<std::uint32_t>(i);
    auto ints = popc(i) + clz(u) + ffs(i) + brev(i) + mulhi(i, 7) + abs(i) +
                cast<std::int32_t>(funnel_shift_left(u, u, 3u) + funnel_shift_right(u, 1u, 5));
    auto wide = pow(row, col);  // [1, 32] with [32, 1]
    types.push_back(detail::builder().function().type_of(wide.id()).str());
    store(n, {i}, where(nan, ints, 0));
    store(y, {expand_dims(i, 1), expand_dims(i, 0)}, wide + total);
  }, {.name = "tile_math_all"});
  const std::string text = ir::print(k.trace_ir());
  ASSERT_EQ(types.size(), 42u);
  for (std::size_t t = 0; t + 1 < types.size(); ++t) EXPECT_EQ(types[t], "tile<32xf32>") << t;
  EXPECT_EQ(types.back(), "tile<32x32xf32>");
  for (const char* fn : {"sqrt", "lgamma", "copysign", "fma", "isfinite", "mulhi", "funnel_shift_right", "abs"})
    EXPECT_NE(text.find(std::string("= math ") + fn + " %"), std::string::npos) << fn << "\n" << text;
}

}  // namespace
