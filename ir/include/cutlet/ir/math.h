// Math functions of the `math` op, generated from math.def.
#pragma once

#include <cstdint>

#include "cutlet/ir/type.h"

namespace cutlet::ir {

/// Every math function; the list is math.def.
enum class MathFn : std::uint8_t {
#define MATH(name, text, arity, rule, f32, f64, i32, i64, u32, u64) name,
#include "cutlet/ir/math.def"
#undef MATH
};

/// How a math function's result type follows from its operand type.
enum class MathResult : std::uint8_t { Same, Bool, Int32 };

/// Static facts about a math function, from math.def.
struct MathInfo {
  const char* name;
  int arity;
  MathResult result;
  const char* f32;  ///< libdevice implementation per operand type ("" = undefined)
  const char* f64;
  const char* i32;
  const char* i64;
  const char* u32;
  const char* u64;
};

const MathInfo& math_info(MathFn fn);
const char* math_fn_name(MathFn fn);

/// The libdevice function implementing `fn` for operands of scalar type `t`, or nullptr
/// when `fn` is not defined for `t`.
const char* math_implementation(MathFn fn, Type t);

/// The result type of `fn` on operands of type `t`.
Type math_result_type(MathFn fn, Type t);

}  // namespace cutlet::ir
