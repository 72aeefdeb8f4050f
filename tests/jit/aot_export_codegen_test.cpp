// Exporting kernels ahead of time (no GPU): two specializations compiled for sm_80 and sm_90 and
// written into a temporary directory. Each specialization gets one cubin per target, linked for
// that architecture, and the PTX of the newest; the parameter layouts come from the IR; the
// generated header and source compile with the runtime's headers alone.
#include "cutlet/jit/aot_export.h"

#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace cutlet;

namespace {

auto saxpy() {
  return kernel([](f32 a, Ptr<float> x, Ptr<float> y, i32 n) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < n, [&] { y[i] = a * x[i] + y[i]; });
  }, {.name = "aot_saxpy"});
}

auto scale() {
  return tile_kernel([](Tensor<float, 1> y, Tensor<float, 1> x, Const<float> K) {
    auto i = program_id(0) * 256 + arange(256);
    auto m = i < x.shape(0);
    store(y, {i}, load(x, {i}, m) * K.value(), m);
  }, {.name = "aot_scale"}, 2);
}

/// An exporter of the two specializations for sm_80 and sm_90.
aot::Exporter two_by_two(const std::string& name) {
  aot::Exporter ex(name);
  ex.targets({Target{80}, Target{90}});
  ex.add(saxpy(), "saxpy_f32").param_names({"a", "x", "y", "n"});
  ex.add<Tensor<float, 1>, Tensor<float, 1>, Const<float>>(scale(), "scale_by_3", 3.0f).param_names({"y", "x", "K"});
  return ex;
}

/// The SM a cubin was linked for, from its ELF header's e_flags: bits 8-15 from ELF ABI version
/// 8 on (CUDA 12.8 and newer), bits 0-7 before.
int cubin_sm(const std::vector<char>& cubin) {
  if (cubin.size() < 64 || std::memcmp(cubin.data(), "\x7f" "ELF", 4) != 0) return -1;
  std::uint32_t flags = 0;
  std::memcpy(&flags, cubin.data() + 0x30, 4);
  const int abi_version = static_cast<unsigned char>(cubin[8]);
  return abi_version >= 8 ? static_cast<int>((flags >> 8) & 0xff) : static_cast<int>(flags & 0xff);
}

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A new empty directory under the system's temporary one, removed with this object.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string templ = (std::filesystem::temp_directory_path() / "cutlet-aot-test-XXXXXX").string();
    path = ::mkdtemp(templ.data()) ? templ : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
};

/// Runs the C++ compiler of this build with -fsyntax-only on `file` (in `dir`) with the runtime's
/// and the IR's include directories only; returns its output, or "" when it succeeds.
std::string syntax_errors(const std::filesystem::path& file, const std::filesystem::path& dir) {
  const std::filesystem::path log = dir / "compiler.log";
  const std::string cmd = std::string("'") + CUTLET_TEST_CXX + "' -std=c++20 -fsyntax-only -Wall -Wextra -Werror" +
                          " -I'" + dir.string() + "' -I'" + CUTLET_TEST_RUNTIME_INCLUDE_DIR + "' -I'" +
                          CUTLET_TEST_IR_INCLUDE_DIR + "' -I'" + CUTLET_TEST_GENERATED_INCLUDE_DIR + "' '" +
                          file.string() + "' > '" + log.string() + "' 2>&1";
  return std::system(cmd.c_str()) == 0 ? std::string() : "$ " + cmd + "\n" + read(log);
}

TEST(AotExport, CompilesEverySpecializationForEveryTargetAndThePtxOfTheNewest) {
  const aot::ModuleSpec m = two_by_two("aot_codegen_kernels").build();
  ASSERT_EQ(m.kernels.size(), 2u);
  for (const aot::KernelSpec& k : m.kernels) {
    ASSERT_EQ(k.images.size(), 3u) << k.function;
    EXPECT_EQ(k.images[0].kind, aot::ImageKind::cubin);
    EXPECT_EQ(k.images[0].sm, 80);
    EXPECT_EQ(cubin_sm(k.images[0].bytes), 80) << k.function;
    EXPECT_EQ(k.images[1].kind, aot::ImageKind::cubin);
    EXPECT_EQ(k.images[1].sm, 90);
    EXPECT_EQ(cubin_sm(k.images[1].bytes), 90) << k.function;
    EXPECT_EQ(k.images[2].kind, aot::ImageKind::ptx);
    EXPECT_EQ(k.images[2].sm, 90);
    const std::string ptx(k.images[2].bytes.begin(), k.images[2].bytes.end());
    EXPECT_NE(ptx.find(".target sm_90"), std::string::npos) << ptx;
    EXPECT_NE(ptx.find(".entry " + k.kernel), std::string::npos) << ptx;
  }
}

TEST(AotExport, ParameterLayoutsComeFromTheSpecialization) {
  const aot::ModuleSpec m = two_by_two("aot_codegen_kernels").build();
  const aot::KernelSpec& saxpy = m.kernels[0];
  ASSERT_EQ(saxpy.params.size(), 4u);
  EXPECT_EQ(saxpy.params[0].kind, aot::ParamKind::Scalar);
  EXPECT_EQ(saxpy.params[0].cpp_type, "float");
  EXPECT_EQ(saxpy.params[1].kind, aot::ParamKind::Buffer);
  EXPECT_EQ(saxpy.params[1].cpp_type, "float");
  EXPECT_EQ(saxpy.params[1].size, 8);
  EXPECT_EQ(saxpy.params[3].cpp_type, "std::int32_t");
  EXPECT_EQ(saxpy.tile_warps, 0);

  const aot::KernelSpec& scale = m.kernels[1];
  ASSERT_EQ(scale.params.size(), 3u);
  EXPECT_EQ(scale.tile_warps, 2);
  EXPECT_EQ(scale.params[0].kind, aot::ParamKind::Tensor);
  EXPECT_EQ(scale.params[0].rank, 1);
  EXPECT_EQ(scale.params[0].size, static_cast<std::int64_t>(sizeof(TensorArg<float, 1>)));
  EXPECT_EQ(scale.params[0].align, static_cast<std::int64_t>(alignof(TensorArg<float, 1>)));
  EXPECT_EQ(scale.params[0].facts, (detail::param_traits<Tensor<float, 1>>::default_bits()));
  EXPECT_EQ(scale.params[2].kind, aot::ParamKind::Const);
  EXPECT_EQ(scale.params[2].value, ConstValue(3.0f).str());
}

