// The persistent kernel cache's per-entry compile lock: processes missing one key at once
// compile it once, a lock left by a killed process does not block, a wait is bounded, and a
// read-only directory compiles without waiting. Fake kernels throughout: no GPU, no compiler.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "child_process.h"
#include "cutlet/jit/disk_cache.h"
#include "cutlet/jit/disk_cache_lock.h"
#include "disk_cache_test_support.h"

using namespace cutlet;
using namespace std::chrono_literals;
namespace fs = std::filesystem;
using test::fake_kernel;
using test::key_for;
using test::TempDir;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// Appends one line to `log` in one write (O_APPEND: lines of concurrent processes never mix).
void append_line(const fs::path& log, const std::string& line) {
  const int fd = ::open(log.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0) << log;
  const std::string text = line + "\n";
  ASSERT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  ::close(fd);
}

/// The lines of `log` (none when it does not exist).
std::vector<std::string> lines_of(const fs::path& log) {
  std::vector<std::string> out;
  std::istringstream in(test::read_bytes(log));
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

/// Waits up to a minute for `pred`; returns its last answer.
template <class Pred>
bool wait_for(Pred pred) {
  const auto deadline = Clock::now() + 60s;
  while (!pred() && Clock::now() < deadline) std::this_thread::sleep_for(1ms);
  return pred();
}

std::uint64_t value_of(const test::ChildResult& r, const std::string& name) {
  auto it = r.values.find(name);
  EXPECT_NE(it, r.values.end()) << "the child printed no " << name << "; it printed:\n" << r.output;
  return it == r.values.end() ? ~0ull : std::stoull(it->second);
}

const char* env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

// ---------------------------------------------------------------------------------------------
// The child process: load_or_compile of fake key CUTLET_TEST_KEY in CUTLET_CACHE_DIR, whose
// compile appends a line to CUTLET_TEST_LOG, then
//   - with CUTLET_TEST_DIE, kills this process (holding the entry's lock);
//   - with CUTLET_TEST_HOLDING, makes that file and waits (a minute at most) for the file
//     CUTLET_TEST_RELEASE;
//   - sleeps CUTLET_TEST_COMPILE_MS milliseconds (a compile that takes time).
// With CUTLET_TEST_SYNC, it first makes ready-<pid> in that directory and waits for a file
// `go` there, so that children start together. As nobody when CUTLET_TEST_AS_NOBODY is set and
// this runs as root. Prints what load_or_compile did.
TEST(DiskCacheLockChild, DISABLED_Fill) {
  if (std::getenv("CUTLET_TEST_AS_NOBODY") && ::geteuid() == 0 &&
      (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0)) {
    std::printf("cutlet-child skipped=1\n");
    return;
  }
  const std::uint64_t key = std::strtoull(env_or("CUTLET_TEST_KEY", "1"), nullptr, 10);
  const fs::path log = env_or("CUTLET_TEST_LOG", "/dev/null");
  if (const char* sync = std::getenv("CUTLET_TEST_SYNC")) {
    test::write_bytes(fs::path(sync) / ("ready-" + std::to_string(::getpid())), "");
    ASSERT_TRUE(wait_for([&] { return fs::exists(fs::path(sync) / "go"); }));
  }
  DiskCache cache(DiskCacheSettings::from_environment());
  const auto t0 = Clock::now();
  const DiskFill f = cache.load_or_compile(key_for(key, "locked"), [&] {
    append_line(log, "compiled by " + std::to_string(::getpid()));
    if (std::getenv("CUTLET_TEST_DIE")) ::kill(::getpid(), SIGKILL);
    if (const char* holding = std::getenv("CUTLET_TEST_HOLDING")) {
      test::write_bytes(holding, "");
      const fs::path release = env_or("CUTLET_TEST_RELEASE", "");
      wait_for([&] { return fs::exists(release); });
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(env_or("CUTLET_TEST_COMPILE_MS", "0"))));
    return fake_kernel("locked");
  });
  std::printf("cutlet-child skipped=0 compiled=%d hit=%d waited=%d written=%llu kernel_ok=%d ms=%lld\n", f.compiled,
              f.lookup.status == DiskLookupStatus::Hit, f.waited, (unsigned long long)f.bytes_written,
              f.kernel && f.kernel->name == "locked" && f.kernel->cubin.size() == 1000u,
              (long long)(seconds_since(t0) * 1000));
  std::fflush(stdout);
}

