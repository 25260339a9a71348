//===- LowerToRuntime.cpp - fp8q.buffer.* ops to runtime calls ------------===//
//
// A full dialect conversion (after upstream LowerDeallocations and
// SparseTensorConversion): one OpConversionPattern per fp8q.buffer.* op maps
// it to one call of the runtime C ABI (include/fp8q/Runtime/fp8q_runtime.h),
// and the conversion target admits nothing of the fp8q dialect: no fp8q op,
// no type or attribute holding an fp8q attribute. A module that still holds
// one after the patterns ran fails the conversion, so a lowered module
// parses in tools that do not load the dialect (mlir-opt, mlir-runner) by
// construction.
//
// The TypeConverter maps the fp8q encodings to what bufferization makes of
// them: a scale layout becomes the strided memref layout, a weight layout is
// dropped (the bytes already are the stored order). It converts function
// signatures that still name an encoding; the fp8q encoding of a constant
// (the initial value of a weight preshuffled at compile time) and the
// module's `fp8q.target` are dropped by a pattern as well.
//
// The shard collectives bufferization turned into fp8q.buffer.all_gather /
// reduce_scatter become the ABI's collective calls; their shard.grid
// symbols are erased once nothing names them.
//
// The ABI's scalar codes (kernel ids, fp8 flavours, weight layouts) are
// taken from the ABI header and the contract table, never restated here.
// fp8 operands are declared as byte buffers (i8): the flavour travels only
// in the `fp8_type` argument.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Conversion/DeviceExecution.h"
#include "fp8q/Conversion/Passes.h"
#include "fp8q/Dialect/IR/Collectives.h"
#include "fp8q/Dialect/IR/ScaleLayout.h"
#include "fp8q/Dialect/Transforms/BufferizableOpInterfaceImpl.h"
#include "fp8q/Runtime/fp8q_formats.h"
#include "fp8q/Runtime/fp8q_runtime.h"
#include "fp8q/Support/Diagnostics.h"

#include "RuntimeCalls.h"

#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"

namespace fp8q {
#define GEN_PASS_DEF_LOWERTORUNTIME
#include "fp8q/Conversion/Passes.h.inc"
} // namespace fp8q

using namespace mlir;
using namespace fp8q;
using namespace fp8q::lowering;

