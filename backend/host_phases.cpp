// A host kernel's block as phases: loops over its threads split at barriers and warp
// operations (host_phases.h).
#include "host_phases.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <span>

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Metadata.h>
#include <llvm/Transforms/Utils/CodeExtractor.h>

#include "cutlet/error.h"
#include "debug_info.h"
#include "host_tile_exchange.h"
#include "tile_support.h"

namespace cutlet::backend {
namespace {

using ir::Opcode;

/// What an op waits for: nothing; the lanes of its warp that run with it (activemask), which
/// may be any of them; every lane of its warp; every thread of its block.
enum class Sync : std::uint8_t { None, Lanes, Warp, Block };

constexpr int kPhaseLevel = -1;  ///< the segment of ops run once for the block, not per thread

constexpr const char* kScratchFlag = "cutlet.host_phases_scratch";
constexpr const char* kErrorsMetadata = "cutlet.host_phases_errors";
constexpr const char* kExchangeFlag = "cutlet.host_phases_exchange";

bool is_warp_op(Opcode op) {
  return op == Opcode::Shuffle || op == Opcode::Vote || op == Opcode::Match || op == Opcode::Redux;
}

ir::ValueId mask_of(const ir::Instruction& inst) {
  switch (inst.op) {
    case Opcode::Shuffle: return ir::ops::Shuffle(inst).mask();
    case Opcode::Vote: return ir::ops::Vote(inst).mask();
    case Opcode::Match: return ir::ops::Match(inst).mask();
    default: return ir::ops::Redux(inst).mask();
  }
}

bool is_full_mask(const ir::Function& fn, ir::ValueId mask) {
  const ir::Instruction* def = fn.def_of(mask);
  if (!def || def->op != Opcode::Const) return false;
  const auto* bits = std::get_if<std::int64_t>(&def->attrs.at(0));
  return bits && (static_cast<std::uint64_t>(*bits) & 0xffffffffu) == 0xffffffffu;
}

bool phases_allow(const ir::Function& fn, const ir::Region& r) {
  for (ir::InstId id : r.body) {
    const ir::Instruction& inst = fn.inst(id);
    if (inst.op == Opcode::GridSync) return false;
    if (is_warp_op(inst.op) && !is_full_mask(fn, mask_of(inst))) return false;
    for (const ir::Region& sub : inst.regions)
      if (!phases_allow(fn, sub)) return false;
  }
  return true;
}

/// Where each op of a kernel runs: in which segment (a stretch without waits, run as one
/// loop over the threads) or at the phase level; which values a segment makes that others
/// read; which local variables live across segments.
class Segments {
 public:
  explicit Segments(const ir::Function& fn)
      : fn_(fn), sync_(fn.num_insts(), -1), segment_(fn.num_insts(), kPhaseLevel),
        value_segment_(fn.num_values(), kPhaseLevel), escapes_(fn.num_values(), false),
        lockstep_(fn.num_insts(), false), hoisted_(fn.num_insts(), false), uniform_(fn.num_values(), false),
        per_thread_(fn.num_values(), -1), remat_(fn.num_values(), -1) {
    for (ir::ValueId p : fn.params()) uniform_[p] = true;
    assign(fn.body(), true, true);
    uses(fn.body());
    find_exits(fn.body());
  }

  /// Whether for loop `id`, which does not wait, runs in lock step: each iteration for
  /// every thread in turn, rather than each thread's iterations in turn. So run the loops
  /// whose bounds differ by thread and whose body reads memory (grid-stride loops): their
  /// threads then read neighbouring elements one after the other, as a GPU's warps do.
  bool lockstep(ir::InstId id) const { return lockstep_[id]; }

  /// Whether op `id`, though it does not wait, runs once for the block at the phase level
  /// rather than in a segment for each thread: it has no effect, cannot trap, and reads only
  /// the kernel's parameters and other such ops' results, so it is the same for every thread
  /// (a grid-stride loop's stride, a shared array's address, blockIdx * blockDim). Kept per
  /// thread, such a value would cost a load from each thread's scratch memory wherever a
  /// later segment reads it.
  bool hoisted(ir::InstId id) const { return hoisted_[id]; }

  Sync sync(ir::InstId id) const {
    if (sync_[id] >= 0) return static_cast<Sync>(sync_[id]);
    const ir::Instruction& inst = fn_.inst(id);
    Sync s = Sync::None;
    if (inst.op == Opcode::Barrier || inst.op == Opcode::BarrierReduce || host_tile_exchange(fn_, inst)) s = Sync::Block;
    else if (is_warp_op(inst.op)) s = Sync::Warp;
    else if (inst.op == Opcode::ActiveMask) s = Sync::Lanes;
    for (const ir::Region& r : inst.regions)
      for (ir::InstId sub : r.body) s = std::max(s, sync(sub));
    sync_[id] = static_cast<int>(s);
    return s;
  }
  /// The segment op `id` runs in (kPhaseLevel for ops run once for the block).
  int segment(ir::InstId id) const { return segment_[id]; }
  /// The segment value v is made in (kPhaseLevel: results of phase-level ops, arguments of
  /// their regions and the kernel's parameters).
  int value_segment(ir::ValueId v) const { return value_segment_[v]; }
  /// Whether value v is read outside the segment that makes it (and kept for it).
  bool escapes(ir::ValueId v) const { return escapes_[v]; }
  /// Whether value v, made in a segment, is cheaper made again where another segment reads it
  /// than kept: index arithmetic (thread indices, parameters' fields, aranges, splats,
  /// broadcasts, adds, compares, ...) of values made at the phase level or such values.
  bool rematerializable(ir::ValueId v) const {
    if (remat_[v] >= 0) return remat_[v] != 0;
    const ir::Instruction* def = fn_.def_of(v);
    bool r = def && def->regions.empty() && cheap(def->op) && value_segment_[v] != kPhaseLevel;
    remat_[v] = 0;  // cycles (none in SSA) end here
    if (r)
      for (ir::ValueId o : def->operands) r = r && (value_segment_[o] == kPhaseLevel || rematerializable(o));
    remat_[v] = r ? 1 : 0;
    return r;
  }
  bool is_terminator(Opcode op) const { return op == Opcode::Yield || op == Opcode::Condition; }
  /// Whether if `id` ends the kernel with nothing in its else and no results: the threads
  /// that skip it are done.
  bool exits(ir::InstId id) const { return std::find(exits_.begin(), exits_.end(), id) != exits_.end(); }
  /// How many segments the kernel has.
  int count() const { return count_; }

