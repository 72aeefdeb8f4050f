// The IR builder: emits type-checked instructions, folds constants and deduplicates pure ops.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "cutlet/error.h"
#include "cutlet/ir/function.h"

namespace cutlet::ir {

/// Thrown when IR is built or found ill-typed or malformed. The message names the op,
/// the operand types and, when known, the user's source location.
class IRError : public Error {
 public:
  using Error::Error;
};

/// Emits instructions into a Function at a current insertion point (a region), checking
/// types as it goes. Pure ops whose operands are constants are folded; a pure op equal to
/// one already visible in the current scope returns the existing value. Ops with effects
/// (store, barrier, alloca, load) are always emitted in order.
class Builder {
 public:
  /// Builds into `f`'s body region.
  explicit Builder(Function& f);
  ~Builder();
  Builder(const Builder&) = delete;
  Builder& operator=(const Builder&) = delete;

  Function& function() { return *f_; }

  /// The user source location attached to instructions emitted from now on.
  void set_location(Location loc) { loc_ = loc; }
  Location location() const { return loc_; }

  /// Appends a kernel parameter of type `t` (a scalar or a pointer).
  ValueId add_param(Type t);

  /// An integer or bool constant of scalar type `t`; `v` is truncated to the type's width.
  ValueId const_int(Type t, std::int64_t v);
  /// A floating-point constant of float type `t` (rounded to `t` for f32).
  ValueId const_float(Type t, double v);
  ValueId const_bool(bool v) { return const_int(Type::i1(), v ? 1 : 0); }

  /// A hardware index register (i32).
  ValueId special(SpecialReg r);

  /// A binary op of the SameAsOperands family (add ... shr): both operands must have the
  /// same scalar type, allowed by the op's operand class.
  ValueId binary(Opcode op, ValueId a, ValueId b);
  /// neg or not.
  ValueId unary(Opcode op, ValueId a);
  /// Compares two scalars of one type; the result is i1.
  ValueId cmp(Predicate p, ValueId a, ValueId b);
  /// `c ? a : b` for an i1 `c` and `a`, `b` of one type.
  ValueId select(ValueId c, ValueId a, ValueId b);
  /// Converts a scalar to scalar type `to`: integer widening by the source's signedness,
  /// truncation, int<->float (float to int rounds toward zero), float<->float (round to
  /// nearest even); to i1 compares with zero.
  ValueId cast(Type to, ValueId a);
  /// Reinterprets the bits of a scalar as another scalar type of the same width.
  ValueId bitcast(Type to, ValueId a);

  /// `p + i` elements, for a pointer `p` and any integer `i` (extended by its signedness).
  ValueId ptr_add(ValueId p, ValueId i);
  ValueId load(ValueId p);
  void store(ValueId p, ValueId v);
  /// A per-thread variable of scalar type `elem`; returns a local pointer to it.
  ValueId alloca(Type elem);
  /// Block-wide barrier (all threads of the block, with memory ordering of the block).
  void barrier();

  /// Builds a region's body: gets the region's arguments, returns the values to yield.
  using BodyFn = std::function<std::vector<ValueId>(std::span<const ValueId> args)>;

  /// `if cond` with results of `result_types`; `then_fn` and `else_fn` (may be empty when
  /// there are no results) return the values each branch yields.
  std::vector<ValueId> if_(ValueId cond, std::span<const Type> result_types, const BodyFn& then_fn,
                           const BodyFn& else_fn);
  /// `for iv = lb; iv < ub; iv += step` (iv > ub for a negative step) carrying `init`
  /// values; `body` gets (iv, carried...) and returns the next carried values.
  std::vector<ValueId> for_(ValueId lb, ValueId ub, ValueId step, std::span<const ValueId> init,
                            const BodyFn& body);
  /// A while loop carrying `init`. `cond_fn` gets the carried values and returns
  /// {condition, forwarded...}; `body` gets the forwarded values and returns the next
  /// carried values. Results are the forwarded values of the final (false) test.
  std::vector<ValueId> while_(std::span<const ValueId> init, const BodyFn& cond_fn,
                              const BodyFn& body);

  /// The value of an integer/bool constant, if `v` is one.
  std::optional<std::int64_t> int_constant(ValueId v) const;
  /// The value of a float constant, if `v` is one.
  std::optional<double> float_constant(ValueId v) const;

 private:
  struct Scope;
  struct InsertPoint {
    InstId owner;
    std::uint32_t region;
  };
  Region& current_region();
  ValueId emit(Opcode op, Type result, std::vector<ValueId> operands,
               std::vector<Attribute> attrs = {});
  void emit_terminator(Opcode op, std::vector<ValueId> operands);
  InstId open_region_op(Opcode op, std::vector<ValueId> operands, int num_regions);
  std::vector<ValueId> build_region(InstId owner, std::uint32_t index, std::span<const Type> arg_types,
                                    const BodyFn& fn);
  std::vector<ValueId> close_region_op(InstId id, std::span<const Type> result_types);
  std::optional<ValueId> fold_binary(Opcode op, ValueId a, ValueId b);
  [[noreturn]] void fail(const std::string& what) const;

  Function* f_;
  Location loc_;
  std::vector<InsertPoint> ip_;
  std::vector<std::unique_ptr<Scope>> scopes_;
};

/// Normalizes an integer constant to scalar type `t`: truncates to its width, then
/// sign-extends (signed types) or zero-extends (unsigned, i1) back to 64 bits.
std::int64_t normalize_int(Type t, std::int64_t v);

}  // namespace cutlet::ir
