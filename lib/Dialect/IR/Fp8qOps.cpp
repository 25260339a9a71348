//===- Fp8qOps.cpp - fp8q operations --------------------------------------===//
//
// Structural verifiers (shapes, element types, group sizes) and folders.
// Kernel contracts are not checked here: see --fp8q-verify-contracts.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Dialect/IR/Fp8qDialect.h"
#include "fp8q/Dialect/IR/ScaleLayout.h"
#include "fp8q/Runtime/fp8q_contracts.h"
#include "fp8q/Target/Preshuffle.h"

#include "VerifierUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace fp8q;
using fp8q::detail::formatShape;
using fp8q::detail::verifyShape;

/// Weight scales cover 128x128 blocks and activation scales of a GEMM cover
/// 1x128 groups; the block width is fixed by every kernel fp8q targets.
static constexpr int64_t kScaleBlock = FP8Q_SCALE_BLOCK;

/// Rejects static shapes whose element count overflows int64 and static
/// zero extents: fp8q works on non-empty tensors only.
static LogicalResult verifyExtents(Operation *op, StringRef name, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t count = 1;
  for (int64_t d : type.getShape()) {
    if (ShapedType::isDynamic(d))
      continue;
    if (d == 0)
      return op->emitOpError()
             << name << " has a zero extent [" << formatShape(type.getShape())
             << "]; fp8q tensors must be non-empty";
    if (llvm::MulOverflow(count, d, count))
      return op->emitOpError()
             << name << " shape [" << formatShape(type.getShape())
             << "] overflows a 64-bit element count";
  }
  return success();
}

/// Only a scale layout (or nothing) may encode a scale operand or result.
static LogicalResult verifyScaleEncoding(Operation *op, StringRef name,
                                         Value value) {
  Attribute encoding = cast<RankedTensorType>(value.getType()).getEncoding();
  if (encoding && !isa<LayoutAttr>(encoding))
    return op->emitOpError()
           << name << " encoding must be #fp8q.layout, got " << encoding;
  return success();
}

/// Data tensors (activations, quantized activations) carry no encoding.
static LogicalResult verifyNoEncoding(Operation *op, StringRef name,
                                      Value value) {
  Attribute encoding = cast<RankedTensorType>(value.getType()).getEncoding();
  if (encoding)
    return op->emitOpError()
           << name << " must not carry an encoding, got " << encoding;
  return success();
}

/// Shared checks of quantize and rms_norm_quantize: x [M, K], q [M, K],
/// scale [M, K / g].
static LogicalResult verifyQuantizeShapes(Operation *op, Value x, Value q,
                                          Value scale, int64_t groupSize) {
  if (groupSize <= 0)
    return op->emitOpError()
           << "group_size must be positive, got " << groupSize;
  auto xType = cast<RankedTensorType>(x.getType());
  int64_t m = xType.getDimSize(0), k = xType.getDimSize(1);
  if (ShapedType::isDynamic(k))
    return op->emitOpError() << "K (dim 1 of x) must be static";
  if (k % groupSize != 0)
    return op->emitOpError()
           << "group_size " << groupSize << " must divide K = " << k;
  for (auto [name, value] :
       {std::pair<StringRef, Value>{"x", x}, {"q", q}, {"scale", scale}})
    if (failed(verifyExtents(op, name, value)))
      return failure();
  if (failed(verifyNoEncoding(op, "x", x)) ||
      failed(verifyNoEncoding(op, "q", q)) ||
      failed(verifyScaleEncoding(op, "scale", scale)))
    return failure();
  if (q.getType() !=
      RankedTensorType::get(xType.getShape(),
                            cast<ShapedType>(q.getType()).getElementType()))
    return op->emitOpError()
           << "q must have the shape of x [" << formatShape(xType.getShape())
           << "], got ["
           << formatShape(cast<ShapedType>(q.getType()).getShape()) << "]";
  auto scaleType = cast<RankedTensorType>(scale.getType());
  if (scaleType.getShape() != ArrayRef<int64_t>{m, k / groupSize})
    return op->emitOpError() << "scale must have shape [M, K / group_size] = ["
                             << formatShape({m, k / groupSize}) << "], got ["
                             << formatShape(scaleType.getShape()) << "]";
  return success();
}

