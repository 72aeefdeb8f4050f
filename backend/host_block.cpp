// One block of a host-run kernel: its threads as fibers (Boost.Context's fcontext), switched
// where they wait for each other, and the cutlet_host_* functions behind those waits.
#include "host_block.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <limits>

#include <boost/context/detail/fcontext.hpp>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

#include "cutlet/error.h"
#include "host_check.h"

namespace cutlet::backend {

namespace ctx = boost::context::detail;

namespace {

/// Bytes of each fiber's stack (committed as it is touched), and of the guard page below it.
constexpr std::size_t kStackBytes = 256 * 1024;

/// A thread's stack: mapped once, kept by the runner for later blocks.
class FiberStack {
 public:
  FiberStack() {
    page_ = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    void* p = mmap(nullptr, kStackBytes + page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
      throw Error(std::string("cutlet: could not map a stack for a thread of a kernel run on the CPU (") +
                  std::strerror(errno) + "); each resident thread takes two memory mappings: launch fewer blocks at "
                  "once, or raise vm.max_map_count");
    mprotect(p, page_, PROT_NONE);  // overflowing the stack faults instead of writing past it
    base_ = static_cast<char*>(p);
  }
  ~FiberStack() {
    // AddressSanitizer marked the frames the fiber ran in its shadow memory; memory mapped
    // here later (the JIT's code) must not look like a stale stack to it.
#if defined(__SANITIZE_ADDRESS__)
    __asan_unpoison_memory_region(base_, kStackBytes + page_);
#endif
    munmap(base_, kStackBytes + page_);
  }
  FiberStack(const FiberStack&) = delete;
  FiberStack& operator=(const FiberStack&) = delete;
  /// The top of the stack (stacks grow down).
  void* top() const { return base_ + page_ + kStackBytes; }

 private:
  char* base_ = nullptr;
  std::size_t page_ = 0;
};

enum class Wait : std::uint8_t { None, Barrier, Warp, Grid };

struct Thread {
  std::uint32_t state[kHostThreadStateWords] = {};
  ctx::fcontext_t self = nullptr;       ///< where the thread resumes
  ctx::fcontext_t scheduler = nullptr;  ///< where it returns to when it waits
  bool started = false, done = false;
  Wait wait = Wait::None;
  // A pending warp collective.
  HostWarpOp op{};
  std::uint32_t mask = 0, arg = 0;
  std::uint64_t value = 0, result = 0;
};

}  // namespace

struct HostBlockRunner::Block {
  std::string kernel;
  HostThreadEntry entry = nullptr;
  void** args = nullptr;
  std::vector<Thread> threads;
  std::vector<std::unique_ptr<FiberStack>> stacks;
  std::vector<std::byte> shared;
  std::uint32_t live = 0;  ///< threads not yet returned
  // The barrier: arrivals of the current phase and their reduction.
  std::uint32_t arrived = 0, count = 0, all = 1, any = 0, reduced = 0, kind = 0;
  std::string failure;  ///< what a thread that stopped the block reported ("" while none has)
  std::uint32_t failed_thread = 0;
  Thread* current = nullptr;
  std::shared_ptr<HostBlockCheck> check;  ///< its own check state, in a cooperative grid

