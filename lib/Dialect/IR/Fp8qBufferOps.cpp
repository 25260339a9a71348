//===- Fp8qBufferOps.cpp - memref forms of the fp8q ops -------------------===//
//
// Structural verifiers of the fp8q.buffer.* ops. They repeat the shape rules
// of the tensor ops on memrefs: bufferization produces these ops, but they
// are also public IR (tests, other compilers), and the runtime must never be
// handed inconsistent shapes.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Dialect/IR/Fp8qDialect.h"
#include "fp8q/Dialect/IR/ScaleLayout.h"
#include "fp8q/Runtime/fp8q_contracts.h"
#include "fp8q/Runtime/fp8q_preshuffle.h"

#include "VerifierUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace fp8q;
using fp8q::detail::formatShape;
using fp8q::detail::verifyShape;

/// The GEMM scale block (1x128 activation groups, 128x128 weight blocks).
static constexpr int64_t kGemmBlock = FP8Q_SCALE_BLOCK;

static Type elementTypeOf(Value value) {
  return cast<MemRefType>(value.getType()).getElementType();
}

/// Shared rules of the two quantizing ops: x, q [M, K], scale [M, K / g].
static LogicalResult verifyQuantizeBuffers(Operation *op, Value x, Value q,
                                           Value scale, int64_t groupSize) {
  if (groupSize <= 0)
    return op->emitOpError()
           << "group_size must be positive, got " << groupSize;
  auto xType = cast<MemRefType>(x.getType());
  int64_t m = xType.getDimSize(0), k = xType.getDimSize(1);
  if (ShapedType::isDynamic(k))
    return op->emitOpError() << "K (dim 1 of x) must be static";
  if (k % groupSize != 0)
    return op->emitOpError()
           << "group_size " << groupSize << " must divide K = " << k;
  return failure(failed(verifyShape(op, "q", q, {m, k})) ||
                 failed(verifyShape(op, "scale", scale, {m, k / groupSize})));
}

/// `value` (operand `name`) has x's element type and shape.
static LogicalResult verifyLikeX(Operation *op, StringRef name, Value value,
                                 Value x) {
  auto xType = cast<MemRefType>(x.getType());
  if (elementTypeOf(value) != xType.getElementType())
    return op->emitOpError()
           << name << " element type " << elementTypeOf(value)
           << " must match x element type " << xType.getElementType();
  return verifyShape(op, name, value, xType.getShape());
}

/// The padded #fp8q.layout of a scale buffer, or null for a strided one.
static LayoutAttr getPaddedLayout(Value scale) {
  return dyn_cast<LayoutAttr>(cast<MemRefType>(scale.getType()).getLayout());
}

/// A padded layout holds 1-byte scales only (SPEC v2).
static LogicalResult verifyScaleBuffer(Operation *op, StringRef name,
                                       Value scale) {
  if (getPaddedLayout(scale) && !isByteScaleType(elementTypeOf(scale)))
    return op->emitOpError()
           << name << ": a padded scale layout holds 1-byte scales "
           << "(f8E8M0FNU or f8E4M3FN), got " << elementTypeOf(scale);
  return success();
}

/// FP8 1x128 with f32 scales, the v1 entry points' formats.
static bool isV1Pair(Value q, Value scale) {
  return isFp8Type(elementTypeOf(q)) && elementTypeOf(scale).isF32() &&
         !getPaddedLayout(scale);
}

bool BufferQuantizeOp::isV2() {
  std::optional<ScaleRounding> rounding = getScaleRounding();
  return !isV1Pair(getQ(), getScale()) || getGlobalScale() ||
         (rounding && *rounding != ScaleRounding::Exact);
}

