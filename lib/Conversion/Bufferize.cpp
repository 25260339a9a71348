//===- Bufferize.cpp - Whole-module One-Shot Bufferize for fp8q -----------===//
//
// Upstream One-Shot Module Bufferize with the fp8q type mapping: the pass
// exists because the upstream `one-shot-bufferize` pass cannot be told how
// fp8q layout encodings become memref layouts at function boundaries.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Conversion/Passes.h"
#include "fp8q/Transforms/BufferizableOpInterfaceImpl.h"

#include "mlir/Dialect/Bufferization/Transforms/Bufferize.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotModuleBufferize.h"
#include "mlir/Dialect/Bufferization/Transforms/Transforms.h"

namespace fp8q {
#define GEN_PASS_DEF_BUFFERIZE
#include "fp8q/Conversion/Passes.h.inc"
} // namespace fp8q

using namespace mlir;

namespace {

struct BufferizePass : public fp8q::impl::BufferizeBase<BufferizePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    module.walk([&](fp8q::MaterializeOp op) {
      if (op.isNoCopy())
        ++numMaterializeViews;
      else
        ++numMaterializeCopies;
    });

    bufferization::OneShotBufferizationOptions options;
    fp8q::configureFp8qBufferization(options);
    bufferization::BufferizationState state;
    bufferization::BufferizationStatistics statistics;
    if (failed(bufferization::runOneShotModuleBufferize(module, options, state,
                                                        &statistics)))
      return signalPassFailure();
  }
};

} // namespace
