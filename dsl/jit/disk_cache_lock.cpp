// The per-entry compile lock of the persistent kernel cache: flock on <stem>.lock, bounded wait.
#include "cutlet/jit/disk_cache_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>
#include <utility>

namespace cutlet::detail {
namespace {

using Clock = std::chrono::steady_clock;

/// True when `fd` is the file now at `path` (not one removed or replaced since it was opened).
bool is_file_at(int fd, const std::filesystem::path& path) {
  struct stat open_st{}, path_st{};
  return ::fstat(fd, &open_st) == 0 && ::stat(path.c_str(), &path_st) == 0 && open_st.st_dev == path_st.st_dev &&
         open_st.st_ino == path_st.st_ino;
}

/// flock(fd, how), retried on EINTR; 0 or errno.
int lock(int fd, int how) {
  for (;;) {
    if (::flock(fd, how) == 0) return 0;
    if (errno != EINTR) return errno;
  }
}

}  // namespace

EntryLock EntryLock::acquire(const std::filesystem::path& path, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  bool waited = false;
  // Poll: flock has no timeout. Short sleeps first (a compile may be about to finish), then
  // at most 20 ms between tries.
  auto pause = std::chrono::microseconds(500);
  for (;;) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return EntryLock(path, -1, EntryLockState::Unavailable, waited);
    for (;;) {
      const int err = lock(fd, LOCK_EX | LOCK_NB);
      if (err == 0) break;
      if (err != EWOULDBLOCK) {
        ::close(fd);
        return EntryLock(path, -1, EntryLockState::Unavailable, waited);
      }
      const auto now = Clock::now();
      if (now >= deadline) {
        ::close(fd);
        return EntryLock(path, -1, EntryLockState::TimedOut, true);
      }
      waited = true;
      std::this_thread::sleep_for(std::min<Clock::duration>(pause, deadline - now));
      pause = std::min<std::chrono::microseconds>(pause * 2, std::chrono::milliseconds(20));
    }
    // Locked; but the previous holder removes the file as it lets go, and this may be that
    // removed file: then lock the one at the path now.
    if (is_file_at(fd, path)) return EntryLock(path, fd, EntryLockState::Acquired, waited);
    ::close(fd);
    if (Clock::now() >= deadline) return EntryLock(path, -1, EntryLockState::TimedOut, true);
  }
}

EntryLock::EntryLock(EntryLock&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(std::exchange(other.fd_, -1)),
      state_(other.state_),
      waited_(other.waited_) {}

EntryLock& EntryLock::operator=(EntryLock&& other) noexcept {
  if (this != &other) {
    release();
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
    state_ = other.state_;
    waited_ = other.waited_;
  }
  return *this;
}

EntryLock::~EntryLock() { release(); }

void EntryLock::release() noexcept {
  if (fd_ < 0) return;
  // Only a holder removes the file, and only its own (the directory may have been removed and
  // made again meanwhile); waiters on it then see it gone and lock the path afresh.
  if (is_file_at(fd_, path_)) ::unlink(path_.c_str());
  ::close(fd_);
  fd_ = -1;
}

bool remove_free_lock_file(const std::filesystem::path& path) noexcept {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool removed = false;
  if (lock(fd, LOCK_EX | LOCK_NB) == 0 && is_file_at(fd, path)) removed = ::unlink(path.c_str()) == 0;
  ::close(fd);
  return removed;
}

}  // namespace cutlet::detail
