//===- ScaleLayoutRewrite.h - Apply a scale-layout plan ---------*- C++ -*-===//
//
// The rewrite half of --fp8q-propagate-scale-layout: detaches a module's
// fp8q.materialize ops before ScaleLayoutAnalysis builds its problem, then
// applies the solved plan with an IRRewriter (retypes free nodes and
// private signatures, inserts or reuses one materialization per value and
// needed layout) and emits the remarks, built from the plan.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_TRANSFORMS_SCALELAYOUTREWRITE_H
#define FP8Q_TRANSFORMS_SCALELAYOUTREWRITE_H

#include "fp8q/Transforms/PropagateScaleLayout.h"
#include "fp8q/Transforms/ScaleLayoutAnalysis.h"

#include "mlir/IR/PatternMatch.h"

namespace fp8q {

/// Materializations taken out of the program: their uses were handed to
/// their operands; the rewrite reuses one when the same (operand, layout)
/// is needed again, so a second run changes nothing, and erases the rest.
struct DetachedMaterializations {
  /// Their operands: seeds of the analysis.
  llvm::DenseSet<mlir::Value> operands;
  /// The first of each (operand, result type), for reuse.
  llvm::DenseMap<std::pair<const void *, const void *>, MaterializeOp> byKey;
  /// All of them, in walk order.
  llvm::SmallVector<MaterializeOp> order;
};

/// Hands the uses of every op of `ops` to its operand.
DetachedMaterializations
detachMaterializations(mlir::RewriterBase &rewriter,
                       llvm::ArrayRef<MaterializeOp> ops);

/// Applies `plan` to `module` (whose materializations are `detached`) and
/// returns what it did.
PropagationCounts applyScaleLayoutPlan(mlir::RewriterBase &rewriter,
                                       mlir::ModuleOp module,
                                       const ScaleLayoutPlan &plan,
                                       DetachedMaterializations &detached);

} // namespace fp8q

#endif // FP8Q_TRANSFORMS_SCALELAYOUTREWRITE_H
