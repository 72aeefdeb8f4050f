// The cutlet-cache command line: list, inspect, clear and trim the persistent kernel cache.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace cutlet {

/// Runs the cutlet-cache command `args` (without the program name), writing results to `out`
/// and errors to `err`; returns the exit status (0 success, 1 failure, 2 bad usage).
///
///   cutlet-cache [--dir DIR] list        entries, least recently used first: id, kernel,
///                                        arch, size, age, last use, hits, compile time
///   cutlet-cache [--dir DIR] ptx ID      the PTX of the entry whose id starts with ID
///   cutlet-cache [--dir DIR] info ID     an entry's full key, resource use and log
///   cutlet-cache [--dir DIR] tuning      the persisted autotuning results
///   cutlet-cache [--dir DIR] clear       removes every entry and tuning result
///   cutlet-cache [--dir DIR] trim SIZE   removes least recently used entries down to SIZE
///                                        (bytes, or with K, M, G, T; a malformed SIZE or
///                                        one beyond 2^64 - 1 bytes is refused, status 2)
///   cutlet-cache [--dir DIR] path        the cache directory
///
/// Without --dir, the directory the library uses: CUTLET_CACHE_DIR, $XDG_CACHE_HOME/cutlet
/// or ~/.cache/cutlet.
int run_cache_tool(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace cutlet