std::string dir_env(const fs::path& dir) { return "CUTLET_CACHE_DIR=" + dir.string(); }

// ---------------------------------------------------------------------------------------------

TEST(DiskCacheLock, ProcessesMissingOneKeyAtOnceCompileItOnce) {
  TempDir dir, sync, work;
  const fs::path log = work.path() / "compiles.log";
  // Six processes miss key 4242 at the same moment; each compile takes 300 ms, a window in
  // which, without the lock, every one of them would miss and compile.
  constexpr int kChildren = 6;
  std::vector<std::unique_ptr<test::Child>> children;
  for (int c = 0; c < kChildren; ++c)
    children.push_back(std::make_unique<test::Child>(
        "DiskCacheLockChild.DISABLED_Fill",
        std::vector<std::string>{dir_env(dir.path()), "CUTLET_TEST_KEY=4242", "CUTLET_TEST_LOG=" + log.string(),
                                 "CUTLET_TEST_SYNC=" + sync.path().string(), "CUTLET_TEST_COMPILE_MS=300"}));
  ASSERT_TRUE(wait_for([&] {
    return std::distance(fs::directory_iterator(sync.path()), fs::directory_iterator()) >= kChildren;
  }));
  test::write_bytes(sync.path() / "go", "");
  std::uint64_t compiled = 0, hits = 0, waited = 0;
  for (auto& c : children) {
    const auto r = c->wait();
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(value_of(r, "kernel_ok"), 1u) << r.output;
    compiled += value_of(r, "compiled");
    hits += value_of(r, "hit");
    waited += value_of(r, "waited");
  }
  EXPECT_EQ(lines_of(log).size(), 1u) << "the compile ran once:\n" << test::read_bytes(log);
  EXPECT_EQ(compiled, 1u);
  EXPECT_EQ(hits, kChildren - 1u) << "the others loaded the first one's entry";
  EXPECT_GE(waited, 1u) << "someone waited for the lock";
  DiskCache view({dir.path()});
  EXPECT_EQ(view.load(key_for(4242, "locked")).status, DiskLookupStatus::Hit);
  EXPECT_FALSE(fs::exists(view.lock_path(key_for(4242, "locked")))) << "the last holder removes the lock file";
}

TEST(DiskCacheLock, ALockLeftByAKilledProcessDoesNotBlock) {
  TempDir dir, work;
  const fs::path log = work.path() / "compiles.log";
  // The child is killed while it compiles, holding the entry's lock: its lock file stays.
  const auto r = test::run_child("DiskCacheLockChild.DISABLED_Fill",
                                 {dir_env(dir.path()), "CUTLET_TEST_KEY=4343", "CUTLET_TEST_LOG=" + log.string(),
                                  "CUTLET_TEST_DIE=1"});
  EXPECT_NE(r.status, 0) << r.output;
  ASSERT_EQ(lines_of(log).size(), 1u) << "the child started compiling: " << r.output;
  DiskCacheSettings settings{dir.path()};
  settings.lock_timeout = 60s;
  DiskCache cache(settings);
  const fs::path lock = cache.lock_path(key_for(4343, "locked"));
  ASSERT_TRUE(fs::exists(lock)) << "a dead process's lock file is left behind";

  int compiles = 0;
  const auto t0 = Clock::now();
  const DiskFill f = cache.load_or_compile(key_for(4343, "locked"), [&] {
    ++compiles;
    return fake_kernel("locked");
  });
  EXPECT_LT(seconds_since(t0), 10.0) << "the dead holder's lock is free: no waiting for the timeout";
  EXPECT_EQ(compiles, 1);
  EXPECT_TRUE(f.compiled);
  EXPECT_FALSE(f.waited);
  EXPECT_GT(f.bytes_written, 0u);
  EXPECT_FALSE(fs::exists(lock)) << "and the lock file is cleaned up by the next holder";
  EXPECT_EQ(cache.load(key_for(4343, "locked")).status, DiskLookupStatus::Hit);
}

