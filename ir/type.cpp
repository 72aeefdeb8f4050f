// Type interning: one storage object per distinct type, for the life of the process.
#include "cutlet/ir/type.h"

#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>

#include "cutlet/error.h"
#include "cutlet/ir/hash.h"

namespace cutlet::ir {
namespace detail {
struct TypeStorage {
  TypeKind kind = TypeKind::Void;
  ScalarKind scalar = ScalarKind::I1;
  AddressSpace space = AddressSpace::Generic;
  const TypeStorage* element = nullptr;
  std::vector<std::int64_t> shape;
  std::optional<Layout> layout;  // tiles only
};
}  // namespace detail

namespace {
using detail::TypeStorage;

struct Interner {
  std::mutex mu;
  std::deque<TypeStorage> storage;  // stable addresses
  TypeStorage void_type;
  static constexpr int kScalarKinds = static_cast<int>(ScalarKind::F8E5M2) + 1;
  TypeStorage scalars[kScalarKinds];
  std::map<std::tuple<const TypeStorage*, int>, const TypeStorage*> pointers;
  std::map<std::tuple<const TypeStorage*, std::vector<std::int64_t>>, const TypeStorage*> tiles;
  // Tiles with a layout: a list per (element, shape), searched by equality.
  std::map<std::tuple<const TypeStorage*, std::vector<std::int64_t>>, std::vector<const TypeStorage*>> placed_tiles;
  std::map<std::tuple<const TypeStorage*, int>, const TypeStorage*> vectors;
  std::map<std::tuple<std::int64_t, std::int64_t>, const TypeStorage*> records;

