// Opcodes and their static properties, generated from ops.def.
#pragma once

#include <cstdint>

namespace cutlet::ir {

/// Every IR operation; the list is ops.def.
enum class Opcode : std::uint8_t {
#define OP(name, mnemonic, arity, rule, operands, traits) name,
#include "cutlet/ir/ops.def"
#undef OP
};

/// How an op's result type is determined.
enum class TypeRule : std::uint8_t {
  Explicit,        ///< given by the builder (const, cast, special, alloca, region ops)
  SameAsOperands,  ///< all operands share one type, which is the result type
  Bool,            ///< operands share one type; result is i1
  SelectRule,      ///< (i1, T, T) -> T
  PointerOffset,   ///< (ptr<T>, integer) -> ptr<T>
  Pointee,         ///< (ptr<T>) -> T
  NoResult,        ///< no result
};

/// Which scalar types an op's value operands may have.
enum class OperandClass : std::uint8_t { Any, Scalar, Numeric, Integer, IntOrBool };

/// Op traits (bit flags).
enum OpTrait : std::uint32_t {
  None = 0,
  Pure = 1u << 0,          ///< no effects: may be folded, deduplicated and dropped when unused
  ReadsMemory = 1u << 1,   ///< observes memory: never merged with another read; dropped when unused
  WritesMemory = 1u << 2,  ///< has effects: never folded, merged or dropped
  Terminator = 1u << 3,    ///< ends a region
  HasRegions = 1u << 4,    ///< owns nested regions
  Commutative = 1u << 5,   ///< operands may be swapped
};

/// Static facts about an opcode, from ops.def.
struct OpInfo {
  const char* mnemonic;
  int arity;  ///< operand count, or -1 when variadic
  TypeRule rule;
  OperandClass operands;
  std::uint32_t traits;
};

/// The table entry for `op`.
const OpInfo& op_info(Opcode op);
inline const char* mnemonic(Opcode op) { return op_info(op).mnemonic; }
inline bool has_trait(Opcode op, OpTrait t) { return (op_info(op).traits & t) != 0; }

/// Comparison predicates (the attribute of `cmp`). Float comparisons are ordered (false
/// when either side is NaN) except Ne, which is unordered (true when either is NaN), as in C++.
enum class Predicate : std::uint8_t { Eq, Ne, Lt, Le, Gt, Ge };
const char* predicate_name(Predicate p);

/// Hardware index registers (the attribute of `special`); each is an i32.
enum class SpecialReg : std::uint8_t {
  ThreadIdxX, ThreadIdxY, ThreadIdxZ,
  BlockDimX, BlockDimY, BlockDimZ,
  BlockIdxX, BlockIdxY, BlockIdxZ,
  GridDimX, GridDimY, GridDimZ,
};
const char* special_reg_name(SpecialReg r);

}  // namespace cutlet::ir
