// The identity of the loaded nvJitLink build: the GNU build id in its mapped ELF notes, else
// its file's path, size and modification time.
#include <elf.h>
#include <link.h>
#include <sys/stat.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cutlet/runtime/linker.h"
#include "nvjitlink_api.h"

namespace cutlet {
namespace {

/// The loaded object found to hold nvJitLink.
struct Found {
  bool found = false;
  std::string build_id;  ///< hex digits; empty when the object has none
  std::string file;      ///< its path as the loader has it ("" for the main program)
};

bool is_nvjitlink_library(const char* name) {
  if (!name || !*name) return false;
  const char* base = std::strrchr(name, '/');
  return std::strncmp(base ? base + 1 : name, "libnvJitLink", 12) == 0;
}

bool contains(const dl_phdr_info& info, std::uintptr_t address) {
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info.dlpi_phdr[i];
    const std::uintptr_t start = info.dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && address >= start && address - start < ph.p_memsz) return true;
  }
  return false;
}

/// The NT_GNU_BUILD_ID note of a loaded object, as hex digits ("" when none).
std::string gnu_build_id(const dl_phdr_info& info) {
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info.dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const std::size_t align = ph.p_align == 8 ? 8 : 4;
    const auto round = [align](std::size_t n) { return (n + align - 1) & ~(align - 1); };
    const auto* p = reinterpret_cast<const unsigned char*>(info.dlpi_addr + ph.p_vaddr);
    std::size_t at = 0;
    while (at + sizeof(ElfW(Nhdr)) <= ph.p_memsz) {
      ElfW(Nhdr) note;
      std::memcpy(&note, p + at, sizeof note);
      const std::size_t name_at = at + sizeof note, desc_at = name_at + round(note.n_namesz);
      const std::size_t next = desc_at + round(note.n_descsz);
      if (next > ph.p_memsz || next <= at) break;
      if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 && std::memcmp(p + name_at, "GNU", 4) == 0) {
        static const char* digits = "0123456789abcdef";
        std::string hex;
        for (std::size_t k = 0; k < note.n_descsz; ++k) {
          hex += digits[p[desc_at + k] >> 4];
          hex += digits[p[desc_at + k] & 15];
        }
        return hex;
      }
      at = next;
    }
  }
  return {};
}

/// Looks for the nvJitLink shared library by name, then for the object whose code holds
/// nvJitLinkVersion; either way, the library opened for Linker (toolkit_apis.cpp).
Found find_nvjitlink() {
  struct Search {
    std::uintptr_t symbol;
    bool by_name;
    Found result;
  } search{reinterpret_cast<std::uintptr_t>(detail::nvjitlink().nvJitLinkVersion), true, {}};
  const auto visit = [](dl_phdr_info* info, std::size_t, void* data) -> int {
    auto& s = *static_cast<Search*>(data);
    if (s.by_name ? !is_nvjitlink_library(info->dlpi_name) : !contains(*info, s.symbol)) return 0;
    s.result = {true, gnu_build_id(*info), info->dlpi_name ? info->dlpi_name : ""};
    return 1;
  };
  dl_iterate_phdr(visit, &search);
  if (!search.result.found) {
    search.by_name = false;
    dl_iterate_phdr(visit, &search);
  }
  return search.result;
}

std::string file_identity(std::string path) {
  if (path.empty()) path = "/proc/self/exe";  // the main program
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved)) path = resolved;
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) return "unknown";
  const std::int64_t mtime_ns = std::int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
  return "file:" + path + ":" + std::to_string(st.st_size) + ":" + std::to_string(mtime_ns);
}

}  // namespace

std::string Linker::library_build_id() {
  static const std::string id = [] {
    if (!detail::nvjitlink_available()) return std::string("unavailable");
    const Found f = find_nvjitlink();
    if (!f.found) return std::string("unknown");
    if (!f.build_id.empty()) return "gnu-build-id:" + f.build_id;
    return file_identity(f.file);
  }();
  return id;
}

}  // namespace cutlet
