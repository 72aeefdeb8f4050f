// Iterators: sequences an algorithm reads (or writes) element by element, traced into its
// kernel, so that a computed input (a counter, a transform of a buffer, a gather) costs no
// buffer of its own and no pass of its own (Thrust's and cuda.compute's fancy iterators).
//
// An iterator is a small host object holding the kernel arguments it needs (buffers, scalars)
// and a static function that, traced inside the algorithm's kernel, turns an index into a
// value. Iterators compose: transform_iterator(zip_iterator(a, b), op) reads a[i] and b[i]
// and applies op to them, permutation_iterator(values, indices) reads values[indices[i]].
#pragma once

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "cutlet/algorithms/detail/held.h"
#include "cutlet/algorithms/element.h"
#include "cutlet/jit/signature.h"
#include "cutlet/language/pointer.h"
#include "cutlet/language/value.h"
#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/device.h"

namespace cutlet::algorithms {

namespace detail {

template <class Arguments>
struct params_of;
template <class... A>
struct params_of<std::tuple<A...>> {
  // The kernel parameter type of each host argument, as a launch maps it: Buffer<T> ->
  // Ptr<T>, a scalar T -> Value<T>.
  using type = std::tuple<typename cutlet::detail::param_of<A>::type...>;
};

/// The kernel parameters (a std::tuple of Ptr and Value) of an iterator's host arguments.
template <class Arguments>
using params_of_t = typename params_of<Arguments>::type;

/// The tuple of the elements of tuple types Ts, in order.
template <class... Ts>
using tuple_cat_t = decltype(std::tuple_cat(std::declval<Ts>()...));

/// Elements [First, First + Count) of tuple `t`, as a tuple.
template <std::size_t First, std::size_t Count, class Tuple>
auto tuple_slice(const Tuple& t) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return std::tuple<std::tuple_element_t<First + I, Tuple>...>(std::get<First + I>(t)...);
  }(std::make_index_sequence<Count>{});
}

/// The element type of the value an operator returns: T for Value<T> (and for what derives
/// from it); void for anything else.
template <class R>
struct traced_element {
  using type = void;
};
template <class T>
struct traced_element<Value<T>> {
  using type = T;
};
template <class R>
  requires(!std::is_same_v<std::remove_cvref_t<R>, R>)
struct traced_element<R> : traced_element<std::remove_cvref_t<R>> {};

/// Where a buffer's elements are, as iterators keep it: they never own memory, and stay
/// copyable (a Buffer is move-only). view() is a borrowed Buffer of them, for a launch.
template <class T>
struct BufferRef {
  explicit BufferRef(const Buffer<T>& b) : address(b.data()), size(b.size()), device(b.device()) {}
  Buffer<T> view() const { return Buffer<T>::wrap(address, size, device); }
  std::uint64_t address;
  std::size_t size;
  Device device;
};

}  // namespace detail

/// An iterator type It: `It::Arguments` is a std::tuple of the host kernel arguments it
/// holds (Buffers and scalars), `arguments()` returns them, and `It::Params` is their kernel
/// parameter types (detail::params_of_t<Arguments>).
template <class It>
concept Iterator = requires(const It& it) {
  typename It::Arguments;
  typename It::Params;
  { it.arguments() } -> std::same_as<typename It::Arguments>;
};

/// An iterator an algorithm can read: It::read(params, i) gives element i (an i64 index) as a
/// Value<It::value_type>, traced into the kernel; value_type is an algorithm Element.
template <class It>
concept InputIterator = Iterator<It> && Element<typename It::value_type> &&
                        requires(const typename It::Params& p, const i64& i) {
                          { It::read(p, i) } -> std::convertible_to<Value<typename It::value_type>>;
                        };

/// An iterator whose elements can be read, as Values or (a ZipIterator) as a tuple of them:
/// what transform and transform_iterator take.
template <class It>
concept ReadableIterator = Iterator<It> && requires(const typename It::Params& p, const i64& i) { It::read(p, i); };

/// An iterator an algorithm can write: It::write(params, i, v) stores v (a
/// Value<It::value_type>, or a Struct value for a StructBufferIterator) as element i, traced
/// into the kernel.
template <class It>
concept OutputIterator = Iterator<It> && ElementOrStruct<typename It::value_type> &&
                         requires(const typename It::Params& p, const i64& i,
                                  const detail::held_t<typename It::value_type>& v) { It::write(p, i, v); };

