// IR -> LLVM IR: the kernel signature, structured regions as basic blocks, and dispatch
// of every other op through the lowering table.
#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include <llvm/IR/Constants.h>
#include <llvm/IR/Metadata.h>

#include "cutlet/backend/compiler.h"
#include "cutlet/error.h"
#include "cutlet/ir/passes/passes.h"
#include "debug_info.h"
#include "lowering.h"
#include "tile_pipeline.h"
#include "tile_support.h"

namespace cutlet::backend {

llvm::Type* llvm_type(llvm::LLVMContext& ctx, ir::Type t) {
  using K = ir::ScalarKind;
  // A record parameter is passed by value in .param space: a pointer to it (see byval below).
  if (t.is_record()) return llvm::PointerType::get(ctx, 0);
  if (t.is_pointer()) {
    // Local variables live in generic allocas (see lower_memory.cpp).
    auto as = t.address_space() == ir::AddressSpace::Local ? 0u : static_cast<unsigned>(t.address_space());
    return llvm::PointerType::get(ctx, as);
  }
  CUTLET_ASSERT(t.is_scalar(), "only scalars and pointers lower to LLVM types");
  switch (t.scalar_kind()) {
    case K::I1: return llvm::Type::getInt1Ty(ctx);
    case K::I8: case K::U8: return llvm::Type::getInt8Ty(ctx);
    case K::I16: case K::U16: return llvm::Type::getInt16Ty(ctx);
    case K::I32: case K::U32: return llvm::Type::getInt32Ty(ctx);
    case K::I64: case K::U64: return llvm::Type::getInt64Ty(ctx);
    case K::F16: return llvm::Type::getHalfTy(ctx);
    case K::BF16: return llvm::Type::getBFloatTy(ctx);
    case K::F32: return llvm::Type::getFloatTy(ctx);
    case K::F64: return llvm::Type::getDoubleTy(ctx);
  }
  return nullptr;
}

namespace {

const LoweringTable& table() {
  static const LoweringTable t = [] {
    LoweringTable t;
    register_elementwise(t);
    register_memory(t);
    register_vector(t);
    register_sync(t);
    register_warp(t);
    register_math(t);
    register_diagnostics(t);
    register_calls(t);
    register_tiles(t);
    register_tile_dot(t);
    register_tile_reduce(t);
    return t;
  }();
  return t;
}

/// While an op is lowered: it is the op the arena's new buffers serve, and they are released
/// (free for later ops) once it is done.
class OpScope {
 public:
  OpScope(LoweringContext& c, const ir::Instruction& inst) : c_(c), mark_(c.arena.mark()), outer_(c.current) {
    c.current = &inst;
  }
  ~OpScope() {
    c_.arena.release_to(mark_);
    c_.current = outer_;
  }
  OpScope(const OpScope&) = delete;
  OpScope& operator=(const OpScope&) = delete;

 private:
  LoweringContext& c_;
  std::size_t mark_;
  const ir::Instruction* outer_;
};

class Walker {
 public:
  /// Lowers the region's instructions; returns the operands of its terminator.
  Walker(LoweringContext& c, DebugInfo* debug) : c_(c), debug_(debug) {}

  std::vector<llvm::Value*> region(const ir::Region& r) {
    std::vector<llvm::Value*> term;
    for (ir::InstId id : r.body) {
      const ir::Instruction& inst = c_.fn.inst(id);
      if (debug_) debug_->set_location(c_.b, inst.loc);
      switch (inst.op) {
        case ir::Opcode::If: lower_if(inst); break;
        case ir::Opcode::For: {
          OpScope scope(c_, inst);  // its stage rings live while it runs
          lower_for(inst);
          break;
        }
        case ir::Opcode::While: lower_while(inst); break;
        case ir::Opcode::Yield:
        case ir::Opcode::Condition:
          for (auto v : inst.operands) term.push_back(c_.get(v));
          break;
        default:
          if (skip_.count(id)) break;  // a pipelined load: its value was prefetched
          lower_one(inst);
          break;
      }
    }
    return term;
  }

 private:
  llvm::BasicBlock* block(const char* name) { return llvm::BasicBlock::Create(c_.ctx, name, c_.kernel); }

