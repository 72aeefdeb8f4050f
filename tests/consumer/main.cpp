// A program that uses cutlet as a dependency, built by the package tests against an installed
// cutlet (find_package/) and with cutlet as a subproject (fetch_content/). It compiles a SIMT
// kernel, which needs no GPU, and checks its PTX and cubin; with a GPU it also runs the kernel
// and checks the result. It prints "cutlet consumer: ok" and exits 0 when every check passes.
#include <cutlet/cutlet.h>
#include <cutlet/version.h>

#include <cstdio>
#include <string>
#include <vector>

using namespace cutlet;

namespace {

int fail(const std::string& what) {
  std::fprintf(stderr, "cutlet consumer: FAILED: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main() {
  auto affine = kernel(
      [](f32 a, Ptr<float> x, Ptr<float> y, i32 n) {
        i32 i = block_idx().x * block_dim().x + thread_idx().x;
        if_(i < n, [&] { y[i] = a * x[i] + 1.0f; });
      },
      {.name = "cutlet_consumer_affine"});

  // The headers and the library they link must be one version.
  std::printf("cutlet consumer: headers %s, library %s, LLVM %s, nvJitLink %s\n", CUTLET_VERSION_STRING,
              cutlet_version().c_str(), llvm_version().c_str(), nvjitlink_version().c_str());
  if (cutlet_version() != CUTLET_VERSION_STRING) return fail("the library's version is not the headers'");

  auto compiled = affine.compile();  // trace -> IR -> PTX -> cubin: no GPU needed
  if (compiled->ptx.find(".entry " + compiled->name) == std::string::npos)
    return fail("the PTX has no entry " + compiled->name);
  if (compiled->cubin.empty()) return fail("nvJitLink gave no cubin");
  std::printf("cutlet consumer: compiled %s: %zu bytes of PTX, %zu-byte cubin, %d registers\n",
              compiled->name.c_str(), compiled->ptx.size(), compiled->cubin.size(), compiled->resources.registers);

  if (!driver_available()) {
    std::printf("cutlet consumer: ok (no CUDA driver: compiled only)\n");
    return 0;
  }
  const int n = 1000;
  std::vector<float> hx(n), hy(n, -1.0f);
  for (int i = 0; i < n; ++i) hx[i] = static_cast<float>(i);
  Device device(0);
  Stream stream(device);
  Buffer<float> x(stream, hx), y(stream, hy);
  affine.launch(stream, {.grid = ceil_div(n, 256), .block = 256}, 2.0f, x, y, n);
  std::vector<float> out = y.to_host(stream);
  for (int i = 0; i < n; ++i)  // 2 * i + 1 is exact in float, with or without fma
    if (out[i] != 2.0f * hx[i] + 1.0f) return fail("y[" + std::to_string(i) + "] = " + std::to_string(out[i]));
  std::printf("cutlet consumer: ok (ran on %s)\n", device.name().c_str());
  return 0;
}
