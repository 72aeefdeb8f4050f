// Executable graphs: instantiation, launch, upload and kernel-node updates (CUDA graphs on a
// GPU; on the CPU device, their steps in dependency order, host_graph.h).
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "cutlet/runtime/graph.h"
#include "cutlet/runtime/module.h"
#include "cutlet/runtime/stream.h"
#include "device_state.h"
#include "host_graph.h"
#include "host_queue.h"
#include "launch_internal.h"

namespace cutlet {
namespace {

/// The name of a captured kernel, for messages: the driver's, or its handle.
std::string function_name(CUfunction f) {
  const char* name = nullptr;
  if (const auto get = detail::driver().cuFuncGetName; get && get(&name, f) == CUDA_SUCCESS && name)
    return name;
  char buf[48];
  std::snprintf(buf, sizeof buf, "CUfunction %p", static_cast<void*>(f));
  return buf;
}

/// The checks of GraphExec::update_kernel: the node is one of the graph's `kernels` kernel
/// nodes (`node_kernel` names its kernel; null: not one of them), launching `function`
/// (`same_kernel`), and the new config changes geometry only, within the device's limits.
void check_update(const Function& function, const LaunchConfig& config, std::size_t kernels,
                  const std::string* node_kernel, bool same_kernel, const detail::DeviceState& s) {
  if (!node_kernel)
    detail::bad_config(function.name().c_str(), config,
                       "GraphExec::update_kernel: the node is not a kernel node of the graph this "
                       "GraphExec was instantiated from (it has " +
                           std::to_string(kernels) +
                           " kernel nodes); pass a node that Graph::add_kernel or "
                           "Graph::kernel_nodes returned for that graph");
  if (!same_kernel)
    detail::bad_config(function.name().c_str(), config,
                       "GraphExec::update_kernel: the node launches kernel '" + *node_kernel +
                           "', not '" + function.name() +
                           "'; an update may change a node's arguments and geometry but not its "
                           "kernel, since the arguments are laid out by the kernel's parameter "
                           "list; build or capture a new graph for the other kernel");
  if (config.cluster != Dim3{} || config.cooperative || config.programmatic_dependent_launch)
    detail::bad_config(function.name().c_str(), config,
                       "GraphExec::update_kernel changes geometry and arguments only; the node "
                       "keeps the cluster and cooperative attributes it was built with (leave "
                       ".cluster, .cooperative and .programmatic_dependent_launch at their defaults)");
  check_launch_config(s.limits, config, function.name().c_str(), s.label);
}

}  // namespace

GraphExec Graph::instantiate() const {
  auto g = static_cast<CUgraph>(require("instantiate"));
  if (device_.is_cpu())
    return GraphExec(new detail::HostGraphExec(*static_cast<const detail::HostGraph*>(handle_)), device_, {});
  const detail::DeviceState& s = detail::device_state(device_.ordinal());
  detail::ensure_current(s);
  const detail::DriverApi& api = detail::driver();
  // Record every kernel node with its function, so that update_kernel can refuse a node of
  // another graph or a different kernel with a message instead of undefined behaviour.
  std::vector<GraphExec::KernelNode> kernels;
  for (GraphNode n : kernel_nodes()) {
    CUDA_KERNEL_NODE_PARAMS p = {};
    CUresult r = api.cuGraphKernelNodeGetParams(static_cast<CUgraphNode>(n.handle), &p);
    if (r != CUDA_SUCCESS) detail::throw_cuda_error(r, "cuGraphKernelNodeGetParams");
    void* f = p.func ? static_cast<void*>(p.func) : static_cast<void*>(p.kern);
    std::string name;
    for (const auto& [node, kernel] : kernel_names_)
      if (node == n.handle) name = kernel;
    if (name.empty()) name = p.func ? function_name(p.func) : "a context-independent kernel";
    kernels.push_back({n.handle, f, std::move(name)});
  }
  CUgraphExec exec = nullptr;
  CUresult r = api.cuGraphInstantiateWithFlags(&exec, g, 0);
  if (r != CUDA_SUCCESS) detail::throw_cuda_error(r, "cuGraphInstantiateWithFlags(" + s.label + ")");
  return GraphExec(exec, device_, std::move(kernels));
}

GraphExec::GraphExec(GraphExec&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)),
      device_(other.device_),
      kernels_(std::move(other.kernels_)) {}

GraphExec& GraphExec::operator=(GraphExec&& other) noexcept {
  if (this != &other) {
    GraphExec old(std::move(*this));
    handle_ = std::exchange(other.handle_, nullptr);
    device_ = other.device_;
    kernels_ = std::move(other.kernels_);
  }
  return *this;
}

GraphExec::~GraphExec() {
  if (!handle_) return;
  if (device_.is_cpu()) {
    delete static_cast<detail::HostGraphExec*>(handle_);
    return;
  }
  if (const detail::DriverApi* api = detail::g_driver_api.load(std::memory_order_acquire))
    api->cuGraphExecDestroy(static_cast<CUgraphExec>(handle_));
}

void* GraphExec::require(const char* op) const {
  if (!handle_) throw Error(std::string("GraphExec::") + op + " on an empty (moved-from) GraphExec");
  return handle_;
}

