// A random per-thread kernel as a small syntax tree: what is traced into a cutlet kernel and
// what the host evaluator interprets, node for node.
//
// The kernel's parameters are fixed: for each non-bool scalar type T an input Ptr<T> and an
// output Ptr<T>, then the atomic accumulators Ptr<i32>, Ptr<u32>, Ptr<i64>, Ptr<u64>. Thread g
// (the global index) reads input slot s of type T at in_T[g * inputs[T] + s] and writes output
// o at out_T[g * outputs_of(T) + slot(o)].
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/fuzz_ops.h"

namespace cutlet::fuzz {

enum class ExprKind : std::uint8_t {
  Const,        ///< `value`
  Input,        ///< input slot `index` of the thread (global index + `offset`) mod the thread count
  Var,          ///< variable `index`
  Special,      ///< a thread index, `op` a SpecialIndex
  LoopIndex,    ///< the index of the enclosing loop at depth `index` (0: outermost)
  Unary,        ///< UnaryOp `op` of args[0]
  Binary,       ///< BinaryOp `op` of args[0], args[1] (both of `type`)
  Compare,      ///< CmpOp `op` of args[0], args[1] (of one type); bool
  Select,       ///< args[0] ? args[1] : args[2]
  Cast,         ///< cast<type>(args[0])
  Bitcast,      ///< bitcast<type>(args[0]) (an integer of the same width)
  Fma,          ///< fma(args[0], args[1], args[2]) (f32, f64)
  FunnelShift,  ///< funnel_shift_left (op 0) or _right (op 1) of lo args[0], hi args[1], shift args[2] (u32)
};

enum class SpecialIndex : std::uint8_t { ThreadX, BlockX, GlobalId, LaneId };

/// An expression: a tree of pure operations.
struct Expr {
  ExprKind kind = ExprKind::Const;
  Scalar type = Scalar::I32;  ///< the result type
  std::uint8_t op = 0;
  std::uint64_t value = 0;
  int index = 0;
  int offset = 0;
  std::vector<Expr> args;
  /// For integer results: every value the expression can take lies in [lo, hi] (known to the
  /// generator, which uses it to keep signed arithmetic from overflowing).
  __int128 lo = 0, hi = 0;
};

enum class StmtKind : std::uint8_t {
  Assign,       ///< variable `target` = value
  Store,        ///< output `target` = value
  StoreApprox,  ///< output `target` = ApproxFn `op` of value (compared within its ulp bound)
  If,           ///< if value { body } else { else_body }
  For,          ///< for (i = begin; i < value (i > value when step < 0); i += step) { body }
  Exchange,     ///< shared[tid] = value; syncthreads; variable `target` = shared[(tid + amount) % block]; syncthreads
  Shuffle,      ///< variable `target` = shuffle `op` (ShuffleOp) of value with lane/delta/mask `amount`
  Vote,         ///< variable `target` = VoteOp `op` of value over the warp (or block)
  Atomic,       ///< accumulator `target` op= value
};

enum class ShuffleOp : std::uint8_t { Idx, Up, Down, Xor };
enum class VoteOp : std::uint8_t {
  Ballot, Any, All, ReduceAdd, ReduceMin, ReduceMax, ReduceAnd, ReduceOr, ReduceXor, BlockCount, BlockAnd, BlockOr
};
enum class AtomicOp : std::uint8_t { Add, Sub, And, Or, Xor, Min, Max };

const char* op_name(ShuffleOp op);
const char* op_name(VoteOp op);
const char* op_name(AtomicOp op);

/// A statement. Exchange, Shuffle and Vote appear only where every thread of the block runs
/// them (outside if bodies and loops of data-dependent trip count).
struct Stmt {
  StmtKind kind = StmtKind::Assign;
  int target = 0;
  std::uint8_t op = 0;
  int amount = 0;
  int begin = 0;
  int step = 1;
  Expr value;
  std::vector<Stmt> body, else_body;
};

/// A per-thread variable (Var<T>, zero at the start).
struct VarInfo {
  Scalar type;
  __int128 lo, hi;  ///< every value assigned lies in [lo, hi] (integers)
};

/// An output: one element per thread of its type's output buffer.
struct OutputInfo {
  Scalar type;
  int slot;  ///< its index among the outputs of its type
};

/// An atomic accumulator: one element of the accumulator buffer of its type, combined with
/// one commutative operation, so that the result does not depend on the threads' order.
struct AccumulatorInfo {
  Scalar type;  ///< i32, u32, i64 or u64
  AtomicOp op;
  int slot;     ///< its index among the accumulators of its type
  bool shared;  ///< combined per block in shared memory first, then into the global element
};

/// The four accumulator types, in parameter order.
inline constexpr std::array<Scalar, 4> kAccumulatorTypes = {Scalar::I32, Scalar::U32, Scalar::I64, Scalar::U64};
/// The position of `type` in kAccumulatorTypes.
int accumulator_buffer(Scalar type);
/// The non-bool scalar types, in parameter order (input and output buffers).
inline constexpr std::array<Scalar, 12> kBufferTypes = {Scalar::I8,  Scalar::I16, Scalar::I32,  Scalar::I64,
                                                        Scalar::U8,  Scalar::U16, Scalar::U32,  Scalar::U64,
                                                        Scalar::F16, Scalar::BF16, Scalar::F32, Scalar::F64};
/// The position of non-bool `type` in kBufferTypes.
int buffer_index(Scalar type);

struct SimtProgram {
  std::uint64_t seed = 0;
  int grid = 1;    ///< blocks
  int block = 32;  ///< threads per block, a multiple of 32
  std::array<int, kScalarCount> inputs{};  ///< input slots per thread, by type
  std::vector<VarInfo> vars;
  std::vector<OutputInfo> outputs;
  std::vector<AccumulatorInfo> accumulators;
  std::vector<Stmt> body;

  int threads() const { return grid * block; }
  /// Outputs (accumulators) of `type`: the elements per thread (in all) of its buffer.
  int outputs_of(Scalar type) const;
  int accumulators_of(Scalar type) const;
};

/// The starting value of an accumulator combined with `op` (its identity).
std::uint64_t accumulator_identity(AtomicOp op, Scalar type);

/// The program as text, one statement a line, for reports and regression files.
std::string to_string(const SimtProgram& p);
std::string to_string(const Expr& e);

}  // namespace cutlet::fuzz