  /// Lowers one non-region instruction.
  void lower_one(const ir::Instruction& inst) {
    OpScope scope(c_, inst);
    LowerFn fn = table().get(inst.op);
    CUTLET_ASSERT(fn != nullptr, "an opcode without a lowering entry");
    // Elementwise ops on tiles work on the thread's registers, once their operands share a
    // layout; tile ops place their results themselves.
    const bool elementwise_on_tiles = !ir::has_trait(inst.op, ir::TileOp) && has_tile_operand(inst);
    SavedValues saved;
    if (elementwise_on_tiles) saved = prepare_tile_operands(c_, inst);
    llvm::Value* v = fn(c_, inst);
    if (elementwise_on_tiles) restore_tile_operands(c_, saved);
    if (!inst.results.empty()) c_.values[inst.results[0]] = v;
    // Each tile is made in the layout its type gives it (the layouts are the IR's decision).
    for (ir::ValueId r : inst.results)
      if (const TileLayout* l = c_.fn.type_of(r).layout())
        CUTLET_ASSERT(c_.layouts[r] && *c_.layouts[r] == *l, "a tile lowered in another layout than its type's");
  }

  /// Software pipelining of a tile loop's loads: the tile loads at the top level of the body
  /// whose addresses and masks depend only on the induction variable and values from before
  /// the loop are issued one iteration ahead (the first before the loop), so that global
  /// memory latency overlaps the previous iteration's math. Returns the loads' instructions
  /// and the closure of pure instructions that compute their operands, in body order.
  std::vector<ir::InstId> pipelined_loads(const ir::Instruction& loop, std::vector<ir::InstId>* closure) {
    const ir::Region& r = loop.regions[0];
    std::vector<ir::InstId> loads;
    if (c_.fn.tile_warps() == 0) return loads;
    std::map<ir::InstId, int> position;
    for (std::size_t i = 0; i < r.body.size(); ++i) position[r.body[i]] = static_cast<int>(i);
    std::set<ir::ValueId> carried(r.args.begin() + 1, r.args.end());
    std::set<ir::InstId> needed;
    std::function<bool(ir::ValueId)> ok = [&](ir::ValueId v) {
      if (carried.count(v)) return false;
      if (v == r.args[0]) return true;
      ir::InstId d = c_.fn.value(v).def;
      if (d == ir::kNone || !position.count(d)) return true;  // defined before the loop
      const ir::Instruction& di = c_.fn.inst(d);
      if (!ir::has_trait(di.op, ir::Pure) || !di.regions.empty()) return false;
      for (ir::ValueId o : di.operands)
        if (!ok(o)) return false;
      needed.insert(d);
      return true;
    };
    for (ir::InstId id : r.body) {
      const ir::Instruction& inst = c_.fn.inst(id);
      if (inst.op != ir::Opcode::TileLoad) continue;
      std::set<ir::InstId> before = needed;
      bool all = true;
      for (ir::ValueId o : inst.operands) all = all && ok(o);
      if (!all) {
        needed = before;
        continue;
      }
      loads.push_back(id);
      needed.insert(id);
    }
    std::vector<ir::InstId> order(needed.begin(), needed.end());
    std::sort(order.begin(), order.end(), [&](ir::InstId a, ir::InstId b) { return position[a] < position[b]; });
    *closure = order;
    return loads;
  }

  /// Lowers the pure instructions of `closure` (see pipelined_loads) with the induction
  /// variable `iv_arg` bound to `iv`, and hands each of its loads to `on_load` in body order.
  void lower_closure(const std::vector<ir::InstId>& closure, ir::ValueId iv_arg, llvm::Value* iv,
                     const std::function<void(ir::InstId)>& on_load) {
    llvm::Value* saved_iv = c_.values[iv_arg];
    c_.values[iv_arg] = iv;
    for (ir::InstId id : closure) {
      if (c_.fn.inst(id).op == ir::Opcode::TileLoad) on_load(id);
      else lower_one(c_.fn.inst(id));
    }
    c_.values[iv_arg] = saved_iv;
  }

  /// The register-prefetched `loads` for iteration `iv`: their values.
  std::vector<llvm::Value*> issue_loads(const std::vector<ir::InstId>& closure, const std::vector<ir::InstId>& loads,
                                        ir::ValueId iv_arg, llvm::Value* iv) {
    const std::set<ir::InstId> mine(loads.begin(), loads.end());
    lower_closure(closure, iv_arg, iv, [&](ir::InstId id) {
      if (mine.count(id)) lower_one(c_.fn.inst(id));
    });
    std::vector<llvm::Value*> out;
    for (ir::InstId id : loads) out.push_back(c_.values[c_.fn.inst(id).results[0]]);
    return out;
  }

  /// The cp.async copies of iteration `iv` into stage `stage` (i32), as one commit group;
  /// zeros only where `valid` is false (an iteration past the end).
  void issue_copies(const std::vector<ir::InstId>& closure, const std::vector<AsyncCopy>& copies, ir::ValueId iv_arg,
                    llvm::Value* iv, llvm::Value* stage, llvm::Value* valid) {
    // The closure's values are this iteration's again afterwards.
    std::vector<std::pair<ir::ValueId, llvm::Value*>> saved;
    for (ir::InstId id : closure)
      for (ir::ValueId v : c_.fn.inst(id).results) saved.emplace_back(v, c_.values[v]);
    lower_closure(closure, iv_arg, iv, [&](ir::InstId id) {
      for (const AsyncCopy& cp : copies)
        if (cp.load == id) issue_async_copy(c_, cp, stage_buffer(cp, stage), valid);
    });
    async_commit(c_);
    for (auto& [v, x] : saved) c_.values[v] = x;
  }

