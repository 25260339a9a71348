//===- BufferizableOpInterfaceImpl.cpp - Bufferizing fp8q ops -------------===//
//
// Every fp8q tensor op reads its operands and produces fresh results, so its
// bufferization allocates one buffer per result (in the layout the result
// type states) and emits the destination-passing fp8q.buffer.* op. The one
// exception is a materialization between layouts that address the same bytes
// (MaterializeOp::isNoCopy): its result is a view of the operand's buffer,
// so no buffer and no copy exist at run time. The shard collectives fp8q
// lowers (all_gather, reduce_scatter along dim 0) get models here too: they
// become fp8q.buffer.all_gather / reduce_scatter on contiguous buffers.
//
// Column-major scales are allocated as the transposed buffer [G, ld] and
// viewed as [M, G] with strides (1, ld) through memref.reinterpret_cast, so
// the bytes really are column-major and ld is what the contract says.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Dialect/Transforms/BufferizableOpInterfaceImpl.h"
#include "fp8q/Support/Diagnostics.h"

#include "fp8q/Dialect/IR/Collectives.h"
#include "fp8q/Dialect/IR/Fp8qDialect.h"
#include "fp8q/Dialect/IR/ScaleLayout.h"
#include "fp8q/Runtime/fp8q_scale_layouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::bufferization;

