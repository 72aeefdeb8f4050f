// cutlet's boolean settings from environment variables, all parsed one way.
#pragma once

namespace cutlet::detail {

/// The boolean `value` of the environment variable `name` (nullptr: unset). True is 1, on,
/// true or yes; false is 0, off, false or no; case does not matter and spaces around the value
/// are ignored. Unset, empty or only spaces gives `fallback`. Anything else throws cutlet::Error
/// naming the variable, its value and these spellings: a setting misspelled must not quietly
/// mean its opposite.
bool parse_env_flag(const char* name, const char* value, bool fallback);

/// The boolean environment variable `name` (CUTLET_BOUNDS_CHECK, CUTLET_CACHE, ...) as
/// parse_env_flag reads it, `fallback` when it is unset or empty.
bool env_flag(const char* name, bool fallback);

}  // namespace cutlet::detail
