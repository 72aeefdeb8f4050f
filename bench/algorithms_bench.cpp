// cutlet::algorithms against CUB at 2^28 elements (1 GiB), timed in the same iterations:
// BM_algorithms_reduce (algorithms::reduce with plus vs cub::DeviceReduce::Sum),
// BM_algorithms_reduce_struct (algorithms::reduce over 2^26 structs {lo, hi, sum} of floats
// with a user operator over Struct values vs cub::DeviceReduce::Reduce with a struct functor),
// BM_algorithms_scan (algorithms::inclusive_scan with plus vs cub::DeviceScan::InclusiveSum),
// BM_algorithms_scan_by_key (algorithms::inclusive_scan_by_key with plus over the floats in
// runs of 1 to 8 i32 keys vs cub::DeviceScan::InclusiveSumByKey),
// BM_algorithms_segmented_reduce (algorithms::segmented_reduce with plus over 2^16 segments of
// 4096 floats vs cub::DeviceSegmentedReduce::Sum), BM_algorithms_select_if (x > 0, about half
// of the floats, vs cub::DeviceSelect::If) and BM_algorithms_unique (i32 keys in runs of 1 to
// 8 vs cub::DeviceSelect::Unique); and at 2^26 random u32 keys BM_algorithms_radix_sort_keys
// and BM_algorithms_radix_sort_pairs (u32 values) against cub::DeviceRadixSort, in Gkeys/s
// (BM_algorithms_radix_sort_keys_16: 2^26 half or u16 keys);
// BM_algorithms_three_way_partition (x > 0.5, x < -0.5 and the rest of 2^28 floats vs
// cub::DevicePartition::If), and at 2^24 random u32 keys BM_algorithms_merge_sort_keys and
// BM_algorithms_merge_sort_pairs (a user comparator a < b, and CUB's DeviceMergeSort with the
// same comparator as a functor); BM_algorithms_top_k (the 1024 largest of 2^26 random u32 keys
// with their indices, sorted and in input order) against a quarter of the time of CUB's
// DeviceRadixSort::SortKeys of the same keys (CUDA 13.0's CUB has no DeviceTopK). Every result
// is checked against the CPU before timing.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <cutlet/algorithms.h>

#include "simt_bench_support.h"

namespace cutlet::bench {
namespace {

namespace alg = cutlet::algorithms;

constexpr int kN = 1 << 28;
constexpr int kSegments = 1 << 16;
constexpr int kSegmentLength = kN / kSegments;  // 4096
constexpr int kReps = 10;
constexpr int kIterations = 30;
constexpr double kReduceBytes = sizeof(float) * double(kN);        // read once
constexpr double kScanBytes = 2.0 * sizeof(float) * double(kN);    // read and written once
// Read once, and the sums and offsets.
constexpr double kSegmentedBytes = kReduceBytes + (2.0 * kSegments + 1) * 4;

/// select_if's predicate: x > 0.
struct Positive {
  Value<bool> operator()(const f32& x) const { return x > 0.0f; }
};

/// three_way_partition's predicates: x > 0.5 first, then x < -0.5.
struct AboveHalf {
  Value<bool> operator()(const f32& x) const { return x > 0.5f; }
};
struct BelowMinusHalf {
  Value<bool> operator()(const f32& x) const { return x < -0.5f; }
};

struct Env {
  Device device{0};
  Stream stream{device};
  Buffer<float> x{kN, device}, y{kN, device}, out{1, device}, sums{kSegments, device};
  Buffer<std::int32_t> offsets{kSegments + 1, device}, keys{kN, device}, unique_keys{kN, device}, count{1, device};
  std::vector<float> hx;
  std::vector<std::int32_t> hkeys;
  double select_bytes = 0, unique_bytes = 0;  // read once, the kept items written once
  Buffer<float> second_part{kN, device}, unselected_part{kN, device};
  Buffer<std::int32_t> part_counts{2, device};
  bool partition_checked = false;

