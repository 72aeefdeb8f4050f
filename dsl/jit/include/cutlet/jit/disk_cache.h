// The persistent compiled-kernel cache: cubins and their PTX in a directory shared by processes.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
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
  /// The size cap in bytes: beyond it, the least recently used entries are removed. 0: no cap.
  std::uint64_t max_bytes = std::uint64_t{1} << 30;
  /// How long load_or_compile waits for another process compiling the same entry before it
  /// compiles the kernel itself.
  std::chrono::milliseconds lock_timeout{60'000};

  /// The settings the environment asks for: CUTLET_CACHE=0 (or off, false, no) turns the cache
  /// off, and a value that is no boolean (see detail::env_flag) throws cutlet::Error; the
  /// directory is CUTLET_CACHE_DIR, else $XDG_CACHE_HOME/cutlet, else $HOME/.cache/cutlet
  /// (none of them set: off); CUTLET_CACHE_MAX_BYTES sets the cap, a number of bytes with an
  /// optional K, M, G or T suffix (powers of 1024), 0 for no cap. A cap that is malformed or
  /// beyond 2^64 - 1 bytes is reported once on stderr and the default (1 GiB) used.
  static DiskCacheSettings from_environment();
};

/// What a lookup found.
enum class DiskLookupStatus {
  Hit,       ///< a valid entry for the key: `kernel` holds it
  Absent,    ///< no entry
  Corrupt,   ///< an entry that is truncated, corrupt, of another format or for another key:
             ///< ignored (never loaded); storing the key rewrites it
  Disabled,  ///< the cache is off, or its directory cannot be created or read
};

/// The result of DiskCache::load.
struct DiskLookup {
  DiskLookupStatus status = DiskLookupStatus::Disabled;
  std::shared_ptr<const CompiledKernel> kernel;  ///< on a hit (its timings are the original compile's)
  double compile_ms = 0;    ///< on a hit: how long the original compile took (the time saved)
  std::uint64_t bytes = 0;  ///< bytes read
  std::string problem;      ///< for Corrupt: what is wrong with the entry
};

/// The result of DiskCache::load_or_compile.
struct DiskFill {
  std::shared_ptr<const CompiledKernel> kernel;  ///< loaded or compiled
  /// The lookup that decided: a Hit when `kernel` came from the cache (perhaps written by
  /// another process while this one waited for it); otherwise the miss before compiling.
  DiskLookup lookup;
  /// The first lookup's status, before any waiting: what a plain load() would have found.
  DiskLookupStatus first = DiskLookupStatus::Disabled;
  bool compiled = false;            ///< the compile function ran
  double compile_ms = 0;            ///< when compiled: how long it took
  std::uint64_t bytes_written = 0;  ///< when compiled: what store() wrote (0: nothing)
  bool waited = false;              ///< another process held the entry's compile lock meanwhile
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
/// <stem>.hits counts its hits (one byte per hit; its modification time is the last use),
/// <stem>.lock exists while a process compiles the entry (see load_or_compile).
/// Writes go to a temporary file in the same directory, renamed into place, so readers see
/// a whole entry or none; every entry carries its full key and a checksum, and one that is
/// truncated, corrupt or for another key is never loaded. Any number of threads and
/// processes may use one directory at once.
///
/// Failures degrade, never throw: when the directory cannot be created, the cache turns itself
/// off with one warning on stderr and cutlet compiles as if there were none. A failed write
/// (the directory removed, a temporary file removed by a concurrent clear) recreates the
/// directory and is tried once more; only when that fails too (read-only, full, over quota)
/// does the cache stop writing, with one warning naming the path and the error, while entries
/// already there are still read. A directory that is readable but not writable is read.
/// Methods never throw for file-system failures, except list/read/clear/trim, which report
/// them as cutlet::Error.
///
/// The cap holds for the directory, whichever processes fill it: after a write, the cache
/// measures the directory (every process's entries) and evicts down to 90% of the cap when it
/// is above it. To stay cheap it measures only when this process's writes since its last
/// measurement exceed 1/64 of the cap, or would take that measurement past the cap.
class DiskCache {
 public:
  explicit DiskCache(DiskCacheSettings settings);
  DiskCache(const DiskCache&) = delete;
  DiskCache& operator=(const DiskCache&) = delete;

