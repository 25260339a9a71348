//===- VerifyContracts.cpp - Check every gemm against its kernel ----------===//
//
// --fp8q-verify-contracts: each gemm's kernel, block format, weight layout
// and target from the contract table; its x_scale from ScaleLayoutAnalysis
// in read-only mode, the rule propagation solves for (a kernel's scale
// layout by bytes), so what propagation proves and what this pass checks
// are one definition. Every shard collective: one fp8q lowers, with the
// scales crossing it row_major.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Dialect/IR/Collectives.h"
#include "fp8q/Dialect/IR/ScaleLayout.h"
#include "fp8q/Support/Diagnostics.h"
#include "fp8q/Target/KernelContracts.h"
#include "fp8q/Transforms/Passes.h"
#include "fp8q/Transforms/ScaleLayoutAnalysis.h"

namespace fp8q {
#define GEN_PASS_DEF_VERIFYCONTRACTS
#include "fp8q/Transforms/Passes.h.inc"
} // namespace fp8q

using namespace mlir;
using namespace fp8q;

namespace {
struct VerifyContractsPass
    : public fp8q::impl::VerifyContractsBase<VerifyContractsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkScaleLayoutAnalysisContext(module)))
      return signalPassFailure();
    // The x_scale needs the analysis finds unmet, by gemm.
    ScaleLayoutAnalysis analysis(module, /*fuseProducers=*/false);
    const ScaleLayoutPlan &plan = analysis.solveInPlace();
    DenseSet<Operation *> unmetXScale;
    for (const ScaleUse &use : plan.uses)
      if (use.consumer == ScaleConsumer::XScale && !plan.isMet(use))
        unmetXScale.insert(use.operand->getOwner());

    TargetAttr target = getModuleTarget(module);
    bool failedAny = false;
    module.walk([&](GemmOp gemm) {
      ++numGemmsChecked;
      if (failed(verifyGemm(gemm, target, unmetXScale.contains(gemm)))) {
        ++numViolations;
        failedAny = true;
      }
    });
    module.walk([&](Operation *op) {
      if (isShardCollective(op) && failed(verifyCollective(op))) {
        ++numViolations;
        failedAny = true;
      }
    });
    if (failedAny)
      signalPassFailure();
    markAllAnalysesPreserved();
  }

  /// A collective fp8q lowers (fp8q/Dialect/IR/Collectives.h) moves whole
  /// rows of dense bytes: a scale crossing it is row_major on both sides,
  /// and packed FP4 codes (two per byte) are not gathered.
  static LogicalResult verifyCollective(Operation *op) {
    if (failed(getCollectiveRanks(op)))
      return failure();
    for (Type type :
         llvm::concat<Type>(llvm::to_vector(op->getOperandTypes()),
                            llvm::to_vector(op->getResultTypes()))) {
      auto tensor = cast<RankedTensorType>(type);
      if (isa<Float4E2M1FNType>(tensor.getElementType()))
        return fp8q::emitOpErrorAt(op)
               << "breaks the collective contract: packed f4E2M1FN codes "
                  "are not gathered (quantize after the collective, or "
                  "gather the bf16 activation)";
      if (!isScaleTensorType(tensor))
        continue;
      LayoutAttr layout = getScaleLayout(tensor);
      if (layout.isRowMajor())
        continue;
      return fp8q::emitOpErrorAt(op)
             << "breaks the collective contract: a scale crosses a "
                "collective row_major (the collective concatenates or splits "
                "whole rows of bytes), got "
             << layout << " in " << type
             << "; gathering a column-major scale along its rows interleaves "
                "the ranks' columns (the vLLM 42118 bug): materialize it "
                "row_major before the collective";
    }
    return success();
  }

  /// w_scale: the layout the kernel reads (by bytes), and for UE8M0 gemms
  /// the granularity (per 128x128 block or per weight row).
  static LogicalResult verifyWScale(GemmOp gemm, Kernel kernel,
                                    std::optional<BlockFormat> format) {
    StringRef name = getKernelContract(kernel).name;
    auto wsType = cast<RankedTensorType>(gemm.getWScale().getType());
    if (!scaleLayoutSatisfies(kernel, GemmOperand::WScale,
                              getScaleLayout(wsType), wsType.getShape()))
      return fp8q::emitOpErrorAt(gemm)
             << "w_scale breaks the " << name << " contract: kernel " << name
             << " requires " << describeRequirement(kernel, GemmOperand::WScale)
             << ", got " << getScaleLayout(wsType) << " for shape " << wsType;
    if (format != BlockFormat::Fp8BlockE8M0)
      return success();
    int64_t n = cast<RankedTensorType>(gemm.getW().getType()).getDimSize(0);
    bool perRow = wsType.getDimSize(0) == n;
    if (perRow == readsPerRowWScale(kernel))
      return success();
    InFlightDiagnostic diag = fp8q::emitOpErrorAt(gemm)
                              << "w_scale breaks the " << name
                              << " contract: kernel " << name;
    if (readsPerRowWScale(kernel))
      return diag << " reads one UE8M0 weight scale per weight row and 128 "
                     "K ([N, K/128] = ["
                  << n << ", " << wsType.getDimSize(1) << "]), got ["
                  << wsType.getDimSize(0) << ", " << wsType.getDimSize(1)
                  << "]; broadcast each 128x128 block scale over its 128 rows "
                     "(DeepGEMM does it on the host for sm100)";
    return diag
           << " reads UE8M0 weight scales per 128x128 block ([ceil(N/128), "
              "K/128] = ["
           << llvm::divideCeil(n, 128) << ", " << wsType.getDimSize(1)
           << "]), got one per weight row [" << n << ", "
           << wsType.getDimSize(1) << "]";
  }

  static LogicalResult verifyGemm(GemmOp gemm, TargetAttr target,
                                  bool xScaleUnmet) {
    std::optional<Kernel> kernel = gemm.getKernel();
    if (!kernel)
      return fp8q::emitOpErrorAt(gemm)
             << "has no kernel, so its contract cannot be checked; run "
                "--fp8q-select-kernels or set `kernel`";
    StringRef name = getKernelContract(*kernel).name;
    std::optional<BlockFormat> format = getGemmFormat(gemm);
    if (format && !kernelReadsFormat(*kernel, *format))
      return fp8q::emitOpErrorAt(gemm)
             << "breaks the " << name << " contract: kernel " << name
             << " reads " << describeFormats(*kernel) << ", got "
             << getBlockFormatName(*format) << " (q "
             << cast<RankedTensorType>(gemm.getQ().getType()).getElementType()
             << ", x_scale "
             << cast<RankedTensorType>(gemm.getXScale().getType())
                    .getElementType()
             << ")";
    // The analysis models every scale tensor (f32 and SPEC v2's 1-byte
    // scales); anything else is checked on the table.
    auto scaleType = cast<RankedTensorType>(gemm.getXScale().getType());
    if (isScaleTensorType(scaleType)
            ? xScaleUnmet
            : !scaleLayoutSatisfies(*kernel, getScaleLayout(scaleType),
                                    scaleType.getShape()))
      return fp8q::emitOpErrorAt(gemm)
             << "x_scale breaks the " << name << " contract: kernel " << name
             << " requires "
             << describeRequirement(*kernel, GemmOperand::XScale) << ", got "
             << getScaleLayout(scaleType) << " for shape " << scaleType;
    if (failed(verifyWScale(gemm, *kernel, format)))
      return failure();
    auto wType = cast<RankedTensorType>(gemm.getW().getType());
    if (!weightLayoutSatisfies(*kernel, wType.getEncoding())) {
      InFlightDiagnostic diag =
          fp8q::emitOpErrorAt(gemm)
          << "w breaks the " << name << " contract: kernel " << name
          << " requires " << describeRequirement(*kernel, GemmOperand::Weight)
          << ", got ";
      if (wType.getEncoding())
        diag << wType.getEncoding();
      else
        diag << "plain [N, K] weight";
      return diag;
    }
    std::string reason;
    if (target &&
        !kernelRunsOn(*kernel, target, wType.getElementType(), reason, format))
      return fp8q::emitOpErrorAt(gemm)
             << "breaks the " << name << " contract for target " << target
             << ": " << reason;
    return success();
  }
};
} // namespace
