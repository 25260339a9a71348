//===- LowerStridedClones.cpp - Clones of strided buffers to copies -------===//
//
// Upstream's clone lowering allocates an identity-layout buffer and casts
// it to the clone's type, which fails for the column-major scales fp8q
// passes across function boundaries. Here a clone allocates the span its
// source addresses and views it with the source's strides.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace fp8q {
#define GEN_PASS_DEF_LOWERSTRIDEDCLONES
#include "fp8q/Conversion/Passes.h.inc"
} // namespace fp8q

using namespace mlir;

namespace {

/// clone(%src : memref<..., strided<S, offset: o>>) ->
///   %flat = alloc(span) : memref<?xT>
///   %dst = reinterpret_cast %flat to offset o', sizes(src), strides(src)
///   linalg.copy ins(%src) outs(%dst)
/// where span = o' + 1 + sum_i (size_i - 1) * stride_i (0 if any size is 0)
/// and o' is the static offset of the type (0 if it is dynamic).
struct LowerStridedClone : OpRewritePattern<bufferization::CloneOp> {
  LowerStridedClone(MLIRContext *context, llvm::Statistic &count)
      : OpRewritePattern(context), count(count) {}

  LogicalResult matchAndRewrite(bufferization::CloneOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<MemRefType>(op.getType());
    if (!type || type.getLayout().isIdentity())
      return rewriter.notifyMatchFailure(op, "left to upstream");
    int64_t staticOffset;
    SmallVector<int64_t> staticStrides;
    if (failed(type.getStridesAndOffset(staticStrides, staticOffset)))
      return rewriter.notifyMatchFailure(op, "layout is not strided");
    int64_t offset = ShapedType::isDynamic(staticOffset) ? 0 : staticOffset;

    Location loc = op.getLoc();
    auto metadata =
        memref::ExtractStridedMetadataOp::create(rewriter, loc, op.getInput());
    auto index = [&](int64_t value) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, value);
    };
    // span = offset + [all sizes > 0] * (1 + sum (size - 1) * stride).
    Value zero = index(0), one = index(1);
    Value last = zero;
    Value empty = arith::ConstantIntOp::create(rewriter, loc, 0, 1);
    for (int64_t dim = 0; dim < type.getRank(); ++dim) {
      Value size = metadata.getSizes()[dim];
      Value stride = metadata.getStrides()[dim];
      Value steps = arith::SubIOp::create(rewriter, loc, size, one);
      last = arith::AddIOp::create(
          rewriter, loc, last,
          arith::MulIOp::create(rewriter, loc, steps, stride));
      empty = arith::OrIOp::create(
          rewriter, loc, empty,
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, size,
                                zero));
    }
    Value extent = arith::AddIOp::create(rewriter, loc, last, one);
    extent = arith::SelectOp::create(rewriter, loc, empty, zero, extent);
    Value span = arith::AddIOp::create(rewriter, loc, extent, index(offset));

    auto flatType =
        MemRefType::get({ShapedType::kDynamic}, type.getElementType(),
                        MemRefLayoutAttrInterface(), type.getMemorySpace());
    Value flat =
        memref::AllocOp::create(rewriter, loc, flatType, ValueRange{span},
                                rewriter.getI64IntegerAttr(64));
    SmallVector<OpFoldResult> sizes, strides;
    for (int64_t dim = 0; dim < type.getRank(); ++dim) {
      sizes.push_back(type.isDynamicDim(dim)
                          ? OpFoldResult(metadata.getSizes()[dim])
                          : rewriter.getIndexAttr(type.getDimSize(dim)));
      strides.push_back(ShapedType::isDynamic(staticStrides[dim])
                            ? OpFoldResult(metadata.getStrides()[dim])
                            : rewriter.getIndexAttr(staticStrides[dim]));
    }
    Value clone = memref::ReinterpretCastOp::create(
        rewriter, loc, type, flat, rewriter.getIndexAttr(offset), sizes,
        strides);
    linalg::CopyOp::create(rewriter, loc, op.getInput(), clone);
    rewriter.replaceOp(op, clone);
    ++count;
    return success();
  }

  llvm::Statistic &count;
};

struct LowerStridedClonesPass
    : public fp8q::impl::LowerStridedClonesBase<LowerStridedClonesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<LowerStridedClone>(&getContext(), numClones);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace
