// The IR builder: emits type-checked instructions, folds constants and deduplicates pure ops.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "cutlet/error.h"
#include "cutlet/ir/function.h"
#include "cutlet/ir/math.h"

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

  /// Appends a kernel parameter of type `t` (a scalar or a pointer); `noalias` declares a
  /// pointer parameter restrict (see Function::param_noalias).
  ValueId add_param(Type t, bool noalias = false);

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
  /// The scalar of type `t` at byte `offset` of record value `r` (a struct kernel parameter);
  /// `offset` must be a multiple of t's size and the scalar must lie inside the record. An
  /// i1 field is a C++ bool: one byte, true when nonzero.
  ValueId field(ValueId r, std::int64_t offset, Type t);
  /// field() of a value known to be a multiple of `divisibility` (a power of two; for a
  /// pointer, its byte alignment): what a specialization guarantees, for vectorization.
  ValueId field(ValueId r, std::int64_t offset, Type t, std::int64_t divisibility);

  // Tiles. Every extent is a power of two; a 1-D reduction gives a scalar.
  /// tile<n x i32> holding 0, 1, ..., n-1.
  ValueId tile_arange(std::int64_t n);
  /// A tile of `shape` with every element the scalar `x`.
  ValueId tile_splat(ValueId x, std::span<const std::int64_t> shape);
  /// Tile `x` repeated along its extent-1 dimensions to `shape` (of the same rank).
  ValueId tile_broadcast(ValueId x, std::span<const std::int64_t> shape);
  /// Tile `x` with an extent-1 dimension inserted before dimension `axis` (0 <= axis <= rank).
  ValueId tile_expand_dims(ValueId x, int axis);
  /// Tile `x` with its dimensions reordered: result dimension d is x's dimension perm[d].
  ValueId tile_permute(ValueId x, std::span<const int> perm);
  /// Tile `x` with the same elements in row-major order and another shape of equal size.
  ValueId tile_reshape(ValueId x, std::span<const std::int64_t> shape);
  /// Combines tile `x` along `axis`: a tile without that dimension, or a scalar for a 1-D tile.
  ValueId tile_reduce(ReduceKind kind, ValueId x, int axis);
  /// The elements `ptr[offsets]` (`offsets` a tile of i32 element offsets from global pointer
  /// `ptr`) where the i1 tile `mask` is true, `other` (a scalar) elsewhere; masked-off
  /// addresses are never accessed. kNone for `mask`: all; for `other`: zero.
  ValueId tile_load(ValueId ptr, ValueId offsets, ValueId mask = kNone, ValueId other = kNone);
  /// acc + a @ b for tiles a [M, K], b [K, N] and acc [M, N] (f32): f16 and bf16 inputs on
  /// tensor cores (mma.sync), f32 inputs exactly, or on tensor cores as tf32 when `tf32`.
  /// Attributes: tf32 (0/1), then the DotTransposed bits of the operands given transposed
  /// (always 0 here; the fold_dot_transposes pass sets them).
  ValueId tile_dot(ValueId a, ValueId b, ValueId acc, bool tf32 = false);
  /// Atomically combines tile `value` into `ptr[offsets]` (global memory) where `mask` is
  /// true, element by element (relaxed, device scope), and returns the old values (masked-off
  /// elements: zero). Add, min, max, and, or, xor and exchange on 32/64-bit integers; add and
  /// exchange on f32/f64, min and max on f32.
  ValueId tile_atomic(AtomicKind kind, ValueId ptr, ValueId offsets, ValueId value, ValueId mask = kNone);
  /// Stores tile `value` to `ptr[offsets]` where `mask` is true (kNone: everywhere).
  void tile_store(ValueId ptr, ValueId offsets, ValueId value, ValueId mask = kNone);
  void store(ValueId p, ValueId v);
  /// A per-thread variable (or array of `count` elements) of scalar type `elem`; returns a
  /// local pointer to it.
  ValueId local_alloc(Type elem, std::int64_t count = 1);
  /// A load with a cache hint (see CacheHint).
  ValueId load(ValueId p, CacheHint hint);
  /// A static shared-memory array of `count` elements of `elem`, one per block; returns a
  /// shared pointer to its first element. Each call is a distinct array.
  ValueId shared_alloc(Type elem, std::int64_t count);
  /// The block's dynamic shared memory (sized at launch) as a shared pointer to `elem`.
  ValueId dynamic_shared(Type elem);
  /// Loads `lanes` consecutive elements starting at `p` as a vector; `p` must be aligned to
  /// the vector's size.
  ValueId vector_load(ValueId p, int lanes, CacheHint hint = CacheHint::Default);
  /// Stores the lanes of vector `v` to consecutive elements starting at `p` (aligned).
  void vector_store(ValueId p, ValueId v);
  /// Lane `lane` of vector `v`.
  ValueId extract(ValueId v, int lane);
  /// `v` with lane `lane` replaced by scalar `x`.
  ValueId insert(ValueId v, ValueId x, int lane);
  /// A vector of `lanes` copies of scalar `x`.
  ValueId splat(ValueId x, int lanes);
  /// An atomic read-modify-write on the element at `p` (global or shared); returns the old
  /// value. For CompareExchange, `operands` is {compare, new value}; otherwise {value}.
  ValueId atomic(AtomicKind kind, ValueId p, std::span<const ValueId> operands, MemoryScope scope,
                 MemoryOrder order);
  /// Block-wide barrier (all threads of the block, with memory ordering of the block).
  void barrier();
  /// Grid-wide barrier of a cooperative launch: every thread of every block waits until all
  /// have arrived; memory writes before it are visible to the whole grid after it.
  void grid_sync();
  /// Barrier that also reduces predicate `pred` over the block: Count gives an i32, And/Or an i1.
  ValueId barrier_reduce(BarrierReduceKind kind, ValueId pred);
  /// A memory fence at `scope` (membar.cta / .gl / .sys).
  void fence(MemoryScope scope);
  /// Initialises the mbarrier at `bar` (a u64 in shared memory) for `count` (i32) arrivals.
  void mbarrier_init(ValueId bar, ValueId count);
  /// An arrival on the mbarrier at `bar`; with `tx_bytes` (i32), one that also expects that
  /// many bytes of asynchronous copies to complete on it (arrive.expect_tx).
  void mbarrier_arrive(ValueId bar, ValueId tx_bytes = kNone);
  /// Whether the phase of parity `phase` (i32: 0 or 1) of the mbarrier at `bar` has completed
  /// (i1); it waits a bounded, hardware-chosen time before answering false.
  ValueId mbarrier_try_wait(ValueId bar, ValueId phase);
  /// A TMA load: the box of tensor map `desc` at `coords` (i32, outermost first) into shared
  /// memory at `dst`, completing on the mbarrier at `bar` with the box's bytes.
  void tma_load(ValueId desc, ValueId dst, ValueId bar, std::span<const ValueId> coords);
  /// A TMA store of the box at `src` in shared memory to tensor map `desc` at `coords`; it joins
  /// the current bulk group (bulk_commit, bulk_wait).
  void tma_store(ValueId desc, ValueId src, std::span<const ValueId> coords);
  /// Commits the TMA stores issued since the last commit as one bulk group.
  void bulk_commit();
  /// Waits until at most `pending` bulk groups are in flight; with `reads_only`, only until
  /// their reads of shared memory are done.
  void bulk_wait(std::int64_t pending, bool reads_only);
  /// Orders this thread's shared-memory accesses before the asynchronous copies after it
  /// (fence.proxy.async.shared::cta).
  void fence_proxy_async();
  /// Calls device function `callee` (which the function being built then lists among its
  /// callees) with `args`; returns its result, or kNone for a void function.
  ValueId call(std::shared_ptr<const Function> callee, std::span<const ValueId> args);
  /// Ends a device function's body with the return of `value` (kNone for void).
  void finish_device_function(ValueId value);
  /// A math function (see math.def) on operands of one scalar type.
  ValueId math(MathFn fn, std::span<const ValueId> operands);
  /// A warp shuffle of a 32- or 64-bit scalar among the lanes in `mask` (u32): `lane` is the
  /// source lane (Idx), delta (Up, Down) or lane mask (Xor).
  ValueId shuffle(ShuffleKind kind, ValueId value, ValueId lane, ValueId mask);
  /// A warp vote on i1 `pred` over `mask`: all/any give i1, ballot gives u32.
  ValueId vote(VoteKind kind, ValueId pred, ValueId mask);
  /// The lanes of `mask` holding the same 32/64-bit value (Any), or all of them or none (All).
  ValueId match(MatchKind kind, ValueId value, ValueId mask);
  /// A warp reduction of a 32-bit integer over `mask` (redux.sync, sm_80+).
  ValueId redux(ReduxKind kind, ValueId value, ValueId mask);
  /// The mask of the warp's currently active lanes (u32).
  ValueId active_mask();
  /// printf from the device: `format` is a C format string; arguments are scalars (f32 is
  /// passed as f64, small integers as i32, as C varargs do).
  void print(const std::string& format, std::span<const ValueId> args);
  /// Device-side assertion: when `cond` is false, the kernel stops with a message naming
  /// `message`, `file` and `line`, and the launch's stream reports an error.
  void assert_(ValueId cond, const std::string& message, const std::string& file, std::int64_t line);

  /// Builds a region's body: gets the region's arguments, returns the values to yield.
  using BodyFn = std::function<std::vector<ValueId>(std::span<const ValueId> args)>;
  /// Combines tiles `inputs` (N tiles of one shape) along `axis` with `combine`, a region
  /// taking 2N scalars (the left N, then the right N) and yielding N: N results, tiles without
  /// the axis or scalars for 1-D inputs. `combine` must be associative.
  std::vector<ValueId> tile_reduce_with(std::span<const ValueId> inputs, int axis, const BodyFn& combine);
  /// Inclusive scans of `inputs` along `axis` with `combine` (as in tile_reduce_with): N tiles
  /// of the inputs' shape.
  std::vector<ValueId> tile_scan(std::span<const ValueId> inputs, int axis, const BodyFn& combine);

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
  /// The result types of `op` on these operands by its ops.def rule (fails with its message).
  std::vector<Type> infer(Opcode op, std::span<const ValueId> operands, std::span<const Attribute> attrs,
                          std::span<const Type> given) const;
  std::vector<Type> infer_types(Opcode op, std::span<const Type> operand_types, std::span<const Attribute> attrs,
                                std::span<const Type> given) const;
  /// Emits `op` with at most one result: checked by its rule (`given` is the result type of an
  /// op whose result the operands do not determine), folded, deduplicated when pure.
  ValueId emit(Opcode op, std::vector<ValueId> operands, std::vector<Attribute> attrs = {},
               std::optional<Type> given = std::nullopt);
  void emit_terminator(Opcode op, std::vector<ValueId> operands);
  InstId open_region_op(Opcode op, std::vector<ValueId> operands, int num_regions);
  std::vector<ValueId> build_region(InstId owner, std::uint32_t index, std::span<const Type> arg_types,
                                    const BodyFn& fn);
  std::vector<ValueId> close_region_op(InstId id, std::span<const Type> result_types);
  [[noreturn]] void fail(const std::string& what) const;
  void check_tile_shape(std::span<const std::int64_t> shape) const;
  Type tile_operand(ValueId x, const char* what) const;
  Type pointer_to(Type elem, AddressSpace space, const char* what) const;
  std::vector<ValueId> tile_combine(Opcode op, std::span<const ValueId> inputs, int axis, const BodyFn& combine);

  Function* f_;
  Location loc_;
  std::vector<InsertPoint> ip_;
  std::vector<std::unique_ptr<Scope>> scopes_;
};

/// Normalizes an integer constant to scalar type `t`: truncates to its width, then
/// sign-extends (signed types) or zero-extends (unsigned, i1) back to 64 bits.
std::int64_t normalize_int(Type t, std::int64_t v);

}  // namespace cutlet::ir
