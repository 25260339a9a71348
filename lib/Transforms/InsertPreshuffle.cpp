//===- InsertPreshuffle.cpp - Preshuffle the weights kernels need so ------===//
//
// The third step of --fp8q-select-kernels: every weight read by a kernel
// whose contract names the preshuffle_16x16 layout gets its preshuffled
// form, one per weight value. Constants are permuted at compile time by
// fp8q.preshuffle's folder (PreshuffleOp::fold, materialized by the fp8q
// dialect); the permutation itself is fp8q/Target/Preshuffle.h's.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Support/Diagnostics.h"
#include "fp8q/Target/KernelContracts.h"
#include "fp8q/Target/Preshuffle.h"
#include "fp8q/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Dominance.h"

namespace fp8q {
#define GEN_PASS_DEF_INSERTPRESHUFFLE
#include "fp8q/Transforms/Passes.h.inc"
} // namespace fp8q

using namespace mlir;
using namespace fp8q;

namespace {

/// Folds `op` when it preshuffles an arith.constant: the folded constant is
/// materialized by the fp8q dialect right before `op`, at the location of
/// the constant it permutes, and replaces `op`, which is erased. Returns
/// the new constant, or null when `op` does not fold.
static Value foldConstantPreshuffle(PreshuffleOp op) {
  auto cst = op.getW().getDefiningOp<arith::ConstantOp>();
  if (!cst)
    return {};
  SmallVector<OpFoldResult, 1> folded;
  if (failed(op->fold(folded)) || folded.size() != 1)
    return {};
  auto value = dyn_cast_if_present<Attribute>(folded.front());
  if (!value)
    return {};
  OpBuilder builder(op);
  Operation *constant = op->getDialect()->materializeConstant(
      builder, value, op.getType(), cst.getLoc());
  if (!constant)
    return {};
  Value result = constant->getResult(0);
  op.replaceAllUsesWith(result);
  op.erase();
  return result;
}

struct InsertPreshufflePass
    : public fp8q::impl::InsertPreshuffleBase<InsertPreshufflePass> {
  using Base::Base;

  void runOnOperation() override;

private:
  /// Builds the one preshuffled form of `weight`.
  Value preshuffleWeight(Value weight, Location loc);
};

/// Returns the preshuffled form of `weight`: one fp8q.preshuffle right
/// after its definition, where it dominates every user of the weight, or
/// the constant it folds to when `weight` is a dense constant (byte-exact
/// compile-time permutation).
Value InsertPreshufflePass::preshuffleWeight(Value weight, Location loc) {
  OpBuilder builder(weight.getContext());
  builder.setInsertionPointAfterValue(weight);
  auto type = cast<RankedTensorType>(weight.getType());
  auto op =
      PreshuffleOp::create(builder, loc, getPreshuffledType(type), weight);
  if (Value folded = foldConstantPreshuffle(op)) {
    ++numConstantsPreshuffled;
    return folded;
  }
  ++numPreshufflesInserted;
  return op.getResult();
}

void InsertPreshufflePass::runOnOperation() {
  ModuleOp module = getOperation();
  SmallVector<Operation *> deadConstants;

  // An explicit preshuffle of a constant is folded at compile time.
  module.walk([&](PreshuffleOp op) {
    auto cst = op.getW().getDefiningOp<arith::ConstantOp>();
    if (!foldConstantPreshuffle(op))
      return;
    ++numConstantsPreshuffled;
    if (cst->use_empty())
      cst.erase();
  });

  DominanceInfo dominance(module);
  DenseMap<Value, Value> shuffled;
  bool ok = true;
  module.walk([&](GemmOp gemm) {
    if (!gemm.getKernel()) {
      fp8q::emitOpErrorAt(gemm) << "has no kernel, so no weight layout to "
                                   "give it; run --fp8q-route-kernels first";
      ok = false;
      return;
    }
    // Which kernels read a preshuffled weight is the contract table's call.
    Kernel kernel = *gemm.getKernel();
    if (getKernelContract(kernel).weight != FP8Q_WEIGHT_PRESHUFFLE_16X16)
      return;
    Value weight = gemm.getW();
    auto type = cast<RankedTensorType>(weight.getType());
    if (weightLayoutSatisfies(kernel, type.getEncoding()))
      return; // already preshuffled
    if (!canPreshuffle(type)) {
      fp8q::emitOpErrorAt(gemm)
          << "reads a [" << type.getDimSize(0) << ", " << type.getDimSize(1)
          << "] weight that " << getKernelContract(kernel).name
          << " needs preshuffled, but preshuffle_16x16 needs "
             "N % 16 == 0 and K % "
          << getPreshuffleKMultiple(type) << " == 0";
      ok = false;
      return;
    }
    Value &result = shuffled[weight];
    if (!result) {
      // Reuse a preshuffle the input already has for this weight.
      for (Operation *user : weight.getUsers())
        if (auto existing = dyn_cast<PreshuffleOp>(user);
            existing && dominance.properlyDominates(existing.getOperation(),
                                                    gemm.getOperation())) {
          result = existing.getResult();
          break;
        }
    }
    if (!result)
      result = preshuffleWeight(weight, weight.getLoc());
    gemm.getWMutable().assign(result);
    if (Operation *def = weight.getDefiningOp();
        def && isa<arith::ConstantOp>(def))
      deadConstants.push_back(def);
  });
  for (Operation *def : deadConstants)
    if (def->use_empty())
      def->erase();
  if (!ok)
    signalPassFailure();
}

} // namespace