LogicalResult BufferQuantizeOp::verify() {
  if (Value gate = getSiluGate()) {
    if (failed(verifyLikeX(*this, "silu_gate", gate, getX())))
      return failure();
    if (isV2())
      return emitOpError() << "silu_gate is fused for FP8 1x128 with exact "
                              "f32 scales only";
  }
  if (failed(verifyQuantizeBuffers(*this, getX(), getQ(), getScale(),
                                   getGroupSize())) ||
      failed(verifyScaleBuffer(*this, "scale", getScale())))
    return failure();
  std::string why;
  std::optional<BlockFormat> format = getBlockFormat(
      elementTypeOf(getQ()), elementTypeOf(getScale()), getGroupSize(), &why);
  if (!format)
    return emitOpError() << why;
  if ((*format == BlockFormat::NvFp4) != bool(getGlobalScale()))
    return emitOpError() << (getGlobalScale()
                                 ? "global_scale is NVFP4's (f4E2M1FN q, "
                                   "f8E4M3FN scale) only"
                                 : "NVFP4 needs the global_scale operand");
  if (std::optional<ScaleRounding> rounding = getScaleRounding())
    if (!isScaleRoundingAllowed(*format, *rounding))
      return emitOpError() << "scale_rounding "
                           << stringifyScaleRounding(*rounding)
                           << " is not a rule of "
                           << getBlockFormatName(*format);
  return success();
}

LogicalResult BufferRmsNormQuantizeOp::verify() {
  if (failed(verifyQuantizeBuffers(*this, getX(), getQ(), getScale(),
                                   getGroupSize())))
    return failure();
  auto xType = cast<MemRefType>(getX().getType());
  if (elementTypeOf(getGamma()) != xType.getElementType())
    return emitOpError() << "gamma element type " << elementTypeOf(getGamma())
                         << " must match x element type "
                         << xType.getElementType();
  if (failed(verifyShape(*this, "gamma", getGamma(), {xType.getDimSize(1)})))
    return failure();
  if (Value y = getUnquantized())
    if (failed(verifyLikeX(*this, "unquantized", y, getX())))
      return failure();
  if (!getResidual() != !getResidualSum())
    return emitOpError() << "residual and residual_sum buffers come together";
  if (Value residual = getResidual())
    return failure(
        failed(verifyLikeX(*this, "residual", residual, getX())) ||
        failed(verifyLikeX(*this, "residual_sum", getResidualSum(), getX())));
  return success();
}

bool BufferGemmOp::isV2() {
  return !isV1Pair(getQ(), getXScale()) || !isV1Pair(getW(), getWScale());
}

/// SPEC v2's gemm on buffers: one format on both sides, the group read
/// from x_scale, the weight scale [N, G] (MX, NVFP4) or FP8 1x128's
/// [ceil(N / 128), K / 128] (UE8M0).
static LogicalResult verifyV2GemmBuffers(BufferGemmOp op, int64_t m, int64_t n,
                                         int64_t k) {
  if (failed(verifyScaleBuffer(op, "x_scale", op.getXScale())) ||
      failed(verifyScaleBuffer(op, "w_scale", op.getWScale())))
    return failure();
  auto xsType = cast<MemRefType>(op.getXScale().getType());
  int64_t groups = xsType.getDimSize(1);
  if (ShapedType::isDynamic(groups) || groups <= 0 || k % groups != 0)
    return op.emitOpError()
           << "x_scale must have a static K / group_size columns dividing K = "
           << k << ", got [" << formatShape(xsType.getShape()) << "]";
  int64_t group = k / groups;
  std::string why;
  std::optional<BlockFormat> xFormat = getBlockFormat(
      elementTypeOf(op.getQ()), elementTypeOf(op.getXScale()), group, &why);
  if (!xFormat)
    return op.emitOpError() << "q / x_scale: " << why;
  std::optional<BlockFormat> wFormat = getBlockFormat(
      elementTypeOf(op.getW()), elementTypeOf(op.getWScale()), group, &why);
  if (!wFormat || *wFormat != *xFormat ||
      elementTypeOf(op.getW()) != elementTypeOf(op.getQ()))
    return op.emitOpError() << "operand formats differ: q / x_scale are "
                            << getBlockFormatName(*xFormat)
                            << " but w / w_scale are not; give both "
                               "operands one format";
  SmallVector<int64_t, 2> wScaleShape = {n, groups};
  // UE8M0 weight scales: per 128x128 block, or one row per weight row (what
  // DeepGEMM reads on sm100, the deepgemm_sm100 contract), as fp8q.gemm.
  if (*xFormat == BlockFormat::Fp8BlockE8M0 &&
      cast<ShapedType>(op.getWScale().getType()).getDimSize(0) != n)
    wScaleShape = {llvm::divideCeilSigned(n, kGemmBlock), k / kGemmBlock};
  return failure(
      failed(verifyShape(op, "w", op.getW(), {n, k})) ||
      failed(verifyShape(op, "x_scale", op.getXScale(), {m, groups})) ||
      failed(verifyShape(op, "w_scale", op.getWScale(), wScaleShape)) ||
      failed(verifyShape(op, "out", op.getOut(), {m, n})) ||
      failed(fp8q::detail::verifyGemmGlobalScale(
          op, *xFormat, bool(op.getGlobalScale()), /*requireForNvfp4=*/true)));
}

