//===- TestHandPlacedCopies.cpp - The historical fix, as a baseline -------===//
//
// Models the hand-written fix of SGLang PR 29275 so fp8q's propagation can be
// measured against it: producers write row-major and every GEMM whose kernel
// reads another layout gets its own copy (`scale.t().contiguous().t()`),
// placed at the consumer, shared with nobody and hoisted nowhere.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"
#include "fp8q/Dialect/IR/ScaleLayout.h"
#include "fp8q/Target/KernelContracts.h"

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
    getOperation().walk([&](GemmOp gemm) {
      std::optional<Kernel> kernel = gemm.getKernel();
      if (!kernel)
        return;
      auto scaleType = cast<RankedTensorType>(gemm.getXScale().getType());
      LayoutAttr required = getRequiredScaleLayout(*kernel, gemm.getContext());
      if (!required || scaleLayoutSatisfies(*kernel, getScaleLayout(scaleType),
                                            scaleType.getShape()))
        return;
      // The consumer boundary copy: the same value re-materialized before
      // each gemm that needs it, however many share the scale.
      OpBuilder builder(gemm);
      Value copy = MaterializeOp::create(builder, gemm.getLoc(),
                                         withScaleLayout(scaleType, required),
                                         gemm.getXScale());
      gemm.getXScaleMutable().assign(copy);
      ++numCopiesInserted;
    });
  }
};
} // namespace
