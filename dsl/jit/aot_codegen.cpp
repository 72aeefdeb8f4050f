// The C++ written for an ahead-of-time export: a header of launch functions and a source with
// the images embedded as byte arrays and the launch functions packing their arguments.
#include <cstdio>
#include <string>
#include <vector>

#include "cutlet/error.h"
#include "cutlet/jit/aot_module.h"
#include "cutlet/version.h"

namespace cutlet::aot {
namespace {

/// `s` as a C++ string literal.
std::string quoted(const std::string& s) {
  std::string r = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", static_cast<unsigned char>(c));
      r += buf;
    } else {
      r += c;
    }
  }
  return r + "\"";
}

std::string sm_name(int sm) { return "sm_" + std::to_string(sm); }

/// The C++ type whose bytes are passed for `p`: the scalar, a buffer's 64-bit address, the
/// TensorArg, the struct.
std::string packed_type_name(const ParamSpec& p) {
  switch (p.kind) {
    case ParamKind::Scalar: return p.cpp_type;
    case ParamKind::Buffer: return "std::uint64_t";
    case ParamKind::Tensor: return "cutlet::TensorArg<" + p.cpp_type + ", " + std::to_string(p.rank) + ">";
    case ParamKind::Struct: return p.cpp_type;
    case ParamKind::Const: break;
  }
  return {};
}

/// The C++ type the launch function takes for `p`.
std::string param_type(const ParamSpec& p) {
  switch (p.kind) {
    case ParamKind::Scalar: return p.cpp_type;
    case ParamKind::Buffer: return "const cutlet::Buffer<" + p.cpp_type + ">&";
    case ParamKind::Tensor: return "const " + packed_type_name(p) + "&";
    case ParamKind::Struct: return "const " + p.cpp_type + "&";
    case ParamKind::Const: break;
  }
  return {};
}

/// "void f(const cutlet::Stream& stream, ...)" wrapped at 110 columns.
std::string signature(const std::string& result, const KernelSpec& k) {
  std::vector<std::string> parts = {"const cutlet::Stream& stream", "const cutlet::LaunchConfig& config"};
  for (const ParamSpec& p : k.params)
    if (p.kind != ParamKind::Const) parts.push_back(param_type(p) + " " + p.name);
  const std::string head = result + " " + k.function + "(";
  std::string r = head, line = head;
  const std::string indent(4, ' ');
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string piece = parts[i] + (i + 1 < parts.size() ? "," : ")");
    if (line.size() + piece.size() + 1 > 110 && line != head) {
      r += "\n" + indent;
      line = indent;
    } else if (line != head) {
      r += " ";
      line += " ";
    }
    r += piece;
    line += piece;
  }
  return r;
}

std::string images_text(const KernelSpec& k) {
  std::string cubins, ptx;
  for (const ImageSpec& i : k.images) {
    std::string& list = i.kind == ImageKind::cubin ? cubins : ptx;
    list += (list.empty() ? "" : ", ") + sm_name(i.sm);
  }
  std::string r;
  if (!cubins.empty()) r = "cubins for " + cubins;
  if (!ptx.empty()) r += (r.empty() ? "" : "; ") + std::string("PTX for ") + ptx + " and newer (the driver compiles it)";
  return r;
}

/// `s` with its spaces marked as places a comment must not be wrapped at.
std::string unbreakable(std::string s) {
  for (char& c : s)
    if (c == ' ') c = '\x01';
  return s;
}

/// `text` as /// comment lines of at most 100 columns, wrapped at spaces (not at unbreakable ones).
std::string comment(const std::string& text) {
  std::string r, line = "///";
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(at, end - at);
    if (line.size() + 1 + word.size() > 100 && line != "///") {
      r += line + "\n";
      line = "///";
    }
    line += " " + word;
    at = end + 1;
  }
  r += line + "\n";
  for (char& c : r)
    if (c == '\x01') c = ' ';
  return r;
}

/// The documentation comment of k's launch function.
std::string doc_comment(const KernelSpec& k) {
  std::vector<std::string> lines;
  std::string params;
  for (const ParamSpec& p : k.params)
    params += (params.empty() ? "" : ", ") +
              unbreakable(p.label + " " + p.name + (p.kind == ParamKind::Const ? " = " + p.value : ""));
  lines.push_back("Launches kernel '" + k.kernel + "' (defined at " + k.defined_at + ") specialized for (" + params +
                  ") on `stream` with `config`, as Kernel::launch would.");
  if (k.tile_warps > 0)
    lines.push_back("A tile kernel of " + std::to_string(k.tile_warps) + " warps: every block has " +
                    std::to_string(32 * k.tile_warps) + " threads; give only the grid (and any extra shared_bytes).");
  if (!k.grid_sync_at.empty())
    lines.push_back("It calls grid_sync() (at " + k.grid_sync_at + "): launch it with config.cooperative = true.");
  for (const ParamSpec& p : k.params) {
    if (p.kind != ParamKind::Tensor) continue;
    const std::uint64_t needed = missing_tensor_facts(p.facts, 0, p.rank);
    if (needed == 0) continue;
    std::string facts = unbreakable(tensor_facts_list(needed, p.rank));  // breaks between facts only
    for (std::size_t at = facts.find(",\x01"); at != std::string::npos; at = facts.find(",\x01", at)) facts[++at] = ' ';
    lines.push_back("Tensor `" + p.name + "` must have " + facts +
                    " (the facts this code assumes; others throw cutlet::Error).");
  }
  lines.push_back("Code: " + images_text(k) + ".");
  lines.push_back(
      "Throws cutlet::Error for an empty Buffer or one of 2^31 elements or more, a device none of the code runs on, "
      "and the launch errors of cutlet::launch (which names config.where).");
  std::string r;
  for (const std::string& text : lines) r += comment(text);
  return r;
}