namespace {

//===----------------------------------------------------------------------===//
// fp8q attributes and types
//===----------------------------------------------------------------------===//

/// True if `attr` is an attribute of the fp8q dialect.
bool isFp8qAttr(Attribute attr, Dialect *dialect) {
  return dialect && &attr.getDialect() == dialect;
}

/// True if `type` holds an fp8q attribute (a tensor encoding).
bool typeHoldsFp8q(Type type, Dialect *dialect) {
  return type
      .walk([&](Attribute nested) {
        return isFp8qAttr(nested, dialect) ? WalkResult::interrupt()
                                           : WalkResult::advance();
      })
      .wasInterrupted();
}

/// True if `attr` is or holds an fp8q attribute, including through the
/// type of a typed attribute (Attribute::walk does not visit the type of a
/// DenseElementsAttr).
bool attrHoldsFp8q(Attribute attr, Dialect *dialect) {
  return attr
      .walk([&](Attribute nested) {
        if (isFp8qAttr(nested, dialect))
          return WalkResult::interrupt();
        if (auto typed = dyn_cast<TypedAttr>(nested))
          if (typeHoldsFp8q(typed.getType(), dialect))
            return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// `type` without an fp8q encoding, or nullopt if it has none.
std::optional<RankedTensorType> stripFp8qEncoding(Type type, Dialect *dialect) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked || !ranked.getEncoding() ||
      !isFp8qAttr(ranked.getEncoding(), dialect))
    return std::nullopt;
  return RankedTensorType::get(ranked.getShape(), ranked.getElementType());
}

/// Layouts -> strided memrefs, encodings dropped: a tensor with an fp8q
/// encoding becomes the memref bufferization gives it
/// (fp8q::getFp8qMemRefType); any other type holding an fp8q attribute has
/// no conversion (it is illegal); every other type is legal as it is.
class RuntimeTypeConverter : public TypeConverter {
public:
  explicit RuntimeTypeConverter(Dialect *dialect) {
    addConversion([dialect](Type type) -> std::optional<Type> {
      if (typeHoldsFp8q(type, dialect))
        return Type();
      return type;
    });
    addConversion([dialect](RankedTensorType type) -> std::optional<Type> {
      if (!type.getEncoding() || !isFp8qAttr(type.getEncoding(), dialect))
        return std::nullopt;
      if (MemRefType mapped = getFp8qMemRefType(type))
        return convertPadded(mapped);
      return Type();
    });
    addConversion([](MemRefType type) -> std::optional<Type> {
      if (!isa<LayoutAttr>(type.getLayout()))
        return std::nullopt;
      return convertPadded(type);
    });
  }

  /// A padded scale memref (`#fp8q.layout` as its layout) becomes the
  /// strided memref it is for MLIR: strides (0, 0), offset 0, over its
  /// allocation; the descriptor keeps the logical [M, G] sizes the runtime
  /// checks (docs/RuntimeABI.md, "Scale descriptor").
  static Type convertPadded(MemRefType type) {
    if (!isa<LayoutAttr>(type.getLayout()))
      return type;
    return MemRefType::get(type.getShape(), type.getElementType(),
                           StridedLayoutAttr::get(type.getContext(), 0, {0, 0}),
                           type.getMemorySpace());
  }
};

//===----------------------------------------------------------------------===//
// Runtime calls (the shared pieces are RuntimeCalls.h)
//===----------------------------------------------------------------------===//

struct QuantizeLowering : RuntimeCallPattern<BufferQuantizeOp> {
  using RuntimeCallPattern::RuntimeCallPattern;
  LogicalResult
  matchAndRewrite(BufferQuantizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value groupSize = i64(rewriter, loc, op.getGroupSize());
    Value fp8 = fp8Code(rewriter, loc, adaptor.getQ());
    StringRef suffix = elementSuffix(adaptor.getX());
    if (op.isV2())
      return lowerV2(op, adaptor, rewriter, suffix);
    // The fused SwiGLU producer: silu(gate) * x, quantized.
    if (Value gate = adaptor.getSiluGate())
      return calls.replaceWithCall(
          rewriter, op, ("fp8q_rt_silu_mul_quantize_" + suffix).str(),
          {gate, adaptor.getX(), adaptor.getQ(), adaptor.getScale(), groupSize,
           fp8});
    return calls.replaceWithCall(
        rewriter, op, ("fp8q_rt_quantize_" + suffix).str(),
        {adaptor.getX(), adaptor.getQ(), adaptor.getScale(), groupSize, fp8});
  }

  /// SPEC v2: fp8q_rt_quantize_v2_* with the format's codes; a format
  /// without a global scale passes a scratch rank-0 buffer the runtime
  /// does not read.
  LogicalResult lowerV2(BufferQuantizeOp op, OpAdaptor adaptor,
                        ConversionPatternRewriter &rewriter,
                        StringRef suffix) const {
    Location loc = op.getLoc();
    auto qType = cast<MemRefType>(op.getQ().getType());
    auto scaleType = cast<MemRefType>(op.getScale().getType());
    std::optional<BlockFormat> format =
        getBlockFormat(qType.getElementType(), scaleType.getElementType(),
                       op.getGroupSize(), nullptr);
    if (!format) {
      calls.report(op) << "has no SPEC v2 format";
      return failure();
    }
    ScaleRounding rounding =
        op.getScaleRounding().value_or(getDefaultScaleRounding(*format));
    Value global =
        getGlobalScaleOrPlaceholder(rewriter, op, adaptor.getGlobalScale());
    ScaleLayoutCode layout = getScaleLayoutCode(scaleType);
    return calls.replaceWithCall(
        rewriter, op, ("fp8q_rt_quantize_v2_" + suffix).str(),
        {adaptor.getX(), adaptor.getQ(), adaptor.getScale(), global,
         i64(rewriter, loc, op.getGroupSize()),
         i32(rewriter, loc, getQTypeCode(qType.getElementType())),
         i32(rewriter, loc, getScaleTypeCode(scaleType.getElementType())),
         i32(rewriter, loc, static_cast<int32_t>(rounding)),
         i32(rewriter, loc, layout.code), i64(rewriter, loc, layout.align)});
  }
};

struct RmsNormQuantizeLowering : RuntimeCallPattern<BufferRmsNormQuantizeOp> {
  using RuntimeCallPattern::RuntimeCallPattern;
  LogicalResult
  matchAndRewrite(BufferRmsNormQuantizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    StringRef suffix = elementSuffix(adaptor.getX());
    Value y = adaptor.getUnquantized();
    // The ABI leaves y untouched when keep_unquantized is 0; x stands in.
    Value keep = i32(rewriter, loc, y ? 1 : 0);
    if (!y)
      y = adaptor.getX();
    Value epsilon =
        arith::ConstantOp::create(rewriter, loc, op.getEpsilonAttr());
    Value groupSize = i64(rewriter, loc, op.getGroupSize());
    Value fp8 = fp8Code(rewriter, loc, adaptor.getQ());
    // The fused residual add: sum = x + residual is written and normalized.
    if (Value residual = adaptor.getResidual())
      return calls.replaceWithCall(
          rewriter, op, ("fp8q_rt_add_rms_norm_quantize_" + suffix).str(),
          {adaptor.getX(), residual, adaptor.getGamma(), adaptor.getQ(),
           adaptor.getScale(), y, adaptor.getResidualSum(), epsilon, groupSize,
           fp8, keep});
    return calls.replaceWithCall(
        rewriter, op, ("fp8q_rt_rms_norm_quantize_" + suffix).str(),
        {adaptor.getX(), adaptor.getGamma(), adaptor.getQ(), adaptor.getScale(),
         y, epsilon, groupSize, fp8, keep});
  }
};

struct GemmLowering : RuntimeCallPattern<BufferGemmOp> {
  using RuntimeCallPattern::RuntimeCallPattern;
  LogicalResult
  matchAndRewrite(BufferGemmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<Kernel> kernel = op.getKernel();
    if (!kernel) {
      calls.report(op)
          << "has no kernel; run --fp8q-select-kernels or name one with "
             "kernel = #fp8q.kernel<...> before lowering to the runtime";
      return failure();
    }
    if (op.isV2())
      return lowerGemmV2(op, adaptor, rewriter, calls, *kernel);
    Location loc = op.getLoc();
    int32_t weightLayout = op.getWLayout() ? FP8Q_WEIGHT_LAYOUT_PRESHUFFLE_16X16
                                           : FP8Q_WEIGHT_LAYOUT_PLAIN;
    Value kernelId = i32(rewriter, loc, static_cast<int32_t>(*kernel));
    Value fp8 = fp8Code(rewriter, loc, adaptor.getQ());
    Value layout = i32(rewriter, loc, weightLayout);
    return calls.replaceWithCall(rewriter, op, "fp8q_rt_gemm",
                                 {adaptor.getQ(), adaptor.getXScale(),
                                  adaptor.getW(), adaptor.getWScale(),
                                  adaptor.getOut(), kernelId, fp8, layout});
  }
};

struct MaterializeLowering : RuntimeCallPattern<BufferMaterializeOp> {
  using RuntimeCallPattern::RuntimeCallPattern;
  LogicalResult
  matchAndRewrite(BufferMaterializeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.isV2()) {
      Location loc = op.getLoc();
      auto srcType = cast<MemRefType>(op.getSource().getType());
      ScaleLayoutCode src = getScaleLayoutCode(srcType);
      ScaleLayoutCode dst =
          getScaleLayoutCode(cast<MemRefType>(op.getDest().getType()));
      return calls.replaceWithCall(
          rewriter, op, "fp8q_rt_materialize_v2",
          {adaptor.getSource(), adaptor.getDest(),
           i32(rewriter, loc, getScaleTypeCode(srcType.getElementType())),
           i32(rewriter, loc, src.code), i64(rewriter, loc, src.align),
           i32(rewriter, loc, dst.code), i64(rewriter, loc, dst.align)});
    }
    return calls.replaceWithCall(rewriter, op, "fp8q_rt_materialize",
                                 {adaptor.getSource(), adaptor.getDest()});
  }
};

struct PreshuffleLowering : RuntimeCallPattern<BufferPreshuffleOp> {
  using RuntimeCallPattern::RuntimeCallPattern;
  LogicalResult
  matchAndRewrite(BufferPreshuffleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto wType = cast<MemRefType>(op.getW().getType());
    if (isa<Float4E2M1FNType>(wType.getElementType())) {
      // f4E2M1FN is permuted byte-wise; its descriptor counts codes.
      Location loc = op.getLoc();
      return calls.replaceWithCall(
          rewriter, op, "fp8q_rt_preshuffle_v2",
          {adaptor.getW(), adaptor.getDest(),
           i32(rewriter, loc, getQTypeCode(wType.getElementType())),
           i64(rewriter, loc, wType.getDimSize(1))});
    }
    return calls.replaceWithCall(rewriter, op, "fp8q_rt_preshuffle",
                                 {adaptor.getW(), adaptor.getDest()});
  }
};

/// The collectives (docs/RuntimeABI.md, "Collectives"): an all_gather
/// moves rows of any element type, so it passes the element's bytes; the
/// reduce_scatter sums bf16. Both pass the communicator's rank count, which
/// the runtime checks against the communicator it holds.
struct AllGatherLowering : RuntimeCallPattern<BufferAllGatherOp> {
  using RuntimeCallPattern::RuntimeCallPattern;
  LogicalResult
  matchAndRewrite(BufferAllGatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elt = cast<MemRefType>(op.getInput().getType()).getElementType();
    int64_t bytes = elt.getIntOrFloatBitWidth() / 8;
    // One declaration for every element type: the operands are passed as
    // i8 descriptors (sizes and strides still count elements; elem_bytes
    // says how wide). The cast disappears once both sides are LLVM structs.
    auto asElements = [&](Value buffer) -> Value {
      auto type = cast<MemRefType>(buffer.getType());
      if (type.getElementType().isInteger(8))
        return buffer;
      auto i8 = MemRefType::get(type.getShape(), rewriter.getI8Type(),
                                type.getLayout(), type.getMemorySpace());
      return UnrealizedConversionCastOp::create(rewriter, loc, i8, buffer)
          .getResult(0);
    };
    return calls.replaceWithCall(
        rewriter, op, "fp8q_rt_all_gather",
        {asElements(adaptor.getInput()), asElements(adaptor.getDest()),
         i64(rewriter, loc, bytes), i64(rewriter, loc, op.getRanks())});
  }
};

struct ReduceScatterLowering : RuntimeCallPattern<BufferReduceScatterOp> {
  using RuntimeCallPattern::RuntimeCallPattern;
  LogicalResult
  matchAndRewrite(BufferReduceScatterOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return calls.replaceWithCall(rewriter, op, "fp8q_rt_reduce_scatter_bf16",
                                 {adaptor.getInput(), adaptor.getDest(),
                                  i64(rewriter, op.getLoc(), op.getRanks())});
  }
};

//===----------------------------------------------------------------------===//
// fp8q attributes outside fp8q ops
//===----------------------------------------------------------------------===//

/// Drops the discardable fp8q attributes of an op (the module's
/// `fp8q.target`) and the fp8q encoding of tensor types nested in its
/// constants: after bufferization a constant weight preshuffled at compile
/// time is a memref.global whose initial value is typed
/// tensor<NxKxf8, #fp8q.weight_layout<...>>; the bytes already are the
/// stored layout. Anything else of fp8q the op holds stays and keeps it
/// illegal.
struct StripFp8qAttributes : ConversionPattern {
  StripFp8qAttributes(const TypeConverter &converter, MLIRContext *ctx,
                      Dialect *dialect)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/2, ctx),
        dialect(dialect) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value>,
                  ConversionPatternRewriter &rewriter) const override {
    if (op->getDialect() == dialect)
      return failure();
    SmallVector<StringAttr> names;
    for (NamedAttribute attr : op->getDiscardableAttrs())
      if (attr.getName().getValue().starts_with("fp8q."))
        names.push_back(attr.getName());
    AttrTypeReplacer replacer;
    Dialect *fp8q = dialect;
    replacer.addReplacement(
        [fp8q](DenseElementsAttr attr) -> std::optional<Attribute> {
          if (auto plain = stripFp8qEncoding(attr.getType(), fp8q))
            return attr.reshape(*plain);
          return std::nullopt;
        });
    replacer.addReplacement(
        [fp8q](DenseResourceElementsAttr attr) -> std::optional<Attribute> {
          if (auto plain = stripFp8qEncoding(attr.getType(), fp8q))
            return DenseResourceElementsAttr::get(*plain, attr.getRawHandle());
          return std::nullopt;
        });
    DictionaryAttr attrs = op->getAttrDictionary();
    bool constants = replacer.replace(attrs) != attrs;
    if (names.empty() && !constants)
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      for (StringAttr name : names)
        op->removeDiscardableAttr(name);
      if (constants)
        replacer.replaceElementsIn(op, /*replaceAttrs=*/true,
                                   /*replaceLocs=*/false,
                                   /*replaceTypes=*/false);
    });
    return success();
  }

  Dialect *dialect;
};

