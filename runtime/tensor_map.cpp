// TMA tensor maps: the driver's rules checked first, cuTensorMapEncodeTiled, and a bounded
// cache of encoded maps.
#include "cutlet/runtime/tensor_map.h"

#include <cstdio>
#include <cstring>
#include <list>
#include <mutex>
#include <unordered_map>

#include "driver_api.h"

namespace cutlet {
namespace {

constexpr std::size_t kCacheEntries = 4096;

std::string dims_text(const std::array<std::uint64_t, TensorMapSpec::kMaxRank>& v, int rank) {
  std::string s = "[";
  for (int d = 0; d < rank; ++d) s += (d ? ", " : "") + std::to_string(v[d]);
  return s + "]";
}

std::string dims_text(const std::array<std::uint32_t, TensorMapSpec::kMaxRank>& v, int rank) {
  std::array<std::uint64_t, TensorMapSpec::kMaxRank> w{};
  for (int d = 0; d < rank; ++d) w[d] = v[d];
  return dims_text(w, rank);
}

CUtensorMapDataType driver_type(TmaElement e) {
  switch (e) {
    case TmaElement::U8: return CU_TENSOR_MAP_DATA_TYPE_UINT8;
    case TmaElement::U16: return CU_TENSOR_MAP_DATA_TYPE_UINT16;
    case TmaElement::U32: return CU_TENSOR_MAP_DATA_TYPE_UINT32;
    case TmaElement::I32: return CU_TENSOR_MAP_DATA_TYPE_INT32;
    case TmaElement::U64: return CU_TENSOR_MAP_DATA_TYPE_UINT64;
    case TmaElement::I64: return CU_TENSOR_MAP_DATA_TYPE_INT64;
    case TmaElement::F16: return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case TmaElement::F32: return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    case TmaElement::F64: return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
    case TmaElement::BF16: return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    case TmaElement::F32Ftz: return CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ;
    case TmaElement::TF32: return CU_TENSOR_MAP_DATA_TYPE_TFLOAT32;
    case TmaElement::TF32Ftz: return CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ;
  }
  return CU_TENSOR_MAP_DATA_TYPE_UINT8;
}

/// A hash of every field of a description.
struct SpecHash {
  std::size_t operator()(const TensorMapSpec& s) const {
    std::uint64_t h = 1469598103934665603ull;
    auto mix = [&](std::uint64_t v) {
      h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    };
    mix(static_cast<std::uint64_t>(s.element) | static_cast<std::uint64_t>(s.rank) << 8 |
        static_cast<std::uint64_t>(s.swizzle) << 16 | static_cast<std::uint64_t>(s.interleave) << 24 |
        static_cast<std::uint64_t>(s.l2_promotion) << 32 | static_cast<std::uint64_t>(s.oob_fill) << 40);
    mix(s.address);
    for (int d = 0; d < TensorMapSpec::kMaxRank; ++d) {
      mix(s.shape[d]);
      mix(s.strides[d]);
      mix(static_cast<std::uint64_t>(s.box[d]) << 32 | s.element_strides[d]);
    }
    return static_cast<std::size_t>(h);
  }
};

/// The most recently used encoded maps, at most kCacheEntries of them.
class TensorMapCache {
 public:
  TensorMap get(const TensorMapSpec& spec) {
    {
      std::lock_guard lock(mu_);
      if (auto it = index_.find(spec); it != index_.end()) {
        order_.splice(order_.begin(), order_, it->second);
        ++stats_.hits;
        return it->second->second;
      }
    }
    const TensorMap map = encode_tensor_map(spec);  // outside the lock: the driver may be slow
    std::lock_guard lock(mu_);
    ++stats_.encodes;
    if (index_.find(spec) == index_.end()) {
      order_.emplace_front(spec, map);
      index_.emplace(spec, order_.begin());
      if (order_.size() > kCacheEntries) {
        index_.erase(order_.back().first);
        order_.pop_back();
      }
    }
    return map;
  }
  TensorMapCacheStats stats() {
    std::lock_guard lock(mu_);
    return stats_;
  }

