// Checked execution on the host: bounds of the CPU device's buffers and of shared memory, and
// shared-memory races between barriers (host_check.h).
#include "host_check.h"

#include <cinttypes>
#include <cstdio>
#include <vector>

#include "cutlet/runtime/host_allocations.h"

namespace cutlet::backend {
namespace {

/// The last write and the last read of a byte of shared memory in the current interval
/// between barriers (epoch), by whom and where.
struct SharedByte {
  std::uint32_t write_epoch = 0, writer = 0;
  std::uint32_t read_epoch = 0, reader = 0;
  const char* write_where = nullptr;
  const char* read_where = nullptr;
};

}  // namespace

struct HostBlockCheck {
  const std::uint8_t* shared = nullptr;
  std::size_t shared_bytes = 0;
  std::uint32_t epoch = 1;
  std::vector<SharedByte> bytes;
  std::string failure;
};

namespace {

thread_local HostBlockCheck own_state;
thread_local HostBlockCheck* current_state = nullptr;

/// The calling host thread's current check state.
HostBlockCheck& state() { return current_state ? *current_state : own_state; }

std::string hex(std::uint64_t v) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%" PRIx64, v);
  return text;
}

/// Thread `linear` of the block whose thread state (any thread's) is `s`.
std::string thread_at(std::uint32_t linear, const std::uint32_t* s) {
  const std::uint32_t x = linear % s[3], y = linear / s[3] % s[4], z = linear / (s[3] * s[4]);
  return "thread (" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + ")";
}
std::uint32_t linear_of(const std::uint32_t* s) { return s[0] + s[3] * (s[1] + s[4] * s[2]); }
std::string block_of(const std::uint32_t* s) {
  return "block (" + std::to_string(s[6]) + ", " + std::to_string(s[7]) + ", " + std::to_string(s[8]) + ")";
}

const char* verb(std::uint32_t flags) { return flags & kHostAccessWrite ? "write" : "read"; }

void fail(std::string message) {
  if (state().failure.empty()) state().failure = std::move(message);
}

/// Where a global access outside every buffer lies, relative to the buffers around it.
std::string outside(std::uint64_t address, std::uint64_t bytes, const HostAllocationsAround& around) {
  if (around.holder)
    return "the last " + std::to_string(address + bytes - (around.holder->address + around.holder->bytes)) +
           " of them past the end of the buffer of " + std::to_string(around.holder->bytes) + " bytes at " +
           hex(around.holder->address);
  std::string r = "outside every buffer";
  if (around.below)
    r += "; " + std::to_string(address - (around.below->address + around.below->bytes)) +
         " bytes past the end of the buffer of " + std::to_string(around.below->bytes) + " bytes at " + hex(around.below->address);
  if (around.above)
    r += "; " + std::to_string(around.above->address - address) + " bytes before the start of the buffer of " +
         std::to_string(around.above->bytes) + " bytes at " + hex(around.above->address);
  return r;
}

/// Memory cutlet did not allocate (a wrapped host pointer) is not checked: an access counts
/// as outside the buffers only within this distance of one.
constexpr std::uint64_t kNear = 1 << 20;

bool check_global(std::uint64_t address, std::uint64_t bytes, std::uint32_t flags, const char* where,
                  const std::uint32_t* s) {
  const HostAllocationsAround around = host_allocations_around(address);
  if (around.holder && address + bytes <= around.holder->address + around.holder->bytes) return true;
  const bool near = around.holder || (around.below && address - (around.below->address + around.below->bytes) < kNear) ||
                    (around.above && around.above->address - address < kNear);
  if (!near) return true;
  fail("out-of-bounds " + std::string(verb(flags)) + " of " + std::to_string(bytes) + " bytes at " + hex(address) + " (" +
       outside(address, bytes, around) + ") at " + where + " by " + thread_at(linear_of(s), s) + " of " + block_of(s));
  return false;
}

bool check_shared(std::uint64_t address, std::uint64_t bytes, std::uint32_t flags, const char* where, const std::uint32_t* s) {
  HostBlockCheck& block = state();
  const auto base = reinterpret_cast<std::uint64_t>(block.shared);
  if (address < base || address + bytes > base + block.shared_bytes) {
    fail("out-of-bounds " + std::string(verb(flags)) + " of " + std::to_string(bytes) + " bytes of shared memory at offset " +
         std::to_string(static_cast<std::int64_t>(address - base)) + " (the block has " + std::to_string(block.shared_bytes) +
         " bytes) at " + where + " by " + thread_at(linear_of(s), s) + " of " + block_of(s));
    return false;
  }
  if (flags & kHostAccessAtomic) return true;
  const std::uint32_t me = linear_of(s) + 1;
  for (std::uint64_t i = address - base; i < address - base + bytes; ++i) {
    SharedByte& b = block.bytes[i];
    const bool written = b.write_epoch == block.epoch && b.writer != me;
    const bool read = (flags & kHostAccessWrite) && b.read_epoch == block.epoch && b.reader != me;
    if (written || read) {
      const std::uint32_t other = written ? b.writer : b.reader;
      fail("a shared-memory race: " + thread_at(linear_of(s), s) + " of " + block_of(s) + " " + verb(flags) + "s offset " +
           std::to_string(i) + " at " + where + ", which " + thread_at(other - 1, s) + " " +
           (written ? "wrote" : "read") + " at " + (written ? b.write_where : b.read_where) +
           " with no syncthreads() between them");
      return true;  // the access itself is in bounds
    }
    if (flags & kHostAccessWrite) {
      b.write_epoch = block.epoch;
      b.writer = me;
      b.write_where = where;
    } else {
      b.read_epoch = block.epoch;
      b.reader = me;
      b.read_where = where;
    }
  }
  return true;
}

}  // namespace

std::shared_ptr<HostBlockCheck> host_check_new_state() { return std::make_shared<HostBlockCheck>(); }

void host_check_use(HostBlockCheck* s) { current_state = s; }

void host_check_begin_block(const void* shared, std::size_t shared_bytes) {
  HostBlockCheck& block = state();
  block.shared = static_cast<const std::uint8_t*>(shared);
  block.shared_bytes = shared_bytes;
  block.bytes.assign(shared_bytes, SharedByte{});
  block.epoch = 1;
  block.failure.clear();
}

void host_check_barrier() { ++state().epoch; }

const std::string& host_check_failure() { return state().failure; }

}  // namespace cutlet::backend

extern "C" bool cutlet_host_check(const void* address, std::uint64_t bytes, std::uint32_t flags, const char* where,
                                  const std::uint32_t* thread) {
  const auto a = reinterpret_cast<std::uint64_t>(address);
  if (flags & cutlet::backend::kHostAccessShared) return cutlet::backend::check_shared(a, bytes, flags, where, thread);
  return cutlet::backend::check_global(a, bytes, flags, where, thread);
}

extern "C" void cutlet_host_check_barrier() { cutlet::backend::host_check_barrier(); }
