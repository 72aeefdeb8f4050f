// Struct parameters' and values' out-of-line parts: the errors for an array field index out of
// range and for a field a struct value cannot hold.
#include "cutlet/language/struct_param.h"

#include <string>

namespace cutlet::detail {

void throw_field_index_error(std::size_t index, std::size_t extent) {
  throw Error("cutlet: index " + std::to_string(index) + " of a struct's array field is out of range (the array has " +
              std::to_string(extent) + " elements; array fields are indexed with trace-time numbers)");
}

void throw_struct_value_field_error(const char* what) {
  throw Error(std::string("cutlet: a struct value (Struct<S> in registers) cannot hold ") + what +
              "; read such fields from a struct parameter, or lay the struct out in whole 32-bit words");
}

}  // namespace cutlet::detail
