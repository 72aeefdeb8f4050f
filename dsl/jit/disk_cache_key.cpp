// The persistent cache key: its parts, canonical text, file name, and the compile options it covers.
#include "cutlet/jit/disk_cache_key.h"

#include "cutlet/ir/hash.h"

#include <cstring>
#include <sstream>

#include "cutlet/error.h"
#include "cutlet/version.h"

namespace cutlet {
namespace {

/// Converts to anything: counts the fields of an aggregate by how many it initializes.
struct AnyField {
  template <class T>
  operator T() const;  // NOLINT: declared only, used in unevaluated contexts
};
template <class T, class... A>
constexpr std::size_t field_count() {
  if constexpr (requires { T{A{}..., AnyField{}}; }) return field_count<T, A..., AnyField>();
  else return sizeof...(A);
}

const char* text_of(bool b) { return b ? "true" : "false"; }

constexpr const char* kKeyHeader = "cutlet-kernel-cache-key 1";


}  // namespace

// Part of every persistent cache key: entries of another cutlet version are never used.
std::string cutlet_version() { return CUTLET_VERSION_STRING; }

namespace {

// Fields that some versions of CompileOptions have: listed when present.
template <class O>
concept HasFlushDenormals = requires(const O& o) { o.flush_denormals; };
template <class O>
concept HasApproxMath = requires(const O& o) { o.approx_math; };

template <class O>
std::vector<std::pair<std::string, std::string>> option_fields(const O& o) {
  std::vector<std::pair<std::string, std::string>> f;
  f.emplace_back("arch", o.target.arch());
  f.emplace_back("ptx_version", std::to_string(o.target.ptx_version()));
  f.emplace_back("opt_level", std::to_string(o.opt_level));
  f.emplace_back("fma_contraction", text_of(o.fma_contraction));
  if constexpr (HasFlushDenormals<O>) f.emplace_back("flush_denormals", text_of(o.flush_denormals));
  if constexpr (HasApproxMath<O>) f.emplace_back("approx_math", text_of(o.approx_math));
  f.emplace_back("line_info", text_of(o.line_info));
  f.emplace_back("max_block_threads", std::to_string(o.max_block_threads));
  f.emplace_back("min_blocks_per_sm", std::to_string(o.min_blocks_per_sm));
  f.emplace_back("keep_llvm_ir", text_of(o.keep_llvm_ir));
  f.emplace_back("checked", text_of(o.checked));
  // The fields listed: target, opt_level, fma_contraction, line_info, the launch bounds,
  // keep_llvm_ir, checked, and the optional ones.
  constexpr std::size_t listed = 8 + (HasFlushDenormals<O> ? 1 : 0) + (HasApproxMath<O> ? 1 : 0);
  static_assert(field_count<O>() == listed,
                "CompileOptions has a field that compile_option_fields (dsl/jit/disk_cache_key.cpp) does not list: "
                "add it there, so that the persistent kernel cache key covers it");
  // Target's fields, sm, arch_specific and host, are all in arch() ("sm_90a", "host").
  static_assert(field_count<decltype(o.target)>() == 3,
                "Target has a field that compile_option_fields (dsl/jit/disk_cache_key.cpp) does not list: add it");
  return f;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> compile_option_fields(const CompileOptions& o) {
  return option_fields(o);
}

DiskCacheKey DiskCacheKey::make(std::uint64_t ir_hash, const std::string& kernel_name, const CompileOptions& options,
                                std::vector<std::uint64_t> extra_inputs) {
  return detail::make_disk_cache_key(ir_hash, kernel_name, options, std::move(extra_inputs),
                                     detail::compiler_identity());
}

namespace detail {

const CompilerIdentity& compiler_identity() {
  // The version alone names no build: the compiler's build id changes with every change of
  // the lowering (and of the libdevice it was built with), nvJitLink's build with every
  // update of the library, even within one major.minor version, and libdevice's hash with the
  // file this process links (CUTLET_LIBDEVICE or CUDA_HOME may name another one), so entries
  // of another build are never served.
  static const CompilerIdentity tools{cutlet::cutlet_version() + "+" + cutlet::compiler_build_id(),
                                      cutlet::llvm_version(), cutlet::nvjitlink_version(),
                                      cutlet::nvjitlink_build_id(), cutlet::libdevice_build_id()};
  return tools;
}

DiskCacheKey make_disk_cache_key(std::uint64_t ir_hash, const std::string& kernel_name, const CompileOptions& options,
                                 std::vector<std::uint64_t> extra_inputs, const CompilerIdentity& tools) {
  DiskCacheKey k;
  k.ir_hash = ir_hash;
  k.kernel_name = kernel_name;
  k.arch = options.target.arch();
  k.ptx_version = options.target.ptx_version();
  for (auto& [name, value] : compile_option_fields(options))
    if (name != "arch" && name != "ptx_version") k.options.emplace_back(std::move(name), std::move(value));
  k.cutlet_version = tools.cutlet;
  k.llvm_version = tools.llvm;
  k.nvjitlink_version = tools.nvjitlink;
  k.nvjitlink_build = tools.nvjitlink_build;
  k.libdevice = tools.libdevice;
  k.extra_inputs = std::move(extra_inputs);
  return k;
}

}  // namespace detail

std::string DiskCacheKey::text() const {
  std::string t = kKeyHeader;
  t += "\nir_hash=" + detail::hex64(ir_hash);
  t += "\nkernel=" + detail::one_line(kernel_name);
  t += "\narch=" + detail::one_line(arch);
  t += "\nptx_version=" + std::to_string(ptx_version);
  for (const auto& [name, value] : options) t += "\noption." + detail::one_line(name) + "=" + detail::one_line(value);
  t += "\ncutlet=" + detail::one_line(cutlet_version);
  t += "\nllvm=" + detail::one_line(llvm_version);
  t += "\nnvjitlink=" + detail::one_line(nvjitlink_version);
  t += "\nnvjitlink_build=" + detail::one_line(nvjitlink_build);
  t += "\nlibdevice=" + detail::one_line(libdevice);
  t += "\nextra_inputs=";
  for (std::size_t i = 0; i < extra_inputs.size(); ++i) t += (i ? "," : "") + detail::hex64(extra_inputs[i]);
  t += "\n";
  return t;
}

DiskCacheKey DiskCacheKey::parse(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line != kKeyHeader)
    throw Error("cutlet: not a kernel cache key (its first line is not '" + std::string(kKeyHeader) + "')");
  DiskCacheKey k;
  while (std::getline(in, line)) {
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = line.substr(0, eq), value = line.substr(eq + 1);
    if (name == "ir_hash") k.ir_hash = std::strtoull(value.c_str(), nullptr, 16);
    else if (name == "kernel") k.kernel_name = value;
    else if (name == "arch") k.arch = value;
    else if (name == "ptx_version") k.ptx_version = std::atoi(value.c_str());
    else if (name.rfind("option.", 0) == 0) k.options.emplace_back(name.substr(7), value);
    else if (name == "cutlet") k.cutlet_version = value;
    else if (name == "llvm") k.llvm_version = value;
    else if (name == "nvjitlink") k.nvjitlink_version = value;
    else if (name == "nvjitlink_build") k.nvjitlink_build = value;
    else if (name == "libdevice") k.libdevice = value;
    else if (name == "extra_inputs") {
      std::istringstream parts(value);
      for (std::string p; std::getline(parts, p, ',');)
        if (!p.empty()) k.extra_inputs.push_back(std::strtoull(p.c_str(), nullptr, 16));
    } else {
      k.options.emplace_back(name, value);
    }
  }
  return k;
}

std::string DiskCacheKey::file_stem() const {
  const std::string t = text();
  return detail::hex64(detail::checksum64(t, 0)) + detail::hex64(detail::checksum64(t, 0x5bd1e9955bd1e995ull));
}

namespace detail {

std::string one_line(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n') out += "\\n";
    else if (c == '\\') out += "\\\\";
    else out += c;
  }
  return out;
}

std::uint64_t checksum64(std::string_view bytes, std::uint64_t seed) {
  Hasher h;
  h.add(seed);
  h.add(bytes);
  return h.value();
}

std::string hex64(std::uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) s[i] = digits[v & 15];
  return s;
}

}  // namespace detail
}  // namespace cutlet
