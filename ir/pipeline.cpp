// The default pass pipeline.
#include "cutlet/ir/pipeline.h"

#include "cutlet/ir/passes/passes.h"
#include "cutlet/ir/verifier.h"
#include "cutlet/error.h"
#include "cutlet/scoped_range.h"

namespace cutlet::ir {

namespace {
constexpr Pass kPipeline[] = {
    {"fold-dot-transposes", &fold_dot_transposes},
    {"upcast-fp8-dots", &upcast_fp8_dots},
    {"dce", &dead_code_elimination},
    {"choose-host-warps", &choose_host_warps},
    {"assign-layouts", &assign_layouts},
    {"pipeline-loops", &pipeline_loops},
    {"rematerialize-conversions", &rematerialize_conversions},
    {"dce-after-layouts", &dead_code_elimination},
    {"sink-past-loops", &sink_past_loops},
    {"allocate-shared", &allocate_shared},
};
}  // namespace

std::span<const Pass> default_pipeline() { return kPipeline; }

Function run_pipeline(Function f, const PipelineOptions& options) {
  return run_pipeline_from(std::move(f), kPipeline[0].name, options);
}

Function run_pipeline_from(Function f, std::string_view first, const PipelineOptions& options) {
  verify(f);
  bool on = false;
  for (const Pass& p : kPipeline) {
    on = on || p.name == first;
    if (!on) continue;
    {
      cutlet::detail::ScopedRange range{"pass", p.name, f.name()};
      f = p.run(std::move(f));
      if (options.verify_each) verify(f);
    }
    if (options.after_pass) options.after_pass(p.name, f);
  }
  CUTLET_ASSERT(on, "run_pipeline_from a pass that is not in the pipeline");
  return f;
}

}  // namespace cutlet::ir
