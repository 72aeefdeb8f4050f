// The persistent kernel cache directory: lookups, atomic writes, hit counting, LRU eviction,
// and compiling a missing entry once across processes.
#include "cutlet/jit/disk_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <optional>

#include "cutlet/error.h"
#include "cutlet/jit/disk_cache_entry.h"
#include "cutlet/jit/disk_cache_lock.h"
#include "cutlet/log.h"

namespace cutlet {
namespace fs = std::filesystem;
namespace {

constexpr const char* kEntrySuffix = ".entry";
constexpr const char* kHitsSuffix = ".hits";
constexpr const char* kLockSuffix = ".lock";
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

/// The entries of `dir`, with their sizes and last use; removes strays (temporary files, hit
/// counters without an entry and lock files no one holds, a minute old) when `remove_strays`.
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
      } else if (ends_with(name, kLockSuffix)) {
        detail::remove_free_lock_file(it->path());
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

/// Why a write failed: the call, its path and errno.
struct WriteFailure {
  std::string what;   ///< "cannot create /dir/kernels/.tmp-...", ...
  int err = 0;
  bool lost = false;  ///< the temporary file vanished before its rename: a concurrent clear
  const char* note = "";
};

/// Writes `bytes` as entry `stem` of `dir` through a temporary file renamed into place;
/// nullopt on success. A failed write leaves no file behind.
std::optional<WriteFailure> write_entry(const fs::path& dir, const std::string& stem, const std::string& bytes) {
  static std::atomic<std::uint64_t> counter{0};
  const fs::path final_path = dir / (stem + kEntrySuffix);
  const fs::path temp = dir / (kTempPrefix + stem + "-" + std::to_string(::getpid()) + "-" +
                               std::to_string(counter.fetch_add(1)));
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    return WriteFailure{"cannot create " + temp.string(), err};
  }
  bool ok = write_all(fd, bytes);
  int err = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    ::unlink(temp.c_str());
    return WriteFailure{"cannot write " + temp.string(), err};
  }
  if (::rename(temp.c_str(), final_path.c_str()) != 0) {
    err = errno;
    ::unlink(temp.c_str());
    return WriteFailure{"cannot rename " + temp.string() + " to " + final_path.string(), err, err == ENOENT};
  }
  return std::nullopt;
}

/// What to do about a write that failed with `err`.
std::string advice_for(int err) {
  switch (err) {
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
      return "Free space on that file system (`cutlet-cache trim SIZE` or a smaller CUTLET_CACHE_MAX_BYTES "
             "shrinks the cache), or point CUTLET_CACHE_DIR at another one.";
    case EACCES:
    case EPERM:
    case EROFS:
      return "Make the directory writable for this user, or point CUTLET_CACHE_DIR at a writable directory; "
             "CUTLET_CACHE=0 turns the cache off.";
    default:
      return "Check the directory, or point CUTLET_CACHE_DIR at another one; CUTLET_CACHE=0 turns the cache off.";
  }
}

}  // namespace

DiskCache::DiskCache(DiskCacheSettings settings) : settings_(std::move(settings)) {}

void DiskCache::fail(const std::string& what) {
  disabled_.store(true, std::memory_order_relaxed);
  if (!warned_.exchange(true))
    log_message(LogLevel::Warn, "the kernel cache cannot use " + settings_.dir.string() + " (" + what +
                                    "); compiling without the persistent cache in this process. Point "
                                    "CUTLET_CACHE_DIR at a directory you can write, or set CUTLET_CACHE=0 to turn "
                                    "the cache off.");
}