/// A buffer read and written in place: element i is buffer[i] (no bounds check: the algorithm
/// reads the n elements it is given).
template <Element T>
class BufferIterator {
 public:
  using value_type = T;
  using Arguments = std::tuple<Buffer<T>>;
  using Params = detail::params_of_t<Arguments>;
  explicit BufferIterator(const Buffer<T>& b) : buffer_(b) {}
  Arguments arguments() const { return Arguments{buffer_.view()}; }
  static Value<T> read(const Params& p, const i64& i) { return std::get<0>(p)[i].load(); }
  static void write(const Params& p, const i64& i, const Value<T>& v) { std::get<0>(p)[i] = v; }

 private:
  detail::BufferRef<T> buffer_;
};

/// A buffer of user structs (a StructElement) read and written in place: element i is the
/// struct value (Struct<S>) of buffer[i], its words loaded together where its size allows (8
/// or 16 bytes), else one word at a time. What transform reads and writes for a Buffer<S>,
/// and what a permutation_iterator of structs gathers from.
template <StructElement S>
class StructBufferIterator {
 public:
  using value_type = S;
  using Arguments = std::tuple<Buffer<std::uint32_t>>;
  using Params = detail::params_of_t<Arguments>;
  explicit StructBufferIterator(const Buffer<S>& b) : buffer_(b) {}
  Arguments arguments() const { return Arguments{detail::storage_view(buffer_.view())}; }
  static Struct<S> read(const Params& p, const i64& i) { return detail::load_held<S>(std::get<0>(p), i); }
  static void write(const Params& p, const i64& i, const Struct<S>& v) { detail::store_held<S>(std::get<0>(p), i, v); }

 private:
  detail::BufferRef<S> buffer_;
};

/// A buffer read with a cache hint (CUB's CacheModifiedInputIterator): CacheHint::Streaming
/// (ld.global.cs) for data read once, ReadOnly (ld.global.nc) for data no thread writes
/// during the kernel, CacheGlobal (ld.global.cg) to bypass L1, LastUse (ld.global.lu).
template <CacheHint Hint, Element T>
class CacheModifiedIterator {
 public:
  using value_type = T;
  using Arguments = std::tuple<Buffer<T>>;
  using Params = detail::params_of_t<Arguments>;
  explicit CacheModifiedIterator(const Buffer<T>& b) : buffer_(b) {}
  Arguments arguments() const { return Arguments{buffer_.view()}; }
  static Value<T> read(const Params& p, const i64& i) { return std::get<0>(p).load(i, Hint); }

 private:
  detail::BufferRef<T> buffer_;
};

/// start, start + 1, start + 2, ...: element i is start + T(i).
template <Element T>
class CountingIterator {
 public:
  using value_type = T;
  using Arguments = std::tuple<T>;
  using Params = detail::params_of_t<Arguments>;
  explicit CountingIterator(T start) : start_(start) {}
  Arguments arguments() const { return Arguments{start_}; }
  static Value<T> read(const Params& p, const i64& i) { return std::get<0>(p) + cast<T>(i); }

 private:
  T start_;
};

/// The same value at every index.
template <Element T>
class ConstantIterator {
 public:
  using value_type = T;
  using Arguments = std::tuple<T>;
  using Params = detail::params_of_t<Arguments>;
  explicit ConstantIterator(T value) : value_(value) {}
  Arguments arguments() const { return Arguments{value_}; }
  static Value<T> read(const Params& p, const i64&) { return std::get<0>(p); }

 private:
  T value_;
};

/// Writes nothing: element i of the output is dropped (for outputs an algorithm must have but
/// the caller does not want).
template <Element T>
class DiscardIterator {
 public:
  using value_type = T;
  using Arguments = std::tuple<>;
  using Params = std::tuple<>;
  Arguments arguments() const { return {}; }
  static void write(const Params&, const i64&, const Value<T>&) {}
};

