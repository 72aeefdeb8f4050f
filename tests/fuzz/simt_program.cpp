#include "fuzz/simt_program.h"

#include <sstream>

namespace cutlet::fuzz {

const char* op_name(ShuffleOp op) {
  static constexpr const char* names[] = {"shfl", "shfl_up", "shfl_down", "shfl_xor"};
  return names[static_cast<int>(op)];
}
const char* op_name(VoteOp op) {
  static constexpr const char* names[] = {"ballot",     "any",        "all",        "reduce_add",
                                          "reduce_min", "reduce_max", "reduce_and", "reduce_or",
                                          "reduce_xor", "block_count", "block_and", "block_or"};
  return names[static_cast<int>(op)];
}
const char* op_name(AtomicOp op) {
  static constexpr const char* names[] = {"add", "sub", "and", "or", "xor", "min", "max"};
  return names[static_cast<int>(op)];
}

int accumulator_buffer(Scalar type) {
  for (int i = 0; i < 4; ++i)
    if (kAccumulatorTypes[i] == type) return i;
  return -1;
}

int buffer_index(Scalar type) {
  for (int i = 0; i < 12; ++i)
    if (kBufferTypes[i] == type) return i;
  return -1;
}

int SimtProgram::outputs_of(Scalar type) const {
  int n = 0;
  for (const auto& o : outputs) n += o.type == type;
  return n;
}

int SimtProgram::accumulators_of(Scalar type) const {
  int n = 0;
  for (const auto& a : accumulators) n += a.type == type;
  return n;
}

std::uint64_t accumulator_identity(AtomicOp op, Scalar type) {
  switch (op) {
    case AtomicOp::And: return truncate_bits(type, ~std::uint64_t{0});
    case AtomicOp::Min: return truncate_bits(type, static_cast<std::uint64_t>(integer_max(type)));
    case AtomicOp::Max: return truncate_bits(type, static_cast<std::uint64_t>(integer_min(type)));
    default: return 0;
  }
}

std::string to_string(const Expr& e) {
  std::string t = scalar_name(e.type);
  auto args = [&] {
    std::string s;
    for (const auto& a : e.args) s += " " + to_string(a);
    return s;
  };
  switch (e.kind) {
    case ExprKind::Const: return value_text(e.type, e.value) + ":" + t;
    case ExprKind::Input:
      return "in." + t + "[" + std::to_string(e.index) + (e.offset ? " @+" + std::to_string(e.offset) : "") + "]";
    case ExprKind::Var: return "v" + std::to_string(e.index);
    case ExprKind::Special: {
      static constexpr const char* names[] = {"thread_idx", "block_idx", "global_id", "lane_id"};
      return names[e.op];
    }
    case ExprKind::LoopIndex: return "i" + std::to_string(e.index);
    case ExprKind::Unary: return std::string("(") + op_name(static_cast<UnaryOp>(e.op)) + args() + ")";
    case ExprKind::Binary: return std::string("(") + op_name(static_cast<BinaryOp>(e.op)) + "." + t + args() + ")";
    case ExprKind::Compare:
      return std::string("(") + op_name(static_cast<CmpOp>(e.op)) + "." + scalar_name(e.args[0].type) + args() + ")";
    case ExprKind::Select: return "(select" + args() + ")";
    case ExprKind::Cast: return "(cast." + t + args() + ")";
    case ExprKind::Bitcast: return "(bitcast." + t + args() + ")";
    case ExprKind::Fma: return "(fma." + t + args() + ")";
    case ExprKind::FunnelShift: return std::string(e.op == 0 ? "(funnel_shift_left" : "(funnel_shift_right") + args() + ")";
  }
  return "?";
}

namespace {

void print_block(std::ostringstream& os, const std::vector<Stmt>& body, int indent) {
  const std::string pad(indent * 2, ' ');
  for (const auto& s : body) {
    os << pad;
    switch (s.kind) {
      case StmtKind::Assign: os << "v" << s.target << " = " << to_string(s.value) << "\n"; break;
      case StmtKind::Store: os << "out" << s.target << " = " << to_string(s.value) << "\n"; break;
      case StmtKind::StoreApprox:
        os << "out" << s.target << " = " << op_name(static_cast<ApproxFn>(s.op)) << " " << to_string(s.value) << "\n";
        break;
      case StmtKind::If:
        os << "if " << to_string(s.value) << " {\n";
        print_block(os, s.body, indent + 1);
        if (!s.else_body.empty()) {
          os << pad << "} else {\n";
          print_block(os, s.else_body, indent + 1);
        }
        os << pad << "}\n";
        break;
      case StmtKind::For:
        os << "for i = " << s.begin << " to " << to_string(s.value) << " step " << s.step << " {\n";
        print_block(os, s.body, indent + 1);
        os << pad << "}\n";
        break;
      case StmtKind::Exchange:
        os << "v" << s.target << " = exchange(+" << s.amount << ") " << to_string(s.value) << "\n";
        break;
      case StmtKind::Shuffle:
        os << "v" << s.target << " = " << op_name(static_cast<ShuffleOp>(s.op)) << "(" << s.amount << ") "
           << to_string(s.value) << "\n";
        break;
      case StmtKind::Vote:
        os << "v" << s.target << " = " << op_name(static_cast<VoteOp>(s.op)) << " " << to_string(s.value) << "\n";
        break;
      case StmtKind::Atomic: os << "acc" << s.target << " <- " << to_string(s.value) << "\n"; break;
    }
  }
}

std::string range_text(__int128 lo, __int128 hi) {
  auto one = [](__int128 v) {
    if (v < 0) return "-" + std::to_string(static_cast<unsigned long long>(-v));
    return std::to_string(static_cast<unsigned long long>(v));
  };
  return "[" + one(lo) + ", " + one(hi) + "]";
}

}  // namespace

std::string to_string(const SimtProgram& p) {
  std::ostringstream os;
  os << "simt seed " << p.seed << ": grid " << p.grid << " x block " << p.block << "\n";
  os << "inputs per thread:";
  for (int t = 0; t < kScalarCount; ++t)
    if (p.inputs[t]) os << " " << scalar_name(static_cast<Scalar>(t)) << " x" << p.inputs[t];
  os << "\n";
  for (std::size_t i = 0; i < p.vars.size(); ++i)
    os << "var v" << i << ": " << scalar_name(p.vars[i].type)
       << (is_integer(p.vars[i].type) ? " " + range_text(p.vars[i].lo, p.vars[i].hi) : "") << "\n";
  for (std::size_t i = 0; i < p.outputs.size(); ++i)
    os << "output out" << i << ": " << scalar_name(p.outputs[i].type) << " slot " << p.outputs[i].slot << "\n";
  for (std::size_t i = 0; i < p.accumulators.size(); ++i) {
    const auto& a = p.accumulators[i];
    os << "accumulator acc" << i << ": " << scalar_name(a.type) << " " << op_name(a.op) << " slot " << a.slot
       << (a.shared ? " via shared memory" : "") << "\n";
  }
  os << "body:\n";
  print_block(os, p.body, 1);
  return os.str();
}

}  // namespace cutlet::fuzz