  Env() {
    fill_random(stream, x, 47);
    hx = x.to_host(stream);
    std::vector<std::int32_t> ho(kSegments + 1);
    for (int s = 0; s <= kSegments; ++s) ho[s] = s * kSegmentLength;
    offsets.copy_from_host(stream, ho);
    // Keys in runs of 1 to 8 (4.5 on average), each run's key the run's index.
    hkeys.resize(kN);
    std::mt19937_64 rng(53);
    for (std::int32_t i = 0, run = 0; i < kN; ++run)
      for (int len = 1 + static_cast<int>(rng() % 8); len > 0 && i < kN; --len) hkeys[i++] = run;
    keys.copy_from_host(stream, hkeys);
    check_reduce("cutlet::algorithms::reduce", [&] { run_reduce(); });
    check_reduce("cub::DeviceReduce::Sum", [&] { run_cub_reduce(); });
    check_scan("cutlet::algorithms::inclusive_scan", [&] { run_scan(); });
    check_scan("cub::DeviceScan::InclusiveSum", [&] { run_cub_scan(); });
    check_scan("cutlet::algorithms::inclusive_scan_by_key", [&] { run_scan_by_key(); }, true);
    check_scan("cub::DeviceScan::InclusiveSumByKey", [&] { run_cub_scan_by_key(); }, true);
    check_segmented("cutlet::algorithms::segmented_reduce", [&] { run_segmented(); });
    check_segmented("cub::DeviceSegmentedReduce::Sum", [&] { run_cub_segmented(); });
    select_bytes = check_select("cutlet::algorithms::select_if", [&] { run_select(); });
    check_select("cub::DeviceSelect::If", [&] { run_cub_select(); });
    unique_bytes = check_unique("cutlet::algorithms::unique", [&] { run_unique(); });
    check_unique("cub::DeviceSelect::Unique", [&] { run_cub_unique(); });
  }

  void run_reduce() { alg::reduce(stream, x, out, alg::plus{}, 0.0f); }
  void run_cub_reduce() {
    check_cub(cutlet_cub_reduce_sum(reinterpret_cast<const float*>(x.data()), reinterpret_cast<float*>(out.data()), kN,
                                    stream.handle()),
              "cub::DeviceReduce::Sum");
  }
  void run_scan() { alg::inclusive_scan(stream, x, y, alg::plus{}); }
  void run_scan_by_key() { alg::inclusive_scan_by_key(stream, keys, x, y, alg::plus{}); }
  void run_cub_scan_by_key() {
    check_cub(cutlet_cub_inclusive_sum_by_key(reinterpret_cast<const int*>(keys.data()),
                                              reinterpret_cast<const float*>(x.data()),
                                              reinterpret_cast<float*>(y.data()), kN, stream.handle()),
              "cub::DeviceScan::InclusiveSumByKey");
  }
  void run_cub_scan() {
    check_cub(cutlet_cub_inclusive_sum(reinterpret_cast<const float*>(x.data()), reinterpret_cast<float*>(y.data()),
                                       kN, stream.handle()),
              "cub::DeviceScan::InclusiveSum");
  }

  void run_segmented() { alg::segmented_reduce(stream, x, sums, offsets, alg::plus{}, 0.0f); }
  void run_cub_segmented() {
    check_cub(cutlet_cub_segmented_reduce_sum(reinterpret_cast<const float*>(x.data()),
                                              reinterpret_cast<float*>(sums.data()), kSegments,
                                              reinterpret_cast<const int*>(offsets.data()), stream.handle()),
              "cub::DeviceSegmentedReduce::Sum");
  }
  void run_select() { alg::select_if(stream, x, y, count, Positive{}); }
  void run_cub_select() {
    check_cub(cutlet_cub_select_positive(reinterpret_cast<const float*>(x.data()), reinterpret_cast<float*>(y.data()),
                                         reinterpret_cast<int*>(count.data()), kN, stream.handle()),
              "cub::DeviceSelect::If");
  }
  void run_unique() { alg::unique(stream, keys, unique_keys, count); }
  void run_partition() {
    alg::three_way_partition(stream, x, y, second_part, unselected_part, part_counts, AboveHalf{}, BelowMinusHalf{});
  }
  void run_cub_partition() {
    check_cub(cutlet_cub_three_way_partition(
                  reinterpret_cast<const float*>(x.data()), reinterpret_cast<float*>(y.data()),
                  reinterpret_cast<float*>(second_part.data()), reinterpret_cast<float*>(unselected_part.data()),
                  reinterpret_cast<int*>(part_counts.data()), kN, stream.handle()),
              "cub::DevicePartition::If");
  }
  /// Throws cutlet::Error naming `who` unless the three parts and their counts are the CPU's
  /// sequential split of x (x > 0.5, else x < -0.5, else the rest).
  template <class F>
  void check_partition(const char* who, F&& run) {
    for (Buffer<float>* b : {&y, &second_part, &unselected_part}) b->fill_bytes(stream, 0xff);
    run();
    std::vector<float> want[3];
    for (float v : hx) want[v > 0.5f ? 0 : v < -0.5f ? 1 : 2].push_back(v);
    const std::vector<std::int32_t> counts = part_counts.to_host(stream);
    if (counts[0] != static_cast<std::int32_t>(want[0].size()) || counts[1] != static_cast<std::int32_t>(want[1].size()))
      throw Error(std::string("cutlet_bench: ") + who + " counted " + std::to_string(counts[0]) + " and " +
                  std::to_string(counts[1]) + " items, want " + std::to_string(want[0].size()) + " and " +
                  std::to_string(want[1].size()));
    const Buffer<float>* parts[3] = {&y, &second_part, &unselected_part};
    for (int k = 0; k < 3; ++k)
      if (std::memcmp(parts[k]->to_host(stream).data(), want[k].data(), want[k].size() * sizeof(float)) != 0)
        throw Error(std::string("cutlet_bench: ") + who + " put the wrong items in part " + std::to_string(k));
  }
  void run_cub_unique() {
    check_cub(cutlet_cub_unique_i32(reinterpret_cast<const int*>(keys.data()), reinterpret_cast<int*>(unique_keys.data()),
                                    reinterpret_cast<int*>(count.data()), kN, stream.handle()),
              "cub::DeviceSelect::Unique");
  }

