#include "tensor_import.h"

#include <cutlet/error.h>

#include <string>
#include <vector>

namespace cutlet_torch {

namespace {

/// The capsule's table, or an older one of major version 1 in its chain; null if there is none
/// or it lacks what the calls need.
const DLPackExchangeAPI* api_of_capsule(PyObject* capsule) {
  auto* api = static_cast<const DLPackExchangeAPI*>(PyCapsule_GetPointer(capsule, "dlpack_exchange_api"));
  if (!api) {
    PyErr_Clear();
    return nullptr;
  }
  const DLPackExchangeAPIHeader* header = &api->header;
  while (header && header->version.major != DLPACK_MAJOR_VERSION) header = header->prev_api;
  if (!header) return nullptr;
  // The header is the table's first member: a table of major version 1 starts with it.
  api = reinterpret_cast<const DLPackExchangeAPI*>(header);
  if (!api->dltensor_from_py_object_no_sync || !api->current_work_stream) return nullptr;
  return api;
}

const DLPackExchangeAPI* look_up(PyTypeObject* type) {
  // An attribute of the type (as DLPack prescribes), so instances cannot shadow it.
  nb::object capsule = nb::steal(PyObject_GetAttrString(reinterpret_cast<PyObject*>(type), "__dlpack_c_exchange_api__"));
  if (!capsule.is_valid()) {
    PyErr_Clear();
    return nullptr;
  }
  return api_of_capsule(capsule.ptr());
}

struct KnownType {
  PyTypeObject* type;  ///< a strong reference, never released: its address names this type for good
  const DLPackExchangeAPI* api;
};

constexpr std::size_t kMaxKnownTypes = 16;  ///< beyond these, types are looked up on every call

std::string python_type_name(nb::handle object) {
  return nb::type_name(object.type()).c_str();
}

}  // namespace

const DLPackExchangeAPI* exchange_api(PyTypeObject* type) {
  // The GIL serializes every use. Plain pointers, so that nothing touches Python at exit.
  static std::vector<KnownType> known;
  for (const KnownType& k : known)
    if (k.type == type) return k.api;
  const DLPackExchangeAPI* api = look_up(type);
  if (known.size() < kMaxKnownTypes) {
    Py_INCREF(type);
    known.push_back({type, api});
  }
  return api;
}

BorrowedTensor::BorrowedTensor(nb::handle object, const char* name) : name_(name) {
  api_ = exchange_api(Py_TYPE(object.ptr()));
  if (api_) {
    if (api_->dltensor_from_py_object_no_sync(object.ptr(), &tensor_) != 0) throw nb::python_error();
    return;
  }
  if (!nb::try_cast(object, imported_, /*convert=*/false))
    throw nb::type_error((std::string(name) + " is a " + python_type_name(object) +
                          ", which is no tensor: pass a torch.Tensor (or another object with __dlpack__)")
                             .c_str());
  const auto dtype = imported_.dtype();
  tensor_.data = imported_.data();  // byte_offset already added
  tensor_.device = {static_cast<DLDeviceType>(imported_.device_type()), static_cast<std::int32_t>(imported_.device_id())};
  tensor_.ndim = static_cast<std::int32_t>(imported_.ndim());
  tensor_.dtype = {dtype.code, dtype.bits, dtype.lanes};
  tensor_.shape = const_cast<std::int64_t*>(imported_.shape_ptr());
  tensor_.strides = const_cast<std::int64_t*>(imported_.stride_ptr());
  tensor_.byte_offset = 0;
}

cutlet::Stream launch_stream(const BorrowedTensor& t, nb::handle stream, const char* op) {
  const int device_id = t.dl().device.device_id;
  const cutlet::Device device(device_id);
  if (!stream.is_none()) {
    nb::handle handle = stream;
    nb::object attribute;
    if (!PyLong_Check(handle.ptr()) && nb::hasattr(handle, "cuda_stream")) {
      attribute = handle.attr("cuda_stream");
      handle = attribute;
    }
    if (!PyLong_Check(handle.ptr()))
      throw nb::type_error((std::string(op) + ": stream is a " + python_type_name(stream) +
                            "; pass a CUstream as an int (torch.cuda.current_stream().cuda_stream), a "
                            "torch.cuda.Stream, or None for the current stream")
                               .c_str());
    void* cu_stream = PyLong_AsVoidPtr(handle.ptr());
    if (!cu_stream && PyErr_Occurred()) throw nb::python_error();
    return cutlet::Stream::wrap(cu_stream, device);
  }
  if (!t.api())
    throw cutlet::Error(std::string(op) + ": " + t.name() +
                        " came through __dlpack__() (its type has no DLPack C exchange API), which does not say "
                        "which stream its library is using: pass stream=<the CUstream as an int>");
  void* cu_stream = nullptr;
  if (t.api()->current_work_stream(kDLCUDA, device_id, &cu_stream) != 0) throw nb::python_error();
  return cutlet::Stream::wrap(cu_stream, device);
}

}  // namespace cutlet_torch
