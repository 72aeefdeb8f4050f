// cutlet_torch: the Python module. Its functions take tensors as plain Python objects
// (nb::handle: nanobind converts nothing) and read them through DLPack (tensor_import.h).
#include <cutlet/error.h>
#include <cutlet/version.h>

#include "ops.h"
#include "tensor_import.h"

namespace nb = nanobind;
using namespace nb::literals;

NB_MODULE(cutlet_torch, m) {
  m.doc() =
      "cutlet kernels on PyTorch tensors: in place, without copies, on the stream PyTorch is using "
      "(torch.cuda.current_stream()), so they order with PyTorch's own work and CUDA graph capture.";
  m.attr("cutlet_version") = CUTLET_VERSION_STRING;
  m.attr("max_softmax_columns") = cutlet_torch::kMaxSoftmaxColumns;

  // Every cutlet failure (bad arguments, compile errors, driver errors) as one Python class.
  nb::exception<cutlet::Error>(m, "Error", PyExc_RuntimeError);

  m.def("scaled_add", &cutlet_torch::scaled_add, "out"_a, "x"_a, "y"_a, "alpha"_a = 1.0, nb::kw_only(),
        "stream"_a = nb::none(),
        "out = alpha * x + y elementwise (torch.add(y, x, alpha=alpha, out=out)), for contiguous float32, "
        "float16 or bfloat16 CUDA tensors of one shape. stream: None for the current stream of the tensors' "
        "library, else a CUstream as an int or a torch.cuda.Stream.");
  m.def("softmax", &cutlet_torch::softmax, "out"_a, "x"_a, nb::kw_only(), "stream"_a = nb::none(),
        "out = softmax(x) along each row of a 2-D float32, float16 or bfloat16 CUDA tensor "
        "(torch.softmax(x, dim=1)), at most max_softmax_columns columns, any strides. stream: as for "
        "scaled_add.");
  m.def(
      "uses_exchange_api",
      [](nb::handle tensor) { return cutlet_torch::exchange_api(Py_TYPE(tensor.ptr())) != nullptr; }, "tensor"_a,
      "True when the type of `tensor` has a DLPack C exchange API (__dlpack_c_exchange_api__), through which the "
      "ops read it and find the current stream without running Python code; False when they fall back to "
      "__dlpack__() and need stream=.");
}
