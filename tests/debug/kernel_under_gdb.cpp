// A kernel run on the CPU device with line info, for a debugger to stop in and read its
// thread's indices, parameters and variables (run_under_gdb.sh drives gdb over it).
#include <cutlet/cutlet.h>

#include <cstdio>

int main() {
  using namespace cutlet;
  auto k = kernel([](Ptr<int> out, i32 scale) {
    Var<int> scaled = thread_idx().x * scale;  // gdb: var_L<this line>
    out[thread_idx().x] = scaled + 1;          // gdb: break here
  }, {.name = "under_gdb", .opt_level = 0, .line_info = true});
  Stream s(Device::cpu());
  Buffer<int> out(64, s);
  k.launch(s, {.grid = 1, .block = 64}, out, 3);
  const auto got = out.to_host(s);
  for (int t = 0; t < 64; ++t)
    if (got[t] != 3 * t + 1) {
      std::printf("thread %d wrote %d, not %d\n", t, got[t], 3 * t + 1);
      return 1;
    }
  std::puts("kernel_under_gdb: results right");
  return 0;
}
