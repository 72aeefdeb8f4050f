// View<T, N>: a multi-dimensional view of memory with a shape and strides, indexed as
// v(i, j); checked against its shape when bounds checking is on.
#pragma once

#include <array>
#include <source_location>
#include <string>
#include <utility>

#include "cutlet/language/control.h"
#include "cutlet/language/diagnostics.h"
#include "cutlet/language/pointer.h"

namespace cutlet {

/// An N-dimensional view of the elements at `data()`: element (i0, ..., iN-1) is at offset
/// i0*stride(0) + ... + iN-1*stride(N-1) (strides in elements; row-major by default, any
/// strides allowed, e.g. a transposed or sliced view). Shapes and strides are traced values
/// (usually kernel arguments) or host numbers.
///
/// Index arithmetic is 32-bit when every Buffer argument of the launch has fewer than 2^31
/// elements, and 64-bit otherwise (the launch picks the specialization), so views are fast
/// for the common sizes and correct for huge ones. With KernelOptions::bounds_check (or
/// CUTLET_BOUNDS_CHECK=1) every index is checked against the shape: an index out of bounds
/// prints the index, the bound, the dimension and the view's name, then stops the kernel
/// with a device-side assert.
template <ScalarType T, int N, ir::AddressSpace Space = ir::AddressSpace::Global>
class View {
  static_assert(N >= 1 && N <= 8, "cutlet::View has 1 to 8 dimensions");

 public:
  using element_type = T;
  static constexpr int rank = N;

  /// A row-major (C-order) view of `base` with `shape`.
  View(Ptr<T, Space> base, std::array<i64, N> shape, std::string name = "view",
       std::source_location where = std::source_location::current())
      : base_(base), shape_(shape), strides_(row_major(shape)), name_(std::move(name)), where_(where) {}
  /// A view of `base` with `shape` and `strides` (in elements).
  View(Ptr<T, Space> base, std::array<i64, N> shape, std::array<i64, N> strides, std::string name = "view",
       std::source_location where = std::source_location::current())
      : base_(base), shape_(shape), strides_(strides), name_(std::move(name)), where_(where) {}

  /// The element at (idx...): N integer indices, traced or host numbers.
  template <Operand... I>
  ElementRef<T> operator()(const I&... idx) const {
    static_assert(sizeof...(I) == N, "cutlet::View: give one index per dimension");
    std::array<ir::ValueId, N> ids{index_id(idx)...};
    if (detail::bounds_checked()) check(ids);
    return base_[offset(ids)];
  }

  /// Extent of dimension d.
  i64 shape(int d) const { return shape_.at(static_cast<std::size_t>(d)); }
  /// Stride of dimension d, in elements.
  i64 stride(int d) const { return strides_.at(static_cast<std::size_t>(d)); }
  /// The first element's address.
  Ptr<T, Space> data() const { return base_; }
  const std::string& name() const { return name_; }

 private:
  static std::array<i64, N> row_major(const std::array<i64, N>& shape) {
    std::array<i64, N> s{shape};  // every entry is overwritten below
    i64 running = 1;
    for (int d = N - 1; d >= 0; --d) {
      s[static_cast<std::size_t>(d)] = running;
      if (d > 0) running = running * shape[static_cast<std::size_t>(d)];
    }
    return s;
  }

  template <class I>
  static ir::ValueId index_id(const I& i) {
    if constexpr (Traced<I>) {
      static_assert(detail::is_int_v<traced_type_t<I>>, "cutlet::View indices are integers");
      return detail::operand_as<std::int64_t>(i);
    } else {
      static_assert(detail::is_int_v<std::remove_cvref_t<I>>, "cutlet::View indices are integers");
      return detail::constant<std::int64_t>(static_cast<std::int64_t>(i));
    }
  }

  /// The element offset, in 32-bit arithmetic unless the launch has huge buffers.
  i64 offset(const std::array<ir::ValueId, N>& ids) const {
    if (detail::wide_indices()) {
      i64 off = 0;
      for (int d = 0; d < N; ++d) off = off + i64::wrap(ids[static_cast<std::size_t>(d)]) * strides_[static_cast<std::size_t>(d)];
      return off;
    }
    i32 off = 0;
    for (int d = 0; d < N; ++d)
      off = off + cast<std::int32_t>(i64::wrap(ids[static_cast<std::size_t>(d)])) *
                      cast<std::int32_t>(strides_[static_cast<std::size_t>(d)]);
    return cast<std::int64_t>(off);
  }

  void check(const std::array<ir::ValueId, N>& ids) const {
    for (int d = 0; d < N; ++d) {
      i64 i = i64::wrap(ids[static_cast<std::size_t>(d)]);
      i64 extent = shape_[static_cast<std::size_t>(d)];
      Value<bool> inside = (i >= 0) & (i < extent);
      std::string where = std::string(where_.file_name()) + ":" + std::to_string(where_.line());
      std::string format = "cutlet bounds check: index %lld is outside [0, %lld) in dimension " + std::to_string(d) +
                           " of view '" + escape(name_) + "' (made at " + escape(where) + ")\n";
      if_(!inside, [&] { print(format.c_str(), i, extent); });
      assert_(inside, "index inside the bounds of view '" + name_ + "'", where_);
    }
  }

  static std::string escape(const std::string& s) {
    std::string r;
    for (char c : s) r += (c == '%') ? std::string("%%") : std::string(1, c);
    return r;
  }

  Ptr<T, Space> base_;
  std::array<i64, N> shape_;
  std::array<i64, N> strides_;
  std::string name_;
  std::source_location where_;
};

/// A row-major view of `p`: `auto A = cutlet::view(a, {rows, cols}, "A");`
template <ScalarType T, ir::AddressSpace S, std::size_t N>
View<T, static_cast<int>(N), S> view(Ptr<T, S> p, const i64 (&shape)[N], std::string name = "view",
                                     std::source_location where = std::source_location::current()) {
  auto s = [&]<std::size_t... D>(std::index_sequence<D...>) { return std::array<i64, N>{shape[D]...}; }(
      std::make_index_sequence<N>{});
  return View<T, static_cast<int>(N), S>(p, s, std::move(name), where);
}

}  // namespace cutlet