  std::uint32_t index_of(const Thread& t) const { return static_cast<std::uint32_t>(&t - threads.data()); }
  /// The lanes of warp w that have not returned.
  std::uint32_t live_lanes(std::uint32_t w) const {
    std::uint32_t m = 0;
    for (std::uint32_t l = 0; l < 32 && 32 * w + l < threads.size(); ++l)
      if (!threads[32 * w + l].done) m |= 1u << l;
    return m;
  }
  void yield(Thread& t) { t.scheduler = ctx::jump_fcontext(t.scheduler, nullptr).fctx; }
  void complete_barrier_if_ready();
  void complete_warp_collectives(std::uint32_t w);
  [[noreturn]] void throw_stuck() const;
};

namespace {

thread_local HostBlockRunner::Block* tls_block = nullptr;

HostBlockRunner::Block& block_here() {
  CUTLET_ASSERT(tls_block != nullptr && tls_block->current != nullptr, "a host kernel thread runs inside a block");
  return *tls_block;
}

/// A fiber's first frame: runs the thread's kernel code, then returns to the scheduler for good.
void fiber_main(ctx::transfer_t from) {
  auto& block = *static_cast<HostBlockRunner::Block*>(from.data);
  Thread& t = *block.current;
  t.scheduler = from.fctx;
  block.entry(block.args, t.state);
  t.done = true;
  --block.live;
  ctx::jump_fcontext(t.scheduler, nullptr);
}

/// The result of warp collective `op` (of mask `mask`) for lane `lane` of a warp of `width`
/// lanes, whose lanes in `group` take part with `values` (one per lane) and this lane with `arg`.
std::uint64_t warp_result(HostWarpOp op, const std::uint64_t* values, std::uint32_t group, std::uint32_t lane,
                          std::uint32_t width, std::uint32_t arg, std::uint32_t mask) {
  const std::uint64_t mine = values[lane];
  auto shuffled = [&](std::int64_t src) -> std::uint64_t {
    if (src < 0 || src >= static_cast<std::int64_t>(width) || !(group >> src & 1)) return mine;
    return values[src];
  };
  auto each = [&](auto f) {
    for (std::uint32_t l = 0; l < width; ++l)
      if (group >> l & 1) f(values[l]);
  };
  switch (op) {
    case HostWarpOp::ShuffleIdx: return shuffled(arg & 31);
    case HostWarpOp::ShuffleUp: return shuffled(static_cast<std::int64_t>(lane) - arg);
    case HostWarpOp::ShuffleDown: return shuffled(static_cast<std::int64_t>(lane) + arg);
    case HostWarpOp::ShuffleXor: return shuffled(lane ^ arg);
    case HostWarpOp::VoteAll: {
      std::uint64_t r = 1;
      each([&](std::uint64_t v) { r &= v != 0; });
      return r;
    }
    case HostWarpOp::VoteAny: {
      std::uint64_t r = 0;
      each([&](std::uint64_t v) { r |= v != 0; });
      return r;
    }
    case HostWarpOp::VoteBallot: {
      std::uint64_t r = 0;
      for (std::uint32_t l = 0; l < width; ++l)
        if ((group >> l & 1) && values[l] != 0) r |= 1u << l;
      return r;
    }
    case HostWarpOp::MatchAny: {
      std::uint64_t r = 0;
      for (std::uint32_t l = 0; l < width; ++l)
        if ((group >> l & 1) && values[l] == mine) r |= 1u << l;
      return r;
    }
    case HostWarpOp::MatchAll: {
      bool same = true;
      each([&](std::uint64_t v) { same = same && v == mine; });
      return same ? mask : 0;
    }
    default: break;
  }
  // redux over 32-bit values
  std::uint32_t r = op == HostWarpOp::ReduxAnd ? ~0u
                    : op == HostWarpOp::ReduxMinSigned ? static_cast<std::uint32_t>(std::numeric_limits<std::int32_t>::max())
                    : op == HostWarpOp::ReduxMaxSigned ? static_cast<std::uint32_t>(std::numeric_limits<std::int32_t>::min())
                    : op == HostWarpOp::ReduxMinUnsigned ? ~0u
                                                         : 0u;
  each([&](std::uint64_t value) {
    const auto v = static_cast<std::uint32_t>(value);
    switch (op) {
      case HostWarpOp::ReduxAdd: r += v; break;
      case HostWarpOp::ReduxMinSigned: r = static_cast<std::uint32_t>(std::min(static_cast<std::int32_t>(r), static_cast<std::int32_t>(v))); break;
      case HostWarpOp::ReduxMaxSigned: r = static_cast<std::uint32_t>(std::max(static_cast<std::int32_t>(r), static_cast<std::int32_t>(v))); break;
      case HostWarpOp::ReduxMinUnsigned: r = std::min(r, v); break;
      case HostWarpOp::ReduxMaxUnsigned: r = std::max(r, v); break;
      case HostWarpOp::ReduxAnd: r &= v; break;
      case HostWarpOp::ReduxOr: r |= v; break;
      case HostWarpOp::ReduxXor: r ^= v; break;
      default: break;
    }
  });
  return r;
}

const char* describe(HostWarpOp op) {
  switch (op) {
    case HostWarpOp::ShuffleIdx:
    case HostWarpOp::ShuffleUp:
    case HostWarpOp::ShuffleDown:
    case HostWarpOp::ShuffleXor: return "a warp shuffle";
    case HostWarpOp::VoteAll:
    case HostWarpOp::VoteAny:
    case HostWarpOp::VoteBallot: return "a warp vote";
    case HostWarpOp::MatchAny:
    case HostWarpOp::MatchAll: return "a warp match";
    default: return "a warp reduction (redux)";
  }
}

std::string thread_name(const std::uint32_t* s) {
  return "thread (" + std::to_string(s[0]) + ", " + std::to_string(s[1]) + ", " + std::to_string(s[2]) + ") of block (" +
         std::to_string(s[6]) + ", " + std::to_string(s[7]) + ", " + std::to_string(s[8]) + ")";
}

}  // namespace

void HostBlockRunner::Block::complete_barrier_if_ready() {
  if (arrived == 0 || arrived < live) return;
  reduced = kind == 0 ? count : kind == 1 ? all : any;
  host_check_barrier();
  arrived = count = any = 0;
  all = 1;
  for (Thread& t : threads)
    if (t.wait == Wait::Barrier) t.wait = Wait::None;
}

void HostBlockRunner::Block::complete_warp_collectives(std::uint32_t w) {
  Thread* lanes = threads.data() + 32 * w;
  const std::uint32_t width = static_cast<std::uint32_t>(std::min<std::size_t>(32, threads.size() - 32 * w));
  const std::uint32_t live_mask = live_lanes(w);
  std::uint32_t waiting = 0;
  for (std::uint32_t l = 0; l < width; ++l)
    if (lanes[l].wait == Wait::Warp) waiting |= 1u << l;
  while (waiting) {
    const std::uint32_t first = static_cast<std::uint32_t>(std::countr_zero(waiting));
    const std::uint32_t mask = lanes[first].mask;
    const std::uint32_t group = mask & live_mask;
    // The lanes of this mask that wait here; the collective runs once all of them do.
    std::uint32_t here = 0;
    for (std::uint32_t l = 0; l < width; ++l)
      if ((waiting >> l & 1) && lanes[l].mask == mask && lanes[l].op == lanes[first].op) here |= 1u << l;
    waiting &= ~here;
    if ((group & ~here) != 0) continue;
    std::uint64_t values[32] = {};
    for (std::uint32_t l = 0; l < width; ++l) values[l] = lanes[l].value;
    for (std::uint32_t l = 0; l < width; ++l)
      if (here >> l & 1) lanes[l].result = warp_result(lanes[l].op, values, group, l, width, lanes[l].arg, lanes[l].mask);
    for (std::uint32_t l = 0; l < width; ++l)
      if (here >> l & 1) lanes[l].wait = Wait::None;
  }
}

void HostBlockRunner::Block::throw_stuck() const {
  // The waiting threads by where they wait: how many, and the first of them.
  struct Group {
    std::string where;
    const Thread* first;
    int count;
  };
  std::vector<Group> groups;
  for (const Thread& t : threads) {
    if (t.done || t.wait == Wait::None) continue;
    std::string where = t.wait == Wait::Grid ? "grid_sync()" : "a barrier";
    if (t.wait == Wait::Warp) {
      char mask[16];
      std::snprintf(mask, sizeof mask, "%08x", t.mask);
      where = std::string(describe(t.op)) + " of mask 0x" + mask;
    }
    auto g = std::find_if(groups.begin(), groups.end(), [&](const Group& x) { return x.where == where; });
    if (g == groups.end()) groups.push_back({where, &t, 1});
    else ++g->count;
  }
  std::string waits;
  for (const Group& g : groups)
    waits += (waits.empty() ? "" : "; ") + std::to_string(g.count) + (g.count == 1 ? " thread waits" : " threads wait") +
             " at " + g.where + " (the first: " + thread_name(g.first->state) + ")";
  throw Error("cutlet: kernel '" + kernel + "' on the CPU can make no progress: " + waits + ", which the block's other " +
              "threads never reach (" + std::to_string(live) + " of " + std::to_string(threads.size()) +
              " threads have not returned). On a GPU this hangs or is undefined: every thread that has not " +
              "returned must reach each syncthreads(), and every lane of a warp operation's mask that operation");
}

HostBlockRunner::HostBlockRunner() : block_(std::make_unique<Block>()) {}
HostBlockRunner::~HostBlockRunner() = default;

void HostBlockRunner::run(const std::string& kernel, HostThreadEntry entry, void** args, const std::uint32_t (&grid)[3],
                          const std::uint32_t (&block)[3], const std::uint32_t (&block_index)[3], std::size_t shared_bytes,
                          bool checked) {
  start(kernel, entry, args, grid, block, block_index, shared_bytes, false);
  if (checked) host_check_begin_block(block_->shared.data(), shared_bytes);
  if (!resume())
    throw Error("cutlet: kernel '" + kernel + "' on the CPU reached grid_sync() in " + name() +
                " of a launch that is not cooperative; launch it with config.cooperative = true");
}

void HostBlockRunner::start(const std::string& kernel, HostThreadEntry entry, void** args, const std::uint32_t (&grid)[3],
                            const std::uint32_t (&block)[3], const std::uint32_t (&block_index)[3], std::size_t shared_bytes,
                            bool checked) {
  Block& b = *block_;
  const std::size_t n = std::size_t{block[0]} * block[1] * block[2];
  b.kernel = kernel;
  b.entry = entry;
  b.args = args;
  b.threads.assign(n, Thread{});
  while (b.stacks.size() < n) b.stacks.push_back(std::make_unique<FiberStack>());
  b.shared.resize(shared_bytes);
  b.check = nullptr;
  if (checked) {
    b.check = host_check_new_state();
    host_check_use(b.check.get());
    host_check_begin_block(b.shared.data(), shared_bytes);
    host_check_use(nullptr);
  }
  b.live = static_cast<std::uint32_t>(n);
  b.arrived = b.count = b.any = b.reduced = 0;
  b.all = 1;
  b.failure.clear();
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t* s = b.threads[i].state;
    s[0] = static_cast<std::uint32_t>(i % block[0]);
    s[1] = static_cast<std::uint32_t>(i / block[0] % block[1]);
    s[2] = static_cast<std::uint32_t>(i / (std::size_t{block[0]} * block[1]));
    for (int d = 0; d < 3; ++d) {
      s[3 + d] = block[d];
      s[6 + d] = block_index[d];
      s[9 + d] = grid[d];
    }
    s[12] = static_cast<std::uint32_t>(i % 32);
  }
}

bool HostBlockRunner::resume() {
  Block& b = *block_;
  const std::size_t n = b.threads.size();
  tls_block = &b;
  if (b.check) host_check_use(b.check.get());
  struct Reset {
    ~Reset() {
      tls_block = nullptr;
      host_check_use(nullptr);
    }
  } reset;
  for (;;) {
    bool progress = false;
    for (std::size_t i = 0; i < n; ++i) {
      Thread& t = b.threads[i];
      if (t.done || t.wait != Wait::None) continue;
      b.current = &t;
      if (!t.started) {
        t.started = true;
        t.self = ctx::make_fcontext(b.stacks[i]->top(), kStackBytes, fiber_main);
      }
      t.self = ctx::jump_fcontext(t.self, &b).fctx;
      b.current = nullptr;
      progress = true;
      if (!b.failure.empty())
        throw Error("cutlet: kernel '" + b.kernel + "' on the CPU: " + b.failure + " in " +
                    thread_name(b.threads[b.failed_thread].state));
      if (t.done) {
        // Its exit may complete what the others wait for.
        b.complete_barrier_if_ready();
        b.complete_warp_collectives(static_cast<std::uint32_t>(i / 32));
      }
    }
    if (b.check && !host_check_failure().empty())
      throw Error("cutlet: kernel '" + b.kernel + "' on the CPU, checked: " + host_check_failure());
    if (b.live == 0) return true;
    if (progress) continue;
    if (std::all_of(b.threads.begin(), b.threads.end(), [](const Thread& t) { return t.done || t.wait == Wait::Grid; }))
      return false;
    b.throw_stuck();
  }
}

void HostBlockRunner::release_grid_sync() {
  Block& b = *block_;
  for (Thread& t : b.threads)
    if (t.wait == Wait::Grid) t.wait = Wait::None;
  if (b.check) {
    host_check_use(b.check.get());
    host_check_barrier();
    host_check_use(nullptr);
  }
}

void HostBlockRunner::forget_dropped_block() {
  tls_block = nullptr;
  host_check_use(nullptr);
}

std::string HostBlockRunner::name() const {
  const std::uint32_t* s = block_->threads.empty() ? nullptr : block_->threads.front().state;
  if (!s) return "a block";
  return "block (" + std::to_string(s[6]) + ", " + std::to_string(s[7]) + ", " + std::to_string(s[8]) + ")";
}

}  // namespace cutlet::backend

