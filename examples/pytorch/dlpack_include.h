// DLPack's C header, version 1.3 or later (the DLPack C exchange API, DLPackExchangeAPI): the
// dlpack/dlpack.h on the include path, or PyTorch's copy of the same header (ATen/dlpack.h)
// when CMakeLists.txt found no other and defined CUTLET_TORCH_ATEN_DLPACK. Only the C types
// are used; nothing else of PyTorch is included.
#pragma once

#if defined(CUTLET_TORCH_ATEN_DLPACK)
#include <ATen/dlpack.h>
#else
#include <dlpack/dlpack.h>
#endif

#if !defined(DLPACK_MAJOR_VERSION) || DLPACK_MAJOR_VERSION != 1 || DLPACK_MINOR_VERSION < 3
#error "cutlet_torch needs dlpack/dlpack.h of DLPack 1.3 or later (DLPackExchangeAPI); give its folder as -DCUTLET_DLPACK_INCLUDE_DIR=..."
#endif