  Interner() {
    for (int i = 0; i < kScalarKinds; ++i) {
      scalars[i].kind = TypeKind::Scalar;
      scalars[i].scalar = static_cast<ScalarKind>(i);
    }
  }
};

Interner& interner() {
  static Interner* in = new Interner();  // never destroyed: types outlive static destructors
  return *in;
}
}  // namespace

Type::Type() : s_(&interner().void_type) {}
Type Type::void_type() { return Type(); }
Type Type::scalar(ScalarKind k) { return Type(&interner().scalars[static_cast<int>(k)]); }

Type Type::pointer(Type element, AddressSpace space) {
  CUTLET_ASSERT(element.is_scalar(), "pointer element must be a scalar");
  auto& in = interner();
  std::lock_guard lock(in.mu);
  auto key = std::make_tuple(element.s_, static_cast<int>(space));
  auto it = in.pointers.find(key);
  if (it != in.pointers.end()) return Type(it->second);
  auto& s = in.storage.emplace_back();
  s.kind = TypeKind::Pointer;
  s.element = element.s_;
  s.space = space;
  in.pointers.emplace(key, &s);
  return Type(&s);
}

Type Type::vector(Type element, int lanes) {
  CUTLET_ASSERT(element.is_scalar() && !element.is_bool(), "vector element must be a numeric scalar");
  CUTLET_ASSERT(lanes == 2 || lanes == 4 || lanes == 8, "vectors have 2, 4 or 8 lanes");
  auto& in = interner();
  std::lock_guard lock(in.mu);
  auto key = std::make_tuple(element.s_, lanes);
  auto it = in.vectors.find(key);
  if (it != in.vectors.end()) return Type(it->second);
  auto& s = in.storage.emplace_back();
  s.kind = TypeKind::Vector;
  s.element = element.s_;
  s.shape = {lanes};
  in.vectors.emplace(key, &s);
  return Type(&s);
}

int Type::lanes() const {
  CUTLET_ASSERT(is_vector(), "lanes of a non-vector");
  return static_cast<int>(s_->shape[0]);
}

Type Type::tile(std::span<const std::int64_t> shape, Type element) {
  CUTLET_ASSERT(element.is_scalar(), "tile element must be a scalar");
  for (auto e : shape) CUTLET_ASSERT(e >= 1, "tile extents must be positive");
  auto& in = interner();
  std::lock_guard lock(in.mu);
  std::vector<std::int64_t> v(shape.begin(), shape.end());
  auto key = std::make_tuple(element.s_, v);
  auto it = in.tiles.find(key);
  if (it != in.tiles.end()) return Type(it->second);
  auto& s = in.storage.emplace_back();
  s.kind = TypeKind::Tile;
  s.element = element.s_;
  s.shape = std::move(v);
  in.tiles.emplace(key, &s);
  return Type(&s);
}

Type Type::tile(std::span<const std::int64_t> shape, Type element, const Layout& layout) {
  Type base = tile(shape, element);
  CUTLET_ASSERT(layout.tile_shape() == std::vector<std::int64_t>(shape.begin(), shape.end()),
                "a tile layout must be for the tile's shape");
  auto& in = interner();
  std::lock_guard lock(in.mu);
  auto& list = in.placed_tiles[std::make_tuple(element.s_, base.s_->shape)];
  for (const TypeStorage* s : list)
    if (*s->layout == layout) return Type(s);
  auto& s = in.storage.emplace_back();
  s.kind = TypeKind::Tile;
  s.element = element.s_;
  s.shape = base.s_->shape;
  s.layout = layout;
  list.push_back(&s);
  return Type(&s);
}

const Layout* Type::layout() const { return s_->layout ? &*s_->layout : nullptr; }

Type Type::with_layout(const Layout& l) const {
  CUTLET_ASSERT(is_tile(), "with_layout of a non-tile type");
  return tile(shape(), element(), l);
}

Type Type::without_layout() const {
  CUTLET_ASSERT(is_tile(), "without_layout of a non-tile type");
  return tile(shape(), element());
}

Type Type::with_element(Type e) const {
  CUTLET_ASSERT(is_tile(), "with_element of a non-tile type");
  return s_->layout ? tile(shape(), e, *s_->layout) : tile(shape(), e);
}

Type Type::record(std::int64_t size, std::int64_t align) {
  CUTLET_ASSERT(size >= 1, "records have at least one byte");
  CUTLET_ASSERT(align >= 1 && (align & (align - 1)) == 0, "record alignment must be a power of two");
  auto& in = interner();
  std::lock_guard lock(in.mu);
  auto key = std::make_tuple(size, align);
  auto it = in.records.find(key);
  if (it != in.records.end()) return Type(it->second);
  auto& s = in.storage.emplace_back();
  s.kind = TypeKind::Record;
  s.shape = {size, align};
  in.records.emplace(key, &s);
  return Type(&s);
}

std::int64_t Type::record_size() const {
  CUTLET_ASSERT(is_record(), "record_size of a non-record");
  return s_->shape[0];
}
std::int64_t Type::record_align() const {
  CUTLET_ASSERT(is_record(), "record_align of a non-record");
  return s_->shape[1];
}

TypeKind Type::kind() const { return s_->kind; }
ScalarKind Type::scalar_kind() const {
  CUTLET_ASSERT(is_scalar(), "scalar_kind of a non-scalar type");
  return s_->scalar;
}
bool Type::is_bool() const { return is_scalar() && s_->scalar == ScalarKind::I1; }
bool Type::is_signed_integer() const {
  return is_scalar() && s_->scalar >= ScalarKind::I8 && s_->scalar <= ScalarKind::I64;
}
bool Type::is_unsigned_integer() const {
  return is_scalar() && s_->scalar >= ScalarKind::U8 && s_->scalar <= ScalarKind::U64;
}
bool Type::is_integer() const { return is_signed_integer() || is_unsigned_integer(); }
bool Type::is_float() const { return is_scalar() && s_->scalar >= ScalarKind::F16; }
bool Type::is_fp8() const {
  return is_scalar() && (s_->scalar == ScalarKind::F8E4M3 || s_->scalar == ScalarKind::F8E5M2);
}

int Type::bits() const {
  if (is_pointer()) return 64;
  if (is_record()) return static_cast<int>(record_size() * 8);
  if (is_vector()) return element().bits() * lanes();
  CUTLET_ASSERT(is_scalar(), "bits of a non-scalar type");
  switch (s_->scalar) {
    case ScalarKind::I1: return 1;
    case ScalarKind::I8: case ScalarKind::U8: case ScalarKind::F8E4M3: case ScalarKind::F8E5M2: return 8;
    case ScalarKind::I16: case ScalarKind::U16: case ScalarKind::F16: case ScalarKind::BF16: return 16;
    case ScalarKind::I32: case ScalarKind::U32: case ScalarKind::F32: return 32;
    case ScalarKind::I64: case ScalarKind::U64: case ScalarKind::F64: return 64;
  }
  return 0;
}

Type Type::element() const {
  CUTLET_ASSERT(is_pointer() || is_tile() || is_vector(), "element of a type that has none");
  return Type(s_->element);
}
AddressSpace Type::address_space() const {
  CUTLET_ASSERT(is_pointer(), "address_space of a non-pointer");
  return s_->space;
}
std::span<const std::int64_t> Type::shape() const { return s_->shape; }

const char* scalar_name(ScalarKind k) {
  static const char* names[] = {"i1", "i8", "i16", "i32", "i64", "u8", "u16",
                                "u32", "u64", "f16", "bf16", "f32", "f64", "f8e4m3", "f8e5m2"};
  return names[static_cast<int>(k)];
}

const char* address_space_name(AddressSpace a) {
  switch (a) {
    case AddressSpace::Generic: return "generic";
    case AddressSpace::Global: return "global";
    case AddressSpace::Shared: return "shared";
    case AddressSpace::Const: return "const";
    case AddressSpace::Local: return "local";
  }
  return "?";
}

std::string Type::str() const {
  switch (kind()) {
    case TypeKind::Void: return "void";
    case TypeKind::Scalar: return scalar_name(s_->scalar);
    case TypeKind::Pointer:
      return "ptr<" + element().str() + ", " + address_space_name(s_->space) + ">";
    case TypeKind::Vector:
      return "vec<" + std::to_string(lanes()) + "x" + element().str() + ">";
    case TypeKind::Record:
      return "record<" + std::to_string(record_size()) + ", align " + std::to_string(record_align()) + ">";
    case TypeKind::Tile: {
      std::string r = "tile<";
      for (auto e : s_->shape) r += std::to_string(e) + "x";
      r += element().str();
      if (s_->layout) r += ", " + s_->layout->str();
      return r + ">";
    }
  }
  return "?";
}

std::uint64_t Type::structural_hash() const {
  Hasher h;
  h.add(static_cast<std::uint64_t>(kind()));
  switch (kind()) {
    case TypeKind::Void: break;
    case TypeKind::Scalar: h.add(static_cast<std::uint64_t>(s_->scalar)); break;
    case TypeKind::Pointer:
      h.add(element().structural_hash());
      h.add(static_cast<std::uint64_t>(s_->space));
      break;
    case TypeKind::Record:
      for (auto e : s_->shape) h.add(static_cast<std::uint64_t>(e));
      break;
    case TypeKind::Vector:
    case TypeKind::Tile:
      h.add(element().structural_hash());
      for (auto e : s_->shape) h.add(static_cast<std::uint64_t>(e));
      if (s_->layout) h.add(s_->layout->structural_hash());
      break;
  }
  return h.value();
}

}  // namespace cutlet::ir