using cutlet::backend::HostBlockRunner;
using cutlet::backend::HostWarpOp;

extern "C" std::uint32_t cutlet_host_special(std::uint32_t reg) {
  return cutlet::backend::block_here().current->state[reg];
}

extern "C" void* cutlet_host_shared() { return cutlet::backend::block_here().shared.data(); }

extern "C" void cutlet_host_barrier() { cutlet_host_barrier_reduce(0, 0); }

extern "C" void cutlet_host_grid_sync() {
  // The thread may go on on another host thread: nothing here is read after the switch.
  auto& b = cutlet::backend::block_here();
  auto& t = *b.current;
  t.wait = cutlet::backend::Wait::Grid;
  b.yield(t);
}

extern "C" std::uint32_t cutlet_host_barrier_reduce(std::uint32_t kind, std::uint32_t pred) {
  auto& b = cutlet::backend::block_here();
  auto& t = *b.current;
  b.kind = kind;
  b.count += pred != 0;
  b.all &= pred != 0;
  b.any |= pred != 0;
  ++b.arrived;
  t.wait = cutlet::backend::Wait::Barrier;
  b.complete_barrier_if_ready();
  if (t.wait != cutlet::backend::Wait::None) b.yield(t);
  return b.reduced;
}

extern "C" std::uint64_t cutlet_host_warp(std::uint32_t op, std::uint32_t mask, std::uint64_t value, std::uint32_t arg) {
  auto& b = cutlet::backend::block_here();
  auto& t = *b.current;
  t.op = static_cast<HostWarpOp>(op);
  t.mask = mask;
  t.value = value;
  t.arg = arg;
  t.wait = cutlet::backend::Wait::Warp;
  const auto w = b.index_of(t) / 32;
  b.complete_warp_collectives(w);
  if (t.wait != cutlet::backend::Wait::None) b.yield(t);
  return t.result;
}

