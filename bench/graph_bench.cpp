// CUDA graph replay: 1000 kernel nodes captured from cutlet Kernel launches, against graphs of
// the same CUfunction launched raw and of nvcc's empty kernel, per node, in one run; plus the
// host cost of updating a kernel node of an instantiated graph.
#include <memory>
#include <vector>

#include "bench_support.h"
#include "kernels.h"

namespace cutlet::bench {
namespace {

constexpr int kNodes = 1000;    ///< kernel nodes per graph
constexpr int kReps = 20;       ///< event-timed replays per benchmark iteration (median taken)
constexpr int kIterations = 20;
constexpr int kN = 0;           ///< saxpy over 0 elements: every node is launch cost only
constexpr float kA = 1.0f;

/// The graphs, made once per process: each is kNodes launches captured on one stream.
struct GraphEnv {
  Device device{0};
  Stream stream{device};
  Buffer<float> x{256, device}, y{256, device};
  SaxpyKernel saxpy = make_saxpy();
  Module baseline = load_baseline_module(device);
  Function nvcc_empty = baseline.function("empty");
  LaunchConfig config{.grid = 1, .block = 256};
  PFN_cuLaunchKernel_v4000 cu_launch = driver_fn<PFN_cuLaunchKernel_v4000>("cuLaunchKernel");
  float a = kA;
  CUdeviceptr xp = 0, yp = 0;
  int n = kN;
  void* args[4] = {&a, &xp, &yp, &n};
  std::unique_ptr<GraphExec> cutlet_graph, raw_graph, nvcc_empty_graph, explicit_graph;
  Function cutlet_function = nvcc_empty;  ///< replaced by saxpy's specialization below

  GraphEnv() {
    saxpy.launch(stream, config, kA, x, y, kN);  // compiles and loads: captured launches hit
    stream.synchronize();
    cutlet_function = saxpy.last_specialization()->function;
    xp = x.data();
    yp = y.data();
    cutlet_graph = capture([&] { saxpy.launch(stream, config, kA, x, y, kN); });
    raw_graph = capture([&] { raw_launch(static_cast<CUfunction>(cutlet_function.handle())); });
    nvcc_empty_graph = capture([&] { raw_launch(static_cast<CUfunction>(nvcc_empty.handle())); });
    Graph g(device);
    GraphNode previous{};
    for (int i = 0; i < kNodes; ++i) {
      const GraphNode deps[] = {previous};
      previous = g.add_kernel(cutlet_function, config, args,
                              i == 0 ? std::span<const GraphNode>() : std::span<const GraphNode>(deps));
    }
    explicit_graph = std::make_unique<GraphExec>(g.instantiate());
    for (GraphExec* e : {cutlet_graph.get(), raw_graph.get(), nvcc_empty_graph.get(), explicit_graph.get()})
      e->upload(stream);
    stream.synchronize();
  }

  /// A graph of kNodes calls of `one()` captured on the stream, instantiated.
  template <class F>
  std::unique_ptr<GraphExec> capture(F&& one) {
    Graph g = Graph::capture(stream, [&] {
      for (int i = 0; i < kNodes; ++i) one();
    });
    if (g.kernel_nodes().size() != kNodes) throw Error("graph_bench: the capture did not record every launch");
    return std::make_unique<GraphExec>(g.instantiate());
  }

  void raw_launch(CUfunction f) {
    device.set_current();
    check_cu(cu_launch(f, 1, 1, 1, 256, 1, 1, 0, static_cast<CUstream>(stream.handle()), args, nullptr),
             "cuLaunchKernel");
  }

  /// GPU microseconds per node of one replay of `exec` (median of kReps event-timed replays).
  double us_per_node(const GraphExec& exec) {
    return gpu_median_ms(stream, [&] { exec.launch(stream); }, kReps) * 1e3 / kNodes;
  }
};

GraphEnv& env() {
  static auto e = std::make_unique<GraphEnv>();
  return *e;
}

/// Replay of the graph captured from cutlet Kernel launches. Each iteration also replays the
/// graph of the same CUfunction launched raw and the graph of nvcc's empty kernel, so
/// "vs_raw" and "vs_nvcc_empty" are same-run ratios (target: vs_raw <= 1.05).
void BM_graph_replay_cutlet_kernel_nodes(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    GraphEnv& e = env();
    std::vector<double> ours, raw, empty;
    for (auto _ : state) {
      const double c = e.us_per_node(*e.cutlet_graph);
      state.SetIterationTime(c * 1e-6);
      ours.push_back(c);
      raw.push_back(e.us_per_node(*e.raw_graph));
      empty.push_back(e.us_per_node(*e.nvcc_empty_graph));
    }
    const double c = median(ours), r = median(raw), m = median(empty);
    state.counters["us_per_node"] = c;
    state.counters["raw_us_per_node"] = r;
    state.counters["nvcc_empty_us_per_node"] = m;
    state.counters["vs_raw"] = r > 0 ? c / r : 0;
    state.counters["vs_nvcc_empty"] = m > 0 ? c / m : 0;
  });
}

/// Replay of a graph built explicitly with Graph::add_kernel (a chain of kNodes nodes).
void BM_graph_replay_explicit_cutlet_nodes(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    GraphEnv& e = env();
    std::vector<double> us;
    for (auto _ : state) {
      us.push_back(e.us_per_node(*e.explicit_graph));
      state.SetIterationTime(us.back() * 1e-6);
    }
    state.counters["us_per_node"] = median(us);
  });
}

/// Replay of the graph of nvcc's empty kernel alone (the floor; 0.52 us per node measured).
void BM_graph_replay_nvcc_empty_nodes(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    GraphEnv& e = env();
    std::vector<double> us;
    for (auto _ : state) {
      us.push_back(e.us_per_node(*e.nvcc_empty_graph));
      state.SetIterationTime(us.back() * 1e-6);
    }
    state.counters["us_per_node"] = median(us);
  });
}

/// Host cost of GraphExec::update_kernel (new arguments for one node, checked), per call.
void BM_graph_update_kernel_node(benchmark::State& state) {
  if (!require_gpu(state)) return;
  guarded(state, [](benchmark::State& state) {
    GraphEnv& e = env();
    Graph g(e.device);
    const GraphNode node = g.add_kernel(e.cutlet_function, e.config, e.args);
    GraphExec exec = g.instantiate();
    constexpr int kBatch = 1000;
    std::vector<double> us;
    for (auto _ : state) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < kBatch; ++i) exec.update_kernel(node, e.cutlet_function, e.config, e.args);
      us.push_back(ms_since(t0) * 1e3 / kBatch);
      state.SetIterationTime(us.back() * 1e-6);
    }
    state.counters["us_per_update"] = median(us);
  });
}

}  // namespace

BENCHMARK(BM_graph_replay_cutlet_kernel_nodes)->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(kIterations);
BENCHMARK(BM_graph_replay_explicit_cutlet_nodes)->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(kIterations);
BENCHMARK(BM_graph_replay_nvcc_empty_nodes)->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(kIterations);
BENCHMARK(BM_graph_update_kernel_node)->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(kIterations);

}  // namespace cutlet::bench