  /// The values defined in region `r` (results and region arguments, at any depth).
  void defined_in(const ir::Region& r, std::set<ir::ValueId>& out) const {
    out.insert(r.args.begin(), r.args.end());
    for (ir::InstId id : r.body) {
      const ir::Instruction& inst = c_.fn.inst(id);
      out.insert(inst.results.begin(), inst.results.end());
      for (const ir::Region& sub : inst.regions) defined_in(sub, out);
    }
  }

  /// Writes the operands of `loop`'s top-level tensor-core dots that are defined before the
  /// loop to shared memory (buffers live for the loop), once, and makes the dots read them
  /// there (c.shared_tiles); returns those operands. Operands already in shared memory (an
  /// outer loop's) are left alone.
  std::vector<ir::ValueId> stage_invariant_dot_operands(const ir::Instruction& loop) {
    std::vector<ir::ValueId> staged;
    if (c_.fn.tile_warps() == 0) return staged;
    std::set<ir::ValueId> inside;
    defined_in(loop.regions[0], inside);
    std::vector<std::pair<const ir::Instruction*, int>> todo;
    for (ir::InstId id : loop.regions[0].body) {
      const ir::Instruction& dot = c_.fn.inst(id);
      if (dot.op != ir::Opcode::TileDot || !dot_uses_mma(c_.fn, dot, c_.warps)) continue;
      for (int k = 0; k < 2; ++k) {
        const ir::ValueId v = dot.operands[k];
        if (inside.count(v) || c_.shared_tiles.count(v) ||
            std::find(staged.begin(), staged.end(), v) != staged.end())
          continue;
        staged.push_back(v);
        todo.emplace_back(&dot, k);
      }
    }
    if (todo.empty()) return staged;
    barrier(c_);  // earlier readers of the arena's bytes are done
    for (auto [dot, k] : todo) c_.shared_tiles[dot->operands[k]] = stage_dot_operand(c_, *dot, k);
    barrier(c_);
    return staged;
  }

  /// Places copy `cp`'s ring of `stages` buffers in the arena (live for the loop); its offset.
  std::int64_t arena_ring(const AsyncCopy& cp, int stages) {
    const ir::Instruction& load = c_.fn.inst(cp.load);
    return c_.arena.allocate(cp.stage_bytes * stages, 128,
                             "cp.async stage ring of the dot's " + std::string(cp.operand == 0 ? "a" : "b") + " operand (" +
                                 std::to_string(stages) + " stages x " + std::to_string(cp.stage_bytes) + " bytes, " +
                                 std::to_string(cp.rows) + "x" + std::to_string(cp.cols) + " tile)",
                             ir::mnemonic(load.op), load.loc);
  }

  /// Stage `stage` (i32) of copy `cp`'s ring of buffers in the reserved shared memory.
  llvm::Value* stage_buffer(const AsyncCopy& cp, llvm::Value* stage) {
    auto& B = c_.b;
    llvm::Value* at = B.CreateAdd(B.getInt32(static_cast<std::uint32_t>(cp.offset)),
                                  B.CreateMul(stage, B.getInt32(static_cast<std::uint32_t>(cp.stage_bytes))));
    return B.CreateInBoundsGEP(B.getInt8Ty(), dynamic_shared_base(c_), at);
  }

  bool has_tile_operand(const ir::Instruction& inst) const {
    for (auto v : inst.operands)
      if (c_.fn.type_of(v).is_tile()) return true;
    return false;
  }
  /// A yielded value `v` as the carried or result value `to` expects it (tiles: in its layout).
  llvm::Value* as_carried(ir::ValueId v, ir::ValueId to) {
    if (!c_.fn.type_of(v).is_tile()) return c_.get(v);
    if (!c_.layouts[to]) c_.layouts[to] = c_.layouts[v];
    return tile_in_layout(c_, v, *c_.layouts[to]);
  }

