// What an ahead-of-time export holds (its specializations, their parameter layouts and compiled
// images) and the C++ header and source written from it, which need only cutlet's runtime.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cutlet/ir/type.h"
#include "cutlet/runtime/aot_kernel.h"

namespace cutlet::aot {

/// How a parameter of an exported specialization is passed by its launch function.
enum class ParamKind {
  Scalar,  ///< Value<T>: the function takes a T and passes its bytes.
  Buffer,  ///< Ptr<T> or RestrictPtr<T>: takes a const Buffer<T>& and passes its device address.
  Tensor,  ///< Tensor<T, R>: takes a const TensorArg<T, R>& and passes its bytes, after checking its facts.
  Struct,  ///< Struct<S>: takes a const S& and passes its bytes.
  Const,   ///< Const<T>: compiled into the code; not a parameter of the launch function.
};

/// One parameter of an exported specialization, in the kernel's order.
struct ParamSpec {
  ParamKind kind = ParamKind::Scalar;
  /// The launch function's name for it (for a Const, the name its comment uses).
  std::string name;
  /// The kernel parameter type as messages name it: "f32", "Ptr<f32>", "Tensor<f32, 2>", "Const<i32>".
  std::string label;
  /// For Scalar, Buffer and Tensor, the element's C++ type ("float", "std::int32_t",
  /// "cutlet::half"); for Struct, the struct's qualified name.
  std::string cpp_type;
  /// For Tensor: the rank R, and the TensorFacts the code was compiled to assume.
  int rank = 0;
  std::uint64_t facts = 0;
  /// For Const: the value compiled in, as text.
  std::string value;
  /// The bytes of the kernel parameter and their alignment, as the specialization's IR lays
  /// them out (0 for Const); the generated source checks that the C++ type it passes has them.
  std::int64_t size = 0;
  std::int64_t align = 0;
};

/// One compiled form of a specialization.
struct ImageSpec {
  ImageKind kind = ImageKind::cubin;
  int sm = 0;                ///< as Image::sm: the SM a cubin was linked for, or a PTX's .target
  std::vector<char> bytes;   ///< the cubin, or the PTX text (without a NUL; the source adds one)
  int dynamic_shared_bytes = 0;  ///< ResourceUsage::dynamic_shared_bytes of its compile
  int registers = -1;        ///< ResourceUsage::registers of its compile (-1: unknown, as for PTX)
};

/// One exported specialization: a launch function and the code it launches.
struct KernelSpec {
  std::string function;    ///< the launch function's name, a C++ identifier
  std::string kernel;      ///< the kernel's name (KernelOptions::name), its .entry in the images
  std::string defined_at;  ///< "file:line" where the kernel was defined (the file's name only)
  std::vector<ParamSpec> params;
  int tile_warps = 0;        ///< for a tile kernel its warps per block, else 0
  std::string grid_sync_at;  ///< where the kernel calls grid_sync() ("file:line"), or ""
  std::vector<ImageSpec> images;
};

/// A set of exported specializations, written as `<name>.h` and `<name>.cpp` with the launch
/// functions in namespace `<name>`.
struct ModuleSpec {
  std::string name;
  /// Headers the generated header includes (#include "..."), for Struct parameters' types.
  std::vector<std::string> includes;
  std::vector<KernelSpec> kernels;
};

/// The C++ spelling of scalar type `t` in generated code: "float", "std::int32_t", "bool",
/// "cutlet::half", "cutlet::bfloat16".
std::string cpp_scalar_type(ir::Type t);

/// Throws cutlet::Error naming the problem when `module` cannot be written as C++: a module,
/// function or parameter name that is no identifier (a letter, then letters, digits and single
/// underscores), is a C++ keyword, is taken by the generated code (`stream`, `config`,
/// `cutlet...`, `<function>_kernel`, `_images`, `_info`, `_sm_...`) or is used twice; a struct type that other translation
/// units cannot name (in an anonymous namespace, unnamed). Compiled images are not looked at.
void check_module(const ModuleSpec& module);

/// The text of `<name>.h`: for every specialization, a documented launch function
/// `void <function>(const cutlet::Stream&, const cutlet::LaunchConfig&, <parameters>)` and
/// `cutlet::aot::ExportedKernel& <function>_kernel()`, in namespace `<name>`. It includes
/// <cutlet/runtime/aot_kernel.h> and `includes`, nothing of LLVM, the JIT or the language.
/// Throws cutlet::Error as check_module does, and for a specialization without images.
std::string generate_header(const ModuleSpec& module);

/// The text of `<name>.cpp`: the images as byte arrays, their cutlet::aot::KernelInfo, and
/// the launch functions, which check and pack the arguments in the specialization's parameter
/// layout (static_asserts compare each C++ type's size and alignment with it) and launch them
/// through cutlet::aot::ExportedKernel. It refuses to compile with a cutlet of another
/// major.minor version than the one that wrote it. Throws as generate_header does.
std::string generate_source(const ModuleSpec& module);

}  // namespace cutlet::aot
