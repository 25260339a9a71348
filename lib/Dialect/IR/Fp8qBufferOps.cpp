//===- Fp8qBufferOps.cpp - memref forms of the fp8q ops -------------------===//
//
// Structural verifiers of the fp8q.buffer.* ops. They repeat the shape rules
// of the tensor ops on memrefs: bufferization produces these ops, but they
// are also public IR (tests, other compilers), and the runtime must never be
// handed inconsistent shapes.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Dialect/IR/Fp8qDialect.h"
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

LogicalResult BufferQuantizeOp::verify() {
  if (Value gate = getSiluGate())
    if (failed(verifyLikeX(*this, "silu_gate", gate, getX())))
      return failure();
  return verifyQuantizeBuffers(*this, getX(), getQ(), getScale(),
                               getGroupSize());
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

LogicalResult BufferGemmOp::verify() {
  auto qType = cast<MemRefType>(getQ().getType());
  auto wType = cast<MemRefType>(getW().getType());
  int64_t m = qType.getDimSize(0), k = qType.getDimSize(1);
  int64_t n = wType.getDimSize(0);
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

LogicalResult BufferMaterializeOp::verify() {
  return verifyShape(*this, "dest", getDest(),
                     cast<MemRefType>(getSource().getType()).getShape());
}

LogicalResult BufferPreshuffleOp::verify() {
  auto wType = cast<MemRefType>(getW().getType());
  if (!wType.hasStaticShape())
    return emitOpError() << "w must have a static shape [N, K], got ["
                         << formatShape(wType.getShape()) << "]";
  int64_t n = wType.getDimSize(0), k = wType.getDimSize(1);
  if (!fp8q_preshuffle_tiles_ok(n, k))
    return emitOpError() << "preshuffle_16x16 needs N % 16 == 0 and "
                            "K % 32 == 0, got N = "
                         << n << ", K = " << k;
  if (elementTypeOf(getDest()) != wType.getElementType())
    return emitOpError() << "dest element type " << elementTypeOf(getDest())
                         << " must match w element type "
                         << wType.getElementType();
  return verifyShape(*this, "dest", getDest(), wType.getShape());
}