  void lower_if(const ir::Instruction& inst) {
    auto& B = c_.b;
    auto* then_bb = block("then");
    auto* else_bb = block("else");
    auto* merge_bb = block("endif");
    B.CreateCondBr(c_.get(inst.operands[0]), then_bb, else_bb);
    std::vector<std::pair<std::vector<llvm::Value*>, llvm::BasicBlock*>> incoming;
    for (int r = 0; r < 2; ++r) {
      B.SetInsertPoint(r == 0 ? then_bb : else_bb);
      auto yields = region(inst.regions[r]);
      const ir::Region& reg = inst.regions[r];
      const ir::Instruction& term = c_.fn.inst(reg.body.back());
      for (std::size_t i = 0; i < inst.results.size(); ++i) yields[i] = as_carried(term.operands[i], inst.results[i]);
      incoming.emplace_back(std::move(yields), B.GetInsertBlock());
      B.CreateBr(merge_bb);
    }
    B.SetInsertPoint(merge_bb);
    for (std::size_t i = 0; i < inst.results.size(); ++i) {
      auto* phi = B.CreatePHI(c_.type_of(inst.results[i]), 2);
      for (auto& [vals, bb] : incoming) phi->addIncoming(vals[i], bb);
      c_.values[inst.results[i]] = phi;
    }
  }