 private:
  using Entry = std::pair<TensorMapSpec, TensorMap>;
  std::mutex mu_;
  std::list<Entry> order_;  // most recent first
  std::unordered_map<TensorMapSpec, std::list<Entry>::iterator, SpecHash> index_;
  TensorMapCacheStats stats_;
};

TensorMapCache& cache() {
  static auto* c = new TensorMapCache();  // outlives static destructors
  return *c;
}

}  // namespace

std::size_t element_bytes(TmaElement e) {
  switch (e) {
    case TmaElement::U8: return 1;
    case TmaElement::U16:
    case TmaElement::F16:
    case TmaElement::BF16: return 2;
    case TmaElement::U32:
    case TmaElement::I32:
    case TmaElement::F32:
    case TmaElement::F32Ftz:
    case TmaElement::TF32:
    case TmaElement::TF32Ftz: return 4;
    case TmaElement::U64:
    case TmaElement::I64:
    case TmaElement::F64: return 8;
  }
  return 1;
}

const char* to_string(TmaElement e) {
  switch (e) {
    case TmaElement::U8: return "u8";
    case TmaElement::U16: return "u16";
    case TmaElement::U32: return "u32";
    case TmaElement::I32: return "i32";
    case TmaElement::U64: return "u64";
    case TmaElement::I64: return "i64";
    case TmaElement::F16: return "f16";
    case TmaElement::F32: return "f32";
    case TmaElement::F64: return "f64";
    case TmaElement::BF16: return "bf16";
    case TmaElement::F32Ftz: return "f32 (ftz)";
    case TmaElement::TF32: return "tf32";
    case TmaElement::TF32Ftz: return "tf32 (ftz)";
  }
  return "?";
}

bool is_floating(TmaElement e) {
  switch (e) {
    case TmaElement::F16:
    case TmaElement::F32:
    case TmaElement::F64:
    case TmaElement::BF16:
    case TmaElement::F32Ftz:
    case TmaElement::TF32:
    case TmaElement::TF32Ftz: return true;
    default: return false;
  }
}

unsigned swizzle_bytes(TmaSwizzle s) {
  switch (s) {
    case TmaSwizzle::None: return 0;
    case TmaSwizzle::B32: return 32;
    case TmaSwizzle::B64: return 64;
    case TmaSwizzle::B128: return 128;
  }
  return 0;
}

std::size_t TensorMapSpec::box_bytes() const {
  std::size_t n = element_bytes(element);
  for (int d = 0; d < rank && d < kMaxRank; ++d) {
    // The contiguous dimension ignores its element stride without interleaving.
    const bool strided = d != rank - 1 || interleave != TmaInterleave::None;
    const std::uint32_t step = strided && element_strides[d] > 0 ? element_strides[d] : 1;
    n *= (box[d] + step - 1) / step;
  }
  return n;
}

/// Boxes above this many bytes the driver mostly refuses (measured on the H200: every box of
/// 256 KiB with unit element strides, most larger ones, yet some of several MiB with element
/// strides it encodes), by a rule cutlet does not know exactly and leaves to the driver.
constexpr std::uint64_t kLargeBoxBytes = 128 * 1024;

std::string tensor_map_problem(const TensorMapSpec& s) {
  const int r = s.rank;
  if (r < 1 || r > TensorMapSpec::kMaxRank)
    return "a tensor map has 1 to 5 dimensions, not " + std::to_string(r) + " (merge dimensions, or give a view of fewer)";
  if (s.interleave != TmaInterleave::None && r < 3)
    return "an interleaved tensor map needs at least 3 dimensions, not " + std::to_string(r);
  const std::uint64_t esize = element_bytes(s.element);
  const std::uint64_t align = s.interleave == TmaInterleave::B32 ? 32 : 16;
  if (s.address % align != 0)
    return "the tensor's address 0x" + [&] {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(s.address));
      return std::string(buf);
    }() + " is not " + std::to_string(align) + "-byte aligned, as TMA needs (allocate it with a Buffer, or offset it by a multiple of " +
           std::to_string(align / esize) + " elements)";
  for (int d = 0; d < r; ++d)
    if (s.shape[d] == 0 || s.shape[d] > (1ull << 32))
      return "extent " + std::to_string(s.shape[d]) + " of dimension " + std::to_string(d) + " of " + dims_text(s.shape, r) +
             " is outside [1, 2^32]";
  if (s.strides[r - 1] != 1)
    return "the last dimension must be contiguous (stride 1, not " + std::to_string(s.strides[r - 1]) +
           "): TMA reads rows of consecutive elements; transpose the box instead of the tensor";
  for (int d = 0; d + 1 < r; ++d) {
    const std::uint64_t bytes = s.strides[d] * esize;
    if (bytes == 0)
      return "stride 0 of dimension " + std::to_string(d) +
             ": TMA cannot broadcast a dimension; load the box once and broadcast the tile";
    if (bytes % align != 0)
      return "stride " + std::to_string(s.strides[d]) + " of dimension " + std::to_string(d) + " (" + std::to_string(bytes) +
             " bytes) is not a multiple of " + std::to_string(align) + " bytes, as TMA needs; pad the rows to a multiple of " +
             std::to_string(align / esize) + " elements";
    if (bytes >= (1ull << 40))
      return "stride " + std::to_string(s.strides[d]) + " of dimension " + std::to_string(d) + " is 2^40 bytes or more";
  }
  for (int d = 0; d < r; ++d) {
    if (s.box[d] == 0 || s.box[d] > 256)
      return "box " + dims_text(s.box, r) + ": each dimension of a box holds 1 to 256 elements, dimension " + std::to_string(d) +
             " has " + std::to_string(s.box[d]) + " (split the tile into several boxes)";
    if (s.element_strides[d] == 0 || s.element_strides[d] > 8)
      return "element stride " + std::to_string(s.element_strides[d]) + " of dimension " + std::to_string(d) +
             " is outside [1, 8]";
  }
  const std::uint64_t inner = s.box[r - 1] * esize;
  if (inner % 16 != 0)
    return "box " + dims_text(s.box, r) + " of " + to_string(s.element) + ": its contiguous dimension is " +
           std::to_string(inner) + " bytes, and " +
           (s.interleave == TmaInterleave::None ? "TMA moves" : "an interleaved tensor map moves") +
           " multiples of 16 bytes; make it a multiple of " +
           std::to_string(16 / esize) + " elements";
  if (s.interleave == TmaInterleave::None && s.swizzle != TmaSwizzle::None && inner > swizzle_bytes(s.swizzle))
    return "box " + dims_text(s.box, r) + " of " + to_string(s.element) + ": its contiguous dimension is " +
           std::to_string(inner) + " bytes, wider than the " + std::to_string(swizzle_bytes(s.swizzle)) +
           "-byte swizzle span; use at most " + std::to_string(swizzle_bytes(s.swizzle) / esize) +
           " elements, or a wider swizzle";
  if (s.oob_fill == TmaOobFill::NanRequestZeroFma && !is_floating(s.element))
    return std::string("the NaN out-of-bounds fill is for floating-point tensors, not ") + to_string(s.element);
  return "";
}

