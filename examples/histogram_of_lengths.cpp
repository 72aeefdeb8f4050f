// The histogram of the lengths of ten million 2-D vectors, without a buffer of lengths: a
// zip_iterator reads x[i] and y[i] in step, a transform_iterator turns them into
// sqrt(x*x + y*y), and algorithms::histogram_even counts what that gives in 20 bins. The
// iterators and the lambda are traced into the histogram's one kernel.
//
// It runs on the GPU when there is one and on the CPU device otherwise (no driver needed),
// and checks the counts against the host's.
#include <cutlet/algorithms.h>
#include <cutlet/cutlet.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

using namespace cutlet;
namespace alg = cutlet::algorithms;

int main() {
  const Device device = driver_available() ? Device(0) : Device::cpu();
  Stream stream(device);
  constexpr std::size_t n = 10'000'019;
  constexpr int bins = 20;
  constexpr float max_length = 2.0f;

  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 0.6f);
  std::vector<float> hx(n), hy(n);
  for (std::size_t i = 0; i < n; ++i) {
    hx[i] = normal(rng);
    hy[i] = normal(rng);
  }
  Buffer<float> x(stream, hx), y(stream, hy);
  Buffer<std::uint32_t> histogram(bins, device);

  auto lengths = alg::transform_iterator(alg::zip_iterator(x, y), [](f32 a, f32 b) { return sqrt(a * a + b * b); });
  alg::histogram_even(stream, lengths, n, histogram, bins + 1, 0.0f, max_length);
  const std::vector<std::uint32_t> got = histogram.to_host(stream);

  // The host's count; a length within rounding of a bin edge may land on either side.
  std::vector<std::uint32_t> want(bins, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const float length = std::sqrt(hx[i] * hx[i] + hy[i] * hy[i]);
    if (length < max_length) ++want[std::min(static_cast<int>(length * (bins / max_length)), bins - 1)];
  }
  std::printf("%s: lengths of %zu vectors in %d bins of %.2f\n", device.name().c_str(), n, bins, max_length / bins);
  bool ok = true;
  std::uint64_t counted = 0;
  for (int b = 0; b < bins; ++b) {
    const long diff = static_cast<long>(got[b]) - static_cast<long>(want[b]);
    const bool close = std::labs(diff) <= 2;
    ok = ok && close;
    counted += got[b];
    std::printf("  [%.2f, %.2f) %9u %s%s\n", b * max_length / bins, (b + 1) * max_length / bins, got[b],
                std::string(static_cast<std::size_t>(60.0 * got[b] / (n / 8.0)), '#').c_str(),
                close ? "" : "  <- WRONG");
  }
  std::printf("%llu of %zu counted (the rest are longer than %.1f)\n%s\n", static_cast<unsigned long long>(counted), n,
              max_length, ok ? "correct" : "WRONG");
  return ok ? 0 : 1;
}
