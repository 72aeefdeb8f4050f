// DLPack import: DLPackTensor, owning a foreign DLManagedTensorVersioned or DLManagedTensor.
#include "cutlet/runtime/dlpack.h"

#include <limits>
#include <string>
#include <utility>

#include "dlpack_text.h"

namespace cutlet {
namespace {

/// Why cutlet cannot take `t` (its device, dtype or shape); "" when it can.
std::string tensor_problem(const DLTensor& t) {
  if (std::string p = detail::dlpack_device_problem(t.device); !p.empty()) return p;
  if (std::string p = detail::dlpack_dtype_problem(t.dtype); !p.empty()) return p;
  if (t.ndim < 0) return "its ndim is " + std::to_string(t.ndim);
  if (t.ndim > 0 && !t.shape) return "it has no shape";
  std::int64_t elements = 1;
  for (std::int32_t i = 0; i < t.ndim; ++i) {
    if (t.shape[i] < 0) return "it has a negative extent";
    if (t.shape[i] != 0 && elements > std::numeric_limits<std::int64_t>::max() / t.shape[i])
      return "its shape has more than 2^63 elements";
    elements *= t.shape[i];
  }
  return "";
}

}  // namespace

DLPackTensor::DLPackTensor(DLManagedTensor* tensor) : unversioned_(tensor) {
  if (!tensor) throw Error("DLPackTensor: null DLManagedTensor");
  adopt(tensor->dl_tensor);
}

DLPackTensor::DLPackTensor(DLManagedTensorVersioned* tensor) : versioned_(tensor) {
  if (!tensor) throw Error("DLPackTensor: null DLManagedTensorVersioned");
  // Only version, manager_ctx and deleter are laid out alike in every major version.
  if (tensor->version.major != 1) {
    const std::string version = std::to_string(tensor->version.major) + "." + std::to_string(tensor->version.minor);
    delete_tensor();
    throw Error("DLPackTensor: cannot import the tensor: it is of DLPack " + version +
                ", and cutlet reads DLPack 1.x (DLManagedTensorVersioned) and 0.x (DLManagedTensor); ask the "
                "producer for a 1.x tensor (in Python: __dlpack__(max_version=(1, 0)))");
  }
  adopt(tensor->dl_tensor);
}

void DLPackTensor::adopt(const DLTensor& t) {
  if (const std::string problem = tensor_problem(t); !problem.empty()) {
    delete_tensor();
    throw Error("DLPackTensor: cannot import the tensor: " + problem);
  }
  strides_.resize(static_cast<std::size_t>(t.ndim));
  std::int64_t step = 1;
  for (std::int32_t i = t.ndim; i-- > 0;) {
    strides_[static_cast<std::size_t>(i)] = t.strides ? t.strides[i] : step;
    step *= t.shape[i];
  }
}

void DLPackTensor::delete_tensor() noexcept {
  if (unversioned_ && unversioned_->deleter) unversioned_->deleter(unversioned_);
  if (versioned_ && versioned_->deleter) versioned_->deleter(versioned_);
  unversioned_ = nullptr;
  versioned_ = nullptr;
  strides_.clear();
}

DLPackTensor::DLPackTensor(DLPackTensor&& other) noexcept
    : unversioned_(std::exchange(other.unversioned_, nullptr)),
      versioned_(std::exchange(other.versioned_, nullptr)),
      strides_(std::move(other.strides_)) {
  other.strides_.clear();
}

DLPackTensor& DLPackTensor::operator=(DLPackTensor&& other) noexcept {
  if (this != &other) {
    delete_tensor();
    unversioned_ = std::exchange(other.unversioned_, nullptr);
    versioned_ = std::exchange(other.versioned_, nullptr);
    strides_ = std::move(other.strides_);
    other.strides_.clear();
  }
  return *this;
}

DLPackTensor::~DLPackTensor() { delete_tensor(); }

DLManagedTensor* DLPackTensor::release() {
  if (versioned_)
    throw Error("DLPackTensor::release: the tensor is a DLManagedTensorVersioned; call release_versioned()");
  strides_.clear();
  return std::exchange(unversioned_, nullptr);
}

DLManagedTensorVersioned* DLPackTensor::release_versioned() {
  if (unversioned_)
    throw Error("DLPackTensor::release_versioned: the tensor is an unversioned DLManagedTensor; call release()");
  strides_.clear();
  return std::exchange(versioned_, nullptr);
}

const DLTensor& DLPackTensor::tensor(const char* op) const {
  if (versioned_) return versioned_->dl_tensor;
  if (unversioned_) return unversioned_->dl_tensor;
  throw Error(std::string("DLPackTensor::") + op + " on an empty (moved-from or released) tensor");
}

DLPackVersion DLPackTensor::version() const {
  (void)tensor("version");
  return versioned_ ? versioned_->version : DLPackVersion{0, 0};
}

std::uint64_t DLPackTensor::flags() const {
  (void)tensor("flags");
  return versioned_ ? versioned_->flags : 0;
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

Device DLPackTensor::device() const { return device_type() == kDLCPU ? Device::cpu() : Device(device_id()); }

void DLPackTensor::check_view(DLDataType want, std::size_t element_size, bool write) const {
  using detail::dlpack_shape_text;
  const char* op = write ? "DLPackTensor::buffer" : "DLPackTensor::read_only_buffer";
  if (write && read_only())
    throw Error(std::string(op) + ": the producer marked the tensor read-only (DLPACK_FLAG_BITMASK_READ_ONLY), and "
                "a Buffer can be written; call read_only_buffer() if nothing will write through the view, or ask "
                "the producer for a writable tensor or a copy");
  const DLDataType have = dtype();
  if (have.code != want.code || have.bits != want.bits || have.lanes != want.lanes)
    throw Error(std::string(op) + ": the tensor holds " + dlpack_dtype_name(have) + " elements, not " +
                dlpack_dtype_name(want) + " (" + std::to_string(element_size) + "-byte); ask for the matching type");
  if (!contiguous())
    throw Error(std::string(op) + ": the tensor with shape " + dlpack_shape_text(shape()) + " and strides " +
                dlpack_shape_text(strides_) + " is not contiguous, so it is no flat buffer; make a contiguous "
                "copy first (e.g. .contiguous() in PyTorch)");
}

}  // namespace cutlet
