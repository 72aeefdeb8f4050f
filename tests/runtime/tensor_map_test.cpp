// TMA tensor map descriptions: element types, the box's shared-memory size, and every rule of
// cuTensorMapEncodeTiled checked before the driver sees a description, with the way out in the
// message. No GPU: without a driver, encoding stops at the driver with NoDriverError.
#include "cutlet/runtime/tensor_map.h"

#include <gtest/gtest.h>

#include <cutlet/runtime/driver.h>

#include <string>

#include "cutlet/error.h"
#include "cutlet/runtime/cuda_error.h"

using namespace cutlet;

namespace {

/// A valid description: a 1000 x 4096 bf16 row-major matrix at a 256-byte-aligned address,
/// boxes of 64 x 64 with the 128-byte swizzle (a GEMM operand tile).
TensorMapSpec gemm_operand() {
  TensorMapSpec s;
  s.element = TmaElement::BF16;
  s.rank = 2;
  s.address = 0x7f0000000100ull;
  s.shape = {1000, 4096};
  s.strides = {4096, 1};
  s.box = {64, 64};
  s.swizzle = TmaSwizzle::B128;
  return s;
}

/// tensor_map_problem of gemm_operand() changed by `change`.
template <class F>
std::string problem_after(F change) {
  TensorMapSpec s = gemm_operand();
  change(s);
  return tensor_map_problem(s);
}

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

TEST(TensorMap, ElementTypesOfEveryScalarType) {
  EXPECT_EQ(tma_element_of<float>(), TmaElement::F32);
  EXPECT_EQ(tma_element_of<double>(), TmaElement::F64);
  EXPECT_EQ(tma_element_of<half>(), TmaElement::F16);
  EXPECT_EQ(tma_element_of<bfloat16>(), TmaElement::BF16);
  EXPECT_EQ(tma_element_of<std::int8_t>(), TmaElement::U8) << "a copy does not care about the sign";
  EXPECT_EQ(tma_element_of<std::uint8_t>(), TmaElement::U8);
  EXPECT_EQ(tma_element_of<std::int16_t>(), TmaElement::U16);
  EXPECT_EQ(tma_element_of<std::uint16_t>(), TmaElement::U16);
  EXPECT_EQ(tma_element_of<std::int32_t>(), TmaElement::I32);
  EXPECT_EQ(tma_element_of<std::uint32_t>(), TmaElement::U32);
  EXPECT_EQ(tma_element_of<std::int64_t>(), TmaElement::I64);
  EXPECT_EQ(tma_element_of<std::uint64_t>(), TmaElement::U64);
  for (auto [e, bytes] : {std::pair{TmaElement::U8, 1u}, {TmaElement::BF16, 2u}, {TmaElement::TF32, 4u}, {TmaElement::F64, 8u}})
    EXPECT_EQ(element_bytes(e), bytes) << to_string(e);
  EXPECT_TRUE(is_floating(TmaElement::TF32));
  EXPECT_FALSE(is_floating(TmaElement::I32));
}

TEST(TensorMap, SpecOfATensorArgKeepsCutletsOrder) {
  TensorArg<half, 3> t;
  t.data = 0x1000;
  t.shape[0] = 4, t.shape[1] = 128, t.shape[2] = 96;
  t.strides[0] = 128 * 96, t.strides[1] = 96, t.strides[2] = 1;
  const TensorMapSpec s = tensor_map_spec(t, {1, 64, 32}, TmaSwizzle::B64);
  EXPECT_EQ(s.element, TmaElement::F16);
  EXPECT_EQ(s.rank, 3);
  EXPECT_EQ(s.address, 0x1000u);
  EXPECT_EQ(s.shape[0], 4u);
  EXPECT_EQ(s.shape[2], 96u);
  EXPECT_EQ(s.strides[1], 96u);
  EXPECT_EQ(s.box[1], 64u);
  EXPECT_EQ(s.swizzle, TmaSwizzle::B64);
  EXPECT_EQ(tensor_map_problem(s), "");
  EXPECT_EQ(s.box_bytes(), 1u * 64 * 32 * 2);
}

TEST(TensorMap, BoxBytesCountEveryStridedElement) {
  TensorMapSpec s = gemm_operand();
  EXPECT_EQ(s.box_bytes(), 64u * 64 * 2);
  s.element_strides = {2, 4, 1, 1, 1};  // the contiguous dimension's stride is ignored
  EXPECT_EQ(s.box_bytes(), 32u * 64 * 2);
  s.box = {63, 64};
  EXPECT_EQ(s.box_bytes(), 32u * 64 * 2) << "ceil(63 / 2) rows";
}

TEST(TensorMap, AValidDescriptionHasNoProblem) {
  EXPECT_EQ(tensor_map_problem(gemm_operand()), "");
  EXPECT_EQ(problem_after([](TensorMapSpec& s) { s.swizzle = TmaSwizzle::None; }), "");
  EXPECT_EQ(problem_after([](TensorMapSpec& s) {
              s.rank = 1;
              s.shape = {3, 0, 0, 0, 0};  // a ragged edge is fine: TMA fills outside the tensor
              s.strides = {1, 0, 0, 0, 0};
              s.box = {8, 0, 0, 0, 0};
              s.swizzle = TmaSwizzle::None;
            }),
            "");
  EXPECT_EQ(problem_after([](TensorMapSpec& s) { s.oob_fill = TmaOobFill::NanRequestZeroFma; }), "");
}

TEST(TensorMap, EveryRuleOfTheDriverIsCheckedWithTheWayOut) {
  auto p = [](auto change) { return problem_after(change); };
  EXPECT_TRUE(has(p([](TensorMapSpec& s) { s.rank = 0; }), "1 to 5 dimensions, not 0"));
  EXPECT_TRUE(has(p([](TensorMapSpec& s) { s.rank = 6; }), "1 to 5 dimensions, not 6"));
  EXPECT_TRUE(has(p([](TensorMapSpec& s) { s.interleave = TmaInterleave::B16; }), "at least 3 dimensions"));
  const std::string misaligned = p([](TensorMapSpec& s) { s.address += 8; });
  EXPECT_TRUE(has(misaligned, "0x7f0000000108 is not 16-byte aligned")) << misaligned;
  EXPECT_TRUE(has(misaligned, "a multiple of 8 elements")) << misaligned;
  EXPECT_TRUE(has(p([](TensorMapSpec& s) { s.shape[0] = 0; }), "extent 0 of dimension 0 of [0, 4096] is outside [1, 2^32]"));
  EXPECT_TRUE(has(p([](TensorMapSpec& s) { s.shape[1] = (1ull << 32) + 1; }), "outside [1, 2^32]"));
  EXPECT_EQ(p([](TensorMapSpec& s) { s.shape[1] = 1ull << 32; }), "");
  EXPECT_TRUE(has(p([](TensorMapSpec& s) { s.strides[1] = 2; }), "the last dimension must be contiguous (stride 1, not 2)"));
  const std::string row = p([](TensorMapSpec& s) { s.strides[0] = 4100; });
  EXPECT_TRUE(has(row, "stride 4100 of dimension 0 (8200 bytes) is not a multiple of 16 bytes")) << row;
  EXPECT_TRUE(has(row, "pad the rows to a multiple of 8 elements")) << row;
  EXPECT_TRUE(has(p([](TensorMapSpec& s) { s.strides[0] = 0; }), "cannot broadcast"));
  EXPECT_TRUE(has(p([](TensorMapSpec& s) { s.strides[0] = 1ull << 39; }), "2^40 bytes or more"));
  EXPECT_TRUE(has(p([](TensorMapSpec& s) { s.box[0] = 257; }), "1 to 256 elements, dimension 0 has 257"));
  EXPECT_TRUE(has(p([](TensorMapSpec& s) { s.box[1] = 0; }), "dimension 1 has 0"));
  EXPECT_TRUE(has(p([](TensorMapSpec& s) { s.element_strides[0] = 9; }), "element stride 9 of dimension 0 is outside [1, 8]"));
  const std::string narrow = p([](TensorMapSpec& s) {
    s.box[1] = 12;
    s.swizzle = TmaSwizzle::None;
  });
  EXPECT_TRUE(has(narrow, "its contiguous dimension is 24 bytes, and TMA moves multiples of 16 bytes")) << narrow;
  EXPECT_TRUE(has(narrow, "a multiple of 8 elements")) << narrow;
  const std::string wide = p([](TensorMapSpec& s) { s.swizzle = TmaSwizzle::B64; });
  EXPECT_TRUE(has(wide, "128 bytes, wider than the 64-byte swizzle span; use at most 32 elements")) << wide;
  // Interleaved maps move 16-byte multiples too, with any swizzle (as the driver encodes them).
  auto interleaved = [](int inner, TmaSwizzle swizzle) {
    return [=](TensorMapSpec& s) {
      s.rank = 3;
      s.shape = {2, 1000, 4096};
      s.strides = {1000 * 4096, 4096, 1};
      s.box = {1, 8, static_cast<std::uint32_t>(inner)};
      s.interleave = TmaInterleave::B32;
      s.swizzle = swizzle;
    };
  };
  EXPECT_TRUE(has(p(interleaved(4, TmaSwizzle::B32)), "an interleaved tensor map moves multiples of 16 bytes"));
  EXPECT_EQ(p(interleaved(64, TmaSwizzle::None)), "");
  EXPECT_EQ(p(interleaved(128, TmaSwizzle::B128)), "");
  // Box sizes are the driver's to judge (its rule is not a plain limit): a 256 KiB box passes.
  EXPECT_EQ(p([](TensorMapSpec& s) {
              s.rank = 3;
              s.shape = {4, 1000, 4096};
              s.strides = {1000 * 4096, 4096, 1};
              s.box = {2, 256, 256};
              s.swizzle = TmaSwizzle::None;
            }),
            "");
  EXPECT_TRUE(has(p([](TensorMapSpec& s) {
                s.element = TmaElement::I32;
                s.box[1] = 16;
                s.oob_fill = TmaOobFill::NanRequestZeroFma;
              }),
                  "for floating-point tensors, not i32"));
}

TEST(TensorMap, EncodingRefusesABadDescriptionBeforeTheDriver) {
  TensorMapSpec s = gemm_operand();
  s.box[0] = 512;
  try {
    (void)encode_tensor_map(s);
    ADD_FAILURE() << "expected an error";
  } catch (const NoDriverError&) {
    ADD_FAILURE() << "the description was checked only after loading the driver";
  } catch (const Error& e) {
    EXPECT_TRUE(has(e.what(), "cutlet: tensor map: box [512, 64]")) << e.what();
  }
}

TEST(TensorMap, WithoutADriverEncodingSaysSo) {
  if (driver_available()) GTEST_SKIP() << "a CUDA driver is present (the GPU tests encode)";
  EXPECT_THROW((void)encode_tensor_map(gemm_operand()), NoDriverError);
  EXPECT_THROW((void)cached_tensor_map(gemm_operand()), NoDriverError);
  EXPECT_EQ(tensor_map_cache_stats().encodes, 0u) << "a failed encode is not cached";
}

}  // namespace
