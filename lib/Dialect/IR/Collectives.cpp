//===- Collectives.cpp - The shard collectives fp8q lowers ----------------===//

#include "fp8q/Dialect/IR/Collectives.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;

namespace fp8q {

bool isShardCollective(Operation *op) {
  return isa<shard::AllGatherOp, shard::ReduceScatterOp>(op);
}

/// The ranks of one static axis of the grid `op` names.
static FailureOr<int64_t> ranksOf(Operation *op, FlatSymbolRefAttr gridName,
                                  ArrayRef<int16_t> axes) {
  auto grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(op, gridName);
  if (!grid)
    return op->emitError() << "collective names grid " << gridName
                           << ", which the module does not define";
  if (axes.size() != 1)
    return op->emitError()
           << "fp8q lowers collectives over exactly one grid axis (one "
              "communicator), got grid_axes = ["
           << llvm::make_range(axes.begin(), axes.end()) << "]";
  ArrayRef<int64_t> shape = grid.getShape();
  if (axes[0] < 0 || axes[0] >= static_cast<int64_t>(shape.size()) ||
      ShapedType::isDynamic(shape[axes[0]]) || shape[axes[0]] < 1)
    return op->emitError() << "grid axis " << axes[0] << " of grid " << gridName
                           << " must exist and have a static size";
  return shape[axes[0]];
}

FailureOr<int64_t> getCollectiveRanks(Operation *op) {
  if (auto gather = dyn_cast<shard::AllGatherOp>(op)) {
    if (gather.getInput().getType().getRank() != 2 ||
        gather.getGatherAxis() != 0)
      return op->emitError() << "fp8q lowers shard.all_gather of rank-2 "
                                "tensors along gather_axis = 0 (the rows)";
    return ranksOf(op, gather.getGridAttr(), gather.getGridAxes());
  }
  auto scatter = dyn_cast<shard::ReduceScatterOp>(op);
  if (!scatter)
    return op->emitError() << "not a collective fp8q lowers";
  auto inType = cast<RankedTensorType>(scatter.getInput().getType());
  if (inType.getRank() != 2 || scatter.getScatterAxis() != 0 ||
      scatter.getReduction() != shard::ReductionKind::Sum ||
      !inType.getElementType().isBF16())
    return op->emitError()
           << "fp8q lowers shard.reduce_scatter of rank-2 bf16 tensors with "
              "reduction = sum along scatter_axis = 0 (the rows)";
  // (shard's verifier already rejects static rows the ranks do not divide.)
  return ranksOf(op, scatter.getGridAttr(), scatter.getGridAxes());
}

} // namespace fp8q
