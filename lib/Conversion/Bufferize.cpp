//===- Bufferize.cpp - Whole-module One-Shot Bufferize for fp8q -----------===//
//
// Upstream One-Shot Module Bufferize with the fp8q type mapping: the pass
// exists because the upstream `one-shot-bufferize` pass cannot be told how
// fp8q layout encodings become memref layouts at function boundaries.
//
//===----------------------------------------------------------------------===//

#include "FoldConstantScales.h"

#include "fp8q/Conversion/Passes.h"
#include "fp8q/Dialect/IR/Fp8qDialect.h"
#include "fp8q/Dialect/Transforms/BufferizableOpInterfaceImpl.h"
#include "fp8q/Support/Diagnostics.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

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

/// What makes a tensor type storage that only fp8q ops can address: a
/// padded (SPEC v2) scale layout, or f4E2M1FN elements (packed two per
/// byte; a memref element access reads one per byte). Empty otherwise.
std::string describeFp8qOnlyStorage(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return {};
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto layout = dyn_cast_or_null<fp8q::LayoutAttr>(tensor.getEncoding());
      layout && !layout.isStrided())
    os << "a scale in the padded layout " << layout
       << " (it has no strided form)";
  else if (isa<Float4E2M1FNType>(tensor.getElementType()))
    os << "an f4E2M1FN tensor (packed two values per byte)";
  return text;
}

/// True for the ops that may produce or use a padded scale: fp8q's own
/// ops (they read and write it through its index map), and ops that only
/// pass a value along (function boundaries, structured control flow).
/// Anything else would bufferize to a strided view of a buffer that has no
/// strided form (a slice, a copy, an elementwise op) and misread it.
bool carriesPaddedScale(Operation *op) {
  return isa<fp8q::Fp8qDialect>(op->getDialect()) ||
         isa<func::CallOp, func::ReturnOp, scf::YieldOp, scf::ForOp, scf::IfOp,
             scf::WhileOp, scf::ConditionOp>(op);
}

/// Rejects, at their location, ops that produce or use a tensor in a
/// padded scale layout or of f4E2M1FN and are not fp8q ops or mere
/// carriers.
LogicalResult rejectUncarriedPaddedScales(ModuleOp module) {
  bool failed = false;
  module.walk([&](Operation *op) {
    if (failed || carriesPaddedScale(op) || isa<func::FuncOp>(op))
      return;
    for (Value value :
         llvm::concat<Value>(op->getOperands(), op->getResults())) {
      std::string what = describeFp8qOnlyStorage(value.getType());
      if (what.empty())
        continue;
      fp8q::emitOpErrorAt(op)
          << "has " << what
          << "; only fp8q ops, calls, returns and structured control flow "
             "carry it: materialize a scale to row_major or col_major, "
             "keep f4E2M1FN data between fp8q ops";
      failed = true;
      return;
    }
  });
  return llvm::failure(failed);
}

struct BufferizePass : public fp8q::impl::BufferizeBase<BufferizePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(rejectUncarriedPaddedScales(module)))
      return signalPassFailure();

    markPublicArgumentsReadOnly(module);
    numConstantScalesFolded += fp8q::foldConstantScaleLayouts(module);
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
