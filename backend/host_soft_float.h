// The compiler runtime's 16-bit float conversions that host code may call: LLVM emits calls to
// them where the CPU has no instruction for the conversion (float to bfloat16 without
// AVX512-BF16, float to and from half without F16C). cutlet defines them for its host JIT, so
// that kernels on the CPU device never depend on the C compiler's runtime having them (libgcc
// before GCC 13 has none of the bfloat16 ones).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace cutlet::backend {

/// The conversions by their compiler-runtime names (e.g. "__truncsfbf2"), with their
/// addresses: each rounds to nearest even with one rounding (also from double), keeps NaN a
/// quiet NaN, and passes 16-bit values as the platform's C ABI passes _Float16. Empty where
/// the host compiler has no _Float16.
const std::vector<std::pair<std::string, void*>>& host_soft_float_functions();

}  // namespace cutlet::backend