namespace fp8q {

MemRefType getFp8qMemRefType(RankedTensorType type) {
  Attribute encoding = type.getEncoding();
  if (!encoding)
    return {};
  if (isa<WeightLayoutAttr>(encoding))
    // The permutation has no strided form: a dense buffer of permuted bytes.
    return MemRefType::get(type.getShape(), type.getElementType());
  auto layout = dyn_cast<LayoutAttr>(encoding);
  if (!layout || type.getRank() != 2)
    return {};
  // SPEC v2's padded layouts have no strided form: the layout itself is the
  // memref layout (strides (0, 0) over the whole allocation).
  if (!layout.isStrided())
    return MemRefType::get(type.getShape(), type.getElementType(), layout);
  if (layout.isRowMajor())
    return MemRefType::get(type.getShape(), type.getElementType());
  SmallVector<int64_t, 2> strides = getScaleStrides(layout, type.getShape());
  auto strided =
      StridedLayoutAttr::get(type.getContext(), /*offset=*/0, strides);
  return MemRefType::get(type.getShape(), type.getElementType(), strided);
}

MemRefType getFp8qOrIdentityMemRefType(RankedTensorType type) {
  if (MemRefType mapped = getFp8qMemRefType(type))
    return mapped;
  return MemRefType::get(type.getShape(), type.getElementType());
}

void configureFp8qBufferization(OneShotBufferizationOptions &options) {
  options.bufferizeFunctionBoundaries = true;
  // Layers as an scf.for carry freshly allocated activations and scales
  // from one iteration to the next.
  options.allowReturnAllocsFromLoops = true;
  // Function results get the type their tensor type states, like arguments:
  // a public signature is an ABI and must not depend on the body.
  options.inferFunctionResultLayout = false;
  options.functionArgTypeConverterFn =
      [](TensorLikeType type, Attribute memorySpace, func::FuncOp,
         const BufferizationOptions &) -> BufferLikeType {
    if (auto ranked = dyn_cast<RankedTensorType>(type))
      return cast<BufferLikeType>(Type(MemRefType::get(
          ranked.getShape(), ranked.getElementType(),
          getFp8qOrIdentityMemRefType(ranked).getLayout(), memorySpace)));
    return cast<BufferLikeType>(Type(getMemRefTypeWithStaticIdentityLayout(
        cast<TensorType>(type), memorySpace)));
  };
  options.unknownTypeConverterFn = [](TensorType type, Attribute memorySpace,
                                      const BufferizationOptions &) {
    if (auto ranked = dyn_cast<RankedTensorType>(type))
      if (MemRefType mapped = getFp8qMemRefType(ranked))
        return BaseMemRefType(MemRefType::get(mapped.getShape(),
                                              mapped.getElementType(),
                                              mapped.getLayout(), memorySpace));
    return getMemRefTypeWithFullyDynamicLayout(type, memorySpace);
  };
}

namespace {

/// The extent of dim 0 (M) of `buffer` as an index value.
Value getRows(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (!type.isDynamicDim(0))
    return arith::ConstantIndexOp::create(b, loc, type.getDimSize(0));
  return memref::DimOp::create(b, loc, buffer, 0);
}

/// roundup(rows, multiple) * factor as an index value (rows dynamic).
Value getRoundedProduct(OpBuilder &b, Location loc, Value rows,
                        int64_t multiple, int64_t factor) {
  Value sum = arith::AddIOp::create(
      b, loc, rows, arith::ConstantIndexOp::create(b, loc, multiple - 1));
  Value blocks = arith::DivUIOp::create(
      b, loc, sum, arith::ConstantIndexOp::create(b, loc, multiple));
  return arith::MulIOp::create(
      b, loc, blocks,
      arith::ConstantIndexOp::create(b, loc, multiple * factor));
}

/// A padded scale [M, G] (SPEC v2): a dense rank-1 allocation of the
/// layout's fp8q_scale_layout_alloc elements, viewed as the logical scale
/// in the layout (strides (0, 0)). Every padded layout allocates
/// roundup(M, A) * C elements for a row multiple A and a per-row-block
/// width C; both are read off the C allocation function, so its formula
/// stays the one definition.
FailureOr<Value> allocatePaddedScale(OpBuilder &b, Location loc,
                                     MemRefType type, LayoutAttr layout,
                                     Value rows,
                                     const BufferizationOptions &options) {
  int code = layout.getLayoutCode();
  int64_t g = type.getDimSize(1);
  int64_t multiple = code == FP8Q_LAYOUT_COL_MAJOR_PACK4  ? layout.getAlign()
                     : code == FP8Q_LAYOUT_SWIZZLE_32_4_4 ? 128
                                                          : 256;
  int64_t factor =
      fp8q_scale_layout_alloc(code, layout.getAlign(), multiple, g) / multiple;
  SmallVector<Value, 1> dynSizes;
  int64_t elements = ShapedType::kDynamic;
  if (type.isDynamicDim(0))
    dynSizes.push_back(getRoundedProduct(b, loc, rows, multiple, factor));
  else
    elements =
        fp8q_scale_layout_alloc(code, layout.getAlign(), type.getDimSize(0), g);
  auto flatType = MemRefType::get({elements}, type.getElementType());
  FailureOr<Value> flat = options.createAlloc(b, loc, flatType, dynSizes);
  if (failed(flat))
    return failure();
  SmallVector<OpFoldResult, 2> sizes = {
      type.isDynamicDim(0) ? OpFoldResult(rows)
                           : b.getIndexAttr(type.getDimSize(0)),
      b.getIndexAttr(g)};
  SmallVector<OpFoldResult, 2> strides = {b.getIndexAttr(0), b.getIndexAttr(0)};
  return memref::ReinterpretCastOp::create(b, loc, type, *flat,
                                           b.getIndexAttr(0), sizes, strides)
      .getResult();
}

/// An f4E2M1FN buffer [M, K] (K even, checked by the ops' verifiers): the
/// bytes are packed two per byte (SPEC v2), so M * K / 2 bytes are
/// allocated and viewed as the logical element buffer (memref.view), not
/// the byte per element an f4 memref.alloc would take.
FailureOr<Value> allocatePackedFp4(OpBuilder &b, Location loc, MemRefType type,
                                   Value rows,
                                   const BufferizationOptions &options) {
  int64_t k = type.getDimSize(1);
  SmallVector<Value, 1> dynSizes, viewSizes;
  int64_t bytes = ShapedType::kDynamic;
  if (type.isDynamicDim(0)) {
    dynSizes.push_back(arith::MulIOp::create(
        b, loc, rows, arith::ConstantIndexOp::create(b, loc, k / 2)));
    viewSizes.push_back(rows);
  } else {
    bytes = type.getDimSize(0) * (k / 2);
  }
  auto byteType = MemRefType::get({bytes}, b.getI8Type());
  FailureOr<Value> raw = options.createAlloc(b, loc, byteType, dynSizes);
  if (failed(raw))
    return failure();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  return memref::ViewOp::create(b, loc, type, *raw, zero, viewSizes)
      .getResult();
}

/// Allocates a buffer for a result of tensor type `type`. Only dim 0 (M) may
/// be dynamic; it is then the extent of dim 0 of `rowsSource` (an operand
/// buffer with the same M). Scales in a column-major layout are allocated
/// transposed and viewed through their strides.
FailureOr<Value> allocateResult(OpBuilder &b, Location loc,
                                RankedTensorType type, Value rowsSource,
                                const BufferizationOptions &options) {
  MemRefType memrefType = getFp8qOrIdentityMemRefType(type);
  auto layout = dyn_cast_or_null<LayoutAttr>(type.getEncoding());
  Value rows;
  SmallVector<Value, 1> dynSizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d)) {
      if (d != 0 || !rowsSource)
        return failure();
      rows = getRows(b, loc, rowsSource);
      dynSizes.push_back(rows);
    }
  if (isa<Float4E2M1FNType>(type.getElementType()))
    return allocatePackedFp4(b, loc, memrefType, rows, options);
  if (layout && !layout.isStrided())
    return allocatePaddedScale(b, loc, memrefType, layout, rows, options);
  if (!layout || layout.isRowMajor())
    return options.createAlloc(b, loc, memrefType, dynSizes);

