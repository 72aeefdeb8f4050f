// Hand-written PTX kernels that the runtime tests load and launch (no compiler involved).
#pragma once

namespace cutlet::test {

/// Three kernels, for PTX ISA 8.0 / sm_80 (the driver compiles them for the actual GPU):
///  - write42(u32* out, u32 n): out[i] = 42 + i for every global thread index i < n.
///  - reverse_through_shared(u32* out, u32 offset_words): with the block's dynamic shared
///    memory viewed as u32 words s[], thread t stores s[offset_words + t] = 3 * t, waits for
///    the block, then writes out[t] = s[offset_words + ntid - 1 - t] (one block only).
///  - empty_kernel(): does nothing (to measure launch overhead).
inline constexpr const char* kTestPtx = R"(
.version 8.0
.target sm_80
.address_size 64

.visible .entry write42(
    .param .u64 write42_out,
    .param .u32 write42_n
)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;

    ld.param.u64 %rd1, [write42_out];
    ld.param.u32 %r1, [write42_n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r5, 4;
    add.s64 %rd2, %rd2, %rd3;
    add.s32 %r6, %r5, 42;
    st.global.u32 [%rd2], %r6;
DONE:
    ret;
}

.extern .shared .align 4 .b8 dyn_smem[];

.visible .entry reverse_through_shared(
    .param .u64 rev_out,
    .param .u32 rev_offset_words
)
{
    .reg .b32 %r<12>;
    .reg .b64 %rd<8>;

    ld.param.u64 %rd1, [rev_out];
    ld.param.u32 %r1, [rev_offset_words];
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, dyn_smem;
    add.s32 %r5, %r1, %r2;
    shl.b32 %r5, %r5, 2;
    add.s32 %r5, %r4, %r5;
    mul.lo.s32 %r6, %r2, 3;
    st.shared.u32 [%r5], %r6;
    bar.sync 0;
    sub.s32 %r7, %r3, 1;
    sub.s32 %r7, %r7, %r2;
    add.s32 %r8, %r1, %r7;
    shl.b32 %r8, %r8, 2;
    add.s32 %r8, %r4, %r8;
    ld.shared.u32 %r9, [%r8];
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd2, %rd2, %rd3;
    st.global.u32 [%rd2], %r9;
    ret;
}

.visible .entry empty_kernel()
{
    ret;
}
)";

/// Records the SM each block runs on, for PTX ISA 8.0 / sm_80:
///  - record_smid(u32* out, u32 spin_cycles): thread 0 of block b writes %smid to out[b],
///    then every thread spins for about `spin_cycles` clock cycles, so that the blocks of a
///    large grid are resident together and spread over every SM they may use.
inline constexpr const char* kSmidPtx = R"(
.version 8.0
.target sm_80
.address_size 64

.visible .entry record_smid(
    .param .u64 smid_out,
    .param .u32 smid_spin
)
{
    .reg .pred %p<3>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<8>;

    ld.param.u64 %rd1, [smid_out];
    ld.param.u32 %r1, [smid_spin];
    mov.u32 %r2, %tid.x;
    setp.ne.u32 %p1, %r2, 0;
    @%p1 bra SPIN;
    mov.u32 %r3, %smid;
    mov.u32 %r4, %ctaid.x;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r4, 4;
    add.s64 %rd2, %rd2, %rd3;
    st.global.u32 [%rd2], %r3;
SPIN:
    mov.u64 %rd4, %clock64;
    cvt.u64.u32 %rd5, %r1;
    add.s64 %rd5, %rd4, %rd5;
LOOP:
    mov.u64 %rd6, %clock64;
    setp.lt.u64 %p2, %rd6, %rd5;
    @%p2 bra LOOP;
    ret;
}
)";

/// Kernels that need sm_90 (PTX ISA 8.0 / sm_90):
///  - cluster_rank(u32* out): block b writes 1000 * %cluster_nctarank + 100 * %cluster_nctaid.x
///    + %cluster_ctarank to out[b] (1-D grids).
///  - pdl_double(u32* in, u32* out, u32 n): waits for the kernel it depends on
///    (griddepcontrol.wait), then out[i] = 2 * in[i] for i < n.
inline constexpr const char* kSm90Ptx = R"(
.version 8.0
.target sm_90
.address_size 64

