// Internal: conversions to and from the FP8 types (OCP E4M3 and E5M2) on the GPU's paired
// cvt instructions (sm_89 and later). FP8 values are i8 in LLVM IR; LLVM 19's NVPTX backend
// has no FP8 type or intrinsic, so the conversions are inline PTX, two lanes per instruction.
#pragma once

#include <llvm/IR/IRBuilder.h>

#include "cutlet/ir/type.h"

namespace cutlet::backend {

/// FP8 lanes (an i8 or a vector of i8 holding `from`, f8e4m3 or f8e5m2) to f16 of the same
/// shape, exactly (`cvt.rn.f16x2.e4m3x2`, `.e5m2x2`; with `host`, calls of host_math.h's
/// conversions).
llvm::Value* fp8_to_f16(llvm::IRBuilder<>& b, ir::Type from, llvm::Value* x, bool host);

/// f32 or f16 lanes (a scalar or a vector) to `to` (f8e4m3 or f8e5m2) as i8 lanes of the same
/// shape: rounded to nearest even, saturating to the largest finite value (infinities
/// included), NaN kept NaN (`cvt.rn.satfinite.e4m3x2.f32`, `.f16x2`; with `host`, calls of
/// host_math.h's conversions).
llvm::Value* to_fp8(llvm::IRBuilder<>& b, ir::Type to, llvm::Value* x, bool host);

/// The FP8 encoding of `v` in `t`, rounded once as the GPU's conversions round (for constants).
std::uint8_t fp8_constant_bits(ir::Type t, double v);

}  // namespace cutlet::backend
