// Compiled or linked GPU code as bytes, tagged with its kind: what Program makes and Linker takes.
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cutlet/error.h"

namespace cutlet {

/// NVRTC could not compile a Program; what() names the program and the architecture and
/// carries NVRTC's log (the compiler's messages with file and line).
class ProgramError : public Error {
 public:
  using Error::Error;
};

/// nvJitLink could not link a Linker's inputs; what() carries nvJitLink's error log (e.g.
/// the name of an undefined function).
class LinkError : public Error {
 public:
  using Error::Error;
};

/// The kinds of GPU code cutlet compiles, links and loads.
enum class CodeKind {
  ptx,      ///< PTX assembly text.
  cubin,    ///< A cubin: SASS for one architecture (ELF).
  ltoir,    ///< NVVM IR for link-time optimization (nvcc -dlto, NVRTC -dlto).
  fatbin,   ///< A fat binary holding cubins and/or PTX for several architectures.
  object,   ///< A host object file with embedded device code (nvcc -c -rdc).
  library,  ///< A host static library of such objects.
};

/// The name of `kind`, e.g. "PTX", "cubin", "LTO-IR".
const char* to_string(CodeKind kind) noexcept;

/// GPU code of one kind: the bytes, a name for messages and linker inputs, the log of the
/// tool that made it, and the lowered (mangled) names of the name expressions a Program was
/// asked about.
struct ObjectCode {
  CodeKind kind = CodeKind::ptx;  ///< What the bytes are.
  std::vector<char> data;         ///< The code; PTX without a terminating NUL.
  std::string name;               ///< E.g. "saxpy.cu" or "linked.cubin".
  std::string log;                ///< The compiler's or linker's log (warnings, resource use).
  std::map<std::string, std::string> lowered_names;  ///< Name expression -> mangled name.

  /// The bytes as a span, e.g. for Module::load.
  std::span<const char> bytes() const noexcept { return {data.data(), data.size()}; }
  /// The bytes as text (for PTX).
  std::string_view text() const noexcept { return {data.data(), data.size()}; }
  /// The mangled name of `expression` (one of ProgramOptions::name_expressions); throws
  /// Error naming the known expressions when it is not one of them.
  const std::string& lowered_name(const std::string& expression) const;
};

}  // namespace cutlet
