// Building graphs: explicit nodes and dependencies, and stream capture (CUDA graphs on a GPU; on
// the CPU device, graphs of host work, host_graph.h).
#include "cutlet/runtime/graph.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "cutlet/runtime/module.h"
#include "cutlet/runtime/stream.h"
#include "device_state.h"
#include "host_graph.h"
#include "host_queue.h"
#include "launch_internal.h"

namespace cutlet {
namespace {

const CUgraphNode* nodes_of(std::span<const GraphNode> deps) {
  static_assert(sizeof(GraphNode) == sizeof(CUgraphNode), "GraphNode must wrap a CUgraphNode exactly");
  return reinterpret_cast<const CUgraphNode*>(deps.data());
}

detail::HostGraph& host_graph(void* handle) { return *static_cast<detail::HostGraph*>(handle); }

/// The nodes `deps` of the CPU device's graph `g`; throws Error, naming `op`, for a node of
/// another graph.
std::vector<const detail::HostGraphNode*> host_nodes(const detail::HostGraph& g, std::span<const GraphNode> deps,
                                                     const char* op) {
  std::vector<const detail::HostGraphNode*> out;
  for (GraphNode d : deps) {
    if (!g.owns(d.handle))
      throw Error(std::string("Graph::") + op + ": a dependency is not a node of this graph; pass nodes that this "
                  "graph's add_ functions returned");
    out.push_back(static_cast<const detail::HostGraphNode*>(d.handle));
  }
  return out;
}

CUstreamCaptureMode capture_mode(CaptureMode m) {
  switch (m) {
    case CaptureMode::global: return CU_STREAM_CAPTURE_MODE_GLOBAL;
    case CaptureMode::per_thread: return CU_STREAM_CAPTURE_MODE_THREAD_LOCAL;
    case CaptureMode::relaxed: return CU_STREAM_CAPTURE_MODE_RELAXED;
  }
  return CU_STREAM_CAPTURE_MODE_THREAD_LOCAL;
}

}  // namespace

Graph::Graph(Device device) : device_(device) {
  if (device.is_cpu()) {
    handle_ = new detail::HostGraph;
    return;
  }
  const detail::DeviceState& s = detail::device_state(device.ordinal());
  detail::ensure_current(s);
  CUgraph g = nullptr;
  CUresult r = detail::driver().cuGraphCreate(&g, 0);
  if (r != CUDA_SUCCESS) detail::throw_cuda_error(r, "cuGraphCreate(" + s.label + ")");
  handle_ = g;
}

Graph::Graph(Graph&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)),
      device_(other.device_),
      kernel_names_(std::move(other.kernel_names_)) {}

Graph& Graph::operator=(Graph&& other) noexcept {
  if (this != &other) {
    Graph old(std::move(*this));
    handle_ = std::exchange(other.handle_, nullptr);
    device_ = other.device_;
    kernel_names_ = std::move(other.kernel_names_);
  }
  return *this;
}

Graph::~Graph() {
  if (!handle_) return;
  if (device_.is_cpu()) {
    delete &host_graph(handle_);
    return;
  }
  if (const detail::DriverApi* api = detail::g_driver_api.load(std::memory_order_acquire))
    api->cuGraphDestroy(static_cast<CUgraph>(handle_));
}

void* Graph::require(const char* op) const {
  if (!handle_) throw Error(std::string("Graph::") + op + " on an empty (moved-from) Graph");
  return handle_;
}

void Graph::begin_capture(const Stream& stream, CaptureMode mode) {
  const detail::DeviceState& s = detail::device_state(stream.device().ordinal());
  if (stream.handle() == nullptr || stream.handle() == CU_STREAM_LEGACY)
    throw Error("Graph::begin_capture: the legacy default stream of " + s.label +
                " cannot be captured; capture a Stream of your own");
  if (stream.device().is_cpu()) {
    if (stream.handle() == CU_STREAM_PER_THREAD)
      throw Error("Graph::begin_capture: the per-thread default stream of the CPU device cannot be captured; "
                  "capture a Stream of your own");
    return detail::host_queue(stream).begin_capture();
  }
  detail::ensure_current(s, stream);
  CUresult r = detail::driver().cuStreamBeginCapture(static_cast<CUstream>(stream.handle()),
                                                     capture_mode(mode));
  if (r != CUDA_SUCCESS)
    detail::throw_cuda_error(r, "cuStreamBeginCapture(" + s.label + ")",
                             r == CUDA_ERROR_ILLEGAL_STATE ? "the stream is already being captured"
                                                           : std::string());
}

