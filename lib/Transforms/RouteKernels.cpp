//===- RouteKernels.cpp - Route gemms to kernels --------------------------===//
//
// Models the routing a serving stack does by hand (REFERENCE.md, "Kernel
// routing") from the module's fp8q.target: which GEMM kernel each
// fp8q.gemm runs. What each kernel reads comes from the kernel-contract
// table; only the routing policy lives here. The first step of
// --fp8q-select-kernels.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Support/Diagnostics.h"
#include "fp8q/Target/KernelContracts.h"
#include "fp8q/Target/Preshuffle.h"
#include "fp8q/Target/TunedShapes.h"
#include "fp8q/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/Debug.h"

#include <memory>

#define DEBUG_TYPE "fp8q-route-kernels"

namespace fp8q {
#define GEN_PASS_DEF_ROUTEKERNELS
#include "fp8q/Transforms/Passes.h.inc"
} // namespace fp8q

using namespace mlir;
using namespace fp8q;

namespace {

/// The routing decision for one gemm: `kernel`, or, when `splitAboveM` is
/// set, `kernel` for M <= splitAboveM and `largeM` above it.
struct Route {
  Route(Kernel kernel) : kernel(kernel) {}
  Route(Kernel kernel, int64_t splitAboveM, Kernel largeM)
      : kernel(kernel), splitAboveM(splitAboveM), largeM(largeM) {}

