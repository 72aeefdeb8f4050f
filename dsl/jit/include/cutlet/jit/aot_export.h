// Exporting kernels ahead of time: chosen specializations of cutlet kernels, compiled for several
// architectures and written as a C++ header and source whose launch functions need cutlet's
// runtime alone (no LLVM, no nvJitLink), as CuTe DSL's export_to_c, cuTile's export_kernel and
// NVIDIA Warp's ahead-of-time modules allow.
#pragma once

#include <cstdint>
#include <deque>
#include <filesystem>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cutlet/backend/target.h"
#include "cutlet/ir/function.h"
#include "cutlet/jit/aot_module.h"
#include "cutlet/jit/kernel.h"

namespace cutlet::aot {

/// One specialization added to an Exporter: what its launch function is called, and what the
/// traced kernel is.
class ExportEntry {
 public:
  /// Names the launch function's parameters: one name per kernel parameter, in order, Const
  /// parameters included (their names appear in the documentation; they are no parameters of
  /// the function). By default they are arg0, arg1, .... Checked when the module is written.
  ExportEntry& param_names(std::vector<std::string> names);

  /// The launch function's name.
  const std::string& function() const noexcept { return spec_.function; }
  /// The traced IR (after the IR passes) that every target compiles.
  const ir::Function& ir() const noexcept { return fn_; }

 private:
  friend class Exporter;
  ExportEntry(KernelSpec spec, ir::Function fn, KernelOptions options)
      : spec_(std::move(spec)), fn_(std::move(fn)), options_(std::move(options)) {}
  KernelSpec spec_;  ///< everything but the images
  ir::Function fn_;
  KernelOptions options_;
};

/// Compiles chosen specializations of cutlet kernels for several architectures and writes
/// `<name>.h` and `<name>.cpp`: for each specialization a launch function
///
///     void saxpy_f32(const cutlet::Stream& stream, const cutlet::LaunchConfig& config, float a,
///                    const cutlet::Buffer<float>& x, const cutlet::Buffer<float>& y, std::int32_t n);
///
/// in namespace `<name>`, with the cubins (and a PTX for newer GPUs) embedded in the source as
/// byte arrays. A program that includes the header and compiles the source links
/// cutlet::runtime alone; at its first launch on a device the cubin for that device's
/// architecture is loaded (cutlet::aot::ExportedKernel). The launch functions do what
/// Kernel::launch does: a tile kernel's block and its own dynamic shared memory (with the opt-in
/// past 48 KiB), the Buffer and Tensor checks, a cooperative launch for grid_sync().
///
///     cutlet::aot::Exporter ex("mykernels");
///     ex.targets({cutlet::Target{80}, cutlet::Target{90}});
///     ex.add<float, Buffer<float>, Buffer<float>, int>(saxpy, "saxpy_f32").param_names({"a", "x", "y", "n"});
///     ex.write("generated");
///
/// Since kernels are C++ lambdas, the exporter is a program of the user's that calls this;
/// main() gives it a command line, and the CMake function cutlet_aot_export runs it at build
/// time. Compiling needs no GPU.
class Exporter {
 public:
  /// An export named `name`: the files' base name and the namespace of the launch functions (a
  /// C++ identifier; checked when written). Targets sm_80 and sm_90, with PTX embedded.
  explicit Exporter(std::string name);

  /// The architectures to compile for, one cubin each (at least one). Target has no
  /// architecture-specific variants (sm_90a): its cubins run on every device of their major
  /// version from their minor on (sm_80 on sm_86 and sm_89; sm_90 on sm_90).
  Exporter& targets(std::vector<Target> targets);
  const std::vector<Target>& targets() const noexcept { return targets_; }
  /// Whether to embed the PTX of the newest target too (default true), which the driver
  /// compiles on devices no cubin runs on (newer major versions, e.g. sm_100 and sm_120).
  Exporter& embed_ptx(bool embed);
  /// Has the generated header include `header` (#include "header"): the header that declares
  /// the structs of Struct parameters, at namespace scope.
  Exporter& include(std::string header);

  /// Adds the specialization of `kernel` that Kernel::compile<Ps...>(consts...) compiles:
  /// parameter types Ps (kernel parameter types such as f32, Ptr<float>, Tensor<float, 2>,
  /// Const<int>, or launch argument types such as float, Buffer<float>, TensorArg<float, 2>;
  /// none for a lambda whose parameters have types), the values of its Const parameters in
  /// order, and for Tensor parameters the facts compile() assumes (16-byte aligned data, a unit
  /// last stride, every extent and stride divisible by 16; add_for() chooses others). Its launch
  /// function is named `function`. Traces the kernel now (trace errors throw here); compiles
  /// it in build() or write(). KernelOptions::target is ignored: targets() decide.
  template <class... Ps, class F, class... Cs>
  ExportEntry& add(const Kernel<F>& kernel, std::string function, const Cs&... consts) {
    using K = Kernel<F>;
    using Params = typename K::template compile_params<Ps...>;
    const auto bits = K::template encode_consts<Params>(consts...);
    return add_traced<Params>(kernel, std::move(function), std::span<const std::uint64_t>(bits));
  }

