// The rules of the warp-level ops: shuffles, votes, matches, reductions, the active mask.
#include "rules.h"

namespace cutlet::ir {

namespace {
void check_mask(const OpTypes& t, Type mask, const char* what) {
  if (mask != Type::u32()) t.fail(std::string(what) + "'s mask is a u32, not " + mask.str());
}
}  // namespace

std::vector<Type> infer_shuffle(const OpTypes& t) {
  Type v = t.operands[0];
  // 8- and 16-bit values travel in the low bits of a 32-bit shuffle, 64-bit ones as two.
  if (!v.is_scalar() || v.is_bool()) t.fail("shuffles move 8- to 64-bit numbers, not " + v.str());
  if (t.operands[1] != Type::i32()) t.fail("a shuffle's lane/delta is an i32, not " + t.operands[1].str());
  check_mask(t, t.operands[2], "a shuffle");
  return {v};
}

std::vector<Type> infer_vote(const OpTypes& t) {
  if (!t.operands[0].is_bool()) t.fail("a vote takes an i1 predicate, not " + t.operands[0].str());
  check_mask(t, t.operands[1], "a vote");
  return {static_cast<VoteKind>(t.int_attr(0)) == VoteKind::Ballot ? Type::u32() : Type::i1()};
}

std::vector<Type> infer_match(const OpTypes& t) {
  Type v = t.operands[0];
  if (!v.is_scalar() || (v.bits() != 32 && v.bits() != 64)) t.fail("match compares 32- or 64-bit scalars, not " + v.str());
  check_mask(t, t.operands[1], "a match");
  return {Type::u32()};
}

std::vector<Type> infer_redux(const OpTypes& t) {
  Type v = t.operands[0];
  if (v != Type::i32() && v != Type::u32()) t.fail("warp reductions (redux.sync) take i32 or u32, not " + v.str());
  check_mask(t, t.operands[1], "a warp reduction");
  return {v};
}

std::vector<Type> infer_active_mask(const OpTypes&) { return {Type::u32()}; }

}  // namespace cutlet::ir