  /// Throws cutlet::Error naming `who` unless out[0] is the CPU's sum within 1e-6 of the sum of |x|.
  template <class F>
  void check_reduce(const char* who, F&& run) {
    out.fill_bytes(stream, 0xff);  // NaN: a run that writes nothing fails
    run();
    const float got = out.to_host(stream)[0];
    double want = 0, magnitude = 0;
    for (float v : hx) {
      want += v;
      magnitude += std::fabs(v);
    }
    if (!(std::fabs(got - want) <= 1e-6 * magnitude))
      throw Error(std::string("cutlet_bench: ") + who + " is wrong: got " + std::to_string(got) + ", want " +
                  std::to_string(want));
  }
  /// Throws cutlet::Error naming `who` unless every 4096th prefix and the last one are the
  /// CPU's within 1e-5 of the prefix's sum of |x|; `by_key`: of the scan starting again at
  /// every run of hkeys.
  template <class F>
  void check_scan(const char* who, F&& run, bool by_key = false) {
    y.fill_bytes(stream, 0xff);
    run();
    const std::vector<float> got = y.to_host(stream);
    double want = 0, magnitude = 0;
    for (int i = 0; i < kN; ++i) {
      if (by_key && (i == 0 || hkeys[i] != hkeys[i - 1])) want = magnitude = 0;
      want += hx[i];
      magnitude += std::fabs(hx[i]);
      if ((i % 4096 == 0 || i == kN - 1) && !(std::fabs(got[i] - want) <= 1e-5 * magnitude + 1e-6))
        throw Error(std::string("cutlet_bench: ") + who + " is wrong at " + std::to_string(i) + ": got " +
                    std::to_string(got[i]) + ", want " + std::to_string(want));
    }
  }
  /// Throws cutlet::Error naming `who` unless every segment's sum is the CPU's within 1e-5 of
  /// its sum of |x|.
  template <class F>
  void check_segmented(const char* who, F&& run) {
    sums.fill_bytes(stream, 0xff);
    run();
    const std::vector<float> got = sums.to_host(stream);
    for (int s = 0; s < kSegments; ++s) {
      double want = 0, magnitude = 0;
      for (int i = s * kSegmentLength; i < (s + 1) * kSegmentLength; ++i) {
        want += hx[i];
        magnitude += std::fabs(hx[i]);
      }
      if (!(std::fabs(got[s] - want) <= 1e-5 * magnitude))
        throw Error(std::string("cutlet_bench: ") + who + " is wrong at segment " + std::to_string(s) + ": got " +
                    std::to_string(got[s]) + ", want " + std::to_string(want));
    }
  }
  /// Throws cutlet::Error naming `who` unless count[0] and y[0, count) are std::copy_if's of x
  /// by x > 0. Returns the bytes moved: x read, the kept items written.
  template <class F>
  double check_select(const char* who, F&& run) {
    y.fill_bytes(stream, 0xff);
    count.fill_bytes(stream, 0xff);
    run();
    std::vector<float> want;
    std::copy_if(hx.begin(), hx.end(), std::back_inserter(want), [](float v) { return v > 0.0f; });
    expect_kept(who, y.to_host(stream), want);
    return kReduceBytes + sizeof(float) * double(want.size());
  }
  /// As check_select for unique of the keys.
  template <class F>
  double check_unique(const char* who, F&& run) {
    unique_keys.fill_bytes(stream, 0xff);
    count.fill_bytes(stream, 0xff);
    run();
    std::vector<std::int32_t> want;
    std::unique_copy(hkeys.begin(), hkeys.end(), std::back_inserter(want));
    expect_kept(who, unique_keys.to_host(stream), want);
    return sizeof(std::int32_t) * double(kN) + sizeof(std::int32_t) * double(want.size());
  }
  /// Throws cutlet::Error naming `who` unless count[0] is want.size() and got starts with want.
  template <class T>
  void expect_kept(const char* who, const std::vector<T>& got, const std::vector<T>& want) {
    const std::int32_t m = count.to_host(stream)[0];
    if (m != static_cast<std::int32_t>(want.size()))
      throw Error(std::string("cutlet_bench: ") + who + " kept " + std::to_string(m) + " items, want " +
                  std::to_string(want.size()));
    if (std::memcmp(got.data(), want.data(), want.size() * sizeof(T)) != 0)
      throw Error(std::string("cutlet_bench: ") + who + " kept the right number of items but not the right ones");
  }
};

Env& env() {
  static auto e = std::make_unique<Env>();
  return *e;
}

constexpr int kSortN = 1 << 26;

/// A sort benchmark's data: n random u32 keys (all 32 bits) and their indices as values,
/// with the outputs, and the check of a sort's result against the CPU.
struct SortData {
  Device device{0};
  Stream stream{device};
  int n;
  Buffer<std::uint32_t> keys, values, keys_out, values_out;
  std::vector<std::uint32_t> hkeys;