/// Ops that only carry a padded scale buffer (views, sizes, deallocation):
/// the same op with the converted (strides (0, 0)) types. Anything else on
/// a padded buffer stays illegal and is reported: it would address the
/// buffer as strided.
struct RetypePaddedBuffers : ConversionPattern {
  RetypePaddedBuffers(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<memref::ReinterpretCastOp, memref::DimOp,
             memref::ExtractStridedMetadataOp,
             memref::ExtractAlignedPointerAsIndexOp, memref::DeallocOp,
             memref::CastOp>(op) ||
        op->getNumRegions() != 0)
      return failure();
    SmallVector<Type> results;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(), results)))
      return failure();
    OperationState state(op->getLoc(), op->getName(), operands, results,
                         op->getAttrs());
    Operation *retyped = rewriter.create(state);
    rewriter.replaceOp(op, retyped->getResults());
    return success();
  }
};

/// Reports an op that is still illegal once every other pattern failed:
/// an fp8q op without a runtime call, or an op holding an fp8q type or
/// attribute. The conversion then fails (the op has no legal form).
struct ReportLeftover : ConversionPattern {
  ReportLeftover(const TypeConverter &converter, MLIRContext *ctx,
                 Dialect *dialect, RuntimeCalls &calls)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/0, ctx),
        dialect(dialect), calls(calls) {}

  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value>,
                                ConversionPatternRewriter &) const override {
    if (calls.wasReported(op))
      return failure();
    if (op->getDialect() == dialect)
      calls.report(op) << "has no runtime call; only fp8q.buffer.* ops are "
                          "lowered to the runtime: run --fp8q-bufferize first";
    else
      calls.report(op) << "holds an fp8q type or attribute that has no "
                          "lowered form; run --fp8q-bufferize first";
    return failure();
  }

  Dialect *dialect;
  RuntimeCalls &calls;
};

