//===- SelectKernels.cpp - Route gemms to kernels, preshuffle weights -----===//
//
// Models the routing a serving stack does by hand (REFERENCE.md, "Kernel
// routing") from the module's fp8q.target: which GEMM kernel each
// fp8q.gemm runs, which fp8 flavour the target reads, and which weights
// must be stored preshuffled. What each kernel reads comes from the
// kernel-contract table; only the routing policy lives here.
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
#include "mlir/IR/Dominance.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "fp8q-select-kernels"

namespace fp8q {
#define GEN_PASS_DEF_SELECTKERNELS
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

/// The fp8 element type `kernel` reads on `target`; null when it reads any.
static Type getRequiredFp8(Kernel kernel, TargetAttr target) {
  switch (getKernelContract(kernel).fp8) {
  case FP8Q_FP8_ANY:
    return {};
  case FP8Q_FP8_E4M3FN:
    return Float8E4M3FNType::get(target.getContext());
  case FP8Q_FP8_PER_TARGET:
    return getTargetFp8Type(target);
  }
  llvm_unreachable("unknown fp8 requirement");
}

static StringRef kernelName(Kernel kernel) {
  return getKernelContract(kernel).name;
}

static Type elementTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

struct SelectKernelsPass
    : public fp8q::impl::SelectKernelsBase<SelectKernelsPass> {
  using Base::Base;

  void runOnOperation() override;

private:
  /// Sets `kernel` on a gemm without one, or replaces it by the two
  /// variants under an `scf.if` on M.
  LogicalResult routeGemm(GemmOp gemm, TargetAttr target,
                          const TunedShapeTable &table, Kernel sm90Choice);
  /// Sets the kernel attribute and counts it.
  void setKernel(GemmOp gemm, Kernel kernel);
  /// Reports (or with fix-fp8-type, repairs) fp8 flavours the target's
  /// kernels do not read.
  LogicalResult fixOrCheckFp8(TargetAttr target);
  /// Converts a constant weight to fp8 type `want` exactly.
  FailureOr<Value> convertWeight(GemmOp gemm, Type want);
  /// `wScale * factor`, folded when `wScale` is a constant.
  Value scaleWeightScale(Value wScale, double factor, Location loc);
  /// Gives every weight a preshuffle-reading kernel reads its preshuffle.
  LogicalResult preshuffleWeights();
  /// Builds the one preshuffled form of `weight`.
  Value preshuffleWeight(Value weight, Location loc);

  /// Conversions done once per value (weights shared by several gemms).
  DenseMap<Value, Value> convertedWeights, scaledWeightScales;
  /// `M > limit` tests already built, per (q, limit, block): gemms are
  /// routed in program order, so a test dominates later gemms of its block.
  DenseMap<std::tuple<Value, int64_t, Block *>, Value> mConditions;
};

void SelectKernelsPass::setKernel(GemmOp gemm, Kernel kernel) {
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
  case Kernel::Reference:
    break;
  }
}

