// Internal: kernel launches of the CPU device as values, and the CPU device's graphs (what a
// Graph and a GraphExec of Device::cpu() hold).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cutlet/runtime/launch.h"
#include "cutlet/runtime/module.h"

namespace cutlet::detail {

/// A launch of a kernel of the CPU device with its arguments' values copied (the kernel runs
/// when its stream, or its graph, gets there): what a stream queues and a kernel node holds.
struct HostLaunch {
  /// Copies the values `args` points to, one per parameter of `function` (as launch() takes
  /// them). The config is not checked here.
  HostLaunch(const Function& function, const LaunchConfig& config, void** args);
  /// Runs the kernel over its grid and returns when every thread has finished. A kernel that
  /// fails throws KernelError, naming the kernel.
  void run() const;

  Function function;
  LaunchConfig config;
  std::vector<unsigned char> values;  ///< each argument's bytes in order, each in a slot of a multiple of 16 bytes
};

/// A node of a graph of the CPU device. GraphNode::handle points to one.
struct HostGraphNode {
  enum class Kind { empty, kernel, copy, fill, host };
  Kind kind = Kind::empty;
  std::optional<HostLaunch> launch;     ///< a kernel node's launch
  std::function<void()> work;           ///< what a copy, fill or host node does
  std::vector<const HostGraphNode*> after;  ///< the nodes it depends on
};

/// A graph of the CPU device (Graph::handle() points to one): its nodes in creation order.
/// While a stream capture records into it, `tail` is the node the stream's next operation
/// goes after, and `invalid` says why the capture failed, if it did.
struct HostGraph {
  std::vector<std::unique_ptr<HostGraphNode>> nodes;
  const HostGraphNode* tail = nullptr;
  std::string invalid;

  /// Adds `node` after `after` and returns it.
  HostGraphNode* add(HostGraphNode node, std::vector<const HostGraphNode*> after);
  /// Whether `node` is one of this graph's nodes.
  bool owns(const void* node) const;
};

/// An instantiated graph of the CPU device (GraphExec::handle() points to one): the nodes in an
/// order that respects every dependency, each a copy of its node, so that the graph may
/// change or go away. A launch runs the steps of that moment: an update makes new steps.
struct HostGraphExec {
  struct Step {
    const void* node;  ///< the graph's node it was made from
    HostGraphNode::Kind kind;
    std::optional<HostLaunch> launch;
    std::function<void()> work;
  };
  /// The steps of `graph` in dependency order. Throws Error when its edges form a cycle.
  explicit HostGraphExec(const HostGraph& graph);
  /// Runs every step, in order (on a stream's queue).
  static void run(const std::vector<Step>& steps);
  std::shared_ptr<const std::vector<Step>> steps;
};

}  // namespace cutlet::detail
