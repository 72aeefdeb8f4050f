// Lowering of tile ops: each thread computes on the registers its layout gives it
// (tile_layout.h); reductions combine in-thread, then across lanes with shuffles, then
// across warps through shared memory; layouts change through shared memory; loads and
// stores are 16-byte vector accesses where the axis analysis (ir/axis_info.h) proves them contiguous and aligned.
#include <bit>
#include <functional>

#include <llvm/IR/Constants.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "cutlet/backend/compiler.h"
#include "cutlet/error.h"
#include "lowering.h"
#include "cutlet/ir/axis_info.h"
#include "tile_support.h"
#include "vector_lanes.h"

namespace cutlet::backend {

llvm::Type* LoweringContext::type_of(ir::ValueId v) const {
  ir::Type t = fn.type_of(v);
  if (!t.is_tile()) return llvm_type(ctx, t);
  if (t.layout() && t.layout()->is_shared()) return llvm::PointerType::get(ctx, 3);  // its buffer
  CUTLET_ASSERT(t.layout() != nullptr, "a tile value without a layout (assign-layouts did not run)");
  return llvm::FixedVectorType::get(llvm_type(ctx, t.element()), static_cast<unsigned>(t.layout()->num_regs()));
}


const TileLayout& layout_of(LoweringContext& c, ir::ValueId v) { return result_layout(c, v); }

std::vector<llvm::Value*> unpack(LoweringContext& c, llvm::Value* v) {
  CUTLET_ASSERT(v->getType()->isVectorTy(), "a tile's registers are one vector");
  return lanes_of(c.b, v);
}

llvm::Value* pack(LoweringContext& c, llvm::Type* elem, const std::vector<llvm::Value*>& regs) {
  return vector_of(c.b, elem, regs);
}

llvm::Value* shared_buffer(LoweringContext& c, llvm::Type* elem, std::int64_t count) {
  const std::int64_t bytes = count * static_cast<std::int64_t>(c.module.getDataLayout().getTypeAllocSize(elem));
  const std::int64_t at = take_shared(c, bytes);
  return c.b.CreateInBoundsGEP(c.b.getInt8Ty(), dynamic_shared_base(c), c.b.getInt32(static_cast<std::uint32_t>(at)));
}

llvm::Value* shared_address(LoweringContext& c, llvm::Value* p) {
  auto& b = c.b;
  return b.CreateTrunc(b.CreatePtrToInt(b.CreateAddrSpaceCast(p, b.getPtrTy(3)), b.getInt64Ty()), b.getInt32Ty());
}

void barrier(LoweringContext& c) {
  if (c.options.host) host_call(c, "cutlet_host_barrier", c.b.getVoidTy());
  else c.b.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
}

/// The row-major linear index of `coords` in `shape`.
llvm::Value* linear(LoweringContext& c, const std::vector<llvm::Value*>& coords, const std::vector<std::int64_t>& shape) {
  llvm::Value* idx = c.b.getInt32(0);
  for (std::size_t d = 0; d < coords.size(); ++d)
    idx = c.b.CreateAdd(c.b.CreateMul(idx, c.b.getInt32(static_cast<std::uint32_t>(shape[d]))), coords[d]);
  return idx;
}

llvm::Value* through_shared(LoweringContext& c, llvm::Value* v, const TileLayout& from, const TileLayout& to,
                            const std::function<llvm::Value*(const std::vector<llvm::Value*>&)>& source_of) {
  auto& b = c.b;
  llvm::Type* elem = llvm::cast<llvm::FixedVectorType>(v->getType())->getElementType();
  const bool is_bool = elem->isIntegerTy(1);
  llvm::Type* stored = is_bool ? b.getInt8Ty() : elem;
  const std::vector<std::int64_t> shape = from.tile_shape();
  std::int64_t count = 1;
  for (auto e : shape) count *= e;
  auto* buf = shared_buffer(c, stored, count);
  barrier(c);  // earlier readers of these bytes are done
  auto regs = unpack(c, v);
  auto fc = thread_coords(c, from);
  for (int r = 0; r < from.num_regs(); ++r) {
    llvm::Value* at = b.CreateInBoundsGEP(stored, buf, linear(c, element_coords(b, from, fc, r), shape));
    llvm::Value* value = is_bool ? b.CreateZExt(regs[r], stored) : regs[r];
    write_first_copy(c, from, fc, r, [&] { b.CreateStore(value, at); });
  }
  barrier(c);
  auto tc = thread_coords(c, to);
  std::vector<llvm::Value*> out(to.num_regs());
  for (int r = 0; r < to.num_regs(); ++r) {
    llvm::Value* x = b.CreateLoad(stored, b.CreateInBoundsGEP(stored, buf, source_of(element_coords(b, to, tc, r))));
    out[r] = is_bool ? b.CreateTrunc(x, elem) : x;
  }
  return pack(c, elem, out);
}

void write_first_copy(LoweringContext& c, const TileLayout& l, const std::vector<llvm::Value*>& coords, int r,
                      const std::function<void()>& write) {
  auto& b = c.b;
  llvm::Value* first = holds_first_copy(b, l, coords, r);
  if (!first) return write();
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  auto* then = llvm::BasicBlock::Create(b.getContext(), "first_copy", fn);
  auto* after = llvm::BasicBlock::Create(b.getContext(), "copies_written", fn);
  b.CreateCondBr(first, then, after);
  b.SetInsertPoint(then);
  write();
  b.CreateBr(after);
  b.SetInsertPoint(after);
}

llvm::Value* relayout(LoweringContext& c, llvm::Value* v, const TileLayout& from, const TileLayout& to) {
  const std::vector<std::int64_t> shape = from.tile_shape();
  return through_shared(c, v, from, to, [&](const std::vector<llvm::Value*>& at) { return linear(c, at, shape); });
}

namespace {
using ir::Opcode;

/// The thread's coordinates: on the host as one vector operation, (coordinate * spt + each
/// register's offset) wrapped at the extent, which LLVM keeps a vector; on a GPU register by
/// register (element_coords), which the NVPTX backend would split anyway.
llvm::Value* lower_arange(LoweringContext& c, const ir::Instruction& inst) {
  const TileLayout l = result_layout(c, inst.results[0]);
  auto coords = thread_coords(c, l);
  if (c.options.host && !l.is_slice()) {
    auto& b = c.b;
    std::vector<llvm::Constant*> offsets;
    for (int r = 0; r < l.num_regs(); ++r)
      offsets.push_back(b.getInt32(static_cast<std::uint32_t>(l.reg_offset(0, l.reg_indices(r)[0]))));
    const auto n = static_cast<unsigned>(l.num_regs());
    llvm::Value* first = b.CreateVectorSplat(n, b.CreateMul(coords[0], b.getInt32(static_cast<std::uint32_t>(l.spt[0]))));
    llvm::Value* unwrapped = b.CreateAdd(first, llvm::ConstantVector::get(offsets));
    return b.CreateAnd(unwrapped, b.CreateVectorSplat(n, b.getInt32(static_cast<std::uint32_t>(l.shape[0] - 1))));
  }
  std::vector<llvm::Value*> regs(l.num_regs());
  for (int r = 0; r < l.num_regs(); ++r) regs[r] = element_coords(c.b, l, coords, r)[0];
  return pack(c, c.b.getInt32Ty(), regs);
}

llvm::Value* lower_splat(LoweringContext& c, const ir::Instruction& inst) {
  const TileLayout l = result_layout(c, inst.results[0]);
  return c.b.CreateVectorSplat(static_cast<unsigned>(l.num_regs()), c.get(ir::ops::TileSplat(inst).value()));
}

}  // namespace

llvm::Value* blocked(LoweringContext& c, ir::ValueId x, TileLayout* out) {
  const TileLayout& l = layout_of(c, x);
  if (l.is_slice())
    throw InternalError("cutlet internal error: " + std::string(ir::mnemonic(c.current->op)) + " in kernel '" + c.fn.name() +
                        "' reads a tile in a slice layout where it needs a blocked one, and no tile.convert_layout moves it; " +
                        "this is a bug in cutlet, please report it");
  *out = l;
  return c.get(x);
}

namespace {

/// The operand's registers repeated along the dimensions it has extent 1 in.
llvm::Value* lower_broadcast(LoweringContext& c, const ir::Instruction& inst) {
  const TileLayout& dst = result_layout(c, inst.results[0]);
  const ir::ValueId source = ir::ops::TileBroadcast(inst).source();
  auto s = c.fn.type_of(source).shape();
  const TileLayout src = dst.with_shape({s.begin(), s.end()});
  llvm::Value* v = tile_in_layout(c, source, src);
  std::vector<int> mask(dst.num_regs());
  for (int r = 0; r < dst.num_regs(); ++r) {
    auto j = dst.reg_indices(r);
    for (int d = 0; d < dst.rank(); ++d) j[d] %= src.regs_along(d);
    mask[r] = src.reg_of(j);
  }
  return c.b.CreateShuffleVector(v, mask);
}

/// Either undoes a reduction's slice (the operand is the slice of the result's layout along
/// the axis) or adds a dimension of one element held by every thread (the registers stay).
llvm::Value* lower_expand_dims(LoweringContext& c, const ir::Instruction& inst) {
  const ir::ops::TileExpandDims expand(inst);
  const int axis = expand.axis();
  ir::Type t = c.fn.type_of(inst.results[0]);
  const TileLayout& dst = result_layout(c, inst.results[0]);
  const TileLayout& src = layout_of(c, expand.source());
  if (src.is_slice() && src == slice_layout(dst, axis)) {
    std::vector<int> mask(dst.num_regs());
    for (int r = 0; r < dst.num_regs(); ++r) mask[r] = src.reg_of(dst.reg_indices(r));
    return c.b.CreateShuffleVector(c.get(expand.source()), mask);
  }
  CUTLET_ASSERT(!src.is_slice() && insert_dim_layout(src, axis, {t.shape().begin(), t.shape().end()}) == dst,
                "an expand_dims whose layouts assign-layouts did not relate");
  return c.get(expand.source());
}

/// Bytes per element of a tile in memory.
unsigned elem_bytes(ir::Type t) { return t.is_bool() ? 1u : static_cast<unsigned>(t.bits() / 8); }

/// How many consecutive registers along the fastest dimension one access may cover: on a
/// GPU up to 16 aligned bytes under one predicate; on the host up to 64 bytes wherever the
/// offsets run on (its vector accesses need no alignment and mask each lane).
int vector_width(LoweringContext& c, const TileLayout& l, ir::ValueId ptr, ir::ValueId offsets, ir::ValueId mask,
                 unsigned bytes) {
  if (l.is_slice()) return 1;
  const int f = l.order[0];
  auto floor_pow2 = [](std::int64_t w) { return static_cast<int>(std::bit_floor(static_cast<std::uint64_t>(std::max<std::int64_t>(w, 1)))); };
  if (c.options.host) {
    if (l.shape[f] < l.spt[f]) return 1;
    return floor_pow2(std::min<std::int64_t>({l.spt[f], 64 / bytes, ir::axis_info(c.fn, offsets).contiguity[f]}));
  }
  int w = std::min<int>(l.spt[f], static_cast<int>(16 / bytes));
  if (l.shape[f] < l.spt[f] || w <= 1 || bytes < 2) return 1;
  const ir::AxisInfo off = ir::axis_info(c.fn, offsets);
  w = static_cast<int>(std::min<std::int64_t>({w, off.contiguity[f], off.divisibility[f]}));
  w = static_cast<int>(std::min<std::int64_t>(w, ir::scalar_divisibility(c.fn, ptr) / bytes));
  if (mask != ir::kNone) w = static_cast<int>(std::min<std::int64_t>(w, ir::axis_info(c.fn, mask).constancy[f]));
  return floor_pow2(w);
}

const char* reg_constraint(unsigned bits) { return bits == 64 ? "l" : bits == 32 ? "r" : "h"; }

/// Under checked execution on the host (checked_access): `access` of one element at `addr`,
/// checked, where `pred` holds (null: always); `otherwise` (or nothing) where it does not.
llvm::Value* checked_element(LoweringContext& c, const ir::Instruction& inst, llvm::Value* pred, llvm::Value* addr,
                             unsigned bytes, bool write, bool atomic, const std::function<llvm::Value*()>& access,
                             llvm::Value* otherwise) {
  auto& b = c.b;
  if (!pred) return checked_access(c, inst, addr, bytes, write, atomic, access);
  llvm::BasicBlock* from = b.GetInsertBlock();
  auto* then = llvm::BasicBlock::Create(c.ctx, "checked.element", c.kernel);
  auto* done = llvm::BasicBlock::Create(c.ctx, "checked.element.done", c.kernel);
  b.CreateCondBr(pred, then, done);
  b.SetInsertPoint(then);
  llvm::Value* r = checked_access(c, inst, addr, bytes, write, atomic, access);
  llvm::BasicBlock* went = b.GetInsertBlock();
  b.CreateBr(done);
  b.SetInsertPoint(done);
  if (!r) return nullptr;
  llvm::PHINode* phi = b.CreatePHI(r->getType(), 2);
  phi->addIncoming(r, went);
  phi->addIncoming(otherwise, from);
  return phi;
}

/// On the host: `whole()` where every lane of `mask` (a vector of i1) is on, else `part()`
/// (x86's masked loads and stores are slower than plain ones, and a tile's mask is off only at
/// its edges). Returns the value of the one that ran, where they make values (not stores).
llvm::Value* unless_masked(LoweringContext& c, llvm::Value* mask, const std::function<llvm::Value*()>& whole,
                           const std::function<llvm::Value*()>& part) {
  auto& b = c.b;
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  auto* all_on = llvm::BasicBlock::Create(c.ctx, "mask.all_on", fn);
  auto* some_off = llvm::BasicBlock::Create(c.ctx, "mask.some_off", fn);
  auto* done = llvm::BasicBlock::Create(c.ctx, "mask.done", fn);
  b.CreateCondBr(b.CreateAndReduce(mask), all_on, some_off);
  b.SetInsertPoint(all_on);
  llvm::Value* x = whole();
  llvm::BasicBlock* x_end = b.GetInsertBlock();
  b.CreateBr(done);
  b.SetInsertPoint(some_off);
  llvm::Value* y = part();
  llvm::BasicBlock* y_end = b.GetInsertBlock();
  b.CreateBr(done);
  b.SetInsertPoint(done);
  if (x->getType()->isVoidTy()) return nullptr;
  llvm::PHINode* v = b.CreatePHI(x->getType(), 2);
  v->addIncoming(x, x_end);
  v->addIncoming(y, y_end);
  return v;
}

llvm::Value* lower_load(LoweringContext& c, const ir::Instruction& inst) {
  auto& b = c.b;
  const ir::ops::TileLoad load(inst);
  const ir::ValueId ptr = load.ptr(), offsets = load.offsets(), mask = load.mask();
  ir::Type et = c.fn.type_of(ptr).element();
  if (et.is_bool()) throw CompileError("cutlet: tiles of bool cannot be loaded from memory; load u8 and compare");
  const TileLayout l = layout_of(c, offsets);
  auto offs = unpack(c, c.get(offsets));
  std::vector<llvm::Value*> preds;
  if (mask != ir::kNone) preds = unpack(c, tile_in_layout(c, mask, l));
  llvm::Type* lt = llvm_type(c.ctx, et);
  const unsigned bytes = elem_bytes(et), bits = bytes * 8;
  llvm::Value* other = load.other() != ir::kNone ? c.get(load.other()) : llvm::Constant::getNullValue(lt);
  const int w = vector_width(c, l, ptr, offsets, mask, bytes);
  const int f = l.order[0];
  const std::string space = c.fn.type_of(ptr).address_space() == ir::AddressSpace::Shared ? "shared" : "global";
  std::vector<llvm::Value*> out(l.num_regs());
  if (c.options.host && c.options.checked) {  // element by element, each checked where its mask holds
    for (int r = 0; r < l.num_regs(); ++r) {
      llvm::Value* addr = b.CreateInBoundsGEP(lt, c.get(ptr), b.CreateSExt(offs[r], b.getInt64Ty()));
      out[r] = checked_element(c, inst, mask == ir::kNone ? nullptr : preds[r], addr, bytes, false, false,
                               [&] { return b.CreateAlignedLoad(lt, addr, llvm::Align(bytes)); }, other);
    }
    return pack(c, lt, out);
  }
  for (int r = 0; r < l.num_regs(); ++r) {
    if (l.reg_indices(r)[f] % w != 0) continue;  // covered by the access of its group
    llvm::Value* addr = b.CreateInBoundsGEP(lt, c.get(ptr), b.CreateSExt(offs[r], b.getInt64Ty()));
    if (mask == ir::kNone) {
      if (w == 1) {
        out[r] = b.CreateAlignedLoad(lt, addr, llvm::Align(bytes));
      } else {
        llvm::Value* v = b.CreateAlignedLoad(llvm::FixedVectorType::get(lt, w), addr, llvm::Align(c.options.host ? bytes : bytes * w));
        for (int i = 0; i < w; ++i) out[r + i] = b.CreateExtractElement(v, static_cast<std::uint64_t>(i));
      }
      continue;
    }
    if (c.options.host) {
      // The host's masked load: masked-off lanes keep `other` and never touch memory.
      auto* vt = llvm::FixedVectorType::get(lt, static_cast<unsigned>(w));
      std::vector<llvm::Value*> lanes(preds.begin() + r, preds.begin() + r + w);
      llvm::Value* m = pack(c, b.getInt1Ty(), lanes);
      llvm::Value* v = unless_masked(
          c, m, [&] { return b.CreateAlignedLoad(vt, addr, llvm::Align(bytes)); },
          [&] { return b.CreateMaskedLoad(vt, addr, llvm::Align(bytes), m, b.CreateVectorSplat(static_cast<unsigned>(w), other)); });
      for (int i = 0; i < w; ++i) out[r + i] = b.CreateExtractElement(v, static_cast<std::uint64_t>(i));
      continue;
    }
    // Predicated PTX: masked-off lanes keep `other` and never touch memory. At most four
    // registers per access (PTX's v4), each holding w / regs elements.
    const int regs = std::min(w, 4);
    const unsigned rbits = std::max(16u, bits * static_cast<unsigned>(w / regs));
    const int per = w / regs;  // elements per register
    llvm::Type* it = b.getIntNTy(rbits);
    std::string text, cons, dst;
    for (int i = 0; i < regs; ++i) {
      text += "mov.b" + std::to_string(rbits) + " $" + std::to_string(i) + ", $" + std::to_string(regs + 1) + ";\n\t";
      cons += std::string(cons.empty() ? "" : ",") + "=" + reg_constraint(rbits);
      dst += (i ? ", $" : "$") + std::to_string(i);
    }
    const std::string type = bits == 8 && per == 1 ? "u8" : "b" + std::to_string(rbits);
    text += "@$" + std::to_string(regs) + " ld." + space + (regs > 1 ? ".v" + std::to_string(regs) : "") + "." + type + " " +
            (regs > 1 ? "{" + dst + "}" : dst) + ", [$" + std::to_string(regs + 2) + "];";
    cons += std::string(",b,") + reg_constraint(rbits) + ",l";
    // `other` repeated in each register.
    llvm::Value* other_bits = b.CreateZExt(b.CreateBitCast(other, b.getIntNTy(bits)), it);
    llvm::Value* fill = other_bits;
    for (int i = 1; i < per; ++i) fill = b.CreateOr(b.CreateShl(fill, bits), other_bits);
    std::vector<llvm::Type*> rts(regs, it);
    llvm::Type* rt = regs == 1 ? it : static_cast<llvm::Type*>(llvm::StructType::get(c.ctx, rts));
    auto* fty = llvm::FunctionType::get(rt, {b.getInt1Ty(), it, addr->getType()}, false);
    llvm::Value* res = b.CreateCall(llvm::InlineAsm::get(fty, text, cons, /*hasSideEffects=*/false), {preds[r], fill, addr});
    for (int i = 0; i < regs; ++i) {
      llvm::Value* x = regs == 1 ? res : b.CreateExtractValue(res, static_cast<unsigned>(i));
      for (int e = 0; e < per; ++e) {
        llvm::Value* part = b.CreateTrunc(b.CreateLShr(x, static_cast<std::uint64_t>(e) * bits), b.getIntNTy(bits));
        out[r + i * per + e] = b.CreateBitCast(part, lt);
      }
    }
  }
  return pack(c, lt, out);
}

llvm::Value* lower_store(LoweringContext& c, const ir::Instruction& inst) {
  auto& b = c.b;
  const ir::ops::TileStore store(inst);
  const ir::ValueId ptr = store.ptr(), offsets = store.offsets(), value = store.value(), mask = store.mask();
  ir::Type et = c.fn.type_of(ptr).element();
  if (et.is_bool()) throw CompileError("cutlet: tiles of bool cannot be stored to memory; store them as u8");
  const TileLayout l = layout_of(c, offsets);
  auto offs = unpack(c, c.get(offsets));
  auto vals = unpack(c, tile_in_layout(c, value, l));
  std::vector<llvm::Value*> preds;
  if (mask != ir::kNone) preds = unpack(c, tile_in_layout(c, mask, l));
  llvm::Type* lt = llvm_type(c.ctx, et);
  const unsigned bytes = elem_bytes(et), bits = bytes * 8;
  const int w = vector_width(c, l, ptr, offsets, mask, bytes);
  const int f = l.order[0];
  const std::string space = c.fn.type_of(ptr).address_space() == ir::AddressSpace::Shared ? "shared" : "global";
  if (c.options.host && c.options.checked) {  // element by element, each checked where its mask holds
    for (int r = 0; r < l.num_regs(); ++r) {
      llvm::Value* addr = b.CreateInBoundsGEP(lt, c.get(ptr), b.CreateSExt(offs[r], b.getInt64Ty()));
      checked_element(c, inst, mask == ir::kNone ? nullptr : preds[r], addr, bytes, true, false, [&]() -> llvm::Value* {
        b.CreateAlignedStore(vals[r], addr, llvm::Align(bytes));
        return nullptr;
      }, nullptr);
    }
    return nullptr;
  }
  for (int r = 0; r < l.num_regs(); ++r) {
    if (l.reg_indices(r)[f] % w != 0) continue;
    llvm::Value* addr = b.CreateInBoundsGEP(lt, c.get(ptr), b.CreateSExt(offs[r], b.getInt64Ty()));
    if (mask == ir::kNone) {
      if (w == 1) {
        b.CreateAlignedStore(vals[r], addr, llvm::Align(bytes));
      } else {
        std::vector<llvm::Value*> lanes(vals.begin() + r, vals.begin() + r + w);
        b.CreateAlignedStore(pack(c, lt, lanes), addr, llvm::Align(c.options.host ? bytes : bytes * w));
      }
      continue;
    }
    if (c.options.host) {
      // A plain store where every lane is on (all but the edges of most tiles): x86's masked
      // stores are slow (microcoded on AMD's cores).
      std::vector<llvm::Value*> lanes(vals.begin() + r, vals.begin() + r + w), on(preds.begin() + r, preds.begin() + r + w);
      llvm::Value* v = pack(c, lt, lanes);
      llvm::Value* m = pack(c, b.getInt1Ty(), on);
      unless_masked(
          c, m, [&] { return b.CreateAlignedStore(v, addr, llvm::Align(bytes)); },
          [&] { return b.CreateMaskedStore(v, addr, llvm::Align(bytes), m); });
      continue;
    }
    const int regs = std::min(w, 4);
    const int per = w / regs;
    const unsigned rbits = std::max(16u, bits * static_cast<unsigned>(per));
    llvm::Type* it = b.getIntNTy(rbits);
    std::string src, cons = "b,l";
    std::vector<llvm::Value*> args{preds[r], addr};
    std::vector<llvm::Type*> types{b.getInt1Ty(), addr->getType()};
    for (int i = 0; i < regs; ++i) {
      src += (i ? ", $" : "$") + std::to_string(i + 2);
      cons += std::string(",") + reg_constraint(rbits);
      llvm::Value* x = llvm::ConstantInt::get(it, 0);
      for (int e = 0; e < per; ++e) {
        llvm::Value* part = b.CreateZExt(b.CreateBitCast(vals[r + i * per + e], b.getIntNTy(bits)), it);
        x = b.CreateOr(x, b.CreateShl(part, static_cast<std::uint64_t>(e) * bits));
      }
      args.push_back(x);
      types.push_back(it);
    }
    const std::string type = bits == 8 && per == 1 ? "u8" : "b" + std::to_string(rbits);
    std::string text = "@$0 st." + space + (regs > 1 ? ".v" + std::to_string(regs) : std::string()) + "." + type + " [$1], " +
                       (regs > 1 ? "{" + src + "}" : src) + ";";
    auto* fty = llvm::FunctionType::get(b.getVoidTy(), types, false);
    b.CreateCall(llvm::InlineAsm::get(fty, text, cons + ",~{memory}", /*hasSideEffects=*/true), args);
  }
  return nullptr;
}

/// One element's atomic of a tile atomic on the host: a relaxed read-modify-write where `pred`
/// holds, returning the old value (zero where it does not, as the GPU's predicated atom).
llvm::Value* host_tile_atomic(LoweringContext& c, ir::AtomicKind kind, ir::Type et, llvm::Value* addr, llvm::Value* value,
                              llvm::Value* pred) {
  auto& b = c.b;
  using B = llvm::AtomicRMWInst::BinOp;
  const bool fp = et.is_float(), sgn = et.is_signed_integer();
  B op = B::Xchg;
  switch (kind) {
    case ir::AtomicKind::Add: op = fp ? B::FAdd : B::Add; break;
    case ir::AtomicKind::Min: op = fp ? B::FMin : sgn ? B::Min : B::UMin; break;
    case ir::AtomicKind::Max: op = fp ? B::FMax : sgn ? B::Max : B::UMax; break;
    case ir::AtomicKind::And: op = B::And; break;
    case ir::AtomicKind::Or: op = B::Or; break;
    case ir::AtomicKind::Xor: op = B::Xor; break;
    case ir::AtomicKind::Exchange: op = B::Xchg; break;
    default: CUTLET_ASSERT(false, "not a tile atomic");
  }
  llvm::Function* f = b.GetInsertBlock()->getParent();
  llvm::BasicBlock* from = b.GetInsertBlock();
  auto* then = llvm::BasicBlock::Create(c.ctx, "tile.atomic", f);
  auto* done = llvm::BasicBlock::Create(c.ctx, "tile.atomic.done", f);
  b.CreateCondBr(pred, then, done);
  b.SetInsertPoint(then);
  llvm::Value* old = b.CreateAtomicRMW(op, addr, value, natural_align(et), llvm::AtomicOrdering::Monotonic);
  b.CreateBr(done);
  b.SetInsertPoint(done);
  llvm::PHINode* phi = b.CreatePHI(value->getType(), 2);
  phi->addIncoming(llvm::Constant::getNullValue(value->getType()), from);
  phi->addIncoming(old, then);
  return phi;
}

llvm::Value* lower_atomic(LoweringContext& c, const ir::Instruction& inst) {
  auto& b = c.b;
  const ir::ops::TileAtomic atomic(inst);
  const ir::ValueId ptr = atomic.ptr(), offsets = atomic.offsets(), value = atomic.value(), mask = atomic.mask();
  const auto kind = atomic.kind();
  ir::Type et = c.fn.type_of(ptr).element();
  const TileLayout l = layout_of(c, offsets);
  auto offs = unpack(c, c.get(offsets));
  auto vals = unpack(c, tile_in_layout(c, value, l));
  std::vector<llvm::Value*> preds;
  if (mask != ir::kNone) preds = unpack(c, tile_in_layout(c, mask, l));
  static const char* ops[] = {"add", "add", "min", "max", "and", "or", "xor", "exch", "cas"};
  const unsigned bits = static_cast<unsigned>(et.bits());
  std::string type;
  if (kind == ir::AtomicKind::Exchange || kind == ir::AtomicKind::And || kind == ir::AtomicKind::Or ||
      kind == ir::AtomicKind::Xor)
    type = "b" + std::to_string(bits);
  else if (et.is_float()) type = "f" + std::to_string(bits);
  else if (kind == ir::AtomicKind::Add) type = "u" + std::to_string(bits);
  else type = (et.is_signed_integer() ? "s" : "u") + std::to_string(bits);
  const char* reg = bits == 64 ? "l" : "r";
  llvm::Type* it = b.getIntNTy(bits);
  llvm::Type* lt = llvm_type(c.ctx, et);
  // Each copy of an element (layouts may repeat elements across threads) must update memory
  // once: only the thread holding an element's first copy does.
  auto coords = thread_coords(c, l);
  std::vector<llvm::Value*> out(l.num_regs());
  for (int r = 0; r < l.num_regs(); ++r) {
    llvm::Value* addr = b.CreateInBoundsGEP(lt, c.get(ptr), b.CreateSExt(offs[r], b.getInt64Ty()));
    llvm::Value* pred = mask == ir::kNone ? b.getTrue() : preds[r];
    // A repeated element (the pattern wraps) is updated by its first holder only.
    auto j = l.reg_indices(r);
    for (int d = 0; d < l.rank(); ++d) {
      if (d == l.slice_dim) continue;
      const std::int64_t within = l.cover(d);
      if (within <= l.shape[d] && j[d] % l.spt[d] < l.shape[d]) continue;
      llvm::Value* raw = b.CreateAdd(b.CreateMul(coords[d], b.getInt32(l.spt[d])),
                                     b.getInt32(static_cast<std::uint32_t>(l.reg_offset(d, j[d]))));
      pred = b.CreateAnd(pred, b.CreateICmpULT(raw, b.getInt32(static_cast<std::uint32_t>(l.shape[d]))));
    }
    if (c.options.host && c.options.checked) {
      out[r] = checked_element(c, inst, pred, addr, bits / 8, true, true,
                               [&] { return host_tile_atomic(c, kind, et, addr, vals[r], b.getTrue()); },
                               llvm::Constant::getNullValue(vals[r]->getType()));
      continue;
    }
    if (c.options.host) {
      out[r] = host_tile_atomic(c, kind, et, addr, vals[r], pred);
      continue;
    }
    std::string text = std::string("mov.b") + std::to_string(bits) + " $0, 0;\n\t@$1 atom.global." + ops[static_cast<int>(kind)] +
                       "." + type + " $0, [$2], $3;";
    auto* fty = llvm::FunctionType::get(it, {b.getInt1Ty(), addr->getType(), it}, false);
    llvm::Value* v = b.CreateBitCast(vals[r], it);  // sub and cas are not tile atomics
    llvm::Value* old = b.CreateCall(llvm::InlineAsm::get(fty, text, std::string("=") + reg + ",b,l," + reg + ",~{memory}", true),
                                    {pred, addr, v});
    out[r] = b.CreateBitCast(old, lt);
  }
  return pack(c, lt, out);
}

/// Permutes or reshapes through shared memory: the elements go to their row-major positions
/// in the source, and each element of the result's default layout reads the source position it
/// comes from (the same row-major position for a reshape).
llvm::Value* lower_permute_or_reshape(LoweringContext& c, const ir::Instruction& inst) {
  const bool reshape = inst.op == ir::Opcode::TileReshape;
  const ir::ValueId x = reshape ? ir::ops::TileReshape(inst).source() : ir::ops::TilePermute(inst).source();
  ir::Type st = c.fn.type_of(x), rt = c.fn.type_of(inst.results[0]);
  const std::vector<std::int64_t> sshape(st.shape().begin(), st.shape().end()), rshape(rt.shape().begin(), rt.shape().end());
  const TileLayout to = result_layout(c, inst.results[0]);
  const std::vector<int> perm = reshape ? std::vector<int>{} : ir::ops::TilePermute(inst).perm();
  return through_shared(
      c, c.get(x), layout_of(c, x), to,
      [&](const std::vector<llvm::Value*>& dst) {
        if (reshape) return linear(c, dst, rshape);
        std::vector<llvm::Value*> src(dst.size());
        for (std::size_t d = 0; d < dst.size(); ++d) src[static_cast<std::size_t>(perm[d])] = dst[d];
        return linear(c, src, sshape);
      });
}

}  // namespace


llvm::Value* tile_in_layout(LoweringContext& c, ir::ValueId v, const TileLayout& l) {
  const TileLayout& have = layout_of(c, v);
  if (!have.same_placement(l))
    throw InternalError("cutlet internal error: " + std::string(ir::mnemonic(c.current->op)) + " in kernel '" + c.fn.name() +
                        "' reads a tile in " + have.str() + " where it needs " + l.str() +
                        ", and no tile.convert_layout moves it; this is a bug in cutlet, please report it");
  return c.get(v);
}

const TileLayout& result_layout(const LoweringContext& c, ir::ValueId v) {
  const TileLayout* l = c.fn.type_of(v).layout();
  CUTLET_ASSERT(l != nullptr, "a tile value without a layout (assign-layouts did not run)");
  return *l;
}

void check_elementwise_layouts(LoweringContext& c, const ir::Instruction& inst) {
  if (inst.results.empty() || !c.fn.type_of(inst.results[0]).is_tile()) return;
  const TileLayout l = result_layout(c, inst.results[0]);
  for (ir::ValueId v : inst.operands)
    if (c.fn.type_of(v).is_tile()) tile_in_layout(c, v, l);
}


namespace {
/// The one op that moves a tile between layouts (see ir::assign_layouts; what is cheap to
/// recompute, ir::rematerialize_conversions made anew): through shared memory, or nothing
/// at all between layouts of one placement.
llvm::Value* lower_convert_layout(LoweringContext& c, const ir::Instruction& inst) {
  const TileLayout& to = result_layout(c, inst.results[0]);
  const ir::ValueId source = ir::ops::TileConvertLayout(inst).source();
  const TileLayout& from = layout_of(c, source);
  if (from.same_placement(to)) return c.get(source);
  return relayout(c, c.get(source), from, to);
}
}  // namespace

void register_tiles(LoweringTable& t) {
  t.set(Opcode::TileConvertLayout, lower_convert_layout);
  t.set(Opcode::TileArange, lower_arange);
  t.set(Opcode::TileSplat, lower_splat);
  t.set(Opcode::TileBroadcast, lower_broadcast);
  t.set(Opcode::TileExpandDims, lower_expand_dims);
  t.set(Opcode::TileLoad, lower_load);
  t.set(Opcode::TileStore, lower_store);
  t.set(Opcode::TileAtomic, lower_atomic);
  t.set(Opcode::TilePermute, lower_permute_or_reshape);
  t.set(Opcode::TileReshape, lower_permute_or_reshape);
}

}  // namespace cutlet::backend
