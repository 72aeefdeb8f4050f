// Tests of the pass pipeline: verification before and between passes, the after-pass hook.
#include "cutlet/ir/pipeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cutlet/ir/builder.h"
#include "cutlet/ir/printer.h"

namespace cutlet::ir {
namespace {

/// A kernel with one dead multiplication.
Function kernel_with_dead_code() {
  Function f("k");
  Builder b(f);
  ValueId x = b.add_param(Type::f32());
  ValueId p = b.add_param(Type::pointer(Type::f32()));
  b.binary(Opcode::Mul, x, x);
  b.store(p, b.binary(Opcode::Add, x, x));
  return f;
}

bool has_op(const Function& f, Opcode op) {
  for (InstId id : f.body().body)
    if (f.inst(id).op == op) return true;
  return false;
}

TEST(PipelineTest, DefaultPipelineListsDce) {
  std::vector<std::string> names;
  for (const Pass& p : default_pipeline()) {
    names.push_back(p.name);
    EXPECT_NE(p.run, nullptr);
  }
  EXPECT_NE(std::find(names.begin(), names.end(), "dce"), names.end());
}

TEST(PipelineTest, RunsThePassesAndCallsAfterPass) {
  std::vector<std::string> seen;
  std::string after_dce;
  PipelineOptions options;
  options.verify_each = true;
  options.after_pass = [&](std::string_view pass, const Function& f) {
    seen.emplace_back(pass);
    if (pass == "dce") after_dce = print(f);
  };
  Function in = kernel_with_dead_code();
  ASSERT_TRUE(has_op(in, Opcode::Mul));
  Function out = run_pipeline(std::move(in), options);
  EXPECT_FALSE(has_op(out, Opcode::Mul));
  EXPECT_TRUE(has_op(out, Opcode::Add));
  ASSERT_EQ(seen.size(), default_pipeline().size());
  for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], default_pipeline()[i].name);
  EXPECT_EQ(after_dce.find("mul"), std::string::npos) << after_dce;
  EXPECT_NE(after_dce.find("add"), std::string::npos) << after_dce;
}

TEST(PipelineTest, VerifiesTheInputEvenWithoutVerifyEach) {
  Function f("broken");
  ValueId x = f.add_value(Type::i32(), kNone, 0);
  f.body().args.push_back(x);
  Instruction add;
  add.op = Opcode::Add;
  add.operands = {x};  // one operand short
  InstId id = f.add_inst(std::move(add));
  f.inst(id).results.push_back(f.add_value(Type::i32(), id, 0));
  f.body().body.push_back(id);
  PipelineOptions options;
  options.verify_each = false;
  bool called = false;
  options.after_pass = [&](std::string_view, const Function&) { called = true; };
  EXPECT_THROW(run_pipeline(std::move(f), options), IRError);
  EXPECT_FALSE(called);
}

TEST(PipelineTest, WorksWithoutACallback) {
  PipelineOptions options;
  Function out = run_pipeline(kernel_with_dead_code(), options);
  EXPECT_FALSE(has_op(out, Opcode::Mul));
  EXPECT_EQ(out.name(), "k");
}

}  // namespace
}  // namespace cutlet::ir
