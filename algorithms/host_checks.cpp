// The algorithms' argument checks (detail/host_checks.h).
#include "cutlet/algorithms/detail/host_checks.h"

#include <string>

#include "cutlet/error.h"

namespace cutlet::algorithms::detail {

void check_count(std::size_t n, std::int64_t max_count, const char* algorithm) {
  if (n > static_cast<std::size_t>(max_count))
    throw Error(std::string("cutlet::algorithms::") + algorithm + ": " + std::to_string(n) +
                " elements are more than it takes (" + std::to_string(max_count) + ")");
}

std::int32_t checked_count(std::size_t n, std::int64_t max_count, const char* algorithm) {
  return checked_count(n, max_count, algorithm, "elements");
}

std::int32_t checked_count(std::size_t n, std::int64_t max_count, const char* algorithm, const char* what) {
  if (n > static_cast<std::size_t>(max_count))
    throw Error(std::string("cutlet::algorithms::") + algorithm + ": " + std::to_string(n) + " " + what +
                " are more than it takes (" + std::to_string(max_count) + "; its kernels count " + what +
                " in 32 bits)");
  return static_cast<std::int32_t>(n);
}

void check_aligned(std::uint64_t address, const char* algorithm, const char* which) {
  check_aligned(address, 16, algorithm, which);
}

void check_aligned(std::uint64_t address, std::size_t bytes, const char* algorithm, const char* which) {
  if (address % bytes != 0) {
    const std::string width = std::to_string(bytes) + "-byte";
    throw Error(std::string("cutlet::algorithms::") + algorithm + ": the " + which + " buffer starts at address " +
                std::to_string(address) + ", which is not " + width + " aligned; its kernels access memory in " +
                width + " vectors (buffers cutlet allocates are aligned; wrap an aligned address)");
  }
}

void check_size(std::size_t have, std::size_t need, const char* algorithm, const char* which) {
  if (have < need)
    throw Error(std::string("cutlet::algorithms::") + algorithm + ": the " + which + " buffer holds " +
                std::to_string(have) + " elements but " + std::to_string(need) + " are needed");
}

void check_device(const Device& buffer_device, const Stream& stream, const char* algorithm, const char* which) {
  if (buffer_device.ordinal() != stream.device().ordinal())
    throw Error(std::string("cutlet::algorithms::") + algorithm + ": the " + which + " buffer is on device " +
                std::to_string(buffer_device.ordinal()) + " but the stream is of device " +
                std::to_string(stream.device().ordinal()));
}

void check_disjoint(std::uint64_t a, std::size_t a_bytes, std::uint64_t b, std::size_t b_bytes, const char* algorithm,
                    const char* a_name, const char* b_name) {
  if (a_bytes == 0 || b_bytes == 0 || a + a_bytes <= b || b + b_bytes <= a) return;
  throw Error(std::string("cutlet::algorithms::") + algorithm + ": the " + a_name + " and the " + b_name +
              " overlap; give each a buffer of its own");
}

}  // namespace cutlet::algorithms::detail
