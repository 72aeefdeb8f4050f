// Helpers shared by the cutlet benchmarks (see bench_support.h).
#include "bench_support.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <span>
#include <sstream>

namespace cutlet::bench {

bool require_gpu(benchmark::State& state) {
  if (driver_available()) return true;
  state.SkipWithError("no CUDA driver");
  return false;
}

std::filesystem::path executable_path() {
  char buf[4096];
  ssize_t len = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (len <= 0) throw Error("cutlet_bench: cannot read /proc/self/exe to find the executable");
  return std::filesystem::path(std::string(buf, static_cast<std::size_t>(len)));
}

Module load_baseline_module(const Device& device) {
  const std::filesystem::path path = executable_path().parent_path() / kBaselineCubin;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error("cutlet_bench: cannot open " + path.string() +
                "; the build makes it with nvcc next to cutlet_bench (copy it along with the executable)");
  std::vector<char> image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (image.empty()) throw Error("cutlet_bench: " + path.string() + " is empty");
  return Module::load(device, image);
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  if (v.size() % 2) return v[mid];
  const double hi = v[mid];
  const double lo = *std::max_element(v.begin(), v.begin() + mid);
  return (lo + hi) / 2;
}

int fresh_seed() {
  std::random_device rd;
  return 1 + static_cast<int>(rd() % (1u << 22));
}

void fill_random(const Stream& stream, Buffer<float>& buf, std::uint64_t seed) {
  constexpr std::size_t kChunk = std::size_t{1} << 22;  // 16 MiB of floats per copy
  std::vector<float> host(std::min(kChunk, buf.size()));
  std::uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (std::size_t off = 0; off < buf.size(); off += kChunk) {
    const std::size_t count = std::min(kChunk, buf.size() - off);
    for (std::size_t i = 0; i < count; ++i) {
      // splitmix64, top 24 bits -> [-1, 1)
      std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      z ^= z >> 31;
      host[i] = static_cast<float>(z >> 40) * (2.0f / 16777216.0f) - 1.0f;
    }
    auto part = Buffer<float>::wrap(buf.data() + off * sizeof(float), count, buf.device());
    part.copy_from_host(stream, std::span<const float>(host.data(), count));
    stream.synchronize();  // the host chunk is reused
  }
}

void set_bandwidth_counters(benchmark::State& state, const std::vector<double>& samples_ms, double bytes) {
  const double ms = median(samples_ms);
  state.counters["ms"] = ms;
  state.counters["GB/s"] = ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0;
}

ChildResult run_self_child(const std::string& env, const std::string& args) {
  const std::string cmd = env + " '" + executable_path().string() + "' " + args;
  const auto t0 = std::chrono::steady_clock::now();
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) throw Error("cutlet_bench: popen failed for: " + cmd);
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof(buf), pipe)) out += buf;
  ChildResult r;
  r.status = ::pclose(pipe);
  r.process_ms = ms_since(t0);
  std::string line;
  std::istringstream lines(out);
  for (std::string l; std::getline(lines, l);)
    if (l.rfind("cutlet-child", 0) == 0) line = l;
  if (r.status != 0 || line.empty())
    throw Error("cutlet_bench: child `" + cmd + "` exited with status " + std::to_string(r.status) +
                " and printed: " + out);
  std::istringstream tokens(line.substr(12));
  for (std::string t; tokens >> t;) {
    const auto eq = t.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = t.substr(0, eq), value = t.substr(eq + 1);
    if (key == "mode")
      r.mode = value;
    else
      r.values[key] = std::strtod(value.c_str(), nullptr);
  }
  return r;
}

std::filesystem::path make_temp_dir(const std::string& prefix) {
  std::string templ = (std::filesystem::temp_directory_path() / (prefix + "XXXXXX")).string();
  if (!::mkdtemp(templ.data())) throw Error("cutlet_bench: mkdtemp failed for " + templ);
  return templ;
}

}  // namespace cutlet::bench
