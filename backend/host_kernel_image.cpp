// HostKernelImage: a host kernel's launch facts and object file as bytes, and back.
#include "host_kernel_image.h"

#include <cstring>

namespace cutlet::backend {
namespace {

/// Bumped whenever the layout below or the meaning of a field changes.
constexpr std::string_view kMagic = "cutlet-host-kernel-image 1\n";

class Writer {
 public:
  void u64(std::uint64_t v) { out_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void flag(bool b) { u64(b ? 1 : 0); }
  void text(std::string_view s) {
    u64(s.size());
    out_.append(s);
  }
  void texts(const std::vector<std::string>& v) {
    u64(v.size());
    for (const std::string& s : v) text(s);
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool u64(std::uint64_t& v) {
    if (in_.size() < sizeof v) return ok_ = false;
    std::memcpy(&v, in_.data(), sizeof v);
    in_.remove_prefix(sizeof v);
    return true;
  }
  bool flag(bool& b) {
    std::uint64_t v = 0;
    if (!u64(v) || v > 1) return ok_ = false;
    b = v == 1;
    return true;
  }
  bool text(std::string& s) {
    std::uint64_t n = 0;
    if (!u64(n) || n > in_.size()) return ok_ = false;
    s.assign(in_.substr(0, n));
    in_.remove_prefix(n);
    return true;
  }
  bool texts(std::vector<std::string>& v) {
    std::uint64_t n = 0;
    if (!u64(n) || n > in_.size()) return ok_ = false;
    v.resize(n);
    for (std::string& s : v)
      if (!text(s)) return false;
    return true;
  }
  bool ok() const { return ok_ && in_.empty(); }

 private:
  std::string_view in_;
  bool ok_ = true;
};

}  // namespace

std::string HostKernelImage::serialize() const {
  Writer w;
  w.text(kMagic);
  w.text(name);
  w.text(llvm_ir);
  w.flag(phases);
  w.u64(scratch_per_thread);
  w.u64(exchange_bytes);
  w.u64(tile_threads);
  w.texts(phase_errors);
  w.flag(waits_for_other_blocks);
  w.flag(grid_syncs);
  w.flag(checked);
  w.flag(line_info);
  w.u64(static_cast<std::uint64_t>(opt_level));
  w.flag(fma_contraction);
  w.u64(reserved_shared);
  w.u64(param_sizes.size());
  for (std::uint64_t s : param_sizes) w.u64(s);
  w.texts(math_symbols);
  w.text(object);
  return w.take();
}

std::optional<HostKernelImage> HostKernelImage::parse(std::string_view bytes) {
  Reader r(bytes);
  HostKernelImage k;
  std::string magic;
  std::uint64_t tile_threads = 0, params = 0;
  if (!r.text(magic) || magic != kMagic) return std::nullopt;
  r.text(k.name);
  r.text(k.llvm_ir);
  r.flag(k.phases);
  r.u64(k.scratch_per_thread);
  r.u64(k.exchange_bytes);
  r.u64(tile_threads);
  r.texts(k.phase_errors);
  r.flag(k.waits_for_other_blocks);
  r.flag(k.grid_syncs);
  r.flag(k.checked);
  r.flag(k.line_info);
  std::uint64_t opt_level = 0;
  r.u64(opt_level);
  k.opt_level = static_cast<std::int64_t>(opt_level);
  r.flag(k.fma_contraction);
  r.u64(k.reserved_shared);
  if (!r.u64(params) || params > bytes.size()) return std::nullopt;
  k.param_sizes.resize(params);
  for (std::size_t& s : k.param_sizes) {
    std::uint64_t v = 0;
    r.u64(v);
    s = static_cast<std::size_t>(v);
  }
  r.texts(k.math_symbols);
  r.text(k.object);
  if (!r.ok() || tile_threads > 1024 || k.object.empty() || k.name.empty()) return std::nullopt;
  k.tile_threads = static_cast<std::uint32_t>(tile_threads);
  return k;
}

}  // namespace cutlet::backend