 private:
  /// The ifs that end region r (the kernel's body, or an exit's then) and are exits.
  void find_exits(const ir::Region& r) {
    if (r.body.empty()) return;
    ir::InstId last = r.body.back();
    if (is_terminator(fn_.inst(last).op)) {
      if (r.body.size() < 2 || !fn_.inst(last).operands.empty()) return;
      last = r.body[r.body.size() - 2];
    }
    const ir::Instruction& inst = fn_.inst(last);
    if (inst.op != Opcode::If || !inst.results.empty() || inst.regions[1].body.size() > 1) return;
    exits_.push_back(last);
    find_exits(inst.regions[0]);
  }
  /// Assigns the ops of region r to segments; `outermost`: no loop around r runs per thread;
  /// `phase_level`: r is lowered at the phase level (not the body of a loop in lock step), so
  /// its uniform ops can run there (hoisted).
  void assign(const ir::Region& r, bool outermost, bool phase_level) {
    int seg = kPhaseLevel;
    for (ir::InstId id : r.body) {
      const ir::Instruction& inst = fn_.inst(id);
      const bool step = outermost && runs_in_lockstep(id);
      if (sync(id) == Sync::None && !is_terminator(inst.op) && !step) {
        if (phase_level && uniform(inst)) {
          hoisted_[id] = true;  // stays at the phase level; the segment goes on after it
          for (ir::ValueId v : inst.results) uniform_[v] = true;
          continue;
        }
        if (seg == kPhaseLevel) seg = count_++;
        mark(id, seg);
        continue;
      }
      seg = kPhaseLevel;
      lockstep_[id] = step;
      if (host_tile_exchange(fn_, inst)) continue;  // its combine runs inside the exchange
      for (const ir::Region& sub : inst.regions) assign(sub, outermost && !step, phase_level && !step);
    }
  }
  /// Whether op `inst` may be hoisted (hoisted()): an op without effects, traps or regions,
  /// of scalars, whose operands are uniform.
  bool uniform(const ir::Instruction& inst) const {
    if (!inst.regions.empty()) return false;
    if (inst.op == Opcode::Special && per_thread_register(ir::ops::Special(inst).reg())) return false;
    switch (inst.op) {
      case Opcode::Neg:
      case Opcode::Not:
      case Opcode::Bitcast:
      case Opcode::Math:
      case Opcode::Extract:
      case Opcode::Insert:
      case Opcode::SharedAlloc:  // an address in the block's shared memory
      case Opcode::DynamicShared: break;
      default:
        if (!cheap(inst.op)) return false;  // division traps on a zero divisor; memory
    }
    for (ir::ValueId v : inst.results)
      if (fn_.type_of(v).is_tile()) return false;
    for (ir::ValueId v : inst.operands)
      if (!uniform_[v]) return false;
    return true;
  }
  bool runs_in_lockstep(ir::InstId id) const {
    const ir::Instruction& inst = fn_.inst(id);
    if (inst.op != Opcode::For || sync(id) != Sync::None) return false;
    const ir::ops::For loop(inst);
    return (per_thread(loop.lower()) || per_thread(loop.upper())) && reads_memory(inst.regions[0]);
  }
  bool reads_memory(const ir::Region& r) const {
    for (ir::InstId id : r.body) {
      const ir::Instruction& inst = fn_.inst(id);
      if (inst.op == Opcode::Load || inst.op == Opcode::VecLoad || inst.op == Opcode::Atomic || inst.op == Opcode::TileLoad)
        return true;
      for (const ir::Region& sub : inst.regions)
        if (reads_memory(sub)) return true;
    }
    return false;
  }
  /// Whether value v may differ between the threads of a block (region arguments may).
  bool per_thread(ir::ValueId v) const {
    if (per_thread_[v] >= 0) return per_thread_[v] != 0;
    const ir::Instruction* def = fn_.def_of(v);
    bool r = false;
    if (!def) {
      r = std::find(fn_.params().begin(), fn_.params().end(), v) == fn_.params().end();
    } else if (def->op == Opcode::Special) {
      r = per_thread_register(ir::ops::Special(*def).reg());
    } else {
      per_thread_[v] = 0;  // cycles (none in SSA) end here
      for (ir::ValueId o : def->operands) r = r || per_thread(o);
      r = r || !def->regions.empty();
    }
    per_thread_[v] = r ? 1 : 0;
    return r;
  }
  static bool per_thread_register(ir::SpecialReg reg) {
    return reg == ir::SpecialReg::ThreadIdxX || reg == ir::SpecialReg::ThreadIdxY || reg == ir::SpecialReg::ThreadIdxZ ||
           reg == ir::SpecialReg::LaneId;
  }
  static bool cheap(Opcode op) {
    switch (op) {
      case Opcode::Const:
      case Opcode::Special:
      case Opcode::Field:
      case Opcode::PtrAdd:
      case Opcode::Add:
      case Opcode::Sub:
      case Opcode::Mul:
      case Opcode::Min:
      case Opcode::Max:
      case Opcode::And:
      case Opcode::Or:
      case Opcode::Xor:
      case Opcode::Shl:
      case Opcode::Shr:
      case Opcode::Cmp:
      case Opcode::Select:
      case Opcode::Cast:
      case Opcode::TileArange:
      case Opcode::TileSplat:
      case Opcode::TileBroadcast:
      case Opcode::TileExpandDims: return true;
      default: return false;
    }
  }
  void mark(ir::InstId id, int seg) {
    const ir::Instruction& inst = fn_.inst(id);
    segment_[id] = seg;
    for (ir::ValueId v : inst.results) value_segment_[v] = seg;
    for (const ir::Region& sub : inst.regions) {
      for (ir::ValueId a : sub.args) value_segment_[a] = seg;
      for (ir::InstId s : sub.body) mark(s, seg);
    }
  }
  void uses(const ir::Region& r) {
    for (ir::InstId id : r.body) {
      const ir::Instruction& inst = fn_.inst(id);
      for (ir::ValueId v : inst.operands)
        if (value_segment_[v] != kPhaseLevel && value_segment_[v] != segment_[id] &&
            (segment_[id] == kPhaseLevel || !rematerializable(v)))
          escapes_[v] = true;
      for (const ir::Region& sub : inst.regions) uses(sub);
    }
  }

  const ir::Function& fn_;
  mutable std::vector<int> sync_;
  std::vector<int> segment_;
  std::vector<int> value_segment_;
  std::vector<bool> escapes_;
  std::vector<bool> lockstep_;
  std::vector<bool> hoisted_;
  std::vector<bool> uniform_;  ///< by value: a parameter or a hoisted op's result
  std::vector<ir::InstId> exits_;
  mutable std::vector<int> per_thread_;
  mutable std::vector<int> remat_;
  int count_ = 0;
};

class PhaseLowering {
 public:
  PhaseLowering(LoweringContext& c, DebugInfo* debug) : c_(c), b_(c.b), debug_(debug), seg_(c.fn) {}

  void lower() {
    llvm::Function& f = *c_.kernel;
    llvm::Type* i32 = b_.getInt32Ty();
    shape_ = f.getArg(1);
    // The block's exchange memory (host_tile_exchange.h) first, twice: an exchange scatters
    // its results in the loop over the threads that gathers the next one's operands. Then the
    // threads' slots.
    exchange_bytes_ = host_exchange_bytes(c_);
    exchange_ = f.getArg(6);
    scratch_ = b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), exchange_, 2 * exchange_bytes_);
    // The thread state the lowering reads special registers from: threadIdx and lane set by
    // each thread loop, the rest here.
    auto* state_ty = llvm::ArrayType::get(i32, kHostThreadStateWords);
    state_ = c_.entry.CreateAlloca(state_ty, nullptr, "thread_state");
    c_.host_thread_state = state_;
    c_.in_phases = true;
    for (unsigned i = 0; i < 6; ++i) {
      llvm::Value* d = b_.CreateLoad(i32, b_.CreateConstInBoundsGEP1_32(i32, shape_, i));
      if (i < 3) dims_[i] = d;
      b_.CreateStore(d, word(3 + (i < 3 ? i : i + 3)));  // blockDim at 3, gridDim at 9
    }
    for (unsigned i = 0; i < 3; ++i) b_.CreateStore(f.getArg(2 + i), word(6 + i));
    threads_ = b_.CreateMul(b_.CreateMul(dims_[0], dims_[1]), dims_[2], "threads");
    warps_ = b_.CreateLShr(b_.CreateAdd(threads_, b_.getInt32(31)), 5, "warps");
    threads64_ = b_.CreateZExt(threads_, b_.getInt64Ty());
    c_.host_shared = b_.CreateAddrSpaceCast(f.getArg(5), b_.getPtrTy(3));
    for (ir::ValueId p : c_.fn.params()) uniform_[p] = c_.values[p];

    region(c_.fn.body());
    b_.CreateRet(b_.getInt32(0));
    outline_thread_loops();

    c_.module.addModuleFlag(llvm::Module::Warning, kScratchFlag, static_cast<std::uint32_t>(scratch_bytes_));
    c_.module.addModuleFlag(llvm::Module::Warning, kExchangeFlag, static_cast<std::uint32_t>(2 * exchange_bytes_));
    auto* errors = c_.module.getOrInsertNamedMetadata(kErrorsMetadata);
    for (const std::string& e : errors_) errors->addOperand(llvm::MDNode::get(c_.ctx, {llvm::MDString::get(c_.ctx, e)}));
  }

 private:
  /// A value kept per thread in the scratch memory: `bytes` a thread from `offset * threads`.
  struct Slot {
    std::uint64_t offset = 0;
    std::uint64_t bytes = 0;
    llvm::Type* type = nullptr;  ///< the value's type (nullptr for a local variable's memory)
  };

  llvm::Value* word(unsigned i) {
    return b_.CreateConstInBoundsGEP2_32(llvm::ArrayType::get(b_.getInt32Ty(), kHostThreadStateWords), state_, 0, i);
  }
  llvm::BasicBlock* block(const std::string& name) { return llvm::BasicBlock::Create(c_.ctx, name, c_.kernel); }

