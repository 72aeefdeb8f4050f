// Graphs: built explicitly or captured from a stream, instantiated, launched, updated (CUDA
// graphs on a GPU, graphs of host work on the CPU device).
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cutlet/runtime/device.h"
#include "cutlet/runtime/launch.h"

namespace cutlet {

class Function;
class Stream;
class GraphExec;

/// A node of a Graph: a copyable, non-owning handle, valid while its Graph lives.
struct GraphNode {
  void* handle = nullptr;  ///< The CUgraphNode (on the CPU device, cutlet's own node).
  /// Same node.
  bool operator==(const GraphNode&) const = default;
};

/// Which other threads' CUDA calls a stream capture forbids while it runs (CUDA's
/// CUstreamCaptureMode): `global` forbids unsafe calls (synchronous allocation, device-wide
/// synchronization) on every thread, `per_thread` only on the capturing thread, `relaxed`
/// nowhere.
enum class CaptureMode { global, per_thread, relaxed };

/// A CUDA graph: a DAG of kernel launches, copies and fills on one device, made either
/// explicitly (add_kernel, add_memcpy, add_memset with dependencies) or by capturing the
/// work queued on a stream (capture()), including work queued by other libraries on that
/// stream. Instantiate it to launch it. Move-only; the destructor destroys the graph (its
/// instantiations stay valid).
///
/// On the CPU device a graph holds host work in the same API: its kernels, copies, fills and
/// host functions run, when the graph is launched, one after another in an order that keeps
/// every dependency. A capture there records kernel launches, copies between buffers, fills
/// and Stream::launch_host_function; what it cannot record (an event's record or wait, a
/// stream-ordered free, a copy to or from pageable host memory) still runs, in order, and
/// fails the capture: end_capture() throws CudaError (CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)
/// naming it. Capture modes make no difference there.
class Graph {
 public:
  /// An empty graph for `device`. Throws NoDriverError without a driver (unless `device` is
  /// the CPU device).
  explicit Graph(Device device = Device::current());

  /// Captures what `work()` queues on `stream` (cutlet launches, copies, fills, and foreign
  /// work on stream.handle()) into a new graph, instead of running it. If `work` throws, the
  /// capture is ended, its graph discarded, and the exception propagates. Work queued during
  /// the capture must not synchronize the stream (CUDA rejects it; the capture then fails
  /// with a CudaError).
  template <class F>
  static Graph capture(const Stream& stream, F&& work, CaptureMode mode = CaptureMode::per_thread) {
    begin_capture(stream, mode);
    try {
      std::forward<F>(work)();
    } catch (...) {
      abandon_capture(stream);
      throw;
    }
    return end_capture(stream);
  }
  /// Starts capturing `stream` (cuStreamBeginCapture): work queued on it is recorded, not run.
  static void begin_capture(const Stream& stream, CaptureMode mode = CaptureMode::per_thread);
  /// Ends the capture of `stream` and returns what was recorded (cuStreamEndCapture). Throws
  /// CudaError when the capture was invalidated, e.g. by a synchronization during it.
  static Graph end_capture(const Stream& stream);
  /// Ends the capture of `stream`, if any, and discards it. Never throws.
  static void abandon_capture(const Stream& stream) noexcept;
  /// True while `stream` is being captured.
  static bool is_capturing(const Stream& stream);