  // Column-major [M, G]: allocate [G, ld] row-major, ld = roundup(M, align).
  int64_t m = type.getDimSize(0), g = type.getDimSize(1);
  int64_t align = layout.getAlign();
  int64_t ld = memrefType.getStridesAndOffset().first[1];
  Value ldValue;
  if (ShapedType::isDynamic(ld) && align == 1) {
    ldValue = rows;
  } else if (ShapedType::isDynamic(ld)) {
    Value alignM1 = arith::ConstantIndexOp::create(b, loc, align - 1);
    Value alignC = arith::ConstantIndexOp::create(b, loc, align);
    Value sum = arith::AddIOp::create(b, loc, rows, alignM1);
    Value blocks = arith::DivUIOp::create(b, loc, sum, alignC);
    ldValue = arith::MulIOp::create(b, loc, blocks, alignC);
  }
  auto baseType = MemRefType::get({g, ld}, type.getElementType());
  SmallVector<Value, 1> baseDyn;
  if (ldValue)
    baseDyn.push_back(ldValue);
  FailureOr<Value> base = options.createAlloc(b, loc, baseType, baseDyn);
  if (failed(base))
    return failure();
  SmallVector<OpFoldResult, 2> sizes = {
      ShapedType::isDynamic(m) ? OpFoldResult(rows) : b.getIndexAttr(m),
      b.getIndexAttr(g)};
  SmallVector<OpFoldResult, 2> strides = {
      b.getIndexAttr(1), ldValue ? OpFoldResult(ldValue) : b.getIndexAttr(ld)};
  return memref::ReinterpretCastOp::create(b, loc, memrefType, *base,
                                           b.getIndexAttr(0), sizes, strides)
      .getResult();
}

/// Shared parts of the models: every tensor operand is read and never
/// written, and (unless the op overrides it) results are new allocations in
/// the layout of their type.
template <typename ConcreteModel, typename ConcreteOp>
struct Fp8qOpModel
    : public BufferizableOpInterface::ExternalModel<ConcreteModel, ConcreteOp> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return false;
  }
  AliasingValueList getAliasingValues(Operation *, OpOperand &,
                                      const AnalysisState &) const {
    return {};
  }
  bool bufferizesToAllocation(Operation *, Value) const { return true; }
  bool resultBufferizesToMemoryWrite(Operation *, OpResult,
                                     const AnalysisState &) const {
    return true;
  }
  FailureOr<BufferLikeType> getBufferType(Operation *, Value value,
                                          const BufferizationOptions &,
                                          const BufferizationState &,
                                          SmallVector<Value> &) const {
    return cast<BufferLikeType>(Type(
        getFp8qOrIdentityMemRefType(cast<RankedTensorType>(value.getType()))));
  }
};

/// Gets the buffers of all `values` (in order) or fails.
LogicalResult getBuffers(RewriterBase &rewriter, ValueRange values,
                         const BufferizationOptions &options,
                         const BufferizationState &state,
                         SmallVectorImpl<Value> &buffers) {
  for (Value value : values) {
    FailureOr<Value> buffer = getBuffer(rewriter, value, options, state);
    if (failed(buffer))
      return failure();
    buffers.push_back(*buffer);
  }
  return success();
}

/// Allocates one buffer per tensor result of `op`; a dynamic M is read from
/// `rowsSource`.
LogicalResult allocateResults(RewriterBase &rewriter, Operation *op,
                              Value rowsSource,
                              const BufferizationOptions &options,
                              SmallVectorImpl<Value> &buffers) {
  for (Value result : op->getResults()) {
    FailureOr<Value> buffer = allocateResult(
        rewriter, op->getLoc(), cast<RankedTensorType>(result.getType()),
        rowsSource, options);
    if (failed(buffer))
      return fp8q::emitErrorAt(op)
             << "cannot allocate a buffer for result of type "
             << result.getType();
    buffers.push_back(*buffer);
  }
  return success();
}