Graph Graph::end_capture(const Stream& stream) {
  if (stream.device().is_cpu()) return Graph(detail::host_queue(stream).end_capture().release(), stream.device());
  const detail::DeviceState& s = detail::device_state(stream.device().ordinal());
  detail::ensure_current(s, stream);
  CUgraph g = nullptr;
  CUresult r = detail::driver().cuStreamEndCapture(static_cast<CUstream>(stream.handle()), &g);
  if (r != CUDA_SUCCESS) {
    if (g) detail::driver().cuGraphDestroy(g);
    detail::throw_cuda_error(
        r, "cuStreamEndCapture(" + s.label + ")",
        r == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
            ? "an operation during the capture was not allowed (a synchronization, a "
              "synchronous allocation, or work joined from an uncaptured stream) and invalidated it"
            : r == CUDA_ERROR_ILLEGAL_STATE ? "the stream was not being captured"
                                            : std::string());
  }
  return Graph(g, stream.device());
}

void Graph::abandon_capture(const Stream& stream) noexcept {
  try {
    if (!is_capturing(stream)) return;
    if (stream.device().is_cpu()) return detail::host_queue(stream).abandon_capture();
    detail::ensure_current(detail::device_state(stream.device().ordinal()), stream);
    CUgraph g = nullptr;
    detail::driver().cuStreamEndCapture(static_cast<CUstream>(stream.handle()), &g);
    if (g) detail::driver().cuGraphDestroy(g);
  } catch (...) {
  }
}