  void lower_for(const ir::Instruction& inst) {
    auto& B = c_.b;
    ir::Type it = c_.fn.type_of(inst.operands[0]);
    bool sgn = it.is_signed_integer();
    llvm::Value* lb = c_.get(inst.operands[0]);
    llvm::Value* ub = c_.get(inst.operands[1]);
    llvm::Value* step = c_.get(inst.operands[2]);
    const ir::Region& r = inst.regions[0];
    // Pipelined loads (see pipelined_loads): issued for the first iteration before the loop,
    // when it runs at all.
    // Loads feeding a tensor-core dot are copied to shared memory with cp.async instead, into
    // a ring of `stages` buffers filled ahead (see tile_pipeline.h).
    std::vector<ir::InstId> closure;
    auto* cstep0 = llvm::dyn_cast<llvm::ConstantInt>(step);
    std::vector<ir::InstId> loads;
    std::vector<AsyncCopy> copies;
    if (cstep0 && !cstep0->isNegative() && !cstep0->isZero()) {
      loads = pipelined_loads(inst, &closure);
      copies = plan_async_copies(c_.fn, inst, loads, c_.warps);
      for (const AsyncCopy& cp : copies) loads.erase(std::find(loads.begin(), loads.end(), cp.load));
    }
    const int stages = pipeline_stages(c_.fn);
    for (AsyncCopy& cp : copies) cp.offset = arena_ring(cp, stages);
    // A dot reading both copies is pipelined at the level of fragments too (DotPipeline): all
    // stages are filled ahead, and the dot itself turns to the next stage before its last
    // k-step's math, so that the wait, the barrier and the next fragments' reads overlap it.
    const std::optional<ir::InstId> frag_dot = fragment_pipelined_dot(inst, copies);
    const AsyncCopy* copy_of[2] = {nullptr, nullptr};
    for (const AsyncCopy& cp : copies) copy_of[cp.operand] = &cp;
    auto ahead = [&](llvm::Value* iv, int n) {
      return n == 0 ? iv : B.CreateAdd(iv, B.CreateMul(step, llvm::ConstantInt::get(step->getType(), n)));
    };
    auto below_ub = [&](llvm::Value* iv) { return sgn ? B.CreateICmpSLT(iv, ub) : B.CreateICmpULT(iv, ub); };
    // A previous run of this loop (inside an outer one) has finished reading its stages.
    if (!copies.empty()) barrier(c_);
    // Tensor-core dots of the body whose operands come from before the loop (attention's q)
    // read them from shared memory written once here, not in every iteration.
    const std::vector<ir::ValueId> staged = stage_invariant_dot_operands(inst);
    std::vector<llvm::Value*> first;
    if (!loads.empty() || !copies.empty()) {
      auto* pro = block("for.prologue");
      auto* join = block("for.preheader");
      auto* before = B.GetInsertBlock();
      B.CreateCondBr(below_ub(lb), pro, join);
      B.SetInsertPoint(pro);
      auto issued = issue_loads(closure, loads, r.args[0], lb);
      for (int s = 0; !copies.empty() && s < stages - (frag_dot ? 0 : 1); ++s) {
        llvm::Value* iv = ahead(lb, s);
        issue_copies(closure, copies, r.args[0], iv, B.getInt32(static_cast<std::uint32_t>(s)), below_ub(iv));
      }
      if (frag_dot) {
        // The first iteration's stage has landed: its first fragments.
        async_wait(c_, stages - 1);
        barrier(c_);
        auto frags = dot_fragments(c_, c_.fn.inst(*frag_dot), stage_buffer(*copy_of[0], B.getInt32(0)), copy_of[0]->stride,
                                   stage_buffer(*copy_of[1], B.getInt32(0)), copy_of[1]->stride);
        issued.insert(issued.end(), frags.begin(), frags.end());
      }
      auto* pro_end = B.GetInsertBlock();
      B.CreateBr(join);
      B.SetInsertPoint(join);
      for (llvm::Value* v : issued) {
        auto* phi = B.CreatePHI(v->getType(), 2);
        phi->addIncoming(v, pro_end);
        phi->addIncoming(llvm::Constant::getNullValue(v->getType()), before);
        first.push_back(phi);
      }
    }
    auto* pre = B.GetInsertBlock();
    auto* header = block("for.header");
    auto* body = block("for.body");
    auto* exit = block("for.exit");
    B.CreateBr(header);
    B.SetInsertPoint(header);
    std::vector<llvm::PHINode*> phis;
    for (std::size_t i = 0; i < r.args.size(); ++i) {
      if (i > 0 && c_.fn.type_of(r.args[i]).is_tile()) {
        c_.layouts[r.args[i]] = c_.layouts[inst.operands[2 + i]];
        c_.layouts[inst.results[i - 1]] = c_.layouts[inst.operands[2 + i]];
      }
      auto* phi = B.CreatePHI(c_.type_of(r.args[i]), 2);
      phi->addIncoming(i == 0 ? lb : c_.get(inst.operands[2 + i]), pre);
      c_.values[r.args[i]] = phi;
      phis.push_back(phi);
    }
    // The stage the body reads.
    llvm::PHINode* stage = copies.empty() ? nullptr : B.CreatePHI(B.getInt32Ty(), 2);
    if (stage) stage->addIncoming(B.getInt32(0), pre);
    // The prefetched tiles are carried too.
    std::vector<llvm::PHINode*> pref;
    std::vector<std::optional<TileLayout>> pref_layouts;
    for (std::size_t i = 0; i < loads.size(); ++i) {
      ir::ValueId res = c_.fn.inst(loads[i]).results[0];
      pref_layouts.push_back(c_.layouts[res]);
      auto* phi = B.CreatePHI(first[i]->getType(), 2);
      phi->addIncoming(first[i], pre);
      pref.push_back(phi);
    }
    // And the fragment-pipelined dot's first fragments.
    std::vector<llvm::PHINode*> frag_phis;
    for (std::size_t i = loads.size(); i < first.size(); ++i) {
      frag_phis.push_back(B.CreatePHI(first[i]->getType(), 2));
      frag_phis.back()->addIncoming(first[i], pre);
    }
    llvm::Value* cond;
    auto* cstep = llvm::dyn_cast<llvm::ConstantInt>(step);
    if (!sgn || (cstep && !cstep->isNegative())) {
      cond = sgn ? B.CreateICmpSLT(phis[0], ub) : B.CreateICmpULT(phis[0], ub);
    } else if (cstep) {
      cond = B.CreateICmpSGT(phis[0], ub);
    } else {
      auto* up = B.CreateICmpSGT(step, llvm::ConstantInt::get(step->getType(), 0));
      cond = B.CreateSelect(up, B.CreateICmpSLT(phis[0], ub), B.CreateICmpSGT(phis[0], ub));
    }
    B.CreateCondBr(cond, body, exit);
    B.SetInsertPoint(body);
    DotPipeline pipe;
    DotPipeline* const outer_pipe = c_.dot_pipeline;  // of a loop around this one
    llvm::Value* stage_next = nullptr;
    if (stage) {
      llvm::Value* inc = B.CreateAdd(stage, B.getInt32(1));
      stage_next = B.CreateSelect(B.CreateICmpEQ(inc, B.getInt32(static_cast<std::uint32_t>(stages))), B.getInt32(0), inc);
    }
    if (frag_dot) {
      // The dot turns to the next stage before its last k-step's math: wait for it (and the
      // barrier: every warp is done with this stage too), then refill this stage with the
      // copies of iteration i + stages.
      pipe.dot = &c_.fn.inst(*frag_dot);
      pipe.first.assign(frag_phis.begin(), frag_phis.end());
      pipe.next_a = stage_buffer(*copy_of[0], stage_next);
      pipe.next_b = stage_buffer(*copy_of[1], stage_next);
      llvm::Value* iv_now = phis[0];
      pipe.turn = [&, iv_now] {
        async_wait(c_, stages - 2);
        barrier(c_);
        llvm::Value* iv = ahead(iv_now, stages);
        issue_copies(closure, copies, r.args[0], iv, stage, below_ub(iv));
      };
      c_.dot_pipeline = &pipe;
    } else if (stage) {
      // This iteration's copies have landed (this thread's: wait; everyone's: the barrier, which
      // also says every warp is done with the previous iteration's stage, refilled below).
      async_wait(c_, stages - 2);
      barrier(c_);
    }
    if (stage) {
      for (const AsyncCopy& cp : copies) {
        c_.shared_tiles[c_.fn.inst(cp.load).results[0]] = {stage_buffer(cp, stage), cp.stride};
        skip_.insert(cp.load);
      }
    }
    std::vector<llvm::Value*> next;
    if (!loads.empty()) {
      // Issue the next iteration's loads first (the last iteration reloads its own tiles: in
      // bounds, and unused), then run the body on the prefetched ones.
      llvm::Value* iv_next = B.CreateAdd(phis[0], step, "", false, sgn);
      llvm::Value* more = sgn ? B.CreateICmpSLT(iv_next, ub) : B.CreateICmpULT(iv_next, ub);
      next = issue_loads(closure, loads, r.args[0], B.CreateSelect(more, iv_next, phis[0]));
      for (std::size_t i = 0; i < loads.size(); ++i) {
        ir::ValueId res = c_.fn.inst(loads[i]).results[0];
        c_.values[res] = pref[i];
        c_.layouts[res] = pref_layouts[i];
        skip_.insert(loads[i]);
      }
    }
    auto yields = region(r);
    c_.dot_pipeline = outer_pipe;
    CUTLET_ASSERT(!frag_dot || pipe.next.size() == frag_phis.size(), "the fragment-pipelined dot did not turn");
    for (ir::InstId id : loads) skip_.erase(id);
    for (const AsyncCopy& cp : copies) {
      skip_.erase(cp.load);
      c_.shared_tiles.erase(c_.fn.inst(cp.load).results[0]);
    }
    for (ir::ValueId v : staged) c_.shared_tiles.erase(v);
    const ir::Instruction& term = c_.fn.inst(r.body.back());
    for (std::size_t i = 0; i < yields.size(); ++i) yields[i] = as_carried(term.operands[i], r.args[i + 1]);
    if (stage && !frag_dot) {
      // The stage the previous iteration read is refilled with the copies of iteration
      // i + stages - 1. Issued after the body: the body's fragment reads of this stage come
      // first (shared-memory accesses stay in program order), its math overlaps the copies.
      llvm::Value* iv = ahead(phis[0], stages - 1);
      llvm::Value* refill = B.CreateSelect(B.CreateICmpEQ(stage, B.getInt32(0)), B.getInt32(static_cast<std::uint32_t>(stages - 1)),
                                           B.CreateSub(stage, B.getInt32(1)));
      issue_copies(closure, copies, r.args[0], iv, refill, below_ub(iv));
    }
    llvm::Value* next_iv = B.CreateAdd(phis[0], step, "", false, sgn);
    auto* latch = B.GetInsertBlock();
    B.CreateBr(header);
    phis[0]->addIncoming(next_iv, latch);
    for (std::size_t i = 0; i < pref.size(); ++i) pref[i]->addIncoming(next[i], latch);
    for (std::size_t i = 1; i < phis.size(); ++i) phis[i]->addIncoming(yields[i - 1], latch);
    for (std::size_t i = 0; i < frag_phis.size(); ++i) frag_phis[i]->addIncoming(pipe.next[i], latch);
    if (stage) stage->addIncoming(stage_next, latch);
    B.SetInsertPoint(exit);
    if (stage) async_wait(c_, 0);  // the zero-fill copies past the end
    for (std::size_t i = 0; i < inst.results.size(); ++i) c_.values[inst.results[i]] = phis[i + 1];
  }

