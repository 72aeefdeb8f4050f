// Must not compile: a signed and an unsigned integer tile in one expression (tiles follow
// Value's promotion rules).
#include <cutlet/cutlet.h>

cutlet::Tile<std::int32_t> kernel_body(cutlet::Tile<std::int32_t> i, cutlet::Tile<std::uint32_t> n) { return i + n; }
