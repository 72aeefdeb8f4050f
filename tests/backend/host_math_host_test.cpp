// Every function of math.def run on the host (HostKernel) for every type it has: the float
// ones against long-double references, within the CUDA math library's documented maximum
// errors in ulps (so that a kernel is at least as accurate on the CPU as on the GPU), the
// integer ones against their GPU definitions; random inputs in each function's domain.
#include <gtest/gtest.h>

#include <cutlet/backend/host_kernel.h>

#include <dlfcn.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "cutlet/ir/builder.h"
#include "cutlet/ir/math.h"
#include "cutlet/ir/pipeline.h"
#include "cutlet/ir/verifier.h"

namespace cutlet {
namespace {

using namespace ir;
using Args = std::span<const ValueId>;
using Values = std::vector<ValueId>;

/// out[i] = fn(x0[i], x1[i], x2[i]) (as many operands as fn takes) for i = threadIdx.x < n.
Function math_kernel(MathFn fn, Type t) {
  const int arity = math_info(fn).arity;
  Function f("math_kernel");
  Builder b(f);
  const Type rt = math_result_type(fn, t);
  ValueId out = b.add_param(Type::pointer(rt.is_bool() ? Type::i32() : rt));
  std::vector<ValueId> in;
  for (int a = 0; a < arity; ++a) in.push_back(b.add_param(Type::pointer(t)));
  ValueId n = b.add_param(Type::i32());
  ValueId i = b.special(SpecialReg::ThreadIdxX);
  b.if_(b.cmp(Predicate::Lt, i, n), {}, [&](Args) {
    std::vector<ValueId> xs;
    for (ValueId p : in) xs.push_back(b.load(b.ptr_add(p, i)));
    ValueId r = b.math(fn, xs);
    if (rt.is_bool()) r = b.cast(Type::i32(), r);
    b.store(b.ptr_add(out, i), r);
    return Values{};
  }, {});
  verify(f);
  return f;
}

/// A float function's reference, domain and the CUDA math library's maximum error (ulps) in
/// single and double precision.
struct FloatCase {
  MathFn fn;
  long double (*ref)(long double, long double, long double);
  double lo, hi;
  double ulps_f32, ulps_f64;
};

#define REF1(f) [](long double x, long double, long double) { return f(x); }
#define REF2(f) [](long double x, long double y, long double) { return f(x, y); }

const FloatCase kFloatCases[] = {
    {MathFn::Sqrt, REF1(std::sqrt), 0, 100, 0, 0},
    {MathFn::Rsqrt, REF1(1.0L / std::sqrt), 0.01, 100, 2, 1},
    {MathFn::Cbrt, REF1(std::cbrt), -100, 100, 1, 1},
    {MathFn::Exp, REF1(std::exp), -20, 20, 2, 1},
    {MathFn::Exp2, REF1(std::exp2), -20, 20, 2, 1},
    {MathFn::Expm1, REF1(std::expm1), -5, 5, 1, 1},
    {MathFn::Log, REF1(std::log), 0.001, 1000, 1, 1},
    {MathFn::Log2, REF1(std::log2), 0.001, 1000, 1, 1},
    {MathFn::Log10, REF1(std::log10), 0.001, 1000, 2, 1},
    {MathFn::Log1p, REF1(std::log1p), -0.5, 100, 1, 1},
    {MathFn::Pow, REF2(std::pow), 0.1, 4, 4, 2},
    {MathFn::Sin, REF1(std::sin), -10, 10, 2, 2},
    {MathFn::Cos, REF1(std::cos), -10, 10, 2, 2},
    {MathFn::Tan, REF1(std::tan), -1.5, 1.5, 4, 2},
    {MathFn::Asin, REF1(std::asin), -0.99, 0.99, 2, 2},
    {MathFn::Acos, REF1(std::acos), -0.99, 0.99, 2, 2},
    {MathFn::Atan, REF1(std::atan), -10, 10, 2, 2},
    {MathFn::Atan2, REF2(std::atan2), -10, 10, 3, 2},
    {MathFn::Sinh, REF1(std::sinh), -10, 10, 3, 2},
    {MathFn::Cosh, REF1(std::cosh), -10, 10, 2, 1},
    {MathFn::Tanh, REF1(std::tanh), -5, 5, 2, 2},
    {MathFn::Asinh, REF1(std::asinh), -10, 10, 3, 2},
    {MathFn::Acosh, REF1(std::acosh), 1.01, 10, 4, 2},
    {MathFn::Atanh, REF1(std::atanh), -0.9, 0.9, 3, 2},
    {MathFn::Erf, REF1(std::erf), -3, 3, 2, 2},
    {MathFn::Erfc, REF1(std::erfc), -3, 3, 4, 5},
    {MathFn::Lgamma, REF1(std::lgamma), 0.1, 10, 6, 4},
    {MathFn::Tgamma, REF1(std::tgamma), 0.1, 10, 5, 10},
    {MathFn::Fma, [](long double x, long double y, long double z) { return x * y + z; }, -10, 10, 0, 0},
    {MathFn::Fmin, REF2(std::fmin), -10, 10, 0, 0},
    {MathFn::Fmax, REF2(std::fmax), -10, 10, 0, 0},
    {MathFn::Fabs, REF1(std::fabs), -10, 10, 0, 0},
    {MathFn::Floor, REF1(std::floor), -10, 10, 0, 0},
    {MathFn::Ceil, REF1(std::ceil), -10, 10, 0, 0},
    {MathFn::Trunc, REF1(std::trunc), -10, 10, 0, 0},
    {MathFn::Round, REF1(std::round), -10, 10, 0, 0},
    {MathFn::Rint, REF1(std::rint), -10, 10, 0, 0},
    {MathFn::Copysign, REF2(std::copysign), -10, 10, 0, 0},
    {MathFn::Fmod, REF2(std::fmod), 0.1, 10, 0, 0},
};

/// |got - want| in units in the last place of want, rounded to T.
template <class T>
double ulps(T got, long double want) {
  const T w = static_cast<T>(want);
  if (std::isnan(got) || std::isnan(w)) return std::isnan(got) && std::isnan(w) ? 0 : INFINITY;
  if (got == w) return 0;
  const T up = std::nextafter(std::fabs(w), std::numeric_limits<T>::infinity());
  const long double ulp = static_cast<long double>(up) - static_cast<long double>(std::fabs(w));
  return static_cast<double>(std::fabs(static_cast<long double>(got) - want) / ulp);
}

/// Checks case c in T on `total` random inputs, run 1000 at a time.
template <class T>
void check_float_case(const FloatCase& c, int total = 1000) {
  const Type t = sizeof(T) == 4 ? Type::f32() : Type::f64();
  const int arity = math_info(c.fn).arity;
  const HostKernel k = HostKernel::compile(math_kernel(c.fn, t));
  int n = total;
  std::mt19937 rng(static_cast<unsigned>(c.fn) * 7 + sizeof(T));
  std::uniform_real_distribution<double> dist(c.lo, c.hi);
  std::vector<std::vector<T>> in(static_cast<std::size_t>(arity), std::vector<T>(static_cast<std::size_t>(n)));
  for (auto& v : in)
    for (T& x : v) x = static_cast<T>(dist(rng));
  std::vector<T> out(static_cast<std::size_t>(n), std::numeric_limits<T>::quiet_NaN());
  T* po = out.data();
  T* pin[3] = {nullptr, nullptr, nullptr};
  std::vector<void*> args{&po};
  for (int a = 0; a < arity; ++a) {
    pin[a] = in[static_cast<std::size_t>(a)].data();
    args.push_back(&pin[a]);
  }
  int chunk = 0;
  args.push_back(&chunk);
  for (int first = 0; first < n; first += 1000) {
    chunk = std::min(1000, n - first);
    k.run({1}, {1024}, args.data());
    po += chunk;
    for (int a = 0; a < arity; ++a) pin[a] += chunk;
  }
  const double bound = sizeof(T) == 4 ? c.ulps_f32 : c.ulps_f64;
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    long double x[3] = {0, 0, 0};
    for (int a = 0; a < arity; ++a) x[a] = in[static_cast<std::size_t>(a)][static_cast<std::size_t>(i)];
    worst = std::max(worst, ulps(out[static_cast<std::size_t>(i)], c.ref(x[0], x[1], x[2])));
  }
  // Half an ulp more: the reference is rounded to T too.
  EXPECT_LE(worst, bound + 0.5) << math_fn_name(c.fn) << " in " << t.str() << ": CUDA's bound is " << bound << " ulps";
}

TEST(HostMath, EveryFloatFunctionIsWithinCudasErrorBounds) {
  std::set<MathFn> covered;
  for (const FloatCase& c : kFloatCases) {
    covered.insert(c.fn);
    check_float_case<float>(c);
    check_float_case<double>(c);
  }
  // Every float function of math.def with a Same result has a case above.
  for (int f = 0; f <= static_cast<int>(MathFn::FunnelShiftRight); ++f) {
    const auto fn = static_cast<MathFn>(f);
    if (math_implementation(fn, Type::f32()) && math_info(fn).result == MathResult::Same) {
      EXPECT_TRUE(covered.count(fn)) << math_fn_name(fn) << " has no case";
    }
  }
}

// Functions the CPU runs 8 or 16 lanes at a time (SLEEF's variants, in the thread loops LLVM
// vectorizes), on many inputs over their whole float domains.
TEST(HostMath, VectorVariantsAreWithinCudasErrorBoundsOnManyInputs) {
  const FloatCase cases[] = {
      {MathFn::Exp, REF1(std::exp), -87, 88, 2, 1},
      {MathFn::Sin, REF1(std::sin), -10000, 10000, 2, 2},
      {MathFn::Cos, REF1(std::cos), -10000, 10000, 2, 2},
      {MathFn::Sin, REF1(std::sin), -4, 4, 2, 2},
      {MathFn::Cos, REF1(std::cos), -4, 4, 2, 2},
  };
  for (const FloatCase& c : cases) check_float_case<float>(c, 1 << 18);
#if defined(__x86_64__) && defined(__linux__)
  // Where the CPU has AVX2 and SLEEF is installed, the calls above were its vector variants.
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && dlopen("libsleef.so.3", RTLD_NOW | RTLD_NOLOAD))
    EXPECT_NE(HostKernel::compile(math_kernel(MathFn::Exp, Type::f32())).llvm_ir().find("Sleef_expf"), std::string::npos);
#endif
}

