// The rules of the ops (ops.def's infer and fold columns): the builder makes results with
// them and the verifier checks instructions with them. Each family file (ir/ops/*.cpp)
// defines its ops' rules.
#pragma once

#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cutlet/ir/function.h"

namespace cutlet::ir {

/// What a rule throws: the message says what is wrong; the builder or the verifier adds where.
class OpRuleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What an op's infer rule reads.
struct OpTypes {
  Opcode op;
  std::span<const Type> operands;
  std::span<const Attribute> attrs;
  /// The result types given: what the builder was told for an op whose results are not a
  /// function of its operands (a cast's target, a loop's results), or an instruction's
  /// results when the verifier checks it. Rules of the other ops ignore them.
  std::span<const Type> given;
  /// The function the op is in (a call looks up its callee there).
  const Function* function = nullptr;

  [[noreturn]] void fail(const std::string& message) const { throw OpRuleError(message); }
  std::int64_t int_attr(std::size_t i) const;
  /// The one given result type (fails when there is not exactly one).
  Type given_result() const;
  /// The one given result, which must be a pointer in `space`.
  Type given_pointer(AddressSpace space) const;
};

/// An infer rule: the op's result types (none for ops without results); fails when the
/// operand types or attributes are not the op's.
using InferFn = std::vector<Type> (*)(const OpTypes&);

/// What a fold rule reads: the op, its result type, its operands, their types and, for
/// operands that are constants, their values.
struct FoldInput {
  Opcode op;
  Type result;
  std::span<const ValueId> operands;
  std::span<const Type> types;
  std::span<const std::optional<Attribute>> constants;
  std::span<const Attribute> attrs;
};

/// A fold's outcome: one of the op's operands (value), or a constant of the result type.
struct Folded {
  ValueId value = kNone;
  std::optional<Attribute> constant;
};
using FoldFn = std::optional<Folded> (*)(const FoldInput&);

/// The result types of the op in `t` by its row's infer rule.
std::vector<Type> infer_result_types(const OpTypes& t);
/// The op in `in` folded by its row's fold rule, or nothing.
std::optional<Folded> fold_op(const FoldInput& in);

// Every rule named in ops.def (family files define them).
std::optional<Folded> no_fold(const FoldInput&);
std::vector<Type> infer_nothing(const OpTypes&);
#define OP(Name, mnem, traits, operand_class, operands, attributes, infer, fold) \
  std::vector<Type> infer(const OpTypes&);                                      \
  std::optional<Folded> fold(const FoldInput&);
#include "cutlet/ir/ops.def"
#undef OP

// Shared by the family files.
/// "[2, 4]"
std::string shape_text(std::span<const std::int64_t> shape);
/// What is wrong with `shape` as a tile's shape (tiles have 1 to 3 power-of-two extents and at
/// most 2^20 elements), or nothing.
std::optional<std::string> tile_shape_problem(std::span<const std::int64_t> shape);
/// Fails with tile_shape_problem's message.
void check_tile_shape(const OpTypes& t, std::span<const std::int64_t> shape);
bool same_shape(std::span<const std::int64_t> a, std::span<const std::int64_t> b);
/// "`what` is not defined for `t`: FP8 values are storage only ...": the message of every op
/// that computes and is given FP8 operands.
std::string fp8_storage_only(const std::string& what, Type t);
/// Whether `t` is a tile in a shared layout (a buffer in shared memory).
bool is_shared_tile(Type t);
/// `t` without its layout when it is a tile (rules compare tiles by shape and element: the
/// layout passes place them, and the layouts' own rules are the verifier's).
Type unplaced(Type t);

}  // namespace cutlet::ir
