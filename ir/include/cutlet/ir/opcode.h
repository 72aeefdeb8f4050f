// Opcodes and their static properties, generated from ops.def.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace cutlet::ir {

/// Every IR operation; the list is ops.def.
enum class Opcode : std::uint8_t {
#define OP(name, mnemonic, traits, operand_class, operands, attributes, infer, fold) name,
#include "cutlet/ir/ops.def"
#undef OP
};

/// Which scalar types the value operands of an elementwise op may have.
enum class OperandClass : std::uint8_t { Any, Scalar, Numeric, Integer, IntOrBool };

/// Op traits (bit flags).
enum OpTrait : std::uint32_t {
  None = 0,
  Pure = 1u << 0,          ///< no effects: may be folded, deduplicated and dropped when unused
  ReadsMemory = 1u << 1,   ///< observes memory (or the warp's state): never merged with another
                           ///< read; dropped when unused
  WritesMemory = 1u << 2,  ///< has effects: never folded, merged or dropped
  Terminator = 1u << 3,    ///< ends a region
  HasRegions = 1u << 4,    ///< owns nested regions
  Commutative = 1u << 5,   ///< operands may be swapped
  TileOp = 1u << 6,        ///< a tile op proper: places its result's elements itself (others
                           ///< given tile operands are applied element by element)
  Allocates = 1u << 7,     ///< makes memory (alloca, shared_alloc): dropped when unused
};

/// Whether an operand or attribute of an op's row is always there, may be absent (optional
/// ones come last), or stands for all the remaining ones (zero or more).
enum class Presence : std::uint8_t { Required, Optional, Rest };

/// What an attribute holds: which alternative of ir::Attribute (function.h). Number: an
/// integer or a double (a constant's value).
enum class AttrKind : std::uint8_t { Int, Float, Type, String, Number };

/// One named operand of an op (ops.def).
struct OperandSpec {
  const char* name;
  Presence presence;
};

/// One named attribute of an op (ops.def).
struct AttrSpec {
  const char* name;
  AttrKind kind;
  Presence presence;
};

/// Static facts about an opcode, from its ops.def row.
struct OpInfo {
  const char* mnemonic;
  std::uint32_t traits;
  OperandClass operand_class;
  std::span<const OperandSpec> operands;
  std::span<const AttrSpec> attributes;
  std::size_t min_operands;  ///< the required operands
  std::size_t max_operands;  ///< SIZE_MAX when the op takes the rest
  std::size_t min_attributes;
  std::size_t max_attributes;
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
  LaneId,  ///< the thread's lane in its warp, 0..31
};
const char* special_reg_name(SpecialReg r);

/// The operation of an atomic (the first attribute of `atomic`). Load reads the element without changing it (`ld.relaxed` or
/// `ld.acquire`, never torn) and takes no operand; the others read, modify and write it.
enum class AtomicKind : std::uint8_t { Add, Sub, Min, Max, And, Or, Xor, Exchange, CompareExchange, Load };
/// The threads an atomic or fence orders with (CUDA's thread scopes).
enum class MemoryScope : std::uint8_t { Block, Device, System };
/// Memory ordering of an atomic (C++ semantics).
enum class MemoryOrder : std::uint8_t { Relaxed, Acquire, Release, AcqRel };
const char* atomic_kind_name(AtomicKind k);
const char* memory_scope_name(MemoryScope s);
const char* memory_order_name(MemoryOrder o);

/// How a load uses the caches (optional attribute of `load` and `vload`).
enum class CacheHint : std::uint8_t {
  Default,     ///< ld.global (cache at all levels)
  ReadOnly,    ///< ld.global.nc: through the read-only (texture) path; the data must not change during the kernel
  Streaming,   ///< ld.global.cs: likely accessed once
  LastUse,     ///< ld.global.lu: last use of the line
  CacheGlobal, ///< ld.global.cg: cache in L2 only
};
const char* cache_hint_name(CacheHint h);

/// Block-wide barriers that also reduce a predicate (attribute of `barrier_reduce`).
enum class BarrierReduceKind : std::uint8_t { Count, And, Or };
/// Operands of a tile.dot given transposed (bits of its second attribute): with ATransposed
/// operand a is [K, M] and the dot multiplies its transpose; with BTransposed b is [N, K].
/// Tensor cores read such operands with ldmatrix in the other orientation, so `dot(q,
/// transpose(k))` moves no data through a permute.
enum DotTransposed : std::int64_t { ATransposed = 1, BTransposed = 2 };
/// The combining operation of a tile reduction (tile.reduce).
enum class ReduceKind : std::uint8_t { Sum, Prod, Min, Max };
/// Shuffle modes (attribute of `shuffle`).
enum class ShuffleKind : std::uint8_t { Idx, Up, Down, Xor };
/// Vote modes (attribute of `vote`): all/any give i1, ballot gives u32.
enum class VoteKind : std::uint8_t { All, Any, Ballot };
/// Match modes (attribute of `match`): lanes holding the same value.
enum class MatchKind : std::uint8_t { Any, All };
/// Warp reductions (attribute of `redux`, sm_80+).
enum class ReduxKind : std::uint8_t { Add, Min, Max, And, Or, Xor };

}  // namespace cutlet::ir
