// Kernels over iterators: the iterators' parameters appended to a kernel's own, and their
// host arguments to its launch.
#pragma once

#include <tuple>
#include <type_traits>
#include <utility>

#include "cutlet/runtime/launch.h"
#include "cutlet/runtime/stream.h"

namespace cutlet::algorithms::detail {

/// Calls make.template operator()<P...>() for the kernel parameter types P... of tuple type
/// Params: how an algorithm writes a kernel lambda whose parameter list ends with an
/// iterator's parameters, e.g.
///   with_params<It::Params>([]<class... P>() { return kernel([](Ptr<T> out, P... p) {...}); })
template <class Params, class Make>
auto with_params(const Make& make) {
  return [&]<class... P>(std::type_identity<std::tuple<P...>>) {
    return make.template operator()<P...>();
  }(std::type_identity<Params>{});
}

/// Launches `kernel` on `stream` with `config` and the arguments `lead...` followed by the
/// host arguments of each iterator in `its` (a std::tuple of iterators), in order.
template <class Kernel, class Iterators, class... Lead>
void launch_over(Kernel& kernel, const Stream& stream, const LaunchConfig& config, const Iterators& its,
                 const Lead&... lead) {
  auto arguments = std::apply([](const auto&... it) { return std::tuple_cat(it.arguments()...); }, its);
  std::apply([&](const auto&... a) { kernel.launch(stream, config, lead..., a...); }, arguments);
}

}  // namespace cutlet::algorithms::detail