//===----------------------------------------------------------------------===//
// QuantizeOp
//===----------------------------------------------------------------------===//

/// Names the rounding rules SPEC v2 allows for `format`, for messages.
static std::string allowedRoundings(BlockFormat format) {
  std::string text;
  for (ScaleRounding r : {ScaleRounding::Exact, ScaleRounding::Pow2Ceil,
                          ScaleRounding::Pow2Floor, ScaleRounding::E4M3}) {
    if (!isScaleRoundingAllowed(format, r))
      continue;
    if (!text.empty())
      text += " or ";
    text += stringifyScaleRounding(r).str();
  }
  return text;
}

LogicalResult QuantizeOp::verify() {
  Type qElement = cast<RankedTensorType>(getQ().getType()).getElementType();
  Type scaleElement =
      cast<RankedTensorType>(getScale().getType()).getElementType();
  int64_t k = cast<RankedTensorType>(getX().getType()).getDimSize(1);
  // Checked before the group size: an odd K cannot be stored at all.
  if (isa<Float4E2M1FNType>(qElement) && !ShapedType::isDynamic(k) &&
      k % 2 != 0)
    return emitOpError() << "f4E2M1FN q is stored two values per byte and "
                            "needs an even K, got K = "
                         << k;
  if (failed(verifyQuantizeShapes(*this, getX(), getQ(), getScale(),
                                  getGroupSize())))
    return failure();
  std::string why;
  std::optional<BlockFormat> format =
      getBlockFormat(qElement, scaleElement, getGroupSize(), &why);
  if (!format)
    return emitOpError() << why;
  if (std::optional<ScaleRounding> rounding = getScaleRounding();
      rounding && !isScaleRoundingAllowed(*format, *rounding))
    return emitOpError() << "scale_rounding "
                         << stringifyScaleRounding(*rounding)
                         << " is not allowed for "
                         << getBlockFormatName(*format) << " (" << qElement
                         << " q, " << scaleElement << " scales); use "
                         << allowedRoundings(*format)
                         << ", or drop it for the default "
                         << stringifyScaleRounding(
                                getDefaultScaleRounding(*format));
  if (*format == BlockFormat::NvFp4 && !getGlobalScale())
    return emitOpError() << "NVFP4 (f4E2M1FN q, f8E4M3FN scales) needs the "
                            "rank-0 f32 global_scale operand: q = rne(x / "
                            "(scale * global))";
  if (*format != BlockFormat::NvFp4 && getGlobalScale())
    return emitOpError() << "global_scale applies only to NVFP4 (f4E2M1FN q, "
                            "f8E4M3FN scales); drop it for "
                         << getBlockFormatName(*format);
  if (Value gate = getSiluGate()) {
    if (gate.getType() != getX().getType())
      return emitOpError() << "silu_gate must have the type of x "
                           << getX().getType() << ", got " << gate.getType();
    if (!isFp8Type(qElement) || !scaleElement.isF32() || getScaleRounding())
      return emitOpError()
             << "silu_gate is fused only into FP8 quantization with f32 "
                "scales (SPEC v1), got "
             << getBlockFormatName(*format)
             << (getScaleRounding() ? " with scale_rounding" : "")
             << "; quantize silu(gate) * x computed separately instead";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// RmsNormQuantizeOp
//===----------------------------------------------------------------------===//

LogicalResult RmsNormQuantizeOp::verify() {
  if (failed(verifyQuantizeShapes(*this, getX(), getQ(), getScale(),
                                  getGroupSize())))
    return failure();
  auto xType = cast<RankedTensorType>(getX().getType());
  auto gammaType = cast<RankedTensorType>(getGamma().getType());
  if (gammaType.getElementType() != xType.getElementType())
    return emitOpError() << "gamma element type " << gammaType.getElementType()
                         << " must match x element type "
                         << xType.getElementType();
  if (gammaType.getDimSize(0) != xType.getDimSize(1))
    return emitOpError() << "gamma must have shape [K] = ["
                         << xType.getDimSize(1) << "], got ["
                         << formatShape(gammaType.getShape()) << "]";
  float epsilon = getEpsilon().convertToFloat();
  if (!std::isfinite(epsilon) || epsilon < 0.0f)
    return emitOpError() << "epsilon must be finite and non-negative, got "
                         << epsilon;
  if (getKeepUnquantized() && !getUnquantized())
    return emitOpError() << "keep_unquantized requires a third result, the "
                            "unquantized normalized x";
  if (!getKeepUnquantized() && getUnquantized())
    return emitOpError() << "has a third (unquantized) result but no "
                            "keep_unquantized attribute";
  if (getUnquantized() && getUnquantized().getType() != xType)
    return emitOpError() << "unquantized result must have the type of x "
                         << xType << ", got " << getUnquantized().getType();
  // The generic form can state one without the other.
  if (!getResidual() != !getResidualSum())
    return emitOpError() << "residual operand and residual_sum result come "
                            "together (sum = x + residual is returned)";
  if (Value residual = getResidual()) {
    if (residual.getType() != xType)
      return emitOpError() << "residual must have the type of x " << xType
                           << ", got " << residual.getType();
    if (getResidualSum().getType() != xType)
      return emitOpError() << "residual_sum result must have the type of x "
                           << xType << ", got " << getResidualSum().getType();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// GemmOp
//===----------------------------------------------------------------------===//

/// True for a gemm of v1's FP8 1x128 format (fp8 q and w, f32 scales),
/// whose checks and messages stay those of SPEC v1.
static bool isV1Gemm(GemmOp op) {
  auto elementOf = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getElementType();
  };
  return isFp8Type(elementOf(op.getQ())) && isFp8Type(elementOf(op.getW())) &&
         elementOf(op.getXScale()).isF32() && elementOf(op.getWScale()).isF32();
}

/// SPEC v2's gemm: both operands in one block-scaled format, the group
/// read from x_scale's shape [M, K / group]; the weight scale is [N, K /
/// group] (MX, NVFP4) or FP8 1x128's [ceil(N / 128), K / 128] (UE8M0), in
/// any layout (its contract says which).
static LogicalResult verifyV2Gemm(GemmOp op, int64_t m, int64_t n, int64_t k) {
  auto qType = cast<RankedTensorType>(op.getQ().getType());
  auto wType = cast<RankedTensorType>(op.getW().getType());
  auto xsType = cast<RankedTensorType>(op.getXScale().getType());
  auto wsType = cast<RankedTensorType>(op.getWScale().getType());
  if (failed(verifyNoEncoding(op, "q", op.getQ())) ||
      failed(verifyScaleEncoding(op, "x_scale", op.getXScale())) ||
      failed(verifyScaleEncoding(op, "w_scale", op.getWScale())))
    return failure();
  if (Attribute encoding = wType.getEncoding();
      encoding && !isa<WeightLayoutAttr>(encoding))
    return op.emitOpError()
           << "w encoding must be #fp8q.weight_layout, got " << encoding;
  int64_t groups = xsType.getDimSize(1);
  if (ShapedType::isDynamic(groups) || k % groups != 0)
    return op.emitOpError()
           << "x_scale must have a static K / group_size columns dividing K = "
           << k << ", got [" << formatShape(xsType.getShape()) << "]";
  int64_t group = k / groups;
  std::string why;
  std::optional<BlockFormat> xFormat = getBlockFormat(
      qType.getElementType(), xsType.getElementType(), group, &why);
  if (!xFormat)
    return op.emitOpError() << "q / x_scale: " << why;
  std::optional<BlockFormat> wFormat = getBlockFormat(
      wType.getElementType(), wsType.getElementType(), group, &why);
  if (!wFormat || *wFormat != *xFormat ||
      wType.getElementType() != qType.getElementType()) {
    InFlightDiagnostic diag = op.emitOpError();
    diag << "operand formats differ: q / x_scale are "
         << getBlockFormatName(*xFormat) << " (" << qType.getElementType()
         << ", " << xsType.getElementType() << ", group " << group
         << ") but w / w_scale are ";
    if (wFormat)
      diag << getBlockFormatName(*wFormat) << " (";
    else
      diag << "no format (";
    diag << wType.getElementType() << ", " << wsType.getElementType()
         << "); give both operands one format";
    return diag;
  }
  SmallVector<int64_t, 2> wScaleShape = {n, groups};
  // UE8M0 weight scales: per 128x128 block, or one row per weight row (what
  // DeepGEMM reads on sm100, the deepgemm_sm100 contract).
  if (*xFormat == BlockFormat::Fp8BlockE8M0 && wsType.getDimSize(0) != n)
    wScaleShape = {llvm::divideCeilSigned(n, kScaleBlock), k / kScaleBlock};
  if (failed(verifyShape(op, "w", op.getW(), {n, k})) ||
      failed(verifyShape(op, "x_scale", op.getXScale(), {m, groups})) ||
      failed(verifyShape(op, "w_scale", op.getWScale(), wScaleShape)) ||
      failed(verifyShape(op, "out", op.getOut(), {m, n})))
    return failure();
  if (ShapedType::isDynamic(wsType.getDimSize(0)))
    return op.emitOpError() << "w_scale must have a static shape";
  return fp8q::detail::verifyGemmGlobalScale(op, *xFormat,
                                             bool(op.getGlobalScale()),
                                             /*requireForNvfp4=*/true);
}

LogicalResult GemmOp::verify() {
  auto qType = cast<RankedTensorType>(getQ().getType());
  auto wType = cast<RankedTensorType>(getW().getType());
  int64_t m = qType.getDimSize(0), k = qType.getDimSize(1);
  int64_t n = wType.getDimSize(0);
  if (ShapedType::isDynamic(k))
    return emitOpError() << "K (dim 1 of q) must be static";
  if (ShapedType::isDynamic(n) || ShapedType::isDynamic(wType.getDimSize(1)))
    return emitOpError() << "w must have a static shape [N, K], got ["
                         << formatShape(wType.getShape()) << "]";
  for (auto [name, value] : {std::pair<StringRef, Value>{"q", getQ()},
                             {"x_scale", getXScale()},
                             {"w", getW()},
                             {"w_scale", getWScale()},
                             {"out", getOut()}})
    if (failed(verifyExtents(*this, name, value)))
      return failure();
  if (!isV1Gemm(*this))
    return verifyV2Gemm(*this, m, n, k);
  if (failed(fp8q::detail::verifyGemmGlobalScale(*this, BlockFormat::Fp8Block,
                                                 bool(getGlobalScale()),
                                                 /*requireForNvfp4=*/false)))
    return failure();
  if (k % kScaleBlock != 0)
    return emitOpError() << "K = " << k << " must be a multiple of the "
                         << kScaleBlock << "-wide scale block";
  if (failed(verifyNoEncoding(*this, "q", getQ())) ||
      failed(verifyScaleEncoding(*this, "x_scale", getXScale())))
    return failure();
  if (Attribute encoding = wType.getEncoding();
      encoding && !isa<WeightLayoutAttr>(encoding))
    return emitOpError() << "w encoding must be #fp8q.weight_layout, got "
                         << encoding;
  if (wType.getElementType() != qType.getElementType())
    return emitOpError() << "w element type " << wType.getElementType()
                         << " must match q element type "
                         << qType.getElementType();
  int64_t groups = k / kScaleBlock;
  if (failed(verifyShape(*this, "w", getW(), {n, k})) ||
      failed(verifyShape(*this, "x_scale", getXScale(), {m, groups})) ||
      failed(verifyShape(*this, "w_scale", getWScale(),
                         {llvm::divideCeilSigned(n, kScaleBlock), groups})) ||
      failed(verifyShape(*this, "out", getOut(), {m, n})))
    return failure();
  if (ShapedType::isDynamic(
          cast<RankedTensorType>(getWScale().getType()).getDimSize(0)))
    return emitOpError() << "w_scale must have a static shape";
  if (!getScaleLayout(cast<RankedTensorType>(getWScale().getType()))
           .isRowMajor())
    return emitOpError() << "w_scale must be row-major for every kernel";
  return success();
}

//===----------------------------------------------------------------------===//
// MaterializeOp
//===----------------------------------------------------------------------===//

LogicalResult MaterializeOp::verify() {
  auto sourceType = cast<RankedTensorType>(getScale().getType());
  auto resultType = cast<RankedTensorType>(getType());
  if (sourceType.getShape() != resultType.getShape())
    return emitOpError() << "must keep the shape, got ["
                         << formatShape(sourceType.getShape()) << "] -> ["
                         << formatShape(resultType.getShape()) << "]";
  if (sourceType.getElementType() != resultType.getElementType())
    return emitOpError() << "must keep the scale element type, got "
                         << sourceType.getElementType() << " -> "
                         << resultType.getElementType();
  if (failed(verifyScaleEncoding(*this, "operand", getScale())) ||
      failed(verifyScaleEncoding(*this, "result", getResult())))
    return failure();
  return verifyExtents(*this, "scale", getScale());
}

bool MaterializeOp::isNoCopy() {
  return areEquivalentScaleTypes(cast<RankedTensorType>(getScale().getType()),
                                 cast<RankedTensorType>(getType()));
}

OpFoldResult MaterializeOp::fold(FoldAdaptor) {
  // Identity: the operand is already stored in the result layout.
  if (getScale().getType() == getType())
    return getScale();
  // Chains: materialize(materialize(x)) re-stores x once.
  if (auto inner = getScale().getDefiningOp<MaterializeOp>()) {
    if (inner.getScale().getType() == getType())
      return inner.getScale();
    getScaleMutable().assign(inner.getScale());
    return getResult();
  }
  return {};
}

//===----------------------------------------------------------------------===//
// PreshuffleOp
//===----------------------------------------------------------------------===//

LogicalResult PreshuffleOp::verify() {
  auto sourceType = cast<RankedTensorType>(getW().getType());
  auto resultType = cast<RankedTensorType>(getType());
  if (isa_and_nonnull<WeightLayoutAttr>(sourceType.getEncoding()))
    return emitOpError() << "operand is already preshuffled";
  if (failed(verifyNoEncoding(*this, "operand", getW())))
    return failure();
  if (!isa_and_nonnull<WeightLayoutAttr>(resultType.getEncoding()))
    return emitOpError()
           << "result must carry #fp8q.weight_layout<preshuffle_16x16>";
  if (sourceType.getShape() != resultType.getShape() ||
      sourceType.getElementType() != resultType.getElementType())
    return emitOpError() << "must keep shape and element type, got "
                         << sourceType << " -> " << resultType;
  return success();
}

OpFoldResult PreshuffleOp::fold(FoldAdaptor adaptor) {
  // The permutation is a pure function of the constant: folding twice, or
  // in any order, gives the same bytes.
  auto dense = dyn_cast_if_present<DenseElementsAttr>(adaptor.getW());
  if (!dense)
    return {};
  DenseElementsAttr shuffled = preshuffleConstant(dense);
  if (!shuffled || shuffled.getType() != getType())
    return {};
  return shuffled;
}

#define GET_OP_CLASSES
#include "fp8q/Dialect/IR/Fp8qOps.cpp.inc"