struct LowerToRuntimePass
    : public fp8q::impl::LowerToRuntimeBase<LowerToRuntimePass> {
  using LowerToRuntimeBase::LowerToRuntimeBase;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ModuleOp module = getOperation();
    Dialect *dialect = ctx->getLoadedDialect<Fp8qDialect>();
    if (!dialect)
      return; // Nothing of fp8q can be in the module.
    RuntimeTypeConverter converter(dialect);
    RuntimeCalls calls(module, device);

    // Nothing of fp8q is legal: no op of the dialect, no op whose operand,
    // result or block argument types or whose attributes hold an fp8q
    // attribute.
    ConversionTarget target(*ctx);
    target.addIllegalDialect<Fp8qDialect>();
    target.markUnknownOpDynamicallyLegal([&](Operation *op) {
      if (!converter.isLegal(op))
        return false;
      for (Region &region : op->getRegions())
        for (Block &block : region)
          if (!converter.isLegal(block.getArgumentTypes()))
            return false;
      return !attrHoldsFp8q(op->getAttrDictionary(), dialect);
    });

    RewritePatternSet patterns(ctx);
    patterns.add<QuantizeLowering, RmsNormQuantizeLowering, GemmLowering,
                 MaterializeLowering, PreshuffleLowering, AllGatherLowering,
                 ReduceScatterLowering>(converter, ctx, calls);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateCallOpTypeConversionPattern(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    scf::populateSCFStructuralTypeConversions(converter, patterns);
    patterns.add<RetypePaddedBuffers>(converter, ctx);
    patterns.add<StripFp8qAttributes>(converter, ctx, dialect);
    patterns.add<ReportLeftover>(converter, ctx, dialect, calls);

    // An op that fails to legalize was reported above at its location; the
    // driver's own "failed to legalize" error would repeat it and print
    // the op.
    ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
      return success(diag.getSeverity() == DiagnosticSeverity::Error &&
                     calls.reportedAny() &&
                     StringRef(diag.str()).starts_with("failed to legalize"));
    });
    if (failed(applyFullConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    // The grids the collectives named are gone with them (their rank count
    // is in each call); a collective left unbufferized is reported.
    WalkResult leftover = module.walk([](Operation *op) {
      if (!isShardCollective(op))
        return WalkResult::advance();
      emitErrorAt(op) << "shard collective left on tensors: bufferize the "
                         "module (--fp8q-bufferize) before lowering";
      return WalkResult::interrupt();
    });
    if (leftover.wasInterrupted())
      return signalPassFailure();
    for (auto grid : llvm::make_early_inc_range(module.getOps<shard::GridOp>()))
      grid.erase();
    numCalls = calls.getNumCalls();
  }
};

} // namespace
