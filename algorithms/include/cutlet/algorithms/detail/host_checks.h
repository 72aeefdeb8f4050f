// The host-side checks the algorithms make on their arguments before launching.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/device.h"
#include "cutlet/runtime/stream.h"

namespace cutlet::algorithms::detail {

/// Throws Error naming `algorithm` when its `n` elements exceed `max_count`, the most it
/// takes (over several launches: reduce, the scans).
void check_count(std::size_t n, std::int64_t max_count, const char* algorithm);

/// `n` elements as the kernels' i32 count; throws Error naming `algorithm` when n exceeds
/// `max_count`.
std::int32_t checked_count(std::size_t n, std::int64_t max_count, const char* algorithm);
/// As checked_count, for `n` of `what` ("segments") rather than elements.
std::int32_t checked_count(std::size_t n, std::int64_t max_count, const char* algorithm, const char* what);

/// Throws Error naming `algorithm` and `which` buffer unless `address` is 16-byte aligned,
/// as the kernels' vector loads and stores need (every Buffer allocated by cutlet is; a
/// Buffer::wrap of an offset address may not be).
void check_aligned(std::uint64_t address, const char* algorithm, const char* which);
/// As check_aligned, for accesses of `bytes` (a power of two) rather than 16-byte vectors:
/// the 8- or 16-byte loads of a struct's words.
void check_aligned(std::uint64_t address, std::size_t bytes, const char* algorithm, const char* which);

/// Throws Error naming `algorithm` and `which` buffer unless it holds at least `need`
/// elements (`have`).
void check_size(std::size_t have, std::size_t need, const char* algorithm, const char* which);

/// Throws Error naming `algorithm` and `which` buffer unless a buffer of `buffer_device`
/// belongs to `stream`'s device.
void check_device(const Device& buffer_device, const Stream& stream, const char* algorithm, const char* which);

/// Throws Error naming `algorithm` when the byte ranges [a, a + a_bytes) and [b, b + b_bytes)
/// of buffers named `a_name` and `b_name` share bytes (empty ranges share none).
void check_disjoint(std::uint64_t a, std::size_t a_bytes, std::uint64_t b, std::size_t b_bytes, const char* algorithm,
                    const char* a_name, const char* b_name);

/// As check_disjoint over the whole of buffers `a` and `b`.
template <class T, class U>
void check_disjoint(const Buffer<T>& a, const Buffer<U>& b, const char* algorithm, const char* a_name,
                    const char* b_name) {
  check_disjoint(a.data(), a.size() * sizeof(T), b.data(), b.size() * sizeof(U), algorithm, a_name, b_name);
}

}  // namespace cutlet::algorithms::detail
