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
// Layouts are equal by the bytes they address (fp8q_scale_layouts_equal),
// so a strided scale may be a padded layout's bytes (row_major [4k, 4] is
// col_major align 4 pack 4's) and needs no copy; the runtimes still read
// the descriptor's kind first (strides (0, 0) mark a padded buffer). Such
// a scale is passed as a view in the layout the kernel reads.
//
//===----------------------------------------------------------------------===//

#include "RuntimeCalls.h"

#include "fp8q/Dialect/IR/ScaleLayout.h"
#include "fp8q/Runtime/fp8q_scale_layouts.h"
#include "fp8q/Target/KernelContracts.h"

using namespace mlir;

namespace fp8q::lowering {

/// The layout a strided scale memref of static shape and strides is in:
/// row_major, or col_major whose align is its leading dimension (so that
/// its strides are the memref's); null when the strides are neither or
/// not static.
static LayoutAttr getStridedLayout(MemRefType type) {
  MLIRContext *ctx = type.getContext();
  int64_t m = type.getDimSize(0), g = type.getDimSize(1);
  auto [strides, offset] = type.getStridesAndOffset();
  (void)offset;
  int64_t s0 = strides[0], s1 = strides[1];
  if (ShapedType::isDynamic(s0) || ShapedType::isDynamic(s1))
    return {};
  if (fp8q_scale_strides_equal(m, g, s0, s1, g, 1))
    return LayoutAttr::getRowMajor(ctx);
  if (g == 1 && (m == 1 || s0 == 1))
    return LayoutAttr::getColMajor(ctx, 1);
  if ((m == 1 || s0 == 1) && s1 >= m)
    return LayoutAttr::getColMajor(ctx, s1);
  return {};
}

/// A scale operand of `kernel` (`type` its memref before conversion,
/// `value` after) whose bytes are those of the kernel's required layout but
/// whose descriptor is of the other kind (strided where a padded layout is
/// read, or the reverse): the same buffer re-described in the required
/// layout, and `code` set to it. Nothing is copied. A strided buffer
/// becomes a padded view only when the padded allocation is exactly the
/// span it addresses (the padded descriptor claims that many bytes). Any
/// other operand is returned as it is, for the runtime to check.
static Value viewInRequiredLayout(ConversionPatternRewriter &rewriter,
                                  Location loc, Kernel kernel,
                                  GemmOperand operand, MemRefType type,
                                  Value value, ScaleLayoutCode &code) {
  ScaleRequirement req =
      getScaleRequirement(kernel, operand, rewriter.getContext());
  if (req.kind != FP8Q_SCALE_REQ_LAYOUT || !type.hasStaticShape())
    return value;
  auto padded = dyn_cast<LayoutAttr>(type.getLayout());
  if (bool(padded) == !req.layout.isStrided())
    return value;
  int64_t m = type.getDimSize(0), g = type.getDimSize(1);
  int64_t want0 = 0, want1 = 0;
  int reqCode = req.layout.getLayoutCode();
  int64_t reqAlign = req.layout.getAlign();
  if (padded) {
    // A padded buffer holds its whole allocation: any strided layout with
    // the same offsets stays inside it.
    if (!areEquivalentLayouts(req.layout, padded, type.getShape()))
      return value;
    fp8q_scale_layout_strides(reqCode, reqAlign, m, g, &want0, &want1);
  } else {
    LayoutAttr have = getStridedLayout(type);
    if (!have || !areEquivalentLayouts(req.layout, have, type.getShape()))
      return value;
    auto [strides, offset] = type.getStridesAndOffset();
    (void)offset;
    int64_t span = (m > 1 ? (m - 1) * strides[0] : 0) +
                   (g > 1 ? (g - 1) * strides[1] : 0) + 1;
    if (fp8q_scale_layout_alloc(reqCode, reqAlign, m, g) != span)
      return value;
  }
  auto source = cast<MemRefType>(value.getType());
  auto view = MemRefType::get(source.getShape(), source.getElementType(),
                              StridedLayoutAttr::get(rewriter.getContext(),
                                                     ShapedType::kDynamic,
                                                     {want0, want1}),
                              source.getMemorySpace());
  Value at = memref::ExtractStridedMetadataOp::create(rewriter, loc, value)
                 .getOffset();
  code = {reqCode, reqAlign};
  SmallVector<OpFoldResult, 2> sizes = {rewriter.getIndexAttr(m),
                                        rewriter.getIndexAttr(g)};
  SmallVector<OpFoldResult, 2> strides = {rewriter.getIndexAttr(want0),
                                          rewriter.getIndexAttr(want1)};
  return memref::ReinterpretCastOp::create(rewriter, loc, view, value,
                                           OpFoldResult(at), sizes, strides);
}

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
  Value xScale =
      viewInRequiredLayout(rewriter, loc, kernel, GemmOperand::XScale, xsType,
                           adaptor.getXScale(), xs);
  Value wScale =
      viewInRequiredLayout(rewriter, loc, kernel, GemmOperand::WScale, wsType,
                           adaptor.getWScale(), ws);
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
      {adaptor.getQ(), xScale, adaptor.getW(), wScale, global, adaptor.getOut(),
       i64(group), i32(static_cast<int32_t>(kernel)),
       i32(getQTypeCode(qType.getElementType())),
       i32(getScaleTypeCode(xsType.getElementType())), i32(xs.code),
       i64(xs.align), i32(ws.code), i64(ws.align), i32(weightLayout)});
}

} // namespace fp8q::lowering