  void lower_while(const ir::Instruction& inst) {
    auto& B = c_.b;
    auto* pre = B.GetInsertBlock();
    auto* before = block("while.cond");
    auto* after = block("while.body");
    auto* exit = block("while.exit");
    B.CreateBr(before);
    B.SetInsertPoint(before);
    const ir::Region& rb = inst.regions[0];
    std::vector<llvm::PHINode*> phis;
    for (std::size_t i = 0; i < rb.args.size(); ++i) {
      if (c_.fn.type_of(rb.args[i]).is_tile())
        throw CompileError("cutlet: tiles cannot be carried through while loops; use for_range");
      auto* phi = B.CreatePHI(llvm_type(c_.ctx, c_.fn.type_of(rb.args[i])), 2);
      phi->addIncoming(c_.get(inst.operands[i]), pre);
      c_.values[rb.args[i]] = phi;
      phis.push_back(phi);
    }
    auto cond = region(rb);
    B.CreateCondBr(cond[0], after, exit);
    B.SetInsertPoint(after);
    const ir::Region& ra = inst.regions[1];
    for (std::size_t i = 0; i < ra.args.size(); ++i) c_.values[ra.args[i]] = cond[i + 1];
    auto yields = region(ra);
    auto* latch = B.GetInsertBlock();
    B.CreateBr(before);
    for (std::size_t i = 0; i < phis.size(); ++i) phis[i]->addIncoming(yields[i], latch);
    B.SetInsertPoint(exit);
    for (std::size_t i = 0; i < inst.results.size(); ++i) c_.values[inst.results[i]] = cond[i + 1];
  }

