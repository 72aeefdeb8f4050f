// Records the NVTX range names cutlet opens (detail::set_range_observer), for the range tests.
#pragma once

#include <algorithm>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "cutlet/scoped_range.h"

namespace cutlet::test {

/// While alive, collects the name of every range opened in the process, in order.
class RangeRecorder {
 public:
  RangeRecorder() { previous_ = detail::set_range_observer(&RangeRecorder::observe); }
  ~RangeRecorder() {
    detail::set_range_observer(previous_);
    std::lock_guard lock(mu());
    names().clear();
  }
  RangeRecorder(const RangeRecorder&) = delete;
  RangeRecorder& operator=(const RangeRecorder&) = delete;

  /// The names recorded so far.
  std::vector<std::string> recorded() const {
    std::lock_guard lock(mu());
    return names();
  }
  /// True when a range named `name` was opened.
  bool saw(const std::string& name) const {
    const auto all = recorded();
    return std::find(all.begin(), all.end(), name) != all.end();
  }

 private:
  static void observe(std::string_view name) {
    std::lock_guard lock(mu());
    names().emplace_back(name);
  }
  static std::mutex& mu() {
    static std::mutex m;
    return m;
  }
  static std::vector<std::string>& names() {
    static std::vector<std::string> n;
    return n;
  }
  detail::RangeObserver previous_ = nullptr;
};

/// The names in `names`, one per line, for failure messages.
inline std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += "  " + n + "\n";
  return out;
}

}  // namespace cutlet::test
