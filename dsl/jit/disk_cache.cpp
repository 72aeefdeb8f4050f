// The persistent kernel cache directory: lookups, atomic writes, hit counting, LRU eviction.
#include "cutlet/jit/disk_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "cutlet/error.h"
#include "cutlet/jit/disk_cache_entry.h"

namespace cutlet {
namespace fs = std::filesystem;
namespace {

constexpr const char* kEntrySuffix = ".entry";
constexpr const char* kHitsSuffix = ".hits";
constexpr const char* kTempPrefix = ".tmp-";
constexpr std::int64_t kStrayAgeNs = 60'000'000'000;  // leftovers of dead processes: a minute old
constexpr off_t kMaxHitBytes = 1 << 20;                // the hit counter stops growing here

std::int64_t now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

std::int64_t mtime_ns(const struct stat& st) {
  return std::int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
}

bool ends_with(const std::string& s, const char* suffix) {
  const std::size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

/// Reads a whole file; false (errno set) when it cannot be opened or read.
bool read_file(const fs::path& path, std::string& out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st{};
  bool ok = ::fstat(fd, &st) == 0;
  if (ok) {
    out.resize(static_cast<std::size_t>(st.st_size));
    std::size_t got = 0;
    while (ok && got < out.size()) {
      const ssize_t n = ::read(fd, out.data() + got, out.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // shorter than fstat said: decoding reports it truncated
      got += static_cast<std::size_t>(n);
    }
    out.resize(got);
  }
  const int saved = errno;
  ::close(fd);
  errno = saved;
  return ok;
}

/// Writes all of `bytes` to `fd`; false (errno set) on failure.
bool write_all(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = ENOSPC;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

/// Counts a hit: one byte appended to the entry's counter, whose mtime becomes the last use.
void record_hit(const fs::path& hits) {
  const int fd = ::open(hits.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  struct stat st{};
  if (::fstat(fd, &st) == 0 && st.st_size < kMaxHitBytes) {
    [[maybe_unused]] ssize_t n = ::write(fd, "h", 1);
  } else {
    ::futimens(fd, nullptr);
  }
  ::close(fd);
}

/// One entry found by a directory scan.
struct Scanned {
  std::string id;
  std::uint64_t bytes = 0;
  std::int64_t last_used_ns = 0;
  std::uint64_t hits = 0;
};

/// The entries of `dir`, with their sizes and last use; removes strays (temporary files and
/// hit counters without an entry, a minute old) when `remove_strays`.
std::vector<Scanned> scan(const fs::path& dir, bool remove_strays) {
  std::vector<Scanned> out;
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  if (ec) {
    if (ec == std::errc::no_such_file_or_directory) return out;
    throw Error("cutlet: cannot read the kernel cache directory " + dir.string() + ": " + ec.message());
  }
  const std::int64_t now = now_ns();
  for (; it != end; it.increment(ec)) {
    if (ec) break;
    const std::string name = it->path().filename().string();
    struct stat st{};
    if (::stat(it->path().c_str(), &st) != 0) continue;
    if (ends_with(name, kEntrySuffix)) {
      Scanned s;
      s.id = name.substr(0, name.size() - std::strlen(kEntrySuffix));
      s.bytes = static_cast<std::uint64_t>(st.st_size);
      s.last_used_ns = mtime_ns(st);
      struct stat hs{};
      if (::stat((dir / (s.id + kHitsSuffix)).c_str(), &hs) == 0) {
        s.bytes += static_cast<std::uint64_t>(hs.st_size);
        s.hits = static_cast<std::uint64_t>(hs.st_size);
        s.last_used_ns = std::max(s.last_used_ns, mtime_ns(hs));
      }
      out.push_back(std::move(s));
    } else if (remove_strays && now - mtime_ns(st) > kStrayAgeNs) {
      if (name.rfind(kTempPrefix, 0) == 0) {
        ::unlink(it->path().c_str());
      } else if (ends_with(name, kHitsSuffix)) {
        const std::string id = name.substr(0, name.size() - std::strlen(kHitsSuffix));
        struct stat es{};
        if (::stat((dir / (id + kEntrySuffix)).c_str(), &es) != 0) ::unlink(it->path().c_str());
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const Scanned& a, const Scanned& b) {
    return a.last_used_ns != b.last_used_ns ? a.last_used_ns < b.last_used_ns : a.id < b.id;
  });
  return out;
}

DiskCacheEntryInfo info_of(const fs::path& dir, const Scanned& s, DiskCacheKey* key_out = nullptr,
                           CompiledKernel* kernel_out = nullptr) {
  DiskCacheEntryInfo info;
  info.id = s.id;
  info.bytes = s.bytes;
  info.last_used_unix = s.last_used_ns / 1'000'000'000;
  info.hits = s.hits;
  std::string bytes;
  if (!read_file(dir / (s.id + kEntrySuffix), bytes)) {
    info.problem = std::string("unreadable: ") + std::strerror(errno);
    return info;
  }
  auto d = detail::decode_entry(bytes);
  if (d.problem != detail::EntryProblem::None) {
    info.problem = detail::describe(d.problem);
    return info;
  }
  try {
    DiskCacheKey key = DiskCacheKey::parse(d.key);
    info.kernel_name = key.kernel_name;
    info.arch = key.arch;
    if (key.file_stem() != s.id) info.problem = detail::describe(detail::EntryProblem::WrongKey);
    if (key_out) *key_out = std::move(key);
  } catch (const Error& e) {
    info.problem = e.what();
  }
  info.created_unix = d.payload.created_unix;
  info.compile_ms = d.payload.compile_ms;
  if (kernel_out) *kernel_out = std::move(d.payload.kernel);
  return info;
}

}  // namespace

DiskCache::DiskCache(DiskCacheSettings settings) : settings_(std::move(settings)) {}

void DiskCache::fail(const std::string& what) {
  disabled_.store(true, std::memory_order_relaxed);
  if (!warned_.exchange(true))
    std::fprintf(stderr,
                 "cutlet: the kernel cache directory %s cannot be used (%s); compiling without the persistent "
                 "cache from now on. Point CUTLET_CACHE_DIR at a writable directory, or set CUTLET_CACHE=0 to "
                 "turn the cache off.\n",
                 settings_.dir.c_str(), what.c_str());
}

bool DiskCache::prepare() {
  if (!enabled()) return false;
  std::lock_guard lock(prepare_mu_);
  if (prepared_) return enabled();
  prepared_ = true;
  std::error_code ec;
  fs::create_directories(kernels_dir(), ec);
  if (ec) {
    fail("cannot create " + kernels_dir().string() + ": " + ec.message());
    return false;
  }
  if (::access(kernels_dir().c_str(), R_OK | W_OK | X_OK) != 0) {
    fail(kernels_dir().string() + " is not writable: " + std::strerror(errno));
    return false;
  }
  return true;
}

DiskLookup DiskCache::load(const DiskCacheKey& key) {
  DiskLookup r;
  if (!prepare()) return r;
  const std::string text = key.text();
  const std::string stem = key.file_stem();
  std::string bytes;
  if (!read_file(kernels_dir() / (stem + kEntrySuffix), bytes)) {
    r.status = DiskLookupStatus::Absent;
    return r;
  }
  r.bytes = bytes.size();
  auto d = detail::decode_entry(bytes, &text);
  if (d.problem != detail::EntryProblem::None) {
    r.status = DiskLookupStatus::Corrupt;
    r.problem = detail::describe(d.problem);
    return r;
  }
  record_hit(kernels_dir() / (stem + kHitsSuffix));
  r.status = DiskLookupStatus::Hit;
  r.kernel = std::make_shared<const CompiledKernel>(std::move(d.payload.kernel));
  r.compile_ms = d.payload.compile_ms;
  return r;
}

std::uint64_t DiskCache::store(const DiskCacheKey& key, const CompiledKernel& kernel, double compile_ms) {
  if (!prepare()) return 0;
  static std::atomic<std::uint64_t> counter{0};
  detail::EntryPayload payload{kernel, compile_ms, now_ns() / 1'000'000'000};
  const std::string bytes = detail::encode_entry(key.text(), payload);
  const std::string stem = key.file_stem();
  const fs::path final_path = kernels_dir() / (stem + kEntrySuffix);
  const fs::path temp = kernels_dir() / (kTempPrefix + stem + "-" + std::to_string(::getpid()) + "-" +
                                         std::to_string(counter.fetch_add(1)));
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    fail("cannot create a file in " + kernels_dir().string() + ": " + std::strerror(errno));
    return 0;
  }
  bool ok = write_all(fd, bytes);
  int err = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (ok && ::rename(temp.c_str(), final_path.c_str()) != 0) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    ::unlink(temp.c_str());
    fail("cannot write " + final_path.string() + ": " + std::strerror(err));
    return 0;
  }
  std::lock_guard lock(size_mu_);
  try {
    if (!size_known_) {
      size_estimate_ = 0;
      for (const auto& s : scan(kernels_dir(), true)) size_estimate_ += s.bytes;
      size_known_ = true;
    } else {
      size_estimate_ += bytes.size();
    }
    if (size_estimate_ > settings_.max_bytes)
      trim_locked(settings_.max_bytes - settings_.max_bytes / 10, &size_estimate_);
  } catch (const Error&) {
    // Eviction is best effort: a directory that cannot be scanned now is tried again later.
  }
  return bytes.size();
}

std::uint64_t DiskCache::trim_locked(std::uint64_t max_bytes, std::uint64_t* remaining) {
  auto entries = scan(kernels_dir(), true);
  std::uint64_t total = 0, removed = 0;
  for (const auto& s : entries) total += s.bytes;
  for (const auto& s : entries) {
    if (total <= max_bytes) break;
    ::unlink((kernels_dir() / (s.id + kEntrySuffix)).c_str());
    ::unlink((kernels_dir() / (s.id + kHitsSuffix)).c_str());
    total -= s.bytes;
    removed += s.bytes;
  }
  if (remaining) *remaining = total;
  return removed;
}

std::uint64_t DiskCache::trim(std::uint64_t max_bytes) {
  std::lock_guard lock(size_mu_);
  std::uint64_t remaining = 0;
  const std::uint64_t removed = trim_locked(max_bytes, &remaining);
  size_estimate_ = remaining;
  size_known_ = true;
  return removed;
}

std::vector<DiskCacheEntryInfo> DiskCache::list() const {
  std::vector<DiskCacheEntryInfo> out;
  for (const auto& s : scan(kernels_dir(), false)) out.push_back(info_of(kernels_dir(), s));
  return out;
}

DiskCache::Entry DiskCache::read(const std::string& id_prefix) const {
  std::vector<Scanned> matches;
  for (auto& s : scan(kernels_dir(), false))
    if (!id_prefix.empty() && s.id.rfind(id_prefix, 0) == 0) matches.push_back(std::move(s));
  if (matches.empty())
    throw Error("cutlet: no kernel cache entry in " + kernels_dir().string() + " has an id starting with '" +
                id_prefix + "'; `cutlet-cache list` shows the ids");
  if (matches.size() > 1)
    throw Error("cutlet: " + std::to_string(matches.size()) + " kernel cache entries have ids starting with '" +
                id_prefix + "'; give more digits");
  Entry e;
  e.info = info_of(kernels_dir(), matches[0], &e.key, &e.kernel);
  if (!e.info.problem.empty())
    throw Error("cutlet: kernel cache entry " + e.info.id + " cannot be used: " + e.info.problem);
  return e;
}

std::size_t DiskCache::clear() {
  std::lock_guard lock(size_mu_);
  std::size_t removed = 0;
  std::error_code ec;
  fs::directory_iterator it(kernels_dir(), ec), end;
  if (ec) {
    if (ec == std::errc::no_such_file_or_directory) return 0;
    throw Error("cutlet: cannot read the kernel cache directory " + kernels_dir().string() + ": " + ec.message());
  }
  std::vector<fs::path> paths;
  for (; it != end; it.increment(ec)) {
    if (ec) break;
    const std::string name = it->path().filename().string();
    if (ends_with(name, kEntrySuffix) || ends_with(name, kHitsSuffix) || name.rfind(kTempPrefix, 0) == 0)
      paths.push_back(it->path());
  }
  for (const auto& p : paths) {
    if (::unlink(p.c_str()) != 0 && errno != ENOENT)
      throw Error("cutlet: cannot remove " + p.string() + ": " + std::strerror(errno));
    if (ends_with(p.filename().string(), kEntrySuffix)) ++removed;
  }
  size_estimate_ = 0;
  size_known_ = true;
  return removed;
}

std::uint64_t DiskCache::total_bytes() const {
  std::uint64_t total = 0;
  for (const auto& s : scan(kernels_dir(), false)) total += s.bytes;
  return total;
}

}  // namespace cutlet