  LoweringContext& c_;
  DebugInfo* debug_;
  std::set<ir::InstId> skip_;  ///< loads of the loop being lowered whose values were prefetched
};

}  // namespace

namespace {

/// The module flag that carries the dynamic shared memory a kernel reserved for itself.
constexpr const char* kReservedSharedFlag = "cutlet.reserved_dynamic_shared";

/// How a lowered function is seen from outside its module.
enum class Visibility { Kernel, Private, Exported };

/// Lowers `fn` (and, first, the device functions it calls) into `module`.
/// Places the shared_arrays of region `r` (at any depth) in the arena, before any op's buffers.
void place_shared_arrays(LoweringContext& c, const ir::Region& r) {
  for (ir::InstId id : r.body) {
    const ir::Instruction& inst = c.fn.inst(id);
    for (const ir::Region& sub : inst.regions) place_shared_arrays(c, sub);
    if (inst.op != ir::Opcode::SharedAlloc) continue;
    ir::Type elem = c.fn.type_of(inst.results[0]).element();
    const std::int64_t bytes = inst.int_attr() * ((elem.bits() + 7) / 8);
    c.shared_arrays[&inst] = c.arena.allocate(bytes, 16, "shared_array<" + elem.str() + ">(" + std::to_string(inst.int_attr()) + ")",
                                              ir::mnemonic(inst.op), inst.loc);
  }
}

llvm::Function* lower_function(const ir::Function& fn, llvm::Module& module, const LoweringOptions& options,
                               Visibility visibility, SharedArena* arena) {
  llvm::LLVMContext& ctx = module.getContext();
  for (const auto& callee : fn.callees())
    if (!module.getFunction(callee->name())) lower_function(*callee, module, options, Visibility::Private, nullptr);

  std::vector<llvm::Type*> params;
  for (auto p : fn.params()) params.push_back(llvm_type(ctx, fn.type_of(p)));
  ir::Type rt = fn.return_type();
  llvm::Type* ret = rt.is_void() ? llvm::Type::getVoidTy(ctx) : llvm_type(ctx, rt);
  auto* fty = llvm::FunctionType::get(ret, params, false);
  auto linkage = visibility == Visibility::Private ? llvm::GlobalValue::InternalLinkage : llvm::GlobalValue::ExternalLinkage;
  auto* function = llvm::Function::Create(fty, linkage, fn.name(), module);
  function->addFnAttr(llvm::Attribute::NoUnwind);
  // A device function is compiled once and called, not inlined into every caller.
  if (visibility != Visibility::Kernel) function->addFnAttr(llvm::Attribute::NoInline);
  for (unsigned i = 0; i < fn.params().size(); ++i) {
    if (fn.param_noalias(i)) function->addParamAttr(i, llvm::Attribute::NoAlias);
    ir::Type pt = fn.type_of(fn.params()[i]);
    if (pt.is_record()) {
      // A struct by value: `.param .align A .b8 name[size]`, exactly as nvcc passes one.
      CUTLET_ASSERT(visibility == Visibility::Kernel, "records are kernel parameters only");
      auto* bytes = llvm::ArrayType::get(llvm::Type::getInt8Ty(ctx), static_cast<std::uint64_t>(pt.record_size()));
      function->addParamAttr(i, llvm::Attribute::getWithByValType(ctx, bytes));
      function->addParamAttr(i, llvm::Attribute::getWithAlignment(ctx, llvm::Align(pt.record_align())));
    }
  }
  if (options.flush_denormals) function->addFnAttr("denormal-fp-math-f32", "preserve-sign,preserve-sign");
  if (options.approx_math) {
    function->addFnAttr("unsafe-fp-math", "true");
    function->addFnAttr("approx-func-fp-math", "true");
  }

  if (visibility == Visibility::Kernel) {
    // Mark it a kernel entry point (LLVM 19 reads nvvm.annotations).
    llvm::Metadata* md[] = {llvm::ValueAsMetadata::get(function), llvm::MDString::get(ctx, "kernel"),
                            llvm::ValueAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), 1))};
    module.getOrInsertNamedMetadata("nvvm.annotations")->addOperand(llvm::MDNode::get(ctx, md));
    if (fn.tile_warps() > 0) {
      // A tile kernel runs with exactly its warps: .reqntid lets ptxas budget registers.
      llvm::Metadata* threads[] = {
          llvm::ValueAsMetadata::get(function), llvm::MDString::get(ctx, "reqntidx"),
          llvm::ValueAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), 32 * fn.tile_warps()))};
      module.getOrInsertNamedMetadata("nvvm.annotations")->addOperand(llvm::MDNode::get(ctx, threads));
    }
  }

  // Allocas go to the entry block, the code to the blocks after it.
  auto* entry_bb = llvm::BasicBlock::Create(ctx, "entry", function);
  auto* start_bb = llvm::BasicBlock::Create(ctx, "start", function);
  llvm::IRBuilder<> b(start_bb);
  llvm::IRBuilder<> entry(entry_bb);
  llvm::FastMathFlags fmf;
  fmf.setAllowContract(options.fma_contraction);
  if (options.approx_math) {
    fmf.setApproxFunc(true);
    fmf.setAllowReciprocal(true);
  }
  b.setFastMathFlags(fmf);

  LoweringContext c{fn, ctx, module, function, b, entry, std::vector<llvm::Value*>(fn.num_values(), nullptr), options};
  for (std::size_t i = 0; i < fn.params().size(); ++i) c.values[fn.params()[i]] = function->getArg(static_cast<unsigned>(i));
  // A kernel's shared_arrays go to the bottom of its arena, live for the whole kernel.
  if (visibility == Visibility::Kernel) place_shared_arrays(c, fn.body());
  std::unique_ptr<DebugInfo> debug;
  if (options.line_info) {
    debug = std::make_unique<DebugInfo>(module, *function, fn);
    debug->set_location(b, {});
    debug->set_location(entry, {});
  }
  auto returned = Walker(c, debug.get()).region(fn.body());
  if (arena) *arena = c.arena;
  if (c.arena.peak() > 0) {
    // The user's dynamic shared memory starts after the kernel's own, 16-byte aligned.
    const std::int64_t user_at = (c.arena.peak() + 15) / 16 * 16;
    for (auto* gep : c.user_dynamic_shared) gep->setOperand(1, b.getInt32(static_cast<std::uint32_t>(user_at)));
    module.addModuleFlag(llvm::Module::Warning, kReservedSharedFlag, static_cast<std::uint32_t>(user_at));
  }
  if (debug) debug->set_location(b, {});
  if (rt.is_void()) b.CreateRetVoid();
  else b.CreateRet(returned.at(0));
  entry.CreateBr(start_bb);
  if (debug) debug->finalize();
  return function;
}

