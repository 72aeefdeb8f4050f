// Must not compile: a traced comparison used as a C++ if condition.
#include <cutlet/cutlet.h>

void kernel_body(cutlet::i32 i, cutlet::i32 n, cutlet::Ptr<float> y) {
  if (i < n) y[i] = 1.0f;
}
