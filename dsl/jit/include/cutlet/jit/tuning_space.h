// Autotuning configurations and the spaces they come from: products of value ranges, explicit
// lists, pruning predicates and a cost model that orders the trials.
#pragma once

#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cutlet/backend/compiler.h"
#include "cutlet/jit/specialization.h"
#include "cutlet/language/const_param.h"

namespace cutlet {

/// One configuration of a tunable kernel: named values for its compile-time constants,
/// launch-shape parameters and compile options, in the order they were set.
class Config {
 public:
  Config() = default;
  /// `Config{{"BLOCK", 128}, {"UNROLL", 4}}`. Throws Error for an invalid or repeated name.
  Config(std::initializer_list<std::pair<std::string, ConstValue>> entries);

  /// Sets `name` (letters, digits, '_', '.', '-'), replacing an earlier value of it. Throws
  /// Error for an invalid name.
  Config& set(const std::string& name, ConstValue value);
  /// True when the config has a value for `name`.
  bool has(std::string_view name) const;
  /// The value of `name`. Throws Error naming the config and its names when it has none.
  const ConstValue& at(std::string_view name) const;
  /// at(name) converted to T (see ConstValue::to): `c.get<int>("BLOCK")`.
  template <ConstType T>
  T get(std::string_view name) const {
    return at(name).to<T>();
  }
  /// The (name, value) pairs in the order they were set.
  const std::vector<std::pair<std::string, ConstValue>>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }

  /// "BLOCK=128 UNROLL=4"; "(empty)" for an empty config.
  std::string str() const;
  /// "BLOCK=i:128 UNROLL=i:4", which parse() reads back exactly.
  std::string serialize() const;
  /// Reads serialize()'s form. Throws Error for anything else.
  static Config parse(std::string_view text);

  /// Same names and values in the same order.
  bool operator==(const Config&) const = default;

 private:
  std::vector<std::pair<std::string, ConstValue>> entries_;
};

/// A configuration of a space, as a tuner will try it.
struct Candidate {
  Config config;
  std::string pruned;  ///< why the space's pruning predicate skips it; empty when it is tried
  double cost = 0;     ///< the cost model's estimate (0 without a cost model)
};

/// The configurations a tuner tries: each explicit configuration (or one empty one) combined
/// with every point of the product of the axes, in that order (the last axis varies fastest),
/// then ordered by the cost model. Each name has a role: a compile-time constant (constant(),
/// constants()), filling the kernel's Const parameters in the order the constants are
/// declared; a compile option (option(): "opt_level", "fma_contraction", "flush_denormals",
/// "approx_math", and for tile kernels "tile_warps" and "tile_stages"); or a launch
/// parameter (launch(), and any other name), which only the tuner's launch-shape function
/// reads.
class TuningSpace {
 public:
  /// Adds an axis of values for compile-time constant `name`.
  TuningSpace& constant(std::string name, std::vector<ConstValue> values);
  /// Declares names of compile-time constants that explicit configs give values for.
  TuningSpace& constants(std::vector<std::string> names);
  /// Adds an axis of values for launch parameter `name` (a block size, a grid policy...).
  TuningSpace& launch(std::string name, std::vector<ConstValue> values);
  /// Adds an axis of values for compile option `name`: "opt_level" (0-3),
  /// "fma_contraction", "flush_denormals", "approx_math" (bool), or for a tile kernel
  /// "tile_warps" (1, 2, 4, ..., 32: its block, Triton's num_warps) and "tile_stages" (2-8,
  /// Triton's num_stages): the KernelOptions fields that change speed. Throws Error for other
  /// names or values.
  TuningSpace& option(std::string name, std::vector<ConstValue> values);
  /// Adds explicit configurations, each combined with every point of the axes' product.
  TuningSpace& configs(std::vector<Config> list);
  /// Prunes before compiling: `reason(config)` says why a config is skipped, "" to try it
  /// (e.g. on shared memory use against the device's limit).
  TuningSpace& prune(std::function<std::string(const Config&)> reason);
  /// Prunes after compiling: `reason(config, compiled)` sees the kernel's resource use
  /// (registers, spills, shared memory).
  TuningSpace& prune_compiled(std::function<std::string(const Config&, const CompiledKernel&)> reason);
  /// Orders the trials by `cost(config)`, lowest first (equal costs keep the space's order),
  /// so that the most promising configurations are compiled and timed first.
  TuningSpace& cost_model(std::function<double(const Config&)> cost);

  /// Every configuration, ordered by the cost model, with the pruning predicate's reasons.
  /// Throws Error when the space is empty, an axis has no values, a config lacks a value for
  /// a declared constant, or a compile option has a value it cannot take.
  std::vector<Candidate> candidates() const;
  /// The compile-time constants in Const parameter order.
  const std::vector<std::string>& constant_names() const { return constants_; }
  /// The post-compile pruning predicate (empty when none).
  const std::function<std::string(const Config&, const CompiledKernel&)>& compiled_pruner() const {
    return prune_compiled_;
  }
  /// A text that changes whenever the configurations or the constants' order do; it is part
  /// of the key that persisted tuning results are stored under.
  std::string fingerprint() const;
  /// True for the names option() accepts.
  static bool is_option_name(std::string_view name);

 private:
  struct Axis {
    std::string name;
    std::vector<ConstValue> values;
  };
  std::vector<Config> expand() const;

  std::vector<Axis> axes_;
  std::vector<Config> list_;
  std::vector<std::string> constants_;
  std::function<std::string(const Config&)> prune_;
  std::function<std::string(const Config&, const CompiledKernel&)> prune_compiled_;
  std::function<double(const Config&)> cost_;
};

/// `options` with the compile options `config` sets (see TuningSpace::option).
KernelOptions apply_config_options(KernelOptions options, const Config& config);

}  // namespace cutlet