  SortData(int count, unsigned seed)
      : n(count), keys(count, device), values(count, device), keys_out(count, device), values_out(count, device) {
    hkeys.resize(n);
    std::mt19937 rng(seed);
    for (auto& k : hkeys) k = rng();
    std::vector<std::uint32_t> hvalues(n);
    for (int i = 0; i < n; ++i) hvalues[i] = static_cast<std::uint32_t>(i);
    keys.copy_from_host(stream, hkeys);
    values.copy_from_host(stream, hvalues);
  }

  /// Throws cutlet::Error naming `who` unless keys_out is the CPU's stable sort of the keys
  /// and, with `pairs`, values_out their input positions.
  template <class F>
  void check(const char* who, F&& run, bool pairs) {
    keys_out.fill_bytes(stream, 0xa5);
    values_out.fill_bytes(stream, 0xa5);
    run();
    const std::vector<std::uint32_t> got = keys_out.to_host(stream);
    std::vector<std::uint32_t> order(n);
    for (int i = 0; i < n; ++i) order[i] = static_cast<std::uint32_t>(i);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return hkeys[a] < hkeys[b]; });
    const std::vector<std::uint32_t> got_values = pairs ? values_out.to_host(stream) : std::vector<std::uint32_t>{};
    for (int i = 0; i < n; ++i) {
      if (got[i] != hkeys[order[i]])
        throw Error(std::string("cutlet_bench: ") + who + " is wrong at " + std::to_string(i) + ": key " +
                    std::to_string(got[i]) + ", want " + std::to_string(hkeys[order[i]]));
      if (pairs && got_values[i] != order[i])
        throw Error(std::string("cutlet_bench: ") + who + " is wrong at " + std::to_string(i) + ": value " +
                    std::to_string(got_values[i]) + ", want " + std::to_string(order[i]));
    }
  }

  /// Times a cutlet sort and CUB's of the n keys in the same iterations: counters Gkeys/s,
  /// cub_Gkeys/s, vs_cub, and the registers of `kernel` (the sorting one).
  template <class K, class Run, class CubRun>
  void time_against_cub(benchmark::State& state, const K& kernel, Run&& run, CubRun&& cub_run) {
    SameRun runs;
    runs.add("cutlet", run);
    runs.add("cub", cub_run);
    for (auto _ : state) state.SetIterationTime(runs.iterate(stream, kReps) * 1e-3);
    const double gkeys = n / (runs.median_ms("cutlet") * 1e-3) / 1e9;
    const double cub = n / (runs.median_ms("cub") * 1e-3) / 1e9;
    state.counters["Gkeys/s"] = gkeys;
    state.counters["cub_Gkeys/s"] = cub;
    state.counters["vs_cub"] = gkeys / cub;
    state.counters["regs"] = registers_of(kernel);
  }
};

/// The radix sorts' data: 2^26 keys.
struct SortEnv : SortData {
  SortEnv() : SortData(kSortN, 61) {
    check("cutlet::algorithms::radix_sort_pairs", [&] { run_pairs(); }, true);
    check("cub::DeviceRadixSort::SortPairs", [&] { run_cub_pairs(); }, true);
    check("cutlet::algorithms::radix_sort_keys", [&] { run_keys(); }, false);
    check("cub::DeviceRadixSort::SortKeys", [&] { run_cub_keys(); }, false);
  }

  void run_keys() { alg::radix_sort_keys(stream, keys, keys_out); }
  void run_pairs() { alg::radix_sort_pairs(stream, keys, keys_out, values, values_out); }
  void run_cub_keys() {
    check_cub(cutlet_cub_radix_sort_keys_u32(reinterpret_cast<const unsigned*>(keys.data()),
                                             reinterpret_cast<unsigned*>(keys_out.data()), n, stream.handle()),
              "cub::DeviceRadixSort::SortKeys");
  }
  void run_cub_pairs() {
    check_cub(cutlet_cub_radix_sort_pairs_u32(
                  reinterpret_cast<const unsigned*>(keys.data()), reinterpret_cast<unsigned*>(keys_out.data()),
                  reinterpret_cast<const unsigned*>(values.data()), reinterpret_cast<unsigned*>(values_out.data()), n,
                  stream.handle()),
              "cub::DeviceRadixSort::SortPairs");
  }
};

