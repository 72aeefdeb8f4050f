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

/// The state of one trace: the IR builder and the current scope. A scope is the body of
/// one if_/for_range/while_ region (or the kernel body); values remember the scope they
/// were declared in.
struct TraceState {
  ir::Builder* builder = nullptr;
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

}  // namespace detail
}  // namespace cutlet
