// Tests of Target: parsing architecture names, and the SM that LLVM generates PTX for.
#include "cutlet/backend/target.h"

#include <gtest/gtest.h>

#include <string>

#include "cutlet/error.h"

namespace cutlet {
namespace {

std::string target_error(const std::string& s) {
  try {
    Target::from_string(s);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "Target::from_string(\"" << s << "\") did not throw";
  return {};
}

TEST(TargetTest, DefaultIsSm90) {
  EXPECT_EQ(Target::default_target().sm, 90);
  EXPECT_EQ(Target{}.sm, 90);
}

TEST(TargetTest, ParsesTheAcceptedForms) {
  EXPECT_EQ(Target::from_string("sm_80").sm, 80);
  EXPECT_EQ(Target::from_string("sm_90").sm, 90);
  EXPECT_EQ(Target::from_string("90").sm, 90);
  EXPECT_EQ(Target::from_string("compute_90").sm, 90);
  EXPECT_EQ(Target::from_string("sm_75").sm, 75);
  EXPECT_EQ(Target::from_string("sm_100").sm, 100);
  EXPECT_EQ(Target::from_string("sm_120").sm, 120);
  EXPECT_EQ(Target::from_string("sm_80"), Target{80});
}

TEST(TargetTest, RejectsOtherNamesWithAHint) {
  for (const char* bad : {"sm_60", "gfx90a", "", "sm_", "sm_9x", "compute_", "sm_1000", "69", " sm_90", "SM_90"}) {
    SCOPED_TRACE(bad);
    std::string msg = target_error(bad);
    EXPECT_NE(msg.find("sm_XY"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'" + std::string(bad) + "'"), std::string::npos) << msg;  // names the input
  }
}

TEST(TargetTest, Sm90aIsHoppersArchitectureSpecificTarget) {
  const Target a = Target::from_string("sm_90a");
  EXPECT_EQ(a.sm, 90);
  EXPECT_TRUE(a.arch_specific);
  EXPECT_EQ(a.arch(), "sm_90a");
  EXPECT_EQ(a.ptx_cpu(), "sm_90a");
  EXPECT_EQ(a.ptx_sm(), 90);
  EXPECT_NE(a, Target{90});  // kernels compiled for one are not the other's (cache keys use arch())
  EXPECT_EQ(Target::from_string("compute_90a"), a);
  EXPECT_EQ(Target{90}.ptx_cpu(), "sm_90");
  EXPECT_EQ(Target{100}.ptx_cpu(), "sm_90");
  for (const char* bad : {"sm_80a", "sm_100a", "sm_90b", "90aa"}) {
    SCOPED_TRACE(bad);
    EXPECT_NE(target_error(bad).find("sm_90a"), std::string::npos);
  }
}

TEST(TargetTest, ADevicesTargetIsArchitectureSpecificOnHopper) {
  EXPECT_EQ(Target::for_device(90).arch(), "sm_90a");
  EXPECT_EQ(Target::for_device(80).arch(), "sm_80");
  EXPECT_EQ(Target::for_device(89).arch(), "sm_89");
  EXPECT_EQ(Target::for_device(100).arch(), "sm_100");
}

TEST(TargetTest, RejectedNamesThrowCutletError) {
  EXPECT_THROW(Target::from_string("gfx90a"), Error);
  EXPECT_THROW(Target::from_string("sm_60"), Error);
}

TEST(TargetTest, Arch) {
  EXPECT_EQ(Target{80}.arch(), "sm_80");
  EXPECT_EQ(Target::from_string("compute_90").arch(), "sm_90");
  EXPECT_EQ(Target{100}.arch(), "sm_100");
}

TEST(TargetTest, PtxSmIsCappedAt90) {
  EXPECT_EQ(Target{75}.ptx_sm(), 75);
  EXPECT_EQ(Target{80}.ptx_sm(), 80);
  EXPECT_EQ(Target{89}.ptx_sm(), 89);
  EXPECT_EQ(Target{90}.ptx_sm(), 90);
  EXPECT_EQ(Target{100}.ptx_sm(), 90);
  EXPECT_EQ(Target{120}.ptx_sm(), 90);
}

TEST(TargetTest, Equality) {
  EXPECT_EQ(Target{90}, Target::default_target());
  EXPECT_NE(Target{80}, Target{90});
}

}  // namespace
}  // namespace cutlet