SortEnv& sort_env() {
  static auto e = std::make_unique<SortEnv>();
  return *e;
}

/// 2^26 keys of 2 bytes (K: half, random finite values in [-1000, 1000]; or std::uint16_t,
/// random bits), sorted by algorithms::radix_sort_keys (two passes) and by CUB's SortKeys,
/// each checked against the CPU's sort first.
template <class K>
struct NarrowSortEnv {
  Device device{0};
  Stream stream{device};
  int n = kSortN;
  Buffer<K> keys{static_cast<std::size_t>(kSortN), device}, keys_out{static_cast<std::size_t>(kSortN), device};
  std::vector<K> hkeys;

  NarrowSortEnv() {
    hkeys.resize(n);
    std::mt19937 rng(67);
    if constexpr (std::is_same_v<K, half>) {
      std::uniform_real_distribution<float> d(-1000.0f, 1000.0f);
      for (auto& k : hkeys) k = half(d(rng));
    } else {
      for (auto& k : hkeys) k = static_cast<K>(rng());
    }
    keys.copy_from_host(stream, hkeys);
    std::vector<K> want = hkeys;
    std::stable_sort(want.begin(), want.end(), [](K a, K b) { return float(a) < float(b); });
    check("cutlet::algorithms::radix_sort_keys", [&] { run(); }, want);
    check("cub::DeviceRadixSort::SortKeys", [&] { run_cub(); }, want);
  }
  template <class F>
  void check(const char* who, F&& sort, const std::vector<K>& want) {
    keys_out.fill_bytes(stream, 0xa5);
    sort();
    const std::vector<K> got = keys_out.to_host(stream);
    for (int i = 0; i < n; ++i)
      if (std::memcmp(&got[i], &want[i], sizeof(K)) != 0)
        throw Error(std::string("cutlet_bench: ") + who + " of 2-byte keys is wrong at " + std::to_string(i));
  }
  void run() { alg::radix_sort_keys(stream, keys, keys_out); }
  void run_cub() {
    check_cub(cutlet_cub_radix_sort_keys_16(reinterpret_cast<const void*>(keys.data()),
                                            reinterpret_cast<void*>(keys_out.data()), n, std::is_same_v<K, half>,
                                            stream.handle()),
              "cub::DeviceRadixSort::SortKeys");
  }
};

/// Times `run` and `cub_run`, moving `bytes` each, in the same iterations: counters GB/s,
/// cub_GB/s, vs_cub, and the registers of `kernel`.
template <class K, class Run, class CubRun>
void time_against_cub(benchmark::State& state, double bytes, const K& kernel, Run&& run, CubRun&& cub_run) {
  Env& e = env();
  SameRun runs;
  runs.add("cutlet", run);
  runs.add("cub", cub_run);
  std::vector<double> ms;
  for (auto _ : state) {
    ms.push_back(runs.iterate(e.stream, kReps));
    state.SetIterationTime(ms.back() * 1e-3);
  }
  set_bandwidth_counters(state, ms, bytes);
  const double cub = bytes / (runs.median_ms("cub") * 1e-3) / 1e9;
  state.counters["cub_GB/s"] = cub;
  state.counters["vs_cub"] = state.counters["GB/s"] / cub;
  state.counters["regs"] = registers_of(kernel);
}

/// algorithms::reduce (two passes, deterministic) against CUB's DeviceReduce::Sum (bytes read).
void BM_algorithms_reduce(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    Env& e = env();
    time_against_cub(state, kReduceBytes, alg::reduce_kernels<float, alg::plus>().partials, [&] { e.run_reduce(); },
                     [&] { e.run_cub_reduce(); });
  });
}

/// The elements of BM_algorithms_reduce_struct: a min, a max and a sum, and the user operator
/// over them, as a cutlet user writes it.
struct MinMaxSum {
  float lo, hi, sum;
};
struct MinMaxSumOp {
  Struct<MinMaxSum> operator()(const Struct<MinMaxSum>& a, const Struct<MinMaxSum>& b) const {
    return a.with(&MinMaxSum::lo, min(a[&MinMaxSum::lo], b[&MinMaxSum::lo]))
        .with(&MinMaxSum::hi, max(a[&MinMaxSum::hi], b[&MinMaxSum::hi]))
        .with(&MinMaxSum::sum, a[&MinMaxSum::sum] + b[&MinMaxSum::sum]);
  }
};

