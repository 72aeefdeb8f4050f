// Line tables: one compile unit and subprogram per kernel, a location per instruction.
#include "debug_info.h"

#include <filesystem>

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Module.h>

namespace cutlet::backend {
namespace {
ir::Location first_location(const ir::Function& fn) {
  for (std::size_t i = 0; i < fn.num_insts(); ++i)
    if (fn.inst(static_cast<ir::InstId>(i)).loc.known()) return fn.inst(static_cast<ir::InstId>(i)).loc;
  return {};
}
}  // namespace

DebugInfo::DebugInfo(llvm::Module& module, llvm::Function& kernel, const ir::Function& fn) : builder_(module) {
  ir::Location first = first_location(fn);
  std::string path = first.known() ? first.file : fn.name() + ".cutlet";
  default_line_ = first.known() ? first.line : 1;
  main_file_ = file(path);
  auto* cu = builder_.createCompileUnit(llvm::dwarf::DW_LANG_C_plus_plus_14, main_file_, "cutlet", /*isOptimized=*/true,
                                        "", 0, "", llvm::DICompileUnit::LineTablesOnly);
  (void)cu;
  auto* type = builder_.createSubroutineType(builder_.getOrCreateTypeArray({}));
  subprogram_ = builder_.createFunction(main_file_, fn.name(), fn.name(), main_file_, default_line_, type, default_line_,
                                        llvm::DINode::FlagZero,
                                        llvm::DISubprogram::SPFlagDefinition | llvm::DISubprogram::SPFlagOptimized);
  kernel.setSubprogram(subprogram_);
  // Once per module: a kernel's device functions are lowered into its module, each with its own
  // compile unit.
  if (!module.getModuleFlag("Debug Info Version"))
    module.addModuleFlag(llvm::Module::Warning, "Debug Info Version", llvm::DEBUG_METADATA_VERSION);
  if (!module.getModuleFlag("Dwarf Version")) module.addModuleFlag(llvm::Module::Warning, "Dwarf Version", 2);
}

DebugInfo::~DebugInfo() = default;

llvm::DIFile* DebugInfo::file(const std::string& path) {
  auto& f = files_[path];
  if (!f) {
    std::filesystem::path p(path);
    f = builder_.createFile(p.filename().string(), p.parent_path().string());
  }
  return f;
}

void DebugInfo::set_location(llvm::IRBuilder<>& b, ir::Location loc) {
  llvm::DIScope* scope = subprogram_;
  unsigned line = default_line_;
  if (loc.known()) {
    line = loc.line;
    llvm::DIFile* f = file(loc.file);
    if (f != main_file_) {
      auto& s = scopes_[loc.file];
      if (!s) s = builder_.createLexicalBlockFile(subprogram_, f, 0);
      scope = s;
    }
  }
  b.SetCurrentDebugLocation(llvm::DILocation::get(b.getContext(), line, 0, scope));
}

void DebugInfo::finalize() { builder_.finalize(); }

}  // namespace cutlet::backend
