// Internal: line tables (DWARF line info) mapping generated code to the user's source lines.
#pragma once

#include <map>
#include <memory>
#include <string>

#include <llvm/IR/DIBuilder.h>
#include <llvm/IR/IRBuilder.h>

#include "cutlet/ir/function.h"

namespace cutlet::backend {

/// Builds a line-tables-only compile unit and subprogram for a kernel and hands out a
/// DILocation for each IR location. Nothing is emitted for kernels without locations.
class DebugInfo {
 public:
  /// Starts debug info for `kernel` in `module`, attributed to the first known location of `fn`.
  DebugInfo(llvm::Module& module, llvm::Function& kernel, const ir::Function& fn);
  ~DebugInfo();

  /// Sets `b`'s current debug location to `loc` (or the kernel's own line when unknown).
  void set_location(llvm::IRBuilder<>& b, ir::Location loc);
  /// Finishes the debug info; call once after lowering.
  void finalize();

 private:
  llvm::DIFile* file(const std::string& path);
  llvm::DIBuilder builder_;
  llvm::DISubprogram* subprogram_ = nullptr;
  llvm::DIFile* main_file_ = nullptr;
  unsigned default_line_ = 1;
  std::map<std::string, llvm::DIFile*> files_;
  std::map<std::string, llvm::DILexicalBlockFile*> scopes_;
};

}  // namespace cutlet::backend
