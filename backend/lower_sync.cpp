// Lowering of barriers, fences and atomics. Atomics are written as PTX (atom.sem.scope.space)
// so that every scope and memory order maps to exactly the instruction CUDA C++ uses.
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "cutlet/backend/compiler.h"
#include "cutlet/error.h"
#include "lowering.h"

namespace cutlet::backend {
namespace {
using ir::AtomicKind;
using ir::Opcode;

llvm::Value* lower_barrier(LoweringContext& c, const ir::Instruction&) {
  if (c.options.host) host_call(c, "cutlet_host_barrier", c.b.getVoidTy());
  else c.b.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
  return nullptr;
}

llvm::Value* lower_barrier_reduce(LoweringContext& c, const ir::Instruction& inst) {
  static constexpr llvm::Intrinsic::ID ids[] = {llvm::Intrinsic::nvvm_barrier0_popc, llvm::Intrinsic::nvvm_barrier0_and,
                                                llvm::Intrinsic::nvvm_barrier0_or};
  const ir::ops::BarrierReduce reduce(inst);
  const ir::BarrierReduceKind kind = reduce.kind();
  llvm::Value* pred = c.b.CreateZExt(c.get(reduce.pred()), c.b.getInt32Ty());
  llvm::Value* r = c.options.host ? host_call(c, "cutlet_host_barrier_reduce", c.b.getInt32Ty(),
                                              {c.b.getInt32(static_cast<std::uint32_t>(kind)), pred})
                                  : c.b.CreateIntrinsic(ids[static_cast<int>(kind)], {}, {pred});
  if (kind == ir::BarrierReduceKind::Count) return r;
  return c.b.CreateICmpNE(r, c.b.getInt32(0));
}

llvm::Value* lower_fence(LoweringContext& c, const ir::Instruction& inst) {
  static constexpr llvm::Intrinsic::ID ids[] = {llvm::Intrinsic::nvvm_membar_cta, llvm::Intrinsic::nvvm_membar_gl,
                                                llvm::Intrinsic::nvvm_membar_sys};
  // On the host every scope is the process's.
  if (c.options.host) c.b.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
  else c.b.CreateIntrinsic(ids[static_cast<int>(ir::ops::Fence(inst).scope())], {}, {});
  return nullptr;
}

/// The grid-wide barrier of a cooperative launch, as CUDA's cooperative groups implement it
/// on the driver's grid workspace: envreg1:envreg2 hold its address (high:low word), and
/// its second word is the barrier. One thread per block adds 1 (block 0 adds 2^31 - (blocks
/// - 1)) with release semantics, so the top bit flips when the last block arrives; each
/// waits with acquire loads until it has flipped. Without a workspace (a launch that was
/// not cooperative) the kernel traps instead of deadlocking. On the host, the runtime's
/// cutlet_host_grid_sync (its threads are fibers; all blocks of the grid take turns).
llvm::Value* lower_grid_sync(LoweringContext& c, const ir::Instruction&) {
  if (c.options.host) {
    host_call(c, "cutlet_host_grid_sync", c.b.getVoidTy());
    return nullptr;
  }
  auto& b = c.b;
  auto* i32 = b.getInt32Ty();
  auto* i64 = b.getInt64Ty();
  auto sreg = [&](llvm::Intrinsic::ID id) { return b.CreateIntrinsic(id, {}, {}); };
  llvm::Value* hi = b.CreateZExt(sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_envreg1), i64);
  llvm::Value* lo = b.CreateZExt(sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_envreg2), i64);
  llvm::Value* workspace = b.CreateOr(b.CreateShl(hi, 32), lo);

  llvm::Function* f = b.GetInsertBlock()->getParent();
  auto* trap = llvm::BasicBlock::Create(c.ctx, "grid_sync.no_workspace", f);
  auto* arrive = llvm::BasicBlock::Create(c.ctx, "grid_sync.arrive", f);
  auto* master = llvm::BasicBlock::Create(c.ctx, "grid_sync.master", f);
  auto* wait = llvm::BasicBlock::Create(c.ctx, "grid_sync.wait", f);
  auto* done = llvm::BasicBlock::Create(c.ctx, "grid_sync.done", f);
  b.CreateCondBr(b.CreateICmpEQ(workspace, b.getInt64(0)), trap, arrive);