.visible .entry cluster_rank(
    .param .u64 cr_out
)
{
    .reg .b32 %r<10>;
    .reg .b64 %rd<4>;

    ld.param.u64 %rd1, [cr_out];
    mov.u32 %r2, %cluster_nctarank;
    mov.u32 %r3, %cluster_ctarank;
    mov.u32 %r4, %cluster_nctaid.x;
    mul.lo.u32 %r5, %r2, 1000;
    mad.lo.u32 %r5, %r4, 100, %r5;
    add.u32 %r5, %r5, %r3;
    mov.u32 %r6, %ctaid.x;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r6, 4;
    add.s64 %rd2, %rd2, %rd3;
    st.global.u32 [%rd2], %r5;
    ret;
}

.visible .entry pdl_double(
    .param .u64 pd_in,
    .param .u64 pd_out,
    .param .u32 pd_n
)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;

    griddepcontrol.wait;
    ld.param.u64 %rd1, [pd_in];
    ld.param.u64 %rd2, [pd_out];
    ld.param.u32 %r1, [pd_n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra PD_DONE;
    cvta.to.global.u64 %rd3, %rd1;
    cvta.to.global.u64 %rd4, %rd2;
    mul.wide.u32 %rd5, %r5, 4;
    add.s64 %rd3, %rd3, %rd5;
    add.s64 %rd4, %rd4, %rd5;
    ld.global.u32 %r6, [%rd3];
    shl.b32 %r6, %r6, 1;
    st.global.u32 [%rd4], %r6;
PD_DONE:
    ret;
}
)";

/// A kernel that calls a device function defined elsewhere, to be linked by a Linker:
///  - call_add_seven(u32* out, u32 n): out[i] = add_seven(i) for i < n, where
///    `extern "C" __device__ int add_seven(int)` comes from another input.
inline constexpr const char* kCallerPtx = R"(
.version 8.0
.target sm_80
.address_size 64

.extern .func (.param .b32 func_retval0) add_seven(.param .b32 add_seven_x);

.visible .entry call_add_seven(
    .param .u64 cas_out,
    .param .u32 cas_n
)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;

    ld.param.u64 %rd1, [cas_out];
    ld.param.u32 %r1, [cas_n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra CAS_DONE;
    {
        .param .b32 param0;
        st.param.b32 [param0], %r5;
        .param .b32 retval0;
        call.uni (retval0), add_seven, (param0);
        ld.param.b32 %r6, [retval0];
    }
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r5, 4;
    add.s64 %rd2, %rd2, %rd3;
    st.global.u32 [%rd2], %r6;
CAS_DONE:
    ret;
}
)";

/// A device function for CUDA C++ kernels to call, to be linked by a Linker:
///  - times_three(x) = 3 * x, declared in CUDA C++ as `extern "C" __device__ int times_three(int)`.
inline constexpr const char* kTimesThreePtx = R"(
.version 8.0
.target sm_80
.address_size 64

.visible .func (.param .b32 tt_ret) times_three(.param .b32 tt_x)
{
    .reg .b32 %r<3>;
    ld.param.b32 %r1, [tt_x];
    mul.lo.s32 %r2, %r1, 3;
    st.param.b32 [tt_ret], %r2;
    ret;
}
)";

/// CUDA C++ for NVRTC: the device function call_add_seven links against.
inline constexpr const char* kAddSevenCu = R"(
extern "C" __device__ int add_seven(int x) { return x + 7; }
)";

/// CUDA C++ for NVRTC: a kernel calling times_three from kTimesThreePtx, and using CCCL.
///  - triple_plus(int* out, int n): out[i] = times_three(i) + cuda::std::numeric_limits<char>::max().
inline constexpr const char* kTriplePlusCu = R"(
#include <cuda/std/limits>
extern "C" __device__ int times_three(int);
extern "C" __global__ void triple_plus(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = times_three(i) + cuda::std::numeric_limits<signed char>::max();
}
)";

}  // namespace cutlet::test
