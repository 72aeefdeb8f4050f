// Kernels compiled for the host CPU (HostKernel) and run there against a C++ reference, on
// random data with the outputs poisoned first.
#include "cutlet/backend/host_kernel.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "cutlet/ir/builder.h"
#include "cutlet/ir/verifier.h"

namespace cutlet {
namespace {

using namespace ir;
using Args = std::span<const ValueId>;
using Values = std::vector<ValueId>;

/// y[i] = a * x[i] + y[i] for i = blockIdx.x * blockDim.x + threadIdx.x < n.
Function saxpy() {
  Function f("saxpy");
  Builder b(f);
  ValueId a = b.add_param(Type::f32());
  ValueId x = b.add_param(Type::pointer(Type::f32()));
  ValueId y = b.add_param(Type::pointer(Type::f32()));
  ValueId n = b.add_param(Type::i32());
  ValueId i = b.binary(Opcode::Add, b.binary(Opcode::Mul, b.special(SpecialReg::BlockIdxX), b.special(SpecialReg::BlockDimX)),
                       b.special(SpecialReg::ThreadIdxX));
  b.if_(b.cmp(Predicate::Lt, i, n), {}, [&](Args) {
    ValueId yi = b.ptr_add(y, i);
    b.store(yi, b.binary(Opcode::Add, b.binary(Opcode::Mul, a, b.load(b.ptr_add(x, i))), b.load(yi)));
    return Values{};
  }, {});
  verify(f);
  return f;
}

TEST(HostKernel, SaxpyOverOddSizesMatchesTheCpp) {
  const HostKernel k = HostKernel::compile(saxpy());
  EXPECT_EQ(k.name(), "saxpy");
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  for (int n : {1, 255, 256, 1000, 100003}) {
    std::vector<float> x(n), y(n), want(n);
    for (int i = 0; i < n; ++i) {
      x[i] = dist(rng);
      y[i] = dist(rng);
    }
    float a = 1.5f;
    for (int i = 0; i < n; ++i) want[i] = std::fma(a, x[i], y[i]);
    float* px = x.data();
    float* py = y.data();
    void* args[] = {&a, &px, &py, &n};
    const std::uint32_t block = 256;
    k.run({static_cast<std::uint32_t>((n + block - 1) / block)}, {block}, args);
    for (int i = 0; i < n; ++i) {
      // FMA contraction is on, as on the GPU; where LLVM did not fuse, a*x+y rounds twice.
      ASSERT_NEAR(y[i], want[i], 1e-5f * (1 + std::fabs(want[i]))) << "n " << n << " i " << i;
    }
  }
}

TEST(HostKernel, SaxpysBlockLoopIsVectorized) {
  // The block loop runs the threads of a block as iterations LLVM's loop vectorizer can
  // widen: saxpy's loads (masked by its bounds test), multiplies and adds become vector ones, which
  // the host's code generator fuses where it has FMA.
  const std::string ir = HostKernel::compile(saxpy()).llvm_ir();
  EXPECT_NE(ir.find("fmul contract <"), std::string::npos) << ir;
  EXPECT_NE(ir.find("fadd contract <"), std::string::npos) << ir;
  EXPECT_TRUE(ir.find("load <") != std::string::npos || ir.find("@llvm.masked.load.v") != std::string::npos) << ir;
}

/// out[linear thread id over the grid] = the thread's 13 special registers packed in 13 words.
Function write_indices() {
  Function f("write_indices");
  Builder b(f);
  ValueId out = b.add_param(Type::pointer(Type::i32()));
  auto reg = [&](SpecialReg r) { return b.special(r); };
  auto mul = [&](ValueId p, ValueId q) { return b.binary(Opcode::Mul, p, q); };
  auto add = [&](ValueId p, ValueId q) { return b.binary(Opcode::Add, p, q); };
  ValueId block = add(mul(add(mul(reg(SpecialReg::BlockIdxZ), reg(SpecialReg::GridDimY)), reg(SpecialReg::BlockIdxY)),
                          reg(SpecialReg::GridDimX)),
                      reg(SpecialReg::BlockIdxX));
  ValueId thread =
      add(mul(add(mul(reg(SpecialReg::ThreadIdxZ), reg(SpecialReg::BlockDimY)), reg(SpecialReg::ThreadIdxY)),
              reg(SpecialReg::BlockDimX)),
          reg(SpecialReg::ThreadIdxX));
  ValueId threads = mul(mul(reg(SpecialReg::BlockDimX), reg(SpecialReg::BlockDimY)), reg(SpecialReg::BlockDimZ));
  ValueId base = mul(add(mul(block, threads), thread), b.const_int(Type::i32(), 13));
  for (int r = 0; r < 13; ++r)
    b.store(b.ptr_add(out, add(base, b.const_int(Type::i32(), r))), reg(static_cast<SpecialReg>(r)));
  verify(f);
  return f;
}

TEST(HostKernel, EveryThreadOfA3dGridSeesItsIndices) {
  const HostKernel k = HostKernel::compile(write_indices());
  const HostDim grid{3, 2, 5}, block{7, 3, 2};
  const std::size_t threads = grid.count() * block.count();
  std::vector<std::int32_t> out(threads * 13, -7);  // poisoned
  std::int32_t* p = out.data();
  void* args[] = {&p};
  k.run(grid, block, args);
  for (std::uint32_t bz = 0; bz < grid.z; ++bz)
    for (std::uint32_t by = 0; by < grid.y; ++by)
      for (std::uint32_t bx = 0; bx < grid.x; ++bx)
        for (std::uint32_t tz = 0; tz < block.z; ++tz)
          for (std::uint32_t ty = 0; ty < block.y; ++ty)
            for (std::uint32_t tx = 0; tx < block.x; ++tx) {
              const std::uint32_t t = (tz * block.y + ty) * block.x + tx;
              const std::size_t at = (((bz * grid.y + by) * grid.x + bx) * block.count() + t) * 13;
              const std::uint32_t want[13] = {tx,      ty,      tz,      block.x, block.y, block.z, bx,
                                              by,      bz,      grid.x,  grid.y,  grid.z,  t % 32};
              for (int r = 0; r < 13; ++r)
                ASSERT_EQ(out[at + r], static_cast<std::int32_t>(want[r]))
                    << special_reg_name(static_cast<SpecialReg>(r)) << " of thread " << tx << "," << ty << "," << tz
                    << " in block " << bx << "," << by << "," << bz;
            }
}

/// out[i] = fn(x[i]) for i = threadIdx.x < n, in type t.
Function unary_math(MathFn fn, Type t) {
  Function f("unary_math");
  Builder b(f);
  ValueId out = b.add_param(Type::pointer(t));
  ValueId x = b.add_param(Type::pointer(t));
  ValueId n = b.add_param(Type::i32());
  ValueId i = b.special(SpecialReg::ThreadIdxX);
  b.if_(b.cmp(Predicate::Lt, i, n), {}, [&](Args) {
    const ValueId xi = b.load(b.ptr_add(x, i));
    b.store(b.ptr_add(out, i), b.math(fn, std::span<const ValueId>(&xi, 1)));
    return Values{};
  }, {});
  verify(f);
  return f;
}

template <class T>
void expect_unary_math(MathFn fn, T (*reference)(T), const char* name) {
  const HostKernel k = HostKernel::compile(unary_math(fn, sizeof(T) == 4 ? Type::f32() : Type::f64()));
  int n = 999;
  std::mt19937 rng(11);
  std::uniform_real_distribution<T> dist(T(0.01), T(3));
  std::vector<T> x(n), out(n, std::numeric_limits<T>::quiet_NaN());
  for (auto& v : x) v = dist(rng);
  T* po = out.data();
  T* px = x.data();
  void* args[] = {&po, &px, &n};
  k.run({1}, {1024}, args);
  for (int i = 0; i < n; ++i) {
    const T want = reference(x[i]);
    ASSERT_NEAR(out[i], want, 4 * std::numeric_limits<T>::epsilon() * std::fabs(want)) << name << "(" << x[i] << ")";
  }
}

TEST(HostKernel, MathFunctionsAreTheHostLibrarys) {
  expect_unary_math<float>(MathFn::Exp, [](float v) { return std::exp(v); }, "expf");
  expect_unary_math<float>(MathFn::Sin, [](float v) { return std::sin(v); }, "sinf");
  expect_unary_math<float>(MathFn::Log1p, [](float v) { return std::log1p(v); }, "log1pf");
  expect_unary_math<float>(MathFn::Tanh, [](float v) { return std::tanh(v); }, "tanhf");
  expect_unary_math<double>(MathFn::Erf, [](double v) { return std::erf(v); }, "erf");
  expect_unary_math<double>(MathFn::Cbrt, [](double v) { return std::cbrt(v); }, "cbrt");
}

TEST(HostKernel, WhatTheCpuDoesNotRunYetIsRefusedNamingIt) {
  Function f("fences_the_async_proxy");
  Builder b(f);
  b.add_param(Type::pointer(Type::f32()));
  b.fence_proxy_async();
  verify(f);
  try {
    HostKernel::compile(f);
    FAIL() << "a kernel with an async-proxy fence compiled for the CPU";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("kernel 'fences_the_async_proxy' uses "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("CPU target does not run yet"), std::string::npos) << e.what();
  }
}

TEST(HostKernel, AnImageLoadsAndRunsWithoutCompiling) {
  CompileOptions options;
  const HostKernel compiled = HostKernel::compile(saxpy(), options);
  const std::string image = compiled.image();
  const HostKernel loaded = HostKernel::load(image);
  EXPECT_EQ(loaded.name(), "saxpy");
  EXPECT_EQ(loaded.param_sizes(), compiled.param_sizes());
  EXPECT_EQ(loaded.runs_in_phases(), compiled.runs_in_phases());
  EXPECT_EQ(loaded.llvm_ir(), compiled.llvm_ir());
  const int n = 3001;
  std::vector<float> x(n), y(n), want(n);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.25f * static_cast<float>(i % 97) - 3.0f;
    y[i] = static_cast<float>(i % 13) - 6.5f;
    want[i] = std::fma(-2.0f, x[i], y[i]);
  }
  float a = -2.0f;
  float* px = x.data();
  float* py = y.data();
  void* args[] = {&a, &px, &py, const_cast<int*>(&n)};
  loaded.run({(n + 255) / 256}, {256}, args);
  EXPECT_EQ(y, want);
  // Bytes that are no image, or a damaged one, are refused.
  EXPECT_THROW(HostKernel::load("not an image"), CompileError);
  EXPECT_THROW(HostKernel::load(std::string_view(image).substr(0, image.size() / 2)), CompileError);
  EXPECT_FALSE(HostKernel::host_identity().empty());
}

TEST(HostKernel, AnEmptyOrOversizedLaunchIsRefused) {
  const HostKernel k = HostKernel::compile(saxpy());
  float a = 1, x = 1, y = 1;
  float* px = &x;
  float* py = &y;
  int n = 1;
  void* args[] = {&a, &px, &py, &n};
  EXPECT_THROW(k.run({0}, {32}, args), Error);
  EXPECT_THROW(k.run({1}, {1025}, args), Error);
  EXPECT_THROW(k.run({1}, {32, 32, 2}, args), Error);
  EXPECT_EQ(y, 1.0f);
}

}  // namespace
}  // namespace cutlet
