//===- ScaleLayoutCarrierTest.cpp - A layout carrier added by a test ------===//
//
// Adding a layout-carrying op to --fp8q-propagate-scale-layout is one
// external model of ScaleLayoutCarrierOpInterface: this test attaches one
// to arith.select (which the pass does not know) in the test alone, and
// the propagation sees through it.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Dialect/IR/Fp8qDialect.h"
#include "fp8q/Dialect/IR/ScaleLayout.h"
#include "fp8q/Interfaces/ScaleLayoutInterfaces.h"
#include "fp8q/Transforms/PropagateScaleLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

/// arith.select of two scales is stored in their layout: both values
/// operands are carried into the result (the condition is not).
struct SelectCarrierModel
    : fp8q::ScaleLayoutCarrierOpInterface::ExternalModel<SelectCarrierModel,
                                                         arith::SelectOp> {
  Value getCarriedScaleLayoutResult(Operation *op, OpOperand &operand) const {
    auto select = cast<arith::SelectOp>(op);
    if (operand.getOperandNumber() == 0 ||
        !fp8q::isScaleTensorType(select.getType()))
      return {};
    return select.getResult();
  }
  // carriesScaleLayout: the interface's default (some operand is carried).
};

// Two quantized activations, one chosen by a select, read by a
// ck_bpreshuffle gemm (column-major x_scale).
const char *kSelect = R"mlir(
func.func @f(%x: tensor<?x256xbf16>, %y: tensor<?x256xbf16>, %c: i1, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) -> tensor<?x128xbf16> {
  %q0, %s0 = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
  %q1, %s1 = fp8q.quantize %y : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
  %q = arith.select %c, %q0, %q1 : tensor<?x256xf8E4M3FN>
  %s = arith.select %c, %s0, %s1 : tensor<?x2xf32>
  %r = fp8q.gemm %q, %s, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return %r : tensor<?x128xbf16>
}
)mlir";

struct Outcome {
  fp8q::PropagationCounts counts;
  bool verified = false;
  /// The layout of the select's scale result afterwards, as plain flags:
  /// the attribute itself dies with the context propagate() owns.
  bool haveSelectLayout = false;
  bool selectRowMajor = false;
  bool selectColMajor = false;
};

Outcome propagate(bool withModel) {
  DialectRegistry registry;
  registry.insert<fp8q::Fp8qDialect, func::FuncDialect, arith::ArithDialect,
                  tensor::TensorDialect>();
  fp8q::registerScaleLayoutCarrierExternalModels(registry);
  if (withModel)
    registry.addExtension(+[](MLIRContext *ctx, arith::ArithDialect *) {
      arith::SelectOp::attachInterface<SelectCarrierModel>(*ctx);
    });
  MLIRContext ctx(registry);
  ctx.getDiagEngine().registerHandler([](Diagnostic &diag) {
    return success(diag.getSeverity() == DiagnosticSeverity::Remark);
  });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kSelect, &ctx);
  EXPECT_TRUE(module);
  Outcome out;
  if (!module)
    return out;
  out.counts = fp8q::propagateScaleLayouts(*module, /*fuseProducers=*/true);
  out.verified = succeeded(verify(*module));
  module->walk([&](arith::SelectOp select) {
    if (!fp8q::isScaleTensorType(select.getType()))
      return;
    fp8q::LayoutAttr layout =
        fp8q::getScaleLayout(cast<RankedTensorType>(select.getType()));
    out.haveSelectLayout = bool(layout);
    out.selectRowMajor = layout && layout.isRowMajor();
    out.selectColMajor = layout && layout.isColMajor();
  });
  // Idempotent with the model too.
  fp8q::PropagationCounts again =
      fp8q::propagateScaleLayouts(*module, /*fuseProducers=*/true);
  EXPECT_EQ(again.inserted + again.removed + again.fused, 0u);
  return out;
}

TEST(ScaleLayoutCarrierTest, UnknownOpGetsRowMajorAndACopy) {
  Outcome out = propagate(/*withModel=*/false);
  // The select is an unknown consumer: its operands stay row-major and
  // its result is copied to column-major for the gemm.
  EXPECT_EQ(out.counts.inserted, 1u);
  EXPECT_EQ(out.counts.fused, 0u);
  EXPECT_TRUE(out.verified);
  ASSERT_TRUE(out.haveSelectLayout);
  EXPECT_TRUE(out.selectRowMajor);
}

TEST(ScaleLayoutCarrierTest, ExternalModelLetsTheLayoutFlowThrough) {
  Outcome out = propagate(/*withModel=*/true);
  // Both quantizes write column-major; the select carries it to the gemm.
  EXPECT_EQ(out.counts.inserted, 0u);
  EXPECT_EQ(out.counts.fused, 2u);
  EXPECT_EQ(out.counts.remaining, 0u);
  EXPECT_TRUE(out.verified);
  ASSERT_TRUE(out.haveSelectLayout);
  EXPECT_TRUE(out.selectColMajor);
}

} // namespace
