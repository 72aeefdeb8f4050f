// How a kernel is traced from its options and the environment: CUTLET_BOUNDS_CHECK and
// CUTLET_LINEINFO are booleans, read once per process (so each case runs in a child process).
#include <gtest/gtest.h>

#include <cstdio>

#include <cutlet/cutlet.h>

#include "child_process.h"
#include "kernel_test_support.h"

using namespace cutlet;

namespace {

// The child: the trace options the environment given by the parent asks for.
TEST(SpecializationChild, DISABLED_PrintTraceOptions) {
  const detail::TraceOptions t = detail::trace_options_for(KernelOptions{}, false, Target::default_target());
  std::printf("cutlet-child bounds_check=%d line_info=%d\n", t.bounds_check ? 1 : 0, t.line_info ? 1 : 0);
}

// The child: tracing a kernel, which must report a bad value as an exception.
TEST(SpecializationChild, DISABLED_TraceAKernel) {
  auto k = kernel([](Ptr<float> y) { y[0] = 1.0f; }, {.name = "traced_in_child"});
  const std::string msg = test::message_of([&] { (void)k.trace_ir(); });
  std::printf("cutlet-child-error %s\n", msg.c_str());
}

test::ChildResult trace_options_with(const std::string& env) {
  return test::run_child("SpecializationChild.DISABLED_PrintTraceOptions", {env});
}

TEST(Specialization, BoundsCheckFromTheEnvironmentIsABoolean) {
  for (const char* off : {"0", "false", "Off", "no"}) {
    const auto r = trace_options_with(std::string("CUTLET_BOUNDS_CHECK=") + off);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(r.values.at("bounds_check"), "0") << off;
  }
  for (const char* on : {"1", "true", " ON ", "Yes"}) {
    const auto r = trace_options_with(std::string("CUTLET_BOUNDS_CHECK=") + on);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(r.values.at("bounds_check"), "1") << on;
  }
  const auto bad = trace_options_with("CUTLET_BOUNDS_CHECK=always");
  EXPECT_NE(bad.status, 0) << bad.output;
  EXPECT_NE(bad.output.find("CUTLET_BOUNDS_CHECK='always'"), std::string::npos) << bad.output;
}

TEST(Specialization, LineInfoFromTheEnvironmentIsABoolean) {
  for (const char* off : {"0", "FALSE", "off", " no"}) {
    const auto r = trace_options_with(std::string("CUTLET_LINEINFO=") + off);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(r.values.at("line_info"), "0") << off;
  }
  for (const char* on : {"1", "True", "on", "yes"}) {
    const auto r = trace_options_with(std::string("CUTLET_LINEINFO=") + on);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(r.values.at("line_info"), "1") << on;
  }
}

TEST(Specialization, ABadLineInfoValueIsAnErrorOfTheTrace) {
  const auto r = test::run_child("SpecializationChild.DISABLED_TraceAKernel", {"CUTLET_LINEINFO=sometimes"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("cutlet-child-error cutlet: the environment variable CUTLET_LINEINFO='sometimes'"),
            std::string::npos)
      << r.output;
}

}  // namespace
