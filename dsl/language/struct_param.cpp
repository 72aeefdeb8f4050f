// Struct parameters' out-of-line parts: the error for an array field index out of range.
#include "cutlet/language/struct_param.h"

#include <string>

namespace cutlet::detail {

void throw_field_index_error(std::size_t index, std::size_t extent) {
  throw Error("cutlet: index " + std::to_string(index) + " of a struct's array field is out of range (the array has " +
              std::to_string(extent) + " elements; array fields are indexed with trace-time numbers)");
}

}  // namespace cutlet::detail
