// Helpers shared by the runtime tests: substring expectations on exception messages.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace cutlet::test {

/// Succeeds when `text` contains `part`; on failure prints both.
inline ::testing::AssertionResult contains(const char* text_expr, const char* part_expr,
                                           std::string_view text, std::string_view part) {
  if (text.find(part) != std::string_view::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << text_expr << " does not contain " << part_expr
                                       << "\n  text: " << text << "\n  part: " << part;
}

/// The message of the cutlet::Error (or subclass) that `f()` throws; fails the test and
/// returns "" when it throws nothing.
template <class F>
std::string error_message(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an exception, none was thrown";
  return "";
}

}  // namespace cutlet::test

/// Expects the string `text` to contain `part`.
#define EXPECT_CONTAINS(text, part) EXPECT_PRED_FORMAT2(::cutlet::test::contains, text, part)
