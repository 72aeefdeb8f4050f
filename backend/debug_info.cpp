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

DebugInfo::DebugInfo(llvm::Module& module, llvm::Function& kernel, const ir::Function& fn, bool variables)
    : builder_(module), variables_(variables) {
  ir::Location first = first_location(fn);
  std::string path = first.known() ? first.file : fn.name() + ".cutlet";
  default_line_ = first.known() ? first.line : 1;
  main_file_ = file(path);
  auto* cu = builder_.createCompileUnit(llvm::dwarf::DW_LANG_C_plus_plus_14, main_file_, "cutlet", /*isOptimized=*/true,
                                        "", 0, "",
                                        variables ? llvm::DICompileUnit::FullDebug : llvm::DICompileUnit::LineTablesOnly);
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

llvm::DIType* DebugInfo::type_of(ir::Type t) {
  if (t.is_pointer()) {
    llvm::DIType* pointee = type_of(t.element());
    return builder_.createPointerType(pointee, 64);
  }
  if (!t.is_scalar()) return nullptr;
  const int bits = t.bits();
  const std::string name = ir::scalar_name(t.scalar_kind());
  if (t.is_bool()) return builder_.createBasicType("bool", 8, llvm::dwarf::DW_ATE_boolean);
  if (t.is_signed_integer()) return builder_.createBasicType(name, bits, llvm::dwarf::DW_ATE_signed);
  if (t.is_unsigned_integer()) return builder_.createBasicType(name, bits, llvm::dwarf::DW_ATE_unsigned);
  // IEEE floats print as numbers; bf16 and fp8 as their bits.
  if (name == "f16" || name == "f32" || name == "f64") return builder_.createBasicType(name, bits, llvm::dwarf::DW_ATE_float);
  return builder_.createBasicType(name, bits, llvm::dwarf::DW_ATE_unsigned);
}

void DebugInfo::declare(llvm::IRBuilder<>& entry, llvm::Value* address, const std::string& name, ir::Type type,
                        std::int64_t count, ir::Location loc) {
  llvm::DIType* t = type_of(type);
  if (!t) return;
  if (count > 1) {
    llvm::Metadata* range = builder_.getOrCreateSubrange(0, count);
    t = builder_.createArrayType(t->getSizeInBits() * static_cast<std::uint64_t>(count), 0, t,
                                 builder_.getOrCreateArray({range}));
  }
  insert_variable(entry, address, name, t, loc.known() ? file(loc.file) : main_file_,
                  loc.known() ? loc.line : default_line_);
}

void DebugInfo::insert_variable(llvm::IRBuilder<>& entry, llvm::Value* address, const std::string& name,
                                llvm::DIType* type, llvm::DIFile* f, unsigned line) {
  auto* var = builder_.createAutoVariable(subprogram_, name, f, line, type, /*AlwaysPreserve=*/true);
  builder_.insertDeclare(address, var, builder_.createExpression(),
                         llvm::DILocation::get(entry.getContext(), line, 0, subprogram_), entry.GetInsertBlock());
}

std::string DebugInfo::local_name(ir::Location loc) {
  const unsigned line = loc.known() ? loc.line : 0;
  const int n = ++locals_at_line_[line];
  return "var_L" + std::to_string(line) + (n > 1 ? "_" + std::to_string(n) : "");
}

void DebugInfo::declare_dim3(llvm::IRBuilder<>& entry, llvm::Value* address, const std::string& name) {
  if (!dim3_) {
    llvm::DIType* u32 = builder_.createBasicType("unsigned int", 32, llvm::dwarf::DW_ATE_unsigned);
    llvm::SmallVector<llvm::Metadata*, 3> members;
    for (unsigned i = 0; i < 3; ++i)
      members.push_back(builder_.createMemberType(subprogram_, std::string(1, "xyz"[i]), main_file_, default_line_, 32, 32,
                                                  32 * i, llvm::DINode::FlagZero, u32));
    dim3_ = builder_.createStructType(subprogram_, "dim3", main_file_, default_line_, 96, 32, llvm::DINode::FlagZero,
                                      nullptr, builder_.getOrCreateArray(members));
  }
  insert_variable(entry, address, name, dim3_, main_file_, default_line_);
}

void DebugInfo::finalize() { builder_.finalize(); }

}  // namespace cutlet::backend
