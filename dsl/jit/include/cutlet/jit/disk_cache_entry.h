// The file format of one persistent kernel cache entry: header, key, checksummed payload.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "cutlet/backend/compiler.h"

namespace cutlet::detail {

/// The first 8 bytes of every entry.
inline constexpr char kEntryMagic[8] = {'C', 'U', 'T', 'L', 'E', 'T', 'K', 'C'};
/// Bumped whenever the layout changes; entries of another version are ignored and rewritten.
inline constexpr std::uint32_t kEntryFormatVersion = 2;
/// Bytes before the key text: magic, version, reserved, key length, payload length, checksum.
inline constexpr std::size_t kEntryHeaderBytes = 40;

/// What an entry holds besides its key.
struct EntryPayload {
  CompiledKernel kernel;       ///< name, PTX, cubin, logs, resource use, stage timings
  double compile_ms = 0;       ///< how long the original compile took (the time a hit saves)
  std::int64_t created_unix = 0;  ///< when it was compiled (seconds since the epoch)
};

/// Why an entry cannot be used.
enum class EntryProblem { None, Truncated, BadMagic, BadVersion, BadChecksum, WrongKey, Malformed };
/// "truncated", "checksum mismatch", ... for messages.
const char* describe(EntryProblem p);

/// The bytes of an entry for key text `key` (layout: the 8-byte magic, u32 format version,
/// u32 zero, u64 key length, u64 payload length, u64 checksum of key and payload, then the
/// key text and the payload; native byte order, since a cache serves one machine).
std::string encode_entry(const std::string& key, const EntryPayload& payload);

/// A decoded entry, or the problem that stopped decoding.
struct DecodedEntry {
  EntryProblem problem = EntryProblem::None;
  std::string key;
  EntryPayload payload;
};
/// Decodes `bytes`, checking the magic, version, exact length and checksum; with
/// `expected_key`, an entry for any other key is WrongKey. Never throws for bad input.
DecodedEntry decode_entry(std::string_view bytes, const std::string* expected_key = nullptr);

}  // namespace cutlet::detail
