// The IR container: a kernel function owning flat SSA values, instructions and regions.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "cutlet/ir/opcode.h"
#include "cutlet/ir/type.h"

namespace cutlet::ir {

/// A dense SSA value number within one Function.
using ValueId = std::uint32_t;
/// A dense instruction number within one Function.
using InstId = std::uint32_t;
inline constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

/// An instruction attribute: an integer (constants, predicates, registers, op kinds), a
/// float constant, a type, or a string (format strings, messages).
using Attribute = std::variant<std::int64_t, double, Type, std::string>;

/// A source position in the user's program ({nullptr, 0} when unknown). File names are
/// the static strings of std::source_location.
struct Location {
  const char* file = nullptr;
  std::uint32_t line = 0;
  bool known() const { return file != nullptr; }
};

/// A structured region: block arguments (for loops: induction variable and carried
/// values; for the function body: the parameters) and a straight-line list of
/// instructions, whose last is a terminator (yield or condition) except in the body.
struct Region {
  std::vector<ValueId> args;
  std::vector<InstId> body;
};

/// A buffer in a kernel's shared-memory arena (the start of the block's dynamic shared
/// memory), placed by the allocate-shared pass (passes.h).
struct SharedBuffer {
  std::int64_t offset = 0;  ///< byte offset in the arena
  std::int64_t bytes = 0;
  std::string what;         ///< what it holds: "layout conversion", "cp.async stage ring of a (...)", ...
};

/// One operation. Region ops (if, for, while) own their regions:
///  - `if %c` : regions {then, else}; each ends in `yield` of the results.
///  - `for %lb, %ub, %step, %init...` : one region with args (%iv, %carried...); it ends in
///    `yield` of the next carried values; results are the final carried values. The
///    loop runs while iv < ub for a positive step (iv > ub for a negative one).
///  - `while %init...` : regions {before, after}. `before` takes the carried values and
///    ends in `condition %c, %forwarded...`; when %c is false the loop ends with the
///    forwarded values as results, otherwise `after` takes them and yields the next.
struct Instruction {
  Opcode op{};
  std::vector<ValueId> results;
  std::vector<ValueId> operands;
  std::vector<Attribute> attrs;
  std::vector<Region> regions;
  Location loc;
  /// The shared memory the op uses, placed by allocate-shared: its scratch buffers (live while
  /// it runs), a tile.local_alloc's buffer (until its tile.local_dealloc) or a kernel's
  /// shared_array (for the whole kernel). Empty before that pass and for ops that need none.
  std::vector<SharedBuffer> shared;

  std::int64_t int_attr(std::size_t i = 0) const { return std::get<std::int64_t>(attrs.at(i)); }
  double float_attr(std::size_t i = 0) const { return std::get<double>(attrs.at(i)); }
  const std::string& string_attr(std::size_t i = 0) const { return std::get<std::string>(attrs.at(i)); }
};

/// A buffer live when a kernel's shared-memory arena reached its size, and the op it serves:
/// what a message about a kernel that needs too much shared memory lists.
struct SharedPeakBuffer {
  SharedBuffer buffer;
  Opcode op{};
  Location loc;
};

/// Where a value comes from: an instruction result or a region argument.
struct ValueInfo {
  Type type;
  InstId def = kNone;          ///< defining instruction, or kNone for region arguments
  std::uint32_t index = 0;     ///< result index, or argument index in its region
};

/// A kernel, or a device function that kernels call: parameters are the body region's
/// arguments. A kernel's body has no terminator; a device function's body ends in `yield`
/// of its return value (or of nothing for void). Owns every value and instruction; ids are
/// indices into its tables. The device functions it calls are listed in callees().
class Function {
 public:
  explicit Function(std::string name = "kernel") : name_(std::move(name)) {}

  /// True for a kernel (an entry point), false for a device function.
  bool is_kernel() const { return return_type_.has_value() == false; }
  /// The return type of a device function (void for one that returns nothing).
  Type return_type() const { return return_type_.value_or(Type::void_type()); }
  /// Makes this a device function returning `t` (void for none).
  void set_device_function(Type t) { return_type_ = t; }

  /// The device functions called from this function (each once, by name).
  const std::vector<std::shared_ptr<const Function>>& callees() const { return callees_; }
  /// The callee named `name`, or nullptr.
  const Function* callee(const std::string& name) const {
    for (const auto& c : callees_)
      if (c->name() == name) return c.get();
    return nullptr;
  }
  /// Adds `f` to the callees unless one of its name is there already.
  void add_callee(std::shared_ptr<const Function> f) {
    if (!callee(f->name())) callees_.push_back(std::move(f));
  }

  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }

