// The rules of Hopper's asynchronous bulk copies (TMA loads and stores, their groups and the
// async-proxy fence) and of the mbarriers the loads complete on.
#include "rules.h"

namespace cutlet::ir {
namespace {

/// A barrier operand: a pointer to a u64 or i64 in shared memory.
void check_barrier(const OpTypes& t, Type bar, const char* op) {
  if (!bar.is_pointer() || bar.address_space() != AddressSpace::Shared || !bar.element().is_integer() ||
      bar.element().bits() != 64)
    t.fail(std::string(op) + " needs an mbarrier: a pointer to a 64-bit integer in shared memory (shared_array<std::uint64_t>), not " +
           bar.str());
}

/// An operand that must be a 32-bit integer.
void check_i32(const OpTypes& t, Type v, const std::string& what) {
  if (!v.is_integer() || v.bits() != 32) t.fail(what + " must be a 32-bit integer, not " + v.str());
}

/// A TMA descriptor and its coordinates (operands from `first_coord` on).
void check_tma(const OpTypes& t, std::size_t first_coord, const char* op) {
  const Type desc = t.operands[0];
  if (!desc.is_record() || desc.record_size() != 128 || desc.record_align() != 64)
    t.fail(std::string(op) + " needs a TMA descriptor (a TmaDescriptor parameter: 128 bytes, 64-byte aligned), not " +
           desc.str());
  const std::size_t rank = t.operands.size() - first_coord;
  if (rank < 1 || rank > 5) t.fail(std::string(op) + " takes 1 to 5 coordinates, not " + std::to_string(rank));
  for (std::size_t i = first_coord; i < t.operands.size(); ++i)
    check_i32(t, t.operands[i], std::string(op) + " coordinate " + std::to_string(i - first_coord));
}

/// The shared-memory side of a TMA copy.
void check_shared_box(const OpTypes& t, Type p, const char* op) {
  if (!p.is_pointer() || p.address_space() != AddressSpace::Shared || !p.element().is_scalar() || p.element().is_bool())
    t.fail(std::string(op) + " copies to or from shared memory: a pointer to numbers in shared memory, not " + p.str());
}

}  // namespace

std::vector<Type> infer_mbarrier_init(const OpTypes& t) {
  check_barrier(t, t.operands[0], "mbarrier.init");
  check_i32(t, t.operands[1], "an mbarrier's arrival count");
  return {};
}

std::vector<Type> infer_mbarrier_arrive(const OpTypes& t) {
  check_barrier(t, t.operands[0], "mbarrier.arrive");
  if (t.operands.size() > 1) check_i32(t, t.operands[1], "an arrival's expected transaction bytes");
  return {};
}

std::vector<Type> infer_mbarrier_try_wait(const OpTypes& t) {
  check_barrier(t, t.operands[0], "mbarrier.try_wait");
  check_i32(t, t.operands[1], "an mbarrier's phase parity");
  return {Type::i1()};
}

std::vector<Type> infer_tma_load(const OpTypes& t) {
  check_shared_box(t, t.operands[1], "tma.load");
  check_barrier(t, t.operands[2], "tma.load");
  check_tma(t, 3, "tma.load");
  return {};
}

std::vector<Type> infer_tma_store(const OpTypes& t) {
  check_shared_box(t, t.operands[1], "tma.store");
  check_tma(t, 2, "tma.store");
  return {};
}

std::vector<Type> infer_bulk_wait(const OpTypes& t) {
  const std::int64_t pending = t.int_attr(0);
  if (pending < 0 || pending > 63) t.fail("bulk.wait leaves 0 to 63 groups pending, not " + std::to_string(pending));
  if (t.attrs.size() > 1 && t.int_attr(1) != 0 && t.int_attr(1) != 1) t.fail("bulk.wait's reads_only is 0 or 1");
  return {};
}

}  // namespace cutlet::ir
