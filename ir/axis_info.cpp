// Axis facts of index tiles: followed through arange, splat, broadcast, expand_dims, casts,
// add, sub, mul and the comparisons and logic that build masks.
#include "cutlet/ir/axis_info.h"

#include <algorithm>
#include <bit>
#include <map>

#include "cutlet/ir/ops.h"

namespace cutlet::ir {
namespace {

constexpr std::int64_t kHuge = std::int64_t{1} << 30;

std::int64_t pow2_factor(std::int64_t x) {
  if (x == 0) return kHuge;
  return std::min<std::int64_t>(kHuge, std::int64_t{1} << std::countr_zero(static_cast<std::uint64_t>(x)));
}

class Analysis {
 public:
  explicit Analysis(const Function& f) : f_(f) {}

  std::int64_t scalar(ValueId v) {
    const Instruction* d = f_.def_of(v);
    if (!d) return induction_divisibility(v);
    switch (d->op) {
      case Opcode::Const: {
        const Attribute value = ops::Const(*d).value();
        return std::holds_alternative<std::int64_t>(value) ? pow2_factor(std::get<std::int64_t>(value)) : 1;
      }
      case Opcode::Field: return ops::Field(*d).divisibility();
      case Opcode::SharedAlloc: return 16;  // shared arrays are 16-byte aligned
      case Opcode::Mul: return std::min(kHuge, scalar(d->operands[0]) * scalar(d->operands[1]));
      case Opcode::Add:
      case Opcode::Sub: return std::min(scalar(d->operands[0]), scalar(d->operands[1]));
      case Opcode::Shl: {
        const Instruction* k = f_.def_of(d->operands[1]);
        if (k && k->op == Opcode::Const) return std::min(kHuge, scalar(d->operands[0]) << std::get<std::int64_t>(ops::Const(*k).value()));
        return scalar(d->operands[0]);
      }
      case Opcode::Cast: return scalar(ops::Cast(*d).x());
      case Opcode::Select: return std::min(scalar(ops::Select(*d).if_true()), scalar(ops::Select(*d).if_false()));
      case Opcode::PtrAdd: {
        const std::int64_t bytes = f_.type_of(v).element().is_bool() ? 1 : f_.type_of(v).element().bits() / 8;
        const ops::PtrAdd add(*d);
        return std::min(scalar(add.base()), std::min(kHuge, scalar(add.offset()) * bytes));
      }
      default: return 1;
    }
  }

  /// A for loop's induction variable takes the values lb + i * step: a multiple of what
  /// divides both. Other region arguments (parameters, carried values): 1.
  std::int64_t induction_divisibility(ValueId v) {
    for (std::size_t i = 0; i < f_.num_insts(); ++i) {
      const Instruction& inst = f_.inst(static_cast<InstId>(i));
      if (inst.op == Opcode::For && !inst.regions.empty() && !inst.regions[0].args.empty() &&
          inst.regions[0].args[0] == v)
        return std::min(scalar(ops::For(inst).lower()), scalar(ops::For(inst).step()));
    }
    return 1;
  }

  AxisInfo tile(ValueId v) {
    auto it = memo_.find(v);
    if (it != memo_.end()) return it->second;
    AxisInfo r = compute(v);
    memo_[v] = r;
    return r;
  }

 private:
  AxisInfo unknown(std::size_t rank) {
    return {std::vector<std::int64_t>(rank, 1), std::vector<std::int64_t>(rank, 1), std::vector<std::int64_t>(rank, 1)};
  }

  /// A splat constant's value, if v is one.
  std::optional<std::int64_t> splat_constant(ValueId v) {
    const Instruction* d = f_.def_of(v);
    if (!d || d->op != Opcode::TileSplat) return std::nullopt;
    const Instruction* k = f_.def_of(ops::TileSplat(*d).value());
    if (!k || k->op != Opcode::Const) return std::nullopt;
    const Attribute value = ops::Const(*k).value();
    if (!std::holds_alternative<std::int64_t>(value)) return std::nullopt;
    return std::get<std::int64_t>(value);
  }

