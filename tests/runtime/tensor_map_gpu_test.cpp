// TMA tensor maps encoded by the driver: real buffers of every element type give maps, the
// cache answers a repeated description without the driver, and cutlet's checks agree with the
// driver's own on a sweep of random descriptions (whatever cutlet accepts the driver encodes,
// whatever it refuses the driver refuses too, so no rule is stricter than the driver's).
#include <gtest/gtest.h>

#include <cuda.h>
#include <cudaTypedefs.h>

#include <cutlet/cutlet.h>

#include <random>
#include <string>

#include "gpu_test_support.h"

using namespace cutlet;

namespace {

bool all_zero(const TensorMap& m) {
  for (std::byte b : m.bytes)
    if (b != std::byte{0}) return false;
  return true;
}

template <class T>
void encode_a_matrix_of() {
  Stream st;
  Buffer<T> b(300 * 128, st.device());
  const auto t = tensor(b, {300, 128});
  const std::uint32_t inner = static_cast<std::uint32_t>(64 / sizeof(T));
  const TensorMap m = encode_tensor_map(tensor_map_spec(t, {32, inner}, TmaSwizzle::B64));
  EXPECT_FALSE(all_zero(m)) << to_string(tma_element_of<T>());
}

TEST(TensorMapGpu, EveryElementTypeEncodes) {
  CUTLET_REQUIRE_TMA();
  encode_a_matrix_of<float>();
  encode_a_matrix_of<double>();
  encode_a_matrix_of<half>();
  encode_a_matrix_of<bfloat16>();
  encode_a_matrix_of<std::int8_t>();
  encode_a_matrix_of<std::uint16_t>();
  encode_a_matrix_of<std::int32_t>();
  encode_a_matrix_of<std::uint32_t>();
  encode_a_matrix_of<std::int64_t>();
}

TEST(TensorMapGpu, TheCacheAnswersARepeatedDescription) {
  CUTLET_REQUIRE_TMA();
  Stream st;
  Buffer<bfloat16> b(512 * 512, st.device());
  const TensorMapSpec spec = tensor_map_spec(tensor(b, {512, 512}), {64, 64}, TmaSwizzle::B128);
  const TensorMapCacheStats before = tensor_map_cache_stats();
  const TensorMap first = cached_tensor_map(spec);
  const TensorMap again = cached_tensor_map(spec);
  const TensorMapCacheStats after = tensor_map_cache_stats();
  EXPECT_EQ(first, again);
  EXPECT_EQ(first, encode_tensor_map(spec)) << "encoding is deterministic";
  EXPECT_EQ(after.encodes - before.encodes, 1u);
  EXPECT_EQ(after.hits - before.hits, 1u);
  TensorMapSpec other = spec;
  other.box[0] = 128;
  EXPECT_NE(cached_tensor_map(other), first) << "another box is another map";
}

/// The description in the driver's terms (innermost dimension first), for failure messages.
std::string text(const TensorMapSpec& s, std::uintptr_t base) {
  std::string out = std::string(to_string(s.element)) + " rank " + std::to_string(s.rank) + " at +" + std::to_string(s.address - base);
  auto list = [&](const char* name, auto get) {
    out += std::string(" ") + name + "=[";
    for (int k = 0; k < s.rank; ++k) out += (k ? "," : "") + std::to_string(get(s.rank - 1 - k));
    out += "]";
  };
  list("dims", [&](int d) { return s.shape[d]; });
  list("strides", [&](int d) { return s.strides[d]; });
  list("box", [&](int d) { return s.box[d]; });
  list("element_strides", [&](int d) { return s.element_strides[d]; });
  out += " swizzle=" + std::to_string(static_cast<int>(s.swizzle)) + " interleave=" + std::to_string(static_cast<int>(s.interleave)) +
         " oob_fill=" + std::to_string(static_cast<int>(s.oob_fill));
  return out;
}

TEST(TensorMapGpu, CutletsRulesAreTheDriversRules) {
  CUTLET_REQUIRE_TMA();
  Stream st;
  Buffer<std::uint8_t> b(1 << 24, st.device());
  auto raw = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(driver_entry_point("cuTensorMapEncodeTiled"));
  ASSERT_NE(raw, nullptr);
  std::mt19937 rng(20261202);
  auto pick = [&](std::initializer_list<std::uint64_t> v) { return *(v.begin() + rng() % v.size()); };
  const TmaElement elements[] = {TmaElement::U8, TmaElement::F16, TmaElement::BF16, TmaElement::F32, TmaElement::F64,
                                 TmaElement::I32, TmaElement::TF32};
  int accepted = 0, refused = 0;
  for (int i = 0; i < 2000; ++i) {
    TensorMapSpec s;
    s.element = elements[rng() % std::size(elements)];
    s.rank = 1 + static_cast<int>(rng() % 5);
    s.address = b.data() + pick({0, 0, 0, 16, 32, 8, 4});
    s.swizzle = static_cast<TmaSwizzle>(rng() % 4);
    s.interleave = rng() % 8 == 0 ? static_cast<TmaInterleave>(1 + rng() % 2) : TmaInterleave::None;
    s.oob_fill = rng() % 4 == 0 ? TmaOobFill::NanRequestZeroFma : TmaOobFill::Zero;
    std::uint64_t stride = 1;
    for (int d = s.rank - 1; d >= 0; --d) {
      s.shape[d] = pick({1, 3, 8, 64, 100, 1000});
      s.box[d] = static_cast<std::uint32_t>(pick({1, 2, 8, 16, 32, 64, 128, 256, 300}));
      s.element_strides[d] = static_cast<std::uint32_t>(pick({1, 1, 1, 2, 8, 9}));
      s.strides[d] = d == s.rank - 1 ? pick({1, 1, 1, 1, 2}) : stride + pick({0, 0, 1, 8, 16});
      stride = s.strides[d] * s.shape[d];
    }
    const std::string problem = tensor_map_problem(s);
    // The driver, called directly (innermost dimension first).
    cuuint64_t dims[5] = {}, strides[5] = {};
    cuuint32_t box[5] = {}, es[5] = {};
    for (int k = 0; k < s.rank; ++k) {
      const int d = s.rank - 1 - k;
      dims[k] = s.shape[d];
      box[k] = s.box[d];
      es[k] = s.element_strides[d];
      if (k > 0) strides[k - 1] = s.strides[d] * element_bytes(s.element);
    }
    // The driver takes the contiguous dimension's stride as the element size: a description
    // whose last stride is not 1 has no driver form, and only cutlet can refuse it.
    if (s.strides[s.rank - 1] != 1) {
      EXPECT_NE(problem, "") << i;
      continue;
    }
    static const CUtensorMapDataType types[] = {CU_TENSOR_MAP_DATA_TYPE_UINT8,   CU_TENSOR_MAP_DATA_TYPE_UINT16,
                                                CU_TENSOR_MAP_DATA_TYPE_UINT32,  CU_TENSOR_MAP_DATA_TYPE_INT32,
                                                CU_TENSOR_MAP_DATA_TYPE_UINT64,  CU_TENSOR_MAP_DATA_TYPE_INT64,
                                                CU_TENSOR_MAP_DATA_TYPE_FLOAT16, CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                                                CU_TENSOR_MAP_DATA_TYPE_FLOAT64, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
                                                CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ, CU_TENSOR_MAP_DATA_TYPE_TFLOAT32,
                                                CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ};
    CUtensorMap map;
    const CUresult r = raw(&map, types[static_cast<int>(s.element)], static_cast<cuuint32_t>(s.rank),
                           reinterpret_cast<void*>(s.address), dims, strides, box, es,
                           static_cast<CUtensorMapInterleave>(s.interleave), static_cast<CUtensorMapSwizzle>(s.swizzle),
                           static_cast<CUtensorMapL2promotion>(s.l2_promotion),
                           static_cast<CUtensorMapFloatOOBfill>(s.oob_fill));
    if (problem.empty()) {
      // The one rule cutlet leaves to the driver: boxes over 128 KiB (see encode_tensor_map).
      if (r != CUDA_SUCCESS && s.box_bytes() > 128 * 1024) {
        EXPECT_THROW((void)encode_tensor_map(s), CudaError) << i;
        continue;
      }
      ++accepted;
      EXPECT_EQ(r, CUDA_SUCCESS) << "cutlet accepted what the driver refuses (" << i << "): " << text(s, b.data());
      if (r == CUDA_SUCCESS) {
        EXPECT_NO_THROW((void)encode_tensor_map(s)) << i;
      }
    } else {
      ++refused;
      EXPECT_NE(r, CUDA_SUCCESS) << "cutlet refused what the driver encodes (" << i << "): " << problem << "; "
                                 << text(s, b.data());
    }
  }
  // Both sides of the rules are exercised (about 90 of the 2000 descriptions are valid).
  EXPECT_GT(accepted, 50);
  EXPECT_GT(refused, 100);
}

TEST(TensorMapGpu, AMisalignedViewIsRefusedByCutlet) {
  CUTLET_REQUIRE_TMA();
  Stream st;
  Buffer<float> b(1024, st.device());
  const auto t = tensor<float>(b.data() + 4, {32, 32}, {32, 1});
  try {
    (void)encode_tensor_map(tensor_map_spec(t, {8, 8}));
    ADD_FAILURE() << "expected an error";
  } catch (const CudaError& e) {
    ADD_FAILURE() << "the driver's error reached the user: " << e.what();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is not 16-byte aligned"), std::string::npos) << e.what();
  }
}

}  // namespace