extern "C" void cutlet_host_lanes(std::uint32_t op, std::uint64_t* values, std::uint32_t width, std::uint32_t group) {
  using cutlet::backend::HostWarpOp;
  if (width < 32) group &= (1u << width) - 1;
  const auto warp_op = static_cast<HostWarpOp>(op);
  std::uint64_t results[32];
  if (warp_op == HostWarpOp::MatchAny) {
    // Each set of equal values once: its lanes are each one's result.
    std::uint32_t left = group;
    while (left) {
      const std::uint64_t v = values[std::countr_zero(left)];
      std::uint32_t same = 0;
      for (std::uint32_t l = 0; l < width; ++l)
        if ((group >> l & 1) && values[l] == v) same |= 1u << l;
      for (std::uint32_t l = 0; l < width; ++l)
        if (same >> l & 1) results[l] = same;
      left &= ~same;
    }
  } else if (warp_op == HostWarpOp::MatchAll) {
    for (std::uint32_t l = 0; l < width; ++l)
      if (group >> l & 1) results[l] = cutlet::backend::warp_result(warp_op, values, group, l, width, 0, ~0u);
  } else {
    // Votes and reductions: one result for the whole warp.
    const std::uint64_t r = cutlet::backend::warp_result(warp_op, values, group, 0, width, 0, ~0u);
    for (std::uint32_t l = 0; l < width; ++l) results[l] = r;
  }
  for (std::uint32_t l = 0; l < width; ++l)
    if (group >> l & 1) values[l] = results[l];
}

