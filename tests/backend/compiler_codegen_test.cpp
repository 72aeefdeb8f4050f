// PTX generated from IR, checked with FileCheck on the instructions that matter.
#include "cutlet/backend/compiler.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cutlet/ir/builder.h"
#include "cutlet/ir/verifier.h"
#include "filecheck_support.h"

namespace cutlet {
namespace {

using namespace ir;
using Args = std::span<const ValueId>;
using Values = std::vector<ValueId>;

CompileOptions options(int sm = 90, bool fma = true) {
  CompileOptions o;
  o.target = Target{sm};
  o.fma_contraction = fma;
  return o;
}

std::string ptx_of(const Function& f, const CompileOptions& o = options()) {
  verify(f);
  return compile_to_ptx(f, o);
}

/// blockIdx.x * blockDim.x + threadIdx.x
ValueId global_index(Builder& b) {
  ValueId block = b.special(SpecialReg::BlockIdxX);
  ValueId dim = b.special(SpecialReg::BlockDimX);
  return b.binary(Opcode::Add, b.binary(Opcode::Mul, block, dim), b.special(SpecialReg::ThreadIdxX));
}

/// y[i] = a * x[i] + y[i] for i < n.
Function saxpy() {
  Function f("saxpy");
  Builder b(f);
  ValueId a = b.add_param(Type::f32());
  ValueId x = b.add_param(Type::pointer(Type::f32()));
  ValueId y = b.add_param(Type::pointer(Type::f32()));
  ValueId n = b.add_param(Type::i32());
  ValueId i = global_index(b);
  b.if_(b.cmp(Predicate::Lt, i, n), {}, [&](Args) {
    ValueId yi = b.ptr_add(y, i);
    ValueId ax = b.binary(Opcode::Mul, a, b.load(b.ptr_add(x, i)));
    b.store(yi, b.binary(Opcode::Add, ax, b.load(yi)));
    return Values{};
  }, {});
  return f;
}

/// out[0] = op(a, b) for parameters a, b of type `t`; `op` builds the value to store.
template <class Op>
Function binary_kernel(const std::string& name, Type t, Type out_elem, Op op) {
  Function f(name);
  Builder b(f);
  ValueId x = b.add_param(t);
  ValueId y = b.add_param(t);
  ValueId out = b.add_param(Type::pointer(out_elem));
  b.store(out, op(b, x, y));
  return f;
}

/// Checks for kernel `name` that contain `wanted` and nowhere `unwanted`.
std::string only(const std::string& name, const std::string& wanted, const std::string& unwanted) {
  return "CHECK: .visible .entry " + name + "(\nCHECK-NOT: " + unwanted + "\nCHECK: " + wanted + "\nCHECK-NOT: " +
         unwanted + "\nCHECK: ret;\n";
}

TEST(FileCheckSupportTest, PassesOnMatchAndFailsOnAWrongCheck) {
  expect_filecheck("add.f32 %f1, %f2, %f3;\nret;\n", "CHECK: add.f32\nCHECK-NEXT: ret;\n");
  EXPECT_NONFATAL_FAILURE(expect_filecheck("add.f32 %f1, %f2, %f3;\nret;\n", "CHECK: mul.f32\n"), "mul.f32");
  EXPECT_NONFATAL_FAILURE(expect_filecheck("add.f32 %f1;\nret;\n", "CHECK: add.f32\nCHECK-NOT: ret\n"),
                          "FileCheck failed");
  EXPECT_FALSE(run_filecheck("x\n", "CHECK: y\n").ok());
}

TEST(CompilerCodegenTest, SaxpyEntryLoadsFmaAndStore) {
  std::string ptx = ptx_of(saxpy());
  expect_filecheck(ptx, R"(
CHECK: .target sm_90
CHECK: .visible .entry saxpy(
CHECK-DAG: mov.u32 %r{{[0-9]+}}, %ctaid.x;
CHECK-DAG: mov.u32 %r{{[0-9]+}}, %ntid.x;
CHECK-DAG: mov.u32 %r{{[0-9]+}}, %tid.x;
CHECK: setp.{{[a-z]+}}.s32
CHECK: ld.global.f32
CHECK: ld.global.f32
CHECK: fma.rn.f32
CHECK: st.global.f32
CHECK: ret;
)");
}

TEST(CompilerCodegenTest, NoFmaWithoutContraction) {
  std::string ptx = ptx_of(saxpy(), options(90, /*fma=*/false));
  expect_filecheck(ptx, R"(
CHECK: .visible .entry saxpy(
CHECK-NOT: fma.rn.f32
CHECK: mul.rn.f32
CHECK-NOT: fma.rn.f32
CHECK: add.rn.f32
CHECK-NOT: fma.rn.f32
CHECK: st.global.f32
)");
}

TEST(CompilerCodegenTest, TargetsSm80) {
  expect_filecheck(ptx_of(saxpy(), options(80)), "CHECK: .target sm_80\nCHECK: .visible .entry saxpy(\n");
}

TEST(CompilerCodegenTest, NewerGpusGetSm90Ptx) {
  expect_filecheck(ptx_of(saxpy(), options(100)), "CHECK: .target sm_90\nCHECK: .visible .entry saxpy(\n");
}

TEST(CompilerCodegenTest, ComparisonsFollowSignedness) {
  auto less = [](Builder& b, ValueId x, ValueId y) { return b.cast(Type::i32(), b.cmp(Predicate::Lt, x, y)); };
  expect_filecheck(ptx_of(binary_kernel("lt_i32", Type::i32(), Type::i32(), less)),
                   only("lt_i32", "setp.{{[a-z]+}}.s32", "setp.{{[a-z]+}}.u32"));
  expect_filecheck(ptx_of(binary_kernel("lt_u32", Type::u32(), Type::i32(), less)),
                   only("lt_u32", "setp.{{[a-z]+}}.u32", "setp.{{[a-z]+}}.s32"));
}

TEST(CompilerCodegenTest, DivisionFollowsSignedness) {
  auto div = [](Builder& b, ValueId x, ValueId y) { return b.binary(Opcode::Div, x, y); };
  auto rem = [](Builder& b, ValueId x, ValueId y) { return b.binary(Opcode::Rem, x, y); };
  expect_filecheck(ptx_of(binary_kernel("div_i32", Type::i32(), Type::i32(), div)), only("div_i32", "div.s32", "div.u32"));
  expect_filecheck(ptx_of(binary_kernel("div_u32", Type::u32(), Type::u32(), div)), only("div_u32", "div.u32", "div.s32"));
  expect_filecheck(ptx_of(binary_kernel("rem_i32", Type::i32(), Type::i32(), rem)), only("rem_i32", "rem.s32", "rem.u32"));
  expect_filecheck(ptx_of(binary_kernel("rem_u32", Type::u32(), Type::u32(), rem)), only("rem_u32", "rem.u32", "rem.s32"));
}

TEST(CompilerCodegenTest, RightShiftFollowsSignedness) {
  auto shr = [](Builder& b, ValueId x, ValueId y) { return b.binary(Opcode::Shr, x, y); };
  expect_filecheck(ptx_of(binary_kernel("shr_i32", Type::i32(), Type::i32(), shr)), only("shr_i32", "shr.s32", "shr.u32"));
  expect_filecheck(ptx_of(binary_kernel("shr_u32", Type::u32(), Type::u32(), shr)), only("shr_u32", "shr.u32", "shr.s32"));
}

TEST(CompilerCodegenTest, CastsBecomeCvt) {
  Function f("casts");
  Builder b(f);
  ValueId si = b.add_param(Type::i32());
  ValueId ui = b.add_param(Type::u32());
  ValueId x = b.add_param(Type::f32());
  ValueId out_f = b.add_param(Type::pointer(Type::f32()));
  ValueId out_i = b.add_param(Type::pointer(Type::i32()));
  ValueId out_d = b.add_param(Type::pointer(Type::f64()));
  ValueId out_l = b.add_param(Type::pointer(Type::i64()));
  b.store(out_f, b.cast(Type::f32(), si));
  b.store(b.ptr_add(out_f, b.const_int(Type::i32(), 1)), b.cast(Type::f32(), ui));
  b.store(out_i, b.cast(Type::i32(), x));
  b.store(out_d, b.cast(Type::f64(), x));
  b.store(out_l, b.cast(Type::i64(), si));
  b.store(b.ptr_add(out_l, b.const_int(Type::i32(), 1)), b.cast(Type::i64(), ui));
  expect_filecheck(ptx_of(f), R"(
CHECK: .visible .entry casts(
CHECK-DAG: cvt.rn.f32.s32
CHECK-DAG: cvt.rn.f32.u32
CHECK-DAG: cvt.rzi.s32.f32
CHECK-DAG: cvt.f64.f32
CHECK-DAG: cvt.s64.s32
CHECK-DAG: cvt.u64.u32
CHECK: ret;
)");
}

/// sum of x[0..n) into out[0], with a for loop carrying the sum.
Function sum_loop() {
  Function f("sum_loop");
  Builder b(f);
  ValueId x = b.add_param(Type::pointer(Type::f32()));
  ValueId out = b.add_param(Type::pointer(Type::f32()));
  ValueId n = b.add_param(Type::i32());
  ValueId init[] = {b.const_float(Type::f32(), 0.0)};
  auto r = b.for_(b.const_int(Type::i32(), 0), n, b.const_int(Type::i32(), 1), init, [&](Args a) {
    return Values{b.binary(Opcode::Add, a[1], b.load(b.ptr_add(x, a[0])))};
  });
  b.store(out, r[0]);
  return f;
}

TEST(CompilerCodegenTest, ForLoopBranchesBackward) {
  expect_filecheck(ptx_of(sum_loop()), R"(
CHECK: .visible .entry sum_loop(
CHECK: [[LOOP:\$L__BB[0-9_]+]]:
CHECK: ld.global.f32
CHECK: add.{{(rn.)?}}f32
CHECK: bra{{(.uni)?}} [[LOOP]];
CHECK: st.global.f32
)");
}

TEST(CompilerCodegenTest, WhileLoopBranchesBackward) {
  // i = tid; while (x[i] > 0) i += 1; out[tid] = i
  Function f("find_nonpositive");
  Builder b(f);
  ValueId x = b.add_param(Type::pointer(Type::i32()));
  ValueId out = b.add_param(Type::pointer(Type::i32()));
  ValueId tid = b.special(SpecialReg::ThreadIdxX);
  ValueId init[] = {tid};
  auto r = b.while_(
      init,
      [&](Args a) {
        ValueId v = b.load(b.ptr_add(x, a[0]));
        return Values{b.cmp(Predicate::Gt, v, b.const_int(Type::i32(), 0)), a[0]};
      },
      [&](Args a) { return Values{b.binary(Opcode::Add, a[0], b.const_int(Type::i32(), 1))}; });
  b.store(b.ptr_add(out, tid), r[0]);
  expect_filecheck(ptx_of(f), R"(
CHECK: .visible .entry find_nonpositive(
CHECK: [[LOOP:\$L__BB[0-9_]+]]:
CHECK: ld.global.u32
CHECK: setp.{{[a-z]+}}.s32
CHECK: bra{{(.uni)?}} [[LOOP]];
CHECK: st.global.u32
)");
}

TEST(CompilerCodegenTest, BarrierIsBarSync0) {
  Function f("swap_neighbours");
  Builder b(f);
  ValueId p = b.add_param(Type::pointer(Type::f32()));
  ValueId tid = b.special(SpecialReg::ThreadIdxX);
  ValueId v = b.load(b.ptr_add(p, tid));
  b.barrier();
  b.store(b.ptr_add(p, b.binary(Opcode::Xor, tid, b.const_int(Type::i32(), 1))), v);
  expect_filecheck(ptx_of(f), R"(
CHECK: .visible .entry swap_neighbours(
CHECK: ld.global.f32
CHECK-NEXT: bar.sync 0;
CHECK: st.global.f32
)");
}

/// No local memory (no depot, no ld/st.local) in kernel local_acc.
const char* kNoLocalMemory = R"(
CHECK-NOT: __local_depot
CHECK: .visible .entry local_acc(
CHECK-NOT: .local
CHECK-NOT: __local_depot
CHECK: ld.global.f32
CHECK-NOT: .local
CHECK: st.global.f32
CHECK-NOT: .local
CHECK: ret;
)";

TEST(CompilerCodegenTest, LocalVariablesArePromotedToRegisters) {
  // acc = 0; for i < n: acc = acc + x[i]; out[0] = acc, through an alloca'd variable.
  Function f("local_acc");
  Builder b(f);
  ValueId x = b.add_param(Type::pointer(Type::f32()));
  ValueId out = b.add_param(Type::pointer(Type::f32()));
  ValueId n = b.add_param(Type::i32());
  ValueId acc = b.local_alloc(Type::f32());
  b.store(acc, b.const_float(Type::f32(), 0.0));
  b.for_(b.const_int(Type::i32(), 0), n, b.const_int(Type::i32(), 1), {}, [&](Args a) {
    b.store(acc, b.binary(Opcode::Add, b.load(acc), b.load(b.ptr_add(x, a[0]))));
    return Values{};
  });
  b.store(out, b.load(acc));
  std::string ptx = ptx_of(f);
  expect_filecheck(ptx, kNoLocalMemory);
  // The checks do see local memory when there is some.
  std::string spilled = ptx;
  spilled.insert(spilled.find("ret;"), "st.local.f32 [%rd1], %f1;\n\t");
  EXPECT_FALSE(run_filecheck(spilled, kNoLocalMemory).ok());
}

TEST(CompilerCodegenTest, KeepsLlvmIrOnRequest) {
  CompileOptions o = options(90);
  o.keep_llvm_ir = true;
  CompiledKernel k = compile(saxpy(), o);
  expect_filecheck(k.llvm_ir, R"(
CHECK: define void @saxpy(float %{{[0-9]+}}, ptr addrspace(1)
CHECK: load float, ptr addrspace(1)
CHECK: fmul contract float
CHECK: !nvvm.annotations
)");
  expect_filecheck(k.llvm_ir_opt, "CHECK: define {{.*}}void @saxpy(\n");
}

}  // namespace
}  // namespace cutlet