  b.SetInsertPoint(trap);
  b.CreateIntrinsic(llvm::Intrinsic::trap, {}, {});
  b.CreateUnreachable();

  b.SetInsertPoint(arrive);
  b.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
  llvm::Value* tid = b.CreateOr(b.CreateOr(sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x),
                                           sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_y)),
                                sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_z));
  b.CreateCondBr(b.CreateICmpEQ(tid, b.getInt32(0)), master, done);

  b.SetInsertPoint(master);
  llvm::Value* blocks = b.CreateMul(b.CreateMul(sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x),
                                                sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_y)),
                                    sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_z));
  llvm::Value* block = b.CreateOr(b.CreateOr(sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x),
                                             sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y)),
                                  sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z));
  llvm::Value* first = b.CreateSub(b.getInt32(0x80000000u), b.CreateSub(blocks, b.getInt32(1)));
  llvm::Value* add = b.CreateSelect(b.CreateICmpEQ(block, b.getInt32(0)), first, b.getInt32(1));
  llvm::Value* barrier = b.CreateIntToPtr(b.CreateAdd(workspace, b.getInt64(4)), b.getPtrTy());
  llvm::Value* old = inline_ptx(c, i32, "atom.add.release.gpu.u32 $0, [$1], $2;", "=r,l,r", {barrier, add});
  b.CreateBr(wait);

  b.SetInsertPoint(wait);
  llvm::Value* now = inline_ptx(c, i32, "ld.acquire.gpu.u32 $0, [$1];", "=r,l", {barrier});
  llvm::Value* flipped = b.CreateICmpNE(b.CreateAnd(b.CreateXor(now, old), b.getInt32(0x80000000u)), b.getInt32(0));
  b.CreateCondBr(flipped, done, wait);

  b.SetInsertPoint(done);
  b.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
  return nullptr;
}

/// The PTX type of an atomic on `t` for `kind` (bitwise ops and exchanges use .b, adds of
/// signed integers .u, as in CUDA's own headers).
std::string atomic_type(AtomicKind kind, ir::Type t) {
  if (t.is_float()) {
    if (kind == AtomicKind::CompareExchange || kind == AtomicKind::Exchange) return "b" + std::to_string(t.bits());
    if (t.bits() == 16) return std::string("noftz.") + ptx_type(t);
    return ptx_type(t);
  }
  switch (kind) {
    case AtomicKind::Min:
    case AtomicKind::Max: return ptx_type(t);
    case AtomicKind::Add:
    case AtomicKind::Sub: return "u" + std::to_string(t.bits());
    default: return "b" + std::to_string(t.bits());
  }
}