  Kernel kernel;
  std::optional<int64_t> splitAboveM;
  Kernel largeM = Kernel::Triton;
};

/// Returns true when `kernel`'s contract allows it on `target` (arch and
/// ROCm version; the fp8 flavour is checked separately).
static bool allowedOn(Kernel kernel, TargetAttr target) {
  std::string reason;
  return kernelRunsOn(kernel, target, getTargetFp8Type(target), reason);
}

/// The SGLang routing policy for a gemm of shape M x N x K (M may be
/// dynamic) on `target`.
static Route chooseKernel(TargetAttr target, int64_t m, int64_t n, int64_t k,
                          const TunedShapeTable &table, Kernel sm90Kernel) {
  switch (getArchBit(target)) {
  case FP8Q_ARCH_GFX950: {
    bool tuned = table.isTritonTuned(n, k);
    // The bpreshuffle path is on where its contract allows it (ROCm >= 7.2:
    // ROCm 7.0 hipcc miscompiles the kernel).
    if (allowedOn(Kernel::CkBpreshuffle, target)) {
      if (tuned || !fp8q_preshuffle_ok(n, k))
        return {Kernel::Triton};
      return {Kernel::CkBpreshuffle};
    }
    if (tuned)
      return {Kernel::Triton};
    std::optional<int64_t> maxM = table.getCkMaxM(n, k);
    if (!maxM)
      return {Kernel::Ck};
    if (!ShapedType::isDynamic(m))
      return {m > *maxM ? Kernel::Triton : Kernel::Ck};
    return {Kernel::Ck, *maxM, Kernel::Triton};
  }
  case FP8Q_ARCH_GFX942:
    return {Kernel::Triton};
  case FP8Q_ARCH_SM90:
    return {sm90Kernel};
  default:
    llvm_unreachable("TargetAttr verifier admits only known archs");
  }
}

struct RouteKernelsPass
    : public fp8q::impl::RouteKernelsBase<RouteKernelsPass> {
  using Base::Base;

  /// Parses `sm90-kernel` and reads `tuned-table`, once per pipeline run.
  /// Errors are reported by runOnOperation, located on the module.
  LogicalResult initialize(MLIRContext *) override;
  void runOnOperation() override;

private:
  /// Sets `kernel` on a gemm without one, or replaces it by the two
  /// variants under an `scf.if` on M.
  LogicalResult routeGemm(GemmOp gemm, TargetAttr target,
                          const TunedShapeTable &table);
  /// Sets the kernel attribute and counts it.
  void setKernel(GemmOp gemm, Kernel kernel);

  /// `sm90-kernel`, when it names a kernel that runs on sm90.
  std::optional<Kernel> sm90Choice;
  /// The `tuned-table` file, or its error; neither without the option.
  /// Shared: clones of an initialized pass read the same table.
  std::shared_ptr<const TunedShapeTable> loadedTable;
  std::string tableError;
  /// `M > limit` tests already built, per (q, limit, block): gemms are
  /// routed in program order, so a test dominates later gemms of its block.
  DenseMap<std::tuple<Value, int64_t, Block *>, Value> mConditions;
};

LogicalResult RouteKernelsPass::initialize(MLIRContext *) {
  sm90Choice = symbolizeKernel(sm90Kernel);
  if (sm90Choice && !(getKernelContract(*sm90Choice).archs & FP8Q_ARCH_SM90))
    sm90Choice.reset();
  loadedTable.reset();
  tableError.clear();
  if (!tunedTable.empty()) {
    llvm::Expected<TunedShapeTable> table =
        TunedShapeTable::loadFile(tunedTable);
    if (table)
      loadedTable = std::make_shared<const TunedShapeTable>(std::move(*table));
    else
      tableError = llvm::toString(table.takeError());
  }
  return success();
}

void RouteKernelsPass::setKernel(GemmOp gemm, Kernel kernel) {
  gemm.setKernel(kernel);
  switch (kernel) {
  case Kernel::CkBpreshuffle:
    ++numCkBpreshuffle;
    break;
  case Kernel::Ck:
    ++numCk;
    break;
  case Kernel::Triton:
    ++numTriton;
    break;
  case Kernel::DeepGemm:
    ++numDeepGemm;
    break;
  case Kernel::Cublas:
    ++numCublas;
    break;
  case Kernel::AiterMxfp4:
    ++numAiterMxfp4;
    break;
  case Kernel::CublasMx:
    ++numCublasMx;
    break;
  case Kernel::DeepGemmSm100:
    ++numDeepGemmSm100;
    break;
  case Kernel::Reference:
    break;
  }
}

/// The kernels that read `format`, in the order the router prefers them
/// (SPEC v2 "Kernels and targets"): the vendor kernel of the format first,
/// Triton (strided scales) where it reads the format. The first that runs
/// on the target, and whose weight layout the gemm's weight can take, wins.
static ArrayRef<Kernel> getFormatPreference(BlockFormat format) {
  static const Kernel fp8[] = {Kernel::Triton};
  static const Kernel ue8m0[] = {Kernel::DeepGemmSm100};
  static const Kernel mxfp8[] = {Kernel::CublasMx, Kernel::Triton};
  static const Kernel mxfp4[] = {Kernel::AiterMxfp4, Kernel::Triton};
  static const Kernel nvfp4[] = {Kernel::CublasMx};
  switch (format) {
  case BlockFormat::Fp8Block:
    return fp8;
  case BlockFormat::Fp8BlockE8M0:
    return ue8m0;
  case BlockFormat::MxFp8:
    return mxfp8;
  case BlockFormat::MxFp4:
    return mxfp4;
  case BlockFormat::NvFp4:
    return nvfp4;
  }
  llvm_unreachable("unknown block format");
}

/// SPEC v2 formats, and FP8 1x128 on sm100 (which the SGLang policy does
/// not cover), go to the first kernel of getFormatPreference that the
/// contract table lets read the format on the target; the CPU reference is
/// never chosen.
static std::optional<Kernel> chooseByFormat(TargetAttr target,
                                            BlockFormat format, GemmOp gemm) {
  auto wType = cast<RankedTensorType>(gemm.getW().getType());
  for (Kernel kernel : getFormatPreference(format)) {
    if (!kernelReadsFormat(kernel, format))
      continue;
    std::string reason;
    if (!kernelRunsOn(kernel, target, getTargetFp8Type(target), reason, format))
      continue;
    // A kernel that reads preshuffled weights only where the weight can be
    // preshuffled (--fp8q-insert-preshuffle gives it that form).
    if (getKernelContract(kernel).weight == FP8Q_WEIGHT_PRESHUFFLE_16X16 &&
        !weightLayoutSatisfies(kernel, wType.getEncoding()) &&
        !canPreshuffle(wType))
      continue;
    return kernel;
  }
  return std::nullopt;
}

LogicalResult RouteKernelsPass::routeGemm(GemmOp gemm, TargetAttr target,
                                          const TunedShapeTable &table) {
  std::optional<BlockFormat> format = getGemmFormat(gemm);
  if ((format && *format != BlockFormat::Fp8Block) ||
      getArchBit(target) == FP8Q_ARCH_SM100) {
    BlockFormat want = format.value_or(BlockFormat::Fp8Block);
    if (std::optional<Kernel> kernel = chooseByFormat(target, want, gemm)) {
      setKernel(gemm, *kernel);
      return success();
    }
    return fp8q::emitOpErrorAt(gemm)
           << "reads " << getBlockFormatName(want) << " (q "
           << cast<RankedTensorType>(gemm.getQ().getType()).getElementType()
           << ", x_scale "
           << cast<RankedTensorType>(gemm.getXScale().getType())
                  .getElementType()
           << "), and no kernel of the contract table reads it on "
           << target.getArch()
           << "; set `kernel = #fp8q.kernel<reference>` to run it on the CPU "
              "reference, or target an architecture with such a kernel";
  }
  auto qType = cast<RankedTensorType>(gemm.getQ().getType());
  auto wType = cast<RankedTensorType>(gemm.getW().getType());
  Route route = chooseKernel(target, qType.getDimSize(0), wType.getDimSize(0),
                             wType.getDimSize(1), table, *sm90Choice);
  LLVM_DEBUG(llvm::dbgs() << "routing " << gemm << " -> "
                          << getKernelContract(route.kernel).name << "\n");
  if (!route.splitAboveM) {
    setKernel(gemm, route.kernel);
    return success();
  }
  // Dynamic M past a per-shape limit: the choice is made at run time, and
  // both variants stay visible to layout propagation.
  OpBuilder builder(gemm);
  Location loc = gemm.getLoc();
  // Gemms reading the same q in one block share one test of M.
  Value &large =
      mConditions[{gemm.getQ(), *route.splitAboveM, gemm->getBlock()}];
  if (!large) {
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    Value m = tensor::DimOp::create(builder, loc, gemm.getQ(), zero);
    Value limit =
        arith::ConstantIndexOp::create(builder, loc, *route.splitAboveM);
    large = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sgt, m,
                                  limit);
  }
  auto buildVariant = [&](Kernel kernel) {
    return [&, kernel](OpBuilder &b, Location l) {
      auto clone = cast<GemmOp>(b.clone(*gemm));
      setKernel(clone, kernel);
      scf::YieldOp::create(b, l, clone.getOut());
    };
  };
  auto ifOp = scf::IfOp::create(builder, loc, large, buildVariant(route.largeM),
                                buildVariant(route.kernel));
  gemm.getOut().replaceAllUsesWith(ifOp.getResult(0));
  gemm.erase();
  ++numMBranches;
  return success();
}