/// 2^26 structs {x, x, x} of the floats of Env::x (805 MB), and the reduce of them both ways;
/// each checked against the CPU (the min and max exactly, the sum to 1e-5 of the sum of |x|).
struct StructReduceEnv {
  static constexpr int kCount = 1 << 26;
  Stream& stream;
  Buffer<MinMaxSum> in{kCount, stream.device()}, out{1, stream.device()};
  MinMaxSum init{std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(), 0.0f};

  explicit StructReduceEnv(Env& e) : stream(e.stream) {
    std::vector<MinMaxSum> h(kCount);
    double sum = 0, magnitude = 0;
    float lo = init.lo, hi = init.hi;
    for (int i = 0; i < kCount; ++i) {
      const float v = e.hx[static_cast<std::size_t>(i)];
      h[static_cast<std::size_t>(i)] = MinMaxSum{v, v, v};
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      sum += v;
      magnitude += std::fabs(v);
    }
    in.copy_from_host(stream, h);
    for (const auto& [name, run] : {std::pair<const char*, std::function<void()>>{"cutlet::algorithms::reduce (struct)",
                                                                                  [&] { run_cutlet(); }},
                                    {"cub::DeviceReduce::Reduce (struct)", [&] { run_cub(); }}}) {
      run();
      const MinMaxSum got = out.to_host(stream)[0];
      if (got.lo != lo || got.hi != hi || std::fabs(got.sum - sum) > 1e-5 * magnitude)
        throw Error(std::string(name) + " gave a wrong result");
    }
  }
  void run_cutlet() { alg::reduce(stream, in, out, MinMaxSumOp{}, init); }
  void run_cub() {
    check_cub(cutlet_cub_reduce_min_max_sum(reinterpret_cast<const float*>(in.data()),
                                            reinterpret_cast<float*>(out.data()), kCount, stream.handle()),
              "cub::DeviceReduce::Reduce (struct)");
  }
};

/// algorithms::reduce over structs with a user operator against CUB's DeviceReduce::Reduce
/// with a struct functor (bytes read).
void BM_algorithms_reduce_struct(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    static auto s = std::make_unique<StructReduceEnv>(env());
    time_against_cub(state, double(sizeof(MinMaxSum)) * StructReduceEnv::kCount,
                     alg::reduce_struct_kernel<MinMaxSum, MinMaxSumOp>(), [&] { s->run_cutlet(); },
                     [&] { s->run_cub(); });
  });
}

/// algorithms::inclusive_scan (single pass, decoupled look-back) against CUB's
/// DeviceScan::InclusiveSum (bytes read and written).
void BM_algorithms_scan(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    Env& e = env();
    time_against_cub(state, kScanBytes, alg::scan_kernel<false, float, alg::plus>(), [&] { e.run_scan(); },
                     [&] { e.run_cub_scan(); });
  });
}

/// algorithms::inclusive_scan_by_key against CUB's DeviceScan::InclusiveSumByKey, floats in
/// runs of 1 to 8 i32 keys (bytes of keys and values read, values written).
void BM_algorithms_scan_by_key(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    Env& e = env();
    time_against_cub(state, 3.0 * sizeof(float) * double(kN),
                     alg::scan_by_key_kernel<false, std::int32_t, float, alg::equal_to, alg::plus>(),
                     [&] { e.run_scan_by_key(); }, [&] { e.run_cub_scan_by_key(); });
  });
}

/// algorithms::segmented_reduce (a block per segment) against CUB's DeviceSegmentedReduce::Sum,
/// 2^16 segments of 4096 floats (bytes read, and the sums and offsets).
void BM_algorithms_segmented_reduce(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    Env& e = env();
    time_against_cub(state, kSegmentedBytes, alg::segmented_reduce_kernels<float, alg::plus>().block,
                     [&] { e.run_segmented(); }, [&] { e.run_cub_segmented(); });
  });
}

/// algorithms::select_if (x > 0, about half kept; single pass, decoupled look-back) against
/// CUB's DeviceSelect::If (bytes read and kept items written).
void BM_algorithms_select_if(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    Env& e = env();
    time_against_cub(state, e.select_bytes, alg::select_if_kernel<float, Positive>(), [&] { e.run_select(); },
                     [&] { e.run_cub_select(); });
  });
}

/// algorithms::unique of i32 keys in runs of 1 to 8 against CUB's DeviceSelect::Unique (bytes
/// read and kept items written).
void BM_algorithms_unique(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    Env& e = env();
    time_against_cub(state, e.unique_bytes, alg::unique_kernel<std::int32_t>(), [&] { e.run_unique(); },
                     [&] { e.run_cub_unique(); });
  });
}

