// Linker: nvJitLink over PTX, cubins, fatbins, LTO-IR and objects, to one cubin.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cutlet/runtime/object_code.h"

namespace cutlet {

/// How a Linker links.
struct LinkerOptions {
  /// The architecture to link for, e.g. "sm_90". Empty: default_arch() (device 0's, or sm_90
  /// without a driver).
  std::string arch;
  /// Link-time optimization over LTO-IR inputs (-lto); turned on automatically when an
  /// LTO-IR input is added.
  bool lto = false;
  /// Optimization level for PTX and LTO-IR compiled during the link (-O0 .. -O3); -1 passes
  /// none (nvJitLink's default, which is also the one that accepts PTX with line tables).
  int opt_level = 3;
  /// Ask nvJitLink for a verbose info log (register and memory use per kernel).
  bool verbose = false;
  /// Further nvJitLink options, passed as they are.
  std::vector<std::string> options;
};

/// Links GPU code from several sources into one cubin with nvJitLink (in the manner of
/// cuda.core's Linker): cutlet-generated PTX (CompiledKernel::ptx), PTX written by hand,
/// Programs compiled by NVRTC, cubins, fatbins and LTO-IR from nvcc. A call in one input to
/// a function defined in another (a PTX `.extern .func`, a CUDA C++ `extern __device__`
/// declaration) is resolved here; compile the callee as relocatable code
/// (ProgramOptions::relocatable, or LTO-IR). Linking needs no GPU.
class Linker {
 public:
  /// An empty linker.
  explicit Linker(LinkerOptions options = {});

  /// Adds `code` (any CodeKind); returns *this for chaining.
  Linker& add(const ObjectCode& code);
  /// Adds PTX text called `name`.
  Linker& add_ptx(std::string_view ptx, std::string name = "input.ptx");
  /// Adds a cubin.
  Linker& add_cubin(std::span<const char> cubin, std::string name = "input.cubin");
  /// Adds a fatbin.
  Linker& add_fatbin(std::span<const char> fatbin, std::string name = "input.fatbin");
  /// Adds LTO-IR (and turns on link-time optimization).
  Linker& add_ltoir(std::span<const char> ltoir, std::string name = "input.ltoir");

  /// Links the inputs into a cubin (ObjectCode of kind cubin, with nvJitLink's info log).
  /// Throws LinkError with nvJitLink's error log when linking fails (e.g. an undefined
  /// function, naming it), Error when there are no inputs.
  ObjectCode link() const;

  /// "13.0": the version of the nvJitLink library that links ("unknown" if it cannot say,
  /// "unavailable" if it does not open). nvJitLink is opened with dlopen when first used.
  static std::string version();
  /// The identity of the very nvJitLink build this process links with, which version()'s
  /// major.minor does not give (updates within a minor version change the code it makes):
  /// "gnu-build-id:<hex>", the GNU build id of the loaded library that holds nvJitLink (or
  /// of the binary it is linked into statically), read from its mapped ELF notes; without
  /// one, "file:<path>:<size>:<mtime in ns>" of that file; "unknown" when neither is found,
  /// "unavailable" when nvJitLink does not open.
  /// Computed once per process, without reading the library's contents.
  static std::string library_build_id();

  /// The number of inputs added.
  std::size_t input_count() const noexcept { return inputs_.size(); }
  /// The options nvJitLink gets.
  std::vector<std::string> nvjitlink_options() const;

 private:
  LinkerOptions options_;
  std::vector<ObjectCode> inputs_;
};

}  // namespace cutlet
