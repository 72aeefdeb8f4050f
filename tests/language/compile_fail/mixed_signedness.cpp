// Must not compile: a signed and an unsigned traced integer in one expression.
#include <cutlet/cutlet.h>

cutlet::i32 kernel_body(cutlet::i32 i, cutlet::u32 n) { return i + n; }
