// The names kernels and device functions may have: PTX identifiers.
#pragma once

#include <source_location>
#include <string>
#include <string_view>

namespace cutlet::detail {

/// `name` with every character a symbol cannot hold replaced by `_` (and `_` put in front of a
/// leading digit): the spelling an error suggests.
std::string symbol_name_like(std::string_view name);

/// Throws cutlet::Error when `name` is not a symbol name (ir::is_symbol_name); `what` is "kernel" or "device
/// function", `defined` where it was made. The message suggests symbol_name_like(name).
void check_symbol_name(const std::string& name, const char* what, const std::source_location& defined);

}  // namespace cutlet::detail