/// Several iterators read in step: element i is the std::tuple of their elements i. Its
/// elements are not algorithm elements: read it through a transform_iterator, whose operator
/// takes them as separate arguments.
template <InputIterator... Its>
class ZipIterator {
 public:
  using Arguments = detail::tuple_cat_t<typename Its::Arguments...>;
  using Params = detail::params_of_t<Arguments>;
  explicit ZipIterator(const Its&... its) : its_(its...) {}
  Arguments arguments() const {
    return std::apply([](const auto&... it) { return std::tuple_cat(it.arguments()...); }, its_);
  }
  /// The elements i of every iterator, a std::tuple of Values.
  static auto read(const Params& p, const i64& i) { return read_from<0, Its...>(p, i); }

 private:
  template <std::size_t First, class It, class... Rest>
  static auto read_from(const Params& p, const i64& i) {
    constexpr std::size_t count = std::tuple_size_v<typename It::Params>;
    auto mine = std::make_tuple(Value<typename It::value_type>(It::read(
        detail::tuple_slice<First, count>(p), i)));
    if constexpr (sizeof...(Rest) == 0) return mine;
    else return std::tuple_cat(mine, read_from<First + count, Rest...>(p, i));
  }
  std::tuple<Its...> its_;
};

namespace detail {

/// Out(op(x)) for an element x read from iterator It (a VecElement's as its Vec), or
/// Out(op(x0, x1, ...)) for the tuple of elements a ZipIterator reads.
template <class Out, class It, class Op, class X>
held_t<Out> apply_op(const Op& op, const X& x) {
  if constexpr (requires { std::tuple_size<X>::value; }) {
    return held_of_result<Out>(std::apply([&](const auto&... v) { return op(v...); }, x));
  } else {
    using In = typename It::value_type;
    return held_of_result<Out>(op(op_arg_of<In>(held_t<In>(x))));
  }
}

/// What op returns for an element of iterator It (for a ZipIterator, for its elements as
/// separate arguments).
template <class It, class Op>
struct transform_result {
  using type = decltype(std::declval<const Op&>()(std::declval<op_arg_t<typename It::value_type>>()));
};
template <class... Its, class Op>
struct transform_result<ZipIterator<Its...>, Op> {
  using type = decltype(std::declval<const Op&>()(std::declval<Value<typename Its::value_type>>()...));
};

}  // namespace detail

/// op applied to the elements of an iterator: element i is Out(op(it[i])), or for a
/// ZipIterator Out(op(a[i], b[i], ...)). `op` is stateless (a captureless lambda or an empty
/// struct), traced into the algorithm's kernel.
template <Element Out, class It, class Op>
class TransformIterator {
 public:
  using value_type = Out;
  using Arguments = typename It::Arguments;
  using Params = typename It::Params;
  explicit TransformIterator(const It& it) : it_(it) {}
  Arguments arguments() const { return it_.arguments(); }
  static Value<Out> read(const Params& p, const i64& i) { return detail::apply_op<Out, It>(Op{}, It::read(p, i)); }

 private:
  It it_;
};

/// values[indices[i]]: a gather when read, a scatter when written (the indices of an
/// integer Element type; for a scatter they should be distinct).
template <class Values, InputIterator Indices>
  requires std::is_integral_v<typename Indices::value_type>
class PermutationIterator {
 public:
  using value_type = typename Values::value_type;
  using Arguments = detail::tuple_cat_t<typename Values::Arguments, typename Indices::Arguments>;
  using Params = detail::params_of_t<Arguments>;
  PermutationIterator(const Values& values, const Indices& indices) : values_(values), indices_(indices) {}
  Arguments arguments() const { return std::tuple_cat(values_.arguments(), indices_.arguments()); }
  static detail::held_t<value_type> read(const Params& p, const i64& i)
    requires InputIterator<Values> || StructElement<value_type>
  {
    return Values::read(values_part(p), index(p, i));
  }
  static void write(const Params& p, const i64& i, const detail::held_t<value_type>& v)
    requires OutputIterator<Values>
  {
    Values::write(values_part(p), index(p, i), v);
  }

 private:
  static constexpr std::size_t kValueParams = std::tuple_size_v<typename Values::Params>;
  static auto values_part(const Params& p) { return detail::tuple_slice<0, kValueParams>(p); }
  static i64 index(const Params& p, const i64& i) {
    constexpr std::size_t count = std::tuple_size_v<typename Indices::Params>;
    return cast<std::int64_t>(Value<typename Indices::value_type>(
        Indices::read(detail::tuple_slice<kValueParams, count>(p), i)));
  }
  Values values_;
  Indices indices_;
};