std::string image_array_name(const KernelSpec& k, const ImageSpec& i) {
  return k.function + "_" + sm_name(i.sm) + (i.kind == ImageKind::cubin ? "_cubin" : "_ptx");
}

/// `bytes` (and a NUL after them when `nul`) as the initializer of an unsigned char array.
std::string byte_rows(const std::vector<char>& bytes, bool nul) {
  static const char* digits = "0123456789abcdef";
  std::string r;
  r.reserve(bytes.size() * 6 + 64);
  const std::size_t n = bytes.size() + (nul ? 1 : 0);
  for (std::size_t i = 0; i < n; ++i) {
    const auto b = static_cast<unsigned char>(i < bytes.size() ? bytes[i] : 0);
    r += (i % 16 == 0) ? "\n    " : " ";
    r += "0x";
    r += digits[b >> 4];
    r += digits[b & 15];
    r += ',';
  }
  return r + "\n";
}

std::string image_arrays(const KernelSpec& k) {
  std::string r;
  for (const ImageSpec& i : k.images) {
    const bool ptx = i.kind == ImageKind::ptx;
    const std::size_t size = i.bytes.size() + (ptx ? 1 : 0);
    r += "// " + k.function + ": " + (ptx ? "PTX for " + sm_name(i.sm) + " and newer" : sm_name(i.sm) + " cubin") +
         ", " + std::to_string(size) + " bytes" +
         (i.registers >= 0 ? ", " + std::to_string(i.registers) + " registers" : std::string()) +
         (i.dynamic_shared_bytes > 0 ? ", " + std::to_string(i.dynamic_shared_bytes) + " bytes of its own dynamic shared memory"
                                     : std::string()) +
         ".\n";
    r += "alignas(64) const unsigned char " + image_array_name(k, i) + "[" + std::to_string(size) + "] = {" +
         byte_rows(i.bytes, ptx) + "};\n";
  }
  r += "const cutlet::aot::Image " + k.function + "_images[] = {\n";
  for (const ImageSpec& i : k.images) {
    const std::string array = image_array_name(k, i);
    r += std::string("    {cutlet::aot::ImageKind::") + (i.kind == ImageKind::cubin ? "cubin" : "ptx") + ", " +
         std::to_string(i.sm) + ", " + array + ", sizeof " + array + ", " + std::to_string(i.dynamic_shared_bytes) +
         "},\n";
  }
  r += "};\n";
  return r;
}

std::string info_definition(const ModuleSpec& m, const KernelSpec& k) {
  return "const cutlet::aot::KernelInfo " + k.function + "_info{" + quoted(m.name + "::" + k.function) + ", " +
         quoted(k.kernel) + ", " + k.function + "_images, " + std::to_string(32 * k.tile_warps) + ", " +
         (k.grid_sync_at.empty() ? std::string("nullptr") : quoted(k.grid_sync_at)) + "};\n";
}

/// The body of k's launch function: layout checks, argument checks, packing, the launch.
std::string launch_body(const ModuleSpec& m, const KernelSpec& k) {
  std::string asserts, checks, pointers;
  std::size_t argument = 0;  // the position among the launch function's arguments (not counting stream, config)
  int packed = 0;
  for (const ParamSpec& p : k.params) {
    if (p.kind == ParamKind::Const) continue;
    const std::string type = packed_type_name(p);
    asserts += "  static_assert(sizeof(" + type + ") == " + std::to_string(p.size) + " && alignof(" + type +
               ") == " + std::to_string(p.align) + ",\n                " +
               quoted(m.name + "::" + k.function + ": parameter '" + p.name + "' (" + p.label +
                      ") is laid out otherwise than in the exported specialization; export the kernels again") +
               ");\n";
    const std::string index = std::to_string(argument);
    const std::string local = "cutlet_arg" + std::to_string(packed++);
    switch (p.kind) {
      case ParamKind::Scalar:
        pointers += "&" + p.name;
        break;
      case ParamKind::Buffer:
        checks += "  std::uint64_t " + local + " = cutlet::aot::buffer_argument(cutlet_kernel, config, " + index +
                  ", " + p.name + ");\n";
        pointers += "&" + local;
        break;
      case ParamKind::Tensor:
        checks += "  cutlet::aot::check_tensor_argument(cutlet_kernel, config, " + index + ", " +
                  std::to_string(p.facts) + "u, " + p.name + ");\n";
        checks += "  " + type + " " + local + " = " + p.name + ";\n";
        pointers += "&" + local;
        break;
      case ParamKind::Struct:
        checks += "  " + type + " " + local + " = " + p.name + ";\n";
        pointers += "&" + local;
        break;
      case ParamKind::Const: break;
    }
    pointers += ", ";
    ++argument;
  }
  std::string r = asserts;
  r += "  cutlet::aot::ExportedKernel& cutlet_kernel = " + k.function + "_kernel();\n";
  r += checks;
  r += "  void* cutlet_args[] = {" + pointers + "nullptr};\n";
  r += "  cutlet_kernel.launch(stream, config, cutlet_args);\n";
  return r;
}

