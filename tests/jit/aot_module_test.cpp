// The C++ written for an ahead-of-time export, from a module described by hand (no compiler
// runs): launch function signatures, packing, layout checks, image tables, name checks.
#include "cutlet/jit/aot_module.h"

#include <gtest/gtest.h>

#include <string>

#include "cutlet/error.h"

namespace {

using namespace cutlet::aot;

ParamSpec param(ParamKind kind, std::string name, std::string label, std::string cpp, std::int64_t size) {
  ParamSpec p;
  p.kind = kind;
  p.name = std::move(name);
  p.label = std::move(label);
  p.cpp_type = std::move(cpp);
  p.size = p.align = size;
  return p;
}

ModuleSpec sample() {
  KernelSpec saxpy;
  saxpy.function = "saxpy_f32";
  saxpy.kernel = "saxpy";
  saxpy.defined_at = "kernels.cpp:10";
  saxpy.params = {param(ParamKind::Scalar, "a", "f32", "float", 4), param(ParamKind::Buffer, "x", "Ptr<f32>", "float", 8),
                  param(ParamKind::Scalar, "n", "i32", "std::int32_t", 4)};
  saxpy.images = {{ImageKind::cubin, 80, {'\x7f', 'E', 'L', 'F'}, 0, 12},
                  {ImageKind::cubin, 90, {'\x7f', 'E', 'L', 'F', '\x01'}, 0, 14},
                  {ImageKind::ptx, 90, {'.', 'v'}, 0, -1}};

  KernelSpec scale;
  scale.function = "scale_rows";
  scale.kernel = "scale";
  scale.defined_at = "kernels.cpp:20";
  ParamSpec t = param(ParamKind::Tensor, "t", "Tensor<f32, 2>", "float", 0);
  t.rank = 2;
  t.size = 32;  // sizeof(TensorArg<float, 2>)
  t.align = 8;
  t.facts = cutlet::TensorFacts::kAligned | cutlet::TensorFacts::kUnitStride;
  ParamSpec block;
  block.kind = ParamKind::Const;
  block.name = "BLOCK";
  block.label = "Const<i32>";
  block.value = "256";
  scale.params = {t, block};
  scale.tile_warps = 4;
  scale.images = {{ImageKind::cubin, 90, {'\x7f', 'E', 'L', 'F'}, 4096, 30}};
  return ModuleSpec{"mykernels", {}, {saxpy, scale}};
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(AotModule, HeaderDeclaresTypedLaunchFunctionsInTheModulesNamespace) {
  const std::string h = generate_header(sample());
  EXPECT_TRUE(has(h, "#include <cutlet/runtime/aot_kernel.h>")) << h;
  EXPECT_TRUE(has(h, "namespace mykernels {")) << h;
  EXPECT_TRUE(has(h, "void saxpy_f32(const cutlet::Stream& stream, const cutlet::LaunchConfig& config, float a,"))
      << h;
  EXPECT_TRUE(has(h, "const cutlet::Buffer<float>& x, std::int32_t n);")) << h;
  // Const parameters are compiled in: no parameter of the function, named in its comment.
  EXPECT_TRUE(has(h, "const cutlet::TensorArg<float, 2>& t);")) << h;
  EXPECT_TRUE(has(h, "BLOCK = 256")) << h;
  EXPECT_TRUE(has(h, "every block has 128 threads")) << h;
  EXPECT_TRUE(has(h, "Tensor `t` must have 16-byte aligned data, a unit last stride")) << h;
  EXPECT_TRUE(has(h, "cutlet::aot::ExportedKernel& scale_rows_kernel();")) << h;
  EXPECT_FALSE(has(h, "cutlet/jit")) << h;
  EXPECT_FALSE(has(h, "cutlet/language")) << h;
}

TEST(AotModule, SourceEmbedsEveryImageAndPacksTheParametersInOrder) {
  const std::string s = generate_source(sample());
  EXPECT_TRUE(has(s, "#include \"mykernels.h\"")) << s;
  EXPECT_TRUE(has(s, "alignas(64) const unsigned char saxpy_f32_sm_80_cubin[4] = {\n    0x7f, 0x45, 0x4c, 0x46,\n};"))
      << s;
  EXPECT_TRUE(has(s, "saxpy_f32_sm_90_ptx[3] = {\n    0x2e, 0x76, 0x00,\n};")) << s;  // PTX ends in a NUL
  EXPECT_TRUE(has(s, "{cutlet::aot::ImageKind::cubin, 80, saxpy_f32_sm_80_cubin, sizeof saxpy_f32_sm_80_cubin, 0},"))
      << s;
  EXPECT_TRUE(has(s, "{cutlet::aot::ImageKind::ptx, 90, saxpy_f32_sm_90_ptx, sizeof saxpy_f32_sm_90_ptx, 0},")) << s;
  EXPECT_TRUE(has(s, "{cutlet::aot::ImageKind::cubin, 90, scale_rows_sm_90_cubin, sizeof scale_rows_sm_90_cubin, 4096},"))
      << s;
  EXPECT_TRUE(has(s, "scale_rows_info{\"mykernels::scale_rows\", \"scale\", scale_rows_images, 128, nullptr};")) << s;
  EXPECT_TRUE(has(s, "std::uint64_t cutlet_arg1 = cutlet::aot::buffer_argument(cutlet_kernel, config, 1, x);")) << s;
  EXPECT_TRUE(has(s, "void* cutlet_args[] = {&a, &cutlet_arg1, &n, nullptr};")) << s;
  EXPECT_TRUE(has(s, "cutlet::aot::check_tensor_argument(cutlet_kernel, config, 0, 3u, t);")) << s;
  EXPECT_TRUE(has(s, "static_assert(sizeof(cutlet::TensorArg<float, 2>) == 32 && alignof(cutlet::TensorArg<float, 2>) == 8,"))
      << s;
  EXPECT_TRUE(has(s, "static_assert(CUTLET_VERSION_MAJOR == ")) << s;
}

TEST(AotModule, NamesMustBeIdentifiersTheGeneratedCodeDoesNotUse) {
  const auto message = [](ModuleSpec m) {
    try {
      check_module(m);
    } catch (const cutlet::Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  ModuleSpec m = sample();
  m.name = "my-kernels";
  EXPECT_TRUE(has(message(m), "it has a '-'"));
  m = sample();
  m.kernels[1].function = "saxpy_f32";
  EXPECT_TRUE(has(message(m), "two specializations would declare 'saxpy_f32'"));
  m = sample();
  m.kernels[1].function = "saxpy_f32_kernel";
  EXPECT_TRUE(has(message(m), "would declare 'saxpy_f32_kernel'"));
  m = sample();
  m.kernels[0].params[0].name = "config";
  EXPECT_TRUE(has(message(m), "taken by the generated code"));
  m = sample();
  m.kernels[0].params[0].name = "int";
  EXPECT_TRUE(has(message(m), "C++ keyword"));
  m = sample();
  m.kernels[0].params[2].name = "a";
  EXPECT_TRUE(has(message(m), "two parameters named 'a'"));
  m = sample();
  m.kernels[0].params[0] = param(ParamKind::Struct, "p", "Struct<P>", "(anonymous namespace)::P", 8);
  EXPECT_TRUE(has(message(m), "Exporter::include()"));
  EXPECT_EQ(message(sample()), "");
}

TEST(AotModule, ASpecializationWithoutImagesIsNotWritten) {
  ModuleSpec m = sample();
  m.kernels[0].images.clear();
  EXPECT_THROW(generate_source(m), cutlet::Error);
}

TEST(AotModule, ScalarTypesAreSpelledAsCppTypes) {
  EXPECT_EQ(cpp_scalar_type(cutlet::ir::Type::f32()), "float");
  EXPECT_EQ(cpp_scalar_type(cutlet::ir::Type::u64()), "std::uint64_t");
  EXPECT_EQ(cpp_scalar_type(cutlet::ir::Type::i1()), "bool");
  EXPECT_EQ(cpp_scalar_type(cutlet::ir::Type::bf16()), "cutlet::bfloat16");
}

}  // namespace