struct QuantizeOpModel : public Fp8qOpModel<QuantizeOpModel, QuantizeOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto quant = cast<QuantizeOp>(op);
    SmallVector<Value> ins, outs;
    SmallVector<Value> operands{quant.getX()};
    if (Value gate = quant.getSiluGate())
      operands.push_back(gate);
    if (Value global = quant.getGlobalScale())
      operands.push_back(global);
    if (failed(getBuffers(rewriter, operands, options, state, ins)))
      return failure();
    if (failed(allocateResults(rewriter, op, ins[0], options, outs)))
      return failure();
    Value gate = quant.getSiluGate() ? ins[1] : Value();
    Value global = quant.getGlobalScale() ? ins.back() : Value();
    BufferQuantizeOp::create(rewriter, op->getLoc(), ins[0], gate, global,
                             outs[0], outs[1], quant.getGroupSizeAttr(),
                             quant.getScaleRoundingAttr());
    replaceOpWithBufferizedValues(rewriter, op, outs);
    return success();
  }
};

struct RmsNormQuantizeOpModel
    : public Fp8qOpModel<RmsNormQuantizeOpModel, RmsNormQuantizeOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto norm = cast<RmsNormQuantizeOp>(op);
    SmallVector<Value> ins, outs;
    SmallVector<Value> operands{norm.getX(), norm.getGamma()};
    if (Value residual = norm.getResidual())
      operands.push_back(residual);
    if (failed(getBuffers(rewriter, operands, options, state, ins)))
      return failure();
    if (failed(allocateResults(rewriter, op, ins[0], options, outs)))
      return failure();
    Value unquantized = norm.getUnquantized() ? outs[2] : Value();
    Value residual = ins.size() > 2 ? ins[2] : Value();
    Value sum = residual ? outs.back() : Value();
    BufferRmsNormQuantizeOp::create(
        rewriter, op->getLoc(), ins[0], ins[1], outs[0], outs[1], unquantized,
        residual, sum, norm.getEpsilonAttr(), norm.getGroupSizeAttr());
    replaceOpWithBufferizedValues(rewriter, op, outs);
    return success();
  }
};

struct GemmOpModel : public Fp8qOpModel<GemmOpModel, GemmOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto gemm = cast<GemmOp>(op);
    SmallVector<Value> ins, outs;
    SmallVector<Value> operands{gemm.getQ(), gemm.getXScale(), gemm.getW(),
                                gemm.getWScale()};
    // NVFP4's product of the global scales is read like the other inputs.
    if (Value global = gemm.getGlobalScale())
      operands.push_back(global);
    if (failed(getBuffers(rewriter, operands, options, state, ins)))
      return failure();
    if (failed(allocateResults(rewriter, op, ins[0], options, outs)))
      return failure();
    auto wLayout = dyn_cast_or_null<WeightLayoutAttr>(
        cast<RankedTensorType>(gemm.getW().getType()).getEncoding());
    Value global = gemm.getGlobalScale() ? ins[4] : Value();
    BufferGemmOp::create(rewriter, op->getLoc(), ins[0], ins[1], ins[2], ins[3],
                         global, outs[0], gemm.getKernelAttr(), wLayout);
    replaceOpWithBufferizedValues(rewriter, op, outs);
    return success();
  }
};

struct PreshuffleOpModel : public Fp8qOpModel<PreshuffleOpModel, PreshuffleOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto shuffle = cast<PreshuffleOp>(op);
    SmallVector<Value> ins, outs;
    if (failed(getBuffers(rewriter, {shuffle.getW()}, options, state, ins)) ||
        failed(allocateResults(rewriter, op, Value(), options, outs)))
      return failure();
    BufferPreshuffleOp::create(rewriter, op->getLoc(), ins[0], outs[0]);
    replaceOpWithBufferizedValues(rewriter, op, outs);
    return success();
  }
};