  /// Adds a launch of `function` with `config` (grid, block, shared memory, cluster and
  /// cooperative attributes; programmatic dependent launch is for streams only and is
  /// rejected here) and the arguments `args` (as for launch(); their values are copied now),
  /// after `dependencies`. The config is checked as launch() checks it.
  GraphNode add_kernel(const Function& function, const LaunchConfig& config, void** args,
                       std::span<const GraphNode> dependencies = {});
  /// Adds a copy of `bytes` bytes from `src` to `dst`, both device, pinned or managed memory
  /// (unified addresses), after `dependencies`.
  GraphNode add_memcpy(std::uint64_t dst, std::uint64_t src, std::size_t bytes,
                       std::span<const GraphNode> dependencies = {});
  /// Adds a fill of `count` elements of `element_size` bytes (1, 2 or 4) at `dst` with the
  /// low `element_size` bytes of `value`, after `dependencies`.
  GraphNode add_memset(std::uint64_t dst, std::uint32_t value, std::size_t element_size,
                       std::size_t count, std::span<const GraphNode> dependencies = {});
  /// Adds a node that does nothing, for joining dependencies.
  GraphNode add_empty(std::span<const GraphNode> dependencies = {});
  /// Makes `to` run after `from`.
  void add_dependency(GraphNode from, GraphNode to);
  /// The number of nodes.
  std::size_t node_count() const;
  /// The kernel nodes, in the order the driver lists them (creation order for explicit
  /// graphs and for captures on one stream), e.g. to update captured launches.
  std::vector<GraphNode> kernel_nodes() const;
  /// Makes an executable graph (cuGraphInstantiateWithFlags). Throws CudaError on failure.
  GraphExec instantiate() const;

  /// The CUgraph as a void* (on the CPU device, cutlet's own graph); null after a move.
  void* handle() const noexcept { return handle_; }
  /// The device whose work the graph holds.
  Device device() const noexcept { return device_; }

  /// Takes over `other`, which is left empty.
  Graph(Graph&& other) noexcept;
  /// Destroys this graph, then takes over `other`.
  Graph& operator=(Graph&& other) noexcept;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  /// Destroys the graph (cuGraphDestroy). Never throws.
  ~Graph();

 private:
  Graph(void* handle, Device device) noexcept : handle_(handle), device_(device) {}
  void* require(const char* op) const;
  void* handle_ = nullptr;
  Device device_;
  /// Names of the kernels added with add_kernel, for messages: (node, kernel name).
  std::vector<std::pair<void*, std::string>> kernel_names_;
};

/// An instantiated graph, ready to launch any number of times. Move-only; the destructor
/// destroys it (launches already queued complete).
class GraphExec {
 public:
  /// Queues the whole graph on `stream` (cuGraphLaunch); the stream must be of the graph's
  /// device (Error otherwise).
  void launch(const Stream& stream) const;
  /// Uploads the graph's work to the device ahead of its first launch, on `stream`.
  void upload(const Stream& stream) const;
  /// Changes the geometry (grid, block, shared memory) and the arguments of kernel node
  /// `node` for future launches, without instantiating again
  /// (cuGraphExecKernelNodeSetParams). `function` must be the kernel the node was made with:
  /// the arguments are laid out by that kernel's parameter list, so another kernel is
  /// rejected with an Error naming both kernels (build or capture a new graph for it), as
  /// is a node that is not one of this graph's kernel nodes. Cluster and cooperative
  /// attributes of the node stay as they were.
  void update_kernel(GraphNode node, const Function& function, const LaunchConfig& config,
                     void** args);

  /// The CUgraphExec as a void* (on the CPU device, cutlet's own); null after a move.
  void* handle() const noexcept { return handle_; }
  /// The device the graph runs on.
  Device device() const noexcept { return device_; }

  /// Takes over `other`, which is left empty.
  GraphExec(GraphExec&& other) noexcept;
  /// Destroys this executable graph, then takes over `other`.
  GraphExec& operator=(GraphExec&& other) noexcept;
  GraphExec(const GraphExec&) = delete;
  GraphExec& operator=(const GraphExec&) = delete;
  /// Destroys the executable graph (cuGraphExecDestroy). Never throws.
  ~GraphExec();

 private:
  friend class Graph;
  /// One kernel node as instantiated: its handle, the CUfunction it launches and its name.
  struct KernelNode {
    void* node;
    void* function;
    std::string name;
  };
  GraphExec(void* handle, Device device, std::vector<KernelNode> kernels) noexcept
      : handle_(handle), device_(device), kernels_(std::move(kernels)) {}
  void* require(const char* op) const;
  /// update_kernel on the CPU device.
  void update_host_kernel(GraphNode node, const Function& function, const LaunchConfig& config, void** args);
  void* handle_ = nullptr;
  Device device_;
  std::vector<KernelNode> kernels_;
};

}  // namespace cutlet