TensorMap encode_tensor_map(const TensorMapSpec& s) {
  if (std::string problem = tensor_map_problem(s); !problem.empty()) throw Error("cutlet: tensor map: " + problem);
  const detail::DriverApi& d = detail::driver();
  auto encode = detail::require(d.cuTensorMapEncodeTiled, "a TMA tensor map", "cuTensorMapEncodeTiled", 12000);
  // The driver's order is the reverse of cutlet's: dimension 0 innermost.
  cuuint64_t dims[TensorMapSpec::kMaxRank] = {}, strides[TensorMapSpec::kMaxRank] = {};
  cuuint32_t box[TensorMapSpec::kMaxRank] = {}, estrides[TensorMapSpec::kMaxRank] = {};
  const int r = s.rank;
  const std::uint64_t esize = element_bytes(s.element);
  for (int i = 0; i < r; ++i) {
    const int d = r - 1 - i;
    dims[i] = s.shape[d];
    box[i] = s.box[d];
    estrides[i] = s.element_strides[d];
    if (i > 0) strides[i - 1] = s.strides[d] * esize;
  }
  CUtensorMap map;
  const CUresult result =
      encode(&map, driver_type(s.element), static_cast<cuuint32_t>(r), reinterpret_cast<void*>(s.address), dims, strides,
             box, estrides, static_cast<CUtensorMapInterleave>(s.interleave), static_cast<CUtensorMapSwizzle>(s.swizzle),
             static_cast<CUtensorMapL2promotion>(s.l2_promotion), static_cast<CUtensorMapFloatOOBfill>(s.oob_fill));
  if (result != CUDA_SUCCESS) {
    const std::string box_text = dims_text(s.box, r);
    const std::string advice =
        s.box_bytes() > kLargeBoxBytes
            ? "its box " + box_text + " moves " + std::to_string(s.box_bytes()) +
                  " bytes a copy, and the driver refuses most boxes over 128 KiB; split the tile into smaller boxes"
            : "the tensor map passed cutlet's checks; the device may not support TMA (compute capability 9.0 or later)";
    detail::throw_cuda_error(result, "cuTensorMapEncodeTiled",
                             "the tensor map of " + dims_text(s.shape, r) + " " + to_string(s.element) + " with box " + box_text +
                                 ": " + advice);
  }
  static_assert(sizeof(CUtensorMap) == sizeof(TensorMap::bytes), "CUtensorMap is 128 bytes");
  TensorMap out;
  std::memcpy(out.bytes.data(), &map, sizeof map);
  return out;
}

TensorMap cached_tensor_map(const TensorMapSpec& spec) { return cache().get(spec); }

TensorMapCacheStats tensor_map_cache_stats() { return cache().stats(); }

}  // namespace cutlet
