// DLPack export of DeviceMemory, as a versioned (DLPack 1.x) or unversioned (0.x) tensor.
#include "cutlet/runtime/dlpack.h"

#include <string>
#include <utility>

#include "dlpack_text.h"

namespace cutlet {
namespace {

/// What an exported tensor owns: the managed struct handed out (DLManagedTensor or
/// DLManagedTensorVersioned), the memory, and the shape and strides it points into.
template <class Managed>
struct Exported {
  Managed managed = {};
  DeviceMemory memory;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;
};

template <class Managed>
void delete_exported(Managed* t) {
  delete static_cast<Exported<Managed>*>(t->manager_ctx);  // frees the memory as its destructor does
}

/// Checks for `op` `shape` and `strides` (filled in as compact row-major when empty) against `memory`
/// and `dtype`; throws Error naming what is wrong.
void check_layout(const char* op, const DeviceMemory& memory, DLDataType dtype,
                  const std::vector<std::int64_t>& shape, std::vector<std::int64_t>& strides) {
  using detail::dlpack_shape_text;
  const std::string where = std::string(op) + ": ";
  const std::size_t element = (static_cast<std::size_t>(dtype.bits) * dtype.lanes + 7) / 8;
  if (element == 0) throw Error(where + "dtype " + dlpack_dtype_name(dtype) + " has no size");
  if (strides.empty()) {
    strides.resize(shape.size());
    std::int64_t step = 1;
    for (std::size_t i = shape.size(); i-- > 0;) {
      strides[i] = step;
      step *= shape[i];
    }
  }
  if (strides.size() != shape.size())
    throw Error(where + "shape " + dlpack_shape_text(shape) + " has " + std::to_string(shape.size()) +
                " extents but strides " + dlpack_shape_text(strides) + " have " + std::to_string(strides.size()));
  // The furthest element the view reaches must lie inside the memory.
  std::int64_t last = 0;
  bool empty = false;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) throw Error(where + "negative extent in shape " + dlpack_shape_text(shape));
    if (strides[i] < 0)
      throw Error(where + "negative stride in " + dlpack_shape_text(strides) + " (not supported)");
    if (shape[i] == 0)
      empty = true;
    else
      last += (shape[i] - 1) * strides[i];
  }
  const std::size_t needed = empty ? 0 : (static_cast<std::size_t>(last) + 1) * element;
  if (needed > memory.bytes())
    throw Error(where + "shape " + dlpack_shape_text(shape) + " with strides " + dlpack_shape_text(strides) +
                " of " + dlpack_dtype_name(dtype) + " reaches " + std::to_string(needed) +
                " bytes, but the memory holds " + std::to_string(memory.bytes()) +
                "; export a smaller view or a larger buffer");
}

/// Where `memory` lives, as DLPack names it: the device ordinal for device memory, 0 for
/// pinned and managed memory (as DLPack prescribes); all memory of the CPU device is host
/// memory (kDLCPU).
DLDevice device_of(const DeviceMemory& memory) {
  if (memory.device().is_cpu()) return DLDevice{kDLCPU, 0};
  if (const auto& r = memory.resource()) {
    if (r->kind() == MemoryKind::pinned_host) return DLDevice{kDLCUDAHost, 0};
    if (r->kind() == MemoryKind::managed) return DLDevice{kDLCUDAManaged, 0};
  }
  return DLDevice{kDLCUDA, memory.device().ordinal()};
}

/// A new Exported<Managed> owning `memory`, its DLTensor filled in; the caller sets the rest.
template <class Managed>
Exported<Managed>* make_exported(const char* op, DeviceMemory&& memory, DLDataType dtype,
                                 std::vector<std::int64_t> shape, std::vector<std::int64_t> strides) {
  check_layout(op, memory, dtype, shape, strides);
  auto* e = new Exported<Managed>;
  e->shape = std::move(shape);
  e->strides = std::move(strides);
  DLTensor& t = e->managed.dl_tensor;
  t.data = reinterpret_cast<void*>(static_cast<std::uintptr_t>(memory.address()));
  t.device = device_of(memory);
  t.ndim = static_cast<std::int32_t>(e->shape.size());
  t.dtype = dtype;
  t.shape = e->shape.data();
  t.strides = e->strides.data();
  t.byte_offset = 0;
  e->memory = std::move(memory);
  e->managed.manager_ctx = e;
  e->managed.deleter = delete_exported<Managed>;
  return e;
}

}  // namespace

DLManagedTensor* to_dlpack(DeviceMemory&& memory, DLDataType dtype, std::vector<std::int64_t> shape,
                           std::vector<std::int64_t> strides) {
  auto* e = make_exported<DLManagedTensor>("to_dlpack", std::move(memory), dtype, std::move(shape), std::move(strides));
  return &e->managed;
}

DLManagedTensorVersioned* to_dlpack_versioned(DeviceMemory&& memory, DLDataType dtype,
                                              std::vector<std::int64_t> shape, std::vector<std::int64_t> strides,
                                              std::uint64_t flags) {
  constexpr std::uint64_t known = DLPACK_FLAG_BITMASK_READ_ONLY | DLPACK_FLAG_BITMASK_IS_COPIED;
  if (flags & ~known)
    throw Error("to_dlpack_versioned: flags " + std::to_string(flags) +
                " hold bits other than DLPACK_FLAG_BITMASK_READ_ONLY and DLPACK_FLAG_BITMASK_IS_COPIED");
  auto* e = make_exported<DLManagedTensorVersioned>("to_dlpack_versioned", std::move(memory), dtype,
                                                    std::move(shape), std::move(strides));
  e->managed.version = DLPackVersion{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  e->managed.flags = flags;
  return &e->managed;
}

}  // namespace cutlet
