// The PTX of algorithm kernels over iterators: the iterators' reads and the user's operators
// traced into the kernel (no call anywhere), a zip's two loads feeding one multiply-add, a
// cache-modified iterator's hint on its loads, a permutation's gather (the index loaded, then
// the value at it), and a counting iterator that loads nothing.
#include <gtest/gtest.h>

#include <string>

#include "algorithms/algorithm_test_support.h"
#include "filecheck_support.h"

using namespace cutlet;
namespace alg = cutlet::algorithms;

namespace {

constexpr const char* kNoCall = "CHECK-NOT: {{[[:space:]]call(\\.uni)?[[:space:]]}}\n";

TEST(AlgorithmsIteratorsCodegen, ReduceOfAZipTransformLoadsBothAndMultiplies) {
  Buffer<float> none;
  auto product = [](f32 a, f32 b) { return a * b; };
  using It = decltype(alg::transform_iterator(alg::zip_iterator(none, none), product));
  auto k = alg::reduce_iterator_kernel<It, alg::plus>().compile();
  EXPECT_FALSE(k->cubin.empty());
  expect_filecheck(k->ptx, std::string("CHECK: .visible .entry cutlet_reduce_partials_iterator_f32(\n") + kNoCall +
                               "CHECK: ld.global.f32\n" + kNoCall + "CHECK: ld.global.f32\n" + kNoCall +
                               "CHECK: {{mul|fma}}.rn.f32\n" + kNoCall + "CHECK: shfl.sync\n" + kNoCall);
}

TEST(AlgorithmsIteratorsCodegen, ACacheModifiedIteratorLoadsWithItsHint) {
  Buffer<float> none;
  using Streaming = decltype(alg::cache_modified_iterator<CacheHint::Streaming>(none));
  expect_filecheck(alg::reduce_iterator_kernel<Streaming, alg::plus>().compile()->ptx,
                   std::string("CHECK: .visible .entry cutlet_reduce_partials_iterator_f32(\n") + kNoCall +
                       "CHECK: ld.global.cs.f32\n" + kNoCall);
  using ReadOnly = decltype(alg::cache_modified_iterator<CacheHint::ReadOnly>(none));
  expect_filecheck(alg::reduce_iterator_kernel<ReadOnly, alg::plus>().compile()->ptx,
                   std::string("CHECK: .visible .entry cutlet_reduce_partials_iterator_f32(\n") + kNoCall +
                       "CHECK: ld.global.nc.f32\n" + kNoCall);
}

TEST(AlgorithmsIteratorsCodegen, APermutationGathersThroughItsIndices) {
  Buffer<double> values;
  Buffer<std::int32_t> indices;
  using It = decltype(alg::permutation_iterator(values, indices));
  expect_filecheck(alg::reduce_iterator_kernel<It, alg::maximum>().compile()->ptx,
                   std::string("CHECK: .visible .entry cutlet_reduce_partials_iterator_f64(\n") + kNoCall +
                       "CHECK: ld.global.{{[us]}}32\n" + kNoCall + "CHECK: ld.global.f64\n" + kNoCall +
                       "CHECK: max.f64\n" + kNoCall);
}

TEST(AlgorithmsIteratorsCodegen, ACountingIteratorLoadsNothing) {
  using It = decltype(alg::counting_iterator<std::int64_t>(0));
  expect_filecheck(alg::reduce_iterator_kernel<It, alg::plus>().compile()->ptx,
                   std::string("CHECK: .visible .entry cutlet_reduce_partials_iterator_i64(\n") +
                       "CHECK-NOT: ld.global\n" + "CHECK: st.global.u64\n");
}

TEST(AlgorithmsIteratorsCodegen, HistogramAndTransformOverIterators) {
  Buffer<float> x;
  auto magnitude = [](f32 v) { return abs(v); };
  using Magnitudes = decltype(alg::transform_iterator(x, magnitude));
  expect_filecheck(alg::histogram_iterator_kernel<true, Magnitudes>().compile()->ptx,
                   std::string("CHECK: .visible .entry cutlet_histogram_even_iterator_shared_f32(\n") + kNoCall +
                       "CHECK: ld.global.f32\n" + kNoCall + "CHECK: abs.f32\n" + kNoCall +
                       "CHECK: atom{{(.relaxed.cta)?}}.shared.add.u32\n" + kNoCall);
  Buffer<std::int64_t> where;
  using Scatter = decltype(alg::permutation_iterator(x, where));
  auto twice = [](f32 v) { return v * 2.0f; };
  expect_filecheck(
      alg::transform_iterator_kernel<alg::BufferIterator<float>, Scatter, decltype(twice)>().compile()->ptx,
      std::string("CHECK: .visible .entry cutlet_transform_iterator_f32(\n") + kNoCall + "CHECK: ld.global.f32\n" +
          kNoCall + "CHECK: ld.global.u64\n" + kNoCall + "CHECK: st.global.f32\n" + kNoCall);
}

}  // namespace
