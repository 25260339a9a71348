//===- LowerGemmV2.cpp - v2 fp8q.buffer.gemm to fp8q_rt_gemm_v2 -----------===//
//
// A gemm of SPEC v2's block-scaled formats (FP8 1x128 with e8m0 scales,
// MXFP8, MXFP4, NVFP4) becomes one call of fp8q_rt_gemm_v2: the buffers
// (scales as v2 scale descriptors, f4E2M1FN as code-counted descriptors),
// NVFP4's product of the global scales, and the codes of the format, of
// each scale's layout and of the weight layout, all from the operand
// types (fp8q_formats.h / fp8q_runtime.h). In device execution the same
// call is fp8q_rt_device_gemm_v2 on the step's stream.
//
//===----------------------------------------------------------------------===//

#include "RuntimeCalls.h"

using namespace mlir;

namespace fp8q::lowering {

LogicalResult lowerGemmV2(BufferGemmOp op, BufferGemmOp::Adaptor adaptor,
                          ConversionPatternRewriter &rewriter,
                          RuntimeCalls &calls, Kernel kernel) {
  Location loc = op.getLoc();
  auto qType = cast<MemRefType>(op.getQ().getType());
  auto xsType = cast<MemRefType>(op.getXScale().getType());
  auto wsType = cast<MemRefType>(op.getWScale().getType());
  // The verifier made K and G static, G dividing K.
  int64_t group = qType.getDimSize(1) / xsType.getDimSize(1);
  Value global =
      getGlobalScaleOrPlaceholder(rewriter, op, adaptor.getGlobalScale());
  ScaleLayoutCode xs = getScaleLayoutCode(xsType);
  ScaleLayoutCode ws = getScaleLayoutCode(wsType);
  int32_t weightLayout = op.getWLayout() ? FP8Q_WEIGHT_LAYOUT_PRESHUFFLE_16X16
                                         : FP8Q_WEIGHT_LAYOUT_PLAIN;
  auto i32 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(rewriter, loc, v, 32);
  };
  auto i64 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(rewriter, loc, v, 64);
  };
  return calls.replaceWithCall(
      rewriter, op, "fp8q_rt_gemm_v2",
      {adaptor.getQ(), adaptor.getXScale(), adaptor.getW(), adaptor.getWScale(),
       global, adaptor.getOut(), i64(group), i32(static_cast<int32_t>(kernel)),
       i32(getQTypeCode(qType.getElementType())),
       i32(getScaleTypeCode(xsType.getElementType())), i32(xs.code),
       i64(xs.align), i32(ws.code), i64(ws.align), i32(weightLayout)});
}

} // namespace fp8q::lowering