/// out = fn(in) over 1024-element tiles (a tile kernel of 4 warps traced for the host, after
/// the IR passes: 16 elements per thread, so AVX-512's variants where the CPU has them).
Function tile_math_kernel(MathFn fn) {
  Function f("tile_math_kernel");
  f.set_tile_warps(4);
  f.set_host_target(true);
  Builder b(f);
  ValueId out = b.add_param(Type::pointer(Type::f32()));
  ValueId in = b.add_param(Type::pointer(Type::f32()));
  const std::vector<std::int64_t> shape{1024};
  ValueId first = b.binary(Opcode::Mul, b.special(SpecialReg::BlockIdxX), b.const_int(Type::i32(), 1024));
  ValueId at = b.binary(Opcode::Add, b.tile_splat(first, shape), b.tile_arange(1024));
  const ValueId x[] = {b.tile_load(in, at)};
  b.tile_store(out, at, b.math(fn, x));
  verify(f);
  return run_pipeline(std::move(f));
}

TEST(HostMath, TileVectorVariantsAreWithinCudasErrorBoundsOnManyInputs) {
  const FloatCase cases[] = {
      {MathFn::Exp, REF1(std::exp), -87, 88, 2, 1},
      {MathFn::Sin, REF1(std::sin), -10000, 10000, 2, 2},
      {MathFn::Cos, REF1(std::cos), -10000, 10000, 2, 2},
      {MathFn::Log, REF1(std::log), 1e-30, 1e30, 1, 1},
      {MathFn::Tanh, REF1(std::tanh), -10, 10, 2, 1},
      {MathFn::Erf, REF1(std::erf), -4, 4, 2, 2},
  };
  const int n = 1 << 18;
  for (const FloatCase& c : cases) {
    const HostKernel k = HostKernel::compile(tile_math_kernel(c.fn));
#if defined(__x86_64__) && defined(__linux__)
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && dlopen("libsleef.so.3", RTLD_NOW | RTLD_NOLOAD))
      EXPECT_NE(k.llvm_ir().find("Sleef_"), std::string::npos) << math_fn_name(c.fn) << "'s tile calls no vector variant";
#endif
    std::mt19937 rng(static_cast<unsigned>(c.fn));
    std::uniform_real_distribution<double> dist(c.lo, c.hi);
    std::vector<float> in(n), out(n, std::numeric_limits<float>::quiet_NaN());
    for (float& x : in) x = static_cast<float>(dist(rng));
    float *po = out.data(), *pi = in.data();
    void* args[] = {&po, &pi};
    k.run({n / 1024}, {128}, args);
    double worst = 0;
    for (int i = 0; i < n; ++i) worst = std::max(worst, ulps(out[i], c.ref(in[i], 0, 0)));
    EXPECT_LE(worst, c.ulps_f32 + 0.5) << math_fn_name(c.fn) << " on tiles: CUDA's bound is " << c.ulps_f32 << " ulps";
  }
}

