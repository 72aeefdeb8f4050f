// Program: CUDA C++ source compiled at run time by NVRTC to PTX, cubin or LTO-IR.
#pragma once

#include <string>
#include <vector>

#include "cutlet/runtime/object_code.h"

namespace cutlet {

/// How NVRTC compiles a Program.
struct ProgramOptions {
  /// The architecture, e.g. "sm_90" (cubin and LTO-IR are for exactly it; PTX runs on it and
  /// newer). Empty: the compute capability of device 0 when it is a GPU, else sm_90.
  std::string arch;
  /// The C++ dialect NVRTC compiles (e.g. "c++17", "c++20").
  std::string std = "c++17";
  /// Relocatable device code (-rdc=true): keeps non-static __device__ functions and variables
  /// visible, so that a Linker can resolve calls to them from other inputs (PTX .extern .func).
  /// LTO-IR output implies it.
  bool relocatable = false;
  bool debug = false;       ///< -G: device debug information (slow code).
  bool line_info = false;   ///< -lineinfo: source lines for profilers.
  bool fast_math = false;   ///< --use_fast_math.
  /// Directories searched by #include, after the toolkit's own include directory and its
  /// CCCL directory (so <cub/...>, <thrust/...>, <cuda/std/...> and <cuda/...> work).
  std::vector<std::string> include_dirs;
  /// Macro definitions, "NAME" or "NAME=value".
  std::vector<std::string> defines;
  /// Further NVRTC options, passed as they are.
  std::vector<std::string> options;
  /// C++ names (e.g. "my_kernel<float>", "&my_device_function") whose mangled names the
  /// result should carry in ObjectCode::lowered_names.
  std::vector<std::string> name_expressions;
};

/// CUDA C++ source, compiled by NVRTC (in the manner of cuda.core's Program). Compiling needs
/// no GPU. Kernels the source defines with extern "C" keep their names; for others, ask for
/// their mangled names through ProgramOptions::name_expressions.
class Program {
 public:
  /// The program `source`, called `name` in messages and #line directives.
  explicit Program(std::string source, ProgramOptions options = {},
                   std::string name = "cutlet_program.cu");

  /// Compiles to `kind`: CodeKind::ptx, CodeKind::cubin or CodeKind::ltoir (Error for
  /// others). Throws ProgramError carrying NVRTC's log (the compiler's errors with their
  /// lines) when the source does not compile.
  ObjectCode compile(CodeKind kind) const;

  /// The options NVRTC gets for `kind`, including the architecture and include directories.
  std::vector<std::string> nvrtc_options(CodeKind kind) const;
  /// The source.
  const std::string& source() const noexcept { return source_; }
  /// The name given to the program.
  const std::string& name() const noexcept { return name_; }

  /// NVRTC's version, "major.minor" (NVRTC is opened with dlopen when first used; a Program
  /// throws Error saying what to install where it does not open).
  static std::string nvrtc_version();
  /// The directories every Program searches first: the CUDA toolkit's include directory
  /// (CUDA_HOME/include or CUDA_PATH/include when set, else the one cutlet was built
  /// against) and its cccl subdirectory when present.
  static std::vector<std::string> toolkit_include_dirs();

 private:
  std::string source_;
  ProgramOptions options_;
  std::string name_;
};

/// The architecture "sm_XY" that Program and Linker use when none is given: device 0's when
/// a driver is present, else sm_90.
std::string default_arch();

}  // namespace cutlet
