// Whether an export can be written as C++: identifiers, collisions, struct names.
#include <cctype>
#include <set>
#include <string>
#include <string_view>

#include "cutlet/error.h"
#include "cutlet/jit/aot_module.h"

namespace cutlet::aot {
namespace {

constexpr std::string_view kKeywords[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch",
    "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr",
    "constinit", "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete",
    "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
    "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
    "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast",
    "requires", "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
    "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename",
    "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq", "final",
    "override", "import", "module"};

/// Why `name` cannot be a name of the generated code, or "" when it can.
std::string identifier_problem(const std::string& name) {
  if (name.empty()) return "it is empty";
  if (!std::isalpha(static_cast<unsigned char>(name[0])))
    return "it does not start with a letter";
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return "it has a '" + std::string(1, c) + "'";
  if (name.find("__") != std::string::npos) return "it has a double underscore (reserved in C++)";
  for (std::string_view k : kKeywords)
    if (name == k) return "it is a C++ keyword";
  return {};
}

void check_identifier(const std::string& what, const std::string& name) {
  const std::string problem = identifier_problem(name);
  if (!problem.empty())
    throw Error("cutlet::aot::Exporter: " + what + " '" + name + "' cannot name generated C++: " + problem +
                "; use a letter, then letters, digits and single underscores");
}

}  // namespace

void check_module(const ModuleSpec& module) {
  check_identifier("the module name", module.name);
  if (module.name == "cutlet" || module.name == "std")
    throw Error("cutlet::aot::Exporter: the module name '" + module.name +
                "' is a namespace of its own already; name the module after your kernels");
  if (module.kernels.empty())
    throw Error("cutlet::aot::Exporter '" + module.name + "' has nothing to export; add() specializations first");
  std::set<std::string> taken;  // the names the generated code declares in the module's namespace
  for (const KernelSpec& k : module.kernels) {
    const std::string where = "function '" + k.function + "' (kernel '" + k.kernel + "')";
    check_identifier("the function name", k.function);
    for (const std::string& name : {k.function, k.function + "_kernel", k.function + "_images", k.function + "_info"})
      if (!taken.insert(name).second)
        throw Error("cutlet::aot::Exporter '" + module.name + "': two specializations would declare '" + name +
                    "' (each function also declares <function>_kernel(), <function>_images and <function>_info); "
                    "give them other names");
    for (const KernelSpec& other : module.kernels)
      if (other.function.rfind(k.function + "_sm_", 0) == 0)
        throw Error("cutlet::aot::Exporter '" + module.name + "': function '" + other.function +
                    "' would collide with the image arrays of '" + k.function + "' (<function>_sm_<arch>_cubin); "
                    "give it another name");
    std::set<std::string> params;
    for (const ParamSpec& p : k.params) {
      check_identifier("parameter name", p.name);
      if (p.name == "stream" || p.name == "config" || p.name.rfind("cutlet", 0) == 0)
        throw Error("cutlet::aot::Exporter: " + where + ": the parameter name '" + p.name +
                    "' is taken by the generated code (stream, config, cutlet...); choose another");
      if (!params.insert(p.name).second)
        throw Error("cutlet::aot::Exporter: " + where + " has two parameters named '" + p.name + "'");
      if (p.kind == ParamKind::Struct &&
          (p.cpp_type.find('(') != std::string::npos || p.cpp_type.find('{') != std::string::npos))
        throw Error("cutlet::aot::Exporter: " + where + ": parameter '" + p.name + "' is a " + p.cpp_type +
                    ", which other files cannot name; declare the struct at namespace scope (not local, not in an "
                    "anonymous namespace) in a header, and add that header with "
                    "Exporter::include()");
    }
  }
}

}  // namespace cutlet::aot