TEST(AotExport, AddForTakesTheFactsOfTheTensorsGiven) {
  aot::Exporter ex("aot_facts");
  ex.add_for(scale(), "scale_any", TensorArg<float, 1>{}.generic(), TensorArg<float, 1>{}.generic(), 3.0f);
  ex.add_for(scale(), "scale_aligned", tensor<float>(0x1000, {64}, {1}), tensor<float>(0x1000, {64}, {1}), 3.0f);
  EXPECT_EQ(ex.entries()[0].function(), "scale_any");
  const aot::ModuleSpec m = ex.targets({Target{90}}).embed_ptx(false).build();
  EXPECT_EQ(m.kernels[0].params[0].facts, 0u);
  EXPECT_EQ(m.kernels[1].params[0].facts, TensorFacts::kAligned | TensorFacts::kUnitStride | TensorFacts::kShapeDiv16);
  EXPECT_EQ(m.kernels[1].images.size(), 1u);
}

TEST(AotExport, WritesAHeaderAndASourceThatCompileWithTheRuntimesHeadersAlone) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  two_by_two("aot_codegen_kernels").write(dir.path);
  const std::filesystem::path header = dir.path / "aot_codegen_kernels.h";
  const std::filesystem::path source = dir.path / "aot_codegen_kernels.cpp";
  ASSERT_TRUE(std::filesystem::exists(header));
  ASSERT_TRUE(std::filesystem::exists(source));

  // The cubin tables: a cubin per target (an ELF image) and the PTX, for each function.
  const std::string s = read(source);
  for (const std::string f : {"saxpy_f32", "scale_by_3"}) {
    for (const std::string sm : {"80", "90"}) {
      const std::string array = f + "_sm_" + sm + "_cubin";
      EXPECT_NE(s.find("{cutlet::aot::ImageKind::cubin, " + sm + ", " + array + ", sizeof " + array), std::string::npos)
          << array;
      const std::size_t at = s.find("const unsigned char " + array + "[");
      ASSERT_NE(at, std::string::npos) << array;
      EXPECT_EQ(s.substr(s.find("= {\n    ", at) + 8, 22), "0x7f, 0x45, 0x4c, 0x46") << array;
    }
    EXPECT_NE(s.find("{cutlet::aot::ImageKind::ptx, 90, " + f + "_sm_90_ptx"), std::string::npos) << f;
  }
  EXPECT_EQ(s.find("ImageKind::cubin, 86"), std::string::npos);

  const std::string h = read(header);
  EXPECT_NE(h.find("namespace aot_codegen_kernels {"), std::string::npos) << h;
  EXPECT_NE(h.find("void saxpy_f32(const cutlet::Stream& stream, const cutlet::LaunchConfig& config, float a,"),
            std::string::npos)
      << h;
  // The header alone, as the first include of a file of the user's; then the source.
  const std::filesystem::path user = dir.path / "user.cpp";
  std::ofstream(user) << "#include \"aot_codegen_kernels.h\"\n";
  EXPECT_EQ(syntax_errors(user, dir.path), "");
  EXPECT_EQ(syntax_errors(source, dir.path), "");
}

TEST(AotExport, MainTakesTheOutputDirectoryAndChecksTheName) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  const std::string out = (dir.path / "out").string();
  std::vector<std::string> args = {"exporter", out, "--name", "aot_main", "--targets", "sm_90", "--no-ptx"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  aot::Exporter ex("aot_main");
  ex.add(saxpy(), "saxpy_f32");
  EXPECT_EQ(ex.main(static_cast<int>(argv.size()), argv.data()), 0);
  EXPECT_TRUE(std::filesystem::exists(dir.path / "out" / "aot_main.h"));
  const std::string s = read(dir.path / "out" / "aot_main.cpp");
  EXPECT_NE(s.find("ImageKind::cubin, 90,"), std::string::npos);
  EXPECT_EQ(s.find("ImageKind::cubin, 80,"), std::string::npos);
  EXPECT_EQ(s.find("ImageKind::ptx"), std::string::npos);

  args[3] = "other_name";
  argv.clear();
  for (std::string& a : args) argv.push_back(a.data());
  EXPECT_EQ(ex.main(static_cast<int>(argv.size()), argv.data()), 2);
}

TEST(AotExport, RefusesTargetsGivenTwiceAndNamesThatAreNoIdentifiers) {
  aot::Exporter ex("aot_refused");
  EXPECT_THROW(ex.targets({Target{90}, Target{90}}), Error);
  try {
    ex.targets({Target{90}, Target::from_string("sm_90a")});
    ADD_FAILURE() << "sm_90 beside sm_90a was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("sm_90 and sm_90a are for one SM"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(ex.targets({Target{80}, Target::from_string("sm_90a")}));
  EXPECT_THROW(ex.targets({}), Error);
  EXPECT_THROW(ex.add(saxpy(), "saxpy").param_names({"a", "x"}), Error);  // four parameters
  ex.add(saxpy(), "not-a-name");
  EXPECT_THROW(ex.build(), Error);  // before compiling anything
}

}  // namespace
