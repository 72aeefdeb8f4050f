// Parsing target names.
#include "cutlet/backend/target.h"

#include <cctype>

#include "cutlet/error.h"

namespace cutlet {

Target Target::from_string(const std::string& s) {
  std::string digits = s;
  for (const char* prefix : {"sm_", "compute_"}) {
    std::string p(prefix);
    if (digits.rfind(p, 0) == 0) digits = digits.substr(p.size());
  }
  if (digits == "90a") return Target{90, true};
  if (s == "host" || s == "cpu") return host_cpu();
  bool ok = !digits.empty() && digits.size() <= 3;
  for (char c : digits) ok = ok && std::isdigit(static_cast<unsigned char>(c));
  int sm = ok ? std::stoi(digits) : 0;
  if (!ok || sm < 75)
    throw Error("cutlet: unknown target '" + s + "': write it as sm_XY with XY >= 75 (the oldest the CUDA 13 " +
                "linker supports), e.g. \"sm_90\" for an H100/H200 or \"sm_80\" for an A100, or \"sm_90a\" for " +
                "Hopper's architecture-specific instructions, or \"host\" for the CPU");
  return Target{sm};
}

int Target::max_shared_per_block() const {
  if (host) return 227 * 1024;
  switch (sm) {
    case 75: return 64 * 1024;
    case 80: case 87: return 163 * 1024;
    case 86: case 89: case 120: case 121: return 99 * 1024;
    default: return sm >= 90 ? 227 * 1024 : 96 * 1024;
  }
}

}  // namespace cutlet
