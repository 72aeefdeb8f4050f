// The IR pass pipeline: the one list of passes run on every traced kernel.
#pragma once

#include <functional>
#include <span>
#include <string_view>

#include "cutlet/ir/function.h"

namespace cutlet::ir {

/// A named pass.
struct Pass {
  const char* name;
  Function (*run)(Function);
};

/// The passes run on every kernel, in order.
std::span<const Pass> default_pipeline();

/// Options for run_pipeline.
struct PipelineOptions {
  /// Run the verifier after every pass (on by default in debug builds).
#ifdef NDEBUG
  bool verify_each = false;
#else
  bool verify_each = true;
#endif
  /// Called after each pass with its name and result (for dumps); may be empty.
  std::function<void(std::string_view pass, const Function&)> after_pass;
};

/// Verifies `f`, then runs the default pipeline on it.
Function run_pipeline(Function f, const PipelineOptions& options = {});

/// Runs the default pipeline's passes from the one named `first` on (for IR built by hand
/// that skipped the front of the pipeline, such as tile IR without layouts).
Function run_pipeline_from(Function f, std::string_view first, const PipelineOptions& options = {});

}  // namespace cutlet::ir
