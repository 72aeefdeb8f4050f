// softmax: a generic tile kernel over strided tensors, specialized per element type, per
// power-of-two tile width and per TensorFacts (alignment, unit last stride) of its arguments.
#include <cutlet/cutlet.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

#include "ops.h"
#include "tensor_checks.h"

namespace cutlet_torch {

namespace {

/// One program per row: the row as a tile of BLOCK elements (a power of two; columns past the
/// row's width are masked off and never read or written), exp(x - max) / sum in float.
auto softmax_kernel = cutlet::tile_kernel(
    [](auto out, auto in, auto BLOCK) {
      using namespace cutlet;
      using T = typename decltype(out)::element_type;
      auto row = program_id(0);
      auto cols = arange(BLOCK);
      auto mask = cols < in.shape(1);
      auto x = where(mask, cast<float>(load(in, {row, cols}, mask)), -INFINITY);
      auto e = exp(x - max(x, 0));
      store(out, {row, cols}, cast<T>(e / sum(e, 0)), mask);
    },
    {.name = "cutlet_torch_softmax"}, /*warps=*/4);

/// The tile width for rows of `columns` elements: a power of two, at least one element per
/// thread of the program's 4 warps.
int tile_width(std::int64_t columns) {
  return static_cast<int>(std::max<std::uint64_t>(128, std::bit_ceil(static_cast<std::uint64_t>(columns))));
}

}  // namespace

void softmax(nb::handle out_object, nb::handle x_object, nb::handle stream_object) {
  static constexpr const char* op = "softmax";
  const BorrowedTensor out(out_object, "out"), x(x_object, "x");
  require_cuda(out, op);
  const FloatType type = float_type(out, op);
  require_like(x, out, op);
  require_rank(out, 2, op);
  require_distinct_elements(out, op);
  const std::int64_t rows = out.dl().shape[0], columns = out.dl().shape[1];
  if (columns > kMaxSoftmaxColumns)
    throw cutlet::Error(std::string(op) + ": x has " + std::to_string(columns) + " columns; a row is one tile here, of at most " +
                        std::to_string(kMaxSoftmaxColumns) + " elements");
  const cutlet::Stream stream = launch_stream(out, stream_object, op);
  if (rows == 0 || columns == 0) return;
  with_element_type(type, [&]<class T>(std::type_identity<T>) {
    // Views with the tensors' own strides: a slice or a transpose is read where it lies.
    const DLTensor& o = out.dl();
    const DLTensor& i = x.dl();
    softmax_kernel.launch(stream, {.grid = rows},
                          cutlet::tensor<T>(address(o), {rows, columns}, {stride(o, 0), stride(o, 1)}),
                          cutlet::tensor<T>(address(i), {rows, columns}, {stride(i, 0), stride(i, 1)}),
                          cutlet::constant(tile_width(columns)));
  });
}

}  // namespace cutlet_torch
