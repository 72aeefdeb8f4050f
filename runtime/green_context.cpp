// Green contexts: SM partitioning with cuDevSmResourceSplitByCount, contexts and streams.
#include "cutlet/runtime/green_context.h"

#include <string>
#include <utility>

#include "device_state.h"

namespace cutlet {
namespace detail {

/// One green context and what it was made from. Destroys the context with the last holder.
struct GreenContextState {
  CUgreenCtx green = nullptr;
  CUcontext context = nullptr;  ///< cuCtxFromGreenCtx's handle for it.
  Device device;
  int sm_count = 0;
  GreenContextState(CUgreenCtx g, CUcontext c, Device d, int sms)
      : green(g), context(c), device(d), sm_count(sms) {}
  GreenContextState(const GreenContextState&) = delete;
  GreenContextState& operator=(const GreenContextState&) = delete;
  ~GreenContextState() {
    if (const DriverApi* api = g_driver_api.load(std::memory_order_acquire))
      if (api->cuGreenCtxDestroy) api->cuGreenCtxDestroy(green);
  }
};

}  // namespace detail

namespace {

constexpr const char* kWhat = "green contexts";

CUdevResource device_sms(const detail::DeviceState& s) {
  const detail::DriverApi& api = detail::driver();
  auto get = detail::require(api.cuDeviceGetDevResource, kWhat, "cuDeviceGetDevResource", 12040);
  CUdevResource res = {};
  CUresult r = get(s.handle, &res, CU_DEV_RESOURCE_TYPE_SM);
  if (r != CUDA_SUCCESS) detail::throw_cuda_error(r, "cuDeviceGetDevResource(" + s.label + ", SM)");
  return res;
}

std::shared_ptr<detail::GreenContextState> make_green(const detail::DeviceState& s, Device device,
                                                      CUdevResource& resource) {
  const detail::DriverApi& api = detail::driver();
  auto gen = detail::require(api.cuDevResourceGenerateDesc, kWhat, "cuDevResourceGenerateDesc", 12040);
  auto create = detail::require(api.cuGreenCtxCreate, kWhat, "cuGreenCtxCreate", 12040);
  auto convert = detail::require(api.cuCtxFromGreenCtx, kWhat, "cuCtxFromGreenCtx", 12040);
  detail::ensure_current(s);  // the primary context exists, as cuGreenCtxCreate advises
  CUdevResourceDesc desc = nullptr;
  CUresult r = gen(&desc, &resource, 1);
  if (r != CUDA_SUCCESS) detail::throw_cuda_error(r, "cuDevResourceGenerateDesc(" + s.label + ")");
  CUgreenCtx green = nullptr;
  r = create(&green, desc, s.handle, CU_GREEN_CTX_DEFAULT_STREAM);
  if (r != CUDA_SUCCESS)
    detail::throw_cuda_error(r, "cuGreenCtxCreate(" + s.label + ", " +
                                    std::to_string(resource.sm.smCount) + " SMs)");
  CUcontext context = nullptr;
  r = convert(&context, green);
  if (r != CUDA_SUCCESS) {
    if (api.cuGreenCtxDestroy) api.cuGreenCtxDestroy(green);
    detail::throw_cuda_error(r, "cuCtxFromGreenCtx(" + s.label + ")");
  }
  return std::make_shared<detail::GreenContextState>(green, context, device,
                                                     static_cast<int>(resource.sm.smCount));
}

}  // namespace

SmPartitioning GreenContext::sm_partitioning(Device device) {
  const CUdevResource res = device_sms(detail::device_state(device.ordinal()));
  return {static_cast<int>(res.sm.smCount), static_cast<int>(res.sm.minSmPartitionSize),
          static_cast<int>(res.sm.smCoscheduledAlignment)};
}

std::vector<GreenContext> GreenContext::split(Device device, int groups, int min_sms_per_group,
                                              GreenContext* remainder) {
  const detail::DeviceState& s = detail::device_state(device.ordinal());
  if (groups < 1 || min_sms_per_group < 1)
    throw Error("GreenContext::split: " + std::to_string(groups) + " groups of " +
                std::to_string(min_sms_per_group) + " SMs; ask for at least one group of at least one SM");
  CUdevResource input = device_sms(s);
  auto split_fn = detail::require(detail::driver().cuDevSmResourceSplitByCount, kWhat,
                                  "cuDevSmResourceSplitByCount", 12040);
  std::vector<CUdevResource> parts(static_cast<std::size_t>(groups));
  CUdevResource rest = {};
  unsigned got = static_cast<unsigned>(groups);
  CUresult r = split_fn(parts.data(), &got, &input, &rest, 0, static_cast<unsigned>(min_sms_per_group));
  if (r != CUDA_SUCCESS)
    detail::throw_cuda_error(r, "cuDevSmResourceSplitByCount(" + s.label + ", " + std::to_string(groups) +
                                    " x " + std::to_string(min_sms_per_group) + " SMs)",
                             s.label + " has " + std::to_string(input.sm.smCount) +
                                 " SMs, partitioned in steps of " + std::to_string(input.sm.smCoscheduledAlignment) +
                                 " (at least " + std::to_string(input.sm.minSmPartitionSize) + " per partition)");
  if (got < static_cast<unsigned>(groups))
    throw Error("GreenContext::split: " + s.label + " has " + std::to_string(input.sm.smCount) +
                " SMs, which hold only " + std::to_string(got) + " partitions of at least " +
                std::to_string(min_sms_per_group) + " SMs (sizes are rounded up to multiples of " +
                std::to_string(input.sm.smCoscheduledAlignment) + "), not " + std::to_string(groups) +
                "; ask for fewer or smaller partitions");
  std::vector<GreenContext> out;
  for (CUdevResource& part : parts) out.push_back(GreenContext(make_green(s, device, part)));
  if (remainder)
    *remainder = rest.sm.smCount > 0 ? GreenContext(make_green(s, device, rest)) : GreenContext();
  return out;
}

GreenContext GreenContext::create(Device device, int min_sms) { return split(device, 1, min_sms).front(); }

const detail::GreenContextState& GreenContext::require(const char* op) const {
  if (!state_) throw Error(std::string("GreenContext::") + op + " on an invalid (default-made) GreenContext");
  return *state_;
}

Device GreenContext::device() const { return require("device").device; }

int GreenContext::sm_count() const { return require("sm_count").sm_count; }

void* GreenContext::handle() const { return require("handle").green; }

void* GreenContext::context() const { return require("context").context; }

Stream GreenContext::create_stream(StreamOptions options) const {
  const detail::GreenContextState& g = require("create_stream");
  const detail::DeviceState& s = detail::device_state(g.device.ordinal());
  auto create = detail::require(detail::driver().cuGreenCtxStreamCreate, kWhat, "cuGreenCtxStreamCreate", 12050);
  CUstream stream = nullptr;
  // Green-context streams must be non-blocking; options.non_blocking is ignored.
  CUresult r = create(&stream, g.green, CU_STREAM_NON_BLOCKING, options.priority);
  if (r != CUDA_SUCCESS)
    detail::throw_cuda_error(r, "cuGreenCtxStreamCreate(" + s.label + ", " + std::to_string(g.sm_count) + " SMs)");
  // The deleter holds the green context until the stream is destroyed.
  std::shared_ptr<detail::GreenContextState> keep_green = state_;
  std::shared_ptr<void> keep(stream, [keep_green](void* p) {
    if (const detail::DriverApi* api = detail::g_driver_api.load(std::memory_order_acquire))
      api->cuStreamDestroy(static_cast<CUstream>(p));
  });
  return detail::StreamAccess::make(stream, g.device, true, g.green, g.context, std::move(keep));
}

}  // namespace cutlet
