// What the IR tests share: substring assertions on messages and the message of an IRError.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "cutlet/ir/builder.h"

namespace cutlet::ir {

/// Succeeds when `text` contains `part`; on failure prints both.
inline ::testing::AssertionResult contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << text << "\" does not contain \"" << part << "\"";
}

/// Runs `fn`, which must throw IRError, and returns the error's message.
template <class Fn>
std::string ir_error_of(Fn&& fn) {
  try {
    fn();
  } catch (const IRError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an IRError";
  return {};
}

}  // namespace cutlet::ir