/// A copying materialization allocates like the other ops; a no-copy one
/// (layouts that address the same bytes) aliases its operand.
struct MaterializeOpModel
    : public Fp8qOpModel<MaterializeOpModel, MaterializeOp> {
  AliasingValueList getAliasingValues(Operation *op, OpOperand &,
                                      const AnalysisState &) const {
    auto mat = cast<MaterializeOp>(op);
    if (!mat.isNoCopy())
      return {};
    return {{mat.getResult(), BufferRelation::Equivalent}};
  }
  bool bufferizesToAllocation(Operation *op, Value) const {
    return !cast<MaterializeOp>(op).isNoCopy();
  }
  bool bufferizesToMemoryRead(Operation *op, OpOperand &,
                              const AnalysisState &) const {
    return !cast<MaterializeOp>(op).isNoCopy();
  }
  bool resultBufferizesToMemoryWrite(Operation *op, OpResult,
                                     const AnalysisState &) const {
    return !cast<MaterializeOp>(op).isNoCopy();
  }

  FailureOr<BufferLikeType>
  getBufferType(Operation *op, Value value, const BufferizationOptions &options,
                const BufferizationState &state,
                SmallVector<Value> &invocationStack) const {
    auto mat = cast<MaterializeOp>(op);
    auto resultType = cast<RankedTensorType>(value.getType());
    if (!mat.isNoCopy())
      return cast<BufferLikeType>(
          Type(getFp8qOrIdentityMemRefType(resultType)));
    FailureOr<BaseMemRefType> sourceType =
        bufferization::detail::asMemRefType(bufferization::getBufferType(
            mat.getScale(), options, state, invocationStack));
    if (failed(sourceType))
      return failure();
    auto sourceMemRef = dyn_cast<MemRefType>(*sourceType);
    if (!sourceMemRef)
      return fp8q::emitErrorAt(op)
             << ("materialize operand must bufferize to a ranked "
                 "memref");
    return cast<BufferLikeType>(Type(
        getViewType(resultType, sourceMemRef.getStridesAndOffset().second)));
  }

  /// The type of a no-copy view: the result layout's strides starting at the
  /// source's offset (the view addresses the source's bytes).
  static MemRefType getViewType(RankedTensorType resultType, int64_t offset) {
    MemRefType mapped = getFp8qOrIdentityMemRefType(resultType);
    if (offset == 0)
      return mapped;
    SmallVector<int64_t> strides = mapped.getStridesAndOffset().first;
    return MemRefType::get(
        mapped.getShape(), mapped.getElementType(),
        StridedLayoutAttr::get(resultType.getContext(), offset, strides));
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto mat = cast<MaterializeOp>(op);
    Location loc = op->getLoc();
    FailureOr<Value> source =
        getBuffer(rewriter, mat.getScale(), options, state);
    if (failed(source))
      return failure();
    auto resultType = cast<RankedTensorType>(mat.getType());
    if (mat.isNoCopy()) {
      replaceOpWithBufferizedValues(
          rewriter, op, viewSameBytes(rewriter, loc, *source, resultType));
      return success();
    }
    FailureOr<Value> dest =
        allocateResult(rewriter, loc, resultType, *source, options);
    if (failed(dest))
      return fp8q::emitErrorAt(op)
             << "cannot allocate a buffer for result of type " << resultType;
    BufferMaterializeOp::create(rewriter, loc, *source, *dest);
    replaceOpWithBufferizedValues(rewriter, op, *dest);
    return success();
  }

  /// Views `source` in the layout of `resultType`. Both address the same
  /// bytes for every element (isNoCopy): the view keeps the source's base
  /// and offset and restates only strides that no in-bounds index
  /// multiplies, so nothing is copied.
  static Value viewSameBytes(OpBuilder &b, Location loc, Value source,
                             RankedTensorType resultType) {
    auto sourceType = cast<MemRefType>(source.getType());
    int64_t sourceOffset = sourceType.getStridesAndOffset().second;
    MemRefType viewType = getViewType(resultType, sourceOffset);
    if (sourceType == viewType)
      return source;
    SmallVector<int64_t> strides = viewType.getStridesAndOffset().first;
    SmallVector<OpFoldResult> sizes, strideOfrs;
    for (int64_t d = 0; d < viewType.getRank(); ++d) {
      sizes.push_back(
          viewType.isDynamicDim(d)
              ? OpFoldResult(
                    memref::DimOp::create(b, loc, source, d).getResult())
              : b.getIndexAttr(viewType.getDimSize(d)));
      // Equal layouts of a dynamic M are identical layouts, whose strides
      // the source already has.
      if (ShapedType::isDynamic(strides[d]))
        strideOfrs.push_back(
            memref::ExtractStridedMetadataOp::create(b, loc, source)
                .getStrides()[d]);
      else
        strideOfrs.push_back(b.getIndexAttr(strides[d]));
    }
    OpFoldResult offset =
        ShapedType::isDynamic(sourceOffset)
            ? OpFoldResult(
                  memref::ExtractStridedMetadataOp::create(b, loc, source)
                      .getOffset())
            : b.getIndexAttr(sourceOffset);
    return memref::ReinterpretCastOp::create(b, loc, viewType, source, offset,
                                             sizes, strideOfrs);
  }
};