  Slot new_slot(llvm::Type* type, std::uint64_t bytes) {
    Slot s{scratch_bytes_, bytes, type};
    scratch_bytes_ += (bytes + 15) / 16 * 16;
    return s;
  }
  Slot new_slot(llvm::Type* type) {
    const llvm::DataLayout& dl = c_.module.getDataLayout();
    std::uint64_t bytes = dl.getTypeAllocSize(type);
    if (type->isVectorTy()) bytes = llvm::PowerOf2Ceil(bytes);  // as any host lays vectors out
    return new_slot(type, bytes);
  }
  /// A flag a thread (or a warp): one byte each.
  Slot new_mask() { return new_slot(b_.getInt8Ty(), 1); }
  llvm::Value* flag(const Slot& m, llvm::Value* i) { return b_.CreateICmpNE(load(m, i), b_.getInt8(0)); }
  void set_flag(const Slot& m, llvm::Value* i, llvm::Value* on) { store(m, i, b_.CreateZExt(on, b_.getInt8Ty())); }
  /// Whether thread t runs now.
  llvm::Value* running(llvm::Value* t) { return mask_ ? flag(*mask_, t) : b_.getTrue(); }

  llvm::Value* address(const Slot& s, llvm::Value* index) {
    llvm::Value* base = b_.CreateInBoundsGEP(b_.getInt8Ty(), scratch_, b_.CreateMul(threads64_, b_.getInt64(s.offset)));
    return b_.CreateInBoundsGEP(b_.getInt8Ty(), base, b_.CreateMul(b_.CreateZExt(index, b_.getInt64Ty()), b_.getInt64(s.bytes)));
  }
  llvm::Align align(const Slot& s) const { return llvm::commonAlignment(llvm::Align(16), s.bytes); }
  llvm::Value* load(const Slot& s, llvm::Value* index) { return b_.CreateAlignedLoad(s.type, address(s, index), align(s)); }
  void store(const Slot& s, llvm::Value* index, llvm::Value* v) { b_.CreateAlignedStore(v, address(s, index), align(s)); }

  /// Value v as thread `t` has it.
  llvm::Value* value_in(ir::ValueId v, llvm::Value* t) {
    if (auto u = uniform_.find(v); u != uniform_.end()) return u->second;
    if (auto h = this_thread_.find(v); h != this_thread_.end()) return h->second;
    if (auto m = memory_.find(v); m != memory_.end()) return address(m->second, t);
    auto s = slots_.find(v);
    CUTLET_ASSERT(s != slots_.end(), "a value the phases of a host kernel did not keep");
    return load(s->second, t);
  }
  /// Keeps value v, which thread t just made as `x`, for later phases.
  void keep(ir::ValueId v, llvm::Value* x, llvm::Value* t) {
    const auto* inst = llvm::dyn_cast<llvm::Instruction>(x);
    if (!inst || inst->getParent() == &c_.kernel->getEntryBlock()) {
      uniform_[v] = x;
      return;
    }
    auto s = slots_.find(v);
    if (s == slots_.end()) s = slots_.emplace(v, new_slot(x->getType())).first;
    store(s->second, t, x);
  }

  /// Marks the loop whose latch branch is `br` as one LLVM should neither vectorize nor
  /// unroll: the phases' own bookkeeping (copies, warp operations, flags), which would only
  /// grow the code and its compile time.
  void keep_scalar(llvm::Instruction* br) {
    llvm::Metadata* no_vectorize[] = {llvm::MDString::get(c_.ctx, "llvm.loop.vectorize.enable"),
                                      llvm::ConstantAsMetadata::get(b_.getFalse())};
    llvm::Metadata* no_unroll[] = {llvm::MDString::get(c_.ctx, "llvm.loop.unroll.disable")};
    llvm::Metadata* parts[] = {nullptr, llvm::MDNode::get(c_.ctx, no_vectorize), llvm::MDNode::get(c_.ctx, no_unroll)};
    llvm::MDNode* loop = llvm::MDNode::getDistinct(c_.ctx, parts);
    loop->replaceOperandWith(0, loop);
    br->setMetadata(llvm::LLVMContext::MD_loop, loop);
  }

  /// for z, for y, for x over the block's threads (those mask_ has running, if any):
  /// `body(t)` with t the thread's linear index and the thread state set. `scalar`: the
  /// loop is bookkeeping (keep_scalar).
  void thread_loop(const std::function<void(llvm::Value*)>& body, bool scalar = true) {
    llvm::BasicBlock* last = &c_.kernel->back();
    std::function<void(int, llvm::Value*)> loop = [&](int dim, llvm::Value* outer) {
      llvm::BasicBlock* pre = b_.GetInsertBlock();
      llvm::BasicBlock* header = block("thread." + std::to_string(dim));
      b_.CreateBr(header);
      b_.SetInsertPoint(header);
      llvm::PHINode* i = b_.CreatePHI(b_.getInt32Ty(), 2);
      i->addIncoming(b_.getInt32(0), pre);
      b_.CreateStore(i, word(static_cast<unsigned>(dim)));
      llvm::Value* t = b_.CreateAdd(b_.CreateMul(outer, dims_[dim]), i);
      if (dim > 0) {
        loop(dim - 1, t);
      } else {
        b_.CreateStore(b_.CreateAnd(t, b_.getInt32(31)), word(12));
        if (mask_) {
          llvm::BasicBlock* run = block("thread.runs");
          llvm::BasicBlock* skip = block("thread.next");
          b_.CreateCondBr(flag(*mask_, t), run, skip);
          b_.SetInsertPoint(run);
          body(t);
          b_.CreateBr(skip);
          b_.SetInsertPoint(skip);
        } else {
          body(t);
        }
      }
      llvm::Value* next = b_.CreateAdd(i, b_.getInt32(1), "", true, true);
      i->addIncoming(next, b_.GetInsertBlock());
      llvm::BasicBlock* after = block("thread." + std::to_string(dim) + ".end");
      llvm::Instruction* latch = b_.CreateCondBr(b_.CreateICmpULT(next, dims_[dim]), header, after);
      if (scalar) keep_scalar(latch);  // the loops over y and z too: unrolled, they copy the loop in them
      b_.SetInsertPoint(after);
    };
    loop(2, b_.getInt32(0));
    // The loop's blocks: those made since `last`, less the one it exits to (made last).
    if (seg_.count() > 1) {
      std::vector<llvm::BasicBlock*> blocks;
      for (auto it = std::next(last->getIterator()); &*it != b_.GetInsertBlock(); ++it) blocks.push_back(&*it);
      thread_loops_.push_back(std::move(blocks));
    }
  }

  /// Moves each loop over the threads of a kernel that waits into a function of its own.
  /// LLVM's loop passes ask, of each loop, which conditions guard its entry, and climb the
  /// chain of the loops before it for the answer: one function of many phases cost time
  /// quadratic in their number (minutes for a sort's kernels). The phases' function calls
  /// them in turn, none inlined; its stack memory they use (the thread state, accumulators)
  /// each takes as a noalias argument, so that LLVM keeps it in registers as before. A kernel
  /// of a few phases stays whole: it compiles fast, and LLVM sees its phases together.
  void outline_thread_loops() {
    constexpr std::size_t kFewPhases = 24;
    if (thread_loops_.size() <= kFewPhases) return;
    llvm::CodeExtractorAnalysisCache cache(*c_.kernel);
    for (const std::vector<llvm::BasicBlock*>& blocks : thread_loops_) {
      const bool returns = std::any_of(blocks.begin(), blocks.end(),
                                       [](llvm::BasicBlock* bb) { return llvm::isa<llvm::ReturnInst>(bb->getTerminator()); });
      if (returns) continue;  // an assert_ that stops the block
      llvm::CodeExtractor extractor(blocks, nullptr, false, nullptr, nullptr, nullptr, false, false, nullptr, "phase");
      if (!extractor.isEligible()) continue;
      llvm::Function* phase = extractor.extractCodeRegion(cache);
      if (!phase) continue;
      phase->addFnAttr(llvm::Attribute::NoInline);
      phase->addFnAttr(llvm::Attribute::NoUnwind);
      // The kernel's own memory (the thread state, accumulators) reaches the loop only
      // through its argument: no store through another pointer touches it.
      auto* call = llvm::cast<llvm::CallInst>(*phase->user_begin());
      for (unsigned i = 0; i < call->arg_size(); ++i) {
        auto* memory = llvm::dyn_cast<llvm::AllocaInst>(call->getArgOperand(i));
        if (!memory) continue;
        bool once = true;
        for (unsigned j = 0; j < call->arg_size(); ++j)
          if (j != i && call->getArgOperand(j)->getType()->isPointerTy() &&
              llvm::getUnderlyingObject(call->getArgOperand(j)) == memory)
            once = false;
        if (once) phase->addParamAttr(i, llvm::Attribute::NoAlias);
      }
    }
  }