/// algorithms::radix_sort_keys of 2^26 random u32 keys (4 passes of one-sweep) against CUB's
/// DeviceRadixSort::SortKeys.
void BM_algorithms_radix_sort_keys(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    SortEnv& e = sort_env();
    e.time_against_cub(state, alg::radix_sort_kernels<false, std::uint32_t>().onesweep, [&] { e.run_keys(); },
                       [&] { e.run_cub_keys(); });
  });
}

/// algorithms::radix_sort_keys of 2^26 2-byte keys (half when the argument is 1, else
/// std::uint16_t) against CUB's DeviceRadixSort::SortKeys of the same type.
void BM_algorithms_radix_sort_keys_16(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    auto time = [&](auto& e, const auto& kernel) {
      SameRun runs;
      runs.add("cutlet", [&] { e.run(); });
      runs.add("cub", [&] { e.run_cub(); });
      for (auto _ : state) state.SetIterationTime(runs.iterate(e.stream, kReps) * 1e-3);
      const double gkeys = e.n / (runs.median_ms("cutlet") * 1e-3) / 1e9;
      const double cub = e.n / (runs.median_ms("cub") * 1e-3) / 1e9;
      state.counters["Gkeys/s"] = gkeys;
      state.counters["cub_Gkeys/s"] = cub;
      state.counters["vs_cub"] = gkeys / cub;
      state.counters["regs"] = registers_of(kernel);
    };
    if (state.range(0) == 1) {
      static NarrowSortEnv<half> e;
      time(e, alg::radix_sort_kernels<false, half>().onesweep);
    } else {
      static NarrowSortEnv<std::uint16_t> e;
      time(e, alg::radix_sort_kernels<false, std::uint16_t>().onesweep);
    }
  });
}

/// algorithms::radix_sort_pairs of 2^26 random u32 keys with u32 values against CUB's
/// DeviceRadixSort::SortPairs.
void BM_algorithms_radix_sort_pairs(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    SortEnv& e = sort_env();
    e.time_against_cub(state, alg::radix_sort_kernels<true, std::uint32_t, std::uint32_t>().onesweep,
                       [&] { e.run_pairs(); }, [&] { e.run_cub_pairs(); });
  });
}

/// algorithms::three_way_partition of 2^28 floats (x > 0.5, x < -0.5, the rest: about a
/// quarter, a quarter and a half) against CUB's DevicePartition::If (bytes read and written).
void BM_algorithms_three_way_partition(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    Env& e = env();
    if (!e.partition_checked) {
      e.check_partition("cutlet::algorithms::three_way_partition", [&] { e.run_partition(); });
      e.check_partition("cub::DevicePartition::If", [&] { e.run_cub_partition(); });
      e.partition_checked = true;
    }
    time_against_cub(state, kScanBytes, alg::three_way_partition_kernel<float, AboveHalf, BelowMinusHalf>(),
                     [&] { e.run_partition(); }, [&] { e.run_cub_partition(); });
  });
}

constexpr std::size_t kTopK = 1024;

/// Throws cutlet::Error naming `who` unless keys[0, k) and indices[0, k) are the k largest of
/// `hkeys` and their positions: best first, ties by index (`sorted`), or the set of them.
void check_top_k(const char* who, const std::vector<std::uint32_t>& hkeys, const Buffer<std::uint32_t>& keys,
                 const Buffer<std::int32_t>& indices, const Stream& stream, bool sorted) {
  std::vector<std::int32_t> order(hkeys.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::int32_t>(i);
  std::partial_sort(order.begin(), order.begin() + kTopK, order.end(), [&](std::int32_t a, std::int32_t b) {
    return hkeys[a] != hkeys[b] ? hkeys[a] > hkeys[b] : a < b;
  });
  order.resize(kTopK);
  std::vector<std::int32_t> got = indices.to_host(stream);
  got.resize(kTopK);
  const std::vector<std::uint32_t> got_keys = keys.to_host(stream);
  for (std::size_t i = 0; i < kTopK; ++i)
    if (got_keys[i] != hkeys[static_cast<std::size_t>(got[i])])
      throw Error(std::string("cutlet_bench: ") + who + " wrote key " + std::to_string(got_keys[i]) + " at " +
                  std::to_string(i) + " for index " + std::to_string(got[i]));
  if (!sorted) {
    std::sort(order.begin(), order.end());
    std::sort(got.begin(), got.end());
  }
  if (got != order) throw Error(std::string("cutlet_bench: ") + who + " did not find the 1024 largest keys");
}

/// algorithms::top_k of the 1024 largest of 2^26 random u32 keys with i32 indices (sorted, or
/// in input order with range(0) = 0) against CUB's full DeviceRadixSort::SortKeys of the same
/// keys, timed in the same iterations: counters ms, cub_sort_ms, and vs_target, a quarter of
/// CUB's sort time over top_k's.
void BM_algorithms_top_k(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    SortEnv& e = sort_env();
    const bool sorted = state.range(0) != 0;
    Buffer<std::uint32_t> best(kTopK, e.device);
    Buffer<std::int32_t> indices(kTopK, e.device);
    auto run = [&] { alg::top_k(e.stream, e.keys, kTopK, best, indices, {.largest = true, .sorted = sorted}); };
    best.fill_bytes(e.stream, 0xa5);
    indices.fill_bytes(e.stream, 0xa5);
    run();
    check_top_k("cutlet::algorithms::top_k", e.hkeys, best, indices, e.stream, sorted);
    SameRun runs;
    runs.add("cutlet", run);
    runs.add("cub", [&] { e.run_cub_keys(); });
    for (auto _ : state) state.SetIterationTime(runs.iterate(e.stream, kReps) * 1e-3);
    const double ms = runs.median_ms("cutlet");
    const double cub_ms = runs.median_ms("cub");
    state.counters["ms"] = ms;
    state.counters["cub_sort_ms"] = cub_ms;
    state.counters["vs_target"] = cub_ms / 4 / ms;
    state.counters["regs"] = registers_of(alg::top_k_kernels<std::uint32_t, std::int32_t>().count);
  });
}

