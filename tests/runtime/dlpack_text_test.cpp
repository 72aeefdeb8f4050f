// DLPack dtypes of C++ types and the names messages give dtypes (no GPU needed).
#include "cutlet/runtime/dlpack.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "cutlet/language/half.h"

namespace {

constexpr bool is(DLDataType t, DLDataTypeCode code, int bits) {
  return t.code == code && t.bits == bits && t.lanes == 1;
}

static_assert(is(cutlet::dlpack_dtype<bool>(), kDLBool, 8));
static_assert(is(cutlet::dlpack_dtype<std::int8_t>(), kDLInt, 8));
static_assert(is(cutlet::dlpack_dtype<std::int16_t>(), kDLInt, 16));
static_assert(is(cutlet::dlpack_dtype<std::int32_t>(), kDLInt, 32));
static_assert(is(cutlet::dlpack_dtype<std::int64_t>(), kDLInt, 64));
static_assert(is(cutlet::dlpack_dtype<std::uint8_t>(), kDLUInt, 8));
static_assert(is(cutlet::dlpack_dtype<std::uint16_t>(), kDLUInt, 16));
static_assert(is(cutlet::dlpack_dtype<std::uint32_t>(), kDLUInt, 32));
static_assert(is(cutlet::dlpack_dtype<std::uint64_t>(), kDLUInt, 64));
static_assert(is(cutlet::dlpack_dtype<cutlet::half>(), kDLFloat, 16));
static_assert(is(cutlet::dlpack_dtype<cutlet::bfloat16>(), kDLBfloat, 16));
static_assert(is(cutlet::dlpack_dtype<float>(), kDLFloat, 32));
static_assert(is(cutlet::dlpack_dtype<double>(), kDLFloat, 64));
static_assert(is(cutlet::dlpack_dtype<const volatile std::uint16_t>(), kDLUInt, 16));

TEST(DLPackNoGpu, DtypesOfCppTypes) {
  // The static_asserts above are the test; this keeps it visible in the test list.
  SUCCEED();
}

TEST(DLPackNoGpu, DtypeNames) {
  using cutlet::dlpack_dtype_name;
  EXPECT_EQ(dlpack_dtype_name(cutlet::dlpack_dtype<std::int32_t>()), "int32");
  EXPECT_EQ(dlpack_dtype_name(cutlet::dlpack_dtype<std::uint8_t>()), "uint8");
  EXPECT_EQ(dlpack_dtype_name(cutlet::dlpack_dtype<cutlet::half>()), "float16");
  EXPECT_EQ(dlpack_dtype_name(cutlet::dlpack_dtype<cutlet::bfloat16>()), "bfloat16");
  EXPECT_EQ(dlpack_dtype_name(cutlet::dlpack_dtype<bool>()), "bool");
  EXPECT_EQ(dlpack_dtype_name(DLDataType{kDLComplex, 64, 1}), "complex64");
  EXPECT_EQ(dlpack_dtype_name(DLDataType{kDLFloat, 32, 4}), "float32x4");
  EXPECT_EQ(dlpack_dtype_name(DLDataType{10, 8, 1}), "float8_e4m3fn");  // kDLFloat8_e4m3fn
  EXPECT_EQ(dlpack_dtype_name(DLDataType{12, 8, 1}), "float8_e5m2");    // kDLFloat8_e5m2
  EXPECT_EQ(dlpack_dtype_name(DLDataType{17, 4, 1}), "float4_e2m1fn");  // kDLFloat4_e2m1fn
  EXPECT_EQ(dlpack_dtype_name(DLDataType{kDLBool, 16, 1}), "bool of 16 bits");
  EXPECT_EQ(dlpack_dtype_name(DLDataType{42, 8, 1}), "dtype code 42, 8 bits");
}

}  // namespace
