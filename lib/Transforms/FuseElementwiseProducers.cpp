//===- FuseElementwiseProducers.cpp - Residual add and SiLU x mul fusion --===//
//
// Folds the elementwise op that feeds a quantizing producer into it: the
// residual add into fp8q.rms_norm_quantize (`residual`), the SiLU x mul
// into fp8q.quantize (`silu_gate`). See FuseElementwiseProducers in
// Passes.td for when each is legal and why the values do not change.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Dialect/IR/Fp8qDialect.h"
#include "fp8q/Dialect/IR/ScaleLayout.h"
#include "fp8q/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace fp8q {
#define GEN_PASS_DEF_FUSEELEMENTWISEPRODUCERS
#include "fp8q/Transforms/Passes.h.inc"
} // namespace fp8q

using namespace mlir;
using namespace fp8q;

namespace {

/// True if `user` runs after `op`: it is, or is nested in, an op that
/// follows `op` in `op`'s block.
bool runsAfter(Operation *op, Operation *user) {
  Operation *ancestor = op->getBlock()->findAncestorOpInBlock(*user);
  return ancestor && ancestor != op && op->isBeforeInBlock(ancestor);
}

/// True if `value` is a tensor of 1.0 (a splat constant or tensor.splat of
/// the constant 1.0).
bool isSplatOne(Value value) {
  FloatAttr scalar;
  if (auto splat = value.getDefiningOp<tensor::SplatOp>())
    return matchPattern(splat.getInput(), m_Constant(&scalar)) &&
           scalar.getValue().isExactlyValue(1.0);
  SplatElementsAttr dense;
  if (!matchPattern(value, m_Constant(&dense)))
    return false;
  auto element = dyn_cast<FloatAttr>(dense.getSplatValue<Attribute>());
  return element && element.getValue().isExactlyValue(1.0);
}

/// The g of `value` = g / (1 + exp(-g)), or null.
Value matchSilu(Value value) {
  auto div = value.getDefiningOp<arith::DivFOp>();
  if (!div)
    return {};
  Value g = div.getLhs();
  auto add = div.getRhs().getDefiningOp<arith::AddFOp>();
  if (!add)
    return {};
  Value one = add.getLhs(), exp = add.getRhs();
  if (!isSplatOne(one))
    std::swap(one, exp);
  auto expOp = exp.getDefiningOp<math::ExpOp>();
  if (!isSplatOne(one) || !expOp)
    return {};
  auto neg = expOp.getOperand().getDefiningOp<arith::NegFOp>();
  return neg && neg.getOperand() == g ? g : Value();
}

/// `value` without an arith.extf from a narrower float type.
Value stripExtension(Value value) {
  if (auto ext = value.getDefiningOp<arith::ExtFOp>())
    return ext.getIn();
  return value;
}

/// Erases `root` and the ops feeding it that have no other use and no side
/// effect (the unfused chain), operands first visited last.
void eraseDeadChain(RewriterBase &rewriter, Operation *root) {
  SmallVector<Operation *> worklist{root};
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!op->use_empty() || !isMemoryEffectFree(op))
      continue;
    SmallVector<Operation *> producers;
    for (Value operand : op->getOperands())
      if (Operation *producer = operand.getDefiningOp())
        producers.push_back(producer);
    rewriter.eraseOp(op);
    for (Operation *producer : producers)
      if (!llvm::is_contained(worklist, producer))
        worklist.push_back(producer);
  }
}

/// rms_norm_quantize(addf(a, b)) -> rms_norm_quantize a residual(b).
bool fuseResidualAdd(RewriterBase &rewriter, RmsNormQuantizeOp norm) {
  if (norm.getResidual())
    return false;
  auto add = norm.getX().getDefiningOp<arith::AddFOp>();
  if (!add || add.getType() != norm.getX().getType())
    return false;
  // The sum is defined at the norm from now on.
  for (Operation *user : add->getUsers())
    if (user != norm && !runsAfter(norm, user))
      return false;
  rewriter.setInsertionPoint(norm);
  Type xType = norm.getX().getType();
  auto fused = RmsNormQuantizeOp::create(
      rewriter, norm.getLoc(), norm.getQ().getType(), norm.getScale().getType(),
      norm.getUnquantized() ? norm.getUnquantized().getType() : Type(), xType,
      add.getLhs(), norm.getGamma(), add.getRhs(), norm.getEpsilonAttr(),
      norm.getGroupSizeAttr(), norm.getKeepUnquantizedAttr());
  fused->setDiscardableAttrs(norm->getDiscardableAttrDictionary());
  rewriter.replaceAllUsesWith(norm.getQ(), fused.getQ());
  rewriter.replaceAllUsesWith(norm.getScale(), fused.getScale());
  if (norm.getUnquantized())
    rewriter.replaceAllUsesWith(norm.getUnquantized(), fused.getUnquantized());
  rewriter.eraseOp(norm);
  rewriter.replaceAllUsesWith(add.getResult(), fused.getResidualSum());
  rewriter.eraseOp(add);
  return true;
}

/// quantize(mulf(silu(g), u)) -> quantize u silu_gate(g).
bool fuseSiluMul(RewriterBase &rewriter, QuantizeOp quant) {
  if (quant.getSiluGate() || quant.getGlobalScale() || quant.getScaleRounding())
    return false;
  auto qType = cast<RankedTensorType>(quant.getQ().getType());
  auto scaleType = cast<RankedTensorType>(quant.getScale().getType());
  if (!isFp8Type(qType.getElementType()) || !scaleType.getElementType().isF32())
    return false;
  auto mul = quant.getX().getDefiningOp<arith::MulFOp>();
  // The fused op computes in f32; a product used elsewhere is computed
  // anyway.
  if (!mul || !getElementTypeOrSelf(mul.getType()).isF32() || !mul->hasOneUse())
    return false;
  Value g = matchSilu(mul.getLhs()), u = mul.getRhs();
  if (!g) {
    g = matchSilu(mul.getRhs());
    u = mul.getLhs();
  }
  if (!g)
    return false;
  // Read the narrow operands when both are extended from one type.
  Value narrowG = stripExtension(g), narrowU = stripExtension(u);
  if (narrowG.getType() == narrowU.getType()) {
    g = narrowG;
    u = narrowU;
  }
  rewriter.setInsertionPoint(quant);
  auto fused =
      QuantizeOp::create(rewriter, quant.getLoc(), qType, scaleType, u, g,
                         /*global_scale=*/Value(), quant.getGroupSizeAttr(),
                         /*scale_rounding=*/nullptr);
  fused->setDiscardableAttrs(quant->getDiscardableAttrDictionary());
  rewriter.replaceOp(quant, fused->getResults());
  eraseDeadChain(rewriter, mul);
  return true;
}

struct FuseElementwiseProducersPass
    : public fp8q::impl::FuseElementwiseProducersBase<
          FuseElementwiseProducersPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<RmsNormQuantizeOp> norms;
    SmallVector<QuantizeOp> quants;
    getOperation().walk([&](Operation *op) {
      if (auto norm = dyn_cast<RmsNormQuantizeOp>(op))
        norms.push_back(norm);
      else if (auto quant = dyn_cast<QuantizeOp>(op))
        quants.push_back(quant);
    });
    IRRewriter rewriter(&getContext());
    for (RmsNormQuantizeOp norm : norms)
      numResidualAddsFused += fuseResidualAdd(rewriter, norm);
    for (QuantizeOp quant : quants)
      numSiluMulsFused += fuseSiluMul(rewriter, quant);
  }
};

} // namespace
