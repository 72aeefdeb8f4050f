// The IR printer: one line per instruction, nested regions indented.
#include "cutlet/ir/printer.h"

#include "cutlet/ir/math.h"

#include <cstdio>
#include <cstring>
#include <unordered_map>

namespace cutlet::ir {
namespace {

class Printer {
 public:
  Printer(const Function& f, bool locs) : f_(f), locs_(locs) {}

  std::string run() {
    for (const auto& c : f_.callees()) out_ += Printer(*c, locs_).run() + "\n";
    out_ += (f_.is_kernel() ? "kernel @" : "func @") + f_.name() + "(";
    const auto& params = f_.body().args;
    for (std::size_t i = 0; i < params.size(); ++i) {
      if (i) out_ += ", ";
      out_ += name(params[i]) + ": " + f_.type_of(params[i]).str();
      if (f_.param_noalias(i)) out_ += " noalias";
    }
    out_ += ")";
    if (!f_.is_kernel()) out_ += " -> " + f_.return_type().str();
    if (f_.tile_warps() > 0) out_ += " warps " + std::to_string(f_.tile_warps());
    if (f_.tile_stages() > 0) out_ += " stages " + std::to_string(f_.tile_stages());
    if (f_.tile_wgmma()) out_ += " wgmma";
    if (f_.host_target()) out_ += " host";
    if (f_.shared_bytes() > 0) out_ += " shared " + std::to_string(f_.shared_bytes());
    out_ += " {\n";
    region_body(f_.body(), 1);
    out_ += "}\n";
    return out_;
  }

 private:
  std::string name(ValueId v) {
    auto [it, inserted] = numbers_.try_emplace(v, static_cast<std::uint32_t>(numbers_.size()));
    return "%" + std::to_string(it->second);
  }

  void indent(int depth) { out_.append(static_cast<std::size_t>(depth) * 2, ' '); }

  static std::string float_text(double d) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", d);
    // Make sure a float constant never reads as an integer.
    if (!std::strpbrk(buf, ".eEni")) std::strcat(buf, ".0");
    return buf;
  }

  static std::string quoted(const std::string& text) {
    std::string q = "\"";
    for (char c : text) {
      if (c == '"' || c == '\\') q += '\\', q += c;
      else if (c == '\n') q += "\\n";
      else if (static_cast<unsigned char>(c) < 32) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
        q += buf;
      } else q += c;
    }
    return q + "\"";
  }

  /// Names for the integer attributes of ops whose attributes are enums.
  static std::string enum_attr(Opcode op, std::size_t index, std::int64_t v) {
    switch (op) {
      case Opcode::Cmp: return predicate_name(static_cast<Predicate>(v));
      case Opcode::Special: return special_reg_name(static_cast<SpecialReg>(v));
      case Opcode::Atomic:
        if (index == 0) return atomic_kind_name(static_cast<AtomicKind>(v));
        if (index == 1) return memory_scope_name(static_cast<MemoryScope>(v));
        return memory_order_name(static_cast<MemoryOrder>(v));
      case Opcode::Fence: return memory_scope_name(static_cast<MemoryScope>(v));
      case Opcode::Load:
      case Opcode::VecLoad:
        if (index == 0) return cache_hint_name(static_cast<CacheHint>(v));
        break;
      case Opcode::TileAtomic: return atomic_kind_name(static_cast<AtomicKind>(v));
      case Opcode::TileReduce:
        if (index == 0) {
          static const char* n[] = {"sum", "prod", "min", "max"};
          return n[v];
        }
        break;
      case Opcode::BarrierReduce: {
        static const char* n[] = {"count", "and", "or"};
        return n[v];
      }
      case Opcode::Shuffle: {
        static const char* n[] = {"idx", "up", "down", "xor"};
        return n[v];
      }
      case Opcode::Vote: {
        static const char* n[] = {"all", "any", "ballot"};
        return n[v];
      }
      case Opcode::Match: {
        static const char* n[] = {"any", "all"};
        return n[v];
      }
      case Opcode::Redux: {
        static const char* n[] = {"add", "min", "max", "and", "or", "xor"};
        return n[v];
      }
      case Opcode::Math: return math_fn_name(static_cast<MathFn>(v));
      default: break;
    }
    return std::to_string(v);
  }

