// Compile-time constant parameters (Const<T>, ConstValue): host values at trace time, part of the
// specialization key, absent from the PTX's parameters.
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include "cutlet/ir/structural_hash.h"

using namespace cutlet;

namespace {

template <class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an exception";
  return "";
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

/// Sums UNROLL consecutive elements per thread: the loop over UNROLL runs at trace time.
auto make_unrolled() {
  return kernel(
      [](Ptr<float> y, Ptr<float> x, i32 n, Const<int> UNROLL) {
        i32 base = (block_idx().x * block_dim().x + thread_idx().x) * UNROLL;
        f32 acc = 0.0f;
        for (int u = 0; u < UNROLL; ++u) acc = acc + select(base + u < n, x[base + u], 0.0f);
        if_(base < n, [&] { y[base] = acc * UNROLL; });
      },
      {.name = "unrolled_sum"});
}

TEST(ConstParam, ValueDrivesTraceTimeLoops) {
  auto k = make_unrolled();
  const std::string two = ir::print(k.trace_ir(2));
  const std::string four = ir::print(k.trace_ir(4));
  EXPECT_EQ(count_of(two, "load "), 2u) << two;
  EXPECT_EQ(count_of(four, "load "), 4u) << four;
  EXPECT_NE(ir::structural_hash(k.trace_ir(2)), ir::structural_hash(k.trace_ir(4)));
  EXPECT_EQ(ir::structural_hash(k.trace_ir(4)), ir::structural_hash(k.trace_ir(4)));
}

TEST(ConstParam, IsNotAKernelParameter) {
  auto k = make_unrolled();
  const ir::Function f = k.trace_ir(3);
  EXPECT_EQ(f.params().size(), 3u) << "y, x and n only";
  auto compiled = k.compile(3);
  EXPECT_EQ(count_of(compiled->ptx, ".param ."), 3u) << "three declared parameters\n" << compiled->ptx;
}

TEST(ConstParam, UsableAsAConstantInExpressions) {
  auto k = kernel(
      [](Ptr<float> y, Ptr<int> z, Const<int> K, Const<float> SCALE, Const<bool> NEGATE) {
        i32 k = K;  // a traced i32 from the constant
        f32 v = y[0] * SCALE + K;
        if (NEGATE) v = -v;  // plain C++: decided at trace time
        y[0] = v;
        z[0] = max(k, K) + (K << 1);
      },
      {.name = "const_expr"});
  const std::string text = ir::print(k.trace_ir(7, 0.5f, true));
  EXPECT_NE(text.find("const 0.5 : f32"), std::string::npos) << text;
  EXPECT_NE(text.find("const 7.0 : f32"), std::string::npos) << text;
  EXPECT_NE(text.find("neg"), std::string::npos) << text;
  EXPECT_EQ(ir::print(k.trace_ir(7, 0.5f, false)).find("neg"), std::string::npos);
}

TEST(ConstParam, GenericLambdaTakesConstFromConstantArguments) {
  auto k = kernel([](auto y, auto n, auto K) {
    i32 i = thread_idx().x;
    if_(i < n, [&] { y[i] = y[i] * K; });
  }, {.name = "generic_const"});
  const std::string text = ir::print(k.trace_ir<Buffer<float>, int, Const<int>>(3));
  EXPECT_NE(text.find("const 3.0 : f32"), std::string::npos) << text;
  const ir::Function f = k.trace_ir<Buffer<float>, int, Const<int>>(3);
  EXPECT_EQ(f.params().size(), 2u);
}

TEST(ConstParam, ConstValueConvertsOnlyWhenItFits) {
  EXPECT_EQ(ConstValue(4).to<int>(), 4);
  EXPECT_EQ(ConstValue(4.0).to<int>(), 4);
  EXPECT_EQ(ConstValue(3).to<double>(), 3.0);
  EXPECT_EQ(ConstValue(0.1).to<float>(), 0.1f);
  EXPECT_TRUE(ConstValue(true).to<bool>());
  EXPECT_NE(message_of([] { ConstValue(300).to<std::int8_t>(); }).find("300"), std::string::npos);
  EXPECT_NE(message_of([] { ConstValue(2.5).to<int>(); }).find("2.5"), std::string::npos);
  EXPECT_NE(message_of([] { ConstValue(true).to<int>(); }).find("true"), std::string::npos);
  EXPECT_NE(message_of([] { ConstValue(1).to<bool>(); }).find("bool"), std::string::npos);
  EXPECT_NE(message_of([] { ConstValue((std::int64_t{1} << 53) + 1).to<double>(); }).find("floating"),
            std::string::npos);
}

TEST(ConstParam, ConstValueTextRoundTrips) {
  for (ConstValue v : {ConstValue(-12), ConstValue(0.1), ConstValue(1e300), ConstValue(false), ConstValue(true),
                       ConstValue(std::int64_t{1} << 62)}) {
    EXPECT_EQ(ConstValue::parse(v.serialize()), v) << v.serialize();
  }
  EXPECT_EQ(ConstValue(2.5).str(), "2.5");
  EXPECT_EQ(ConstValue(0.1).str(), "0.1");
  EXPECT_EQ(ConstValue(7).str(), "7");
  EXPECT_NE(message_of([] { ConstValue::parse("x:1"); }).find("serialized"), std::string::npos);
  EXPECT_NE(message_of([] { ConstValue(std::uint64_t{1} << 63); }).find("INT64_MAX"), std::string::npos);
}

TEST(ConstParam, ConstValueArgumentsAreCheckedWhenUsed) {
  auto k = make_unrolled();
  EXPECT_EQ(ir::structural_hash(k.trace_ir(ConstValue(4))), ir::structural_hash(k.trace_ir(4)));
  EXPECT_NE(message_of([&] { k.trace_ir(ConstValue(2.5)); }).find("does not fit"), std::string::npos);
}

TEST(ConstParam, CompilesOncePerValue) {
  auto k = make_unrolled();
  auto a = k.compile(5);
  auto b = k.compile(5);
  auto c = k.compile(6);
  EXPECT_EQ(a.get(), b.get()) << "the same value hits the in-memory cache";
  EXPECT_NE(a->ptx, c->ptx);
}

}  // namespace