void RouteKernelsPass::runOnOperation() {
  ModuleOp module = getOperation();
  // Per-run memo: Values of an earlier run may have been erased.
  mConditions.clear();

  if (!sm90Choice) {
    fp8q::emitErrorAt(module)
        << "sm90-kernel '" << sm90Kernel
        << "' is not a kernel that runs on sm90; expected "
           "deepgemm, cublas or reference";
    return signalPassFailure();
  }
  if (!tableError.empty()) {
    fp8q::emitErrorAt(module) << tableError;
    return signalPassFailure();
  }
  const TunedShapeTable &table =
      loadedTable ? *loadedTable : TunedShapeTable::getDefault();

  SmallVector<GemmOp> unrouted;
  module.walk([&](GemmOp gemm) {
    if (!gemm.getKernel())
      unrouted.push_back(gemm);
  });

  TargetAttr target = getModuleTarget(module);
  if (!target && !unrouted.empty()) {
    InFlightDiagnostic diag =
        fp8q::emitErrorAt(module)
        << "module has no 'fp8q.target' attribute, needed to choose kernels "
           "for "
        << unrouted.size()
        << " fp8q.gemm op(s) without `kernel`; add e.g. "
           "`attributes {fp8q.target = #fp8q.target<arch = \"gfx950\", rocm "
           "= \"7.2\">}` to the module";
    // A few located examples say where; 1824 notes would bury the message.
    constexpr size_t kMaxNotes = 3;
    for (GemmOp gemm : ArrayRef(unrouted).take_front(kMaxNotes))
      diag.attachNote(gemm.getLoc()) << "this gemm has no kernel";
    if (unrouted.size() > kMaxNotes)
      diag.attachNote() << "and " << unrouted.size() - kMaxNotes
                        << " more fp8q.gemm op(s) without `kernel`";
    return signalPassFailure();
  }

  bool failedAny = false;
  for (GemmOp gemm : unrouted)
    failedAny |= failed(routeGemm(gemm, target, table));
  if (failedAny)
    signalPassFailure();
}

} // namespace
