// Exporter: traced specializations, their parameter layouts read from the IR, compiled for
// every target and written as C++.
#include "cutlet/jit/aot_export.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <system_error>

#include "cutlet/error.h"
#include "cutlet/ir/opcode.h"

namespace cutlet::aot {
namespace {

/// "file.cpp:12" for a path and a line: the file's name alone, so that generated code does not
/// depend on where the exporter's sources were.
std::string file_line(const char* file, unsigned line) {
  const char* base = std::strrchr(file, '/');
  return std::string(base ? base + 1 : file) + ":" + std::to_string(line);
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out)
    throw Error("cutlet::aot::Exporter: cannot write " + path.string() + ": " + std::strerror(errno));
}

std::string targets_text(const std::vector<Target>& targets) {
  std::string r;
  for (const Target& t : targets) r += (r.empty() ? "" : ", ") + t.arch();
  return r;
}

}  // namespace

ExportEntry& ExportEntry::param_names(std::vector<std::string> names) {
  if (names.size() != spec_.params.size())
    throw Error("cutlet::aot::Exporter: function '" + spec_.function + "' (kernel '" + spec_.kernel + "') has " +
                std::to_string(spec_.params.size()) + " parameters (Const ones included) but " +
                std::to_string(names.size()) + " names were given");
  for (std::size_t i = 0; i < names.size(); ++i) spec_.params[i].name = std::move(names[i]);
  return *this;
}

Exporter::Exporter(std::string name) : name_(std::move(name)), targets_{Target{80}, Target{90}} {}