  std::string attr_text(const Instruction& inst) {
    std::string s;
    for (const auto& a : inst.attrs) {
      s += " ";
      if (auto* i = std::get_if<std::int64_t>(&a)) {
        s += enum_attr(inst.op, static_cast<std::size_t>(&a - inst.attrs.data()), *i);
      } else if (auto* d = std::get_if<double>(&a)) {
        s += float_text(*d);
      } else if (auto* t = std::get_if<Type>(&a)) {
        s += t->str();
      } else if (auto* str = std::get_if<std::string>(&a)) {
        s += quoted(*str);
      }
    }
    return s;
  }

  /// The op's shared-memory buffers (allocate-shared): " smem(@offset bytes, ...)".
  static std::string shared_text(const Instruction& inst) {
    if (inst.shared.empty()) return {};
    std::string s = " smem(";
    for (std::size_t i = 0; i < inst.shared.size(); ++i)
      s += (i ? ", @" : "@") + std::to_string(inst.shared[i].offset) + " " + std::to_string(inst.shared[i].bytes);
    return s + ")";
  }

  void region_body(const Region& r, int depth) {
    for (InstId id : r.body) instruction(f_.inst(id), depth);
  }

  void region(const Region& r, int depth) {
    out_ += "{";
    if (!r.args.empty()) {
      out_ += " ^(";
      for (std::size_t i = 0; i < r.args.size(); ++i) {
        if (i) out_ += ", ";
        out_ += name(r.args[i]) + ": " + f_.type_of(r.args[i]).str();
      }
      out_ += ")";
    }
    out_ += "\n";
    region_body(r, depth + 1);
    indent(depth);
    out_ += "}";
  }

  void instruction(const Instruction& inst, int depth) {
    indent(depth);
    // Operands are named before results so that numbering follows data flow; results of
    // region ops are named after their regions, where they become visible.
    std::string ops;
    for (std::size_t i = 0; i < inst.operands.size(); ++i) ops += (i ? ", " : " ") + name(inst.operands[i]);
    std::string head = mnemonic(inst.op) + attr_text(inst) + ops;
    if (inst.regions.empty()) {
      std::string res;
      for (std::size_t i = 0; i < inst.results.size(); ++i) res += (i ? ", " : "") + name(inst.results[i]);
      if (!res.empty()) out_ += res + " = ";
      out_ += head;
      if (!inst.results.empty()) {
        out_ += " : ";
        for (std::size_t i = 0; i < inst.results.size(); ++i)
          out_ += (i ? ", " : "") + f_.type_of(inst.results[i]).str();
      }
      out_ += shared_text(inst);
    } else {
      std::string body;
      std::swap(body, out_);
      for (const auto& r : inst.regions) {
        out_ += " ";
        region(r, depth);
      }
      std::swap(body, out_);
      std::string res;
      for (std::size_t i = 0; i < inst.results.size(); ++i) res += (i ? ", " : "") + name(inst.results[i]);
      if (!res.empty()) out_ += res + " = ";
      out_ += head;
      if (!inst.results.empty()) {
        out_ += " ->";
        for (std::size_t i = 0; i < inst.results.size(); ++i)
          out_ += (i ? ", " : " ") + f_.type_of(inst.results[i]).str();
      }
      out_ += shared_text(inst);
      out_ += body;
    }
    if (locs_ && inst.loc.known()) {
      const char* base = std::strrchr(inst.loc.file, '/');
      out_ += "  // " + std::string(base ? base + 1 : inst.loc.file) + ":" + std::to_string(inst.loc.line);
    }
    out_ += "\n";
  }

  const Function& f_;
  bool locs_;
  std::string out_;
  std::unordered_map<ValueId, std::uint32_t> numbers_;
};

}  // namespace

std::string print(const Function& f, bool with_locations) { return Printer(f, with_locations).run(); }

}  // namespace cutlet::ir