namespace cutlet::backend {
namespace {
thread_local std::string phases_failure;
}
const std::string& host_phases_failure() { return phases_failure; }
}  // namespace cutlet::backend

extern "C" void cutlet_host_phases_assert_fail(const char* message, const char* file, std::uint32_t line,
                                               const std::uint32_t* thread) {
  cutlet::backend::phases_failure = std::string("assertion failed: ") + message + " (" + file + ":" + std::to_string(line) +
                                    ") in " + cutlet::backend::thread_name(thread);
}

extern "C" std::uint32_t cutlet_host_active_mask() {
  auto& b = cutlet::backend::block_here();
  return b.live_lanes(b.index_of(*b.current) / 32);
}

extern "C" void cutlet_host_assert_fail(const char* message, const char* file, std::uint32_t line, const char*,
                                        std::uint64_t) {
  // The thread ends here: it never returns to its kernel code, and the scheduler stops the block.
  auto& b = cutlet::backend::block_here();
  auto& t = *b.current;
  b.failure = std::string("assertion failed: ") + message + " (" + file + ":" + std::to_string(line) + ")";
  b.failed_thread = b.index_of(t);
  t.done = true;
  boost::context::detail::jump_fcontext(t.scheduler, nullptr);
  __builtin_unreachable();
}

