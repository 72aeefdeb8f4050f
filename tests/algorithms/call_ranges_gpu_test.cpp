// The NVTX range around each algorithm call, named by the algorithm and the element type, with
// the first call's compiles inside it.
#include <gtest/gtest.h>

#include <cutlet/algorithms.h>
#include <cutlet/cutlet.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gpu_test_support.h"
#include "range_recorder.h"

using namespace cutlet;
namespace alg = cutlet::algorithms;

namespace {

struct Positive {
  Value<bool> operator()(const f32& x) const { return x > 0.0f; }
};

TEST(AlgorithmsCallRangesGpu, EveryCallOpensARangeNamedByAlgorithmAndType) {
  CUTLET_REQUIRE_GPU();
  Stream s;
  const std::vector<float> hx{3.0f, -1.0f, 2.0f, 2.0f, -5.0f, 0.5f, 7.0f};
  Buffer<float> x(s, hx), y(hx.size(), s.device()), one(1, s.device());
  Buffer<std::int32_t> keys(s, std::vector<std::int32_t>{1, 1, 2, 3, 3, 3, 4}), firsts(7, s.device()),
      counts(7, s.device()), count(1, s.device()), positions(7, s.device()),
      offsets(s, std::vector<std::int32_t>{0, 3, 7});
  Buffer<std::uint32_t> hist(4, s.device());
  test::RangeRecorder ranges;
  alg::reduce(s, x, one, alg::plus{}, 0.0f);
  alg::segmented_reduce(s, x, y, offsets, alg::plus{}, 0.0f);
  alg::transform(s, x, y, [](f32 v) { return v * 2.0f; });
  alg::transform(s, x, x, y, alg::plus{});
  alg::inclusive_scan(s, x, y, alg::plus{});
  alg::exclusive_scan(s, x, y, alg::plus{}, 0.0f);
  alg::select_if(s, x, y, count, Positive{});
  alg::unique(s, keys, firsts, count);
  alg::run_length_encode(s, keys, firsts, counts, count);
  alg::histogram_even(s, x, hist, 5, -8.0f, 8.0f);
  alg::lower_bound(s, keys, keys, positions);
  alg::upper_bound(s, keys, keys, positions);
  s.synchronize();
  const std::vector<std::string> want{
      "cutlet algorithm reduce f32",         "cutlet algorithm segmented_reduce f32",
      "cutlet algorithm transform f32",      "cutlet algorithm inclusive_scan f32",
      "cutlet algorithm exclusive_scan f32", "cutlet algorithm select_if f32",
      "cutlet algorithm unique i32",         "cutlet algorithm run_length_encode i32",
      "cutlet algorithm histogram_even f32", "cutlet algorithm lower_bound i32",
      "cutlet algorithm upper_bound i32"};
  const auto names = ranges.recorded();
  for (const auto& w : want) EXPECT_TRUE(ranges.saw(w)) << w << " not among:\n" << test::joined(names);
  EXPECT_EQ(std::count(names.begin(), names.end(), "cutlet algorithm transform f32"), 2) << test::joined(names);
  // A first call compiles inside its range: the compile's range opens after the call's.
  const auto call = std::find(names.begin(), names.end(), "cutlet algorithm reduce f32");
  const auto compile = std::find_if(names.begin(), names.end(), [](const std::string& n) {
    return n.rfind("cutlet compile cutlet_reduce_partials_f32", 0) == 0;
  });
  if (compile != names.end()) {
    EXPECT_LT(call - names.begin(), compile - names.begin()) << test::joined(names);
  }
}

}  // namespace