TEST(DiskCacheLock, AWaitIsBoundedThenTheWaiterCompilesItself) {
  TempDir dir, work;
  const fs::path log = work.path() / "compiles.log", holding = work.path() / "holding",
                 release = work.path() / "release";
  test::Child holder("DiskCacheLockChild.DISABLED_Fill",
                     {dir_env(dir.path()), "CUTLET_TEST_KEY=4444", "CUTLET_TEST_LOG=" + log.string(),
                      "CUTLET_TEST_HOLDING=" + holding.string(), "CUTLET_TEST_RELEASE=" + release.string()});
  ASSERT_TRUE(wait_for([&] { return fs::exists(holding); })) << "the child holds the lock";

  DiskCacheSettings settings{dir.path()};
  settings.lock_timeout = 300ms;
  DiskCache cache(settings);
  int compiles = 0;
  const auto t0 = Clock::now();
  const DiskFill f = cache.load_or_compile(key_for(4444, "locked"), [&] {
    ++compiles;
    return fake_kernel("locked");
  });
  const double waited_s = seconds_since(t0);
  test::write_bytes(release, "");
  const auto r = holder.wait();

  EXPECT_TRUE(f.compiled) << "a holder that takes too long does not stop this process";
  EXPECT_TRUE(f.waited);
  EXPECT_EQ(compiles, 1);
  EXPECT_GE(waited_s, 0.25) << "it waited for the timeout";
  EXPECT_LT(waited_s, 20.0) << "and no longer";
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(value_of(r, "compiled"), 1u) << r.output;
  EXPECT_EQ(lines_of(log).size(), 1u) << "the child's compile, logged once";
  EXPECT_EQ(cache.load(key_for(4444, "locked")).status, DiskLookupStatus::Hit);
}

TEST(DiskCacheLock, AWaiterInTheSameProcessLoadsTheHoldersEntry) {
  TempDir dir;
  // Two cache objects on one directory, as two processes would be: the second misses while
  // the first compiles, waits for its lock, and then loads its entry.
  DiskCache first({dir.path()}), second({dir.path()});
  const DiskCacheKey key = key_for(4545, "locked");
  std::atomic<bool> holding{false}, finish{false};
  std::atomic<int> compiles{0};
  std::thread holder([&] {
    first.load_or_compile(key, [&] {
      ++compiles;
      holding = true;
      while (!finish) std::this_thread::sleep_for(1ms);
      return fake_kernel("locked");
    });
  });
  ASSERT_TRUE(wait_for([&] { return holding.load(); }));
  std::thread releaser([&] {
    std::this_thread::sleep_for(200ms);
    finish = true;
  });
  const DiskFill f = second.load_or_compile(key, [&] {
    ++compiles;
    return fake_kernel("locked");
  });
  releaser.join();
  holder.join();
  EXPECT_EQ(compiles.load(), 1);
  EXPECT_FALSE(f.compiled);
  EXPECT_TRUE(f.waited);
  EXPECT_EQ(f.first, DiskLookupStatus::Absent);
  EXPECT_EQ(f.lookup.status, DiskLookupStatus::Hit);
  ASSERT_TRUE(f.kernel);
  EXPECT_EQ(f.kernel->name, "locked");
}