  /// for i in [0, count): body(i), with no thread state (over warps, or a reduction).
  void index_loop(llvm::Value* count, const std::function<void(llvm::Value*)>& body) {
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    llvm::BasicBlock* header = block("each");
    llvm::BasicBlock* after = block("each.end");
    b_.CreateCondBr(b_.CreateICmpEQ(count, b_.getInt32(0)), after, header);
    b_.SetInsertPoint(header);
    llvm::PHINode* i = b_.CreatePHI(b_.getInt32Ty(), 2);
    i->addIncoming(b_.getInt32(0), pre);
    body(i);
    llvm::Value* next = b_.CreateAdd(i, b_.getInt32(1), "", true, true);
    i->addIncoming(next, b_.GetInsertBlock());
    keep_scalar(b_.CreateCondBr(b_.CreateICmpULT(next, count), header, after));
    b_.SetInsertPoint(after);
  }

  /// Stops the block with `message` where `failed` holds.
  void fail_if(llvm::Value* failed, const std::string& message) {
    errors_.push_back(message);
    llvm::BasicBlock* fail = block("phase.error");
    llvm::BasicBlock* ok = block("phase.ok");
    b_.CreateCondBr(failed, fail, ok);
    b_.SetInsertPoint(fail);
    b_.CreateRet(b_.getInt32(static_cast<std::uint32_t>(errors_.size())));
    b_.SetInsertPoint(ok);
  }

  std::string where(const ir::Instruction& inst) const {
    if (!inst.loc.known()) return "in kernel '" + c_.fn.name() + "'";
    return "at " + std::string(inst.loc.file) + ":" + std::to_string(inst.loc.line);
  }

  /// Lowers region r's ops; returns its terminator's operands (none for the kernel's body).
  std::vector<ir::ValueId> region(const ir::Region& r) {
    std::vector<ir::InstId> run;
    auto flush = [&] {
      if (!run.empty()) segment(run);
      run.clear();
    };
    for (ir::InstId id : r.body) {
      const ir::Instruction& inst = c_.fn.inst(id);
      if (seg_.segment(id) != kPhaseLevel) {
        run.push_back(id);
        continue;
      }
      if (seg_.hoisted(id)) {
        hoist(id, inst);
        continue;
      }
      if (host_tile_exchange(c_.fn, inst)) {
        exchange(inst, run);
        run.clear();
        continue;
      }
      flush();
      flush_scatters();
      if (inst.op != Opcode::Shuffle) flush_shuffles();
      if (debug_) debug_->set_location(b_, inst.loc);
      switch (inst.op) {
        case Opcode::Yield:
        case Opcode::Condition: return {inst.operands.begin(), inst.operands.end()};
        case Opcode::Barrier: checked_barrier(); break;  // the phase ended
        case Opcode::BarrierReduce:
          checked_barrier();
          barrier_reduce(inst);
          break;
        case Opcode::Shuffle: shuffle(inst); break;
        case Opcode::Vote:
        case Opcode::Match:
        case Opcode::Redux: lanes_op(inst); break;
        case Opcode::ActiveMask: active_mask(inst); break;
        case Opcode::If: lower_if(id, inst); break;
        case Opcode::For:
          if (seg_.lockstep(id)) lockstep_for(inst);
          else lower_for(id, inst);
          break;
        case Opcode::While: lower_while(id, inst); break;
        default: CUTLET_ASSERT(false, "an op that waits but has no phase lowering");
      }
    }
    flush();
    flush_scatters();
    flush_shuffles();
    return {};
  }

  /// Runs op `inst`, which Segments hoisted, once for the block: its result is every
  /// thread's. The segment around it, lowered later, goes on reading it there.
  void hoist(ir::InstId id, const ir::Instruction& inst) {
    for (ir::ValueId v : inst.operands) c_.values[v] = value_in(v, nullptr);
    if (debug_) debug_->set_location(b_, inst.loc);
    const ir::InstId ids[] = {id};
    lower_instructions(c_, debug_, ids);
    for (ir::ValueId v : inst.results) uniform_[v] = c_.values[v];
  }

  /// One loop over the threads running the ops `ids` (of one segment, without waits), then
  /// `tail` for each thread.
  void segment(const std::vector<ir::InstId>& ids, const std::function<void(llvm::Value*)>& tail = nullptr) {
    // Only a kernel that never waits is worth LLVM's vectorizer: the many short segments of
    // one that does would grow its code (and compile time) manifold for little gain.
    const auto body = segment_body(ids);
    thread_loop([&](llvm::Value* t) {
      scattered(t);
      shuffled(t);  // the slots the shuffles read are written by no segment after them
      body(t);
      if (tail) tail(t);
    }, seg_.count() > 1);
    pending_.clear();
    scatters_.clear();
  }

  /// What thread t runs of the ops `ids` (of one segment, without waits): the values it
  /// reads from elsewhere, the ops, and the values it keeps for later phases.
  std::function<void(llvm::Value*)> segment_body(const std::vector<ir::InstId>& ids) {
    if (ids.empty()) return [](llvm::Value*) {};
    const int seg = seg_.segment(ids.front());
    // The values the segment reads from elsewhere, and its local variables that live on.
    std::set<ir::ValueId> outside;
    std::function<void(const ir::Instruction&)> reads = [&](const ir::Instruction& inst) {
      for (ir::ValueId v : inst.operands)
        if (seg_.value_segment(v) != seg) outside.insert(v);
      for (const ir::Region& sub : inst.regions)
        for (ir::InstId s : sub.body) reads(c_.fn.inst(s));
    };
    std::vector<ir::InstId> lowered;
    for (ir::InstId id : ids) {
      const ir::Instruction& inst = c_.fn.inst(id);
      reads(inst);
      if (inst.op == Opcode::Alloca && seg_.escapes(inst.results[0])) {
        const ir::ValueId v = inst.results[0];
        const llvm::DataLayout& dl = c_.module.getDataLayout();
        const std::uint64_t bytes = dl.getTypeAllocSize(llvm_type(c_.ctx, c_.fn.type_of(v).element())) *
                                    static_cast<std::uint64_t>(ir::ops::Alloca(inst).count());
        memory_.emplace(v, new_slot(nullptr, bytes));
        outside.insert(v);
        continue;
      }
      lowered.push_back(id);
    }
    // Outside values made again here rather than kept (Segments::rematerializable), their
    // ops in an order that makes operands first.
    std::vector<ir::InstId> remade;
    std::set<ir::InstId> seen;
    std::set<ir::ValueId> kept;  // what the segment reads as it is
    std::function<void(ir::ValueId)> remake = [&](ir::ValueId v) {
      if (seg_.value_segment(v) == seg) return;
      if (seg_.value_segment(v) == kPhaseLevel) {
        kept.insert(v);
        return;
      }
      const ir::InstId def = c_.fn.value(v).def;
      if (!seen.insert(def).second) return;
      for (ir::ValueId o : c_.fn.inst(def).operands) remake(o);
      remade.push_back(def);
    };
    for (ir::ValueId v : outside) {
      if (!memory_.count(v) && seg_.value_segment(v) != kPhaseLevel && !seg_.escapes(v) && seg_.rematerializable(v)) remake(v);
      else kept.insert(v);
    }
    return [this, kept, remade, lowered](llvm::Value* t) {
      for (ir::ValueId v : kept) c_.values[v] = value_in(v, t);
      lower_instructions(c_, debug_, remade);
      lower_instructions(c_, debug_, lowered);
      for (ir::InstId id : lowered)
        for (ir::ValueId v : c_.fn.inst(id).results)
          if (seg_.escapes(v)) keep(v, c_.values[v], t);
    };
  }

