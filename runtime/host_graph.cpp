// Kernel launches of the CPU device as values, and the CPU device's graphs and their
// instantiations.
#include "host_graph.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <queue>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "cutlet/error.h"
#include "cutlet/runtime/cuda_error.h"
#include "driver_api.h"

namespace cutlet::detail {

namespace {

/// Bytes of an argument's slot in HostLaunch::values.
std::size_t slot_bytes(std::size_t size) { return (size + 15) / 16 * 16; }

}  // namespace

HostLaunch::HostLaunch(const Function& function, const LaunchConfig& config, void** args)
    : function(function), config(config) {
  const std::vector<std::size_t>& sizes = function.host_entry()->param_sizes();
  std::size_t total = 0;
  for (std::size_t size : sizes) total += slot_bytes(size);
  values.resize(total);
  std::size_t offset = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    std::memcpy(values.data() + offset, args[i], sizes[i]);
    offset += slot_bytes(sizes[i]);
  }
}

void HostLaunch::run() const {
  std::vector<void*> pointers;
  std::size_t offset = 0;
  for (std::size_t size : function.host_entry()->param_sizes()) {
    pointers.push_back(const_cast<unsigned char*>(values.data()) + offset);
    offset += slot_bytes(size);
  }
  // As a GPU reports a failed kernel at the stream's next synchronization: a CudaError, with
  // CUDA_ERROR_ASSERT for a failed assert_ and CUDA_ERROR_ILLEGAL_ADDRESS for an access where
  // nothing is mapped (what programs catching a GPU's errors expect).
  auto call = [&] {
    return "kernel '" + function.name() + "' (launched at " + config.where.file_name() + ":" +
           std::to_string(config.where.line()) + ") on the CPU device";
  };
  try {
    function.host_entry()->run(config.grid, config.block, pointers.data(), config.shared_bytes);
  } catch (const CudaError&) {
    throw;
  } catch (const HostKernelFault& e) {
    if (e.illegal_address()) throw KernelError(CUDA_ERROR_ILLEGAL_ADDRESS, call(), "CUDA_ERROR_ILLEGAL_ADDRESS", e.what());
    throw KernelError(CUDA_ERROR_LAUNCH_FAILED, call(), "CUDA_ERROR_LAUNCH_FAILED", e.what());
  } catch (const Error& e) {
    const bool assertion = std::string_view(e.what()).find("assertion failed") != std::string_view::npos;
    throw KernelError(assertion ? CUDA_ERROR_ASSERT : CUDA_ERROR_LAUNCH_FAILED, call(),
                      assertion ? "CUDA_ERROR_ASSERT" : "CUDA_ERROR_LAUNCH_FAILED", e.what());
  }
}

HostGraphNode* HostGraph::add(HostGraphNode node, std::vector<const HostGraphNode*> after) {
  node.after = std::move(after);
  nodes.push_back(std::make_unique<HostGraphNode>(std::move(node)));
  return nodes.back().get();
}

bool HostGraph::owns(const void* node) const {
  return std::any_of(nodes.begin(), nodes.end(), [&](const auto& n) { return n.get() == node; });
}

HostGraphExec::HostGraphExec(const HostGraph& graph) {
  // Kahn's algorithm over the nodes in creation order: among the nodes whose dependencies have
  // all been placed, the earliest made goes next.
  const std::size_t n = graph.nodes.size();
  std::unordered_map<const HostGraphNode*, std::size_t> index;
  for (std::size_t i = 0; i < n; ++i) index[graph.nodes[i].get()] = i;
  std::vector<std::size_t> waiting(n, 0);
  std::vector<std::vector<std::size_t>> dependents(n);
  for (std::size_t i = 0; i < n; ++i)
    for (const HostGraphNode* d : graph.nodes[i]->after) {
      ++waiting[i];
      dependents[index.at(d)].push_back(i);
    }
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
  for (std::size_t i = 0; i < n; ++i)
    if (waiting[i] == 0) ready.push(i);
  auto out = std::make_shared<std::vector<Step>>();
  out->reserve(n);
  while (!ready.empty()) {
    const std::size_t next = ready.top();
    ready.pop();
    for (std::size_t d : dependents[next])
      if (--waiting[d] == 0) ready.push(d);
    const HostGraphNode& node = *graph.nodes[next];
    out->push_back(Step{&node, node.kind, node.launch, node.work});
  }
  if (out->size() != n)
    throw Error("Graph::instantiate: the dependencies of the CPU device's graph form a cycle (" +
                std::to_string(n - out->size()) +
                " nodes wait for each other); remove the add_dependency that closes it");
  steps = std::move(out);
}

void HostGraphExec::run(const std::vector<Step>& steps) {
  for (const Step& s : steps) {
    if (s.launch)
      s.launch->run();
    else if (s.work)
      s.work();
  }
}

}  // namespace cutlet::detail
