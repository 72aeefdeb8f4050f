// Which loads of a tile loop become cp.async copies into stage buffers, and how the stages
// are laid out (see tile_pipeline.h).
#include "tile_pipeline.h"

#include <algorithm>

#include "tile_axis_info.h"

namespace cutlet::backend {
namespace {

/// The instructions of region `r` and of the regions nested in it that use value `v`.
void uses_in(const ir::Function& fn, const ir::Region& r, ir::ValueId v, std::vector<const ir::Instruction*>& out) {
  for (ir::InstId id : r.body) {
    const ir::Instruction& inst = fn.inst(id);
    if (std::find(inst.operands.begin(), inst.operands.end(), v) != inst.operands.end()) out.push_back(&inst);
    for (const ir::Region& nested : inst.regions) uses_in(fn, nested, v, out);
  }
}

bool is_zero_constant(const ir::Function& fn, ir::ValueId v) {
  const ir::Instruction* d = fn.def_of(v);
  if (!d || d->op != ir::Opcode::Const || d->attrs.empty()) return false;
  if (auto* i = std::get_if<std::int64_t>(&d->attrs[0])) return *i == 0;
  if (auto* f = std::get_if<double>(&d->attrs[0])) return *f == 0.0;
  return false;
}

}  // namespace

std::optional<ir::InstId> fragment_pipelined_dot(const ir::Instruction& loop, const std::vector<AsyncCopy>& copies) {
  if (copies.size() != 2 || copies[0].dot != copies[1].dot || copies[0].dot == ir::kNone ||
      copies[0].operand == copies[1].operand)
    return std::nullopt;
  const auto& body = loop.regions[0].body;
  if (std::find(body.begin(), body.end(), copies[0].dot) == body.end()) return std::nullopt;
  return copies[0].dot;
}

int pipeline_stages(const ir::Function& fn) { return fn.tile_stages() > 0 ? fn.tile_stages() : 3; }

std::int64_t dot_operand_stride(bool along_k, std::int64_t cols, ir::Type elem) {
  // 16-bit elements: rows 16 bytes apart modulo 128, so ldmatrix's eight 16-byte row reads
  // cover all banks. tf32: rows along K are read as words at row g, column q (g < 8, q < 4):
  // a stride of 4 modulo 32 words; the others at row q, column g: 8 modulo 32.
  if (elem.bits() == 32) return cols + (along_k ? 4 : 8);
  return cols + 8;
}

std::vector<AsyncCopy> plan_async_copies(const ir::Function& fn, const ir::Instruction& loop,
                                         const std::vector<ir::InstId>& candidates, int warps) {
  std::vector<AsyncCopy> out;
  const ir::Region& body = loop.regions[0];
  for (ir::InstId id : candidates) {
    const ir::Instruction& load = fn.inst(id);
    const ir::ValueId ptr = load.operands[0], offsets = load.operands[1];
    const ir::ValueId mask = load.operands.size() > 2 ? load.operands[2] : ir::kNone;
    if (fn.type_of(ptr).address_space() != ir::AddressSpace::Global) continue;
    if (load.operands.size() > 3 && !is_zero_constant(fn, load.operands[3])) continue;  // cp.async pads with zeros
    ir::Type t = fn.type_of(load.results[0]);
    if (t.shape().size() != 2) continue;
    std::vector<const ir::Instruction*> uses;
    uses_in(fn, body, load.results[0], uses);
    if (uses.size() != 1 || uses[0]->op != ir::Opcode::TileDot) continue;
    const ir::Instruction& dot = *uses[0];
    const int operand = dot.operands[0] == load.results[0] ? 0 : dot.operands[1] == load.results[0] ? 1 : -1;
    if (operand < 0 || dot.operands[0] == dot.operands[1] || !dot_uses_mma(fn, dot, warps)) continue;
    // The copy's share per thread: 16 bytes along the rows, as the load's own layout.
    const ir::Type elem = t.element();
    const int bytes = elem.bits() / 8;
    AsyncCopy c;
    c.load = id;
    auto top = std::find_if(body.body.begin(), body.body.end(), [&](ir::InstId d) { return &fn.inst(d) == &dot; });
    c.dot = top != body.body.end() ? *top : ir::kNone;  // kNone: nested in the body's control flow
    c.operand = operand;
    c.rows = t.shape()[0];
    c.cols = t.shape()[1];
    c.layout = default_layout({c.rows, c.cols}, warps, 16 / bytes);
    const AxisInfo off = axis_info(fn, offsets);
    std::int64_t w = std::min<std::int64_t>({c.layout.spt[1], c.cols, off.contiguity[1], off.divisibility[1],
                                             scalar_divisibility(fn, ptr) / bytes});
    if (mask != ir::kNone) w = std::min(w, axis_info(fn, mask).constancy[1]);
    int p = 1;
    while (p * 2 <= w) p *= 2;
    if (p * bytes < 4) continue;  // cp.async copies 4, 8 or 16 bytes
    c.width = p;
    c.stride = dot_operand_stride((operand == 0) != dot_shape(fn, dot).transposed(operand), c.cols, elem);
    c.stage_bytes = (c.rows * c.stride * bytes + 127) / 128 * 128;
    out.push_back(c);
  }
  return out;
}

}  // namespace cutlet::backend
