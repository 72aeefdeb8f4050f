// The libdevice functions of kernels run on the host: host implementations under libdevice's
// names, where the host C library's function of that name is missing or less accurate.
#pragma once

#include <string>

namespace cutlet::backend {

/// The host implementation of libdevice function `name` (e.g. "__nv_rsqrtf", "__nv_popc",
/// "__nv_isnand") where the C library has none under libdevice's name less its "__nv_"
/// prefix, or one less accurate than libdevice's, with libdevice's signature and results;
/// nullptr for the others.
void* host_libdevice_function(const std::string& name);

}  // namespace cutlet::backend