LogicalResult SelectKernelsPass::routeGemm(GemmOp gemm, TargetAttr target,
                                           const TunedShapeTable &table,
                                           Kernel sm90Choice) {
  auto qType = cast<RankedTensorType>(gemm.getQ().getType());
  auto wType = cast<RankedTensorType>(gemm.getW().getType());
  Route route = chooseKernel(target, qType.getDimSize(0), wType.getDimSize(0),
                             wType.getDimSize(1), table, sm90Choice);
  LLVM_DEBUG(llvm::dbgs() << "routing " << gemm << " -> "
                          << kernelName(route.kernel) << "\n");
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

/// Multiplies a weight scale by `factor`, once per value: a dense constant
/// is folded, anything else gets an arith.mulf by a splat.
Value SelectKernelsPass::scaleWeightScale(Value wScale, double factor,
                                          Location loc) {
  Value &scaled = scaledWeightScales[wScale];
  if (scaled)
    return scaled;
  auto type = cast<RankedTensorType>(wScale.getType());
  OpBuilder builder(wScale.getContext());
  builder.setInsertionPointAfterValue(wScale);
  DenseElementsAttr dense;
  if (auto cst = wScale.getDefiningOp<arith::ConstantOp>())
    dense = dyn_cast<DenseElementsAttr>(cst.getValue());
  if (dense) {
    // Weight scales are f32 (op verifier); factor is a power of two, so the
    // product is exact.
    SmallVector<APFloat> values;
    for (APFloat v : dense.getValues<APFloat>())
      values.push_back(
          APFloat(static_cast<float>(v.convertToFloat() * factor)));
    scaled = arith::ConstantOp::create(builder, loc,
                                       DenseElementsAttr::get(type, values));
    return scaled;
  }
  Value splat = arith::ConstantOp::create(
      builder, loc,
      DenseElementsAttr::get(type, builder.getF32FloatAttr(factor)));
  scaled = arith::MulFOp::create(builder, loc, wScale, splat);
  return scaled;
}

/// Moves a constant weight to fp8 flavour `want` exactly. E4M3FN bits read
/// as E4M3FNUZ are half the value, so E4M3FN -> E4M3FNUZ halves every
/// element (exact) and doubles the weight scale; the other direction keeps
/// values, which must then be representable.
FailureOr<Value> SelectKernelsPass::convertWeight(GemmOp gemm, Type want) {
  Value weight = gemm.getW();
  if (Value done = convertedWeights.lookup(weight))
    return done;
  auto type = cast<RankedTensorType>(weight.getType());
  DenseElementsAttr dense;
  if (auto cst = weight.getDefiningOp<arith::ConstantOp>())
    dense = dyn_cast<DenseElementsAttr>(cst.getValue());
  if (!dense || type.getEncoding()) {
    fp8q::emitOpErrorAt(gemm)
        << "w has " << type.getElementType() << " but " << want
        << " is needed, and fix-fp8-type converts only plain "
           "dense constant weights; convert this weight to "
        << want << " where it is loaded";
    return failure();
  }
  double factor = isa<Float8E4M3FNUZType>(want) ? 0.5 : 1.0;
  const llvm::fltSemantics &sem = cast<FloatType>(want).getFloatSemantics();
  SmallVector<APFloat> values;
  for (auto [i, v] : llvm::enumerate(dense.getValues<APFloat>())) {
    bool losesInfo = false;
    APFloat wide = v;
    wide.convert(llvm::APFloat::IEEEdouble(),
                 llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    APFloat converted(wide.convertToDouble() * factor);
    llvm::APFloat::opStatus status =
        converted.convert(sem, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    // NaN stays NaN and -0 becomes 0 (E4M3FNUZ has one NaN and no -0):
    // neither changes what the kernel computes.
    if (!v.isNaN() && !v.isZero() &&
        (losesInfo || status != llvm::APFloat::opOK)) {
      SmallString<16> text;
      wide.toString(text); // exact decimal of the fp8 value
      fp8q::emitOpErrorAt(gemm) << "w element " << i << " (" << text
                                << ") has no exact " << want << " value";
      return failure();
    }
    values.push_back(converted);
  }
  OpBuilder builder(gemm.getContext());
  builder.setInsertionPointAfterValue(weight);
  auto newType = RankedTensorType::get(type.getShape(), want);
  Value result = arith::ConstantOp::create(
      builder, weight.getLoc(), DenseElementsAttr::get(newType, values));
  convertedWeights[weight] = result;
  ++numFp8Retyped;
  return result;
}

LogicalResult SelectKernelsPass::fixOrCheckFp8(TargetAttr target) {
  ModuleOp module = getOperation();
  Type want = getTargetFp8Type(target);
  bool ok = true;

  // Producers write the flavour their result type says: retyping q is the
  // whole fix, as long as nothing but gemms reads it.
  module.walk([&](Operation *op) {
    if (!isa<QuantizeOp, RmsNormQuantizeOp>(op))
      return;
    Value q = op->getResult(0);
    auto qType = cast<RankedTensorType>(q.getType());
    if (qType.getElementType() == want)
      return;
    if (!fixFp8Type) {
      fp8q::emitOpErrorAt(op)
          << "produces " << qType.getElementType() << " but target "
          << target.getArch() << " reads " << want
          << "; set fix-fp8-type to quantize to " << want;
      ok = false;
      return;
    }
    for (Operation *user : q.getUsers()) {
      if (!isa<GemmOp>(user)) {
        fp8q::emitOpErrorAt(user)
            << "reads q of a producer that fix-fp8-type must move to " << want
            << "; only q values read by fp8q.gemm ops alone can be retyped";
        ok = false;
        return;
      }
    }
    q.setType(RankedTensorType::get(qType.getShape(), want));
    ++numFp8Retyped;
  });
  if (!ok)
    return failure();

  // Gemms read the flavour their kernel's contract names on this target.
  module.walk([&](GemmOp gemm) {
    Kernel kernel = *gemm.getKernel();
    Type qElem = elementTypeOf(gemm.getQ());
    Type need = getRequiredFp8(kernel, target);
    if (!need)
      need = fixFp8Type ? want : qElem;
    if (qElem != need) {
      InFlightDiagnostic diag = fp8q::emitOpErrorAt(gemm)
                                << "q has " << qElem << " but kernel "
                                << kernelName(kernel) << " on "
                                << target.getArch() << " reads " << need;
      if (fixFp8Type)
        diag << "; fix-fp8-type retypes only fp8q.quantize and "
                "fp8q.rms_norm_quantize results";
      ok = false;
      return;
    }
    Type wElem = elementTypeOf(gemm.getW());
    if (wElem == need)
      return;
    if (!fixFp8Type) {
      fp8q::emitOpErrorAt(gemm)
          << "w has " << wElem << " but kernel " << kernelName(kernel) << " on "
          << target.getArch() << " reads " << need
          << "; set fix-fp8-type to convert constant weights";
      ok = false;
      return;
    }
    FailureOr<Value> converted = convertWeight(gemm, need);
    if (failed(converted)) {
      ok = false;
      return;
    }
    if (isa<Float8E4M3FNUZType>(need) && isa<Float8E4M3FNType>(wElem))
      gemm.getWScaleMutable().assign(
          scaleWeightScale(gemm.getWScale(), 2.0, gemm.getLoc()));
    gemm.getWMutable().assign(*converted);
  });
  // Drop constants the conversion replaced.
  for (auto &entry : convertedWeights)
    if (Operation *def = entry.first.getDefiningOp(); def && def->use_empty())
      def->erase();
  return success(ok);
}

/// Returns the preshuffled form of `weight`: a new constant when it is a
/// dense constant (byte-exact compile-time permutation), else one
/// fp8q.preshuffle right after its definition, where it dominates every
/// user of the weight.
Value SelectKernelsPass::preshuffleWeight(Value weight, Location loc) {
  OpBuilder builder(weight.getContext());
  builder.setInsertionPointAfterValue(weight);
  if (auto cst = weight.getDefiningOp<arith::ConstantOp>()) {
    if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue())) {
      if (DenseElementsAttr shuffled = preshuffleConstant(dense)) {
        ++numConstantsPreshuffled;
        return arith::ConstantOp::create(builder, cst.getLoc(), shuffled);
      }
    }
  }
  ++numPreshufflesInserted;
  auto type = cast<RankedTensorType>(weight.getType());
  return PreshuffleOp::create(builder, loc, getPreshuffledType(type), weight);
}

LogicalResult SelectKernelsPass::preshuffleWeights() {
  ModuleOp module = getOperation();
  SmallVector<Operation *> deadConstants;

  // An explicit preshuffle of a constant is folded at compile time.
  module.walk([&](PreshuffleOp op) {
    auto cst = op.getW().getDefiningOp<arith::ConstantOp>();
    if (!cst)
      return;
    auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
    DenseElementsAttr shuffled = dense ? preshuffleConstant(dense) : nullptr;
    if (!shuffled)
      return;
    OpBuilder builder(op);
    op.replaceAllUsesWith(
        arith::ConstantOp::create(builder, cst.getLoc(), shuffled).getResult());
    op.erase();
    ++numConstantsPreshuffled;
    if (cst->use_empty())
      cst.erase();
  });

  DominanceInfo dominance(module);
  DenseMap<Value, Value> shuffled;
  bool ok = true;
  module.walk([&](GemmOp gemm) {
    // Which kernels read a preshuffled weight is the contract table's call.
    Kernel kernel = *gemm.getKernel();
    if (getKernelContract(kernel).weight != FP8Q_WEIGHT_PRESHUFFLE_16X16)
      return;
    Value weight = gemm.getW();
    auto type = cast<RankedTensorType>(weight.getType());
    if (weightLayoutSatisfies(kernel, type.getEncoding()))
      return; // already preshuffled
    if (!canPreshuffle(type)) {
      fp8q::emitOpErrorAt(gemm)
          << "reads a [" << type.getDimSize(0) << ", " << type.getDimSize(1)
          << "] weight that " << kernelName(kernel)
          << " needs preshuffled, but preshuffle_16x16 needs "
             "N % 16 == 0 and K % 32 == 0";
      ok = false;
      return;
    }
    Value &result = shuffled[weight];
    if (!result) {
      // Reuse a preshuffle the input already has for this weight.
      for (Operation *user : weight.getUsers())
        if (auto existing = dyn_cast<PreshuffleOp>(user);
            existing && dominance.properlyDominates(existing.getOperation(),
                                                    gemm.getOperation())) {
          result = existing.getResult();
          break;
        }
    }
    if (!result)
      result = preshuffleWeight(weight, weight.getLoc());
    gemm.getWMutable().assign(result);
    if (Operation *def = weight.getDefiningOp();
        def && isa<arith::ConstantOp>(def))
      deadConstants.push_back(def);
  });
  for (Operation *def : deadConstants)
    if (def->use_empty())
      def->erase();
  return success(ok);
}

void SelectKernelsPass::runOnOperation() {
  ModuleOp module = getOperation();
  // Per-run memos: Values of an earlier run may have been erased.
  convertedWeights.clear();
  scaledWeightScales.clear();
  mConditions.clear();

  std::optional<Kernel> sm90Choice = symbolizeKernel(sm90Kernel);
  if (!sm90Choice || !(getKernelContract(*sm90Choice).archs & FP8Q_ARCH_SM90)) {
    fp8q::emitErrorAt(module)
        << "sm90-kernel '" << sm90Kernel
        << "' is not a kernel that runs on sm90; expected "
           "deepgemm, cublas or reference";
    return signalPassFailure();
  }

  std::optional<TunedShapeTable> loaded;
  if (!tunedTable.empty()) {
    llvm::Expected<TunedShapeTable> table =
        TunedShapeTable::loadFile(tunedTable);
    if (!table) {
      fp8q::emitErrorAt(module) << llvm::toString(table.takeError());
      return signalPassFailure();
    }
    loaded = std::move(*table);
  }
  const TunedShapeTable &table =
      loaded ? *loaded : TunedShapeTable::getDefault();

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

  for (GemmOp gemm : unrouted)
    if (failed(routeGemm(gemm, target, table, *sm90Choice)))
      return signalPassFailure();

  if (target && failed(fixOrCheckFp8(target)))
    return signalPassFailure();

  if (failed(preshuffleWeights()))
    return signalPassFailure();
}

} // namespace