  AxisInfo compute(ValueId v) {
    Type t = f_.type_of(v);
    auto shape = t.shape();
    const std::size_t n = shape.size();
    const Instruction* d = f_.def_of(v);
    if (!d) return unknown(n);
    auto operand = [&](int i) { return tile(d->operands[i]); };
    switch (d->op) {
      case Opcode::TileArange: return {{shape[0]}, {kHuge}, {1}};
      case Opcode::TileSplat: {
        AxisInfo r = unknown(n);
        for (std::size_t i = 0; i < n; ++i) {
          r.divisibility[i] = scalar(ops::TileSplat(*d).value());
          r.constancy[i] = shape[i];
        }
        return r;
      }
      case Opcode::TileBroadcast: {
        AxisInfo r = operand(0);
        auto src = f_.type_of(ops::TileBroadcast(*d).source()).shape();
        for (std::size_t i = 0; i < n; ++i)
          if (src[i] == 1 && shape[i] != 1) {
            r.contiguity[i] = 1;
            r.constancy[i] = shape[i];
          }
        return r;
      }
      case Opcode::TileExpandDims: {
        AxisInfo r = operand(0);
        const auto axis = static_cast<std::size_t>(ops::TileExpandDims(*d).axis());
        r.contiguity.insert(r.contiguity.begin() + axis, 1);
        r.constancy.insert(r.constancy.begin() + axis, 1);
        r.divisibility.insert(r.divisibility.begin() + axis, 1);
        return r;
      }
      case Opcode::Cast: return f_.type_of(ops::Cast(*d).x()).is_tile() ? operand(0) : unknown(n);
      case Opcode::TileConvertLayout: return operand(0);  // the same elements, placed anew
      case Opcode::Add:
      case Opcode::Sub: {
        AxisInfo a = operand(0), b = operand(1), r = unknown(n);
        for (std::size_t i = 0; i < n; ++i) {
          r.contiguity[i] = std::max(std::min(a.contiguity[i], b.constancy[i]),
                                     d->op == Opcode::Add ? std::min(b.contiguity[i], a.constancy[i]) : 1);
          r.divisibility[i] = std::min(a.divisibility[i], b.divisibility[i]);
          r.constancy[i] = std::min(a.constancy[i], b.constancy[i]);
        }
        return r;
      }
      case Opcode::Mul: {
        AxisInfo a = operand(0), b = operand(1), r = unknown(n);
        for (std::size_t i = 0; i < n; ++i) {
          r.contiguity[i] = splat_constant(d->operands[1]) == 1 ? a.contiguity[i]
                            : splat_constant(d->operands[0]) == 1 ? b.contiguity[i]
                                                                   : 1;
          r.divisibility[i] = std::min(kHuge, a.divisibility[i] * b.divisibility[i]);
          r.constancy[i] = std::min(a.constancy[i], b.constancy[i]);
        }
        return r;
      }
      case Opcode::Cmp: {
        // A comparison is constant where both sides are, and along a run of consecutive values
        // compared with a constant, in aligned blocks both sides' divisibility allows.
        AxisInfo a = operand(0), b = operand(1), r = unknown(n);
        for (std::size_t i = 0; i < n; ++i) {
          std::int64_t c = std::min(a.constancy[i], b.constancy[i]);
          const std::int64_t block = std::min(a.divisibility[i], b.divisibility[i]);
          if (b.constancy[i] >= a.contiguity[i]) c = std::max(c, std::min(a.contiguity[i], block));
          if (a.constancy[i] >= b.contiguity[i]) c = std::max(c, std::min(b.contiguity[i], block));
          r.constancy[i] = c;
        }
        return r;
      }
      case Opcode::And:
      case Opcode::Or: {
        AxisInfo a = operand(0), b = operand(1), r = unknown(n);
        for (std::size_t i = 0; i < n; ++i) r.constancy[i] = std::min(a.constancy[i], b.constancy[i]);
        return r;
      }
      default: return unknown(n);
    }
  }

  const Function& f_;
  std::map<ValueId, AxisInfo> memo_;
};

}  // namespace

AxisInfo axis_info(const Function& f, ValueId v) { return Analysis(f).tile(v); }

std::int64_t scalar_divisibility(const Function& f, ValueId v) { return Analysis(f).scalar(v); }

}  // namespace cutlet::ir
