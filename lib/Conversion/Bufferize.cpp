//===- Bufferize.cpp - Whole-module One-Shot Bufferize for fp8q -----------===//
//
// Upstream One-Shot Module Bufferize with the fp8q type mapping: the pass
// exists because the upstream `one-shot-bufferize` pass cannot be told how
// fp8q layout encodings become memref layouts at function boundaries.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Conversion/Passes.h"
#include "fp8q/Dialect/Transforms/BufferizableOpInterfaceImpl.h"

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

/// A public function's signature is its ABI (SPEC): its tensor arguments
/// are read-only unless marked `bufferization.writable = true`. One-Shot
/// Bufferize treats an unmarked argument as writable and writes results
/// into it in place (a residual add into the caller's activations), so
/// mark every unmarked one `false`; the analysis then copies on write.
void markPublicArgumentsReadOnly(ModuleOp module) {
  StringRef writable = bufferization::BufferizationDialect::kWritableAttrName;
  auto readOnly = BoolAttr::get(module.getContext(), false);
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func.isPublic() || func.isExternal())
      continue;
    for (auto [index, type] : llvm::enumerate(func.getArgumentTypes()))
      if (isa<TensorType>(type) && !func.getArgAttr(index, writable))
        func.setArgAttr(index, writable, readOnly);
  }
}

struct BufferizePass : public fp8q::impl::BufferizeBase<BufferizePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    module.walk([&](fp8q::MaterializeOp op) {
      if (op.isNoCopy())
        ++numMaterializeViews;
      else
        ++numMaterializeCopies;
    });

    markPublicArgumentsReadOnly(module);

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
