// f32 division and square root in tile kernels are correctly rounded, bit for bit against the
// CPU, over random bit patterns of every exponent and the special values: on Hopper they run
// without ptxas's slow-path subroutines (call_free_math.h), elsewhere as div.rn and sqrt.rn.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

#include "gpu_test_support.h"
#include "kernel_test_support.h"

using namespace cutlet;
using namespace cutlet::test;

namespace {

constexpr int kN = 1 << 16, kBlock = 1024;

std::uint32_t bits(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}

bool same(float got, float want) { return bits(got) == bits(want) || (std::isnan(got) && std::isnan(want)); }

TEST(CallFreeMathGpu, DivisionAndSquareRootAreCorrectlyRounded) {
  CUTLET_REQUIRE_GPU();
  std::mt19937 rng(20261202);
  std::vector<float> a(kN), b(kN);
  const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-45f, -1e-45f, 1.17549435e-38f, 3.4028235e38f, 1.0f, -3.0f};
  for (int i = 0; i < kN; ++i) {
    auto pick = [&] {
      if (rng() % 16 == 0) return specials[rng() % std::size(specials)];
      const std::uint32_t u = static_cast<std::uint32_t>(rng());
      float f;
      std::memcpy(&f, &u, 4);
      return f;
    };
    a[i] = pick();
    b[i] = pick();
  }
  auto k = tile_kernel([](Tensor<float, 1> q, Tensor<float, 1> s, Tensor<float, 1> x, Tensor<float, 1> y) {
    auto i = program_id(0) * kBlock + arange(kBlock);
    auto xs = load(x, {i}), ys = load(y, {i});
    store(q, {i}, xs / ys);
    store(s, {i}, sqrt(xs));
  }, {.name = "div_sqrt"}, 4);
  Stream st;
  Buffer<float> x(st, a), y(st, b);
  auto q = poisoned<float>(st, kN), s = poisoned<float>(st, kN);
  k.launch(st, {.grid = kN / kBlock}, tensor(q, {kN}), tensor(s, {kN}), tensor(x, {kN}), tensor(y, {kN}));
  const auto hq = q.to_host(st), hs = s.to_host(st);
  int wrong = 0;
  for (int i = 0; i < kN && wrong < 10; ++i) {
    if (!same(hq[i], a[i] / b[i])) {
      ADD_FAILURE() << a[i] << " / " << b[i] << ": got " << hq[i] << " (0x" << std::hex << bits(hq[i]) << "), want "
                    << a[i] / b[i] << " (0x" << bits(a[i] / b[i]) << std::dec << ")";
      ++wrong;
    }
    if (!same(hs[i], std::sqrt(a[i]))) {
      ADD_FAILURE() << "sqrt(" << a[i] << "): got " << hs[i] << ", want " << std::sqrt(a[i]);
      ++wrong;
    }
  }
}

}  // namespace