  /// A for loop that does not wait, in lock step (Segments::lockstep): while any thread
  /// iterates, one loop over the threads runs an iteration of each thread whose own bounds
  /// still hold. The induction variable and carried values are kept per thread.
  void lockstep_for(const ir::Instruction& inst) {
    const ir::ops::For loop(inst);
    const ir::Region& r = inst.regions[0];
    const ir::Type it = c_.fn.type_of(loop.lower());
    if (uniform_.count(loop.step()) && it.bits() <= 32) return counted_lockstep_for(inst);
    const std::span<const ir::ValueId> carried(r.args.begin() + 1, r.args.end());
    std::vector<Slot> slots = slots_for(carried);
    Slot iv = new_slot(llvm_type(c_.ctx, it));
    copy(loop.init(), slots, carried, [&](llvm::Value* t) { store(iv, t, value_in(loop.lower(), t)); });
    bind(carried, slots);
    uniform_.erase(r.args[0]);
    slots_[r.args[0]] = iv;
    std::vector<ir::InstId> body(r.body.begin(), r.body.end() - 1);
    const std::vector<ir::ValueId> yields(c_.fn.inst(r.body.back()).operands.begin(), c_.fn.inst(r.body.back()).operands.end());
    const auto run = segment_body(body);
    llvm::Value* any = c_.entry.CreateAlloca(b_.getInt1Ty());
    llvm::BasicBlock* header = block("lockstep");
    llvm::BasicBlock* exit = block("lockstep.end");
    b_.CreateBr(header);
    b_.SetInsertPoint(header);
    b_.CreateStore(b_.getFalse(), any);
    thread_loop([&](llvm::Value* t) {
      llvm::Value* i = load(iv, t);
      llvm::Value* step = value_in(loop.step(), t);
      llvm::BasicBlock* iterate = block("lockstep.iteration");
      llvm::BasicBlock* done = block("lockstep.thread_done");
      b_.CreateCondBr(before_end(it, i, value_in(loop.upper(), t), step), iterate, done);
      b_.SetInsertPoint(iterate);
      run(t);
      store_all(slots, t, values_as(yields, carried, t));
      store(iv, t, b_.CreateAdd(i, step));
      b_.CreateStore(b_.getTrue(), any);
      b_.CreateBr(done);
      b_.SetInsertPoint(done);
    });
    b_.CreateCondBr(b_.CreateLoad(b_.getInt1Ty(), any), header, exit);
    b_.SetInsertPoint(exit);
    bind(inst.results, slots);
  }

  /// A for loop in lock step whose step is the same for every thread (and whose induction
  /// variable has at most 32 bits): each thread's trip count is worked out once, then sweep k
  /// runs iteration k of each thread that has more than k, its induction variable lower +
  /// k * step. Nothing is stored per iteration but the carried values, and the sweeps are
  /// counted, not flagged.
  void counted_lockstep_for(const ir::Instruction& inst) {
    const ir::ops::For loop(inst);
    const ir::Region& r = inst.regions[0];
    const ir::Type it = c_.fn.type_of(loop.lower());
    const std::span<const ir::ValueId> carried(r.args.begin() + 1, r.args.end());
    llvm::Type* i64 = b_.getInt64Ty();
    llvm::Value* step = uniform_[loop.step()];
    std::vector<Slot> slots = slots_for(carried);
    Slot lower = new_slot(llvm_type(c_.ctx, it));
    Slot trips = new_slot(i64);
    llvm::Value* most = c_.entry.CreateAlloca(i64);
    b_.CreateStore(b_.getInt64(0), most);
    copy(loop.init(), slots, carried, [&](llvm::Value* t) {
      llvm::Value* lo = value_in(loop.lower(), t);
      llvm::Value* n = trip_count(it, lo, value_in(loop.upper(), t), step);
      store(lower, t, lo);
      store(trips, t, n);
      b_.CreateStore(b_.CreateBinaryIntrinsic(llvm::Intrinsic::umax, b_.CreateLoad(i64, most), n), most);
    });
    bind(carried, slots);
    std::vector<ir::InstId> body(r.body.begin(), r.body.end() - 1);
    const std::vector<ir::ValueId> yields(c_.fn.inst(r.body.back()).operands.begin(), c_.fn.inst(r.body.back()).operands.end());
    const auto run = segment_body(body);
    const std::vector<ir::InstId> streams = streamed_loads(body, r.args[0]);
    llvm::Value* sweeps = b_.CreateLoad(i64, most);
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    llvm::BasicBlock* header = block("lockstep");
    llvm::BasicBlock* exit = block("lockstep.end");
    b_.CreateCondBr(b_.CreateICmpEQ(sweeps, b_.getInt64(0)), exit, header);
    b_.SetInsertPoint(header);
    llvm::PHINode* k = b_.CreatePHI(i64, 2);
    k->addIncoming(b_.getInt64(0), pre);
    // k * step in the induction variable's type: lower + k * step wraps as k additions would.
    llvm::Value* offset = b_.CreateMul(b_.CreateTrunc(k, step->getType()), step);
    thread_loop([&](llvm::Value* t) {
      llvm::BasicBlock* iterate = block("lockstep.iteration");
      llvm::BasicBlock* done = block("lockstep.thread_done");
      b_.CreateCondBr(b_.CreateICmpULT(k, load(trips, t)), iterate, done);
      b_.SetInsertPoint(iterate);
      llvm::Value* i = b_.CreateAdd(load(lower, t), offset);
      this_thread_[r.args[0]] = i;
      prefetch(streams, i, step, t);
      run(t);
      store_all(slots, t, values_as(yields, carried, t));
      this_thread_.clear();
      b_.CreateBr(done);
      b_.SetInsertPoint(done);
    });
    llvm::Value* next = b_.CreateAdd(k, b_.getInt64(1), "", true, true);
    k->addIncoming(next, b_.GetInsertBlock());
    b_.CreateCondBr(b_.CreateICmpULT(next, sweeps), header, exit);
    b_.SetInsertPoint(exit);
    bind(inst.results, slots);
  }

  static ir::ValueId pointer_of(const ir::Instruction& load) {
    return load.op == Opcode::Load ? ir::ops::Load(load).ptr() : ir::ops::VecLoad(load).ptr();
  }
  /// The loads of `body` (a loop's, with induction variable iv) from p[iv], p the same for
  /// every thread: a grid-stride loop's reads of its input.
  std::vector<ir::InstId> streamed_loads(const std::vector<ir::InstId>& body, ir::ValueId iv) const {
    std::vector<ir::InstId> loads;
    for (ir::InstId id : body) {
      const ir::Instruction& inst = c_.fn.inst(id);
      if (inst.op != Opcode::Load && inst.op != Opcode::VecLoad) continue;
      const ir::Instruction* address = c_.fn.def_of(pointer_of(inst));
      if (!address || address->op != Opcode::PtrAdd) continue;
      const ir::ops::PtrAdd add(*address);
      if (add.offset() == iv && uniform_.count(add.base()) &&
          c_.fn.type_of(add.base()).address_space() == ir::AddressSpace::Global)
        loads.push_back(id);
    }
    return loads;
  }
  /// Asks the CPU to fetch what `loads` (streamed_loads) will read kPrefetchSweeps iterations
  /// after iteration i: a block on the CPU reads a slice of each of its grid-stride loop's
  /// strides in turn, too short for the CPU's own prefetchers to follow.
  void prefetch(const std::vector<ir::InstId>& loads, llvm::Value* i, llvm::Value* step, llvm::Value* t) {
    constexpr int kPrefetchSweeps = 4;
    constexpr int kLineBytes = 64;
    for (ir::InstId id : loads) {
      const ir::ops::PtrAdd add(*c_.fn.def_of(pointer_of(c_.fn.inst(id))));
      const ir::Type element = c_.fn.type_of(add.base()).element();
      // One thread of each line's worth asks (threads read consecutive elements).
      const int per_line = std::max(1, kLineBytes / std::max(1, element.bits() / 8));
      llvm::BasicBlock* ask = block("prefetch");
      llvm::BasicBlock* after = block("prefetch.end");
      b_.CreateCondBr(b_.CreateICmpEQ(b_.CreateAnd(t, b_.getInt32(per_line - 1)), b_.getInt32(0)), ask, after);
      b_.SetInsertPoint(ask);
      llvm::Value* ahead = b_.CreateAdd(i, b_.CreateMul(step, llvm::ConstantInt::get(step->getType(), kPrefetchSweeps)));
      ahead = b_.CreateIntCast(ahead, b_.getInt64Ty(), c_.fn.type_of(add.offset()).is_signed_integer());
      llvm::Value* at = b_.CreateGEP(llvm_type(c_.ctx, element), uniform_.at(add.base()), ahead);
      b_.CreateIntrinsic(llvm::Intrinsic::prefetch, {at->getType()}, {at, b_.getInt32(0), b_.getInt32(3), b_.getInt32(1)});
      b_.CreateBr(after);
      b_.SetInsertPoint(after);
    }
  }