TEST(HostMath, ClassificationSeesNanInfinityAndFiniteValues) {
  for (const Type t : {Type::f32(), Type::f64()})
    for (const MathFn fn : {MathFn::Isnan, MathFn::Isinf, MathFn::Isfinite}) {
      const HostKernel k = HostKernel::compile(math_kernel(fn, t));
      const double values[] = {0.0, -1.5, 3e30, INFINITY, -INFINITY, NAN};
      int n = 6;
      std::vector<std::int32_t> out(6, -1);
      std::vector<float> xf(values, values + 6);
      std::vector<double> xd(values, values + 6);
      std::int32_t* po = out.data();
      void* px = t == Type::f32() ? static_cast<void*>(xf.data()) : static_cast<void*>(xd.data());
      void* args[] = {&po, &px, &n};
      k.run({1}, {32}, args);
      for (int i = 0; i < 6; ++i) {
        const double v = values[i];
        const bool want = fn == MathFn::Isnan ? std::isnan(v) : fn == MathFn::Isinf ? std::isinf(v) : std::isfinite(v);
        EXPECT_EQ(out[static_cast<std::size_t>(i)], want ? 1 : 0) << math_fn_name(fn) << "(" << v << ") in " << t.str();
      }
    }
}

template <class T>
Type type_of() {
  if constexpr (std::is_same_v<T, std::int32_t>) return Type::i32();
  else if constexpr (std::is_same_v<T, std::uint32_t>) return Type::u32();
  else if constexpr (std::is_same_v<T, std::int64_t>) return Type::i64();
  else return Type::u64();
}

