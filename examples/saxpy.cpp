// The main example: y = a*x + y written as a cutlet kernel. It compiles the kernel for a GPU
// and shows its PTX and resource use, then runs, checks and times it: on the GPU, or on the
// CPU device where there is no CUDA driver (or CUTLET_DEVICE=cpu asks for it).
#include <cutlet/cutlet.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using namespace cutlet;

int main() {
  auto saxpy = kernel(
      [](f32 a, Ptr<float> x, Ptr<float> y, i32 n) {
        i32 i = block_idx().x * block_dim().x + thread_idx().x;
        if_(i < n, [&] { y[i] = a * x[i] + y[i]; });
      },
      {.name = "saxpy"});

  // Compiling needs no GPU: trace -> IR -> LLVM -> PTX -> nvJitLink -> cubin.
  auto compiled = saxpy.compile();
  std::printf("cutlet %s: LLVM %s, nvJitLink %s, target %s\n\n", CUTLET_VERSION_STRING, llvm_version().c_str(),
              nvjitlink_version().c_str(), detail::compile_options_for(saxpy.options()).target.arch().c_str());
  std::printf("%s\n", ir::print(saxpy.trace_ir()).c_str());
  std::printf("%s\n", compiled->ptx.c_str());
  std::printf("cubin: %zu bytes, %d registers, %d bytes shared memory, %d bytes stack, %d bytes spilled\n",
              compiled->cubin.size(), compiled->resources.registers, compiled->resources.shared_bytes,
              compiled->resources.stack_bytes, compiled->resources.spill_store_bytes);
  const auto& t = compiled->timings;
  std::printf("compile: lower %.2f ms, optimize %.2f ms, PTX %.2f ms, link %.2f ms\n\n", t.lower_ms, t.optimize_ms,
              t.codegen_ms, t.link_ms);

  const bool on_cpu = Device::cpu_selected() || !driver_available();
  if (on_cpu)
    std::printf("%s: running the kernel on the CPU device (compiled for the host CPU, the GPU's execution model).\n\n",
                Device::cpu_selected() ? "CUTLET_DEVICE=cpu" : "No GPU found (no CUDA driver)");
  const Device device = on_cpu ? Device::cpu() : Device(0);

  const int n = (1 << 24) + 3;
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> hx(n), hy(n);
  for (auto& v : hx) v = dist(rng);
  for (auto& v : hy) v = dist(rng);
  const float a = 2.5f;

  Stream stream(device);
  Buffer<float> x(stream, hx), y(stream, hy);
  LaunchConfig config{.grid = ceil_div(n, 256), .block = 256};
  saxpy.launch(stream, config, a, x, y, n);  // first launch: compiles for this device and loads
  stream.synchronize();
  std::vector<float> out = y.to_host(stream);

  std::size_t bad = 0;
  for (int i = 0; i < n; ++i) {
    float want = std::fma(a, hx[i], hy[i]);
    if (std::fabs(out[i] - want) > 1e-5f * (1.0f + std::fabs(want))) ++bad;
  }

  Event start(device), stop(device);
  const int reps = on_cpu ? 5 : 20;
  start.record(stream);
  for (int r = 0; r < reps; ++r) saxpy.launch(stream, config, a, x, y, n);
  stop.record(stream);
  stop.synchronize();
  double ms = Event::elapsed_ms(start, stop) / reps;
  double gbs = 3.0 * sizeof(float) * n / (ms * 1e-3) / 1e9;
  std::printf("%s: saxpy on %d floats: %s (%zu mismatches), %.3f ms per launch, %.0f GB/s\n", device.name().c_str(), n,
              bad == 0 ? "correct" : "WRONG", bad, ms, gbs);
  return bad == 0 ? 0 : 1;
}