/// The n elements of an iterator back to front: element i is it[n - 1 - i].
template <class It>
class ReverseIterator {
 public:
  using value_type = typename It::value_type;
  using Arguments = detail::tuple_cat_t<typename It::Arguments, std::tuple<std::int64_t>>;
  using Params = detail::params_of_t<Arguments>;
  ReverseIterator(const It& it, std::size_t n) : it_(it), last_(static_cast<std::int64_t>(n) - 1) {}
  Arguments arguments() const { return std::tuple_cat(it_.arguments(), std::tuple<std::int64_t>(last_)); }
  static Value<value_type> read(const Params& p, const i64& i)
    requires InputIterator<It>
  {
    return It::read(inner(p), last(p) - i);
  }
  static void write(const Params& p, const i64& i, const Value<value_type>& v)
    requires OutputIterator<It>
  {
    It::write(inner(p), last(p) - i, v);
  }

 private:
  static constexpr std::size_t kInner = std::tuple_size_v<typename It::Params>;
  static auto inner(const Params& p) { return detail::tuple_slice<0, kInner>(p); }
  static i64 last(const Params& p) { return std::get<kInner>(p); }
  It it_;
  std::int64_t last_;
};

namespace detail {

template <class X>
struct is_buffer_arg : std::false_type {};
template <class T>
struct is_buffer_arg<Buffer<T>> : std::true_type {};

}  // namespace detail

/// A Buffer as a BufferIterator (a StructBufferIterator for a buffer of structs); an
/// iterator as itself.
template <class X>
auto as_iterator(const X& x) {
  if constexpr (detail::is_buffer_arg<X>::value) {
    if constexpr (StructElement<typename X::element_type>) return StructBufferIterator<typename X::element_type>(x);
    else return BufferIterator<typename X::element_type>(x);
  } else {
    return x;
  }
}

/// What as_iterator gives for X.
template <class X>
using iterator_of_t = decltype(as_iterator(std::declval<const X&>()));

/// The iterator start, start + 1, ... (of T).
template <Element T>
CountingIterator<T> counting_iterator(T start) {
  return CountingIterator<T>(start);
}

/// The iterator whose every element is `value`.
template <Element T>
ConstantIterator<T> constant_iterator(T value) {
  return ConstantIterator<T>(value);
}

/// The iterator that drops what is written to it.
template <Element T>
DiscardIterator<T> discard_iterator() {
  return DiscardIterator<T>();
}

/// `buffer` read with cache hint Hint.
template <CacheHint Hint, Element T>
CacheModifiedIterator<Hint, T> cache_modified_iterator(const Buffer<T>& buffer) {
  return CacheModifiedIterator<Hint, T>(buffer);
}

/// Buffers and iterators read in step (ZipIterator).
template <class... Xs>
auto zip_iterator(const Xs&... xs) {
  return ZipIterator<iterator_of_t<Xs>...>(as_iterator(xs)...);
}

/// op over the elements of a Buffer or iterator (TransformIterator). Out, the element type of
/// the result, is deduced when op returns a Value (f32, i32, ...); name it otherwise:
/// transform_iterator<float>(x, op).
template <class Out = void, class X, class Op>
auto transform_iterator(const X& x, Op) {
  using It = iterator_of_t<X>;
  if constexpr (std::is_void_v<Out>) {
    using Deduced = typename detail::traced_element<typename detail::transform_result<It, Op>::type>::type;
    static_assert(!std::is_void_v<Deduced>,
                  "cutlet::algorithms::transform_iterator: the operator does not return a Value; name the element "
                  "type it gives, e.g. transform_iterator<float>(x, op)");
    return TransformIterator<Deduced, It, Op>(as_iterator(x));
  } else {
    return TransformIterator<Out, It, Op>(as_iterator(x));
  }
}

/// values[indices[i]] over a Buffer or iterator of values and one of integer indices
/// (PermutationIterator).
template <class V, class I>
auto permutation_iterator(const V& values, const I& indices) {
  return PermutationIterator<iterator_of_t<V>, iterator_of_t<I>>(as_iterator(values), as_iterator(indices));
}

/// The first n elements of a Buffer or iterator back to front (ReverseIterator).
template <class X>
auto reverse_iterator(const X& x, std::size_t n) {
  return ReverseIterator<iterator_of_t<X>>(as_iterator(x), n);
}

}  // namespace cutlet::algorithms
