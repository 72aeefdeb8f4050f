// cutlet-cache: lists, inspects, clears and trims the persistent kernel cache.
#include <iostream>
#include <string>
#include <vector>

#include "cutlet/jit/cache_tool.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return cutlet::run_cache_tool(args, std::cout, std::cerr);
}
