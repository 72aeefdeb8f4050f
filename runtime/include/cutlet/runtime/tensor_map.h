// TMA tensor maps (Hopper and later): the descriptor through which the tensor memory
// accelerator copies boxes of a tensor between global and shared memory. Made on the host
// (cuTensorMapEncodeTiled, through the loaded driver) from a tensor's shape, strides and a box,
// checked first against every rule the driver sets, cached per description, and passed to a
// kernel by value (128 bytes, 64-byte aligned, like a __grid_constant__ parameter).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "cutlet/runtime/float8.h"
#include "cutlet/runtime/half.h"
#include "cutlet/runtime/tensor_arg.h"

namespace cutlet {

/// What a tensor map moves, element by element (CUtensorMapDataType). A copy does not care
/// about signedness: 8-bit integers and the 8-bit floats are U8, 16-bit integers U16.
enum class TmaElement : std::uint8_t { U8, U16, U32, I32, U64, I64, F16, F32, F64, BF16, F32Ftz, TF32, TF32Ftz };

/// Bytes of one element of `e`.
std::size_t element_bytes(TmaElement e);
/// "u8", "f16", "bf16", "tf32", ...
const char* to_string(TmaElement e);
/// Whether `e` is a floating-point type (the only ones a NaN out-of-bounds fill is allowed for).
bool is_floating(TmaElement e);

/// The TmaElement of a tensor of T: every scalar type of the tile language.
template <class T>
constexpr TmaElement tma_element_of() {
  if constexpr (std::is_same_v<T, float>) return TmaElement::F32;
  else if constexpr (std::is_same_v<T, double>) return TmaElement::F64;
  else if constexpr (std::is_same_v<T, half>) return TmaElement::F16;
  else if constexpr (std::is_same_v<T, bfloat16>) return TmaElement::BF16;
  else if constexpr (std::is_same_v<T, float8_e4m3> || std::is_same_v<T, float8_e5m2>) return TmaElement::U8;
  else if constexpr (std::is_integral_v<T> && sizeof(T) == 1) return TmaElement::U8;
  else if constexpr (std::is_integral_v<T> && sizeof(T) == 2) return TmaElement::U16;
  else if constexpr (std::is_same_v<T, std::int32_t>) return TmaElement::I32;
  else if constexpr (std::is_integral_v<T> && sizeof(T) == 4) return TmaElement::U32;
  else if constexpr (std::is_signed_v<T> && sizeof(T) == 8) return TmaElement::I64;
  else if constexpr (std::is_integral_v<T> && sizeof(T) == 8) return TmaElement::U64;
  else static_assert(sizeof(T) == 0, "cutlet: a tensor map holds integers of 1 to 8 bytes, fp8, f16, bf16, f32 or f64");
}

/// How a box is laid out in shared memory: its 16-byte chunks permuted within each span of
/// 32, 64 or 128 bytes (CU_TENSOR_MAP_SWIZZLE_*), which keeps the reads of an MMA's operands
/// free of bank conflicts. A box's contiguous dimension may be at most the span wide.
enum class TmaSwizzle : std::uint8_t { None, B32, B64, B128 };
/// The span of `s` in bytes (0 for None).
unsigned swizzle_bytes(TmaSwizzle s);

/// Interleaved layouts such as NC/8HWC8 (CU_TENSOR_MAP_INTERLEAVE_*); None for plain tensors.
enum class TmaInterleave : std::uint8_t { None, B16, B32 };
/// The size of the L2 requests a transfer makes (CU_TENSOR_MAP_L2_PROMOTION_*).
enum class TmaL2Promotion : std::uint8_t { None, B64, B128, B256 };
/// What a load reads outside the tensor: zeros, or (floating types only) a NaN that makes
/// the FMA it feeds produce zero (CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA).
enum class TmaOobFill : std::uint8_t { Zero, NanRequestZeroFma };

/// The description a tensor map is encoded from, in cutlet's order: dimension 0 outermost,
/// the last one contiguous (row-major, as TensorArg). Every extent, stride and box size is
/// in elements.
struct TensorMapSpec {
  static constexpr int kMaxRank = 5;
  TmaElement element = TmaElement::F32;
  int rank = 0;
  std::uint64_t address = 0;                           ///< the tensor's first element
  std::array<std::uint64_t, kMaxRank> shape{};         ///< extents, [0, rank)
  std::array<std::uint64_t, kMaxRank> strides{};       ///< strides[rank - 1] must be 1
  std::array<std::uint32_t, kMaxRank> box{};           ///< elements per dimension of one transfer
  std::array<std::uint32_t, kMaxRank> element_strides{1, 1, 1, 1, 1};  ///< every k-th element
  TmaSwizzle swizzle = TmaSwizzle::None;
  TmaInterleave interleave = TmaInterleave::None;
  TmaL2Promotion l2_promotion = TmaL2Promotion::B128;
  TmaOobFill oob_fill = TmaOobFill::Zero;

  /// Bytes one transfer writes to shared memory: the box's elements (every element_strides-th).
  std::size_t box_bytes() const;
  bool operator==(const TensorMapSpec&) const = default;
};

/// A description of `t` with `box` elements per dimension (outermost first), 128-byte L2
/// promotion, zeros out of bounds.
template <class T, int R>
TensorMapSpec tensor_map_spec(const TensorArg<T, R>& t, const std::uint32_t (&box)[R],
                              TmaSwizzle swizzle = TmaSwizzle::None) {
  static_assert(R >= 1 && R <= TensorMapSpec::kMaxRank, "cutlet: a tensor map has 1 to 5 dimensions");
  TensorMapSpec s;
  s.element = tma_element_of<T>();
  s.rank = R;
  s.address = t.data;
  for (int d = 0; d < R; ++d) {
    s.shape[d] = static_cast<std::uint64_t>(t.shape[d]);
    s.strides[d] = static_cast<std::uint64_t>(t.strides[d]);
    s.box[d] = box[d];
  }
  s.swizzle = swizzle;
  return s;
}

/// An encoded tensor map (CUtensorMap): opaque bytes that a kernel receives by value.
struct alignas(64) TensorMap {
  std::array<std::byte, 128> bytes{};
  bool operator==(const TensorMap&) const = default;
};

/// What is wrong with `spec` by the rules cuTensorMapEncodeTiled sets (rank, alignment,
/// extents, strides, box, element strides, swizzle span, interleave, fill), with what to
/// write instead; "" when nothing is. Needs no driver. The total size of a box is left to
/// the driver, which refuses most boxes over 128 KiB by a rule of its own (encode_tensor_map
/// then says so).
std::string tensor_map_problem(const TensorMapSpec& spec);

/// Encodes `spec` with cuTensorMapEncodeTiled. Throws Error with tensor_map_problem's
/// message before the driver sees a description it would refuse, NoDriverError without a
/// driver, CudaError when the driver still refuses it. Works without a current context.
TensorMap encode_tensor_map(const TensorMapSpec& spec);

/// encode_tensor_map, remembered: the same description (address included) gives the same
/// map without calling the driver again. Thread-safe; the process keeps the 4096 most
/// recently used descriptions.
TensorMap cached_tensor_map(const TensorMapSpec& spec);

/// cached_tensor_map's statistics (for tests and tuning): encodes and hits so far.
struct TensorMapCacheStats {
  std::uint64_t encodes = 0;
  std::uint64_t hits = 0;
};
TensorMapCacheStats tensor_map_cache_stats();

}  // namespace cutlet
