//===- PropagateScaleLayoutTest.cpp - Counts and the solver ---------------===//
//
// The counts the pass reports (Debian's LLVM compiles pass statistics out,
// so they are checked through propagateScaleLayouts), and the solver's cost
// model on hand-made problems.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Transforms/PropagateScaleLayout.h"
#include "fp8q/Dialect/IR/Fp8qDialect.h"
#include "fp8q/Interfaces/ScaleLayoutInterfaces.h"
#include "fp8q/Transforms/ScaleLayoutAnalysis.h"
#include "fp8q/Transforms/ScaleLayoutSolver.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
namespace ls = fp8q::layout_solver;

namespace {

class PropagateCountsTest : public ::testing::Test {
protected:
  PropagateCountsTest() {
    // The carrier models, as registerFp8qDialects adds them.
    DialectRegistry registry;
    fp8q::registerScaleLayoutCarrierExternalModels(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadDialect<fp8q::Fp8qDialect, func::FuncDialect, scf::SCFDialect,
                    arith::ArithDialect, tensor::TensorDialect>();
    ctx.getDiagEngine().registerHandler([](Diagnostic &diag) {
      return success(diag.getSeverity() == DiagnosticSeverity::Remark);
    });
  }
  OwningOpRef<ModuleOp> parse(const char *text) {
    return parseSourceString<ModuleOp>(text, &ctx);
  }
  MLIRContext ctx;
};

// Hand-placed fix: one copy per consumer boundary, the producer row-major.
const char *kHandPlaced = R"mlir(
func.func @f(%x: tensor<?x256xbf16>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) {
  %q, %s = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
  %c0 = fp8q.materialize %s : tensor<?x2xf32> -> tensor<?x2xf32, #fp8q.layout<col_major>>
  %y0 = fp8q.gemm %q, %c0, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  %c1 = fp8q.materialize %s : tensor<?x2xf32> -> tensor<?x2xf32, #fp8q.layout<col_major>>
  %y1 = fp8q.gemm %q, %c1, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return
}
)mlir";

TEST_F(PropagateCountsTest, FusionRemovesHandPlacedCopies) {
  OwningOpRef<ModuleOp> module = parse(kHandPlaced);
  ASSERT_TRUE(module);
  fp8q::PropagationCounts counts =
      fp8q::propagateScaleLayouts(*module, /*fuseProducers=*/true);
  EXPECT_EQ(counts.inserted, 0u);
  EXPECT_EQ(counts.removed, 2u);
  EXPECT_EQ(counts.fused, 1u);
  EXPECT_EQ(counts.remaining, 0u);
  EXPECT_TRUE(succeeded(verify(*module)));
  fp8q::PropagationCounts again =
      fp8q::propagateScaleLayouts(*module, /*fuseProducers=*/true);
  EXPECT_EQ(again.inserted + again.removed + again.fused, 0u);
}

TEST_F(PropagateCountsTest, WithoutFusionOneSharedCopyIsKept) {
  OwningOpRef<ModuleOp> module = parse(kHandPlaced);
  ASSERT_TRUE(module);
  fp8q::PropagationCounts counts =
      fp8q::propagateScaleLayouts(*module, /*fuseProducers=*/false);
  // The first hand-written op is reused, the duplicate removed.
  EXPECT_EQ(counts.inserted, 0u);
  EXPECT_EQ(counts.removed, 1u);
  EXPECT_EQ(counts.fused, 0u);
  EXPECT_EQ(counts.remaining, 1u);
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(PropagateCountsTest, PublicArgumentGetsOneInsertedCopy) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
func.func @f(%q: tensor<?x256xf8E4M3FN>, %s: tensor<?x2xf32>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) {
  %y0 = fp8q.gemm %q, %s, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  %y1 = fp8q.gemm %q, %s, %wp, %ws {kernel = #fp8q.kernel<cublas>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return
}
)mlir");
  ASSERT_TRUE(module);
  fp8q::PropagationCounts counts =
      fp8q::propagateScaleLayouts(*module, /*fuseProducers=*/true);
  EXPECT_EQ(counts.inserted, 1u);
  EXPECT_EQ(counts.removed, 0u);
  EXPECT_EQ(counts.remaining, 1u);
  // The function's signature is its ABI.
  auto func = cast<func::FuncOp>(module->getBody()->front());
  EXPECT_EQ(
      func.getArgumentTypes()[1],
      RankedTensorType::get({ShapedType::kDynamic, 2}, Float32Type::get(&ctx)));
}

/// Three layouts (row, col, col4) and one dynamic-M shape: only identical
/// layouts are equal.
ls::Problem makeProblem() {
  ls::Problem p;
  p.numLayouts = 3;
  p.equivalent.push_back(std::vector<bool>(9, false));
  return p;
}

TEST(ScaleLayoutSolverTest, ByteNeedsShareOneCopy) {
  ls::Problem p = makeProblem();
  p.nodes.push_back({/*pinned=*/true, 0});
  ls::Value v;
  v.node = 0;
  v.byteReqs = {1, 1, 2};
  p.values.push_back(v);
  ls::ValuePlan plan = ls::planValue(p, p.values[0], {0});
  ASSERT_EQ(plan.targets.size(), 2u);
  EXPECT_EQ(plan.byteUse[0], plan.byteUse[1]);
  EXPECT_NE(plan.byteUse[0], plan.byteUse[2]);
  EXPECT_EQ(ls::totalCost(p, {0}).materializations, 2);
}

TEST(ScaleLayoutSolverTest, FreeNodeTakesTheNeededLayout) {
  ls::Problem p = makeProblem();
  p.nodes.push_back({/*pinned=*/false, 0});
  ls::Value v;
  v.node = 0;
  v.byteReqs = {1};
  v.exactReqs = {1};
  p.values.push_back(v);
  ls::Solution s = ls::solve(p, {0, 1, 2});
  EXPECT_TRUE(s.provenMinimal);
  EXPECT_EQ(s.layoutOf[0], 1u);
  EXPECT_EQ(s.cost.materializations, 0);
  EXPECT_EQ(s.cost.churn, 1);
}

TEST(ScaleLayoutSolverTest, EqualLayoutsNeedNoCopy) {
  ls::Problem p = makeProblem();
  // A shape where col and col4 are the same bytes (static M = 16).
  p.equivalent[0][1 * 3 + 2] = p.equivalent[0][2 * 3 + 1] = true;
  p.nodes.push_back({/*pinned=*/true, 1});
  ls::Value v;
  v.node = 0;
  v.byteReqs = {2};
  v.exactReqs = {2};
  p.values.push_back(v);
  ls::ValuePlan plan = ls::planValue(p, p.values[0], {1});
  // The exact need still changes the type, but copies nothing; the byte
  // need is met by the value as it is.
  ASSERT_EQ(plan.targets.size(), 1u);
  EXPECT_FALSE(plan.copies[0]);
  EXPECT_EQ(plan.exactUse[0], 0);
  EXPECT_EQ(plan.byteUse[0], -1);
}

TEST(ScaleLayoutSolverTest, FlowsCoupleNodes) {
  // A pinned row-major source flows into two free nodes that both want
  // col_major: the source is copied once and both nodes share the copy.
  ls::Problem p = makeProblem();
  p.nodes.push_back({true, 0});
  p.nodes.push_back({false, 0});
  p.nodes.push_back({false, 0});
  ls::Value src;
  src.node = 0;
  src.flowsInto = {1, 2};
  ls::Value a;
  a.node = 1;
  a.byteReqs = {1};
  ls::Value b;
  b.node = 2;
  b.byteReqs = {1};
  p.values = {src, a, b};
  ls::Solution s = ls::solve(p, {0, 1, 2});
  EXPECT_EQ(s.cost.materializations, 1);
  EXPECT_EQ(s.layoutOf[1], 1u);
  EXPECT_EQ(s.layoutOf[2], 1u);
}

TEST(ScaleLayoutSolverTest, SameBytesTargetIsARetypeNotACopy) {
  // With col and col_align4 the same bytes, a free value needed exactly as
  // row, col and col_align4 has two materializations in any layout, but
  // only one copy in col or col_align4 (the other target is a retype).
  ls::Problem p = makeProblem();
  p.equivalent[0][1 * 3 + 2] = p.equivalent[0][2 * 3 + 1] = true;
  p.nodes.push_back({/*pinned=*/false, 0});
  ls::Value v;
  v.node = 0;
  v.exactReqs = {0, 1, 2};
  p.values.push_back(v);
  ls::Solution s = ls::solve(p, {0, 1, 2});
  EXPECT_TRUE(s.provenMinimal);
  EXPECT_NE(s.layoutOf[0], 0u);
  EXPECT_EQ(s.cost.materializations, 2);
  EXPECT_EQ(s.cost.copies, 1);
  EXPECT_EQ(s.cost.weightedCopies, 1);
  EXPECT_EQ(s.cost.churn, 1);
  EXPECT_TRUE(s.cost == ls::totalCost(p, s.layoutOf));
}

TEST(ScaleLayoutSolverTest, StridedNeedTakesAnyStridedLayout) {
  // Layout 2 stands for a padded layout (not strided). A strided need is
  // met by the value in 0 or 1, or by a strided target it needs anyway;
  // else one more op to the fallback (row_major, 0).
  ls::Problem p = makeProblem();
  p.strided = {1, 1, 0};
  p.stridedFallback = 0;
  p.nodes.push_back({/*pinned=*/true, 1});
  ls::Value v;
  v.node = 0;
  v.stridedReq = true;
  p.values.push_back(v);
  EXPECT_TRUE(ls::planValue(p, p.values[0], {1}).targets.empty());
  p.nodes[0].layout = 2;
  ls::ValuePlan plan = ls::planValue(p, p.values[0], {2});
  ASSERT_EQ(plan.targets.size(), 1u);
  EXPECT_EQ(plan.targets[0], 0u);
  EXPECT_EQ(plan.stridedUse, 0);
  EXPECT_EQ(ls::totalCost(p, {2}).copies, 1);
  // A col_major exact need serves the strided one too: one op, not two.
  p.values[0].exactReqs = {1};
  plan = ls::planValue(p, p.values[0], {2});
  ASSERT_EQ(plan.targets.size(), 1u);
  EXPECT_EQ(plan.targets[0], 1u);
  EXPECT_EQ(plan.stridedUse, 0);
  EXPECT_EQ(ls::totalCost(p, {2}).materializations, 1);
}

TEST(ScaleLayoutSolverTest, CandidateSetsRestrictFreeNodes) {
  // A free node whose values need layout 2 exactly takes it when it may;
  // restricted to {0, 1} (an f32 scale cannot take a padded layout) it
  // keeps 0 and pays one op.
  ls::Problem p = makeProblem();
  p.nodes.push_back({/*pinned=*/false, 0});
  ls::Value v;
  v.node = 0;
  v.exactReqs = {2};
  p.values.push_back(v);
  EXPECT_EQ(ls::solve(p, {0, 1, 2}).layoutOf[0], 2u);
  p.candidateSets = {{0, 1}};
  p.candidateSetOf = {0};
  ls::Solution s = ls::solve(p, {0, 1, 2});
  EXPECT_NE(s.layoutOf[0], 2u);
  EXPECT_EQ(s.cost.materializations, 1);
}

TEST(ScaleLayoutSolverTest, BudgetExhaustionIsReported) {
  // A pinned col scale flows into six free row nodes, each read by a gemm
  // wanting col: 7 materializations as given, none once every node is col.
  // A budget of one step stops the exact search before its first
  // assignment; the local search that follows must still reach a local
  // minimum (here the only one, all col), and the reported cost must be
  // that of the returned layouts.
  ls::Problem p = makeProblem();
  p.nodes.push_back({/*pinned=*/true, 1});
  ls::Value src;
  src.node = 0;
  for (unsigned n = 1; n <= 6; ++n) {
    p.nodes.push_back({/*pinned=*/false, 0});
    src.flowsInto.push_back(n);
    ls::Value v;
    v.node = n;
    v.byteReqs = {1};
    p.values.push_back(v);
  }
  p.values.push_back(src);
  std::vector<unsigned> start(7, 0);
  start[0] = 1;
  ASSERT_EQ(ls::totalCost(p, start).materializations, 7);

  ls::Solution s = ls::solve(p, {0, 1, 2}, /*budget=*/1);
  EXPECT_FALSE(s.provenMinimal);
  EXPECT_TRUE(s.cost == ls::totalCost(p, s.layoutOf));
  EXPECT_EQ(s.layoutOf[0], 1u);
  // No single node can move to a cheaper assignment.
  for (unsigned n = 1; n <= 6; ++n)
    for (unsigned layout : {0u, 1u, 2u}) {
      std::vector<unsigned> moved = s.layoutOf;
      moved[n] = layout;
      EXPECT_FALSE(ls::totalCost(p, moved) < s.cost)
          << "node " << n << " to " << layout;
    }
  ls::Solution exact = ls::solve(p, {0, 1, 2});
  EXPECT_TRUE(exact.provenMinimal);
  EXPECT_EQ(exact.cost.materializations, 0);
  EXPECT_EQ(s.cost.materializations, 0);
  EXPECT_EQ(s.cost.churn, 6);
}

} // namespace

// The carrier models are registered in one place (registerFp8qDialects); a
// context without them is refused, not silently propagated with every
// tensor.cast an unknown consumer.
TEST(PropagateContextTest, MissingCarrierModelsAreAnError) {
  MLIRContext ctx;
  ctx.loadDialect<fp8q::Fp8qDialect, func::FuncDialect,
                  tensor::TensorDialect>();
  std::string errors;
  ctx.getDiagEngine().registerHandler([&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      errors += diag.str();
  });
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>("func.func @f() { return }", &ctx);
  ASSERT_TRUE(module);
  EXPECT_FALSE(fp8q::hasScaleLayoutCarrierModels(&ctx));
  EXPECT_TRUE(failed(fp8q::checkScaleLayoutAnalysisContext(*module)));
  EXPECT_NE(errors.find("fp8q::registerFp8qDialects"), std::string::npos);

  DialectRegistry registry;
  fp8q::registerScaleLayoutCarrierExternalModels(registry);
  ctx.appendDialectRegistry(registry);
  EXPECT_TRUE(fp8q::hasScaleLayoutCarrierModels(&ctx));
  EXPECT_TRUE(succeeded(fp8q::checkScaleLayoutAnalysisContext(*module)));
}
