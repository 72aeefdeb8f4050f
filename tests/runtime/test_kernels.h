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

}  // namespace cutlet::test