Exporter& Exporter::targets(std::vector<Target> targets) {
  if (targets.empty()) throw Error("cutlet::aot::Exporter '" + name_ + "': give at least one target");
  for (std::size_t i = 0; i < targets.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (targets[i].sm == targets[j].sm)
        throw Error("cutlet::aot::Exporter '" + name_ + "': " +
                    (targets[i] == targets[j] ? "target " + targets[i].arch() + " is given twice"
                                              : "targets " + targets[j].arch() + " and " + targets[i].arch() +
                                                    " are for one SM; a device would load either: give one"));
  targets_ = std::move(targets);
  return *this;
}

Exporter& Exporter::embed_ptx(bool embed) {
  embed_ptx_ = embed;
  return *this;
}

Exporter& Exporter::include(std::string header) {
  includes_.push_back(std::move(header));
  return *this;
}

void Exporter::throw_wide(const std::string& kernel) {
  throw Error("cutlet::aot::Exporter: kernel '" + kernel +
              "' is given a Buffer of 2^31 elements or more, whose specialization indexes with 64 bits; exported "
              "code indexes with 32 bits: pass an empty Buffer<T>{} for the type");
}

ExportEntry& Exporter::add_entry(const std::string& kernel, const std::source_location& defined,
                                 const KernelOptions& options, std::string function, ir::Function fn,
                                 std::vector<ParamSpec> params, const std::vector<ir::Type>& declared) {
  // The run-time parameters are the IR's, in order: their types give the bytes each takes.
  const std::span<const ir::ValueId> ir_params = fn.params();
  const auto mismatch = [&](const std::string& what) {
    return InternalError("cutlet::aot::Exporter: kernel '" + kernel + "': " + what +
                         "; this is a bug in cutlet, please report it");
  };
  std::size_t next = 0;
  for (std::size_t i = 0; i < params.size(); ++i) {
    ParamSpec& p = params[i];
    p.name = "arg" + std::to_string(i);
    if (p.kind == ParamKind::Const) continue;
    if (next == ir_params.size()) throw mismatch("the IR has fewer parameters than the kernel's run-time ones");
    const ir::Type t = fn.type_of(ir_params[next++]);
    if (t != declared[i])
      throw mismatch("parameter " + std::to_string(i + 1) + " is " + t.str() + " in the IR, not " + declared[i].str());
    if (t.is_record()) {
      if (p.kind != ParamKind::Tensor && p.kind != ParamKind::Struct) throw mismatch("an unexpected record parameter");
      p.size = t.record_size();
      p.align = t.record_align();
    } else if (t.is_pointer()) {
      p.kind = ParamKind::Buffer;
      p.cpp_type = cpp_scalar_type(t.element());
      p.size = p.align = 8;
    } else if (t.is_scalar()) {
      p.kind = ParamKind::Scalar;
      p.cpp_type = cpp_scalar_type(t);
      p.size = p.align = std::max(1, t.bits() / 8);
    } else {
      throw mismatch("parameter " + std::to_string(i + 1) + " has IR type " + t.str());
    }
  }
  if (next != ir_params.size()) throw mismatch("the IR has more parameters than the kernel's run-time ones");

  KernelSpec spec;
  spec.function = std::move(function);
  spec.kernel = kernel;
  spec.defined_at = file_line(defined.file_name(), defined.line());
  spec.params = std::move(params);
  spec.tile_warps = options.tile_warps;
  if (const ir::Instruction* sync = ir::find_instruction(fn, ir::Opcode::GridSync))
    spec.grid_sync_at = sync->loc.known() ? file_line(sync->loc.file, sync->loc.line) : "an unknown line";
  entries_.push_back(ExportEntry(std::move(spec), std::move(fn), options));
  return entries_.back();
}

ModuleSpec Exporter::build() const {
  ModuleSpec m;
  m.name = name_;
  m.includes = includes_;
  for (const ExportEntry& e : entries_) m.kernels.push_back(e.spec_);
  check_module(m);  // before the compiles: a bad name should not wait for them
  const Target* newest = &*std::max_element(targets_.begin(), targets_.end(),
                                            [](const Target& a, const Target& b) { return a.sm < b.sm; });
  for (std::size_t i = 0; i < m.kernels.size(); ++i) {
    const ExportEntry& e = entries_[i];
    KernelSpec& k = m.kernels[i];
    for (const Target& t : targets_) {
      CompileOptions options = detail::compile_options_for(e.options_);
      options.target = t;
      const auto compiled = detail::compile_cached(e.fn_, options);
      if (compiled->name != k.kernel)
        throw InternalError("cutlet::aot::Exporter: kernel '" + k.kernel + "' compiled to entry '" + compiled->name +
                            "'; this is a bug in cutlet, please report it");
      const ResourceUsage& r = compiled->resources;
      k.images.push_back({ImageKind::cubin, t.sm, compiled->cubin, r.dynamic_shared_bytes, r.registers});
      if (embed_ptx_ && &t == newest)
        k.images.push_back({ImageKind::ptx, t.ptx_sm(), std::vector<char>(compiled->ptx.begin(), compiled->ptx.end()),
                            r.dynamic_shared_bytes, -1});
    }
  }
  return m;
}

void Exporter::write(const std::filesystem::path& dir) const {
  const ModuleSpec m = build();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error("cutlet::aot::Exporter: cannot create " + dir.string() + ": " + ec.message());
  write_file(dir / (name_ + ".h"), generate_header(m));
  write_file(dir / (name_ + ".cpp"), generate_source(m));
}

int Exporter::main(int argc, char** argv) {
  const char* program = argc > 0 ? argv[0] : "exporter";
  const auto usage = [&](const std::string& problem) {
    std::fprintf(stderr,
                 "%s: %s\nusage: %s <output-dir> [--name <name>] [--targets sm_80,sm_90] [--no-ptx]\n"
                 "Writes %s.h and %s.cpp (the launch functions of the exported kernels) into <output-dir>.\n",
                 program, problem.c_str(), program, name_.c_str(), name_.c_str());
    return 2;
  };
  std::string dir;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--name" || arg == "--targets") {
        if (i + 1 == argc) return usage(arg + " needs a value");
        const std::string value = argv[++i];
        if (arg == "--name") {
          if (value != name_)
            return usage("--name " + value + " does not match the export's name '" + name_ +
                         "' (the build expects " + value + ".h and " + value + ".cpp)");
        } else {
          std::vector<Target> ts;
          for (std::size_t at = 0; at <= value.size();) {
            std::size_t end = value.find(',', at);
            if (end == std::string::npos) end = value.size();
            if (end > at) ts.push_back(Target::from_string(value.substr(at, end - at)));
            at = end + 1;
          }
          targets(std::move(ts));
        }
      } else if (arg == "--no-ptx") {
        embed_ptx(false);
      } else if (arg.rfind("--", 0) == 0 || !dir.empty()) {
        return usage("unexpected argument '" + arg + "'");
      } else {
        dir = arg;
      }
    }
    if (dir.empty()) return usage("no output directory given");
    write(dir);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    return 1;
  }
  std::printf("%s: wrote %s.h and %s.cpp in %s: %zu specialization%s for %s%s\n", program, name_.c_str(),
              name_.c_str(), dir.c_str(), entries_.size(), entries_.size() == 1 ? "" : "s",
              targets_text(targets_).c_str(), embed_ptx_ ? ", with PTX for newer GPUs" : "");
  return 0;
}

}  // namespace cutlet::aot
