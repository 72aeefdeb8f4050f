// DLPack export of DeviceMemory and import of foreign DLManagedTensors.
#include "cutlet/runtime/dlpack.h"

#include <string>
#include <utility>

namespace cutlet {
namespace {

/// What an exported tensor owns: the memory, the shape and strides it points into.
struct Exported {
  DLManagedTensor managed = {};
  DeviceMemory memory;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;
};

void delete_exported(DLManagedTensor* t) {
  delete static_cast<Exported*>(t->manager_ctx);  // frees the memory as its destructor does
}

std::string dtype_text(DLDataType t) {
  const char* code = t.code == kDLInt ? "int" : t.code == kDLUInt ? "uint" : t.code == kDLFloat ? "float"
                     : t.code == kDLBfloat ? "bfloat" : t.code == kDLComplex ? "complex" : "code ";
  std::string s = code;
  if (s == "code ") s += std::to_string(t.code) + "/";
  s += std::to_string(t.bits);
  if (t.lanes != 1) s += "x" + std::to_string(t.lanes);
  return s;
}

std::string shape_text(std::span<const std::int64_t> v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

}  // namespace

DLManagedTensor* to_dlpack(DeviceMemory&& memory, DLDataType dtype, std::vector<std::int64_t> shape,
                           std::vector<std::int64_t> strides) {
  const std::size_t element = (static_cast<std::size_t>(dtype.bits) * dtype.lanes + 7) / 8;
  if (element == 0) throw Error("to_dlpack: dtype " + dtype_text(dtype) + " has no size");
  if (strides.empty()) {
    strides.resize(shape.size());
    std::int64_t step = 1;
    for (std::size_t i = shape.size(); i-- > 0;) {
      strides[i] = step;
      step *= shape[i];
    }
  }
  if (strides.size() != shape.size())
    throw Error("to_dlpack: shape " + shape_text(shape) + " has " + std::to_string(shape.size()) +
                " extents but strides " + shape_text(strides) + " have " + std::to_string(strides.size()));
  // The furthest element the view reaches must lie inside the memory.
  std::int64_t last = 0;
  bool empty = false;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) throw Error("to_dlpack: negative extent in shape " + shape_text(shape));
    if (strides[i] < 0) throw Error("to_dlpack: negative stride in " + shape_text(strides) + " (not supported)");
    if (shape[i] == 0) empty = true;
    else last += (shape[i] - 1) * strides[i];
  }
  const std::size_t needed = empty ? 0 : (static_cast<std::size_t>(last) + 1) * element;
  if (needed > memory.bytes())
    throw Error("to_dlpack: shape " + shape_text(shape) + " with strides " + shape_text(strides) + " of " +
                dtype_text(dtype) + " reaches " + std::to_string(needed) + " bytes, but the memory holds " +
                std::to_string(memory.bytes()) + "; export a smaller view or a larger buffer");
  auto* e = new Exported;
  e->shape = std::move(shape);
  e->strides = std::move(strides);
  DLDeviceType type = kDLCUDA;
  if (const auto& r = memory.resource()) {
    if (r->kind() == MemoryKind::pinned_host) type = kDLCUDAHost;
    if (r->kind() == MemoryKind::managed) type = kDLCUDAManaged;
  }
  DLTensor& t = e->managed.dl_tensor;
  t.data = reinterpret_cast<void*>(static_cast<std::uintptr_t>(memory.address()));
  t.device = DLDevice{type, type == kDLCUDAHost ? 0 : memory.device().ordinal()};
  t.ndim = static_cast<int>(e->shape.size());
  t.dtype = dtype;
  t.shape = e->shape.data();
  t.strides = e->strides.data();
  t.byte_offset = 0;
  e->memory = std::move(memory);
  e->managed.manager_ctx = e;
  e->managed.deleter = delete_exported;
  return &e->managed;
}

