// Checks of tensor() extents, and TensorFacts as text and as requirements.
#include "cutlet/runtime/tensor_arg.h"

#include "cutlet/error.h"

namespace cutlet {
namespace detail {

void throw_tensor_error(const std::string& what) { throw Error("cutlet::tensor: " + what); }

std::int32_t checked_extent(std::int64_t v, const char* what) {
  if (v < 0 || v > 0x7fffffff)
    throw Error("cutlet::tensor: " + std::string(what) + " " + std::to_string(v) +
                " is outside 0..2^31-1 (tile kernels index tensors with 32-bit offsets)");
  return static_cast<std::int32_t>(v);
}

}  // namespace detail

std::string tensor_facts_text(std::uint64_t facts, int rank) {
  std::string r = (facts & TensorFacts::kAligned) ? "aligned" : "unaligned";
  if (facts & TensorFacts::kUnitStride) r += ", unit stride";
  for (int d = 0; d < rank; ++d) {
    if (facts & (TensorFacts::kShapeDiv16 << d)) r += ", shape[" + std::to_string(d) + "] % 16 == 0";
    if (facts & (TensorFacts::kStrideDiv16 << d)) r += ", stride[" + std::to_string(d) + "] % 16 == 0";
  }
  return r;
}

std::string tensor_facts_list(std::uint64_t facts, int rank) {
  std::string r;
  const auto add = [&r](const std::string& fact) { r += (r.empty() ? "" : ", ") + fact; };
  if (facts & TensorFacts::kAligned) add("16-byte aligned data");
  if (facts & TensorFacts::kUnitStride) add("a unit last stride");
  for (int d = 0; d < rank; ++d) {
    if (facts & (TensorFacts::kShapeDiv16 << d)) add("shape[" + std::to_string(d) + "] % 16 == 0");
    if (facts & (TensorFacts::kStrideDiv16 << d)) add("stride[" + std::to_string(d) + "] % 16 == 0");
  }
  return r;
}

std::uint64_t missing_tensor_facts(std::uint64_t assumed, std::uint64_t actual, int rank) noexcept {
  if (rank >= 1 && (assumed & TensorFacts::kUnitStride)) assumed &= ~(TensorFacts::kStrideDiv16 << (rank - 1));
  return assumed & ~actual;
}

}  // namespace cutlet
