// The shared memory of each op (see shared_memory.h): one rule per op that needs any.
#include "cutlet/ir/shared_memory.h"

#include <algorithm>

#include "cutlet/error.h"
#include "cutlet/ir/layout.h"
#include "cutlet/ir/ops.h"
#include "cutlet/ir/tile_dot.h"

namespace cutlet::ir {

std::int64_t shared_element_bytes(Type t) {
  if (t.is_pointer()) return 8;
  return std::max(1, t.bits() / 8);
}

namespace {

const Layout& layout_of(const Function& f, ValueId v) {
  const Layout* l = f.type_of(v).layout();
  CUTLET_ASSERT(l != nullptr, "shared_requests of a tile without a layout (assign-layouts did not run)");
  return *l;
}

std::int64_t elements(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (auto e : shape) n *= e;
  return n;
}

/// A tile of `v`'s type written row-major (conversions, permutes, reshapes).
SharedRequest whole_tile(const Function& f, ValueId v, std::string what) {
  return {elements(layout_of(f, v).tile_shape()) * shared_element_bytes(f.type_of(v).element()), 16, SharedLifetime::Op,
          std::move(what)};
}

/// The slots of a reduction along k of tiles in layout `l`, one buffer per component type.
void reduction_slots(const Layout& l, int k, const std::vector<Type>& components, std::vector<SharedRequest>& out) {
  const std::int64_t extent = l.shape[k];
  const std::int64_t warps =
      std::clamp<std::int64_t>(extent / (std::int64_t{l.spt[k]} * l.tpw[k] * l.lane_reps_along(k)), 1, l.wpc[k]);
  if (warps <= 1) return;
  const std::int64_t count = warps * elements(slice_layout(l, k).tile_shape());
  for (Type t : components) out.push_back({count * shared_element_bytes(t), 16, SharedLifetime::Op, "cross-warp reduction"});
}

/// The slots of a scan along k of tiles in layout `l`: per line, repetition and warp along k.
void scan_slots(const Layout& l, int k, const std::vector<Type>& components, std::vector<SharedRequest>& out) {
  if (l.wpc[k] <= 1) return;
  const std::int64_t reps = l.regs_along(k) / l.spt[k];
  const std::int64_t count = reps * l.wpc[k] * elements(slice_layout(l, k).tile_shape());
  for (Type t : components) out.push_back({count * shared_element_bytes(t), 16, SharedLifetime::Op, "cross-warp scan"});
}

std::vector<Type> element_types(const Function& f, std::span<const ValueId> vs) {
  std::vector<Type> ts;
  for (ValueId v : vs) ts.push_back(f.type_of(v).element());
  return ts;
}

void dot_buffers(const Function& f, const Instruction& dot, std::vector<SharedRequest>& out) {
  const int warps = f.tile_warps() > 0 ? f.tile_warps() : 4;
  const char* names[2] = {"dot operand a", "dot operand b"};
  if (!dot_uses_mma(f, dot, warps)) {
    // FMA dots: both operands as their tiles are, in rows padded by one element.
    const ValueId operands[2] = {ops::TileDot(dot).a(), ops::TileDot(dot).b()};
    const Type et = f.type_of(operands[0]).element();
    for (int k = 0; k < 2; ++k) {
      auto s = f.type_of(operands[k]).shape();
      out.push_back({s[0] * (s[1] + 1) * shared_element_bytes(et), 16, SharedLifetime::Op, names[k]});
    }
    return;
  }
  const ValueId operands[2] = {ops::TileDot(dot).a(), ops::TileDot(dot).b()};
  for (int k = dot_a_from_registers(f, dot) ? 1 : 0; k < 2; ++k) {
    const Type t = f.type_of(operands[k]);
    const Layout& l = layout_of(f, operands[k]);
    if (l.is_shared() || l.is_dot_operand()) continue;  // read where it is
    auto s = t.shape();
    const Layout buffer = dot_operand_shared_layout(f, dot, k, {s.begin(), s.end()});
    out.push_back({buffer.shared_elements() * shared_element_bytes(t.element()), buffer.swizzle ? 1024 : 16,
                   SharedLifetime::Op, names[k]});
  }
}

/// What a tile.local_alloc's buffer holds, for the arena's report.
std::string describe_buffer(const Function& f, const Instruction& inst) {
  const Type t = f.type_of(inst.results[0]);
  const Layout& l = *t.layout();
  auto dims = [&](std::size_t from) {
    std::string r;
    for (std::size_t d = from; d < l.shape.size(); ++d) r += (d > from ? "x" : "") + std::to_string(l.shape[d]);
    return r;
  };
  const std::string of = " of " + ops::TileLocalAlloc(inst).what();
  if (l.rank() == 3)
    return "cp.async stage ring" + of + " (" + std::to_string(l.shape[0]) + " stages x " +
           std::to_string(l.strides[0] * shared_element_bytes(t.element())) + " bytes, " + dims(1) + " tile)";
  return "buffer" + of + " (" + dims(0) + " tile, staged before the loop)";
}

}  // namespace

std::vector<SharedRequest> shared_requests(const Function& f, const Instruction& inst) {
  std::vector<SharedRequest> out;
  switch (inst.op) {
    case Opcode::TileConvertLayout: {
      const ValueId source = ops::TileConvertLayout(inst).source();
      if (!layout_of(f, source).same_placement(layout_of(f, inst.results[0])))
        out.push_back(whole_tile(f, source, "layout conversion"));
      break;
    }
    case Opcode::TilePermute: out.push_back(whole_tile(f, ops::TilePermute(inst).source(), "permute")); break;
    case Opcode::TileReshape: out.push_back(whole_tile(f, ops::TileReshape(inst).source(), "reshape")); break;
    case Opcode::TileReduce: {
      const ops::TileReduce reduce(inst);
      reduction_slots(layout_of(f, reduce.source()), reduce.axis(), {f.type_of(reduce.source()).element()}, out);
      break;
    }
    case Opcode::TileReduceWith: {
      const ops::TileReduceWith reduce(inst);
      reduction_slots(layout_of(f, reduce.inputs()[0]), reduce.axis(), element_types(f, reduce.inputs()), out);
      break;
    }
    case Opcode::TileScan: {
      const ops::TileScan scan(inst);
      scan_slots(layout_of(f, inst.results[0]), scan.axis(), element_types(f, scan.inputs()), out);
      break;
    }
    case Opcode::TileDot: dot_buffers(f, inst, out); break;
    case Opcode::TileLocalAlloc: {
      const Type t = f.type_of(inst.results[0]);
      const std::int64_t bytes = t.layout()->shared_elements() * shared_element_bytes(t.element());
      // Swizzled tiles (wgmma's and TMA's) start where the swizzle pattern does.
      const std::int64_t align = t.layout()->swizzle ? 1024 : 128;
      out.push_back({(bytes + align - 1) / align * align, align, SharedLifetime::Dealloc, describe_buffer(f, inst)});
      break;
    }
    case Opcode::SharedAlloc:
      if (f.is_kernel()) {
        const Type elem = f.type_of(inst.results[0]).element();
        const std::int64_t count = ops::SharedAlloc(inst).count();
        out.push_back({count * shared_element_bytes(elem), 16, SharedLifetime::Kernel,
                       "shared_array<" + elem.str() + ">(" + std::to_string(count) + ")"});
      }
      break;
    default: break;
  }
  return out;
}

}  // namespace cutlet::ir