void DiskCache::stop_writing(const std::string& what, int err, const char* note) {
  read_only_.store(true, std::memory_order_relaxed);
  if (!warned_.exchange(true))
    log_message(LogLevel::Warn, "the kernel cache " + what + ": " + std::strerror(err) + note +
                                    "; kernels compiled from now on in this process are not saved to disk, while "
                                    "the entries already there are still used. " + advice_for(err));
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
  if (::access(kernels_dir().c_str(), R_OK | X_OK) != 0) {
    fail("cannot read " + kernels_dir().string() + ": " + std::strerror(errno));
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
  if (writable()) record_hit(kernels_dir() / (stem + kHitsSuffix));
  r.status = DiskLookupStatus::Hit;
  r.kernel = std::make_shared<const CompiledKernel>(std::move(d.payload.kernel));
  r.compile_ms = d.payload.compile_ms;
  return r;
}

std::uint64_t DiskCache::store(const DiskCacheKey& key, const CompiledKernel& kernel, double compile_ms) {
  if (!prepare() || !writable()) return 0;
  detail::EntryPayload payload{kernel, compile_ms, now_ns() / 1'000'000'000};
  const std::string bytes = detail::encode_entry(key.text(), payload);
  const std::string stem = key.file_stem();
  auto failure = write_entry(kernels_dir(), stem, bytes);
  if (failure) {
    std::error_code ec;
    fs::create_directories(kernels_dir(), ec);
    if (ec) {
      failure = WriteFailure{"cannot recreate " + kernels_dir().string() + " after a failed write", ec.value()};
    } else if ((failure = write_entry(kernels_dir(), stem, bytes))) {
      failure->note = " (on a second try too, with the directory in place)";
    }
  }
  if (failure) {
    if (!failure->lost) stop_writing(failure->what, failure->err, failure->note);
    return 0;
  }
  after_write(bytes.size());
  return bytes.size();
}

std::filesystem::path DiskCache::lock_path(const DiskCacheKey& key) const {
  return kernels_dir() / (key.file_stem() + kLockSuffix);
}

DiskFill DiskCache::load_or_compile(const DiskCacheKey& key, const std::function<CompiledKernel()>& compile) {
  DiskFill f;
  f.lookup = load(key);
  f.first = f.lookup.status;
  if (f.lookup.status == DiskLookupStatus::Hit) {
    f.kernel = f.lookup.kernel;
    return f;
  }
  std::optional<detail::EntryLock> lock;
  if (f.lookup.status != DiskLookupStatus::Disabled && writable()) {
    lock.emplace(detail::EntryLock::acquire(lock_path(key), settings_.lock_timeout));
    f.waited = lock->waited();
    if (lock->state() != detail::EntryLockState::Unavailable) {
      // Another process may have stored the entry since the first lookup, while this one
      // waited for its lock or just before it was taken.
      DiskLookup again = load(key);
      if (again.status == DiskLookupStatus::Hit) {
        f.lookup = std::move(again);
        f.kernel = f.lookup.kernel;
        return f;
      }
      if (again.status == DiskLookupStatus::Corrupt) f.lookup = std::move(again);
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  f.kernel = std::make_shared<const CompiledKernel>(compile());
  f.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  f.compiled = true;
  f.bytes_written = store(key, *f.kernel, f.compile_ms);
  return f;  // the lock is released after the store: waiters find the entry
}

void DiskCache::after_write(std::uint64_t bytes) {
  const std::uint64_t cap = settings_.max_bytes;
  std::lock_guard lock(size_mu_);
  written_since_ += bytes;
  if (measured_ && (cap == 0 || (written_since_ <= std::max<std::uint64_t>(cap / 64, 1) &&
                                 measured_bytes_ + written_since_ <= cap)))
    return;
  try {
    evict_locked(cap == 0 ? ~std::uint64_t{0} : cap, cap - cap / 10);
  } catch (const Error&) {
    // Eviction is best effort: a directory that cannot be scanned now is tried again later.
  }
}

std::uint64_t DiskCache::evict_locked(std::uint64_t above, std::uint64_t down_to) {
  auto entries = scan(kernels_dir(), true);
  std::uint64_t total = 0, removed = 0;
  for (const auto& s : entries) total += s.bytes;
  if (total > above) {
    for (const auto& s : entries) {
      if (total <= down_to) break;
      ::unlink((kernels_dir() / (s.id + kEntrySuffix)).c_str());
      ::unlink((kernels_dir() / (s.id + kHitsSuffix)).c_str());
      total -= s.bytes;
      removed += s.bytes;
    }
  }
  measured_ = true;
  measured_bytes_ = total;
  written_since_ = 0;
  return removed;
}

std::uint64_t DiskCache::trim(std::uint64_t max_bytes) {
  std::lock_guard lock(size_mu_);
  return evict_locked(max_bytes, max_bytes);
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
  std::vector<fs::path> paths, locks;
  for (; it != end; it.increment(ec)) {
    if (ec) break;
    const std::string name = it->path().filename().string();
    if (ends_with(name, kEntrySuffix) || ends_with(name, kHitsSuffix) || name.rfind(kTempPrefix, 0) == 0)
      paths.push_back(it->path());
    else if (ends_with(name, kLockSuffix))
      locks.push_back(it->path());
  }
  for (const auto& p : locks) detail::remove_free_lock_file(p);
  for (const auto& p : paths) {
    if (::unlink(p.c_str()) != 0 && errno != ENOENT)
      throw Error("cutlet: cannot remove " + p.string() + ": " + std::strerror(errno));
    if (ends_with(p.filename().string(), kEntrySuffix)) ++removed;
  }
  measured_ = true;
  measured_bytes_ = 0;
  written_since_ = 0;
  return removed;
}

std::uint64_t DiskCache::total_bytes() const {
  std::uint64_t total = 0;
  for (const auto& s : scan(kernels_dir(), false)) total += s.bytes;
  return total;
}

}  // namespace cutlet
