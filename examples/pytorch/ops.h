// The ops the module exports, each a cutlet kernel launched on the caller's tensors in place
// (no copies) on the stream their library is using. Tensors are any Python objects that
// tensor_import.h accepts; errors are cutlet::Error (cutlet_torch.Error in Python).
#pragma once

#include <nanobind/nanobind.h>

namespace cutlet_torch {

namespace nb = nanobind;

/// out = alpha * x + y elementwise, computed in float and rounded once to the element type
/// (as torch.add(y, x, alpha=alpha) does): a per-thread (SIMT) kernel, one thread an element.
/// The three tensors have one shape and one dtype (float32, float16 or bfloat16), are
/// contiguous and on one CUDA device; out may be x or y. `stream` as in launch_stream.
void scaled_add(nb::handle out, nb::handle x, nb::handle y, double alpha, nb::handle stream);

/// out = softmax(x) along each row of the 2-D tensor x (as torch.softmax(x, dim=1)), computed
/// in float: a tile kernel, one program (block) a row. x and out have one shape, with at most
/// kMaxSoftmaxColumns columns, and one dtype (float32, float16 or bfloat16); any strides (a
/// slice or a transpose is read in place), but out's elements must be distinct.
void softmax(nb::handle out, nb::handle x, nb::handle stream);

/// The widest row softmax takes: one row is one tile of at most this many elements.
inline constexpr long long kMaxSoftmaxColumns = 8192;

}  // namespace cutlet_torch
