// Dumping compilation stages (IR, LLVM IR, PTX, SASS, resource use) for inspection.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cutlet {

/// Every stage CUTLET_DUMP accepts, in the order a kernel goes through them: "ir" (the traced
/// IR), "ir-after-<pass>" for each pass of the default pipeline, "llvm", "llvm-opt", "ptx",
/// "sass" (the cubin disassembled by nvdisasm, when it is on the PATH), "resources"
/// (nvJitLink's report) and "recompiles" (why a Kernel compiled again). "all" selects every
/// one.
std::vector<std::string> dump_stage_names();

/// True when stage `stage` of kernel `kernel` is dumped: the stages set by the environment
/// variable CUTLET_DUMP (a comma-separated list of dump_stage_names(), or "all"; read once per
/// process) or by set_dump_stages() include it, and `kernel` passes the kernel filter
/// (set_dump_filter()). While CUTLET_DUMP names a stage that does not exist, every call
/// throws cutlet::Error naming it and listing the valid ones.
bool dump_enabled(std::string_view stage, std::string_view kernel);

/// Replaces the CUTLET_DUMP setting for this process ("" turns dumping off). Throws
/// cutlet::Error naming an unknown stage and listing the valid ones; the setting is then
/// unchanged.
void set_dump_stages(std::string stages);

/// Replaces the kernel filter, which the environment variable CUTLET_DUMP_FILTER sets (read
/// once per process): comma-separated patterns, a kernel being dumped when its name matches
/// one. A pattern with `*`, `?` or `[` is a shell glob matched against the whole name
/// ("tile_*"); another must occur in the name ("softmax"). "" dumps every kernel.
void set_dump_filter(std::string filter);

/// The part of dump file names that tells specializations apart: the low 32 bits of
/// `specialization` (a hash) as 8 hex digits.
std::string dump_tag(std::uint64_t specialization);

/// Writes `text` for stage `stage` of one specialization of kernel `kernel`, `specialization`
/// telling it from the kernel's others (dump_tag() of a hash, perhaps followed by the target):
/// to stderr under a header line, or, when the environment variable CUTLET_DUMP_DIR names a
/// directory (created when missing), to the file
/// <dir>/<kernel>.<specialization>.<stage>.txt, replacing an older one. A file that cannot be
/// written is reported (a warning, see log.h) and the text goes to stderr.
void dump(std::string_view stage, std::string_view kernel, std::string_view specialization, std::string_view text);

/// Writes `text` for stage `stage` of kernel `kernel` as a whole (as "recompiles" is): to
/// stderr, or appended to <dir>/<kernel>.<stage>.txt, which the process's first dump of that
/// stage and kernel starts afresh.
void dump(std::string_view stage, std::string_view kernel, std::string_view text);

}  // namespace cutlet