/// check_module(m), and that every specialization has images.
void check_complete(const ModuleSpec& m) {
  check_module(m);
  for (const KernelSpec& k : m.kernels)
    if (k.images.empty())
      throw Error("cutlet::aot: function '" + k.function + "' (kernel '" + k.kernel +
                  "') has no compiled images; Exporter::build() compiles them");
}

std::string generated_by(const std::string& file) {
  return "// " + file + ": generated by cutlet::aot::Exporter (cutlet " + CUTLET_VERSION_STRING +
         "); do not edit, export again.\n";
}

}  // namespace

std::string cpp_scalar_type(ir::Type t) {
  switch (t.scalar_kind()) {
    case ir::ScalarKind::I1: return "bool";
    case ir::ScalarKind::I8: return "std::int8_t";
    case ir::ScalarKind::I16: return "std::int16_t";
    case ir::ScalarKind::I32: return "std::int32_t";
    case ir::ScalarKind::I64: return "std::int64_t";
    case ir::ScalarKind::U8: return "std::uint8_t";
    case ir::ScalarKind::U16: return "std::uint16_t";
    case ir::ScalarKind::U32: return "std::uint32_t";
    case ir::ScalarKind::U64: return "std::uint64_t";
    case ir::ScalarKind::F16: return "cutlet::half";
    case ir::ScalarKind::BF16: return "cutlet::bfloat16";
    case ir::ScalarKind::F32: return "float";
    case ir::ScalarKind::F64: return "double";
    case ir::ScalarKind::F8E4M3: return "cutlet::float8_e4m3";
    case ir::ScalarKind::F8E5M2: return "cutlet::float8_e5m2";
  }
  throw InternalError("cutlet::aot: no C++ type for IR type " + t.str());
}

std::string generate_header(const ModuleSpec& m) {
  check_complete(m);
  std::string r = generated_by(m.name + ".h");
  r += "// The launch functions of kernels compiled ahead of time. Their code is embedded in " + m.name +
       ".cpp;\n// both need only cutlet's runtime library (cutlet::runtime): no LLVM, no nvJitLink.\n";
  r += "#pragma once\n\n#include <cstdint>\n\n#include <cutlet/runtime/aot_kernel.h>\n";
  if (!m.includes.empty()) {
    r += "\n";
    for (const std::string& h : m.includes) r += "#include " + quoted(h) + "\n";
  }
  r += "\nnamespace " + m.name + " {\n";
  for (const KernelSpec& k : m.kernels) {
    r += "\n" + doc_comment(k) + signature("void", k) + ";\n";
    r += comment("The code behind " + k.function +
                 "(), loaded on each device at its first launch there (e.g. function(device).attributes()).");
    r += "cutlet::aot::ExportedKernel& " + k.function + "_kernel();\n";
  }
  r += "\n}  // namespace " + m.name + "\n";
  return r;
}

std::string generate_source(const ModuleSpec& m) {
  check_complete(m);
  std::string r = generated_by(m.name + ".cpp");
  r += "#include " + quoted(m.name + ".h") + "\n\n#include <cutlet/version.h>\n\n";
  r += "static_assert(CUTLET_VERSION_MAJOR == " + std::to_string(CUTLET_VERSION_MAJOR) +
       " && CUTLET_VERSION_MINOR == " + std::to_string(CUTLET_VERSION_MINOR) + ",\n              " +
       quoted(m.name + ".cpp was generated by cutlet " + CUTLET_VERSION_STRING +
              ", whose cutlet::aot types another minor version may change: export the kernels again") +
       ");\n\n";
  r += "namespace " + m.name + " {\nnamespace {\n\n";
  for (const KernelSpec& k : m.kernels) r += image_arrays(k) + info_definition(m, k) + "\n";
  r += "}  // namespace\n";
  for (const KernelSpec& k : m.kernels) {
    r += "\ncutlet::aot::ExportedKernel& " + k.function + "_kernel() {\n";
    r += "  // Never destroyed: the code stays loaded until the process exits, as JIT kernels' does.\n";
    r += "  static auto* kernel = new cutlet::aot::ExportedKernel(" + k.function + "_info);\n";
    r += "  return *kernel;\n}\n";
    r += "\n" + signature("void", k) + " {\n" + launch_body(m, k) + "}\n";
  }
  r += "\n}  // namespace " + m.name + "\n";
  return r;
}

}  // namespace cutlet::aot
