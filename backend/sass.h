// Disassembling cubins with the CUDA toolkit's nvdisasm, for CUTLET_DUMP=sass.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cutlet::backend {

/// The executable `program` in the first directory of the PATH that has one; empty when none
/// does.
std::filesystem::path find_on_path(std::string_view program);

/// The SASS of `cubin` (kernel `kernel`'s) as `nvdisasm -c` prints it, read from a temporary
/// file. nullopt when nvdisasm is not on the PATH, which is reported once per process, or when
/// it fails, which is reported with its output's first line (warnings, see log.h).
std::optional<std::string> disassemble_for_dump(const std::vector<char>& cubin, const std::string& kernel);

}  // namespace cutlet::backend
