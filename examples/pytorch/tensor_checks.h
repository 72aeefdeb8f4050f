// What the ops require of their tensor arguments, checked before anything is launched; each
// check throws cutlet::Error (cutlet_torch.Error in Python) whose message names the op, the
// argument and what to pass instead.
#pragma once

#include <cutlet/language/half.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "tensor_import.h"

namespace cutlet_torch {

/// The element types the ops take.
enum class FloatType { F32, F16, BF16 };

/// `t`'s dtype as a FloatType; throws naming the dtype ("float64") otherwise.
FloatType float_type(const BorrowedTensor& t, const char* op);

/// Calls `f(std::type_identity<T>{})` with T the C++ element type of `type` (float,
/// cutlet::half or cutlet::bfloat16).
template <class F>
decltype(auto) with_element_type(FloatType type, F&& f) {
  switch (type) {
    case FloatType::F16: return std::forward<F>(f)(std::type_identity<cutlet::half>{});
    case FloatType::BF16: return std::forward<F>(f)(std::type_identity<cutlet::bfloat16>{});
    case FloatType::F32: break;
  }
  return std::forward<F>(f)(std::type_identity<float>{});
}

/// Throws unless `t` is in CUDA device memory (kDLCUDA).
void require_cuda(const BorrowedTensor& t, const char* op);
/// Throws unless `t` has the dtype, device and shape of `like`.
void require_like(const BorrowedTensor& t, const BorrowedTensor& like, const char* op);
/// Throws unless `t` has `rank` dimensions.
void require_rank(const BorrowedTensor& t, int rank, const char* op);
/// Throws unless `t`'s elements are compact and row-major (extents of 1 may have any stride).
void require_contiguous(const BorrowedTensor& t, const char* op);
/// Throws when two elements of `t` share an address (a stride of 0, or a negative one), as
/// an output must not.
void require_distinct_elements(const BorrowedTensor& t, const char* op);

/// The number of elements.
std::int64_t element_count(const DLTensor& t) noexcept;
/// The address of element [0, ..., 0].
inline std::uint64_t address(const DLTensor& t) noexcept {
  return reinterpret_cast<std::uint64_t>(t.data) + t.byte_offset;
}
/// The stride of dimension `d` in elements (compact row-major when the producer gave none).
std::int64_t stride(const DLTensor& t, int d) noexcept;
/// The shape as messages write it: "[3, 5]".
std::string shape_text(const DLTensor& t);

}  // namespace cutlet_torch
