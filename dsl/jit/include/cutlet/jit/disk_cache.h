// The persistent compiled-kernel cache: cubins and their PTX in a directory shared by processes.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cutlet/backend/compiler.h"
#include "cutlet/jit/disk_cache_key.h"

namespace cutlet {

/// Where and whether compiled kernels are kept on disk.
struct DiskCacheSettings {
  /// The cache directory (created on first use); empty turns the cache off.
  std::filesystem::path dir;
  /// The size cap in bytes: beyond it, the least recently used entries are removed.
  std::uint64_t max_bytes = std::uint64_t{1} << 30;

  /// The settings the environment asks for: CUTLET_CACHE=0 (or off, false, no) turns the cache
  /// off, and a value that is no boolean (see detail::env_flag) throws cutlet::Error; the
  /// directory is CUTLET_CACHE_DIR, else $XDG_CACHE_HOME/cutlet, else $HOME/.cache/cutlet
  /// (none of them set: off); CUTLET_CACHE_MAX_BYTES sets the cap, a number of bytes with an
  /// optional K, M or G suffix (powers of 1024). A malformed cap is reported once on stderr and
  /// the default (1 GiB) used.
  static DiskCacheSettings from_environment();
};

/// What a lookup found.
enum class DiskLookupStatus {
  Hit,       ///< a valid entry for the key: `kernel` holds it
  Absent,    ///< no entry
  Corrupt,   ///< an entry that is truncated, corrupt, of another format or for another key:
             ///< ignored (never loaded); storing the key rewrites it
  Disabled,  ///< the cache is off or has been disabled by a failure
};

/// The result of DiskCache::load.
struct DiskLookup {
  DiskLookupStatus status = DiskLookupStatus::Disabled;
  std::shared_ptr<const CompiledKernel> kernel;  ///< on a hit (its timings are the original compile's)
  double compile_ms = 0;    ///< on a hit: how long the original compile took (the time saved)
  std::uint64_t bytes = 0;  ///< bytes read
  std::string problem;      ///< for Corrupt: what is wrong with the entry
};

/// One entry as cutlet-cache lists it.
struct DiskCacheEntryInfo {
  std::string id;            ///< the file stem (32 hex digits), which cutlet-cache accepts by prefix
  std::string kernel_name;   ///< from the entry's key ("" when the entry is unreadable)
  std::string arch;          ///< from the entry's key
  std::uint64_t bytes = 0;   ///< the entry and its hit counter
  std::int64_t created_unix = 0;    ///< when it was compiled
  std::int64_t last_used_unix = 0;  ///< when it was written or last hit (the eviction order)
  std::uint64_t hits = 0;    ///< disk hits recorded (saturates at about a million)
  double compile_ms = 0;     ///< how long the original compile took
  std::string problem;       ///< why the entry cannot be used; empty when valid
};

/// A persistent cache directory of compiled kernels, keyed by DiskCacheKey.
///
/// Layout: <dir>/kernels/<stem>.entry holds an entry (see disk_cache_entry.h),
/// <stem>.hits counts its hits (one byte per hit; its modification time is the last use).
/// Writes go to a temporary file in the same directory, renamed into place, so readers see
/// a whole entry or none; every entry carries its full key and a checksum, and one that is
/// truncated, corrupt or for another key is never loaded. Any number of threads and
/// processes may use one directory at once. When the directory cannot be created or written
/// (read-only, full, a file in the way), the cache turns itself off with one warning on
/// stderr and cutlet compiles as if there were none. Methods never throw for file-system
/// failures, except list/read/clear/trim, which report them as cutlet::Error.
class DiskCache {
 public:
  explicit DiskCache(DiskCacheSettings settings);
  DiskCache(const DiskCache&) = delete;
  DiskCache& operator=(const DiskCache&) = delete;

  const DiskCacheSettings& settings() const { return settings_; }
  /// True unless the cache is off (no directory) or was turned off by a failure.
  bool enabled() const { return !settings_.dir.empty() && !disabled_.load(std::memory_order_relaxed); }
  /// <dir>/kernels.
  std::filesystem::path kernels_dir() const { return settings_.dir / "kernels"; }

  /// Looks `key` up. On a hit, records it (the hit counter and the last-use time).
  DiskLookup load(const DiskCacheKey& key);
  /// Stores `kernel`, compiled for `key` in `compile_ms`, replacing any entry for the key;
  /// then evicts the least recently used entries if the cache is above its cap. Returns the
  /// bytes written, 0 when nothing was written (cache off, or a failure that turned it off).
  std::uint64_t store(const DiskCacheKey& key, const CompiledKernel& kernel, double compile_ms);

  /// Every entry, oldest use first; unreadable ones carry their problem.
  std::vector<DiskCacheEntryInfo> list() const;
  /// The entry whose id starts with `id_prefix`, decoded. Throws Error when none or several
  /// match, or when it is unreadable or corrupt.
  struct Entry {
    DiskCacheEntryInfo info;
    DiskCacheKey key;
    CompiledKernel kernel;
  };
  Entry read(const std::string& id_prefix) const;
  /// Removes every entry (and stray temporary files); returns how many entries were removed.
  std::size_t clear();
  /// Removes least recently used entries until the cache holds at most `max_bytes`; returns
  /// the bytes removed. Also removes temporary files and hit counters left behind by
  /// processes that died (older than a minute).
  std::uint64_t trim(std::uint64_t max_bytes);
  /// The bytes the entries (with their hit counters) take.
  std::uint64_t total_bytes() const;

 private:
  bool prepare();
  void fail(const std::string& what);
  std::uint64_t trim_locked(std::uint64_t max_bytes, std::uint64_t* remaining);

  DiskCacheSettings settings_;
  std::atomic<bool> disabled_{false};
  std::atomic<bool> warned_{false};
  std::mutex prepare_mu_;
  bool prepared_ = false;
  std::mutex size_mu_;
  bool size_known_ = false;
  std::uint64_t size_estimate_ = 0;
};

/// The process-wide cache that Kernel compiles go through, made from
/// DiskCacheSettings::from_environment() on first use.
std::shared_ptr<DiskCache> disk_cache();
/// Replaces the process-wide cache with one for `settings`, for every later compile (a dir
/// of "" turns it off). Compiles under way finish with the previous one.
void set_disk_cache_settings(DiskCacheSettings settings);

namespace detail {
/// Reads a size: a number of bytes with an optional K, M, G or T suffix (powers of 1024; "KiB"
/// and "KB" also read as 1024). nullopt when malformed.
std::optional<std::uint64_t> parse_byte_size(const char* text);
}  // namespace detail

}  // namespace cutlet
