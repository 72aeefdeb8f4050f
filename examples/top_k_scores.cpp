// The ten best-scoring of a million documents and where they are: each document's score
// blends its relevance with its age (algorithms::transform with a user lambda, traced into
// the kernel), then algorithms::top_k picks the ten largest with their indices, best first,
// without sorting the million. Then the five newest (the smallest ages), in input order.
//
// It runs on the GPU when there is one and on the CPU device otherwise (no driver needed),
// and checks both answers against std::partial_sort on the host.
#include <cutlet/algorithms.h>
#include <cutlet/cutlet.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

using namespace cutlet;
namespace alg = cutlet::algorithms;

namespace {

constexpr std::size_t kDocuments = 1'000'003;
constexpr std::size_t kBest = 10;
constexpr std::size_t kNewest = 5;

/// The score of a document of relevance r (0..1) and age in days: relevance, fading with age
/// (a half-life of 30 days).
float host_score(float relevance, float age) { return relevance * std::exp2(-age / 30.0f); }

/// The positions of the `k` best of `v` by `better`, best first, ties by position.
template <class Better>
std::vector<std::int64_t> host_best(const std::vector<float>& v, std::size_t k, Better better) {
  std::vector<std::int64_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::partial_sort(order.begin(), order.begin() + static_cast<long>(k), order.end(), [&](std::int64_t a, std::int64_t b) {
    return better(v[a], v[b]) || (!better(v[b], v[a]) && a < b);
  });
  order.resize(k);
  return order;
}

}  // namespace

int main() {
  const Device device = driver_available() ? Device(0) : Device::cpu();
  Stream stream(device);

  std::mt19937 rng(2026);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  std::vector<float> relevance(kDocuments), age(kDocuments);
  for (auto& r : relevance) r = unit(rng);
  for (auto& a : age) a = std::floor(unit(rng) * 3650.0f);  // whole days: many equal ages
  Buffer<float> d_relevance(stream, relevance), d_age(stream, age), scores(kDocuments, device);

  // Scores on the device: the lambda is traced once and inlined into transform's kernel.
  alg::transform(stream, d_relevance, d_age, scores,
                 [](f32 r, f32 days) { return r * exp2(-days / 30.0f); });

  Buffer<float> best(kBest, device);
  Buffer<std::int64_t> best_at(kBest, device);
  alg::top_k(stream, scores, kBest, best, best_at);  // the largest, best first

  Buffer<float> newest(kNewest, device);
  Buffer<std::int64_t> newest_at(kNewest, device);
  alg::top_k(stream, d_age, kNewest, newest, newest_at, {.largest = false, .sorted = false});

  const std::vector<float> got_best = best.to_host(stream);
  const std::vector<std::int64_t> got_best_at = best_at.to_host(stream);
  const std::vector<std::int64_t> got_newest_at = newest_at.to_host(stream);

  std::vector<float> host_scores(kDocuments);
  for (std::size_t i = 0; i < kDocuments; ++i) host_scores[i] = host_score(relevance[i], age[i]);
  const auto want_best = host_best(host_scores, kBest, [](float a, float b) { return a > b; });
  auto want_newest = host_best(age, kNewest, [](float a, float b) { return a < b; });
  std::sort(want_newest.begin(), want_newest.end());  // in input order, as asked

  std::printf("%s: the %zu best of %zu documents\n", device.name().c_str(), kBest, kDocuments);
  bool ok = true;
  for (std::size_t i = 0; i < kBest; ++i) {
    const auto at = static_cast<std::size_t>(got_best_at[i]);
    // The device's exp2 may round differently from the host's: compare scores loosely, and
    // the index only where the host's order is clear.
    const bool close = std::fabs(got_best[i] - host_scores[at]) <= 1e-5f * host_scores[at];
    const bool same = static_cast<std::size_t>(want_best[i]) == at ||
                      std::fabs(host_scores[static_cast<std::size_t>(want_best[i])] - host_scores[at]) <= 1e-5f;
    ok = ok && close && same;
    std::printf("  #%zu document %7zu: score %.6f (relevance %.4f, %4.0f days old)%s\n", i + 1, at, got_best[i],
                relevance[at], age[at], close && same ? "" : "  <- WRONG");
  }
  std::printf("the %zu newest, in input order:", kNewest);
  for (std::int64_t at : got_newest_at)
    std::printf(" %lld (%.0f days)", static_cast<long long>(at), age[static_cast<std::size_t>(at)]);
  std::printf("\n");
  ok = ok && got_newest_at == want_newest;
  std::printf("%s\n", ok ? "correct" : "WRONG");
  return ok ? 0 : 1;
}
