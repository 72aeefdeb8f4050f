// Tuning records: their text form with a checksum, and the directory that keeps them.
#include "cutlet/jit/tuning_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "cutlet/error.h"
#include "cutlet/jit/disk_cache.h"
#include "cutlet/log.h"

namespace cutlet {
namespace fs = std::filesystem;
namespace {

constexpr const char* kHeader = "cutlet-tuning 1";
constexpr const char* kSuffix = ".tune";

std::string unescape(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      out += s[i + 1] == 'n' ? '\n' : s[i + 1];
      ++i;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string stem_of(const std::string& key) {
  return detail::hex64(detail::checksum64(key, 0)) + detail::hex64(detail::checksum64(key, 0x5bd1e9955bd1e995ull));
}

std::optional<std::string> read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::string TuningRecord::serialize() const {
  char ms[64];
  std::snprintf(ms, sizeof ms, "%a", best_ms);
  std::string body = std::string(kHeader) + "\n";
  body += "key " + detail::one_line(key) + "\n";
  body += "best " + best.serialize() + "\n";
  body += std::string("best_ms ") + ms + "\n";
  body += "ir_hash " + detail::hex64(ir_hash) + "\n";
  body += "timed " + std::to_string(timed) + "\n";
  body += "created " + std::to_string(created_unix) + "\n";
  return body + "checksum " + detail::hex64(detail::checksum64(body)) + "\n";
}

std::optional<TuningRecord> TuningRecord::parse(std::string_view text) {
  const auto pos = text.rfind("checksum ");
  if (pos == std::string_view::npos || (pos > 0 && text[pos - 1] != '\n')) return std::nullopt;
  const std::string_view body = text.substr(0, pos);
  std::string sum(text.substr(pos + 9));
  while (!sum.empty() && (sum.back() == '\n' || sum.back() == '\r')) sum.pop_back();
  if (sum != detail::hex64(detail::checksum64(body))) return std::nullopt;
  std::istringstream in{std::string(body)};
  std::string line;
  if (!std::getline(in, line) || line != kHeader) return std::nullopt;
  TuningRecord r;
  int seen = 0;
  try {
    while (std::getline(in, line)) {
      const auto sp = line.find(' ');
      const std::string name = line.substr(0, sp);
      const std::string value = sp == std::string::npos ? std::string() : line.substr(sp + 1);
      if (name == "key") r.key = unescape(value), seen |= 1;
      else if (name == "best") r.best = Config::parse(value), seen |= 2;
      else if (name == "best_ms") r.best_ms = std::strtod(value.c_str(), nullptr), seen |= 4;
      else if (name == "ir_hash") r.ir_hash = std::strtoull(value.c_str(), nullptr, 16), seen |= 8;
      else if (name == "timed") r.timed = std::strtoull(value.c_str(), nullptr, 10);
      else if (name == "created") r.created_unix = std::strtoll(value.c_str(), nullptr, 10);
    }
  } catch (const Error&) {
    return std::nullopt;
  }
  if (seen != 15) return std::nullopt;
  return r;
}

std::optional<TuningRecord> TuningStore::load(const std::string& key) const {
  if (dir_.empty()) return std::nullopt;
  auto text = read_text(dir_ / (stem_of(key) + kSuffix));
  if (!text) return std::nullopt;
  auto r = TuningRecord::parse(*text);
  if (!r || r->key != key) return std::nullopt;
  return r;
}

bool TuningStore::save(const TuningRecord& r) {
  if (dir_.empty()) return false;
  static std::atomic<std::uint64_t> counter{0};
  auto fail = [&](const std::string& why) {
    if (!warned_.exchange(true))
      log_message(LogLevel::Warn, "cannot store tuning results in " + dir_.string() + " (" + why +
                                      "); they are kept in memory only. Point CUTLET_CACHE_DIR (or "
                                      "AutotuneOptions::dir) at a writable directory.");
    return false;
  };
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return fail("cannot create it: " + ec.message());
  const std::string text = r.serialize();
  const fs::path final_path = dir_ / (stem_of(r.key) + kSuffix);
  const fs::path temp = dir_ / (".tmp-" + stem_of(r.key) + "-" + std::to_string(::getpid()) + "-" +
                                std::to_string(counter.fetch_add(1)));
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return fail(std::strerror(errno));
  std::size_t done = 0;
  bool ok = true;
  while (ok && done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<std::size_t>(n);
  }
  int err = errno;
  if (::close(fd) != 0 && ok) ok = false, err = errno;
  if (ok && ::rename(temp.c_str(), final_path.c_str()) != 0) ok = false, err = errno;
  if (!ok) {
    ::unlink(temp.c_str());
    return fail(std::strerror(err ? err : ENOSPC));
  }
  return true;
}

std::vector<TuningRecord> TuningStore::list() const {
  std::vector<TuningRecord> out;
  std::error_code ec;
  if (dir_.empty()) return out;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() != kSuffix) continue;
    if (auto text = read_text(it->path()))
      if (auto r = TuningRecord::parse(*text)) out.push_back(std::move(*r));
  }
  return out;
}

std::size_t TuningStore::clear() {
  std::size_t removed = 0;
  std::error_code ec;
  if (dir_.empty()) return 0;
  std::vector<fs::path> paths;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (it->path().extension() == kSuffix || name.rfind(".tmp-", 0) == 0) paths.push_back(it->path());
  }
  for (const auto& p : paths) {
    if (::unlink(p.c_str()) != 0 && errno != ENOENT)
      throw Error("cutlet: cannot remove " + p.string() + ": " + std::strerror(errno));
    if (p.extension() == kSuffix) ++removed;
  }
  return removed;
}

fs::path TuningStore::default_dir() {
  auto cache = disk_cache();
  return cache->enabled() ? cache->settings().dir / "tuning" : fs::path();
}

}  // namespace cutlet
