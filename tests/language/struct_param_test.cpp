// Structs of scalars as kernel parameters: the record parameter and its field reads in the IR,
// and the errors for bad fields and mismatched arguments.
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include "kernel_test_support.h"

using namespace cutlet;
using cutlet::test::message_of;

namespace {

struct Inner {
  short tag;
  double weight;
};
struct Params {
  float scale;
  int n;
  bool flip;
  Inner inner;
  unsigned char bytes[3];
};

TEST(StructParam, FieldsAreReadAtTheirHostOffsets) {
  auto k = kernel([](Struct<Params> p, Ptr<float> x) {
    x[0] = p[&Params::scale];
    x[1] = cast<float>(p[&Params::n]);
    if_(p[&Params::flip], [&] { x[2] = cast<float>(p[&Params::inner][&Inner::weight]); });
    x[3] = cast<float>(p[&Params::inner][&Inner::tag]);
    x[4] = cast<float>(p[&Params::bytes][2]);
  }, {.name = "fields"});
  std::string ir = ir::print(k.trace_ir());
  const std::string record = "record<" + std::to_string(sizeof(Params)) + ", align " + std::to_string(alignof(Params)) + ">";
  EXPECT_NE(ir.find("%0: " + record), std::string::npos) << ir;
  auto at = [](std::size_t off, const char* type) { return "field " + std::to_string(off) + " %0 : " + type; };
  EXPECT_NE(ir.find(at(offsetof(Params, scale), "f32")), std::string::npos) << ir;
  EXPECT_NE(ir.find(at(offsetof(Params, n), "i32")), std::string::npos) << ir;
  EXPECT_NE(ir.find(at(offsetof(Params, flip), "i1")), std::string::npos) << ir;
  EXPECT_NE(ir.find(at(offsetof(Params, inner) + offsetof(Inner, weight), "f64")), std::string::npos) << ir;
  EXPECT_NE(ir.find(at(offsetof(Params, inner) + offsetof(Inner, tag), "i16")), std::string::npos) << ir;
  EXPECT_NE(ir.find(at(offsetof(Params, bytes) + 2, "u8")), std::string::npos) << ir;
}

TEST(StructParam, GenericLambdaTakesAStructArgument) {
  auto k = kernel([](auto p, auto x) { x[0] = p[&Params::scale]; }, {.name = "generic_struct"});
  std::string ir = ir::print(k.trace_ir<Params, Buffer<float>>());
  EXPECT_NE(ir.find("record<"), std::string::npos) << ir;
  EXPECT_EQ(detail::type_name<Params>(), "host struct (anonymous namespace)::Params");
}

TEST(StructParam, ArrayFieldIndexOutOfRangeIsATraceError) {
  auto k = kernel([](Struct<Params> p, Ptr<std::uint8_t> x) { x[0] = p[&Params::bytes][3]; }, {.name = "bad_index"});
  auto msg = message_of([&] { (void)k.trace_ir(); });
  EXPECT_NE(msg.find("index 3 of a struct's array field is out of range (the array has 3 elements"), std::string::npos)
      << msg;
}

TEST(StructParam, BuilderRejectsMisalignedAndOutOfRangeFields) {
  ir::Function f;
  ir::Builder b(f);
  auto r = b.add_param(ir::Type::record(8, 4));
  EXPECT_NO_THROW(b.field(r, 4, ir::Type::f32()));
  EXPECT_THROW(b.field(r, 2, ir::Type::f32()), Error);
  EXPECT_THROW(b.field(r, 8, ir::Type::u8()), Error);
  EXPECT_THROW(b.field(r, 0, ir::Type::f64()), Error);
  EXPECT_EQ(ir::Type::record(8, 4), ir::Type::record(8, 4));
  EXPECT_NE(ir::Type::record(8, 4).structural_hash(), ir::Type::record(8, 8).structural_hash());
}

}  // namespace
