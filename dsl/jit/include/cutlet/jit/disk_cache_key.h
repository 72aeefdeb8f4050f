// The persistent kernel cache's key: everything that determines a compiled kernel's code.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cutlet/backend/compiler.h"

namespace cutlet {

/// The version of the cutlet library running, as "0.2.0" (CUTLET_VERSION_STRING of its build;
/// the macro in a program's own code is the version of the headers it was compiled with).
std::string cutlet_version();

/// Every field of `options` as (name, value) text, e.g. ("opt_level", "3"),
/// ("fma_contraction", "true"); the target is listed as "arch" and "ptx_version". A field
/// added to CompileOptions without being listed here fails cutlet's build.
std::vector<std::pair<std::string, std::string>> compile_option_fields(const CompileOptions& options);

/// The key of one compiled kernel in the persistent cache: the structural hash of its IR
/// after the IR passes, its name, the target, every compile option, the versions of cutlet
/// (with the compiler's build id, which covers its sources and the libdevice of its build),
/// LLVM and nvJitLink, the build of the nvJitLink library loaded, plus the content hashes of
/// any extra inputs linked with it.
/// The kernel lambda's C++ type is not part of it (it differs between builds); two programs
/// whose kernels trace to the same IR share entries.
struct DiskCacheKey {
  std::uint64_t ir_hash = 0;       ///< ir::structural_hash of the IR
  std::string kernel_name;         ///< the PTX entry point
  std::string arch;                ///< "sm_90"
  int ptx_version = 0;             ///< the PTX ISA version LLVM writes, e.g. 80
  std::vector<std::pair<std::string, std::string>> options;  ///< compile_option_fields, less the target
  std::string cutlet_version;      ///< cutlet_version() + "+" + compiler_build_id()
  std::string llvm_version;        ///< llvm_version()
  std::string nvjitlink_version;   ///< nvjitlink_version()
  std::string nvjitlink_build;     ///< nvjitlink_build_id(): the very library, not just its version
  std::string libdevice;           ///< libdevice_build_id(): the math library kernels link
  std::vector<std::uint64_t> extra_inputs;  ///< content hashes of extra linked inputs, in link order

  /// The key of IR with structural hash `ir_hash` and entry point `kernel_name`, compiled
  /// with `options` by this build (its cutlet, LLVM and nvJitLink versions and builds, and the
  /// libdevice it links: see
  /// detail::compiler_identity).
  static DiskCacheKey make(std::uint64_t ir_hash, const std::string& kernel_name, const CompileOptions& options,
                           std::vector<std::uint64_t> extra_inputs = {});

  /// The canonical text of the key, one "name=value" line per part. Entries store it and a
  /// lookup compares it in full, so two keys share an entry only when every part is equal.
  std::string text() const;
  /// Reads text() back (for listing entries); parts it does not know are kept in `options`
  /// as they are. Throws Error for text that is not a key.
  static DiskCacheKey parse(const std::string& text);
  /// The entry's file name stem: 32 hex digits, two independent 64-bit hashes of text().
  std::string file_stem() const;

  bool operator==(const DiskCacheKey&) const = default;
};

namespace detail {
/// The tools that compile kernels, as keys record them.
struct CompilerIdentity {
  std::string cutlet;           ///< cutlet_version() + "+" + compiler_build_id()
  std::string llvm;             ///< llvm_version()
  std::string nvjitlink;        ///< nvjitlink_version()
  std::string nvjitlink_build;  ///< nvjitlink_build_id()
  std::string libdevice;        ///< libdevice_build_id()
};
/// This process's tools, found once (on the first call).
const CompilerIdentity& compiler_identity();
/// DiskCacheKey::make for kernels compiled by `tools` (DiskCacheKey::make passes
/// compiler_identity()).
DiskCacheKey make_disk_cache_key(std::uint64_t ir_hash, const std::string& kernel_name, const CompileOptions& options,
                                 std::vector<std::uint64_t> extra_inputs, const CompilerIdentity& tools);

/// `s` on one line: newlines as `\n`, backslashes doubled (keys and tuning records).
std::string one_line(const std::string& s);
/// A 64-bit checksum of `bytes`: cutlet::Hasher (cutlet/ir/hash.h, the one hasher) over `seed`
/// and the bytes (not cryptographic; the same in every process).
std::uint64_t checksum64(std::string_view bytes, std::uint64_t seed = 0);
/// `v` as 16 lowercase hex digits.
std::string hex64(std::uint64_t v);
}  // namespace detail

}  // namespace cutlet
