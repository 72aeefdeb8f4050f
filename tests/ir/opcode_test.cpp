// Tests of the op table made from ops.def: every row names its operands and attributes in
// the order the table allows, and the counts follow from them.
#include "cutlet/ir/opcode.h"

#include <gtest/gtest.h>

#include <set>
#include <span>
#include <string>

namespace cutlet::ir {
namespace {

constexpr int kOps = static_cast<int>(Opcode::Condition) + 1;

/// Required entries first, then optional ones, or one rest at the end.
template <class Spec>
void expect_in_order(std::span<const Spec> specs) {
  bool optional_seen = false;
  for (std::size_t k = 0; k < specs.size(); ++k) {
    const Presence p = specs[k].presence;
    if (p == Presence::Required) {
      EXPECT_FALSE(optional_seen) << specs[k].name;
    }
    if (p == Presence::Optional) optional_seen = true;
    if (p == Presence::Rest) {
      EXPECT_EQ(k + 1, specs.size()) << specs[k].name;
    }
  }
}

TEST(OpcodeTest, EveryRowHasAUniqueMnemonicAndItsOperandsInOrder) {
  std::set<std::string> mnemonics;
  for (int i = 0; i < kOps; ++i) {
    const OpInfo& info = op_info(static_cast<Opcode>(i));
    SCOPED_TRACE(info.mnemonic);
    EXPECT_TRUE(mnemonics.insert(info.mnemonic).second);
    expect_in_order(info.operands);
    expect_in_order(info.attributes);
  }
}

TEST(OpcodeTest, CountsFollowFromTheRow) {
  const OpInfo& load = op_info(Opcode::TileLoad);
  ASSERT_EQ(load.operands.size(), 4u);
  EXPECT_STREQ(load.operands[2].name, "mask");
  EXPECT_EQ(load.operands[2].presence, Presence::Optional);
  EXPECT_EQ(load.min_operands, 2u);
  EXPECT_EQ(load.max_operands, 4u);

  const OpInfo& loop = op_info(Opcode::For);
  EXPECT_EQ(loop.min_operands, 3u);
  EXPECT_EQ(loop.max_operands, SIZE_MAX);

  const OpInfo& dot = op_info(Opcode::TileDot);
  ASSERT_EQ(dot.attributes.size(), 2u);
  EXPECT_STREQ(dot.attributes[1].name, "transposed");
  EXPECT_EQ(dot.attributes[1].kind, AttrKind::Int);
  EXPECT_EQ(dot.min_attributes, 2u);

  const OpInfo& field = op_info(Opcode::Field);
  EXPECT_EQ(field.min_attributes, 1u);
  EXPECT_EQ(field.max_attributes, 2u);
  EXPECT_EQ(op_info(Opcode::Const).attributes[0].kind, AttrKind::Number);
  EXPECT_EQ(op_info(Opcode::Call).attributes[0].kind, AttrKind::String);
  EXPECT_EQ(op_info(Opcode::TilePermute).max_attributes, SIZE_MAX);
}

TEST(OpcodeTest, TraitsAreTheRowsTraits) {
  EXPECT_TRUE(has_trait(Opcode::Add, Commutative));
  EXPECT_FALSE(has_trait(Opcode::Sub, Commutative));
  EXPECT_TRUE(has_trait(Opcode::TileLoad, ReadsMemory));
  EXPECT_TRUE(has_trait(Opcode::TileLoad, TileOp));
  EXPECT_TRUE(has_trait(Opcode::Yield, Terminator));
  EXPECT_EQ(op_info(Opcode::Shl).operand_class, OperandClass::Integer);
}

}  // namespace
}  // namespace cutlet::ir
