//===- PropagateScaleLayout.cpp - Assign scale layouts, fewest copies -----===//
//
// --fp8q-propagate-scale-layout: a small driver over
//
// 1. ScaleLayoutAnalysis (ScaleLayoutAnalysis.h): one walk of the module;
// 2. detachMaterializations (ScaleLayoutRewrite.h): every fp8q.materialize
//    is detached (its uses take its operand); the rewrite re-derives each
//    one it needs and reuses the detached op when the same (value, layout)
//    comes back, so a second run changes nothing;
// 3. ScaleLayoutAnalysis::solve: the layout problem of the module (from
//    RegionBranchOpInterface, CallOpInterface and
//    ScaleLayoutCarrierOpInterface) and its solution (ScaleLayoutSolver);
// 4. applyScaleLayoutPlan: retypes, inserts and reuses materializations
//    through an IRRewriter, and emits the remarks.
//
// Counts: the pass declares its statistics, but Debian's release LLVM
// compiles them out (NoopStatistic); propagateScaleLayouts() returns them.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Transforms/PropagateScaleLayout.h"
#include "fp8q/Support/Diagnostics.h"
#include "fp8q/Transforms/Passes.h"
#include "fp8q/Transforms/ScaleLayoutAnalysis.h"
#include "fp8q/Transforms/ScaleLayoutRewrite.h"

#include "mlir/IR/PatternMatch.h"

namespace fp8q {
#define GEN_PASS_DEF_PROPAGATESCALELAYOUT
#include "fp8q/Transforms/Passes.h.inc"
} // namespace fp8q

using namespace mlir;
using namespace fp8q;

namespace {

struct PropagateScaleLayoutPass
    : public fp8q::impl::PropagateScaleLayoutBase<PropagateScaleLayoutPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(checkScaleLayoutAnalysisContext(getOperation())))
      return signalPassFailure();
    PropagationCounts counts =
        propagateScaleLayouts(getOperation(), fuseProducers);
    numMaterializationsInserted += counts.inserted;
    numProducersFused += counts.fused;
    numMaterializationsRemoved += counts.removed;
    // Release LLVM builds (Debian's among them) compile pass statistics out;
    // this remark carries the same counts to the user.
    if (reportCounts)
      fp8q::emitRemarkAt(getOperation())
          << "fp8q-propagate-scale-layout: " << counts.inserted
          << " materializations inserted, " << counts.fused
          << " producers fused, " << counts.removed
          << " materializations removed, " << counts.remaining
          << " materializations remain";
  }
};

} // namespace

PropagationCounts fp8q::propagateScaleLayouts(ModuleOp module,
                                              bool fuseProducers) {
  ScaleLayoutAnalysis analysis(module, fuseProducers);
  IRRewriter rewriter(module.getContext());
  DetachedMaterializations detached =
      detachMaterializations(rewriter, analysis.getMaterializations());
  const ScaleLayoutPlan &plan = analysis.solve(detached.operands);
  return applyScaleLayoutPlan(rewriter, module, plan, detached);
}
