// Must not compile: an FP8 value computed with (FP8 is storage only: cast it first).
#include <cutlet/cutlet.h>

cutlet::f32 kernel_body(cutlet::Value<cutlet::float8_e4m3> x) { return x * 2.0f; }
