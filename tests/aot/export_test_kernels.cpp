// The exporter of the aot tests: a per-thread kernel and a tile kernel, exported for the
// architectures the build gives (cutlet_aot_export's ARCHS) into aot_test_kernels.h and .cpp.
#include <cutlet/cutlet.h>
#include <cutlet/jit/aot_export.h>

using namespace cutlet;

int main(int argc, char** argv) {
  auto saxpy = kernel([](f32 a, Ptr<float> x, Ptr<float> y, i32 n) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < n, [&] { y[i] = a * x[i] + y[i]; });
  }, {.name = "aot_test_saxpy"});
  // A tile kernel of 2 warps whose own shared memory (a shared_array the block reverses its tile
  // through) launches add to the dynamic shared memory.
  auto reverse = tile_kernel([](Tensor<float, 1> y, Tensor<float, 1> x, Const<float> K) {
    auto i = program_id(0) * 256 + arange(256);
    auto m = i < x.shape(0);
    auto s = shared_array<float>(256);
    store(s, arange(256), load(x, {i}, m) * K.value());
    syncthreads();
    store(y, {i}, load(s, 255 - arange(256)), m);
  }, {.name = "aot_test_reverse"}, 2);

  aot::Exporter ex("aot_test_kernels");
  ex.add(saxpy, "saxpy_f32").param_names({"a", "x", "y", "n"});
  ex.add_for(reverse, "reverse_scaled", TensorArg<float, 1>{}.generic(), TensorArg<float, 1>{}.generic(), 3.0f)
      .param_names({"y", "x", "K"});
  return ex.main(argc, argv);
}