llvm::Value* lower_call(LoweringContext& c, const ir::Instruction& inst) {
  llvm::Function* callee = c.module.getFunction(inst.string_attr());
  CUTLET_ASSERT(callee != nullptr, "call of a device function that was not lowered");
  std::vector<llvm::Value*> args;
  for (auto v : inst.operands) args.push_back(c.get(v));
  llvm::Value* r = c.b.CreateCall(callee, args);
  return inst.results.empty() ? nullptr : r;
}

std::unique_ptr<llvm::Module> new_module(const std::string& name, llvm::LLVMContext& ctx) {
  auto module = std::make_unique<llvm::Module>(name, ctx);
  module->setTargetTriple("nvptx64-nvidia-cuda");
  module->setDataLayout("e-i64:64-i128:128-v16:16-v32:32-n16:32:64");
  return module;
}

}  // namespace

void register_calls(LoweringTable& t) { t.set(ir::Opcode::Call, lower_call); }

LowerFn lowering_of(ir::Opcode op) { return table().get(op); }

std::vector<llvm::Value*> inline_region(LoweringContext& c, const ir::Region& r, const std::vector<llvm::Value*>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) c.values[r.args[i]] = args[i];
  return Walker(c, nullptr).region(r);
}

int reserved_dynamic_shared(const llvm::Module& module) {
  auto* v = llvm::mdconst::extract_or_null<llvm::ConstantInt>(module.getModuleFlag(kReservedSharedFlag));
  return v ? static_cast<int>(v->getZExtValue()) : 0;
}

namespace {
/// Whether tile kernel `fn` has tiles without layouts (it did not go through the pipeline).
bool lacks_layouts(const ir::Function& fn) {
  if (fn.tile_warps() == 0) return false;
  for (std::size_t v = 0; v < fn.num_values(); ++v)
    if (fn.type_of(static_cast<ir::ValueId>(v)).is_tile() && !fn.type_of(static_cast<ir::ValueId>(v)).layout()) return true;
  return false;
}
}  // namespace

std::unique_ptr<llvm::Module> lower_to_llvm(const ir::Function& fn, llvm::LLVMContext& ctx, const LoweringOptions& options,
                                            SharedArena* arena) {
  auto module = new_module(fn.name(), ctx);
  const Visibility vis = fn.is_kernel() ? Visibility::Kernel : Visibility::Exported;
  if (lacks_layouts(fn))
    lower_function(ir::dead_code_elimination(ir::rematerialize_conversions(ir::assign_layouts(fn))), *module, options, vis,
                   arena);
  else lower_function(fn, *module, options, vis, arena);
  return module;
}

}  // namespace cutlet::backend