constexpr int kMergeSortN = 1 << 24;

/// The merge sorts' comparator, a user lambda's equivalent: a < b.
struct KeyLess {
  Value<bool> operator()(const u32& a, const u32& b) const { return a < b; }
};

/// The merge sorts' data: 2^24 keys.
struct MergeSortEnv : SortData {
  MergeSortEnv() : SortData(kMergeSortN, 67) {
    check("cutlet::algorithms::merge_sort_pairs", [&] { run_pairs(); }, true);
    check("cub::DeviceMergeSort::SortPairsCopy", [&] { run_cub_pairs(); }, true);
    check("cutlet::algorithms::merge_sort_keys", [&] { run_keys(); }, false);
    check("cub::DeviceMergeSort::StableSortKeysCopy", [&] { run_cub_keys(); }, false);
  }

  void run_keys() { alg::merge_sort_keys(stream, keys, keys_out, KeyLess{}); }
  void run_pairs() { alg::merge_sort_pairs(stream, keys, keys_out, values, values_out, KeyLess{}); }
  void run_cub_keys() {
    check_cub(cutlet_cub_merge_sort_keys_u32(reinterpret_cast<const unsigned*>(keys.data()),
                                             reinterpret_cast<unsigned*>(keys_out.data()), n, stream.handle()),
              "cub::DeviceMergeSort::StableSortKeysCopy");
  }
  void run_cub_pairs() {
    check_cub(cutlet_cub_merge_sort_pairs_u32(
                  reinterpret_cast<const unsigned*>(keys.data()), reinterpret_cast<unsigned*>(keys_out.data()),
                  reinterpret_cast<const unsigned*>(values.data()), reinterpret_cast<unsigned*>(values_out.data()), n,
                  stream.handle()),
              "cub::DeviceMergeSort::SortPairsCopy");
  }
};

MergeSortEnv& merge_sort_env() {
  static auto e = std::make_unique<MergeSortEnv>();
  return *e;
}

/// algorithms::merge_sort_keys of 2^24 random u32 keys with a user comparator against CUB's
/// DeviceMergeSort::StableSortKeysCopy with the same comparator.
void BM_algorithms_merge_sort_keys(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    MergeSortEnv& e = merge_sort_env();
    e.time_against_cub(state, alg::merge_sort_kernels<false, std::uint32_t, std::uint32_t, KeyLess>().merge,
                       [&] { e.run_keys(); }, [&] { e.run_cub_keys(); });
  });
}

/// algorithms::merge_sort_pairs of 2^24 random u32 keys with u32 values against CUB's
/// DeviceMergeSort::SortPairsCopy.
void BM_algorithms_merge_sort_pairs(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    MergeSortEnv& e = merge_sort_env();
    e.time_against_cub(state, alg::merge_sort_kernels<true, std::uint32_t, std::uint32_t, KeyLess>().merge,
                       [&] { e.run_pairs(); }, [&] { e.run_cub_pairs(); });
  });
}

}  // namespace

BENCHMARK(BM_algorithms_radix_sort_keys)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_algorithms_radix_sort_pairs)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_algorithms_radix_sort_keys_16)
    ->Arg(1)
    ->Arg(0)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(kIterations);
BENCHMARK(BM_algorithms_top_k)->Arg(1)->Arg(0)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_algorithms_reduce)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_algorithms_reduce_struct)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_algorithms_scan)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_algorithms_scan_by_key)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_algorithms_segmented_reduce)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_algorithms_select_if)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_algorithms_unique)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_algorithms_three_way_partition)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_algorithms_merge_sort_keys)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_algorithms_merge_sort_pairs)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(kIterations);

}  // namespace cutlet::bench
