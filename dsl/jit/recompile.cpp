// Recompile explanations: differences between specialization records, and the per-kernel log.
#include "cutlet/jit/recompile.h"

#include <algorithm>
#include <cstdio>

#include "cutlet/dump.h"
#include "cutlet/log.h"
#include "cutlet/runtime/environment.h"

namespace cutlet::detail {
namespace {

bool explain_from_environment() {
  static const bool on = env_flag("CUTLET_EXPLAIN_RECOMPILES", false);
  return on;
}

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

}  // namespace

std::vector<std::string> record_differences(const SpecializationRecord& from, const SpecializationRecord& to) {
  std::vector<std::string> out;
  if (from.params.size() != to.params.size())
    out.push_back("argument count changed from " + std::to_string(from.params.size()) + " to " +
                  std::to_string(to.params.size()));
  const std::size_t n = std::min(from.params.size(), to.params.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::string arg = "argument " + std::to_string(i + 1);
    const std::string& fv = i < from.values.size() ? from.values[i] : std::string();
    const std::string& tv = i < to.values.size() ? to.values[i] : std::string();
    if (from.params[i] != to.params[i]) {
      std::string a = fv.empty() ? from.params[i] : from.params[i] + " " + fv;
      std::string b = tv.empty() ? to.params[i] : to.params[i] + " " + tv;
      out.push_back(arg + " changed from " + a + " to " + b);
    } else if (fv != tv) {
      out.push_back(arg + " (" + to.params[i] + ") changed from " + fv + " to " + tv);
    }
  }
  if (from.device != to.device) {
    auto dev = [](int d) { return d < 0 ? std::string("none (compile only)") : std::to_string(d); };
    out.push_back("device changed from " + dev(from.device) + " to " + dev(to.device));
  }
  if (from.arch != to.arch) out.push_back("arch changed from " + from.arch + " to " + to.arch);
  std::vector<std::string> opts;
  for (const auto& [name, value] : to.options) {
    std::string before = "(unset)";
    for (const auto& [n2, v2] : from.options)
      if (n2 == name) before = v2;
    if (before != value) opts.push_back(name + " (" + before + " to " + value + ")");
  }
  for (const auto& [name, value] : from.options) {
    bool found = false;
    for (const auto& o : to.options) found |= o.first == name;
    if (!found) opts.push_back(name + " (" + value + " to unset)");
  }
  if (!opts.empty()) out.push_back("options changed: " + join(opts, ", "));
  return out;
}

std::optional<std::string> RecompileLog::record(const std::string& kernel, SpecializationRecord r,
                                                std::string_view note) {
  const bool explain = explain_from_environment();  // a bad value throws before anything is recorded
  std::string message;
  {
    std::lock_guard lock(mu_);
    for (const auto& e : records_)
      if (e == r) return std::nullopt;
    if (records_.empty()) {
      records_.push_back(std::move(r));
      return std::nullopt;
    }
    std::vector<std::string> best;
    std::size_t best_index = 0;
    for (std::size_t i = 0; i < records_.size(); ++i) {
      auto d = record_differences(records_[i], r);
      if (i == 0 || d.size() < best.size()) {
        best = std::move(d);
        best_index = i;
      }
    }
    records_.push_back(std::move(r));
    message = "cutlet: kernel '" + kernel + "' recompiled (specialization " + std::to_string(records_.size()) +
              " of this Kernel object): " + join(best, "; ") + " (compared with specialization " +
              std::to_string(best_index + 1) + ")";
    if (!note.empty()) message += " [" + std::string(note) + "]";
    reasons_.push_back(message);
  }
  if (explain) std::fprintf(stderr, "%s\n", message.c_str());
  else if (dump_enabled("recompiles", kernel)) dump("recompiles", kernel, message + "\n");
  else if (log_enabled(LogLevel::Info)) log_message(LogLevel::Info, message.substr(message.find(' ') + 1));
  return message;
}

std::vector<std::string> RecompileLog::reasons() const {
  std::lock_guard lock(mu_);
  return reasons_;
}

std::size_t RecompileLog::size() const {
  std::lock_guard lock(mu_);
  return records_.size();
}

}  // namespace cutlet::detail