LogicalResult BufferGemmOp::verify() {
  auto qType = cast<MemRefType>(getQ().getType());
  auto wType = cast<MemRefType>(getW().getType());
  int64_t m = qType.getDimSize(0), k = qType.getDimSize(1);
  int64_t n = wType.getDimSize(0);
  if (isV2()) {
    if (ShapedType::isDynamic(k))
      return emitOpError() << "K (dim 1 of q) must be static";
    if (!wType.hasStaticShape())
      return emitOpError() << "w must have a static shape [N, K], got ["
                           << formatShape(wType.getShape()) << "]";
    if (getWLayout() && (n % 16 != 0 || k % 64 != 0 ||
                         !isa<Float4E2M1FNType>(wType.getElementType())))
      return emitOpError() << "a v2 preshuffle_16x16 weight is f4E2M1FN "
                              "with N % 16 == 0 and K % 64 == 0";
    return verifyV2GemmBuffers(*this, m, n, k);
  }
  if (failed(fp8q::detail::verifyGemmGlobalScale(*this, BlockFormat::Fp8Block,
                                                 bool(getGlobalScale()),
                                                 /*requireForNvfp4=*/true)))
    return failure();
  if (ShapedType::isDynamic(k) || k % kGemmBlock != 0)
    return emitOpError() << "K (dim 1 of q) must be a static multiple of "
                         << kGemmBlock << ", got " << formatShape({k});
  if (!wType.hasStaticShape())
    return emitOpError() << "w must have a static shape [N, K], got ["
                         << formatShape(wType.getShape()) << "]";
  if (wType.getElementType() != qType.getElementType())
    return emitOpError() << "w element type " << wType.getElementType()
                         << " must match q element type "
                         << qType.getElementType();
  if (getWLayout() && !fp8q_preshuffle_tiles_ok(n, k))
    return emitOpError() << "preshuffle_16x16 needs N % 16 == 0 and "
                            "K % 32 == 0, got N = "
                         << n << ", K = " << k;
  int64_t groups = k / kGemmBlock;
  return failure(
      failed(verifyShape(*this, "w", getW(), {n, k})) ||
      failed(verifyShape(*this, "x_scale", getXScale(), {m, groups})) ||
      failed(verifyShape(*this, "w_scale", getWScale(),
                         {llvm::divideCeilSigned(n, kGemmBlock), groups})) ||
      failed(verifyShape(*this, "out", getOut(), {m, n})));
}

bool BufferMaterializeOp::isV2() {
  return !elementTypeOf(getSource()).isF32() || getPaddedLayout(getSource()) ||
         getPaddedLayout(getDest());
}