TEST(DiskCacheLock, AReadOnlyDirectoryCompilesWithoutWaiting) {
  TempDir dir, work;
  const fs::path log = work.path() / "compiles.log";
  const fs::path kernels = dir.path() / "kernels";
  fs::create_directories(kernels);
  fs::permissions(dir.path(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                  fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(kernels, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                               fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(work.path(), fs::perms::all);  // the child (perhaps nobody) writes its log there
  const auto r = test::run_child("DiskCacheLockChild.DISABLED_Fill",
                                 {dir_env(dir.path()), "CUTLET_TEST_KEY=4646", "CUTLET_TEST_LOG=" + log.string(),
                                  "CUTLET_TEST_AS_NOBODY=1"});
  fs::permissions(kernels, fs::perms::owner_all, fs::perm_options::add);
  ASSERT_EQ(r.status, 0) << r.output;
  if (value_of(r, "skipped")) GTEST_SKIP() << "running as root, and cannot become nobody";
  EXPECT_EQ(value_of(r, "compiled"), 1u) << "no lock file can be made: compiled without it";
  EXPECT_EQ(value_of(r, "waited"), 0u);
  EXPECT_EQ(value_of(r, "written"), 0u);
  EXPECT_EQ(value_of(r, "kernel_ok"), 1u);
  EXPECT_LT(value_of(r, "ms"), 10'000u) << "no wait for the lock timeout";
  EXPECT_EQ(lines_of(log).size(), 1u);
  EXPECT_TRUE(fs::is_empty(kernels)) << "nothing written, no lock file left";
}

TEST(DiskCacheLock, TrimAndClearRemoveOnlyLockFilesNoOneHolds) {
  TempDir dir;
  DiskCache cache({dir.path()});
  ASSERT_GT(cache.store(key_for(4747), fake_kernel("fake"), 1), 0u);  // makes the directory
  const fs::path held_path = cache.lock_path(key_for(4748)), stale = cache.lock_path(key_for(4749));
  detail::EntryLock held = detail::EntryLock::acquire(held_path, 1s);
  ASSERT_EQ(held.state(), detail::EntryLockState::Acquired);
  ASSERT_TRUE(held.held());
  test::write_bytes(stale, "");  // as a killed holder leaves it
  // Both a few minutes old: strays by age, but only the free one may go.
  const auto old = fs::file_time_type::clock::now() - std::chrono::minutes(5);
  fs::last_write_time(held_path, old);
  fs::last_write_time(stale, old);
  cache.trim(std::uint64_t{1} << 40);
  EXPECT_FALSE(fs::exists(stale)) << "a lock file no one holds is a stray";
  EXPECT_TRUE(fs::exists(held_path)) << "a held lock stays";
  cache.clear();
  EXPECT_TRUE(fs::exists(held_path)) << "a held lock stays through a clear";
  held.release();
  EXPECT_FALSE(held.held());
  EXPECT_FALSE(fs::exists(held_path)) << "its holder removes it";
  EXPECT_TRUE(fs::is_empty(dir.path() / "kernels"));
}

TEST(DiskCacheLock, AWaiterOnARemovedLockFileLocksTheNewOne) {
  TempDir dir;
  const fs::path path = dir.path() / "entry.lock";
  detail::EntryLock first = detail::EntryLock::acquire(path, 1s);
  ASSERT_TRUE(first.held());
  std::atomic<bool> got{false};
  std::thread waiter([&] {
    detail::EntryLock second = detail::EntryLock::acquire(path, 10s);
    got = second.held();
    // It holds the file now at the path (made anew), not the one the first holder removed:
    // a third acquire finds it taken.
    EXPECT_TRUE(fs::exists(path));
    detail::EntryLock third = detail::EntryLock::acquire(path, 50ms);
    EXPECT_EQ(third.state(), detail::EntryLockState::TimedOut) << "the second holds the lock";
    EXPECT_TRUE(third.waited());
  });
  std::this_thread::sleep_for(100ms);
  first.release();
  waiter.join();
  EXPECT_TRUE(got.load());
  EXPECT_FALSE(fs::exists(path));
}

}  // namespace
