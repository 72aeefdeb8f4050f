// Dumping compilation stages (IR, LLVM IR, PTX, resource use) for inspection.
#pragma once

#include <string>
#include <string_view>

namespace cutlet {

/// True when stage `stage` ("ir", "ir-after-<pass>", "llvm", "llvm-opt", "ptx",
/// "resources") should be dumped. Controlled by the environment variable CUTLET_DUMP, a
/// comma-separated list of stage names or "all" (read once per process), or by
/// set_dump_stages().
bool dump_enabled(std::string_view stage);

/// Replaces the CUTLET_DUMP setting for this process ("" turns dumping off).
void set_dump_stages(std::string stages);

/// Writes `text` for `stage` of kernel `kernel`: to stderr, or, when CUTLET_DUMP_DIR is set,
/// to the file <dir>/<kernel>.<stage>.txt.
void dump(std::string_view stage, std::string_view kernel, std::string_view text);

}  // namespace cutlet
