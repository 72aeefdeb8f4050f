// The tracing state of the kernel being traced on this thread, and trace-time errors.
#pragma once

#include <cstdint>
#include <source_location>
#include <string>

#include "cutlet/error.h"
#include "cutlet/ir/builder.h"

namespace cutlet {

/// An error in kernel code found while tracing it: a misuse the C++ type system cannot
/// catch. The message names the user's file and line.
class TraceError : public Error {
 public:
  using Error::Error;
};

namespace detail {

/// A number for a new trace, never 0 and never one an earlier trace of this process had.
std::uint32_t new_trace_number() noexcept;

/// The state of one trace: the IR builder and the current scope. A scope is the body of
/// one if_/for_range/while_ region (or the kernel body); values remember the scope they
/// were declared in.
struct TraceState {
  ir::Builder* builder = nullptr;
  std::uint32_t number = new_trace_number();  ///< stamps the values made in this trace (TracedId)
  std::uint32_t scope = 0;
  std::uint32_t next_scope = 1;
  std::source_location scope_where;  ///< where the current region was opened
  bool line_info = false;            ///< attribute every op to the user's source line
  bool bounds_check = false;         ///< check View indices against their shapes
  bool wide_indices = false;         ///< some buffer has 2^31 elements or more: 64-bit index math
};

/// How a kernel is traced: parts of its specialization.
struct TraceOptions {
  bool line_info = false;
  bool bounds_check = false;
  bool wide_indices = false;
  int tile_warps = 0;
  int tile_stages = 0;
  bool tile_wgmma = false;  ///< tile dots may use Hopper's wgmma (an sm_90a target; ir::Function::tile_wgmma)
  bool host_target = false;  ///< compiled for the host CPU (ir::Function::host_target)
};

/// True when CUTLET_LINEINFO=1 asks every kernel for line information.
bool line_info_from_environment();

/// The trace running on this thread, or nullptr.
TraceState* current_trace() noexcept;
/// Installs `s` as this thread's trace (nullptr to end it); returns the previous one.
TraceState* set_current_trace(TraceState* s) noexcept;

/// The builder of the current trace; throws TraceError when no kernel is being traced.
ir::Builder& builder(const char* what = "this operation");

/// Sets the source location recorded on the IR emitted from now on.
void set_location(const std::source_location& loc);

/// The scope id where a value declared now belongs (0 outside a trace).
inline std::uint32_t current_scope() noexcept {
  auto* s = current_trace();
  return s ? s->scope : 0;
}

/// The number of the trace running on this thread (0 when none).
inline std::uint32_t current_trace_number() noexcept {
  auto* s = current_trace();
  return s ? s->number : 0;
}

/// Throws the error for a traced value used outside the trace (kernel or device function)
/// that made it.
[[noreturn]] void throw_value_of_another_trace();

/// An IR value number stamped with the trace that made it. Value numbers mean something only
/// in their own trace: a Value kept in a function-local `static`, or captured from a kernel by
/// a device function, would silently name another value in another trace; get() refuses that
/// with a TraceError instead.
class TracedId {
 public:
  TracedId() = default;
  explicit TracedId(ir::ValueId id) noexcept : id_(id), trace_(current_trace_number()) {}
  /// The value number, in the trace running now (the one that made it).
  ir::ValueId get() const {
    if (trace_ != current_trace_number()) [[unlikely]]
      throw_value_of_another_trace();
    return id_;
  }

 private:
  ir::ValueId id_ = ir::kNone;
  std::uint32_t trace_ = 0;
};

/// True when the kernel being traced uses 64-bit index arithmetic (see View).
inline bool wide_indices() noexcept {
  auto* s = current_trace();
  return s && s->wide_indices;
}
/// True when the kernel being traced checks View indices.
inline bool bounds_checked() noexcept {
  auto* s = current_trace();
  return s && s->bounds_check;
}

/// Enters a fresh scope for the duration of a region's body.
class ScopeGuard {
 public:
  explicit ScopeGuard(const std::source_location& where);
  ~ScopeGuard();
  ScopeGuard(const ScopeGuard&) = delete;
  ScopeGuard& operator=(const ScopeGuard&) = delete;

 private:
  std::uint32_t saved_;
  std::source_location saved_where_;
};

/// Throws the error for assigning, inside a nested region, to a cutlet::Value declared
/// outside it.
[[noreturn]] void throw_assignment_across_scope();

/// Throws TraceError with `message` and the location `where`.
[[noreturn]] void throw_trace_error(const std::string& message, const std::source_location& where);

/// Throws TraceError with `message` and the user's line that called into cutlet, found on
/// the call stack (for operations that take no std::source_location; the line is left out
/// when the program has no debug information).
[[noreturn]] void throw_trace_error_at_caller(const std::string& message);

/// `v` as text: an integer below 1e15 in full (70000), otherwise the shortest form that
/// reads back as the same double (1e+300, 0.1).
std::string number_text(double v);

}  // namespace detail
}  // namespace cutlet
