// Multiply-adds of 16-bit floats in host code, contracted as a GPU contracts them.
#pragma once

namespace llvm {
class Module;
}

namespace cutlet::backend {

/// Replaces each `a * b + c` and `a * b - c` (`c - a * b`) of half or bfloat16 values, scalar
/// or vector, whose product has no other use, with one fused multiply-add (llvm.fma): what
/// the GPU computes with `fma.rn.f16` / `fma.rn.bf16` when FMA contraction is on. LLVM's code
/// generator contracts only types the CPU computes natively, so without this a CPU without
/// 16-bit float arithmetic (x86-64 before AVX512-FP16) would round the product first.
void contract_narrow_float_multiply_adds(llvm::Module& m);

}  // namespace cutlet::backend
