// Exports kernels ahead of time: compiles chosen specializations of four cutlet kernels for
// sm_80 and sm_90 (and PTX for newer GPUs) and writes aot_kernels.h and aot_kernels.cpp, whose
// launch functions use_kernels.cpp calls without LLVM, nvJitLink or the kernel language. The
// build runs it (cutlet_aot_export in CMakeLists.txt) as `export_kernels <output-dir> --name
// aot_kernels`; it needs no GPU.
#include <cutlet/cutlet.h>
#include <cutlet/jit/aot_export.h>

#include <cmath>

#include "affine.h"

using namespace cutlet;

namespace {
constexpr int BM = 128, BN = 128, BK = 64;  // the tile of C per program, and the K step
}  // namespace

int main(int argc, char** argv) {
  // A per-thread kernel, generic over its element type: exported for float and for double.
  auto saxpy = kernel([](auto a, auto x, auto y, i32 n) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < n, [&] { y[i] = a * x[i] + y[i]; });
  }, {.name = "saxpy"});

  // A struct passed by value; its header is included by the generated one.
  auto affine = kernel([](Struct<aot_example::Affine> p, Ptr<float> y, i32 n) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < n, [&] { y[i] = y[i] * p[&aot_example::Affine::scale] + p[&aot_example::Affine::shift]; });
  }, {.name = "affine"});

  // Row softmax, a tile kernel of 4 warps whose tile width is a Const.
  auto softmax = tile_kernel([](Tensor<float, 2> out, Tensor<float, 2> in, Const<int> BLOCK) {
    auto row = program_id(0);
    auto cols = arange(BLOCK);
    auto mask = cols < in.shape(1);
    auto x = load(in, {row, cols}, mask, Value<float>(-INFINITY));
    auto e = exp(x - max(x, 0));
    store(out, {row, cols}, e / sum(e, 0), mask);
  }, {.name = "softmax_rows"});

  // C = A @ B with bf16 A and B on tensor cores, its loads pipelined through three stages of
  // shared memory: 96 KiB of them, more than the 48 KiB a launch gets without opting in.
  auto matmul = tile_kernel([](Tensor<float, 2> c, Tensor<bfloat16, 2> a, Tensor<bfloat16, 2> b) {
    auto rm = program_id(0) * BM + arange(BM);
    auto rn = program_id(1) * BN + arange(BN);
    auto rk = arange(BK);
    auto row_ok = expand_dims(rm, 1) < a.shape(0);
    auto col_ok = expand_dims(rn, 0) < b.shape(1);
    auto acc = for_range(0, a.shape(1), BK, zeros<float>({BM, BN}), [&](i32 k0, Tile<float> acc) {
      auto k = k0 + rk;
      auto ta = load(a, {expand_dims(rm, 1), expand_dims(k, 0)}, row_ok & (expand_dims(k, 0) < a.shape(1)));
      auto tb = load(b, {expand_dims(k, 1), expand_dims(rn, 0)}, (expand_dims(k, 1) < b.shape(0)) & col_ok);
      return dot(ta, tb, acc);
    });
    store(c, {expand_dims(rm, 1), expand_dims(rn, 0)}, acc, row_ok & col_ok);
  }, {.name = "matmul_bf16", .tile_stages = 3}, 8);

  aot::Exporter ex("aot_kernels");
  ex.targets({Target{80}, Target{90}}).include("affine.h");
  // Launch argument types choose the specialization, as Kernel::compile<...>() takes them.
  ex.add<float, Buffer<float>, Buffer<float>, int>(saxpy, "saxpy_f32").param_names({"a", "x", "y", "n"});
  ex.add<double, Buffer<double>, Buffer<double>, int>(saxpy, "saxpy_f64").param_names({"a", "x", "y", "n"});
  ex.add(affine, "affine").param_names({"p", "y", "n"});
  // Code for any tensors (generic(): no facts assumed), and code for tensors with every fact
  // (16-byte aligned, unit last stride, extents and strides divisible by 16): 16-byte loads.
  ex.add_for(softmax, "softmax_1024", TensorArg<float, 2>{}.generic(), TensorArg<float, 2>{}.generic(), 1024)
      .param_names({"out", "in", "BLOCK"});
  ex.add<Tensor<float, 2>, Tensor<float, 2>, Const<int>>(softmax, "softmax_1024_aligned", 1024)
      .param_names({"out", "in", "BLOCK"});
  ex.add(matmul, "matmul_bf16").param_names({"c", "a", "b"});
  return ex.main(argc, argv);
}
