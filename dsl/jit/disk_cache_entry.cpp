// Encoding and decoding persistent kernel cache entries, checking every byte before use.
#include "cutlet/jit/disk_cache_entry.h"

#include <cstring>

#include "cutlet/jit/disk_cache_key.h"

namespace cutlet::detail {
namespace {

class Writer {
 public:
  void raw(const void* p, std::size_t n) { out_.append(static_cast<const char*>(p), n); }
  template <class T>
  void pod(T v) { raw(&v, sizeof v); }
  void bytes(std::string_view s) {
    pod<std::uint64_t>(s.size());
    raw(s.data(), s.size());
  }
  std::string& str() { return out_; }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool ok() const { return ok_; }
  bool done() const { return ok_ && pos_ == in_.size(); }
  template <class T>
  T pod() {
    T v{};
    if (!take(sizeof v)) return v;
    std::memcpy(&v, in_.data() + pos_ - sizeof v, sizeof v);
    return v;
  }
  std::string_view bytes() {
    const auto n = pod<std::uint64_t>();
    if (!ok_ || n > in_.size() - pos_) {
      ok_ = false;
      return {};
    }
    pos_ += n;
    return in_.substr(pos_ - n, n);
  }

 private:
  bool take(std::size_t n) {
    if (!ok_ || n > in_.size() - pos_) return ok_ = false;
    pos_ += n;
    return true;
  }
  std::string_view in_;
  std::size_t pos_ = 0;
  bool ok_ = true;
};

std::string encode_payload(const EntryPayload& p) {
  Writer w;
  const CompiledKernel& k = p.kernel;
  w.bytes(k.name);
  w.bytes(k.ptx);
  w.bytes(std::string_view(k.cubin.data(), k.cubin.size()));
  w.bytes(k.link_log);
  w.bytes(k.llvm_ir);
  w.bytes(k.llvm_ir_opt);
  const ResourceUsage& r = k.resources;
  for (int v : {r.registers, r.shared_bytes, r.stack_bytes, r.spill_store_bytes, r.spill_load_bytes, r.constant_bytes,
                r.dynamic_shared_bytes})
    w.pod<std::int32_t>(v);
  const CompileTimings& t = k.timings;
  for (double v : {t.lower_ms, t.optimize_ms, t.codegen_ms, t.link_ms}) w.pod<double>(v);
  w.pod<double>(p.compile_ms);
  w.pod<std::int64_t>(p.created_unix);
  return std::move(w.str());
}

bool decode_payload(std::string_view bytes, EntryPayload& p) {
  Reader r(bytes);
  CompiledKernel& k = p.kernel;
  k.name = r.bytes();
  k.ptx = r.bytes();
  const auto cubin = r.bytes();
  k.cubin.assign(cubin.begin(), cubin.end());
  k.link_log = r.bytes();
  k.llvm_ir = r.bytes();
  k.llvm_ir_opt = r.bytes();
  ResourceUsage& u = k.resources;
  for (int* v : {&u.registers, &u.shared_bytes, &u.stack_bytes, &u.spill_store_bytes, &u.spill_load_bytes,
                 &u.constant_bytes, &u.dynamic_shared_bytes})
    *v = r.pod<std::int32_t>();
  CompileTimings& t = k.timings;
  for (double* v : {&t.lower_ms, &t.optimize_ms, &t.codegen_ms, &t.link_ms}) *v = r.pod<double>();
  p.compile_ms = r.pod<double>();
  p.created_unix = r.pod<std::int64_t>();
  return r.done() && !k.cubin.empty() && !k.name.empty();
}

std::uint64_t entry_checksum(std::string_view key, std::string_view payload) {
  return checksum64(payload, checksum64(key, 0x9ae16a3b2f90404full));
}

}  // namespace

const char* describe(EntryProblem p) {
  switch (p) {
    case EntryProblem::None: return "valid";
    case EntryProblem::Truncated: return "truncated or extended (its length does not match its header)";
    case EntryProblem::BadMagic: return "not a cutlet kernel cache entry (bad magic)";
    case EntryProblem::BadVersion: return "written by another cache format version";
    case EntryProblem::BadChecksum: return "corrupt (checksum mismatch)";
    case EntryProblem::WrongKey: return "holds another key than its file name says";
    case EntryProblem::Malformed: return "malformed payload";
  }
  return "?";
}

std::string encode_entry(const std::string& key, const EntryPayload& payload) {
  const std::string body = encode_payload(payload);
  Writer w;
  w.raw(kEntryMagic, sizeof kEntryMagic);
  w.pod<std::uint32_t>(kEntryFormatVersion);
  w.pod<std::uint32_t>(0);
  w.pod<std::uint64_t>(key.size());
  w.pod<std::uint64_t>(body.size());
  w.pod<std::uint64_t>(entry_checksum(key, body));
  w.raw(key.data(), key.size());
  w.raw(body.data(), body.size());
  return std::move(w.str());
}

DecodedEntry decode_entry(std::string_view bytes, const std::string* expected_key) {
  DecodedEntry d;
  if (bytes.size() < kEntryHeaderBytes) {
    d.problem = bytes.size() >= sizeof kEntryMagic && std::memcmp(bytes.data(), kEntryMagic, sizeof kEntryMagic) != 0
                    ? EntryProblem::BadMagic
                    : EntryProblem::Truncated;
    return d;
  }
  if (std::memcmp(bytes.data(), kEntryMagic, sizeof kEntryMagic) != 0) {
    d.problem = EntryProblem::BadMagic;
    return d;
  }
  Reader h(bytes.substr(sizeof kEntryMagic, kEntryHeaderBytes - sizeof kEntryMagic));
  const auto version = h.pod<std::uint32_t>();
  const auto reserved = h.pod<std::uint32_t>();
  const auto key_len = h.pod<std::uint64_t>();
  const auto payload_len = h.pod<std::uint64_t>();
  const auto checksum = h.pod<std::uint64_t>();
  if (version != kEntryFormatVersion) {
    d.problem = EntryProblem::BadVersion;
    return d;
  }
  if (reserved != 0) {
    d.problem = EntryProblem::Malformed;
    return d;
  }
  const std::size_t rest = bytes.size() - kEntryHeaderBytes;
  if (key_len > rest || payload_len != rest - key_len) {
    d.problem = EntryProblem::Truncated;
    return d;
  }
  const std::string_view key = bytes.substr(kEntryHeaderBytes, key_len);
  const std::string_view payload = bytes.substr(kEntryHeaderBytes + key_len);
  if (entry_checksum(key, payload) != checksum) {
    d.problem = EntryProblem::BadChecksum;
    return d;
  }
  d.key = key;
  if (expected_key && d.key != *expected_key) {
    d.problem = EntryProblem::WrongKey;
    return d;
  }
  if (!decode_payload(payload, d.payload)) d.problem = EntryProblem::Malformed;
  return d;
}

}  // namespace cutlet::detail
