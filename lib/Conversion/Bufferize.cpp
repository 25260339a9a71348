//===- Bufferize.cpp - Whole-module One-Shot Bufferize for fp8q -----------===//
//
// Upstream One-Shot Module Bufferize with the fp8q type mapping: the pass
// exists because the upstream `one-shot-bufferize` pass cannot be told how
// fp8q layout encodings become memref layouts at function boundaries.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Conversion/Passes.h"
#include "fp8q/Dialect/IR/Fp8qDialect.h"
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

/// Returns what makes `type` one of SPEC v2's formats or padded layouts,
/// or an empty string for a v1 type.
std::string describeV2(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return {};
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto layout = dyn_cast_or_null<fp8q::LayoutAttr>(tensor.getEncoding());
      layout && !layout.isStrided())
    os << "scale layout " << layout;
  else if (isa<Float8E5M2Type, Float4E2M1FNType, Float8E8M0FNUType>(
               tensor.getElementType()))
    os << "element type " << tensor.getElementType();
  return text;
}

/// SPEC v2's formats and padded layouts are not lowered yet (a strided
/// memref cannot express the padded layouts; their flat-buffer lowering
/// is separate work): reject them at their location rather than let the
/// strided type mapping misread them. Checks fp8q ops and the signatures
/// of functions.
LogicalResult rejectV2Layouts(ModuleOp module) {
  bool failed = false;
  auto check = [&](Operation *op, Type type, StringRef what) {
    std::string v2 = describeV2(type);
    if (v2.empty() || failed)
      return;
    op->emitOpError() << what << " has SPEC v2 " << v2
                      << ", and v2 formats and scale layouts are not lowered "
                         "yet: --fp8q-bufferize handles row_major / col_major "
                         "f32 scales with f8E4M3FN / f8E4M3FNUZ data only";
    failed = true;
  };
  module.walk([&](Operation *op) {
    if (auto func = dyn_cast<FunctionOpInterface>(op)) {
      for (Type type : func.getArgumentTypes())
        check(op, type, "an argument");
      for (Type type : func.getResultTypes())
        check(op, type, "a result");
    }
    if (!isa<fp8q::Fp8qDialect>(op->getDialect()))
      return;
    for (Type type : op->getOperandTypes())
      check(op, type, "an operand");
    for (Type type : op->getResultTypes())
      check(op, type, "a result");
  });
  return llvm::failure(failed);
}

struct BufferizePass : public fp8q::impl::BufferizeBase<BufferizePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(rejectV2Layouts(module)))
      return signalPassFailure();
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
