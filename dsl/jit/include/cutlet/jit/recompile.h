// Explaining recompiles: what distinguishes a kernel's new specialization from its earlier ones.
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cutlet::detail {

/// What one specialization of a kernel was made for; recompile explanations compare them.
struct SpecializationRecord {
  /// Per kernel parameter, its type as param_label names it ("f32", "Ptr<f32>", "Const<i32>").
  std::vector<std::string> params;
  /// Per kernel parameter, a Const's value ("4"), or "" for a run-time parameter.
  std::vector<std::string> values;
  /// The device ordinal, or -1 for a compile without a device (Kernel::compile).
  int device = -1;
  /// The target architecture, "sm_90".
  std::string arch;
  /// Every compile option as (name, value), as compile_option_fields lists them.
  std::vector<std::pair<std::string, std::string>> options;

  bool operator==(const SpecializationRecord&) const = default;
};

/// What changed from `from` to `to`, one phrase per difference, in parameter order then
/// device, arch and options: "argument 2 changed from f32 to f64", "argument 3 (Const<i32>)
/// changed from 4 to 8", "device changed from 0 to 1", "arch changed from sm_80 to sm_90",
/// "options changed: fma_contraction (true to false)". Empty when they are equal.
std::vector<std::string> record_differences(const SpecializationRecord& from, const SpecializationRecord& to);

/// The specializations one Kernel object has made, and why each after the first was needed.
/// Thread-safe.
class RecompileLog {
 public:
  /// Records a specialization of kernel `kernel`. When an identical record exists nothing is
  /// added and nullopt returned. Otherwise, if earlier records exist, returns the explanation
  /// against the closest one (fewest differences, the earliest among equals), e.g. "cutlet:
  /// kernel 'saxpy' recompiled (specialization 2 of this Kernel object): argument 2 changed
  /// from f32 to f64 (compared with specialization 1)", followed by `note` in brackets when
  /// given (e.g. where the code came from); keeps it for reasons(), and prints it to stderr
  /// when the environment sets CUTLET_EXPLAIN_RECOMPILES=1, else dumps it when the
  /// "recompiles" stage of `kernel` is dumped (dump.h), else logs it at CUTLET_LOG=info.
  std::optional<std::string> record(const std::string& kernel, SpecializationRecord r, std::string_view note = {});

  /// The explanations so far, oldest first.
  std::vector<std::string> reasons() const;
  /// The number of distinct specializations recorded.
  std::size_t size() const;

 private:
  mutable std::mutex mu_;
  std::vector<SpecializationRecord> records_;
  std::vector<std::string> reasons_;
};

}  // namespace cutlet::detail