  const DiskCacheSettings& settings() const { return settings_; }
  /// True unless the cache is off (no directory) or its directory cannot be created or read:
  /// lookups are made.
  bool enabled() const { return !settings_.dir.empty() && !disabled_.load(std::memory_order_relaxed); }
  /// True while enabled() and no write has failed for good: stores are made.
  bool writable() const { return enabled() && !read_only_.load(std::memory_order_relaxed); }
  /// <dir>/kernels.
  std::filesystem::path kernels_dir() const { return settings_.dir / "kernels"; }

  /// Looks `key` up. On a hit, records it (the hit counter and the last-use time).
  DiskLookup load(const DiskCacheKey& key);
  /// Stores `kernel`, compiled for `key` in `compile_ms`, replacing any entry for the key;
  /// then evicts the least recently used entries if the directory is above its cap. Returns
  /// the bytes written, 0 when nothing was written (cache off, writing stopped by a failure,
  /// or the write lost twice to a concurrent clear).
  std::uint64_t store(const DiskCacheKey& key, const CompiledKernel& kernel, double compile_ms);
  /// The kernel for `key`: loaded when the cache has it, otherwise made by `compile` and
  /// stored. A miss takes the entry's compile lock (detail::EntryLock) first, so that
  /// processes (and DiskCache objects) missing one key at once compile it once: the others
  /// wait for the holder, up to settings().lock_timeout, and look the key up again once they
  /// hold the lock, finding the holder's entry. A holder that dies releases the lock. When
  /// the wait times out, or the lock cannot be taken (a read-only directory, writing stopped,
  /// the cache off), `compile` runs without it. Exceptions of `compile` propagate (with the
  /// lock released); file-system failures never throw.
  DiskFill load_or_compile(const DiskCacheKey& key, const std::function<CompiledKernel()>& compile);
  /// The compile lock file of `key`'s entry: <dir>/kernels/<stem>.lock.
  std::filesystem::path lock_path(const DiskCacheKey& key) const;

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
  /// Removes every entry (and stray temporary and lock files; locks held now stay); returns
  /// how many entries were removed.
  std::size_t clear();
  /// Removes least recently used entries until the cache holds at most `max_bytes`; returns
  /// the bytes removed. Also removes temporary files, hit counters and lock files left behind
  /// by processes that died (older than a minute; a lock held now stays).
  std::uint64_t trim(std::uint64_t max_bytes);
  /// The bytes the entries (with their hit counters) take.
  std::uint64_t total_bytes() const;

 private:
  bool prepare();
  void fail(const std::string& what);
  void stop_writing(const std::string& what, int err, const char* note);
  void after_write(std::uint64_t bytes);
  std::uint64_t evict_locked(std::uint64_t above, std::uint64_t down_to);

  DiskCacheSettings settings_;
  std::atomic<bool> disabled_{false};
  std::atomic<bool> read_only_{false};
  std::atomic<bool> warned_{false};
  std::mutex prepare_mu_;
  bool prepared_ = false;
  std::mutex size_mu_;
  bool measured_ = false;                ///< the directory was measured since this object was made
  std::uint64_t measured_bytes_ = 0;     ///< what the last measurement left in the directory
  std::uint64_t written_since_ = 0;      ///< bytes this object wrote since that measurement
};

/// The process-wide cache that Kernel compiles go through, made from
/// DiskCacheSettings::from_environment() on first use.
std::shared_ptr<DiskCache> disk_cache();
/// Replaces the process-wide cache with one for `settings`, for every later compile (a dir
/// of "" turns it off). Compiles under way finish with the previous one.
void set_disk_cache_settings(DiskCacheSettings settings);

namespace detail {
/// Reads a size: decimal digits (no sign, no spaces) with an optional K, M, G or T suffix
/// (powers of 1024; "KiB" and "KB" also read as 1024, a trailing "B" alone as bytes), in any
/// case. nullopt when malformed or beyond 2^64 - 1 bytes; then `problem`, when given, says
/// which ("is not a size", "is too large ...").
std::optional<std::uint64_t> parse_byte_size(const char* text, std::string* problem = nullptr);
}  // namespace detail

}  // namespace cutlet
