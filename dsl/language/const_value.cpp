// ConstValue: reading, printing and parsing the run-time-typed value of a compile-time constant.
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>

#include "cutlet/error.h"
#include "cutlet/language/const_param.h"

namespace cutlet {

std::int64_t ConstValue::from_unsigned(unsigned long long v) {
  if (v > static_cast<unsigned long long>(std::numeric_limits<std::int64_t>::max()))
    throw Error("cutlet::ConstValue: the unsigned value " + std::to_string(v) +
                " is above INT64_MAX, the largest integer a ConstValue holds");
  return static_cast<std::int64_t>(v);
}

void ConstValue::throw_misfit(const char* type) const {
  throw Error("cutlet: the constant value " + str() + " does not fit " + type +
              " (the Const parameter's type); give the configuration a value of that type and range");
}

std::int64_t ConstValue::as_int() const {
  if (kind() != Kind::Int) throw Error("cutlet::ConstValue::as_int: the value " + str() + " is not an integer");
  return std::get<std::int64_t>(v_);
}

double ConstValue::as_double() const {
  if (kind() == Kind::Bool) throw Error("cutlet::ConstValue::as_double: the value " + str() + " is a bool");
  return kind() == Kind::Int ? static_cast<double>(std::get<std::int64_t>(v_)) : std::get<double>(v_);
}

bool ConstValue::as_bool() const {
  if (kind() != Kind::Bool) throw Error("cutlet::ConstValue::as_bool: the value " + str() + " is not a bool");
  return std::get<bool>(v_);
}

std::string ConstValue::str() const {
  switch (kind()) {
    case Kind::Int:
      return std::to_string(std::get<std::int64_t>(v_));
    case Kind::Bool:
      return std::get<bool>(v_) ? "true" : "false";
    case Kind::Float: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.17g", std::get<double>(v_));
      // The shortest form that reads back the same double.
      for (int digits = 1; digits < 17; ++digits) {
        char shorter[64];
        std::snprintf(shorter, sizeof shorter, "%.*g", digits, std::get<double>(v_));
        if (std::strtod(shorter, nullptr) == std::get<double>(v_)) return shorter;
      }
      return buf;
    }
  }
  return "?";
}

std::string ConstValue::serialize() const {
  switch (kind()) {
    case Kind::Int:
      return "i:" + std::to_string(std::get<std::int64_t>(v_));
    case Kind::Bool:
      return std::get<bool>(v_) ? "b:1" : "b:0";
    case Kind::Float: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "f:%a", std::get<double>(v_));
      return buf;
    }
  }
  return "?";
}

ConstValue ConstValue::parse(std::string_view text) {
  auto fail = [&]() -> ConstValue {
    throw Error("cutlet::ConstValue::parse: '" + std::string(text) +
                "' is not a serialized constant (expected i:<integer>, f:<hex float> or b:0/b:1)");
  };
  if (text.size() < 3 || text[1] != ':') return fail();
  const std::string body(text.substr(2));
  char* end = nullptr;
  errno = 0;
  switch (text[0]) {
    case 'i': {
      const long long v = std::strtoll(body.c_str(), &end, 10);
      if (errno || *end || end == body.c_str()) return fail();
      return ConstValue(static_cast<std::int64_t>(v));
    }
    case 'f': {
      const double v = std::strtod(body.c_str(), &end);
      if (*end || end == body.c_str()) return fail();
      return ConstValue(v);
    }
    case 'b':
      if (body == "1") return ConstValue(true);
      if (body == "0") return ConstValue(false);
      return fail();
    default:
      return fail();
  }
}

}  // namespace cutlet
