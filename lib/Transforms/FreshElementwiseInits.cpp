//===- FreshElementwiseInits.cpp - Bounded in-place elementwise writes ----===//
//
// Chooses, before One-Shot Bufferize, which elementwise linalg.generic ops
// may write into the buffer of an operand and which get a buffer of their
// own. See FreshElementwiseInits in Passes.td for the policy and why the
// pipeline needs it.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/IR/Matchers.h"

namespace fp8q {
#define GEN_PASS_DEF_FRESHELEMENTWISEINITS
#include "fp8q/Transforms/Passes.h.inc"
} // namespace fp8q

using namespace mlir;

namespace {

/// True if `value` is read by an op other than `op` that runs after it:
/// later in the same block, or anywhere in another block (conservatively).
bool usedAfter(Value value, Operation *op) {
  return llvm::any_of(value.getUsers(), [&](Operation *user) {
    return user != op &&
           (user->getBlock() != op->getBlock() || op->isBeforeInBlock(user));
  });
}

/// True if `value` is an alloc_tensor that only `op` uses: a buffer of its
/// own already (keeps the pass idempotent).
bool isFreshBuffer(Value value, Operation *op) {
  return value.getDefiningOp<bufferization::AllocTensorOp>() &&
         llvm::all_of(value.getUsers(),
                      [&](Operation *user) { return user == op; });
}

struct FreshElementwiseInitsPass
    : public fp8q::impl::FreshElementwiseInitsBase<FreshElementwiseInitsPass> {
  using Base::Base;

  void runOnOperation() override {
    // How many elementwise ops have written in place into the buffer that
    // a value lives in (its in-place chain), in program order.
    DenseMap<Value, unsigned> chain;
    getOperation().walk([&](linalg::GenericOp op) {
      if (!op.hasPureTensorSemantics() ||
          op.getNumLoops() != op.getNumParallelLoops())
        return;
      for (OpOperand &init : op.getDpsInitsMutable()) {
        if (op.payloadUsesValueFromOperand(&init))
          continue;
        Value value = init.get();
        Value result = op.getTiedOpResult(&init);
        if (isFreshBuffer(value, op)) {
          chain[result] = 1;
          continue;
        }
        unsigned length = chain.lookup(value) + 1;
        if (!usedAfter(value, op) && !matchPattern(value, m_Constant()) &&
            length <= maxInPlaceChain) {
          chain[result] = length;
          ++numInPlaceInits;
          continue;
        }
        OpBuilder builder(op);
        init.set(bufferization::AllocTensorOp::create(
            builder, op.getLoc(), cast<RankedTensorType>(value.getType()),
            tensor::createDynamicDimValues(builder, op.getLoc(), value)));
        chain[result] = 1;
        ++numFreshInits;
      }
    });
  }
};

} // namespace
