// Reading a kernel's resource use from its cubin (an ELF file): what the linker's report says,
// for links whose report is empty (nvJitLink answers from its own cache of earlier links
// without running ptxas, and so without the "Used N registers" lines).
#include <cstdint>
#include <cstring>
#include <string>

#include "cutlet/backend/compiler.h"

namespace cutlet {
namespace {

template <class T>
bool read(const std::vector<char>& bytes, std::uint64_t at, T& out) {
  if (at > bytes.size() || bytes.size() - at < sizeof(T)) return false;
  std::memcpy(&out, bytes.data() + at, sizeof(T));
  return true;
}

}  // namespace

ResourceUsage cubin_resource_usage(const std::vector<char>& cubin, const std::string& kernel) {
  ResourceUsage u;
  // ELF64, little-endian: e_shoff at 0x28, e_shentsize at 0x3a, e_shnum at 0x3c, e_shstrndx at 0x3e.
  if (cubin.size() < 0x40 || std::memcmp(cubin.data(), "\x7f" "ELF", 4) != 0 || cubin[4] != 2) return u;
  std::uint64_t shoff = 0;
  std::uint16_t shentsize = 0, shnum = 0, shstrndx = 0;
  if (!read(cubin, 0x28, shoff) || !read(cubin, 0x3a, shentsize) || !read(cubin, 0x3c, shnum) ||
      !read(cubin, 0x3e, shstrndx) || shentsize < 0x40 || shstrndx >= shnum)
    return u;
  // A section header: sh_name at 0, sh_offset at 0x18, sh_size at 0x20, sh_info at 0x2c.
  auto header = [&](std::uint16_t i) { return shoff + std::uint64_t{i} * shentsize; };
  std::uint64_t names_at = 0, names_size = 0;
  if (!read(cubin, header(shstrndx) + 0x18, names_at) || !read(cubin, header(shstrndx) + 0x20, names_size) ||
      names_at > cubin.size() || cubin.size() - names_at < names_size)
    return u;
  // Sections by name: the kernel's code, its shared and constant banks, the attribute table.
  std::uint32_t text_info = 0;
  bool have_text = false;
  std::uint64_t info_at = 0, info_size = 0;
  for (std::uint16_t i = 0; i < shnum; ++i) {
    std::uint32_t name = 0, info = 0;
    std::uint64_t at = 0, size = 0;
    if (!read(cubin, header(i), name) || !read(cubin, header(i) + 0x18, at) || !read(cubin, header(i) + 0x20, size) ||
        !read(cubin, header(i) + 0x2c, info) || name >= names_size)
      return u;
    const char* s = cubin.data() + names_at + name;
    const std::string section(s, strnlen(s, names_size - name));
    if (section == ".text." + kernel) text_info = info, have_text = true;
    if (section == ".nv.shared." + kernel) u.shared_bytes = static_cast<int>(size);
    if (section == ".nv.constant0." + kernel) u.constant_bytes = static_cast<int>(size);
    if (section == ".nv.info") info_at = at, info_size = size;
  }
  if (!have_text) return u;
  // Up to sm_8x the register count is the top byte of the code section's sh_info (the rest is
  // the function's symbol); from sm_90 it is the function's EIATTR_REGCOUNT in .nv.info, whose
  // entries are {format, attribute, data}: format 4 holds a 16-bit size and that many bytes
  // (here the symbol and the value, 32 bits each), 3 a 16-bit value, 2 a byte, 1 nothing.
  if ((text_info >> 24) != 0) {
    u.registers = static_cast<int>(text_info >> 24);
    return u;
  }
  const std::uint32_t symbol = text_info & 0xffffff;
  constexpr std::uint8_t kRegCount = 0x2f, kFrameSize = 0x11;
  if (info_at > cubin.size() || cubin.size() - info_at < info_size) return u;
  for (std::uint64_t at = info_at; at + 2 <= info_at + info_size;) {
    const auto format = static_cast<std::uint8_t>(cubin[at]), attribute = static_cast<std::uint8_t>(cubin[at + 1]);
    at += 2;
    std::uint16_t size = 0;
    if (format == 4) {
      if (!read(cubin, at, size)) return u;
      at += 2;
    } else {
      size = format == 3 ? 2 : format == 2 ? 1 : 0;
    }
    std::uint32_t sym = 0, value = 0;
    if (format == 4 && size == 8 && read(cubin, at, sym) && read(cubin, at + 4, value) && sym == symbol) {
      if (attribute == kRegCount) u.registers = static_cast<int>(value);
      if (attribute == kFrameSize) u.stack_bytes = static_cast<int>(value);
    }
    at += size;
  }
  return u;
}

}  // namespace cutlet
