// The default pass pipeline.
#include "cutlet/ir/pipeline.h"

#include "cutlet/ir/passes/passes.h"
#include "cutlet/ir/verifier.h"
#include "cutlet/scoped_range.h"

namespace cutlet::ir {

namespace {
constexpr Pass kPipeline[] = {
    {"fold-dot-transposes", &fold_dot_transposes},
    {"dce", &dead_code_elimination},
    {"assign-layouts", &assign_layouts},
    {"rematerialize-conversions", &rematerialize_conversions},
    {"dce-after-layouts", &dead_code_elimination},
};
}  // namespace

std::span<const Pass> default_pipeline() { return kPipeline; }

Function run_pipeline(Function f, const PipelineOptions& options) {
  verify(f);
  for (const Pass& p : kPipeline) {
    {
      cutlet::detail::ScopedRange range{"pass", p.name, f.name()};
      f = p.run(std::move(f));
      if (options.verify_each) verify(f);
    }
    if (options.after_pass) options.after_pass(p.name, f);
  }
  return f;
}

}  // namespace cutlet::ir
