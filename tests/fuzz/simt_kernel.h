// A SimtProgram traced into a cutlet kernel.
#pragma once

#include <cstdint>
#include <memory>

#include <cutlet/cutlet.h>

#include "fuzz/simt_program.h"

namespace cutlet::fuzz {

/// The kernel lambda of a program: its parameters are the input buffers, the output
/// buffers (each in kBufferTypes order) and the accumulator buffers (kAccumulatorTypes
/// order); tracing it emits the program's statements with the kernel language.
struct SimtBody {
  std::shared_ptr<const SimtProgram> program;

  void operator()(Ptr<std::int8_t> in_i8, Ptr<std::int16_t> in_i16, Ptr<std::int32_t> in_i32, Ptr<std::int64_t> in_i64,
                  Ptr<std::uint8_t> in_u8, Ptr<std::uint16_t> in_u16, Ptr<std::uint32_t> in_u32, Ptr<std::uint64_t> in_u64,
                  Ptr<half> in_f16, Ptr<bfloat16> in_bf16, Ptr<float> in_f32, Ptr<double> in_f64,
                  Ptr<std::int8_t> out_i8, Ptr<std::int16_t> out_i16, Ptr<std::int32_t> out_i32, Ptr<std::int64_t> out_i64,
                  Ptr<std::uint8_t> out_u8, Ptr<std::uint16_t> out_u16, Ptr<std::uint32_t> out_u32,
                  Ptr<std::uint64_t> out_u64, Ptr<half> out_f16, Ptr<bfloat16> out_bf16, Ptr<float> out_f32,
                  Ptr<double> out_f64, Ptr<std::int32_t> acc_i32, Ptr<std::uint32_t> acc_u32, Ptr<std::int64_t> acc_i64,
                  Ptr<std::uint64_t> acc_u64) const;
};

using SimtKernel = Kernel<SimtBody>;

/// The kernel of `program`, named after its seed, with fma contraction off (so that every
/// float operation rounds once, as the host evaluator computes it).
SimtKernel make_simt_kernel(const SimtProgram& program);

}  // namespace cutlet::fuzz