  /// How many iterations `for (i = lo; i < hi (i > hi for a signed negative step); i += step)`
  /// runs, as a u64, for an induction variable of at most 32 bits; all of them (a loop that
  /// never ends, as on a GPU) for a zero step whose first iteration runs.
  llvm::Value* trip_count(ir::Type it, llvm::Value* lo, llvm::Value* hi, llvm::Value* step) {
    llvm::Type* i64 = b_.getInt64Ty();
    const bool is_signed = it.is_signed_integer();
    auto wide = [&](llvm::Value* x) { return is_signed ? b_.CreateSExt(x, i64) : b_.CreateZExt(x, i64); };
    llvm::Value* l = wide(lo);
    llvm::Value* h = wide(hi);
    llvm::Value* s = wide(step);
    llvm::Value* up = is_signed ? b_.CreateICmpSGT(s, b_.getInt64(0)) : b_.getTrue();
    llvm::Value* runs = b_.CreateSelect(up, b_.CreateICmpSLT(l, h), b_.CreateICmpSGT(l, h));
    llvm::Value* distance = b_.CreateSelect(up, b_.CreateSub(h, l), b_.CreateSub(l, h));
    llvm::Value* stride = b_.CreateSelect(up, s, b_.CreateNeg(s));
    llvm::Value* divisor = b_.CreateSelect(b_.CreateICmpEQ(stride, b_.getInt64(0)), b_.getInt64(1), stride);
    llvm::Value* n = b_.CreateAdd(b_.CreateUDiv(b_.CreateSub(distance, b_.getInt64(1)), divisor), b_.getInt64(1));
    n = b_.CreateSelect(b_.CreateICmpEQ(stride, b_.getInt64(0)), b_.getInt64(~std::uint64_t{0}), n);
    return b_.CreateSelect(runs, n, b_.getInt64(0));
  }

