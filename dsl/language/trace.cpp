// The per-thread trace state.
#include "cutlet/language/trace.h"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "source_lines.h"

namespace cutlet::detail {

namespace {
thread_local TraceState* g_trace = nullptr;
}

TraceState* current_trace() noexcept { return g_trace; }

std::uint32_t new_trace_number() noexcept {
  static std::atomic<std::uint32_t> next{1};
  std::uint32_t n = next.fetch_add(1, std::memory_order_relaxed);
  return n == 0 ? next.fetch_add(1, std::memory_order_relaxed) : n;
}

void throw_value_of_another_trace() {
  const ir::Location loc = caller_location();
  const std::string where = loc.known() ? " (at " + std::string(loc.file) + ":" + std::to_string(loc.line) + ")" : "";
  throw TraceError(
      "cutlet: a traced value is used outside the trace that made it" + where +
      ". Values exist only while their kernel (or device function) is traced: a function-local `static` "
      "holding a Value, a Value saved from an earlier trace, or a kernel's Value captured by a "
      "device_function lambda refers to another trace. Use a host constant instead (`constexpr float k = "
      "0.5f;`), make the value inside the kernel, or pass a kernel's values to a device function as "
      "arguments.");
}

TraceState* set_current_trace(TraceState* s) noexcept {
  // Kernels and device functions read CUTLET_LINEINFO (and refuse a bad value) before their
  // trace is installed; here a bad value can only mean no line table.
  try {
    if (s && line_info_from_environment()) s->line_info = true;
  } catch (const Error&) {
  }
  TraceState* prev = g_trace;
  g_trace = s;
  return prev;
}

ir::Builder& builder(const char* what) {
  if (!g_trace || !g_trace->builder)
    throw TraceError(std::string("cutlet: ") + what +
                     " needs a kernel being traced: cutlet values (Value, Var, Ptr) exist only inside a "
                     "kernel lambda while cutlet traces it at its first launch or compile");
  if (g_trace->line_info) {
    // Every op emitted from here on carries the user's line (a stack walk per op: opt-in).
    ir::Location loc = caller_location();
    if (loc.known()) g_trace->builder->set_location(loc);
  }
  return *g_trace->builder;
}

void set_location(const std::source_location& loc) {
  if (g_trace && g_trace->builder) g_trace->builder->set_location({loc.file_name(), loc.line()});
}

ScopeGuard::ScopeGuard(const std::source_location& where) {
  auto* s = current_trace();
  saved_ = s ? s->scope : 0;
  saved_where_ = s ? s->scope_where : std::source_location{};
  if (s) {
    s->scope = s->next_scope++;
    s->scope_where = where;
  }
}

ScopeGuard::~ScopeGuard() {
  if (auto* s = current_trace()) {
    s->scope = saved_;
    s->scope_where = saved_where_;
  }
}

void throw_assignment_across_scope() {
  auto* s = current_trace();
  std::string where = s ? to_string(s->scope_where) : std::string("?");
  throw TraceError(
      "cutlet: assignment to a cutlet::Value declared outside the if_/for_range/while_ body opened at " + where +
      ". A Value is an immutable traced expression: assigning it inside a branch or loop would take effect "
      "unconditionally at trace time. Declare the variable as cutlet::Var<T> (a mutable per-thread "
      "variable) instead, e.g. cutlet::Var<float> acc = 0.0f;");
}

void throw_trace_error(const std::string& message, const std::source_location& where) {
  throw TraceError("cutlet: " + message + " (at " + to_string(where) + ")");
}

void throw_trace_error_at_caller(const std::string& message) {
  const ir::Location loc = caller_location();
  if (!loc.known()) throw TraceError("cutlet: " + message);
  throw TraceError("cutlet: " + message + " (at " + std::string(loc.file) + ":" + std::to_string(loc.line) + ")");
}

std::string number_text(double v) {
  char buf[64];
  if (std::trunc(v) == v && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

}  // namespace cutlet::detail
