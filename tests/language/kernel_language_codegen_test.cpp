// The PTX of kernels using the full SIMT language: the instruction each feature must become.
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include "filecheck_support.h"

using namespace cutlet;

namespace {

template <class K>
std::string ptx_of(const K& k) {
  return k.template compile<>()->ptx;
}

TEST(KernelLanguageCodegen, SharedMemoryBarrierAndWarpShuffleReduction) {
  auto k = kernel([](Ptr<float> out, Ptr<float> in, i32 n) {
    auto partial = shared_array<float>(32);
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    Var<float> v = 0.0f;
    if_(i < n, [&] { v = in[i]; });
    for (int d = 16; d > 0; d /= 2) v = v + shfl_down_sync(full_mask, v.get(), d);
    if_(lane_id() == 0, [&] { partial[warp_id()] = v; });
    syncthreads();
    if_(warp_id() == 0, [&] {
      Var<float> w = partial[lane_id()];
      for (int d = 16; d > 0; d /= 2) w = w + shfl_xor_sync(full_mask, w.get(), d);
      if_(lane_id() == 0, [&] { atomic_add(out[0], w.get()); });
    });
  }, {.name = "block_sum"});
  expect_filecheck(ptx_of(k), R"(
CHECK: .extern .shared .align {{[0-9]+}} .b8
CHECK: .visible .entry block_sum(
CHECK: shfl.sync.down.b32
CHECK: st.shared.f32
CHECK: bar.sync 0;
CHECK: ld.shared.f32
CHECK: shfl.sync.bfly.b32
CHECK: atom.global.add.f32
)");
}

TEST(KernelLanguageCodegen, SharedAtomicsAndRedux) {
  auto k = kernel([](Ptr<std::uint32_t> hist, Ptr<std::uint32_t> data, i32 n) {
    auto local = shared_array<std::uint32_t>(256);
    local[thread_idx().x] = 0u;
    syncthreads();
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < n, [&] { atomic_add(local[data[i] & 255u], 1u); });
    syncthreads();
    atomic_add(hist[thread_idx().x], local[thread_idx().x].load());
    u32 s = reduce_add_sync(full_mask, data[i]);
    if_(s == 7u, [&] { hist[0] = s; });
  }, {.name = "histogram"});
  expect_filecheck(ptx_of(k), R"(
CHECK: .visible .entry histogram(
CHECK: atom.shared.add.u32
CHECK: atom.global.add.u32
CHECK: redux.sync.add.{{s|u}}32
)");
}

TEST(KernelLanguageCodegen, SixteenByteVectorAccess) {
  auto k = kernel([](Ptr<float> y, Ptr<float> x, f32 a, i32 n4) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < n4, [&] { y.vstore<4>(i, a * x.vload<4>(i) + y.vload<4>(i)); });
  }, {.name = "saxpy4"});
  expect_filecheck(ptx_of(k), R"(
CHECK: .visible .entry saxpy4(
CHECK: ld.global.v4.f32
CHECK: ld.global.v4.f32
CHECK-COUNT-4: fma.rn.f32
CHECK: st.global.v4.f32
)");
}

TEST(KernelLanguageCodegen, PackedHalfArithmetic) {
  auto k = kernel([](Ptr<half> y, Ptr<half> x, i32 n8) {
    i32 i = thread_idx().x;
    if_(i < n8, [&] { y.vstore<8>(i, x.vload<8>(i) * y.vload<8>(i) + x.vload<8>(i)); });
  }, {.name = "hfma"});
  expect_filecheck(ptx_of(k), R"(
CHECK: .visible .entry hfma(
CHECK: ld.global.v4.{{u32|b32}}
CHECK: fma.rn.f16x2
CHECK: st.global.v4.{{u32|b32}}
)");
}

TEST(KernelLanguageCodegen, CacheHintsAndFences) {
  auto k = kernel([](Ptr<float> y, Ptr<float> x) {
    i32 i = thread_idx().x;
    y[i] = x.load(i, CacheHint::ReadOnly) + x.load(i + 32, CacheHint::Streaming) + x.load(i + 64, CacheHint::CacheGlobal);
    threadfence();
    threadfence_block();
    threadfence_system();
  }, {.name = "hints"});
  expect_filecheck(ptx_of(k), R"(
CHECK: .visible .entry hints(
CHECK-DAG: ld.global.nc.f32
CHECK-DAG: ld.global.cs.f32
CHECK-DAG: ld.global.cg.f32
CHECK-DAG: membar.gl;
CHECK-DAG: membar.cta;
CHECK-DAG: membar.sys;
)");
}

TEST(KernelLanguageCodegen, CacheHintedLoadsOfEveryWidth) {
  // ld has no .f16 or .bf16 type (16-bit floats load as .b16) and no vector of 8 lanes (8
  // halves load as 4 words); ptxas must take every one.
  auto k = kernel([](Ptr<half> h, Ptr<bfloat16> b, Ptr<std::int8_t> c, Ptr<std::uint16_t> s, Ptr<float> y) {
    i32 i = thread_idx().x;
    Vec<half, 8> v = h.vload<8>(i + 64, CacheHint::Streaming);
    f32 sum = cast<float>(h.load(i, CacheHint::CacheGlobal)) + cast<float>(b.load(i, CacheHint::Streaming)) +
              cast<float>(c.load(i, CacheHint::LastUse)) + cast<float>(s.load(i, CacheHint::CacheGlobal)) +
              cast<float>(v[3]);
    y[i] = sum;
  }, {.name = "hinted_widths"});
  expect_filecheck(ptx_of(k), R"(
CHECK: .visible .entry hinted_widths(
CHECK-DAG: ld.global.cs.v4.u32
CHECK-DAG: ld.global.cg.b16
CHECK-DAG: ld.global.cs.b16
CHECK-DAG: ld.global.lu.s8
CHECK-DAG: ld.global.cg.u16
)");
  EXPECT_FALSE(k.compile()->cubin.empty());
}

TEST(KernelLanguageCodegen, AtomicScopesAndOrders) {
  auto k = kernel([](Ptr<int> c, Ptr<double> d) {
    atomic_add(c[0], 1, Scope::Block);
    atomic_cas(c[1], 0, 1, Scope::Device, Order::Acquire);
    atomic_exchange(c[2], 5, Scope::System, Order::Release);
    atomic_max(c[3], 9);
    atomic_add(d[0], 1.5);
    d[1] = atomic_load(d[2]);
    c[4] = atomic_load(c[5], Scope::Block, Order::Relaxed);
    auto flag = shared_array<std::uint64_t>(1);
    c[6] = cast<int>(atomic_load(flag[0], Scope::Block));
  }, {.name = "atomics"});
  expect_filecheck(ptx_of(k), R"(
CHECK: .visible .entry atomics(
CHECK: atom.relaxed.cta.global.add.u32
CHECK: atom.acquire.gpu.global.cas.b32
CHECK: atom.release.sys.global.exch.b32
CHECK: atom.global.max.s32
CHECK: atom.global.add.f64
CHECK: ld.acquire.gpu.global.b64
CHECK: ld.relaxed.cta.global.b32
CHECK: ld.acquire.cta.shared.b64
)");
}

TEST(KernelLanguageCodegen, VotesMatchAndBarrierReductions) {
  auto k = kernel([](Ptr<std::uint32_t> out, Ptr<int> x) {
    i32 t = thread_idx().x;
    Value<bool> p = x[t] > 0;
    out[0] = ballot_sync(full_mask, p);
    out[1] = cast<std::uint32_t>(all_sync(full_mask, p)) + cast<std::uint32_t>(any_sync(full_mask, p));
    out[2] = match_any_sync(full_mask, x[t]);
    out[3] = cast<std::uint32_t>(syncthreads_count(p));
    out[4] = active_mask();
  }, {.name = "votes"});
  expect_filecheck(ptx_of(k), R"(
CHECK: .visible .entry votes(
CHECK-DAG: vote.sync.ballot.b32
CHECK-DAG: vote.sync.all.pred
CHECK-DAG: vote.sync.any.pred
CHECK-DAG: match.any.sync.b32
CHECK-DAG: bar.red.popc.u32
CHECK-DAG: activemask.b32
)");
}

TEST(KernelLanguageCodegen, MathGoesThroughLibdevice) {
  auto k = kernel([](Ptr<float> y, Ptr<double> z, Ptr<int> w) {
    i32 t = thread_idx().x;
    y[t] = sqrt(y[t]) + exp(y[t]) + fma(y[t], 2.0f, 1.0f) + floor(y[t]);
    z[t] = sin(z[t]) + erf(z[t]);
    w[t] = popc(w[t]) + clz(w[t]);
  }, {.name = "mathk"});
  expect_filecheck(ptx_of(k), R"(
CHECK: .visible .entry mathk(
CHECK-DAG: sqrt.rn.f32
CHECK-DAG: ex2.approx
CHECK-DAG: cvt.rmi.f32.f32
CHECK-DAG: popc.b32
CHECK-DAG: clz.b32
CHECK-NOT: call{{.*}}__nv_
)");
}

TEST(KernelLanguageCodegen, LocalArraysStayInRegistersWhenIndexedByConstants) {
  auto k = kernel([](Ptr<float> y) {
    auto a = local_array<float>(4);
    for (int j = 0; j < 4; ++j) a[j] = y[j] * 2.0f;
    y[0] = a[0] + a[1] + a[2] + a[3];
  }, {.name = "local_regs"});
  expect_filecheck(ptx_of(k), R"(
CHECK: .visible .entry local_regs(
CHECK-NOT: .local
CHECK-NOT: st.local
CHECK: st.global.f32
)");
}

TEST(KernelLanguageCodegen, DynamicSharedMemory) {
  auto k = kernel([](Ptr<float> y) {
    auto s = dynamic_shared<float>();
    s[thread_idx().x] = y[thread_idx().x];
    syncthreads();
    y[thread_idx().x] = s[block_dim().x - 1 - thread_idx().x];
  }, {.name = "dyn_shared"});
  expect_filecheck(ptx_of(k), R"(
CHECK: .extern .shared .align 16 .b8 cutlet_dynamic_shared[];
CHECK: .visible .entry dyn_shared(
CHECK: st.shared.f32
CHECK: bar.sync 0;
CHECK: ld.shared.f32
)");
}

TEST(KernelLanguageCodegen, PrintfAndAssert) {
  auto k = kernel([](Ptr<float> y, i32 n) {
    i32 t = thread_idx().x;
    print("thread %d sees %f\n", t, y[t]);
    assert_(t < n, "t < n");
  }, {.name = "diag"});
  expect_filecheck(ptx_of(k), R"(
CHECK: .extern .func {{.*}}vprintf
CHECK: .extern .func __assertfail
CHECK: .visible .entry diag(
CHECK: call.uni
CHECK-NEXT: vprintf,
CHECK: call.uni
CHECK-NEXT: __assertfail,
)");
}

}  // namespace

namespace {

int g_store_line = 0;  // set while tracing: the line of the store below

TEST(KernelLanguageCodegen, LineInfoPointsAtTheKernelsSourceLines) {
  auto k = kernel([](Ptr<float> y, i32 n) {
    i32 i = thread_idx().x;
    if_(i < n, [&] {
      y[i] = y[i] * 2.0f; g_store_line = __LINE__;  // this line must appear in the PTX's .loc directives
    });
  }, {.name = "lines", .line_info = true});
  auto compiled = k.compile<>();
  expect_filecheck(compiled->ptx, R"(
CHECK: .visible .entry lines(
CHECK: .loc 1 )" + std::to_string(g_store_line) + R"( 0
CHECK: st.global.f32
CHECK: .file 1 "{{.*}}kernel_language_codegen_test.cpp"
)");
  // Without the option there is no line table.
  auto plain = kernel([](Ptr<float> y) { y[0] = 1.0f; }, {.name = "no_lines"}).compile<>();
  EXPECT_EQ(plain->ptx.find(".loc"), std::string::npos);
}

TEST(KernelLanguageCodegen, LineInfoCoversTheDeviceFunctionsAKernelCalls) {
  // The kernel and the device functions it calls share one module: one set of debug flags.
  auto twice = device_function([](f32 x) { return x * 2.0f; }, "lines_twice");
  auto plus_one = device_function([](f32 x) { return x + 1.0f; }, "lines_plus_one");
  auto k = kernel([&](Ptr<float> y) { y[0] = plus_one(twice(y[1])); }, {.name = "lines_calls", .line_info = true});
  auto compiled = k.compile<>();
  expect_filecheck(compiled->ptx, R"(
CHECK-DAG: .func {{.*}}lines_twice
CHECK-DAG: .func {{.*}}lines_plus_one
CHECK: .visible .entry lines_calls(
CHECK: .loc
)");
}

}  // namespace

namespace {

TEST(KernelLanguageCodegen, ViewsIndexWithThirtyTwoBitArithmetic) {
  auto k = kernel([](Ptr<float> a, i32 rows, i32 cols) {
    auto A = view(a, {rows, cols});
    A(thread_idx().y, thread_idx().x) = 1.0f;
  }, {.name = "view32"});
  expect_filecheck(k.compile<>()->ptx, R"(
CHECK: .visible .entry view32(
CHECK: mad.lo.s32
CHECK: mul.wide.s32
CHECK: st.global.{{f32|u32}}
)");
}

TEST(KernelLanguageCodegen, BoundsChecksAssertWithTheViewsName) {
  auto k = kernel([](Ptr<float> a, i32 n) {
    auto A = view(a, {n}, "weights");
    A(thread_idx().x) = 1.0f;
  }, {.name = "checked", .bounds_check = true});
  expect_filecheck(k.compile<>()->ptx, R"(
CHECK: .visible .entry checked(
CHECK: vprintf
CHECK: __assertfail
)");
}

}  // namespace

namespace {

TEST(KernelLanguageCodegen, RestrictPointersReadThroughTheReadOnlyPath) {
  auto k = kernel([](RestrictPtr<float> y, RestrictPtr<float> x, i32 n) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < n, [&] { y[i] = x[i] * 2.0f; });
  }, {.name = "restricted"});
  std::string ir = ir::print(k.trace_ir());
  EXPECT_NE(ir.find("%0: ptr<f32, global> noalias"), std::string::npos) << ir;
  expect_filecheck(k.compile<>()->ptx, R"(
CHECK: .visible .entry restricted(
CHECK: ld.global.nc.f32
CHECK: st.global.f32
)");
  // Without restrict the load may alias the store: no read-only path.
  auto plain = kernel([](Ptr<float> y, Ptr<float> x, i32 n) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < n, [&] { y[i] = x[i] * 2.0f; });
  }, {.name = "plain"});
  EXPECT_EQ(plain.compile<>()->ptx.find("ld.global.nc"), std::string::npos);
}

TEST(KernelLanguageCodegen, GridSyncUsesTheDriversGridWorkspace) {
  auto k = kernel([](Ptr<float> x) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    x[i] = 1.0f;
    grid_sync();
    x[i] = x[i] + x[0];
  }, {.name = "grid_synced"});
  expect_filecheck(k.compile<>()->ptx, R"(
CHECK: .visible .entry grid_synced(
CHECK-DAG: mov.{{[bu]}}32 {{%r[0-9]+}}, %envreg1;
CHECK-DAG: mov.{{[bu]}}32 {{%r[0-9]+}}, %envreg2;
CHECK: bar.sync 0;
CHECK: atom.add.release.gpu.u32
CHECK: ld.acquire.gpu.u32
CHECK: bar.sync 0;
CHECK: trap;
)");
}

}  // namespace