template <class T>
void check_integer_function(MathFn fn, const std::vector<T>& x, const std::vector<T>& y, auto reference) {
  const Type t = type_of<T>();
  const HostKernel k = HostKernel::compile(math_kernel(fn, t));
  const Type rt = math_result_type(fn, t);
  int n = static_cast<int>(x.size());
  std::vector<std::int64_t> out(x.size(), 0x5a5a5a5a5a5a5a5a);
  std::vector<std::int32_t> out32(x.size(), 0x5a5a5a5a);
  void* po = rt.bits() == 64 ? static_cast<void*>(out.data()) : static_cast<void*>(out32.data());
  const T* px = x.data();
  const T* py = y.data();
  std::vector<void*> args{&po, &px};
  if (math_info(fn).arity == 2) args.push_back(&py);
  args.push_back(&n);
  k.run({1}, {256}, args.data());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::int64_t got = rt.bits() == 64 ? out[i] : out32[i];
    const std::int64_t want = static_cast<std::int64_t>(reference(x[i], y[i]));
    const std::int64_t want_bits = rt.bits() == 64 ? want : static_cast<std::int32_t>(want);
    EXPECT_EQ(got, want_bits) << math_fn_name(fn) << " in " << t.str() << " of " << +x[i] << ", " << +y[i];
  }
}

