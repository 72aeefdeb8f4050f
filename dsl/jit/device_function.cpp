// Tracing device functions: a nested trace with its own builder, the caller's suspended.
#include "cutlet/jit/device_function.h"

#include "cutlet/ir/builder.h"
#include "cutlet/ir/pipeline.h"

namespace cutlet::detail {

std::shared_ptr<const ir::Function> trace_device_function(const std::string& name,
                                                          const std::function<ir::ValueId()>& body) {
  auto fn = std::make_shared<ir::Function>(name);
  TraceState* outer = current_trace();
  {
    ir::Builder b(*fn);
    TraceState state;
    state.builder = &b;
    if (outer) {
      state.line_info = outer->line_info;
      state.bounds_check = outer->bounds_check;
      state.wide_indices = outer->wide_indices;
    } else {
      state.line_info = line_info_from_environment();  // a bad value throws here, before the trace is installed
    }
    set_current_trace(&state);
    try {
      ir::ValueId result = body();
      b.finish_device_function(result);
    } catch (...) {
      set_current_trace(outer);
      throw;
    }
    set_current_trace(outer);
  }
  return std::make_shared<const ir::Function>(ir::run_pipeline(std::move(*fn)));
}

}  // namespace cutlet::detail