  /// Adds the specialization of `kernel` that launching it with `args` would use (as
  /// Kernel::compile_for): the argument types, the Const values among them, and each
  /// TensorArg's facts (a TensorArg{}.generic() for code that takes any tensor, or one made by
  /// tensor() with the shapes, strides and alignment to specialize on). Buffer arguments only
  /// give their type (an empty Buffer<T>{} will do); buffers of 2^31 elements or more are
  /// refused (exported code indexes with 32 bits). Traces now, as add() does.
  template <class F, class... Args>
  ExportEntry& add_for(const Kernel<F>& kernel, std::string function, const Args&... args) {
    using K = Kernel<F>;
    using Params = typename detail::launch_signature<F, Args...>::params;
    static_assert(K::template valid_arguments<Params, Args...>(),
                  "cutlet::aot::Exporter::add_for: these arguments do not match the kernel's parameters (launch() "
                  "with them reports which one)");
    if ((detail::is_wide_buffer(args) || ...)) throw_wide(kernel.name());
    const auto bits = K::template gather_consts<Params>(args...);
    return add_traced<Params>(kernel, std::move(function), std::span<const std::uint64_t>(bits));
  }

  /// The specializations added, in order.
  const std::deque<ExportEntry>& entries() const noexcept { return entries_; }

  /// Compiles every specialization for every target (LLVM and nvJitLink, through the
  /// compile caches) and returns what write() writes. Throws CompileError as Kernel::compile
  /// does, and Error when the export cannot be written as C++ (see check_module).
  ModuleSpec build() const;

  /// build(), then writes `<name>.h` and `<name>.cpp` into `dir` (created if missing). Throws
  /// Error naming the file when one cannot be written.
  void write(const std::filesystem::path& dir) const;

  /// A command line for an exporter program: `<program> <output-dir> [--name <name>]
  /// [--targets sm_80,sm_90] [--no-ptx]`. --name must match this export's name (the build
  /// system's idea of the file names); --targets replaces targets(), --no-ptx embeds no PTX.
  /// Writes the files, says what it wrote on stdout, and returns 0; prints the error on stderr
  /// and returns 1 on failure, 2 for a bad command line.
  int main(int argc, char** argv);

 private:
  template <class Params, class F>
  ExportEntry& add_traced(const Kernel<F>& kernel, std::string function, std::span<const std::uint64_t> bits) {
    ir::Function fn = kernel.template trace<Params>(bits);
    std::vector<ParamSpec> params;
    std::vector<ir::Type> types;  // the IR type each C++ parameter type declares (void for Const)
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (describe<std::tuple_element_t<I, Params>, Params, I>(bits, params, types), ...);
    }(std::make_index_sequence<std::tuple_size_v<Params>>{});
    return add_entry(kernel.name(), kernel.defined_at(), kernel.options(), std::move(function), std::move(fn),
                     std::move(params), types);
  }

  /// The ParamSpec of parameter I (type P) of Params, without the layout that add_entry takes
  /// from the IR.
  template <class P, class Params, std::size_t I>
  static void describe(std::span<const std::uint64_t> bits, std::vector<ParamSpec>& out, std::vector<ir::Type>& types) {
    using T = detail::param_traits<P>;
    ParamSpec p;
    p.label = detail::param_label<P>();
    if constexpr (T::constant) {
      p.kind = ParamKind::Const;
      p.value = T::text(bits[detail::key_position_v<Params, I>]);
      types.push_back(ir::Type::void_type());
    } else {
      if constexpr (requires { P::is_tensor; }) {
        p.kind = ParamKind::Tensor;
        p.cpp_type = cpp_scalar_type(detail::ir_type_of<typename P::element_type>());
        p.rank = P::rank;
        p.facts = bits[detail::key_position_v<Params, I>];
      } else if constexpr (requires { typename P::struct_type; }) {
        p.kind = ParamKind::Struct;
        p.cpp_type = detail::struct_name<typename P::struct_type>();
      }  // scalars and buffers: add_entry reads them from the IR
      types.push_back(T::ir_type());
    }
    out.push_back(std::move(p));
  }

  ExportEntry& add_entry(const std::string& kernel, const std::source_location& defined, const KernelOptions& options,
                         std::string function, ir::Function fn, std::vector<ParamSpec> params,
                         const std::vector<ir::Type>& declared);
  [[noreturn]] static void throw_wide(const std::string& kernel);

  std::string name_;
  std::vector<Target> targets_;
  bool embed_ptx_ = true;
  std::vector<std::string> includes_;
  std::deque<ExportEntry> entries_;
};

}  // namespace cutlet::aot
