// Internal: line tables (DWARF line info) mapping generated code to the user's source lines.
#pragma once

#include <map>
#include <memory>
#include <string>

#include <llvm/IR/DIBuilder.h>
#include <llvm/IR/IRBuilder.h>

#include "cutlet/ir/function.h"

namespace cutlet::backend {

/// Builds a compile unit and subprogram for a kernel and hands out a DILocation for each IR
/// location: line tables only, or (`variables`, for the host, where debuggers read them) with
/// the kernel's variables described too. Nothing is emitted for kernels without locations.
class DebugInfo {
 public:
  /// Starts debug info for `kernel` in `module`, attributed to the first known location of `fn`.
  DebugInfo(llvm::Module& module, llvm::Function& kernel, const ir::Function& fn, bool variables = false);
  ~DebugInfo();

  /// Sets `b`'s current debug location to `loc` (or the kernel's own line when unknown).
  void set_location(llvm::IRBuilder<>& b, ir::Location loc);
  /// Whether variables are described (the constructor's `variables`).
  bool describes_variables() const { return variables_; }
  /// Describes the memory at `address` (in the kernel's entry block, where `entry` inserts)
  /// as variable `name` of `count` elements of `type` (a scalar or pointer; others are not
  /// described), declared at `loc`.
  void declare(llvm::IRBuilder<>& entry, llvm::Value* address, const std::string& name, ir::Type type,
               std::int64_t count, ir::Location loc);
  /// A name for a variable the kernel declares at `loc`, which the IR does not name:
  /// "var_L<line>", then "var_L<line>_2", ... for more on one line.
  std::string local_name(ir::Location loc);
  /// Describes the memory at `address` as `name`, a CUDA dim3 (three unsigned ints x, y, z).
  void declare_dim3(llvm::IRBuilder<>& entry, llvm::Value* address, const std::string& name);
  /// Finishes the debug info; call once after lowering.
  void finalize();

 private:
  llvm::DIFile* file(const std::string& path);
  /// The debug type of a scalar or pointer, or nullptr.
  llvm::DIType* type_of(ir::Type t);
  /// Declares the memory at `address` (where `entry` inserts) variable `name` of `type`,
  /// declared at `line` of `f`.
  void insert_variable(llvm::IRBuilder<>& entry, llvm::Value* address, const std::string& name, llvm::DIType* type,
                       llvm::DIFile* f, unsigned line);
  llvm::DIBuilder builder_;
  bool variables_ = false;
  llvm::DICompositeType* dim3_ = nullptr;
  std::map<unsigned, int> locals_at_line_;
  llvm::DISubprogram* subprogram_ = nullptr;
  llvm::DIFile* main_file_ = nullptr;
  unsigned default_line_ = 1;
  std::map<std::string, llvm::DIFile*> files_;
  std::map<std::string, llvm::DILexicalBlockFile*> scopes_;
};

}  // namespace cutlet::backend
