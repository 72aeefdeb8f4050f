// Tests of interned IR types: identity, predicates, widths, text form and structural hash.
#include "cutlet/ir/type.h"

#include <gtest/gtest.h>

#include <array>
#include <set>
#include <vector>

#include "cutlet/error.h"

namespace cutlet::ir {
namespace {

const std::vector<Type>& all_scalars() {
  static const std::vector<Type> v = {Type::i1(), Type::i8(),  Type::i16(), Type::i32(), Type::i64(),
                                      Type::u8(), Type::u16(), Type::u32(), Type::u64(), Type::f16(),
                                      Type::bf16(), Type::f32(), Type::f64()};
  return v;
}

TEST(TypeTest, ScalarsAreInterned) {
  EXPECT_EQ(Type::i32(), Type::scalar(ScalarKind::I32));
  EXPECT_EQ(Type::i32().opaque(), Type::scalar(ScalarKind::I32).opaque());
  EXPECT_NE(Type::i32(), Type::u32());
  EXPECT_NE(Type::f16(), Type::bf16());
  for (std::size_t i = 0; i < all_scalars().size(); ++i)
    for (std::size_t j = 0; j < all_scalars().size(); ++j)
      EXPECT_EQ(all_scalars()[i] == all_scalars()[j], i == j) << all_scalars()[i].str() << " vs " << all_scalars()[j].str();
}

TEST(TypeTest, VoidIsTheDefault) {
  Type t;
  EXPECT_TRUE(t.is_void());
  EXPECT_EQ(t, Type::void_type());
  EXPECT_NE(t, Type::i1());
  EXPECT_EQ(t.str(), "void");
}

TEST(TypeTest, PointersAreInternedBySpaceAndElement) {
  Type a = Type::pointer(Type::f32(), AddressSpace::Global);
  EXPECT_EQ(a, Type::pointer(Type::f32()));  // global is the default space
  EXPECT_EQ(a.opaque(), Type::pointer(Type::f32(), AddressSpace::Global).opaque());
  EXPECT_NE(a, Type::pointer(Type::f32(), AddressSpace::Shared));
  EXPECT_NE(a, Type::pointer(Type::i32(), AddressSpace::Global));
  EXPECT_TRUE(a.is_pointer());
  EXPECT_FALSE(a.is_scalar());
  EXPECT_EQ(a.element(), Type::f32());
  EXPECT_EQ(a.address_space(), AddressSpace::Global);
  EXPECT_EQ(Type::pointer(Type::u8(), AddressSpace::Local).address_space(), AddressSpace::Local);
}

TEST(TypeTest, TilesAreInternedByShapeAndElement) {
  std::array<std::int64_t, 2> s{16, 64}, t{64, 16};
  std::vector<std::int64_t> s_copy{16, 64};
  Type a = Type::tile(s, Type::f32());
  EXPECT_EQ(a, Type::tile(s_copy, Type::f32()));
  EXPECT_NE(a, Type::tile(t, Type::f32()));
  EXPECT_NE(a, Type::tile(s, Type::f16()));
  std::array<std::int64_t, 1> flat{1024};
  EXPECT_NE(a, Type::tile(flat, Type::f32()));
  EXPECT_TRUE(a.is_tile());
  EXPECT_EQ(a.element(), Type::f32());
  ASSERT_EQ(a.shape().size(), 2u);
  EXPECT_EQ(a.shape()[0], 16);
  EXPECT_EQ(a.shape()[1], 64);
  EXPECT_TRUE(Type::f32().shape().empty());
}

TEST(TypeTest, Predicates) {
  struct Row {
    Type t;
    bool boolean, integer, is_signed, is_unsigned, is_float;
  };
  const Row rows[] = {
      {Type::i1(), true, false, false, false, false},   {Type::i8(), false, true, true, false, false},
      {Type::i16(), false, true, true, false, false},   {Type::i32(), false, true, true, false, false},
      {Type::i64(), false, true, true, false, false},   {Type::u8(), false, true, false, true, false},
      {Type::u16(), false, true, false, true, false},   {Type::u32(), false, true, false, true, false},
      {Type::u64(), false, true, false, true, false},   {Type::f16(), false, false, false, false, true},
      {Type::bf16(), false, false, false, false, true}, {Type::f32(), false, false, false, false, true},
      {Type::f64(), false, false, false, false, true},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE(r.t.str());
    EXPECT_TRUE(r.t.is_scalar());
    EXPECT_EQ(r.t.is_bool(), r.boolean);
    EXPECT_EQ(r.t.is_integer(), r.integer);
    EXPECT_EQ(r.t.is_signed_integer(), r.is_signed);
    EXPECT_EQ(r.t.is_unsigned_integer(), r.is_unsigned);
    EXPECT_EQ(r.t.is_float(), r.is_float);
  }
  Type p = Type::pointer(Type::i32());
  EXPECT_FALSE(p.is_integer());
  EXPECT_FALSE(p.is_float());
  EXPECT_FALSE(p.is_bool());
  std::array<std::int64_t, 1> s{4};
  Type tile = Type::tile(s, Type::f32());
  EXPECT_FALSE(tile.is_float());
  EXPECT_FALSE(tile.is_scalar());
  EXPECT_FALSE(Type().is_integer());
}

TEST(TypeTest, Bits) {
  EXPECT_EQ(Type::i1().bits(), 1);
  EXPECT_EQ(Type::i8().bits(), 8);
  EXPECT_EQ(Type::u8().bits(), 8);
  EXPECT_EQ(Type::i16().bits(), 16);
  EXPECT_EQ(Type::u16().bits(), 16);
  EXPECT_EQ(Type::f16().bits(), 16);
  EXPECT_EQ(Type::bf16().bits(), 16);
  EXPECT_EQ(Type::i32().bits(), 32);
  EXPECT_EQ(Type::u32().bits(), 32);
  EXPECT_EQ(Type::f32().bits(), 32);
  EXPECT_EQ(Type::i64().bits(), 64);
  EXPECT_EQ(Type::u64().bits(), 64);
  EXPECT_EQ(Type::f64().bits(), 64);
  EXPECT_EQ(Type::pointer(Type::i8(), AddressSpace::Shared).bits(), 64);
}

TEST(TypeTest, MisuseIsAnInternalError) {
  std::array<std::int64_t, 1> s{4};
  EXPECT_THROW(Type::tile(s, Type::f32()).bits(), InternalError);
  EXPECT_THROW(Type::pointer(Type::f32()).scalar_kind(), InternalError);
  EXPECT_THROW(Type::f32().element(), InternalError);
  EXPECT_THROW(Type::f32().address_space(), InternalError);
  EXPECT_THROW(Type::pointer(Type::pointer(Type::f32())), InternalError);
  std::array<std::int64_t, 2> bad{4, 0};
  EXPECT_THROW(Type::tile(bad, Type::f32()), InternalError);
}

TEST(TypeTest, Text) {
  EXPECT_EQ(Type::i1().str(), "i1");
  EXPECT_EQ(Type::u16().str(), "u16");
  EXPECT_EQ(Type::bf16().str(), "bf16");
  EXPECT_EQ(Type::f32().str(), "f32");
  EXPECT_EQ(Type::pointer(Type::f32()).str(), "ptr<f32, global>");
  EXPECT_EQ(Type::pointer(Type::i8(), AddressSpace::Shared).str(), "ptr<i8, shared>");
  EXPECT_EQ(Type::pointer(Type::u64(), AddressSpace::Generic).str(), "ptr<u64, generic>");
  EXPECT_EQ(Type::pointer(Type::f64(), AddressSpace::Const).str(), "ptr<f64, const>");
  EXPECT_EQ(Type::pointer(Type::i32(), AddressSpace::Local).str(), "ptr<i32, local>");
  std::array<std::int64_t, 2> s{16, 64};
  EXPECT_EQ(Type::tile(s, Type::f32()).str(), "tile<16x64xf32>");
  std::array<std::int64_t, 1> v{8};
  EXPECT_EQ(Type::tile(v, Type::bf16()).str(), "tile<8xbf16>");
  EXPECT_STREQ(scalar_name(ScalarKind::U64), "u64");
  EXPECT_STREQ(address_space_name(AddressSpace::Shared), "shared");
}

TEST(TypeTest, StructuralHashEqualForEqualTypes) {
  std::array<std::int64_t, 2> s{16, 64};
  std::vector<std::int64_t> s2{16, 64};
  EXPECT_EQ(Type::f32().structural_hash(), Type::scalar(ScalarKind::F32).structural_hash());
  EXPECT_EQ(Type::pointer(Type::f32()).structural_hash(),
            Type::pointer(Type::f32(), AddressSpace::Global).structural_hash());
  EXPECT_EQ(Type::tile(s, Type::f16()).structural_hash(), Type::tile(s2, Type::f16()).structural_hash());
}

TEST(TypeTest, StructuralHashDistinguishesTypes) {
  std::vector<Type> types = all_scalars();
  types.push_back(Type());
  for (Type e : {Type::f32(), Type::i32(), Type::u32()})
    for (AddressSpace a : {AddressSpace::Generic, AddressSpace::Global, AddressSpace::Shared, AddressSpace::Const,
                           AddressSpace::Local})
      types.push_back(Type::pointer(e, a));
  std::array<std::int64_t, 2> s1{16, 64}, s2{64, 16};
  std::array<std::int64_t, 1> s3{16}, s4{1024};
  std::array<std::int64_t, 3> s5{16, 64, 1};
  for (Type e : {Type::f32(), Type::f16()})
    for (std::span<const std::int64_t> s : {std::span<const std::int64_t>(s1), std::span<const std::int64_t>(s2),
                                            std::span<const std::int64_t>(s3), std::span<const std::int64_t>(s4),
                                            std::span<const std::int64_t>(s5)})
      types.push_back(Type::tile(s, e));
  std::set<std::uint64_t> hashes;
  for (Type t : types) EXPECT_TRUE(hashes.insert(t.structural_hash()).second) << "hash collision for " << t.str();
  EXPECT_EQ(hashes.size(), types.size());
}

}  // namespace
}  // namespace cutlet::ir
