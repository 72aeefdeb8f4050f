#include "fuzz/simt_run.h"

#include <algorithm>
#include <optional>
#include <sstream>
#include <tuple>

#include "fuzz/simt_evaluator.h"
#include "fuzz/simt_kernel.h"

namespace cutlet::fuzz {
namespace {

using BufferTypes = std::tuple<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                               std::uint32_t, std::uint64_t, half, bfloat16, float, double>;
using AccumulatorTypes = std::tuple<std::int32_t, std::uint32_t, std::int64_t, std::uint64_t>;

constexpr std::uint8_t kPoison = 0xCD;

/// A buffer holding `bits` (one element when there are none: buffers may not be empty).
template <class T>
Buffer<T> upload(const Stream& s, const std::vector<std::uint64_t>& bits) {
  std::vector<T> host(std::max<std::size_t>(bits.size(), 1), value_of<T>(0));
  for (std::size_t i = 0; i < bits.size(); ++i) host[i] = value_of<T>(bits[i]);
  return Buffer<T>(s, host);
}

template <class T>
Buffer<T> poisoned(const Stream& s, std::size_t n) {
  Buffer<T> b(std::max<std::size_t>(n, 1), s.device());
  b.fill_bytes(s, kPoison);
  return b;
}

template <class T>
std::vector<std::uint64_t> download(const Stream& s, const Buffer<T>& b, std::size_t n) {
  const std::vector<T> host = b.to_host(s);
  std::vector<std::uint64_t> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = bits_of(host[i]);
  return out;
}

template <class Types, std::size_t N, class F>
auto make_buffers(F&& make) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return std::tuple{make(std::type_identity<std::tuple_element_t<I, Types>>{}, I)...};
  }(std::make_index_sequence<N>{});
}

/// The libdevice function whose result output `o` holds, if any.
std::optional<ApproxFn> approx_of(const std::vector<Stmt>& body, int o) {
  for (const auto& s : body) {
    if (s.kind == StmtKind::StoreApprox && s.target == o) return static_cast<ApproxFn>(s.op);
    if (auto f = approx_of(s.body, o)) return f;
    if (auto f = approx_of(s.else_body, o)) return f;
  }
  return std::nullopt;
}

std::string compare(const SimtProgram& p, const SimtExpected& want, const std::array<std::vector<std::uint64_t>, 12>& out,
                    const std::array<std::vector<std::uint64_t>, 4>& acc) {
  std::ostringstream os;
  int bad = 0;
  auto report = [&](const std::string& what, Scalar t, std::uint64_t expected, std::uint64_t got) {
    if (bad++ < 8) os << "  " << what << " (" << scalar_name(t) << "): expected " << value_text(t, expected) << ", got "
                      << value_text(t, got) << "\n";
  };
  for (std::size_t o = 0; o < p.outputs.size(); ++o) {
    const OutputInfo& info = p.outputs[o];
    const int b = buffer_index(info.type), count = p.outputs_of(info.type);
    const auto fn = approx_of(p.body, static_cast<int>(o));
    for (int t = 0; t < p.threads(); ++t) {
      const std::size_t i = static_cast<std::size_t>(t) * count + info.slot;
      const std::uint64_t e = want.outputs[b][i], g = out[b][i];
      const bool ok = fn ? ulp_distance(info.type, e, g) <= static_cast<std::uint64_t>(approx_tolerance_ulps(*fn, info.type))
                         : same_result(info.type, e, g);
      if (!ok) report("out" + std::to_string(o) + " of thread " + std::to_string(t), info.type, e, g);
    }
  }
  for (std::size_t a = 0; a < p.accumulators.size(); ++a) {
    const AccumulatorInfo& info = p.accumulators[a];
    const int b = accumulator_buffer(info.type);
    if (want.accumulators[b][info.slot] != acc[b][info.slot])
      report("acc" + std::to_string(a), info.type, want.accumulators[b][info.slot], acc[b][info.slot]);
  }
  if (bad == 0) return "";
  std::ostringstream head;
  head << bad << " element(s) differ from the host reference:\n" << os.str();
  return head.str();
}

}  // namespace

SimtRun run_simt_on_gpu(const SimtProgram& p, const Stream& s, std::uint64_t data_seed) {
  SimtRun run;
  std::optional<SimtData> data;
  SimtExpected want;
  for (int attempt = 0; attempt < 4 && !data; ++attempt) {
    SimtData d = random_simt_data(p, data_seed + 0x100000000ull * attempt);
    want = evaluate_simt(p, d, kPoison);
    if (want.flags.undefined) {
      run.mismatch = "the host reference met an undefined operation (a generator bug): " + want.flags.why;
      return run;
    }
    if (!want.flags.ambiguous) data = std::move(d);
  }
  if (!data) {
    run.skipped = true;
    return run;
  }
  auto kernel = make_simt_kernel(p);
  auto ins = make_buffers<BufferTypes, 12>([&](auto id, std::size_t b) {
    return upload<typename decltype(id)::type>(s, data->inputs[b]);
  });
  auto outs = make_buffers<BufferTypes, 12>([&](auto id, std::size_t b) {
    return poisoned<typename decltype(id)::type>(s, want.outputs[b].size());
  });
  auto accs = make_buffers<AccumulatorTypes, 4>([&](auto id, std::size_t a) {
    return upload<typename decltype(id)::type>(s, data->accumulators[a]);
  });
  const LaunchConfig config{.grid = p.grid, .block = p.block};
  std::apply([&](const auto&... i) {
    std::apply([&](const auto&... o) {
      std::apply([&](const auto&... a) { kernel.launch(s, config, i..., o..., a...); }, accs);
    }, outs);
  }, ins);
  std::array<std::vector<std::uint64_t>, 12> out;
  std::array<std::vector<std::uint64_t>, 4> acc;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((out[I] = download(s, std::get<I>(outs), want.outputs[I].size())), ...);
  }(std::make_index_sequence<12>{});
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((acc[I] = download(s, std::get<I>(accs), want.accumulators[I].size())), ...);
  }(std::make_index_sequence<4>{});
  run.mismatch = compare(p, want, out, acc);
  return run;
}

}  // namespace cutlet::fuzz