/// An atomic on shared memory on the host: a plain read, modify and write. A block's threads
/// run one at a time on one host thread and switch only at barriers and warp operations, so
/// nothing can come between the three.
llvm::Value* lower_shared_atomic_host(LoweringContext& c, const ir::ops::Atomic& atomic) {
  auto& b = c.b;
  const ir::Type t = c.fn.type_of(atomic.ptr()).element();
  llvm::Type* lt = llvm_type(c.ctx, t);
  llvm::Value* ptr = c.get(atomic.ptr());
  const llvm::Align align = natural_align(t);
  llvm::Value* old = b.CreateAlignedLoad(lt, ptr, align);
  const AtomicKind kind = atomic.kind();
  if (kind == AtomicKind::Load) return old;
  llvm::Value* v = c.get(atomic.values()[0]);
  const bool fp = t.is_float(), sgn = t.is_signed_integer();
  llvm::Value* now = nullptr;
  switch (kind) {
    case AtomicKind::Add: now = fp ? b.CreateFAdd(old, v) : b.CreateAdd(old, v); break;
    case AtomicKind::Sub: now = fp ? b.CreateFSub(old, v) : b.CreateSub(old, v); break;
    case AtomicKind::Min:
      now = fp ? b.CreateMinNum(old, v) : b.CreateSelect(sgn ? b.CreateICmpSLT(v, old) : b.CreateICmpULT(v, old), v, old);
      break;
    case AtomicKind::Max:
      now = fp ? b.CreateMaxNum(old, v) : b.CreateSelect(sgn ? b.CreateICmpSGT(v, old) : b.CreateICmpUGT(v, old), v, old);
      break;
    case AtomicKind::And: now = b.CreateAnd(old, v); break;
    case AtomicKind::Or: now = b.CreateOr(old, v); break;
    case AtomicKind::Xor: now = b.CreateXor(old, v); break;
    case AtomicKind::Exchange: now = v; break;
    case AtomicKind::CompareExchange: {
      llvm::Type* it = b.getIntNTy(static_cast<unsigned>(t.bits()));
      llvm::Value* equal = b.CreateICmpEQ(b.CreateBitCast(old, it), b.CreateBitCast(v, it));
      now = b.CreateSelect(equal, c.get(atomic.values()[1]), old);
      break;
    }
    default: break;
  }
  b.CreateAlignedStore(now, ptr, align);
  return old;
}

/// An atomic on the host: LLVM's own atomic instructions in the op's order (every scope is
/// the process's; floating-point read-modify-writes become compare-and-swap loops where the
/// host has no instruction for them).
llvm::Value* lower_atomic_host(LoweringContext& c, const ir::ops::Atomic& atomic) {
  if (c.fn.type_of(atomic.ptr()).address_space() == ir::AddressSpace::Shared) return lower_shared_atomic_host(c, atomic);
  using O = llvm::AtomicOrdering;
  static constexpr O orders[] = {O::Monotonic, O::Acquire, O::Release, O::AcquireRelease};
  const O order = orders[static_cast<int>(atomic.order())];
  const ir::Type t = c.fn.type_of(atomic.ptr()).element();
  llvm::Type* lt = llvm_type(c.ctx, t);
  llvm::Value* ptr = c.get(atomic.ptr());
  const llvm::Align align = natural_align(t);
  const AtomicKind kind = atomic.kind();
  if (kind == AtomicKind::Load) {
    llvm::LoadInst* load = c.b.CreateAlignedLoad(lt, ptr, align);
    load->setAtomic(order);
    return load;
  }
  llvm::Value* value = c.get(atomic.values()[0]);
  if (kind == AtomicKind::CompareExchange) {
    llvm::Type* it = c.b.getIntNTy(static_cast<unsigned>(t.bits()));
    const O failure = order == O::AcquireRelease ? O::Acquire : order == O::Release ? O::Monotonic : order;
    llvm::Value* x = c.b.CreateAtomicCmpXchg(ptr, c.b.CreateBitCast(value, it), c.b.CreateBitCast(c.get(atomic.values()[1]), it),
                                             align, order, failure);
    return c.b.CreateBitCast(c.b.CreateExtractValue(x, 0), lt);
  }
  using B = llvm::AtomicRMWInst::BinOp;
  const bool fp = t.is_float(), sgn = t.is_signed_integer();
  B op = B::Xchg;
  switch (kind) {
    case AtomicKind::Add: op = fp ? B::FAdd : B::Add; break;
    case AtomicKind::Sub: op = fp ? B::FSub : B::Sub; break;
    case AtomicKind::Min: op = fp ? B::FMin : sgn ? B::Min : B::UMin; break;
    case AtomicKind::Max: op = fp ? B::FMax : sgn ? B::Max : B::UMax; break;
    case AtomicKind::And: op = B::And; break;
    case AtomicKind::Or: op = B::Or; break;
    case AtomicKind::Xor: op = B::Xor; break;
    default: break;
  }
  return c.b.CreateAtomicRMW(op, ptr, value, align, order);
}