/// shard.all_gather / shard.reduce_scatter along dim 0 (fp8q/Dialect/IR/
/// Collectives.h): the operand is read, the result is a new contiguous
/// buffer with `ranks` times (gather) or 1 / `ranks` of (reduce_scatter)
/// its rows, written by fp8q.buffer.all_gather / reduce_scatter. A scale
/// typed in a layout other than row_major is refused: the collective
/// concatenates or splits whole rows of bytes.
template <typename OpTy, typename BufferOpTy, bool Gather>
struct CollectiveOpModel
    : public Fp8qOpModel<CollectiveOpModel<OpTy, BufferOpTy, Gather>, OpTy> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto coll = cast<OpTy>(op);
    FailureOr<int64_t> ranks = getCollectiveRanks(op);
    if (failed(ranks))
      return failure();
    auto resultType = cast<RankedTensorType>(coll.getResult().getType());
    MemRefType memrefType = getFp8qOrIdentityMemRefType(resultType);
    for (Type type : {Type(coll.getInput().getType()), Type(resultType)})
      if (!getFp8qOrIdentityMemRefType(cast<RankedTensorType>(type))
               .getLayout()
               .isIdentity())
        return fp8q::emitErrorAt(op)
               << "a collective moves whole rows of a dense row-major "
                  "buffer; "
               << type
               << " is not one: materialize the scale row_major before the "
                  "collective and into this layout after it";
    SmallVector<Value> ins;
    if (failed(getBuffers(rewriter, {coll.getInput()}, options, state, ins)))
      return failure();
    Location loc = op->getLoc();
    SmallVector<Value, 1> dynSizes;
    if (resultType.isDynamicDim(0)) {
      Value rows = getRows(rewriter, loc, ins[0]);
      Value n = arith::ConstantIndexOp::create(rewriter, loc, *ranks);
      dynSizes.push_back(
          Gather ? arith::MulIOp::create(rewriter, loc, rows, n).getResult()
                 : arith::DivUIOp::create(rewriter, loc, rows, n).getResult());
    }
    FailureOr<Value> out =
        options.createAlloc(rewriter, loc, memrefType, dynSizes);
    if (failed(out))
      return fp8q::emitErrorAt(op)
             << "cannot allocate a buffer for result of type " << resultType;
    BufferOpTy::create(rewriter, loc, ins[0], *out,
                       rewriter.getI64IntegerAttr(*ranks));
    replaceOpWithBufferizedValues(rewriter, op, *out);
    return success();
  }
};
} // namespace

void registerBufferizableOpInterfaceExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, Fp8qDialect *) {
    QuantizeOp::attachInterface<QuantizeOpModel>(*ctx);
    RmsNormQuantizeOp::attachInterface<RmsNormQuantizeOpModel>(*ctx);
    GemmOp::attachInterface<GemmOpModel>(*ctx);
    MaterializeOp::attachInterface<MaterializeOpModel>(*ctx);
    PreshuffleOp::attachInterface<PreshuffleOpModel>(*ctx);
    ctx->loadDialect<arith::ArithDialect, memref::MemRefDialect,
                     bufferization::BufferizationDialect>();
  });
  registry.addExtension(+[](MLIRContext *ctx, shard::ShardDialect *) {
    shard::AllGatherOp::attachInterface<CollectiveOpModel<
        shard::AllGatherOp, BufferAllGatherOp, /*Gather=*/true>>(*ctx);
    shard::ReduceScatterOp::attachInterface<CollectiveOpModel<
        shard::ReduceScatterOp, BufferReduceScatterOp, /*Gather=*/false>>(*ctx);
    ctx->loadDialect<Fp8qDialect, arith::ArithDialect, memref::MemRefDialect,
                     bufferization::BufferizationDialect>();
  });
}

} // namespace fp8q
