// Interned IR types: scalars, pointers with an address space, and tiles.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cutlet/ir/layout.h"

namespace cutlet::ir {

/// The scalar element types. Integers carry their signedness: it decides division,
/// remainder, right shift, comparison, widening and conversion to float. The FP8 types
/// (OCP E4M3 and E5M2) are storage only: loaded, stored, selected and cast, never computed with.
enum class ScalarKind : std::uint8_t { I1, I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64, F8E4M3, F8E5M2 };

/// Where a pointer points. Numbers match NVPTX address spaces.
enum class AddressSpace : std::uint8_t { Generic = 0, Global = 1, Shared = 3, Const = 4, Local = 5 };

/// What kind of type a Type is.
enum class TypeKind : std::uint8_t { Void, Scalar, Pointer, Tile, Vector, Record };

namespace detail {
struct TypeStorage;
}

/// A handle to an interned type: equal types are the same object, so comparison is a
/// pointer comparison and a Type is cheap to copy. Types live for the whole process.
/// Tile types (`tile<16x64xf32>`) have a shape of trace-time integers and an element
/// scalar type; traced tiles have no layout, the assign-layouts pass gives each one
/// (`tile<16x64xf32, #blocked<...>>`; see layout.h).
class Type {
 public:
  /// The void type (no value); the type of a default-constructed Type.
  Type();

  static Type void_type();
  static Type scalar(ScalarKind k);
  static Type i1() { return scalar(ScalarKind::I1); }
  static Type i8() { return scalar(ScalarKind::I8); }
  static Type i16() { return scalar(ScalarKind::I16); }
  static Type i32() { return scalar(ScalarKind::I32); }
  static Type i64() { return scalar(ScalarKind::I64); }
  static Type u8() { return scalar(ScalarKind::U8); }
  static Type u16() { return scalar(ScalarKind::U16); }
  static Type u32() { return scalar(ScalarKind::U32); }
  static Type u64() { return scalar(ScalarKind::U64); }
  static Type f16() { return scalar(ScalarKind::F16); }
  static Type bf16() { return scalar(ScalarKind::BF16); }
  static Type f32() { return scalar(ScalarKind::F32); }
  static Type f64() { return scalar(ScalarKind::F64); }
  static Type f8e4m3() { return scalar(ScalarKind::F8E4M3); }
  static Type f8e5m2() { return scalar(ScalarKind::F8E5M2); }
  /// A pointer to `element` (a scalar) in `space`.
  static Type pointer(Type element, AddressSpace space = AddressSpace::Global);
  /// A short vector of `lanes` (2, 4 or 8) scalars held by one thread: the unit of 8- and
  /// 16-byte memory access and of packed f16/bf16 arithmetic ("vec<4xf32>").
  static Type vector(Type element, int lanes);
  /// A tile of `element` (a scalar) with the given shape (every extent >= 1).
  static Type tile(std::span<const std::int64_t> shape, Type element);
  /// A tile of `element` with the given shape placed by `layout` (whose tile_shape() is `shape`).
  static Type tile(std::span<const std::int64_t> shape, Type element, const Layout& layout);
  /// `size` bytes with alignment `align` (a power of two): a C++ struct of scalars passed
  /// to a kernel by value, read field by field with the `field` op ("record<12, align 4>").
  static Type record(std::int64_t size, std::int64_t align);

  TypeKind kind() const;
  bool is_void() const { return kind() == TypeKind::Void; }
  bool is_scalar() const { return kind() == TypeKind::Scalar; }
  bool is_pointer() const { return kind() == TypeKind::Pointer; }
  bool is_tile() const { return kind() == TypeKind::Tile; }
  bool is_vector() const { return kind() == TypeKind::Vector; }
  bool is_record() const { return kind() == TypeKind::Record; }
  /// The size in bytes and the alignment of a record type.
  std::int64_t record_size() const;
  std::int64_t record_align() const;
  /// The number of lanes of a vector type.
  int lanes() const;
  /// The scalar type of a scalar, or the element type of a vector or tile.
  Type scalar_type() const { return is_scalar() ? *this : element(); }

  /// The scalar kind of a scalar type. Precondition: is_scalar().
  ScalarKind scalar_kind() const;
  /// True for i1 (bool).
  bool is_bool() const;
  /// True for the signed and unsigned integers (not i1).
  bool is_integer() const;
  bool is_signed_integer() const;
  bool is_unsigned_integer() const;
  /// True for the floating-point scalars, FP8 included.
  bool is_float() const;
  /// True for the FP8 scalars (f8e4m3, f8e5m2), which only loads, stores, selects and casts take.
  bool is_fp8() const;
  /// Width in bits of a scalar (1 for i1), of all lanes of a vector; 64 for pointers.
  int bits() const;

  /// The pointee of a pointer, or the element of a tile.
  Type element() const;
  /// The address space of a pointer.
  AddressSpace address_space() const;
  /// The shape of a tile (empty for other types).
  std::span<const std::int64_t> shape() const;

  /// The layout of a tile type, or nullptr (not a tile, or not yet assigned).
  const Layout* layout() const;
  /// This tile type placed by `l` / without a layout.
  Type with_layout(const Layout& l) const;
  Type without_layout() const;
  /// A tile of this tile type's shape and layout with elements `e` (a scalar).
  Type with_element(Type e) const;

  /// Text form: "f32", "ptr<f32, global>", "tile<16x64xf32>".
  std::string str() const;
  /// A hash of the type's structure, identical in every process (used in cache keys).
  std::uint64_t structural_hash() const;

  bool operator==(const Type& o) const { return s_ == o.s_; }
  bool operator!=(const Type& o) const { return s_ != o.s_; }
  /// Identity within this process (for hash maps); not stable across processes.
  const void* opaque() const { return s_; }

 private:
  explicit Type(const detail::TypeStorage* s) : s_(s) {}
  const detail::TypeStorage* s_;
};

/// The name of a scalar kind as printed ("i32", "bf16").
const char* scalar_name(ScalarKind k);
/// The name of an address space as printed ("global", "shared").
const char* address_space_name(AddressSpace a);

}  // namespace cutlet::ir
