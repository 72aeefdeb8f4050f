// The advisory lock one process holds on a persistent cache entry while it compiles it.
#pragma once

#include <chrono>
#include <filesystem>
#include <utility>

namespace cutlet::detail {

/// How EntryLock::acquire ended.
enum class EntryLockState {
  Acquired,     ///< this lock holds the entry
  TimedOut,     ///< another holder kept it past the timeout
  Unavailable,  ///< the lock file cannot be made or locked (a read-only or unwritable directory,
                ///< a file system without locks): nothing to wait for
};

/// An exclusive advisory lock on one cache entry, so that processes missing the same key at
/// once compile it once: the first takes the lock and compiles, the others wait for it and
/// then find the entry. It is flock(2) on a lock file next to the entry (`<stem>.lock`): the
/// kernel drops the lock when its holder exits or is killed, so a lock file left behind by a
/// dead process never blocks anyone. The holder removes the file when it lets go; a waiter
/// that then holds a removed file locks the one now at the path instead. Locks of one process
/// exclude each other too (each acquire opens the file anew). Move-only; the destructor
/// releases.
class EntryLock {
 public:
  /// Locks the file `path` (created when missing), waiting while another holder has it, at
  /// most `timeout`. Never throws: a file that cannot be created or locked is Unavailable.
  static EntryLock acquire(const std::filesystem::path& path, std::chrono::milliseconds timeout);

  EntryLock(EntryLock&& other) noexcept;
  EntryLock& operator=(EntryLock&& other) noexcept;
  EntryLock(const EntryLock&) = delete;
  EntryLock& operator=(const EntryLock&) = delete;
  ~EntryLock();

  EntryLockState state() const { return state_; }
  /// True when this lock holds the entry (state() is Acquired and release() was not called).
  bool held() const { return fd_ >= 0; }
  /// True when acquire found the lock taken by another holder and waited (however it ended).
  bool waited() const { return waited_; }
  /// Removes the lock file and drops the lock; nothing when not held.
  void release() noexcept;

 private:
  EntryLock(std::filesystem::path path, int fd, EntryLockState state, bool waited)
      : path_(std::move(path)), fd_(fd), state_(state), waited_(waited) {}

  std::filesystem::path path_;
  int fd_ = -1;
  EntryLockState state_ = EntryLockState::Unavailable;
  bool waited_ = false;
};

/// Removes the lock file `path` when no one holds it (one left behind by a dead process);
/// true when it was removed. A held lock is left alone.
bool remove_free_lock_file(const std::filesystem::path& path) noexcept;

}  // namespace cutlet::detail
