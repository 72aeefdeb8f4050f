// Linking PTX to cubins with nvJitLink, its error log in exceptions, and resource reports.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cutlet/backend/compiler.h"
#include "cutlet/ir/builder.h"

namespace cutlet {
namespace {

using namespace ir;
using Args = std::span<const ValueId>;
using Values = std::vector<ValueId>;

/// out[i] = x[i] * x[i] + 1 for i < n.
Function square_plus_one() {
  Function f("square_plus_one");
  Builder b(f);
  ValueId x = b.add_param(Type::pointer(Type::f32()));
  ValueId out = b.add_param(Type::pointer(Type::f32()));
  ValueId n = b.add_param(Type::i32());
  ValueId i = b.binary(Opcode::Add, b.binary(Opcode::Mul, b.special(SpecialReg::BlockIdxX), b.special(SpecialReg::BlockDimX)),
                       b.special(SpecialReg::ThreadIdxX));
  b.if_(b.cmp(Predicate::Lt, i, n), {}, [&](Args) {
    ValueId v = b.load(b.ptr_add(x, i));
    b.store(b.ptr_add(out, i), b.binary(Opcode::Add, b.binary(Opcode::Mul, v, v), b.const_float(Type::f32(), 1.0)));
    return Values{};
  }, {});
  return f;
}

/// True when `bin` is an ELF file for NVIDIA GPUs (e_machine EM_CUDA = 190).
::testing::AssertionResult is_cuda_elf(const std::vector<char>& bin) {
  if (bin.size() < 20) return ::testing::AssertionFailure() << "only " << bin.size() << " bytes";
  if (std::memcmp(bin.data(), "\x7f" "ELF", 4) != 0) return ::testing::AssertionFailure() << "no ELF magic";
  std::uint16_t machine = static_cast<std::uint8_t>(bin[18]) | (static_cast<std::uint8_t>(bin[19]) << 8);
  if (machine != 190) return ::testing::AssertionFailure() << "e_machine " << machine << ", not EM_CUDA (190)";
  return ::testing::AssertionSuccess();
}

std::string compile_error(const std::string& ptx, const Target& t, const std::string& name) {
  try {
    link_ptx(ptx, t, name);
  } catch (const CompileError& e) {
    return e.what();
  }
  ADD_FAILURE() << "link_ptx accepted broken PTX";
  return {};
}

/// A minimal hand-written kernel.
const char* kHandWrittenPtx = R"(.version 8.0
.target sm_80
.address_size 64

.visible .entry store_seven(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, 7;
  st.global.u32 [%rd2], %r1;
  ret;
}
)";

class CompileForTarget : public ::testing::TestWithParam<int> {};

TEST_P(CompileForTarget, ProducesACubinWithResourceUsage) {
  CompileOptions o;
  o.target = Target{GetParam()};
  CompiledKernel k = compile(square_plus_one(), o);
  EXPECT_EQ(k.name, "square_plus_one");
  EXPECT_NE(k.ptx.find(".visible .entry square_plus_one("), std::string::npos);
  EXPECT_TRUE(is_cuda_elf(k.cubin));
  EXPECT_GT(k.resources.registers, 0) << k.link_log;
  EXPECT_LT(k.resources.registers, 256) << k.link_log;
  EXPECT_EQ(k.resources.spill_store_bytes, 0) << k.link_log;
  if (GetParam() < 100) {
    EXPECT_GT(k.resources.constant_bytes, 0) << k.link_log;  // parameters in cmem[0]
  }
  EXPECT_EQ(cubin_resource_usage(k.cubin, k.name).registers, parse_resource_usage(k.link_log, k.name).registers);
  EXPECT_GE(k.timings.link_ms, 0.0);
  EXPECT_TRUE(k.llvm_ir.empty());  // only kept on request
}

TEST(LinkCodegenTest, CompilesForSm90a) {
  CompileOptions o;
  o.target = Target::from_string("sm_90a");
  CompiledKernel k = compile(square_plus_one(), o);
  EXPECT_NE(k.ptx.find(".target sm_90a"), std::string::npos) << k.ptx.substr(0, 400);
  EXPECT_TRUE(is_cuda_elf(k.cubin));
  EXPECT_GT(k.resources.registers, 0) << k.link_log;
  o.target = Target{90};
  EXPECT_NE(compile(square_plus_one(), o).ptx.find(".target sm_90\n"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Sm, CompileForTarget, ::testing::Values(80, 90, 100),
                         [](const ::testing::TestParamInfo<int>& p) { return "sm_" + std::to_string(p.param); });

TEST(LinkCodegenTest, LinksHandWrittenPtx) {
  std::string log;
  std::vector<char> cubin = link_ptx(kHandWrittenPtx, Target{80}, "store_seven", &log);
  EXPECT_TRUE(is_cuda_elf(cubin));
  ResourceUsage u = parse_resource_usage(log, "store_seven");
  EXPECT_GT(u.registers, 0) << log;
}

TEST(LinkCodegenTest, TheCubinHoldsTheReportedRegistersAndMemory) {
  // What compile() falls back on when nvJitLink answers from its cache without a report.
  std::string log;
  std::vector<char> cubin = link_ptx(kHandWrittenPtx, Target{90}, "store_seven", &log);
  const ResourceUsage reported = parse_resource_usage(log, "store_seven");
  const ResourceUsage read = cubin_resource_usage(cubin, "store_seven");
  ASSERT_GT(reported.registers, 0) << log;
  EXPECT_EQ(read.registers, reported.registers) << log;
  EXPECT_EQ(read.shared_bytes, reported.shared_bytes) << log;
  EXPECT_EQ(read.constant_bytes, reported.constant_bytes) << log;
  EXPECT_EQ(read.stack_bytes, reported.stack_bytes) << log;
  EXPECT_EQ(cubin_resource_usage(link_ptx(kHandWrittenPtx, Target{80}, "store_seven"), "store_seven").registers,
            parse_resource_usage(log, "store_seven").registers);
  EXPECT_EQ(cubin_resource_usage(cubin, "no_such_kernel").registers, -1);
  EXPECT_EQ(cubin_resource_usage(std::vector<char>(10, 'x'), "store_seven").registers, -1);
  std::vector<char> cut(cubin.begin(), cubin.begin() + static_cast<std::ptrdiff_t>(cubin.size() / 2));
  (void)cubin_resource_usage(cut, "store_seven");  // a truncated file reads nothing past its end
}

TEST(LinkCodegenTest, SyntaxErrorThrowsWithTheLinkersLog) {
  std::string broken = kHandWrittenPtx;
  broken.replace(broken.find("mov.u32"), 7, "mvo.u32");  // no such instruction
  std::string msg = compile_error(broken, Target{90}, "store_seven");
  EXPECT_NE(msg.find("store_seven"), std::string::npos) << msg;
  EXPECT_NE(msg.find("sm_90"), std::string::npos) << msg;
  EXPECT_NE(msg.find("nvJitLink error log"), std::string::npos) << msg;
  EXPECT_TRUE(msg.find("ptxas") != std::string::npos || msg.find("error") != std::string::npos) << msg;
  EXPECT_NE(msg.find("mvo"), std::string::npos) << msg;  // the log points at the bad instruction
}

TEST(LinkCodegenTest, UndeclaredRegisterThrows) {
  std::string broken = kHandWrittenPtx;
  broken.replace(broken.find("  .reg .b32 %r<2>;\n"), std::strlen("  .reg .b32 %r<2>;\n"), "");
  std::string msg = compile_error(broken, Target{80}, "store_seven");
  EXPECT_NE(msg.find("%r1"), std::string::npos) << msg;
}

TEST(LinkCodegenTest, GarbageThrowsCompileError) {
  EXPECT_THROW(link_ptx("this is not PTX", Target{90}, "garbage"), CompileError);
  EXPECT_THROW(link_ptx("this is not PTX", Target{90}, "garbage"), Error);  // a cutlet::Error, too
}

TEST(LinkCodegenTest, Versions) {
  EXPECT_EQ(llvm_version().rfind("19.", 0), 0u) << llvm_version();
  std::string v = nvjitlink_version();
  EXPECT_NE(v, "unknown");
  EXPECT_NE(v.find('.'), std::string::npos) << v;
  // The build of the library loaded: the same all along, and more than the version.
  const std::string build = nvjitlink_build_id();
  EXPECT_EQ(build, nvjitlink_build_id());
  EXPECT_TRUE(build.rfind("gnu-build-id:", 0) == 0 || build.rfind("file:", 0) == 0) << build;
}

// ---- parse_resource_usage ----------------------------------------------------------------

const char* kTwoKernelLog =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function 'other' for 'sm_90'\n"
    "ptxas info    : Function properties for other\n"
    "    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
    "ptxas info    : Used 40 registers, used 1 barriers, 1024 bytes smem, 380 bytes cmem[0]\n"
    "ptxas info    : Compiling entry function 'saxpy' for 'sm_90'\n"
    "ptxas info    : Function properties for saxpy\n"
    "    16 bytes stack frame, 12 bytes spill stores, 20 bytes spill loads\n"
    "ptxas info    : Used 10 registers, used 0 barriers, 256 bytes smem, 372 bytes cmem[0]\n";

TEST(ParseResourceUsageTest, ReadsTheNamedKernel) {
  ResourceUsage u = parse_resource_usage(kTwoKernelLog, "saxpy");
  EXPECT_EQ(u.registers, 10);
  EXPECT_EQ(u.stack_bytes, 16);
  EXPECT_EQ(u.spill_store_bytes, 12);
  EXPECT_EQ(u.spill_load_bytes, 20);
  EXPECT_EQ(u.shared_bytes, 256);
  EXPECT_EQ(u.constant_bytes, 372);

  ResourceUsage o = parse_resource_usage(kTwoKernelLog, "other");
  EXPECT_EQ(o.registers, 40);
  EXPECT_EQ(o.stack_bytes, 8);
  EXPECT_EQ(o.spill_store_bytes, 4);
  EXPECT_EQ(o.spill_load_bytes, 4);
  EXPECT_EQ(o.shared_bytes, 1024);
  EXPECT_EQ(o.constant_bytes, 380);
}

TEST(ParseResourceUsageTest, WithoutAReportNothingIsKnown) {
  ResourceUsage u = parse_resource_usage("", "saxpy");
  EXPECT_EQ(u.registers, -1);
  EXPECT_EQ(u.shared_bytes, 0);
  EXPECT_EQ(u.stack_bytes, 0);
  EXPECT_EQ(u.constant_bytes, 0);
}

TEST(ParseResourceUsageTest, ReadsALogWithoutSharedMemory) {
  ResourceUsage u = parse_resource_usage(
      "ptxas info    : Function properties for k\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 6 registers, used 0 barriers, 372 bytes cmem[0]\n",
      "k");
  EXPECT_EQ(u.registers, 6);
  EXPECT_EQ(u.shared_bytes, 0);
  EXPECT_EQ(u.constant_bytes, 372);
}

}  // namespace
}  // namespace cutlet
