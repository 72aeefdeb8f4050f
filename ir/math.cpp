// The math function table, generated from math.def.
#include "cutlet/ir/math.h"

namespace cutlet::ir {
namespace {
constexpr MathInfo kMath[] = {
#define MATH(name, text, arity, rule, f32, f64, i32, i64, u32, u64) \
  {text, arity, MathResult::rule, f32, f64, i32, i64, u32, u64},
#include "cutlet/ir/math.def"
#undef MATH
};
}  // namespace

const MathInfo& math_info(MathFn fn) { return kMath[static_cast<int>(fn)]; }
const char* math_fn_name(MathFn fn) { return math_info(fn).name; }

const char* math_implementation(MathFn fn, Type t) {
  if (!t.is_scalar()) return nullptr;
  const MathInfo& m = math_info(fn);
  const char* impl = nullptr;
  switch (t.scalar_kind()) {
    case ScalarKind::F32: impl = m.f32; break;
    case ScalarKind::F64: impl = m.f64; break;
    case ScalarKind::I32: impl = m.i32; break;
    case ScalarKind::I64: impl = m.i64; break;
    case ScalarKind::U32: impl = m.u32; break;
    case ScalarKind::U64: impl = m.u64; break;
    default: break;
  }
  return impl && *impl ? impl : nullptr;
}

Type math_result_type(MathFn fn, Type t) {
  switch (math_info(fn).result) {
    case MathResult::Same: return t;
    case MathResult::Bool: return Type::i1();
    case MathResult::Int32: return Type::i32();
  }
  return t;
}

}  // namespace cutlet::ir
