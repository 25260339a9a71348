//===- CheckFp8Type.cpp - Check or fix the fp8 flavour gemms read ---------===//
//
// The second step of --fp8q-select-kernels: every fp8q.gemm must read the
// fp8 flavour its kernel's contract names on the module's target. Reports
// mismatches, or with fix-fp8-type retypes quantize producers and converts
// constant weights exactly.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Support/Diagnostics.h"
#include "fp8q/Target/KernelContracts.h"
#include "fp8q/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace fp8q {
#define GEN_PASS_DEF_CHECKFP8TYPE
#include "fp8q/Transforms/Passes.h.inc"
} // namespace fp8q

using namespace mlir;
using namespace fp8q;

namespace {

static Type elementTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

struct CheckFp8TypePass
    : public fp8q::impl::CheckFp8TypeBase<CheckFp8TypePass> {
  using Base::Base;

  void runOnOperation() override;

private:
  /// Reports (or with fix-fp8-type, repairs) fp8 flavours the target's
  /// kernels do not read.
  LogicalResult fixOrCheckFp8(TargetAttr target);
  /// Converts a constant weight to fp8 type `want` exactly.
  FailureOr<Value> convertWeight(GemmOp gemm, Type want);
  /// `wScale * factor`, folded when `wScale` is a constant.
  Value scaleWeightScale(Value wScale, double factor, Location loc);

  /// Conversions done once per value (weights shared by several gemms).
  DenseMap<Value, Value> convertedWeights, scaledWeightScales;
};

/// Multiplies a weight scale by `factor`, once per value: a dense constant
/// is folded, anything else gets an arith.mulf by a splat.
Value CheckFp8TypePass::scaleWeightScale(Value wScale, double factor,
                                         Location loc) {
  Value &scaled = scaledWeightScales[wScale];
  if (scaled)
    return scaled;
  auto type = cast<RankedTensorType>(wScale.getType());
  OpBuilder builder(wScale.getContext());
  builder.setInsertionPointAfterValue(wScale);
  DenseElementsAttr dense;
  if (auto cst = wScale.getDefiningOp<arith::ConstantOp>())
    dense = dyn_cast<DenseElementsAttr>(cst.getValue());
  if (dense) {
    // Weight scales are f32 (op verifier); factor is a power of two, so the
    // product is exact.
    SmallVector<APFloat> values;
    for (APFloat v : dense.getValues<APFloat>())
      values.push_back(
          APFloat(static_cast<float>(v.convertToFloat() * factor)));
    scaled = arith::ConstantOp::create(builder, loc,
                                       DenseElementsAttr::get(type, values));
    return scaled;
  }
  Value splat = arith::ConstantOp::create(
      builder, loc,
      DenseElementsAttr::get(type, builder.getF32FloatAttr(factor)));
  scaled = arith::MulFOp::create(builder, loc, wScale, splat);
  return scaled;
}

/// Moves a constant weight to fp8 flavour `want` exactly. E4M3FN bits read
/// as E4M3FNUZ are half the value, so E4M3FN -> E4M3FNUZ halves every
/// element (exact) and doubles the weight scale; the other direction keeps
/// values, which must then be representable.
FailureOr<Value> CheckFp8TypePass::convertWeight(GemmOp gemm, Type want) {
  Value weight = gemm.getW();
  if (Value done = convertedWeights.lookup(weight))
    return done;
  auto type = cast<RankedTensorType>(weight.getType());
  DenseElementsAttr dense;
  if (auto cst = weight.getDefiningOp<arith::ConstantOp>())
    dense = dyn_cast<DenseElementsAttr>(cst.getValue());
  if (!dense || type.getEncoding()) {
    fp8q::emitOpErrorAt(gemm)
        << "w has " << type.getElementType() << " but " << want
        << " is needed, and fix-fp8-type converts only plain "
           "dense constant weights; convert this weight to "
        << want << " where it is loaded";
    return failure();
  }
  double factor = isa<Float8E4M3FNUZType>(want) ? 0.5 : 1.0;
  const llvm::fltSemantics &sem = cast<FloatType>(want).getFloatSemantics();
  SmallVector<APFloat> values;
  for (auto [i, v] : llvm::enumerate(dense.getValues<APFloat>())) {
    bool losesInfo = false;
    APFloat wide = v;
    wide.convert(llvm::APFloat::IEEEdouble(),
                 llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    APFloat converted(wide.convertToDouble() * factor);
    llvm::APFloat::opStatus status =
        converted.convert(sem, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    // NaN stays NaN and -0 becomes 0 (E4M3FNUZ has one NaN and no -0):
    // neither changes what the kernel computes.
    if (!v.isNaN() && !v.isZero() &&
        (losesInfo || status != llvm::APFloat::opOK)) {
      SmallString<16> text;
      wide.toString(text); // exact decimal of the fp8 value
      fp8q::emitOpErrorAt(gemm) << "w element " << i << " (" << text
                                << ") has no exact " << want << " value";
      return failure();
    }
    values.push_back(converted);
  }
  OpBuilder builder(gemm.getContext());
  builder.setInsertionPointAfterValue(weight);
  auto newType = RankedTensorType::get(type.getShape(), want);
  Value result = arith::ConstantOp::create(
      builder, weight.getLoc(), DenseElementsAttr::get(newType, values));
  convertedWeights[weight] = result;
  ++numFp8Retyped;
  return result;
}

LogicalResult CheckFp8TypePass::fixOrCheckFp8(TargetAttr target) {
  ModuleOp module = getOperation();
  Type want = getTargetFp8Type(target);
  bool ok = true;

  // Producers write the flavour their result type says: retyping q is the
  // whole fix, as long as nothing but gemms reads it.
  module.walk([&](Operation *op) {
    if (!isa<QuantizeOp, RmsNormQuantizeOp>(op))
      return;
    Value q = op->getResult(0);
    auto qType = cast<RankedTensorType>(q.getType());
    // Only the E4M3 flavours (FN / FNUZ) are a target's choice; SPEC v2's
    // f8E5M2 and f4E2M1FN are formats, checked against the kernels.
    if (qType.getElementType() == want || !isFp8Type(qType.getElementType()))
      return;
    // MXFP8 and UE8M0 (1-byte scales) are OCP E4M3 by format, whatever the
    // target's FP8 1x128 flavour.
    if (!cast<RankedTensorType>(op->getResult(1).getType())
             .getElementType()
             .isF32())
      return;
    if (!fixFp8Type) {
      fp8q::emitOpErrorAt(op)
          << "produces " << qType.getElementType() << " but target "
          << target.getArch() << " reads " << want
          << "; set fix-fp8-type to quantize to " << want;
      ok = false;
      return;
    }
    for (Operation *user : q.getUsers()) {
      if (!isa<GemmOp>(user)) {
        fp8q::emitOpErrorAt(user)
            << "reads q of a producer that fix-fp8-type must move to " << want
            << "; only q values read by fp8q.gemm ops alone can be retyped";
        ok = false;
        return;
      }
    }
    q.setType(RankedTensorType::get(qType.getShape(), want));
    ++numFp8Retyped;
  });
  if (!ok)
    return failure();

  // Gemms read the flavour their kernel's contract names on this target.
  module.walk([&](GemmOp gemm) {
    if (!gemm.getKernel()) {
      fp8q::emitOpErrorAt(gemm) << "has no kernel, so no fp8 flavour to "
                                   "check; run --fp8q-route-kernels first";
      ok = false;
      return;
    }
    // The flavour is FP8 1x128's; the other formats are matched by
    // --fp8q-verify-contracts against the kernel's formats.
    if (std::optional<BlockFormat> format = getGemmFormat(gemm);
        format && *format != BlockFormat::Fp8Block)
      return;
    Kernel kernel = *gemm.getKernel();
    StringRef kernelName = getKernelContract(kernel).name;
    Type qElem = elementTypeOf(gemm.getQ());
    Type need = getRequiredFp8Type(kernel, target);
    if (!need)
      need = fixFp8Type ? want : qElem;
    if (qElem != need) {
      InFlightDiagnostic diag = fp8q::emitOpErrorAt(gemm)
                                << "q has " << qElem << " but kernel "
                                << kernelName << " on " << target.getArch()
                                << " reads " << need;
      if (fixFp8Type)
        diag << "; fix-fp8-type retypes only fp8q.quantize and "
                "fp8q.rms_norm_quantize results";
      ok = false;
      return;
    }
    Type wElem = elementTypeOf(gemm.getW());
    if (wElem == need)
      return;
    if (!fixFp8Type) {
      fp8q::emitOpErrorAt(gemm)
          << "w has " << wElem << " but kernel " << kernelName << " on "
          << target.getArch() << " reads " << need
          << "; set fix-fp8-type to convert constant weights";
      ok = false;
      return;
    }
    FailureOr<Value> converted = convertWeight(gemm, need);
    if (failed(converted)) {
      ok = false;
      return;
    }
    if (isa<Float8E4M3FNUZType>(need) && isa<Float8E4M3FNType>(wElem))
      gemm.getWScaleMutable().assign(
          scaleWeightScale(gemm.getWScale(), 2.0, gemm.getLoc()));
    gemm.getWMutable().assign(*converted);
  });
  // Drop constants the conversion replaced.
  for (auto &entry : convertedWeights)
    if (Operation *def = entry.first.getDefiningOp(); def && def->use_empty())
      def->erase();
  return success(ok);
}

void CheckFp8TypePass::runOnOperation() {
  // Per-run memos: Values of an earlier run may have been erased.
  convertedWeights.clear();
  scaledWeightScales.clear();
  if (TargetAttr target = getModuleTarget(getOperation()))
    if (failed(fixOrCheckFp8(target)))
      signalPassFailure();
}

} // namespace