template <class T>
std::vector<T> integer_inputs(unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v = {T(0), T(1), T(-1), std::numeric_limits<T>::min(), std::numeric_limits<T>::max()};
  while (v.size() < 200) v.push_back(static_cast<T>(rng()));
  return v;
}

TEST(HostMath, IntegerFunctionsHaveTheGpusResults) {
  const auto i32 = integer_inputs<std::int32_t>(1), j32 = integer_inputs<std::int32_t>(2);
  const auto u32 = integer_inputs<std::uint32_t>(3), v32 = integer_inputs<std::uint32_t>(4);
  const auto i64 = integer_inputs<std::int64_t>(5), j64 = integer_inputs<std::int64_t>(6);
  const auto u64 = integer_inputs<std::uint64_t>(7), v64 = integer_inputs<std::uint64_t>(8);
  auto brev = [](auto x) {
    using U = std::make_unsigned_t<decltype(x)>;
    U u = static_cast<U>(x), r = 0;
    for (unsigned b = 0; b < 8 * sizeof(U); ++b) r |= static_cast<U>((u >> b) & 1u) << (8 * sizeof(U) - 1 - b);
    return r;
  };
  check_integer_function<std::int32_t>(MathFn::Abs, i32, j32, [](std::int32_t x, auto) { return x < 0 ? 0u - std::uint32_t(x) : std::uint32_t(x); });
  check_integer_function<std::int64_t>(MathFn::Abs, i64, j64, [](std::int64_t x, auto) { return x < 0 ? 0ull - std::uint64_t(x) : std::uint64_t(x); });
  check_integer_function<std::uint32_t>(MathFn::Popc, u32, v32, [](std::uint32_t x, auto) { return std::popcount(x); });
  check_integer_function<std::int64_t>(MathFn::Popc, i64, j64, [](std::int64_t x, auto) { return std::popcount(std::uint64_t(x)); });
  check_integer_function<std::int32_t>(MathFn::Clz, i32, j32, [](std::int32_t x, auto) { return std::countl_zero(std::uint32_t(x)); });
  check_integer_function<std::uint64_t>(MathFn::Clz, u64, v64, [](std::uint64_t x, auto) { return std::countl_zero(x); });
  check_integer_function<std::int32_t>(MathFn::Ffs, i32, j32, [](std::int32_t x, auto) { return x ? std::countr_zero(std::uint32_t(x)) + 1 : 0; });
  check_integer_function<std::uint64_t>(MathFn::Ffs, u64, v64, [](std::uint64_t x, auto) { return x ? std::countr_zero(x) + 1 : 0; });
  check_integer_function<std::uint32_t>(MathFn::Brev, u32, v32, [&](std::uint32_t x, auto) { return brev(x); });
  check_integer_function<std::int64_t>(MathFn::Brev, i64, j64, [&](std::int64_t x, auto) { return brev(x); });
  check_integer_function<std::int32_t>(MathFn::Mulhi, i32, j32, [](std::int32_t x, std::int32_t y) { return (std::int64_t(x) * y) >> 32; });
  check_integer_function<std::uint32_t>(MathFn::Mulhi, u32, v32, [](std::uint32_t x, std::uint32_t y) { return (std::uint64_t(x) * y) >> 32; });
  check_integer_function<std::int64_t>(MathFn::Mulhi, i64, j64, [](std::int64_t x, std::int64_t y) { return std::int64_t((__int128(x) * y) >> 64); });
  check_integer_function<std::uint64_t>(MathFn::Mulhi, u64, v64,
                                        [](std::uint64_t x, std::uint64_t y) { return std::uint64_t(((unsigned __int128)x * y) >> 64); });
}

}  // namespace
}  // namespace cutlet