  Region& body() { return body_; }
  const Region& body() const { return body_; }
  std::span<const ValueId> params() const { return body_.args; }
  /// True when parameter `i` (a pointer) is declared not to alias any other pointer the
  /// kernel accesses (C's restrict): loads through it may use the read-only data path.
  bool param_noalias(std::size_t i) const { return i < noalias_.size() && noalias_[i]; }
  void set_param_noalias(std::size_t i, bool v) {
    if (noalias_.size() <= i) noalias_.resize(i + 1, false);
    noalias_[i] = v;
  }

  /// For a tile kernel, the warps per block its tiles are spread over (0 for a per-thread
  /// kernel); it launches with exactly 32 * tile_warps() threads per block.
  int tile_warps() const { return tile_warps_; }
  void set_tile_warps(int w) { tile_warps_ = w; }
  /// For a tile kernel, the shared-memory stages of its software-pipelined loops: loads feeding
  /// a dot are issued with cp.async tile_stages() - 1 iterations ahead (see pipeline_loops). 0: the default.
  int tile_stages() const { return tile_stages_; }
  void set_tile_stages(int s) { tile_stages_ = s; }
  /// For a tile kernel, whether its dots may run on Hopper's warpgroup MMA (wgmma), which
  /// needs an sm_90a target: set when the kernel is traced for such a target; the layout and
  /// pipelining passes then give eligible dots wgmma accumulators and swizzled operands.
  bool tile_wgmma() const { return tile_wgmma_; }
  void set_tile_wgmma(bool on) { tile_wgmma_ = on; }
  /// Whether the kernel is compiled for the host CPU (the CPU device): its tile dots then use
  /// FMAs and its loops are not software-pipelined, since the CPU has neither tensor cores nor
  /// asynchronous copies.
  bool host_target() const { return host_target_; }
  void set_host_target(bool on) { host_target_ = on; }

  /// The bytes of shared memory the function's own ops use at their peak: the size of its
  /// arena, which the user's dynamic shared memory follows. -1 until allocate-shared ran.
  std::int64_t shared_bytes() const { return shared_bytes_; }
  /// The buffers live at that peak, lowest offset first.
  const std::vector<SharedPeakBuffer>& shared_peak() const { return shared_peak_; }
  void set_shared_plan(std::int64_t bytes, std::vector<SharedPeakBuffer> peak) {
    shared_bytes_ = bytes;
    shared_peak_ = std::move(peak);
  }

  Instruction& inst(InstId id) { return insts_.at(id); }
  const Instruction& inst(InstId id) const { return insts_.at(id); }
  const ValueInfo& value(ValueId id) const { return values_.at(id); }
  Type type_of(ValueId id) const { return values_.at(id).type; }
  std::size_t num_values() const { return values_.size(); }
  std::size_t num_insts() const { return insts_.size(); }

  /// The instruction that defines `v`, or nullptr for a region argument.
  const Instruction* def_of(ValueId v) const {
    auto d = values_.at(v).def;
    return d == kNone ? nullptr : &insts_[d];
  }

  /// Appends a new instruction (not yet placed in a region) and returns its id.
  InstId add_inst(Instruction inst);
  /// Creates a new value of type `t` defined by `def` (kNone for a region argument).
  ValueId add_value(Type t, InstId def, std::uint32_t index);
  /// Retypes value v (passes that place tiles: see layout.h).
  void set_type(ValueId v, Type t) { values_.at(v).type = t; }

 private:
  std::string name_;
  std::optional<Type> return_type_;
  std::vector<std::shared_ptr<const Function>> callees_;
  std::vector<bool> noalias_;
  int tile_warps_ = 0;
  int tile_stages_ = 0;
  bool tile_wgmma_ = false;
  bool host_target_ = false;
  std::int64_t shared_bytes_ = -1;
  std::vector<SharedPeakBuffer> shared_peak_;
  Region body_;
  std::vector<Instruction> insts_;
  std::vector<ValueInfo> values_;
};

/// Whether `name` can name a PTX kernel or function: a letter, `_` or `$`, then letters,
/// digits, `_` or `$`, at most 1024 characters.
bool is_symbol_name(std::string_view name) noexcept;

/// The first instruction with opcode `op` placed in `f`'s body (regions included) or in the
/// body of a device function it calls, or nullptr.
const Instruction* find_instruction(const Function& f, Opcode op);

}  // namespace cutlet::ir