DLPackTensor::DLPackTensor(DLManagedTensor* tensor) : tensor_(tensor) {
  if (!tensor) throw Error("DLPackTensor: null DLManagedTensor");
  const DLTensor& t = tensor->dl_tensor;
  std::string problem;
  if (t.device.device_type != kDLCUDA && t.device.device_type != kDLCUDAHost &&
      t.device.device_type != kDLCUDAManaged)
    problem = "its memory is of DLPack device type " + std::to_string(t.device.device_type) +
              ", not CUDA memory (kDLCUDA, kDLCUDAHost or kDLCUDAManaged); move it to a CUDA device first";
  else if (t.ndim < 0 || (t.ndim > 0 && !t.shape))
    problem = "it has no shape";
  else if (t.dtype.lanes != 1)
    problem = "its dtype " + dtype_text(t.dtype) + " has vector lanes, which cutlet does not take";
  else
    for (int i = 0; i < t.ndim; ++i)
      if (t.shape[i] < 0) problem = "it has a negative extent";
  if (!problem.empty()) {
    if (tensor->deleter) tensor->deleter(tensor);
    tensor_ = nullptr;
    throw Error("DLPackTensor: cannot import the tensor: " + problem);
  }
  strides_.resize(static_cast<std::size_t>(t.ndim));
  std::int64_t step = 1;
  for (int i = t.ndim; i-- > 0;) {
    strides_[static_cast<std::size_t>(i)] = t.strides ? t.strides[i] : step;
    step *= t.shape[i];
  }
}

DLPackTensor::DLPackTensor(DLPackTensor&& other) noexcept
    : tensor_(std::exchange(other.tensor_, nullptr)), strides_(std::move(other.strides_)) {}

DLPackTensor& DLPackTensor::operator=(DLPackTensor&& other) noexcept {
  if (this != &other) {
    DLPackTensor old(std::move(*this));
    tensor_ = std::exchange(other.tensor_, nullptr);
    strides_ = std::move(other.strides_);
  }
  return *this;
}

DLPackTensor::~DLPackTensor() {
  if (tensor_ && tensor_->deleter) tensor_->deleter(tensor_);
}

DLManagedTensor* DLPackTensor::release() noexcept {
  strides_.clear();
  return std::exchange(tensor_, nullptr);
}

const DLTensor& DLPackTensor::tensor(const char* op) const {
  if (!tensor_) throw Error(std::string("DLPackTensor::") + op + " on an empty (moved-from or released) tensor");
  return tensor_->dl_tensor;
}

std::span<const std::int64_t> DLPackTensor::shape() const {
  const DLTensor& t = tensor("shape");
  return {t.shape, static_cast<std::size_t>(t.ndim)};
}

DLDataType DLPackTensor::dtype() const { return tensor("dtype").dtype; }

std::int64_t DLPackTensor::size() const {
  std::int64_t n = 1;
  for (std::int64_t e : shape()) n *= e;
  return n;
}

bool DLPackTensor::contiguous() const {
  const auto sh = shape();
  std::int64_t step = 1;
  for (std::size_t i = sh.size(); i-- > 0;) {
    if (sh[i] != 1 && strides_[i] != step) return false;
    step *= sh[i];
  }
  return true;
}

std::uint64_t DLPackTensor::data() const {
  const DLTensor& t = tensor("data");
  return reinterpret_cast<std::uintptr_t>(t.data) + t.byte_offset;
}

DLDeviceType DLPackTensor::device_type() const { return tensor("device_type").device.device_type; }

int DLPackTensor::device_id() const { return tensor("device_id").device.device_id; }

Device DLPackTensor::device() const { return Device(device_id()); }

void DLPackTensor::check_view(DLDataType want, std::size_t element_size) const {
  const DLDataType have = dtype();
  if (have.code != want.code || have.bits != want.bits || have.lanes != want.lanes)
    throw Error("DLPackTensor::buffer: the tensor holds " + dtype_text(have) + " elements, not " +
                dtype_text(want) + " (" + std::to_string(element_size) + "-byte); ask for the matching type");
  if (!contiguous())
    throw Error("DLPackTensor::buffer: the tensor with shape " + shape_text(shape()) + " and strides " +
                shape_text(strides_) + " is not contiguous, so it is no flat buffer; make a contiguous "
                "copy first (e.g. .contiguous() in PyTorch)");
}

}  // namespace cutlet
