// Recompile explanations: which part of a specialization's key changed, per Kernel object.
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include "child_process.h"

using namespace cutlet;

namespace {

bool contains(const std::vector<std::string>& v, const std::string& what) {
  for (const auto& s : v)
    if (s.find(what) != std::string::npos) return true;
  return false;
}

TEST(Recompile, ArgumentTypeChangeIsExplained) {
  auto scale = kernel([](auto x, auto s, i32 n) {
    i32 i = thread_idx().x;
    if_(i < n, [&] { x[i] = x[i] * s; });
  }, {.name = "scale_explained"});
  scale.compile<Buffer<float>, float, int>();
  EXPECT_TRUE(scale.recompile_reasons().empty()) << "the first specialization is no recompile";
  scale.compile<Buffer<float>, float, int>();
  EXPECT_TRUE(scale.recompile_reasons().empty()) << "the same key again is no recompile";
  scale.compile<Buffer<double>, float, int>();
  auto reasons = scale.recompile_reasons();
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_NE(reasons[0].find("kernel 'scale_explained' recompiled"), std::string::npos) << reasons[0];
  EXPECT_NE(reasons[0].find("argument 1 changed from Ptr<f32> to Ptr<f64>"), std::string::npos) << reasons[0];
  scale.compile<Buffer<double>, double, int>();
  reasons = scale.recompile_reasons();
  ASSERT_EQ(reasons.size(), 2u);
  // Closest earlier one: (Buffer<double>, float), which differs in argument 2 only.
  EXPECT_NE(reasons[1].find("argument 2 changed from f32 to f64"), std::string::npos) << reasons[1];
  EXPECT_EQ(reasons[1].find("argument 1"), std::string::npos) << reasons[1];
}

auto make_const_kernel() {
  return kernel([](Ptr<int> y, Const<int> K) { y[0] = i32(K); }, {.name = "const_explained"});
}

TEST(Recompile, ConstValueChangeIsExplained) {
  auto k = make_const_kernel();
  k.compile(4);
  k.compile(8);
  const auto reasons = k.recompile_reasons();
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_NE(reasons[0].find("argument 2 (Const<i32>) changed from 4 to 8"), std::string::npos) << reasons[0];
  EXPECT_EQ(reasons[0].find("["), std::string::npos) << "compiled, so no note: " << reasons[0];
  // Another Kernel object of the same lambda explains its own specializations; its code for
  // 4 is the one compiled above, and the explanation says so.
  auto again = make_const_kernel();
  again.compile(8);
  again.compile(4);
  ASSERT_EQ(again.recompile_reasons().size(), 1u);
  EXPECT_NE(again.recompile_reasons()[0].find("changed from 8 to 4 (compared with specialization 1) [code reused "
                                              "from this process's memory]"),
            std::string::npos)
      << again.recompile_reasons()[0];
}

TEST(Recompile, DeviceArchAndOptionsDifferencesAreNamed) {
  detail::SpecializationRecord a;
  a.params = {"f32", "Ptr<f32>"};
  a.values = {"", ""};
  a.device = 0;
  a.arch = "sm_80";
  a.options = {{"opt_level", "3"}, {"fma_contraction", "true"}};
  detail::SpecializationRecord b = a;
  b.device = 1;
  b.arch = "sm_90";
  b.options[1].second = "false";
  const auto d = detail::record_differences(a, b);
  EXPECT_TRUE(contains(d, "device changed from 0 to 1"));
  EXPECT_TRUE(contains(d, "arch changed from sm_80 to sm_90"));
  EXPECT_TRUE(contains(d, "options changed: fma_contraction (true to false)"));
  EXPECT_TRUE(detail::record_differences(a, a).empty());
  detail::SpecializationRecord c = a;
  c.params.push_back("i32");
  c.values.push_back("");
  EXPECT_TRUE(contains(detail::record_differences(a, c), "argument count changed from 2 to 3"));
}

TEST(Recompile, ExplanationsCanBeDumped) {
  auto k = kernel([](Ptr<int> y, Const<int> K) { y[0] = K * 2; }, {.name = "dumped_recompile"});
  set_dump_stages("recompiles");
  testing::internal::CaptureStderr();
  k.compile(1);
  k.compile(2);
  const std::string err = testing::internal::GetCapturedStderr();
  set_dump_stages("");
  EXPECT_NE(err.find("argument 2 (Const<i32>) changed from 1 to 2"), std::string::npos) << err;
}

// The child: two specializations of one kernel, with CUTLET_EXPLAIN_RECOMPILES set by the parent.
TEST(RecompileChild, DISABLED_CompileTwoValues) {
  auto k = kernel([](Ptr<int> y, Const<int> K) { y[0] = K * 3; }, {.name = "explained_by_environment"});
  k.compile(5);
  k.compile(6);
}

TEST(Recompile, EnvironmentVariablePrintsExplanations) {
  const auto quiet = test::run_child("RecompileChild.DISABLED_CompileTwoValues", {});
  EXPECT_EQ(quiet.output.find("recompiled"), std::string::npos) << quiet.output;
  const auto loud = test::run_child("RecompileChild.DISABLED_CompileTwoValues", {"CUTLET_EXPLAIN_RECOMPILES=1"});
  ASSERT_EQ(loud.status, 0) << loud.output;
  EXPECT_NE(loud.output.find("cutlet: kernel 'explained_by_environment' recompiled (specialization 2 of this "
                             "Kernel object): argument 2 (Const<i32>) changed from 5 to 6"),
            std::string::npos)
      << loud.output;
}

TEST(Recompile, EnvironmentVariableIsABoolean) {
  for (const char* off : {"false", "OFF", " no "}) {
    const auto quiet = test::run_child("RecompileChild.DISABLED_CompileTwoValues",
                                       {std::string("CUTLET_EXPLAIN_RECOMPILES=") + off});
    ASSERT_EQ(quiet.status, 0) << quiet.output;
    EXPECT_EQ(quiet.output.find("recompiled"), std::string::npos) << off << ": " << quiet.output;
  }
  const auto yes = test::run_child("RecompileChild.DISABLED_CompileTwoValues", {"CUTLET_EXPLAIN_RECOMPILES=Yes"});
  EXPECT_NE(yes.output.find("recompiled"), std::string::npos) << yes.output;
  const auto bad = test::run_child("RecompileChild.DISABLED_CompileTwoValues", {"CUTLET_EXPLAIN_RECOMPILES=loud"});
  EXPECT_NE(bad.status, 0) << bad.output;
  EXPECT_NE(bad.output.find("CUTLET_EXPLAIN_RECOMPILES='loud'"), std::string::npos) << bad.output;
}

}  // namespace
