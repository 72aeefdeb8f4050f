// printf and assert from kernels.
#pragma once

#include <source_location>
#include <string>

#include "cutlet/language/value.h"

namespace cutlet {

/// printf from every thread that reaches it (CUDA's device printf): `format` is a C format
/// string, `args` traced values or host numbers (f32 is printed as a double, as in C).
/// Output appears when the host synchronizes; the driver's buffer holds about 1 MB.
template <class... Args>
void print(const char* format, const Args&... args) {
  auto& b = detail::builder("cutlet::print");
  ir::ValueId ids[sizeof...(Args) + 1] = {[&] {
    if constexpr (Traced<Args>) return detail::as_value(args).id();
    else return detail::constant<detail::canonical_scalar_t<Args>>(args);
  }()...};
  b.print(format, std::span<const ir::ValueId>(ids, sizeof...(Args)));
}

/// Device-side assertion (CUDA's assert): where `cond` is false the kernel stops, the
/// driver prints "Assertion `message` failed" with the user's file and line, and the
/// stream's next synchronization (and any later launch in the process) raises a CudaError
/// (CUDA_ERROR_ASSERT). As in CUDA, the context cannot be used after that.
inline void assert_(const Value<bool>& cond, const std::string& message,
                    std::source_location where = std::source_location::current()) {
  detail::set_location(where);
  detail::builder("cutlet::assert_").assert_(cond.id(), message, where.file_name(), where.line());
}

}  // namespace cutlet