llvm::Value* lower_atomic(LoweringContext& c, const ir::Instruction& inst) {
  if (c.options.host) {
    const ir::ops::Atomic atomic(inst);
    const ir::Type t = c.fn.type_of(atomic.ptr()).element();
    return checked_access(c, inst, c.get(atomic.ptr()), static_cast<std::uint64_t>(t.bits() + 7) / 8,
                          atomic.kind() != AtomicKind::Load, true, [&] { return lower_atomic_host(c, atomic); });
  }
  static const char* ops[] = {"add", "add", "min", "max", "and", "or", "xor", "exch", "cas"};
  static const char* scopes[] = {"cta", "gpu", "sys"};
  static const char* orders[] = {"relaxed", "acquire", "release", "acq_rel"};
  const ir::ops::Atomic atomic(inst);
  const AtomicKind kind = atomic.kind();
  const auto scope = static_cast<int>(atomic.scope());
  const auto order = static_cast<int>(atomic.order());
  ir::Type pt = c.fn.type_of(atomic.ptr());
  ir::Type t = pt.element();
  const char* space = pt.address_space() == ir::AddressSpace::Shared ? "shared" : "global";
  if (kind == AtomicKind::Load) {  // relaxed or acquire (the verifier saw to it)
    const std::string text = std::string("ld.") + orders[order] + "." + scopes[scope] + "." + space + ".b" +
                             std::to_string(t.bits()) + " $0, [$1];";
    llvm::Type* bits = c.b.getIntNTy(static_cast<unsigned>(t.bits()));
    llvm::Value* loaded = inline_ptx(c, bits, text, std::string("=") + (t.bits() == 64 ? "l" : "r") + ",l",
                                     {c.get(atomic.ptr())});
    return c.b.CreateBitCast(loaded, llvm_type(c.ctx, t));
  }
  llvm::Value* value = c.get(atomic.values()[0]);
  if (kind == AtomicKind::Sub) value = t.is_float() ? c.b.CreateFNeg(value) : c.b.CreateNeg(value);
  // 16-bit float atomics take their operand as .b16 bits in an "h" register.
  std::string reg = ptx_constraint(t);
  // Relaxed device-scope atomics are written without qualifiers, exactly as nvcc writes
  // atomicAdd (ptxas then also turns an unused result into a reduction, red.*).
  std::string qualifiers = (order == 0 && scope == 1) ? "" : std::string(orders[order]) + "." + scopes[scope] + ".";
  std::string text = std::string("atom.") + qualifiers + space + "." + ops[static_cast<int>(kind)] + "." +
                     atomic_type(kind, t) + " $0, [$1], $2";
  std::vector<llvm::Value*> args{c.get(atomic.ptr()), value};
  std::string cons = "=" + reg + ",l," + reg;
  if (kind == AtomicKind::CompareExchange) {
    text += ", $3";
    args.push_back(c.get(atomic.values()[1]));
    cons += "," + reg;
  }
  text += ";";
  llvm::Type* lt = llvm_type(c.ctx, t);
  if (t.bits() == 16) {
    // Inline asm passes 16-bit floats as i16 bit patterns.
    llvm::Type* i16 = c.b.getInt16Ty();
    for (std::size_t i = 1; i < args.size(); ++i) args[i] = c.b.CreateBitCast(args[i], i16);
    return c.b.CreateBitCast(inline_ptx(c, i16, text, cons, args), lt);
  }
  return inline_ptx(c, lt, text, cons, args);
}

}  // namespace

void register_sync(LoweringTable& t) {
  t.set(Opcode::Barrier, lower_barrier);
  t.set(Opcode::BarrierReduce, lower_barrier_reduce);
  t.set(Opcode::Fence, lower_fence);
  t.set(Opcode::GridSync, lower_grid_sync);
  t.set(Opcode::Atomic, lower_atomic);
}

}  // namespace cutlet::backend
