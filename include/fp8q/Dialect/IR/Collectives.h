//===- Collectives.h - The shard collectives fp8q lowers --------*- C++ -*-===//
//
// fp8q models a tensor-parallel boundary with upstream's shard dialect
// (docs/Lowering.md, "Collectives") and lowers two of its collectives to
// the runtime ABI's NCCL / RCCL calls: shard.all_gather along dim 0 and
// shard.reduce_scatter (sum) along dim 0, each over one static axis of a
// shard.grid. Propagation, verify-contracts, bufferization and the
// artifact's manifest all ask this header which ops those are.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_DIALECT_IR_COLLECTIVES_H
#define FP8Q_DIALECT_IR_COLLECTIVES_H

#include "mlir/IR/Operation.h"

namespace fp8q {

/// True for shard.all_gather and shard.reduce_scatter (whether or not fp8q
/// can lower the instance).
bool isShardCollective(mlir::Operation *op);

/// The number of ranks `op` (a shard collective) communicates among: the
/// product of its grid axes' sizes. Fails, with an error at `op` saying
/// what fp8q lowers, unless `op` is an all_gather with gather_axis = 0 or
/// a sum reduce_scatter with scatter_axis = 0 on rank-2 tensors, over one
/// axis of a grid the module defines with a static size (a reduce_scatter
/// also needs bf16).
mlir::FailureOr<int64_t> getCollectiveRanks(mlir::Operation *op);

} // namespace fp8q

#endif // FP8Q_DIALECT_IR_COLLECTIVES_H