LogicalResult BufferMaterializeOp::verify() {
  if (elementTypeOf(getDest()) != elementTypeOf(getSource()))
    return emitOpError() << "dest element type " << elementTypeOf(getDest())
                         << " must match source element type "
                         << elementTypeOf(getSource());
  if (failed(verifyScaleBuffer(*this, "source", getSource())) ||
      failed(verifyScaleBuffer(*this, "dest", getDest())))
    return failure();
  return verifyShape(*this, "dest", getDest(),
                     cast<MemRefType>(getSource().getType()).getShape());
}

LogicalResult BufferPreshuffleOp::verify() {
  auto wType = cast<MemRefType>(getW().getType());
  if (!wType.hasStaticShape())
    return emitOpError() << "w must have a static shape [N, K], got ["
                         << formatShape(wType.getShape()) << "]";
  int64_t n = wType.getDimSize(0), k = wType.getDimSize(1);
  if (isa<Float4E2M1FNType>(wType.getElementType())) {
    // The packed [N, K / 2] bytes are what is permuted.
    if (k % 2 != 0 || !fp8q_preshuffle_tiles_ok(n, k / 2))
      return emitOpError() << "preshuffle_16x16 of an f4E2M1FN weight "
                              "permutes its [N, K / 2] bytes and needs "
                              "N % 16 == 0 and K % 64 == 0, got N = "
                           << n << ", K = " << k;
  } else if (!fp8q_preshuffle_tiles_ok(n, k)) {
    return emitOpError() << "preshuffle_16x16 needs N % 16 == 0 and "
                            "K % 32 == 0, got N = "
                         << n << ", K = " << k;
  }
  if (elementTypeOf(getDest()) != wType.getElementType())
    return emitOpError() << "dest element type " << elementTypeOf(getDest())
                         << " must match w element type "
                         << wType.getElementType();
  return verifyShape(*this, "dest", getDest(), wType.getShape());
}

/// A collective's buffers: the same element type, the same columns, dense
/// row-major (identity layout), and dest's rows `ranks` times (`multiply`)
/// or 1 / `ranks` of (otherwise) the input's where both are static.
static LogicalResult verifyCollectiveBuffers(Operation *op, Value input,
                                             Value dest, int64_t ranks,
                                             bool multiply) {
  auto inType = cast<MemRefType>(input.getType());
  auto destType = cast<MemRefType>(dest.getType());
  if (destType.getElementType() != inType.getElementType())
    return op->emitOpError()
           << "dest element type " << destType.getElementType()
           << " must match input element type " << inType.getElementType();
  for (auto [name, type] :
       {std::pair<StringRef, MemRefType>{"input", inType}, {"dest", destType}})
    if (!type.getLayout().isIdentity())
      return op->emitOpError()
             << name << " must be a contiguous row-major buffer (a collective "
             << "moves whole rows of bytes), got " << type;
  if (ShapedType::isDynamic(inType.getDimSize(1)) ||
      inType.getDimSize(1) != destType.getDimSize(1))
    return op->emitOpError()
           << "input and dest must have the same static number of columns, "
              "got ["
           << formatShape(inType.getShape()) << "] and ["
           << formatShape(destType.getShape()) << "]";
  int64_t m = inType.getDimSize(0);
  if (ShapedType::isDynamic(m))
    return success();
  if (!multiply && m % ranks != 0)
    return op->emitOpError()
           << "input rows (" << m << ") must be a multiple of ranks (" << ranks
           << ")";
  int64_t rows = multiply ? m * ranks : m / ranks;
  return verifyShape(op, "dest", dest, {rows, inType.getDimSize(1)});
}

LogicalResult BufferAllGatherOp::verify() {
  return verifyCollectiveBuffers(*this, getInput(), getDest(), getRanks(),
                                 /*multiply=*/true);
}

LogicalResult BufferReduceScatterOp::verify() {
  return verifyCollectiveBuffers(*this, getInput(), getDest(), getRanks(),
                                 /*multiply=*/false);
}