  /// A slot for each of `values` (results or region arguments), of their types.
  std::vector<Slot> slots_for(std::span<const ir::ValueId> values) {
    std::vector<Slot> s;
    for (ir::ValueId v : values) s.push_back(new_slot(c_.type_of(v)));
    return s;
  }
  void bind(std::span<const ir::ValueId> values, const std::vector<Slot>& slots) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      uniform_.erase(values[i]);
      slots_[values[i]] = slots[i];
    }
  }
  /// Per running thread: `to[i]` = value `from[i]` (as `like[i]` is laid out, for tiles),
  /// every value read before any is written.
  void copy(std::span<const ir::ValueId> from, const std::vector<Slot>& to, std::span<const ir::ValueId> like,
            const std::function<void(llvm::Value*)>& also = nullptr) {
    if (from.empty() && !also) return;
    thread_loop([&](llvm::Value* t) {
      store_all(to, t, values_as(from, like, t));
      if (also) also(t);
    });
  }
  /// Thread t's values `from[i]`, each as `like[i]` is laid out (for tiles).
  std::vector<llvm::Value*> values_as(std::span<const ir::ValueId> from, std::span<const ir::ValueId> like, llvm::Value* t) {
    std::vector<llvm::Value*> x;
    for (std::size_t i = 0; i < from.size(); ++i) {
      llvm::Value* v = value_in(from[i], t);
      if (c_.fn.type_of(from[i]).is_tile()) {
        c_.values[from[i]] = v;
        v = tile_in_layout(c_, from[i], layout_of(c_, like[i]));
      }
      x.push_back(v);
    }
    return x;
  }
  void store_all(const std::vector<Slot>& to, llvm::Value* t, const std::vector<llvm::Value*>& x) {
    for (std::size_t i = 0; i < x.size(); ++i) store(to[i], t, x[i]);
  }

  /// A tile op that moves elements between threads, through the block's exchange memory
  /// (host_tile_exchange.h): each thread's gather at the end of the loop over the threads
  /// that runs the segment `run` before it (or in a loop of its own), the op once for the
  /// block, and each thread's scatter at the start of the next loop over the threads.
  void exchange(const ir::Instruction& inst, const std::vector<ir::InstId>& run) {
    c_.current = &inst;
    // Consecutive exchanges take the two halves of the exchange memory in turn.
    exchange_half_ = !exchange_half_;
    llvm::Value* memory = b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), exchange_, exchange_half_ ? exchange_bytes_ : 0);
    auto ex = std::make_unique<HostExchange>(c_, inst, memory);
    const int seg = run.empty() ? kPhaseLevel : seg_.segment(run.front());
    auto gather = [&](llvm::Value* t) {
      ex->gather([&](ir::ValueId v) { return seg != kPhaseLevel && seg_.value_segment(v) == seg ? c_.values[v] : value_in(v, t); });
    };
    if (run.empty()) {
      flush_scatters();
      flush_shuffles();
      thread_loop(gather);
    } else {
      segment(run, gather);
    }
    c_.current = &inst;
    if (debug_) debug_->set_location(b_, inst.loc);
    for (const auto& [v, x] : ex->compute()) uniform_[v] = x;
    if (ex->scatters()) scatters_.push_back(std::move(ex));
  }
  /// Thread t's results of the exchanges that have yet to scatter them.
  void scattered(llvm::Value* t) {
    for (const auto& ex : scatters_) ex->scatter([&](ir::ValueId v, llvm::Value* x) { keep(v, x, t); });
  }
  /// Runs the pending scatters in a loop of their own.
  void flush_scatters() {
    if (scatters_.empty()) return;
    thread_loop([&](llvm::Value* t) { scattered(t); });
    scatters_.clear();
  }

  /// Under checked execution, tells the checker the block passed a barrier.
  void checked_barrier() {
    if (c_.options.checked) host_call(c_, "cutlet_host_check_barrier", b_.getVoidTy());
  }

  void barrier_reduce(const ir::Instruction& inst) {
    const ir::ops::BarrierReduce reduce(inst);
    llvm::Value* acc = c_.entry.CreateAlloca(b_.getInt32Ty());
    const ir::BarrierReduceKind kind = reduce.kind();
    b_.CreateStore(b_.getInt32(kind == ir::BarrierReduceKind::And ? 1 : 0), acc);
    thread_loop([&](llvm::Value* t) {
      llvm::Value* p = b_.CreateZExt(b_.CreateICmpNE(value_in(reduce.pred(), t), llvm::Constant::getNullValue(c_.type_of(reduce.pred()))), b_.getInt32Ty());
      llvm::Value* a = b_.CreateLoad(b_.getInt32Ty(), acc);
      b_.CreateStore(kind == ir::BarrierReduceKind::Count ? b_.CreateAdd(a, p)
                     : kind == ir::BarrierReduceKind::And ? b_.CreateAnd(a, p)
                                                          : b_.CreateOr(a, p),
                     acc);
    });
    llvm::Value* r = b_.CreateLoad(b_.getInt32Ty(), acc);
    uniform_[inst.results[0]] = kind == ir::BarrierReduceKind::Count ? r : b_.CreateICmpNE(r, b_.getInt32(0));
  }

  /// The lanes of thread t's warp: its lane, its first thread and how many lanes it has.
  struct Lanes {
    llvm::Value* lane;
    llvm::Value* first;
    llvm::Value* width;
  };
  Lanes lanes_of(llvm::Value* t) {
    llvm::Value* lane = b_.CreateAnd(t, b_.getInt32(31));
    llvm::Value* first = b_.CreateSub(t, lane);
    llvm::Value* left = b_.CreateSub(threads_, first);
    return {lane, first, b_.CreateSelect(b_.CreateICmpULT(left, b_.getInt32(32)), left, b_.getInt32(32))};
  }

  /// A shuffle: its result's slot now, its values in the next thread loop (shuffled()),
  /// which the next segment's is where one follows (the shuffle costs no loop of its own).
  void shuffle(const ir::Instruction& inst) {
    for (const ir::Instruction* p : pending_)
      if (p->results[0] == inst.operands[0] || p->results[0] == inst.operands[1]) {
        flush_shuffles();
        break;
      }
    slots_[inst.results[0]] = new_slot(c_.type_of(inst.results[0]));
    pending_.push_back(&inst);
  }
  /// Thread t's results of the pending shuffles, written to their slots.
  void shuffled(llvm::Value* t) {
    for (const ir::Instruction* inst : pending_) {
      const ir::ops::Shuffle shfl(*inst);
      const Lanes w = lanes_of(t);
      llvm::Value* arg = value_in(shfl.lane(), t);
      llvm::Value* src = nullptr;
      switch (shfl.kind()) {
        case ir::ShuffleKind::Idx: src = b_.CreateAnd(arg, b_.getInt32(31)); break;
        case ir::ShuffleKind::Up: src = b_.CreateSub(w.lane, arg); break;
        case ir::ShuffleKind::Down: src = b_.CreateAdd(w.lane, arg); break;
        case ir::ShuffleKind::Xor: src = b_.CreateXor(w.lane, arg); break;
      }
      // A lane outside the warp, past its last thread or done (an exit) gives the thread its
      // own value.
      llvm::Value* inside = b_.CreateICmpULT(src, w.width);
      llvm::Value* from = b_.CreateSelect(inside, b_.CreateAdd(w.first, src), t);
      if (mask_) from = b_.CreateSelect(running(from), from, t);
      store(slots_.at(inst->results[0]), t, value_in(shfl.value(), from));
    }
  }
  /// Runs the pending shuffles in a loop of their own.
  void flush_shuffles() {
    if (pending_.empty()) return;
    thread_loop([&](llvm::Value* t) { shuffled(t); });
    pending_.clear();
  }

  /// The lanes of warp w that run now (bits), as activemask() gives them: the warp's lanes
  /// less those past the block's last thread, those that returned and those in another
  /// branch.
  llvm::Value* group(const Lanes& w) {
    llvm::Value* all = b_.CreateSelect(b_.CreateICmpUGE(w.width, b_.getInt32(32)), b_.getInt32(~0u),
                                       b_.CreateSub(b_.CreateShl(b_.getInt32(1), w.width), b_.getInt32(1)));
    if (!mask_) return all;
    llvm::Value* bits = c_.entry.CreateAlloca(b_.getInt32Ty());
    b_.CreateStore(b_.getInt32(0), bits);
    index_loop(w.width, [&](llvm::Value* l) {
      llvm::Value* on = b_.CreateShl(b_.CreateZExt(running(b_.CreateAdd(w.first, l)), b_.getInt32Ty()), l);
      b_.CreateStore(b_.CreateOr(b_.CreateLoad(b_.getInt32Ty(), bits), on), bits);
    });
    return b_.CreateLoad(b_.getInt32Ty(), bits);
  }

  void active_mask(const ir::Instruction& inst) {
    Slot out = new_slot(b_.getInt32Ty());
    thread_loop([&](llvm::Value* t) { store(out, t, group(lanes_of(t))); });
    slots_[inst.results[0]] = out;
  }

  /// Votes, match and redux: cutlet_host_lanes over each warp's values, widened to 64 bits,
  /// which it replaces with the lanes' results.
  void lanes_op(const ir::Instruction& inst) {
    const HostWarpOp op = host_warp_op(c_.fn, inst);
    const ir::ValueId value = inst.operands[0];  // the pred or value
    Slot wide = new_slot(b_.getInt64Ty());
    thread_loop([&](llvm::Value* t) {
      llvm::Value* v = value_in(value, t);
      const unsigned bits = v->getType()->getPrimitiveSizeInBits();
      store(wide, t, b_.CreateZExt(b_.CreateBitCast(v, b_.getIntNTy(bits)), b_.getInt64Ty()));
    });
    index_loop(warps_, [&](llvm::Value* w) {
      const Lanes lanes = lanes_of(b_.CreateShl(w, 5));
      host_call(c_, "cutlet_host_lanes", b_.getVoidTy(),
                {b_.getInt32(static_cast<std::uint32_t>(op)), address(wide, lanes.first), lanes.width, group(lanes)});
    });
    const ir::ValueId r = inst.results[0];
    Slot out = new_slot(c_.type_of(r));
    thread_loop([&](llvm::Value* t) { store(out, t, b_.CreateTrunc(load(wide, t), c_.type_of(r))); });
    slots_[r] = out;
  }

  /// The threads running now (mask_, or all) as a new mask.
  Slot running_copy() {
    Slot m = new_mask();
    index_loop(threads_, [&](llvm::Value* t) { set_flag(m, t, running(t)); });
    return m;
  }
  /// How many threads mask `m` has running.
  llvm::Value* count(const Slot& m) {
    llvm::Value* n = c_.entry.CreateAlloca(b_.getInt32Ty());
    b_.CreateStore(b_.getInt32(0), n);
    index_loop(threads_, [&](llvm::Value* t) {
      b_.CreateStore(b_.CreateAdd(b_.CreateLoad(b_.getInt32Ty(), n), b_.CreateZExt(load(m, t), b_.getInt32Ty())), n);
    });
    return b_.CreateLoad(b_.getInt32Ty(), n);
  }
  /// `holds` = cond(t) for each running thread t (false for the others); where `disagree` is
  /// given, the running lanes of each warp must agree on it, else the block stops with it.
  void condition(const std::function<llvm::Value*(llvm::Value*)>& cond, const Slot& holds,
                 const std::optional<std::string>& disagree) {
    index_loop(threads_, [&](llvm::Value* t) { set_flag(holds, t, b_.getFalse()); });
    std::optional<Slot> any, all;
    if (disagree) {
      any = new_mask();
      all = new_mask();
      index_loop(warps_, [&](llvm::Value* w) {
        set_flag(*any, w, b_.getFalse());
        set_flag(*all, w, b_.getTrue());
      });
    }
    thread_loop([&](llvm::Value* t) {
      llvm::Value* c = cond(t);
      set_flag(holds, t, c);
      if (!disagree) return;
      llvm::Value* w = b_.CreateLShr(t, 5);
      set_flag(*any, w, b_.CreateOr(flag(*any, w), c));
      set_flag(*all, w, b_.CreateAnd(flag(*all, w), c));
    });
    if (disagree)
      index_loop(warps_, [&](llvm::Value* w) { fail_if(b_.CreateAnd(flag(*any, w), b_.CreateNot(flag(*all, w))), *disagree); });
  }
  /// The error where the lanes of a warp disagree on the condition of if or loop `id`, if they
  /// must agree: where it holds warp operations or barriers, and is not an exit.
  std::optional<std::string> agreement(ir::InstId id, const ir::Instruction& inst, const char* what, bool exits) const {
    if (exits || seg_.sync(id) == Sync::Lanes) return std::nullopt;
    return disagreement(id, inst, what);
  }
  std::string disagreement(ir::InstId id, const ir::Instruction& inst, const char* what) const {
    const char* waits = seg_.sync(id) == Sync::Block ? "syncthreads()" : "a warp operation over the whole warp";
    return std::string("the threads ") + (seg_.sync(id) == Sync::Block ? "of the block" : "of a warp") +
           " disagree on the condition of the " + what + " " + where(inst) + ", which holds " + waits +
           "; every thread that waits there must reach it, as on a GPU (where this hangs or is undefined)";
  }

  llvm::Value* truth(ir::ValueId cond, llvm::Value* t) { return b_.CreateICmpNE(value_in(cond, t), b_.getFalse()); }

  void lower_if(ir::InstId id, const ir::Instruction& inst) {
    const ir::ValueId cond = ir::ops::If(inst).cond();
    std::vector<Slot> results = slots_for(inst.results);
    auto branch = [&](int r) {
      const std::vector<ir::ValueId> yields = region(inst.regions[r]);
      copy(yields, results, inst.results);
    };
    if (auto u = uniform_.find(cond); u != uniform_.end()) {
      llvm::BasicBlock* then_bb = block("phase.then");
      llvm::BasicBlock* else_bb = block("phase.else");
      llvm::BasicBlock* end = block("phase.endif");
      b_.CreateCondBr(u->second, then_bb, else_bb);
      for (int r = 0; r < 2; ++r) {
        b_.SetInsertPoint(r == 0 ? then_bb : else_bb);
        branch(r);
        b_.CreateBr(end);
      }
      b_.SetInsertPoint(end);
    } else {
      // An if at the kernel's end with nothing in its else: the threads that skip it are
      // done, as threads that returned (they count as arrived at its barriers).
      const bool exits = seg_.exits(id);
      Slot masks[2] = {new_mask(), new_mask()};
      condition([&](llvm::Value* t) { return truth(cond, t); }, masks[0], agreement(id, inst, "if", exits));
      index_loop(threads_, [&](llvm::Value* t) { set_flag(masks[1], t, b_.CreateAnd(running(t), b_.CreateNot(flag(masks[0], t)))); });
      llvm::Value* taken[2] = {count(masks[0]), count(masks[1])};
      if (seg_.sync(id) == Sync::Block && !exits)
        fail_if(b_.CreateAnd(b_.CreateICmpNE(taken[0], b_.getInt32(0)), b_.CreateICmpNE(taken[1], b_.getInt32(0))),
                disagreement(id, inst, "if"));
      const std::optional<Slot> outer = mask_;
      for (int r = 0; r < 2; ++r) {
        llvm::BasicBlock* run = block(r == 0 ? "phase.then" : "phase.else");
        llvm::BasicBlock* next = block("phase.endif");
        b_.CreateCondBr(b_.CreateICmpNE(taken[r], b_.getInt32(0)), run, next);
        b_.SetInsertPoint(run);
        mask_ = masks[r];
        branch(r);
        b_.CreateBr(next);
        b_.SetInsertPoint(next);
      }
      mask_ = outer;
    }
    bind(inst.results, results);
  }

  /// Whether iv has not reached ub: iv < ub for a positive step, iv > ub for a negative one.
  llvm::Value* before_end(ir::Type it, llvm::Value* iv, llvm::Value* ub, llvm::Value* step) {
    if (!it.is_signed_integer()) return b_.CreateICmpULT(iv, ub);
    llvm::Value* up = b_.CreateICmpSGT(step, llvm::ConstantInt::get(step->getType(), 0));
    return b_.CreateSelect(up, b_.CreateICmpSLT(iv, ub), b_.CreateICmpSGT(iv, ub));
  }

  /// The loop's next iteration runs the threads whose `holds` flag is set (of those in
  /// `running`, which becomes them); stops the block where the loop holds a barrier and
  /// only some of them go on. Returns whether any goes on.
  llvm::Value* go_on(ir::InstId id, const ir::Instruction& inst, const Slot& running, const Slot& holds) {
    llvm::Value* before = count(running);
    index_loop(threads_, [&](llvm::Value* t) { set_flag(running, t, b_.CreateAnd(flag(running, t), flag(holds, t))); });
    llvm::Value* after = count(running);
    if (seg_.sync(id) == Sync::Block)
      fail_if(b_.CreateAnd(b_.CreateICmpNE(after, b_.getInt32(0)), b_.CreateICmpNE(after, before)),
              disagreement(id, inst, "loop"));
    return b_.CreateICmpNE(after, b_.getInt32(0));
  }

  void lower_for(ir::InstId id, const ir::Instruction& inst) {
    const ir::ops::For loop(inst);
    const ir::Region& r = inst.regions[0];
    const ir::Type it = c_.fn.type_of(loop.lower());
    const std::span<const ir::ValueId> carried(r.args.begin() + 1, r.args.end());
    std::vector<Slot> slots = slots_for(carried);
    copy(loop.init(), slots, carried);
    bind(carried, slots);
    const bool uniform = uniform_.count(loop.lower()) && uniform_.count(loop.upper()) && uniform_.count(loop.step());
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    llvm::BasicBlock* header = block("phase.for");
    llvm::BasicBlock* body = block("phase.for.body");
    llvm::BasicBlock* exit = block("phase.for.end");
    if (uniform) {
      // Bounds the same in every thread: the induction variable is too.
      llvm::Value* ub = uniform_[loop.upper()];
      llvm::Value* step = uniform_[loop.step()];
      b_.CreateBr(header);
      b_.SetInsertPoint(header);
      llvm::PHINode* iv = b_.CreatePHI(llvm_type(c_.ctx, it), 2);
      iv->addIncoming(uniform_[loop.lower()], pre);
      b_.CreateCondBr(before_end(it, iv, ub, step), body, exit);
      b_.SetInsertPoint(body);
      slots_.erase(r.args[0]);
      uniform_[r.args[0]] = iv;
      copy(region(r), slots, carried);
      iv->addIncoming(b_.CreateAdd(iv, step), b_.GetInsertBlock());
      b_.CreateBr(header);
    } else {
      Slot iv = new_slot(llvm_type(c_.ctx, it));
      thread_loop([&](llvm::Value* t) { store(iv, t, value_in(loop.lower(), t)); });
      uniform_.erase(r.args[0]);
      slots_[r.args[0]] = iv;
      const std::optional<Slot> outer = mask_;
      Slot running = running_copy();
      Slot holds = new_mask();
      b_.CreateBr(header);
      b_.SetInsertPoint(header);
      mask_ = running;
      condition([&](llvm::Value* t) { return before_end(it, load(iv, t), value_in(loop.upper(), t), value_in(loop.step(), t)); },
                holds, agreement(id, inst, "loop", false));
      b_.CreateCondBr(go_on(id, inst, running, holds), body, exit);
      b_.SetInsertPoint(body);
      copy(region(r), slots, carried, [&](llvm::Value* t) { store(iv, t, b_.CreateAdd(load(iv, t), value_in(loop.step(), t))); });
      b_.CreateBr(header);
      mask_ = outer;
    }
    b_.SetInsertPoint(exit);
    bind(inst.results, slots);
  }

  void lower_while(ir::InstId id, const ir::Instruction& inst) {
    const ir::Region& before = inst.regions[0];
    const ir::Region& after = inst.regions[1];
    std::vector<Slot> carried = slots_for(before.args);
    std::vector<Slot> forwarded = slots_for(after.args);
    copy(ir::ops::While(inst).init(), carried, before.args);
    bind(before.args, carried);
    bind(after.args, forwarded);
    const std::optional<Slot> outer = mask_;
    Slot running = running_copy();
    Slot holds = new_mask();
    llvm::BasicBlock* header = block("phase.while");
    llvm::BasicBlock* body = block("phase.while.body");
    llvm::BasicBlock* exit = block("phase.while.end");
    b_.CreateBr(header);
    b_.SetInsertPoint(header);
    mask_ = running;
    const std::vector<ir::ValueId> cond = region(before);
    const std::span<const ir::ValueId> passed(cond.begin() + 1, cond.end());
    copy(passed, forwarded, after.args);
    condition([&](llvm::Value* t) { return truth(cond[0], t); }, holds, agreement(id, inst, "loop", false));
    b_.CreateCondBr(go_on(id, inst, running, holds), body, exit);
    b_.SetInsertPoint(body);
    copy(region(after), carried, before.args);
    b_.CreateBr(header);
    mask_ = outer;
    b_.SetInsertPoint(exit);
    bind(inst.results, forwarded);
  }

  LoweringContext& c_;
  llvm::IRBuilder<>& b_;
  DebugInfo* debug_;
  Segments seg_;
  llvm::Value* shape_ = nullptr;
  llvm::Value* scratch_ = nullptr;
  llvm::Value* exchange_ = nullptr;
  std::uint64_t exchange_bytes_ = 0;  ///< the largest exchange's
  bool exchange_half_ = false;        ///< the half of the exchange memory the last one took
  llvm::Value* state_ = nullptr;
  llvm::Value* dims_[3] = {};
  llvm::Value* threads_ = nullptr;
  llvm::Value* threads64_ = nullptr;
  llvm::Value* warps_ = nullptr;
  std::uint64_t scratch_bytes_ = 0;
  std::map<ir::ValueId, llvm::Value*> uniform_;  ///< values every thread has alike
  std::map<ir::ValueId, llvm::Value*> this_thread_;  ///< values the thread a loop runs now has at hand
  std::map<ir::ValueId, Slot> slots_;            ///< values kept per thread
  std::map<ir::ValueId, Slot> memory_;           ///< local variables living across phases
  std::optional<Slot> mask_;                     ///< the threads running (none: all)
  std::vector<std::unique_ptr<HostExchange>> scatters_;  ///< exchanges whose results no loop read yet
  std::vector<const ir::Instruction*> pending_;  ///< shuffles whose values no loop computed yet
  std::vector<std::string> errors_;
  std::vector<std::vector<llvm::BasicBlock*>> thread_loops_;  ///< the blocks of each loop over the threads
};

}  // namespace

bool runs_in_phases(const ir::Function& fn) { return fn.is_kernel() && phases_allow(fn, fn.body()); }

void lower_phases(LoweringContext& c, DebugInfo* debug) { PhaseLowering(c, debug).lower(); }

std::size_t phases_scratch_per_thread(const llvm::Module& module) {
  auto* v = llvm::mdconst::extract_or_null<llvm::ConstantInt>(module.getModuleFlag(kScratchFlag));
  return v ? static_cast<std::size_t>(v->getZExtValue()) : 0;
}

std::size_t phases_exchange_bytes(const llvm::Module& module) {
  auto* v = llvm::mdconst::extract_or_null<llvm::ConstantInt>(module.getModuleFlag(kExchangeFlag));
  return v ? static_cast<std::size_t>(v->getZExtValue()) : 0;
}

std::vector<std::string> phases_errors(const llvm::Module& module) {
  std::vector<std::string> errors;
  if (const llvm::NamedMDNode* md = module.getNamedMetadata(kErrorsMetadata))
    for (const llvm::MDNode* node : md->operands()) errors.push_back(llvm::cast<llvm::MDString>(node->getOperand(0))->getString().str());
  return errors;
}

}  // namespace cutlet::backend
