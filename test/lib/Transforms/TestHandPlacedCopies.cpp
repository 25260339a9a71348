//===- TestHandPlacedCopies.cpp - The historical fix, as a baseline -------===//
//
// Models the hand-written fix of SGLang PR 29275 so fp8q's propagation can be
// measured against it: producers write row-major and every GEMM whose kernel
// reads another layout (of x_scale, or of a SPEC v2 w_scale) gets its own
// copy (`scale.t().contiguous().t()`),
// placed at the consumer, shared with nobody and hoisted nowhere. Which
// consumers read another layout comes from ScaleLayoutAnalysis in read-only
// mode (the needs propagation solves for), not from a rule of its own.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"
#include "fp8q/Dialect/IR/ScaleLayout.h"
#include "fp8q/Transforms/ScaleLayoutAnalysis.h"

#include "mlir/IR/Builders.h"

namespace fp8q::test {
#define GEN_PASS_DEF_HANDPLACEDCOPIES
#include "TestPasses.h.inc"
} // namespace fp8q::test

using namespace mlir;
using namespace fp8q;

namespace {
struct HandPlacedCopiesPass
    : public fp8q::test::impl::HandPlacedCopiesBase<HandPlacedCopiesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkScaleLayoutAnalysisContext(module)))
      return signalPassFailure();
    ScaleLayoutAnalysis analysis(module, /*fuseProducers=*/false);
    const ScaleLayoutPlan &plan = analysis.solveInPlace();
    for (const ScaleUse &use : plan.uses) {
      // SPEC v2 weight scales too (a kernel's w_scale layout): the same
      // copy at the consumer.
      bool kernelNeed = use.consumer == ScaleConsumer::XScale ||
                        (use.consumer == ScaleConsumer::WScale &&
                         use.kind != ScaleNeed::Exact);
      if (!kernelNeed || plan.isMet(use))
        continue;
      // The consumer boundary copy: the same value re-materialized before
      // each gemm that needs it, however many share the scale.
      Operation *gemm = use.operand->getOwner();
      Value scale = use.operand->get();
      OpBuilder builder(gemm);
      Value copy = MaterializeOp::create(
          builder, gemm->getLoc(),
          withScaleLayout(cast<RankedTensorType>(scale.getType()), use.layout),
          scale);
      use.operand->set(copy);
      ++numCopiesInserted;
    }
  }
};
} // namespace
