// scaled_add: a generic per-thread kernel, specialized (and compiled once) per element type.
#include <cutlet/cutlet.h>

#include "ops.h"
#include "tensor_checks.h"

namespace cutlet_torch {

namespace {

constexpr int kBlock = 256;  ///< threads per block

/// out[i] = alpha * x[i] + y[i] for i < n, in float. The pointers' element type comes from the
/// launch's Buffer<T> arguments, so one lambda serves float, half and bfloat16.
auto scaled_add_kernel = cutlet::kernel(
    [](auto out, auto x, auto y, cutlet::f32 alpha, cutlet::i64 n) {
      using namespace cutlet;
      using T = typename decltype(out)::element_type;
      i64 i = cast<std::int64_t>(block_idx().x) * block_dim().x + thread_idx().x;
      if_(i < n, [&] { out[i] = cast<T>(alpha * cast<float>(x[i].load()) + cast<float>(y[i].load())); });
    },
    {.name = "cutlet_torch_scaled_add"});

}  // namespace

void scaled_add(nb::handle out_object, nb::handle x_object, nb::handle y_object, double alpha, nb::handle stream_object) {
  static constexpr const char* op = "scaled_add";
  const BorrowedTensor out(out_object, "out"), x(x_object, "x"), y(y_object, "y");
  require_cuda(out, op);
  const FloatType type = float_type(out, op);
  require_like(x, out, op);
  require_like(y, out, op);
  require_contiguous(out, op);
  require_contiguous(x, op);
  require_contiguous(y, op);
  const cutlet::Stream stream = launch_stream(out, stream_object, op);
  const std::int64_t n = element_count(out.dl());
  if (n == 0) return;
  with_element_type(type, [&]<class T>(std::type_identity<T>) {
    // Views of the tensors' memory: nothing is allocated or copied.
    const auto count = static_cast<std::size_t>(n);
    const auto device = stream.device();
    scaled_add_kernel.launch(stream, {.grid = cutlet::ceil_div(n, kBlock), .block = kBlock},
                             cutlet::Buffer<T>::wrap(address(out.dl()), count, device),
                             cutlet::Buffer<T>::wrap(address(x.dl()), count, device),
                             cutlet::Buffer<T>::wrap(address(y.dl()), count, device), static_cast<float>(alpha), n);
  });
}

}  // namespace cutlet_torch