bool Graph::is_capturing(const Stream& stream) {
  if (stream.device().is_cpu()) return detail::host_queue(stream).capturing();
  const detail::DeviceState& s = detail::device_state(stream.device().ordinal());
  detail::ensure_current(s, stream);
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  CUresult r = detail::driver().cuStreamIsCapturing(static_cast<CUstream>(stream.handle()), &status);
  if (r != CUDA_SUCCESS) detail::throw_cuda_error(r, "cuStreamIsCapturing(" + s.label + ")");
  return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

GraphNode Graph::add_kernel(const Function& function, const LaunchConfig& config, void** args,
                            std::span<const GraphNode> dependencies) {
  auto g = static_cast<CUgraph>(require("add_kernel"));
  const detail::DeviceState& s = detail::device_state(device_.ordinal());
  if (function.device() != device_)
    detail::bad_config(function.name().c_str(), config,
                       "the kernel was loaded on " + detail::device_label(function.device().ordinal()) +
                           " but the graph is for " + s.label + "; load it on the graph's device");
  check_launch_config(s.limits, config, function.name().c_str(), s.label);
  if (config.programmatic_dependent_launch)
    detail::bad_config(function.name().c_str(), config,
                       "programmatic dependent launch applies to stream launches; a graph orders its "
                       "kernels by its edges (capture the launches to keep the attribute)");
  if (device_.is_cpu()) {
    if (config.cluster != Dim3{})
      detail::bad_config(function.name().c_str(), config,
                         "thread-block clusters are a GPU feature (sm_90 and newer) the CPU device does not have; "
                         "add the kernel without .cluster there");
    if (config.cooperative) detail::check_co_residency(function, config, s);
    detail::HostGraph& hg = host_graph(g);
    detail::HostGraphNode node;
    node.kind = detail::HostGraphNode::Kind::kernel;
    node.launch.emplace(function, config, args);
    return GraphNode{hg.add(std::move(node), host_nodes(hg, dependencies, "add_kernel"))};
  }
  detail::ensure_current(s);
  const detail::DriverApi& api = detail::driver();
  auto f = static_cast<CUfunction>(function.handle());
  if (detail::needs_shared_opt_in(function, config, s.limits)) detail::opt_in_shared(function, config, s, false);
  CUDA_KERNEL_NODE_PARAMS p = {};
  p.func = f;
  p.gridDimX = static_cast<unsigned>(config.grid.x);
  p.gridDimY = static_cast<unsigned>(config.grid.y);
  p.gridDimZ = static_cast<unsigned>(config.grid.z);
  p.blockDimX = static_cast<unsigned>(config.block.x);
  p.blockDimY = static_cast<unsigned>(config.block.y);
  p.blockDimZ = static_cast<unsigned>(config.block.z);
  p.sharedMemBytes = static_cast<unsigned>(config.shared_bytes);
  p.kernelParams = args;
  CUgraphNode node = nullptr;
  CUresult r = api.cuGraphAddKernelNode(&node, g, nodes_of(dependencies), dependencies.size(), &p);
  if (r != CUDA_SUCCESS)
    detail::launch_failed(r, function, config, "cuGraphAddKernelNode");
  auto set = [&](CUlaunchAttributeID id, const CUlaunchAttributeValue& v, const char* what) {
    CUresult rr = api.cuGraphKernelNodeSetAttribute(node, id, &v);
    if (rr != CUDA_SUCCESS)
      detail::throw_cuda_error(rr, std::string("cuGraphKernelNodeSetAttribute(") + what + ")");
  };
  if (config.cluster != Dim3{}) {
    CUlaunchAttributeValue v = {};
    v.clusterDim.x = static_cast<unsigned>(config.cluster.x);
    v.clusterDim.y = static_cast<unsigned>(config.cluster.y);
    v.clusterDim.z = static_cast<unsigned>(config.cluster.z);
    set(CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, v, "CLUSTER_DIMENSION");
  }
  if (config.cooperative) {
    CUlaunchAttributeValue v = {};
    v.cooperative = 1;
    set(CU_LAUNCH_ATTRIBUTE_COOPERATIVE, v, "COOPERATIVE");
  }
  kernel_names_.emplace_back(node, function.name());
  return GraphNode{node};
}

GraphNode Graph::add_memcpy(std::uint64_t dst, std::uint64_t src, std::size_t bytes,
                            std::span<const GraphNode> dependencies) {
  auto g = static_cast<CUgraph>(require("add_memcpy"));
  if (bytes == 0 || dst == 0 || src == 0)
    throw Error("Graph::add_memcpy: " + std::string(bytes == 0 ? "a copy of 0 bytes" : "a null address") +
                "; a copy node needs two valid addresses and at least 1 byte (use add_empty to "
                "join dependencies)");
  if (device_.is_cpu()) {
    detail::HostGraph& hg = host_graph(g);
    detail::HostGraphNode node;
    node.kind = detail::HostGraphNode::Kind::copy;
    auto* to = reinterpret_cast<void*>(static_cast<std::uintptr_t>(dst));
    auto* from = reinterpret_cast<const void*>(static_cast<std::uintptr_t>(src));
    node.work = [to, from, bytes] { std::memmove(to, from, bytes); };
    return GraphNode{hg.add(std::move(node), host_nodes(hg, dependencies, "add_memcpy"))};
  }
  const detail::DeviceState& s = detail::device_state(device_.ordinal());
  detail::ensure_current(s);
  CUDA_MEMCPY3D p = {};
  p.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
  p.srcDevice = static_cast<CUdeviceptr>(src);
  p.srcPitch = bytes;
  p.srcHeight = 1;
  p.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
  p.dstDevice = static_cast<CUdeviceptr>(dst);
  p.dstPitch = bytes;
  p.dstHeight = 1;
  p.WidthInBytes = bytes;
  p.Height = 1;
  p.Depth = 1;
  CUgraphNode node = nullptr;
  CUresult r = detail::driver().cuGraphAddMemcpyNode(&node, g, nodes_of(dependencies),
                                                     dependencies.size(), &p, s.context.load(std::memory_order_acquire));
  if (r != CUDA_SUCCESS)
    detail::throw_cuda_error(r, "cuGraphAddMemcpyNode(" + std::to_string(bytes) + " bytes)",
                             "both addresses must be device, pinned host or managed memory");
  return GraphNode{node};
}

GraphNode Graph::add_memset(std::uint64_t dst, std::uint32_t value, std::size_t element_size,
                            std::size_t count, std::span<const GraphNode> dependencies) {
  auto g = static_cast<CUgraph>(require("add_memset"));
  if (element_size != 1 && element_size != 2 && element_size != 4)
    throw Error("Graph::add_memset: element_size is " + std::to_string(element_size) +
                "; a fill node writes elements of 1, 2 or 4 bytes");
  if (count == 0 || dst == 0)
    throw Error("Graph::add_memset: " + std::string(count == 0 ? "0 elements" : "a null address") +
                "; a fill node needs a valid address and at least one element");
  if (device_.is_cpu()) {
    if (dst % element_size != 0)
      throw Error("Graph::add_memset: the address is not aligned to the element size (" + std::to_string(element_size) +
                  " bytes); a fill node writes whole, aligned elements");
    detail::HostGraph& hg = host_graph(g);
    detail::HostGraphNode node;
    node.kind = detail::HostGraphNode::Kind::fill;
    auto* to = reinterpret_cast<unsigned char*>(static_cast<std::uintptr_t>(dst));
    node.work = [to, value, element_size, count] {
      if (element_size == 1) return static_cast<void>(std::memset(to, static_cast<int>(value & 0xff), count));
      for (std::size_t i = 0; i < count; ++i) std::memcpy(to + i * element_size, &value, element_size);
    };
    return GraphNode{hg.add(std::move(node), host_nodes(hg, dependencies, "add_memset"))};
  }
  const detail::DeviceState& s = detail::device_state(device_.ordinal());
  detail::ensure_current(s);
  CUDA_MEMSET_NODE_PARAMS p = {};
  p.dst = static_cast<CUdeviceptr>(dst);
  p.pitch = count * element_size;
  p.value = value;
  p.elementSize = static_cast<unsigned>(element_size);
  p.width = count;
  p.height = 1;
  CUgraphNode node = nullptr;
  CUresult r = detail::driver().cuGraphAddMemsetNode(&node, g, nodes_of(dependencies),
                                                     dependencies.size(), &p, s.context.load(std::memory_order_acquire));
  if (r != CUDA_SUCCESS)
    detail::throw_cuda_error(r, "cuGraphAddMemsetNode(" + std::to_string(count) + " x " +
                                    std::to_string(element_size) + " bytes)",
                             "the address must be device memory, aligned to the element size");
  return GraphNode{node};
}

GraphNode Graph::add_empty(std::span<const GraphNode> dependencies) {
  auto g = static_cast<CUgraph>(require("add_empty"));
  if (device_.is_cpu()) {
    detail::HostGraph& hg = host_graph(g);
    return GraphNode{hg.add(detail::HostGraphNode{}, host_nodes(hg, dependencies, "add_empty"))};
  }
  CUgraphNode node = nullptr;
  CUresult r = detail::driver().cuGraphAddEmptyNode(&node, g, nodes_of(dependencies), dependencies.size());
  if (r != CUDA_SUCCESS) detail::throw_cuda_error(r, "cuGraphAddEmptyNode");
  return GraphNode{node};
}

void Graph::add_dependency(GraphNode from, GraphNode to) {
  auto g = static_cast<CUgraph>(require("add_dependency"));
  if (device_.is_cpu()) {
    detail::HostGraph& hg = host_graph(g);
    if (!hg.owns(from.handle) || !hg.owns(to.handle) || from == to)
      throw Error("Graph::add_dependency: " +
                  std::string(from == to ? "a node cannot depend on itself" : "both nodes must belong to this graph"));
    auto* node = static_cast<detail::HostGraphNode*>(to.handle);
    const auto* before = static_cast<const detail::HostGraphNode*>(from.handle);
    if (std::find(node->after.begin(), node->after.end(), before) != node->after.end())
      throw Error("Graph::add_dependency: the edge exists already");
    node->after.push_back(before);
    return;
  }
  auto a = static_cast<CUgraphNode>(from.handle);
  auto b = static_cast<CUgraphNode>(to.handle);
  CUresult r = detail::driver().cuGraphAddDependencies(g, &a, &b, 1);
  if (r != CUDA_SUCCESS)
    detail::throw_cuda_error(r, "cuGraphAddDependencies",
                             "both nodes must belong to this graph, and the edge must not exist yet");
}

std::size_t Graph::node_count() const {
  auto g = static_cast<CUgraph>(require("node_count"));
  if (device_.is_cpu()) return host_graph(g).nodes.size();
  std::size_t n = 0;
  CUresult r = detail::driver().cuGraphGetNodes(g, nullptr, &n);
  if (r != CUDA_SUCCESS) detail::throw_cuda_error(r, "cuGraphGetNodes");
  return n;
}

std::vector<GraphNode> Graph::kernel_nodes() const {
  auto g = static_cast<CUgraph>(require("kernel_nodes"));
  if (device_.is_cpu()) {
    std::vector<GraphNode> out;
    for (const auto& n : host_graph(g).nodes)
      if (n->kind == detail::HostGraphNode::Kind::kernel) out.push_back(GraphNode{n.get()});
    return out;
  }
  const detail::DriverApi& api = detail::driver();
  std::size_t n = node_count();
  std::vector<CUgraphNode> all(n);
  CUresult r = api.cuGraphGetNodes(g, all.data(), &n);
  if (r != CUDA_SUCCESS) detail::throw_cuda_error(r, "cuGraphGetNodes");
  std::vector<GraphNode> out;
  for (std::size_t i = 0; i < n; ++i) {
    CUgraphNodeType type = CU_GRAPH_NODE_TYPE_EMPTY;
    if (api.cuGraphNodeGetType(all[i], &type) == CUDA_SUCCESS && type == CU_GRAPH_NODE_TYPE_KERNEL)
      out.push_back(GraphNode{all[i]});
  }
  return out;
}

}  // namespace cutlet
