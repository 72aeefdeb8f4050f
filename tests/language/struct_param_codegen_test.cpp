// The PTX of struct parameters: one .param byte array with the struct's alignment, read by
// ld.param at each field's offset (no copy to local memory), as nvcc passes a struct by value.
#include <gtest/gtest.h>

#include <cutlet/cutlet.h>

#include "filecheck_support.h"

using namespace cutlet;

namespace {

struct Params {
  double offset;
  float scale;
  int n;
};

TEST(StructParamCodegen, StructIsOneAlignedParamReadByLdParam) {
  auto k = kernel([](Struct<Params> p, Ptr<float> y) {
    i32 i = block_idx().x * block_dim().x + thread_idx().x;
    if_(i < p[&Params::n], [&] { y[i] = y[i] * p[&Params::scale] + cast<float>(p[&Params::offset]); });
  }, {.name = "struct_axpb"});
  expect_filecheck(k.compile<>()->ptx, R"(
CHECK: .visible .entry struct_axpb(
CHECK-NEXT: .param .align 8 .b8 struct_axpb_param_0[16],
CHECK-NEXT: .param .u64 {{.*}}struct_axpb_param_1
CHECK-DAG: ld.param.u32 {{%r[0-9]+}}, [struct_axpb_param_0+12];
CHECK-DAG: ld.param.f32 {{%f[0-9]+}}, [{{.*}}+8];
CHECK-DAG: ld.param.f64 {{%fd[0-9]+}}, [{{.*}}];
CHECK-NOT: .local
)");
}

}  // namespace
