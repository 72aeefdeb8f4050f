#include "tensor_checks.h"

#include <cutlet/error.h>

namespace cutlet_torch {

namespace {

/// DLPack's name of a dtype, as PyTorch and NumPy spell them: "float32", "bfloat16", "int64".
std::string dtype_name(DLDataType dtype) {
  std::string name;
  switch (dtype.code) {
    case kDLInt: name = "int"; break;
    case kDLUInt: name = "uint"; break;
    case kDLFloat: name = "float"; break;
    case kDLBfloat: name = "bfloat"; break;
    case kDLComplex: name = "complex"; break;
    case kDLBool: return "bool";
    default: return "a dtype of DLPack code " + std::to_string(dtype.code);
  }
  name += std::to_string(dtype.bits);
  if (dtype.lanes != 1) name += "x" + std::to_string(dtype.lanes);
  return name;
}

const char* device_type_name(DLDeviceType type) {
  switch (type) {
    case kDLCPU: return "the CPU";
    case kDLCUDAHost: return "pinned host memory";
    case kDLCUDAManaged: return "managed memory";
    case kDLROCM: return "a ROCm device";
    case kDLMetal: return "a Metal (mps) device";
    default: return "a device that is no CUDA device";
  }
}

[[noreturn]] void fail(const char* op, const BorrowedTensor& t, const std::string& what) {
  throw cutlet::Error(std::string(op) + ": " + t.name() + " " + what);
}

bool same_dtype(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

}  // namespace

FloatType float_type(const BorrowedTensor& t, const char* op) {
  const DLDataType d = t.dl().dtype;
  if (d.lanes == 1 && d.code == kDLFloat && d.bits == 32) return FloatType::F32;
  if (d.lanes == 1 && d.code == kDLFloat && d.bits == 16) return FloatType::F16;
  if (d.lanes == 1 && d.code == kDLBfloat && d.bits == 16) return FloatType::BF16;
  fail(op, t, "has dtype " + dtype_name(d) + "; " + op + " takes float32, float16 and bfloat16 tensors");
}

void require_cuda(const BorrowedTensor& t, const char* op) {
  const DLDeviceType type = t.dl().device.device_type;
  if (type != kDLCUDA)
    fail(op, t, std::string("is in ") + device_type_name(type) + "; cutlet runs on CUDA tensors (move it with .cuda())");
}

void require_like(const BorrowedTensor& t, const BorrowedTensor& like, const char* op) {
  const DLTensor& a = t.dl();
  const DLTensor& b = like.dl();
  if (!same_dtype(a.dtype, b.dtype))
    fail(op, t, "has dtype " + dtype_name(a.dtype) + " but " + like.name() + " has " + dtype_name(b.dtype));
  if (a.device.device_type != b.device.device_type || a.device.device_id != b.device.device_id) {
    require_cuda(t, op);
    fail(op, t, "is on CUDA device " + std::to_string(a.device.device_id) + " but " + like.name() + " on device " +
                    std::to_string(b.device.device_id));
  }
  bool same_shape = a.ndim == b.ndim;
  for (int d = 0; same_shape && d < a.ndim; ++d) same_shape = a.shape[d] == b.shape[d];
  if (!same_shape) fail(op, t, "has shape " + shape_text(a) + " but " + like.name() + " has " + shape_text(b));
}

void require_rank(const BorrowedTensor& t, int rank, const char* op) {
  if (t.dl().ndim != rank)
    fail(op, t, "has shape " + shape_text(t.dl()) + "; " + op + " takes tensors of " + std::to_string(rank) +
                    " dimensions");
}

void require_contiguous(const BorrowedTensor& t, const char* op) {
  const DLTensor& x = t.dl();
  if (!x.strides) return;  // compact row-major by definition
  std::int64_t expected = 1;
  for (int d = x.ndim - 1; d >= 0; --d) {
    if (x.shape[d] != 1 && x.strides[d] != expected)
      fail(op, t, "is not contiguous (shape " + shape_text(x) + ", stride " + std::to_string(x.strides[d]) +
                      " in dimension " + std::to_string(d) + " where " + std::to_string(expected) +
                      " was expected); " + op + " reads and writes memory in place and never copies: pass .contiguous()");
    expected *= x.shape[d];
  }
}

void require_distinct_elements(const BorrowedTensor& t, const char* op) {
  const DLTensor& x = t.dl();
  for (int d = 0; d < x.ndim; ++d)
    if (x.shape[d] > 1 && stride(x, d) <= 0)
      fail(op, t, "has stride " + std::to_string(stride(x, d)) + " in dimension " + std::to_string(d) +
                      ", so some of its elements share memory; an output needs distinct elements (pass a tensor "
                      "made by torch.empty, not an expanded view)");
}

std::int64_t element_count(const DLTensor& t) noexcept {
  std::int64_t n = 1;
  for (int d = 0; d < t.ndim; ++d) n *= t.shape[d];
  return n;
}

std::int64_t stride(const DLTensor& t, int d) noexcept {
  if (t.strides) return t.strides[d];
  std::int64_t s = 1;
  for (int e = t.ndim - 1; e > d; --e) s *= t.shape[e];
  return s;
}

std::string shape_text(const DLTensor& t) {
  std::string s = "[";
  for (int d = 0; d < t.ndim; ++d) s += (d ? ", " : "") + std::to_string(t.shape[d]);
  return s + "]";
}

}  // namespace cutlet_torch
