// The rules of the memory ops (records, pointers, loads, stores, allocations, atomics,
// barriers and fences) and of a thread's vectors.
#include <bit>

#include "rules.h"

namespace cutlet::ir {

std::vector<Type> infer_field(const OpTypes& t) {
  Type rec = t.operands[0], r = t.given_result();
  if (!rec.is_record()) t.fail("field of a non-record value of type " + rec.str());
  if (!r.is_scalar() && !(r.is_pointer() && r.address_space() == AddressSpace::Global))
    t.fail("record fields are scalars or global pointers, not " + r.str());
  const std::int64_t offset = t.int_attr(0);
  const std::int64_t bytes = r.is_bool() ? 1 : r.bits() / 8;
  if (offset < 0 || offset + bytes > rec.record_size() || offset % bytes != 0 || bytes > rec.record_align())
    t.fail("field " + r.str() + " at byte " + std::to_string(offset) + " does not fit aligned inside " + rec.str());
  if (t.attrs.size() > 1 && (t.int_attr(1) < 1 || !std::has_single_bit(static_cast<std::uint64_t>(t.int_attr(1)))))
    t.fail("divisibility must be a power of two");
  return {r};
}

std::vector<Type> infer_ptr_add(const OpTypes& t) {
  Type p = t.operands[0], i = t.operands[1];
  if (!p.is_pointer()) t.fail("ptr_add needs a pointer, got " + p.str());
  if (!i.is_integer()) t.fail("ptr_add needs an integer offset, got " + i.str());
  return {p};
}

std::optional<Folded> fold_ptr_add(const FoldInput& in) {
  const auto& c = in.constants[1];
  if (c && std::get<std::int64_t>(*c) == 0) return Folded{in.operands[0], std::nullopt};
  return std::nullopt;
}

std::vector<Type> infer_load(const OpTypes& t) {
  Type p = t.operands[0];
  if (!p.is_pointer()) t.fail("load needs a pointer, got " + p.str());
  if (!t.attrs.empty() && static_cast<CacheHint>(t.int_attr(0)) != CacheHint::Default &&
      p.address_space() != AddressSpace::Global)
    t.fail("cache hints apply to global memory loads only");
  return {p.element()};
}

std::vector<Type> infer_store(const OpTypes& t) {
  Type p = t.operands[0], v = t.operands[1];
  if (!p.is_pointer()) t.fail("store needs a pointer, got " + p.str());
  if (p.element() != v) t.fail("store of " + v.str() + " through " + p.str());
  return {};
}

namespace {
std::vector<Type> array(const OpTypes& t, AddressSpace space, const char* what) {
  Type r = t.given_pointer(space);
  if (!r.element().is_scalar()) t.fail(std::string(what) + " of non-scalar " + r.element().str());
  if (!t.attrs.empty() && t.int_attr(0) < 1)
    t.fail(std::string("a ") + what + " needs at least one element, not " + std::to_string(t.int_attr(0)));
  return {r};
}
}  // namespace

std::vector<Type> infer_alloca(const OpTypes& t) { return array(t, AddressSpace::Local, "local array"); }
std::vector<Type> infer_shared_alloc(const OpTypes& t) { return array(t, AddressSpace::Shared, "shared array"); }
std::vector<Type> infer_dynamic_shared(const OpTypes& t) { return array(t, AddressSpace::Shared, "dynamic shared memory"); }

std::vector<Type> infer_vector_load(const OpTypes& t) {
  Type p = t.operands[0], r = t.given_result();
  if (!p.is_pointer() || p.element().is_bool()) t.fail("vector load needs a pointer to numbers, got " + p.str());
  if (!r.is_vector() || r.element() != p.element()) t.fail("a vector load through " + p.str() + " makes a vector of " + p.element().str() + ", not " + r.str());
  const int lanes = r.lanes();
  if (lanes != 2 && lanes != 4 && lanes != 8) t.fail("vector loads have 2, 4 or 8 lanes, not " + std::to_string(lanes));
  if (p.element().bits() * lanes > 128)
    t.fail("vector loads move at most 16 bytes, not " + std::to_string(p.element().bits() * lanes / 8));
  return {r};
}

std::vector<Type> infer_vector_store(const OpTypes& t) {
  Type p = t.operands[0], v = t.operands[1];
  if (!p.is_pointer() || !v.is_vector() || p.element() != v.element())
    t.fail("vector store of " + v.str() + " through " + p.str());
  return {};
}

std::vector<Type> infer_atomic(const OpTypes& t) {
  Type p = t.operands[0];
  const auto kind = static_cast<AtomicKind>(t.int_attr(0));
  const std::string name = std::string("atomic ") + atomic_kind_name(kind);
  if (!p.is_pointer() || (p.address_space() != AddressSpace::Global && p.address_space() != AddressSpace::Shared))
    t.fail(name + " needs a global or shared pointer, got " + p.str());
  Type e = p.element();
  const std::size_t want = kind == AtomicKind::CompareExchange ? 2 : kind == AtomicKind::Load ? 0 : 1;
  if (t.operands.size() != want + 1) t.fail(name + " takes " + std::to_string(want) + " value(s)");
  for (std::size_t i = 1; i < t.operands.size(); ++i)
    if (t.operands[i] != e) t.fail(name + " of " + t.operands[i].str() + " on " + p.str());
  if (kind == AtomicKind::Load) {
    const auto order = static_cast<MemoryOrder>(t.int_attr(2));
    if (order != MemoryOrder::Relaxed && order != MemoryOrder::Acquire)
      t.fail(std::string("an atomic load is relaxed or acquire, not ") + memory_order_name(order) +
             "; a release goes with a store (atomic_exchange)");
    if (!((e.is_integer() || e.is_float()) && !e.is_bool() && !e.is_fp8() && (e.bits() == 32 || e.bits() == 64)))
      t.fail("atomic load is not available for " + e.str() + ": it reads 32- and 64-bit integers and floats");
    return {e};
  }
  bool ok;
  if (e.is_fp8()) {
    ok = false;
  } else if (e.is_integer()) {
    ok = e.bits() == 32 || e.bits() == 64;
  } else if (e.is_float() && e.bits() >= 32) {
    ok = kind == AtomicKind::Add || kind == AtomicKind::Sub || kind == AtomicKind::Exchange ||
         kind == AtomicKind::CompareExchange;
  } else if (e.is_float()) {
    ok = kind == AtomicKind::Add || kind == AtomicKind::CompareExchange;
  } else {
    ok = false;
  }
  if (!ok)
    t.fail(name + " is not available for " + e.str() +
           ": integer atomics take 32- and 64-bit types; float atomics are add, sub, exchange and "
           "compare-exchange on f32/f64, and add or compare-exchange on f16/bf16 (none on FP8)");
  return {e};
}

std::vector<Type> infer_barrier_reduce(const OpTypes& t) {
  if (!t.operands[0].is_bool()) t.fail("barrier reductions take an i1 predicate, not " + t.operands[0].str());
  return {static_cast<BarrierReduceKind>(t.int_attr(0)) == BarrierReduceKind::Count ? Type::i32() : Type::i1()};
}

std::vector<Type> infer_extract(const OpTypes& t) {
  Type v = t.operands[0];
  const std::int64_t lane = t.int_attr(0);
  if (!v.is_vector() || lane < 0 || lane >= v.lanes()) t.fail("extract of lane " + std::to_string(lane) + " from " + v.str());
  return {v.element()};
}

std::vector<Type> infer_insert(const OpTypes& t) {
  Type v = t.operands[0], x = t.operands[1];
  const std::int64_t lane = t.int_attr(0);
  if (!v.is_vector() || lane < 0 || lane >= v.lanes() || x != v.element())
    t.fail("insert of " + x.str() + " into lane " + std::to_string(lane) + " of " + v.str());
  return {v};
}

std::vector<Type> infer_splat(const OpTypes& t) {
  Type x = t.operands[0], r = t.given_result();
  if (!x.is_scalar() || x.is_bool()) t.fail("splat of " + x.str());
  if (!r.is_vector() || r.element() != x) t.fail("a splat of " + x.str() + " makes a vector of it, not " + r.str());
  return {r};
}

}  // namespace cutlet::ir