void GraphExec::launch(const Stream& stream) const {
  auto exec = static_cast<CUgraphExec>(require("launch"));
  const detail::DeviceState& s = detail::device_state(device_.ordinal());
  if (stream.device() != device_)
    throw Error("GraphExec::launch: the graph is for " + s.label + " but the stream is on " +
                detail::device_label(stream.device().ordinal()) + "; use a stream of the graph's device");
  if (device_.is_cpu()) {
    // The steps of this moment: a later update_kernel does not change a launch queued before it.
    std::shared_ptr<const std::vector<detail::HostGraphExec::Step>> steps =
        static_cast<const detail::HostGraphExec*>(handle_)->steps;
    return detail::host_queue(stream).push([steps] { detail::HostGraphExec::run(*steps); });
  }
  detail::ensure_current(s, stream);
  CUresult r = detail::driver().cuGraphLaunch(exec, static_cast<CUstream>(stream.handle()));
  if (r != CUDA_SUCCESS) detail::throw_cuda_error(r, "cuGraphLaunch(" + s.label + ")");
}

void GraphExec::upload(const Stream& stream) const {
  auto exec = static_cast<CUgraphExec>(require("upload"));
  const detail::DeviceState& s = detail::device_state(device_.ordinal());
  if (stream.device() != device_)
    throw Error("GraphExec::upload: the graph is for " + s.label + " but the stream is on " +
                detail::device_label(stream.device().ordinal()));
  if (device_.is_cpu()) return;  // host memory holds the graph's work already
  detail::ensure_current(s, stream);
  CUresult r = detail::driver().cuGraphUpload(exec, static_cast<CUstream>(stream.handle()));
  if (r != CUDA_SUCCESS) detail::throw_cuda_error(r, "cuGraphUpload(" + s.label + ")");
}

void GraphExec::update_kernel(GraphNode node, const Function& function, const LaunchConfig& config,
                              void** args) {
  auto exec = static_cast<CUgraphExec>(require("update_kernel"));
  const detail::DeviceState& s = detail::device_state(device_.ordinal());
  if (device_.is_cpu()) return update_host_kernel(node, function, config, args);
  const KernelNode* found = nullptr;
  for (const KernelNode& k : kernels_)
    if (k.node == node.handle) found = &k;
  check_update(function, config, kernels_.size(), found ? &found->name : nullptr,
               found && (found->function == function.handle() || found->function == function.kernel_handle()), s);
  detail::ensure_current(s);
  const detail::DriverApi& api = detail::driver();
  if (config.shared_bytes > s.limits.max_shared_per_block) {
    CUresult r = api.cuFuncSetAttribute(static_cast<CUfunction>(function.handle()),
                                        CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                        static_cast<int>(config.shared_bytes));
    if (r != CUDA_SUCCESS)
      detail::throw_cuda_error(r, "cuFuncSetAttribute(kernel '" + function.name() +
                                      "', MAX_DYNAMIC_SHARED_SIZE_BYTES)");
  }
  CUDA_KERNEL_NODE_PARAMS p = {};
  p.func = static_cast<CUfunction>(found->function == function.kernel_handle() ? nullptr : function.handle());
  if (!p.func) p.kern = static_cast<CUkernel>(function.kernel_handle());
  p.gridDimX = static_cast<unsigned>(config.grid.x);
  p.gridDimY = static_cast<unsigned>(config.grid.y);
  p.gridDimZ = static_cast<unsigned>(config.grid.z);
  p.blockDimX = static_cast<unsigned>(config.block.x);
  p.blockDimY = static_cast<unsigned>(config.block.y);
  p.blockDimZ = static_cast<unsigned>(config.block.z);
  p.sharedMemBytes = static_cast<unsigned>(config.shared_bytes);
  p.kernelParams = args;
  CUresult r = api.cuGraphExecKernelNodeSetParams(exec, static_cast<CUgraphNode>(node.handle), &p);
  if (r != CUDA_SUCCESS) detail::launch_failed(r, function, config, "cuGraphExecKernelNodeSetParams");
}

void GraphExec::update_host_kernel(GraphNode node, const Function& function, const LaunchConfig& config, void** args) {
  auto* exec = static_cast<detail::HostGraphExec*>(handle_);
  const detail::DeviceState& s = detail::device_state(device_.ordinal());
  const auto& steps = *exec->steps;
  std::size_t kernels = 0;
  const detail::HostGraphExec::Step* found = nullptr;
  for (const auto& step : steps) {
    if (step.kind != detail::HostGraphNode::Kind::kernel) continue;
    ++kernels;
    if (step.node == node.handle) found = &step;
  }
  check_update(function, config, kernels, found ? &found->launch->function.name() : nullptr,
               found && found->launch->function.host_entry() == function.host_entry(), s);
  LaunchConfig kept = config;
  kept.cooperative = found->launch->config.cooperative;
  if (kept.cooperative) detail::check_co_residency(function, kept, s);
  auto updated = std::make_shared<std::vector<detail::HostGraphExec::Step>>(steps);
  (*updated)[static_cast<std::size_t>(found - steps.data())].launch.emplace(function, kept, args);
  exec->steps = std::move(updated);
}

}  // namespace cutlet