extern "C" int cutlet_host_vprintf(const char* format, const void* args) {
  // Each conversion reads the next argument, aligned to its size, and prints it with the
  // host's snprintf and the conversion's own flags, width and precision.
  const auto* base = static_cast<const unsigned char*>(args);
  std::size_t at = 0;
  auto next = [&](std::size_t size) {
    at = (at + size - 1) / size * size;
    const unsigned char* p = base + at;
    at += size;
    return p;
  };
  std::string out;
  for (const char* f = format; *f;) {
    if (*f != '%') {
      out += *f++;
      continue;
    }
    if (f[1] == '%') {
      out += '%';
      f += 2;
      continue;
    }
    const char* start = f++;
    while (*f && std::strchr("-+ #0123456789.*", *f)) ++f;
    int longs = 0;
    while (*f && std::strchr("hlLqjzt", *f)) longs += (*f == 'l' || *f == 'q' || *f == 'j' || *f == 'z' || *f == 't' || *f == 'L'), ++f;
    const char conversion = *f;
    if (!conversion) break;
    ++f;
    std::string spec(start, f);
    char buf[512];
    int n = 0;
    if (std::strchr("diouxXc", conversion)) {
      if (longs > 0) {
        std::int64_t v;
        std::memcpy(&v, next(8), 8);
        spec = std::string(start, static_cast<std::size_t>(f - start - 1 - longs)) + "ll" + conversion;
        n = std::snprintf(buf, sizeof buf, spec.c_str(), static_cast<long long>(v));
      } else {
        std::int32_t v;
        std::memcpy(&v, next(4), 4);
        n = std::snprintf(buf, sizeof buf, spec.c_str(), v);
      }
    } else if (std::strchr("feEgGaA", conversion)) {
      double v;
      std::memcpy(&v, next(8), 8);
      n = std::snprintf(buf, sizeof buf, spec.c_str(), v);
    } else if (conversion == 's' || conversion == 'p') {
      const void* v;
      std::memcpy(&v, next(sizeof v), sizeof v);
      n = std::snprintf(buf, sizeof buf, spec.c_str(), v);
    } else {
      out += spec;
      continue;
    }
    out.append(buf, static_cast<std::size_t>(std::clamp(n, 0, static_cast<int>(sizeof buf) - 1)));
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  return static_cast<int>(out.size());
}
