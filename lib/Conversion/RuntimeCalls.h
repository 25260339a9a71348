//===- RuntimeCalls.h - Shared pieces of the runtime lowering ---*- C++ -*-===//
//
// What the patterns of --fp8q-lower-to-runtime share (LowerToRuntime.cpp,
// LowerGemmV2.cpp): the ABI type of a memref operand, the ABI codes of
// element types and scale layouts (from fp8q_runtime.h / fp8q_formats.h,
// never restated), the module's entry-point declarations and the base of
// the patterns that replace one fp8q.buffer.* op with one call.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_LIB_CONVERSION_RUNTIMECALLS_H
#define FP8Q_LIB_CONVERSION_RUNTIMECALLS_H

#include "fp8q/Conversion/DeviceExecution.h"
#include "fp8q/Dialect/IR/Fp8qDialect.h"
#include "fp8q/Runtime/fp8q_formats.h"
#include "fp8q/Runtime/fp8q_runtime.h"
#include "fp8q/Support/Diagnostics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <cstring>

namespace fp8q::lowering {

using namespace mlir;

/// The ABI type of a memref operand: fully dynamic strided (any strided
/// memref casts to it and its descriptor carries the real offset, sizes and
/// strides), fp8 element types as bytes (i8: the flavour is `fp8_type`).
inline MemRefType getAbiType(MemRefType type) {
  SmallVector<int64_t> shape(type.getRank(), ShapedType::kDynamic);
  SmallVector<int64_t> strides(type.getRank(), ShapedType::kDynamic);
  auto layout =
      StridedLayoutAttr::get(type.getContext(), ShapedType::kDynamic, strides);
  Type element = type.getElementType();
  // fp8, the 1-byte scales and f4E2M1FN as bytes (i8), so that one
  // declaration serves every format: an f4E2M1FN descriptor still counts
  // codes (the bytes are packed two per byte), which the runtime accepts.
  if (isa<FloatType>(element) && element.getIntOrFloatBitWidth() <= 8)
    element = IntegerType::get(type.getContext(), 8);
  return MemRefType::get(shape, element, layout, type.getMemorySpace());
}

/// ABI name suffix of an activation element type.
inline StringRef getActivationSuffix(Type elementType) {
  if (elementType.isBF16())
    return "bf16";
  if (elementType.isF16())
    return "f16";
  return "f32";
}

/// ABI code of an fp8 element type: the `fp8_type` argument
/// (fp8q_fp8_type), the one place an fp8 flavour crosses the ABI.
inline int32_t getFp8Code(Type elementType) {
  return isa<Float8E4M3FNUZType>(elementType) ? FP8Q_F8E4M3FNUZ : FP8Q_F8E4M3FN;
}

/// fp8q_q_type code of a quantized element type.
inline int32_t getQTypeCode(Type element) {
  if (isa<Float8E4M3FNUZType>(element))
    return FP8Q_Q_F8E4M3FNUZ;
  if (isa<Float8E5M2Type>(element))
    return FP8Q_Q_F8E5M2;
  if (isa<Float4E2M1FNType>(element))
    return FP8Q_Q_F4E2M1FN;
  return FP8Q_Q_F8E4M3FN;
}

/// fp8q_scale_type code of a scale element type.
inline int32_t getScaleTypeCode(Type element) {
  if (isa<Float8E8M0FNUType>(element))
    return FP8Q_SCALE_F8E8M0FNU;
  if (isa<Float8E4M3FNType>(element))
    return FP8Q_SCALE_F8E4M3FN;
  return FP8Q_SCALE_F32;
}

/// The fp8q_scale_layout code and align of a scale buffer (before type
/// conversion): a padded layout is its #fp8q.layout; a strided buffer is
/// row_major or col_major by its strides, with align 1 (the runtime reads
/// through the strides and checks ld >= M; a dynamic ld does not state the
/// align it was rounded to).
struct ScaleLayoutCode {
  int32_t code;
  int64_t align;
};
inline ScaleLayoutCode getScaleLayoutCode(MemRefType type) {
  if (auto layout = dyn_cast<LayoutAttr>(type.getLayout()))
    return {layout.getLayoutCode(), layout.getAlign()};
  auto [strides, offset] = type.getStridesAndOffset();
  (void)offset;
  if (type.getDimSize(0) != 1 && strides[0] == 1 && strides[1] != 1)
    return {FP8Q_LAYOUT_COL_MAJOR, 1};
  return {FP8Q_LAYOUT_ROW_MAJOR, 1};
}

static_assert(static_cast<int32_t>(Kernel::CkBpreshuffle) ==
                      FP8Q_KERNEL_CK_BPRESHUFFLE &&
                  static_cast<int32_t>(Kernel::Reference) ==
                      FP8Q_KERNEL_REFERENCE,
              "fp8q::Kernel and fp8q_kernel must agree");

/// State the patterns share: the module's symbols (entry points are
/// declared on first use) and the ops an error was reported for.
/// `global`, or (it is read only for NVFP4) a rank-0 f32 stack buffer at
/// the start of `op`'s function standing in for it.
inline Value getGlobalScaleOrPlaceholder(ConversionPatternRewriter &rewriter,
                                         Operation *op, Value global) {
  if (global)
    return global;
  OpBuilder::InsertionGuard guard(rewriter);
  auto func = op->getParentOfType<func::FuncOp>();
  rewriter.setInsertionPointToStart(&func.getBody().front());
  return memref::AllocaOp::create(rewriter, op->getLoc(),
                                  MemRefType::get({}, rewriter.getF32Type()));
}

class RuntimeCalls {
public:
  RuntimeCalls(ModuleOp module, bool device)
      : module(module), symbols(module), device(device) {}

  /// Reports an error at `op` (without printing it) once.
  InFlightDiagnostic report(Operation *op) {
    reported.insert(op);
    return fp8q::emitOpErrorAt(op);
  }
  bool wasReported(Operation *op) const { return reported.contains(op); }
  bool reportedAny() const { return !reported.empty(); }
  /// True in device execution (entry points fp8q_rt_device_*, on a stream).
  bool isDevice() const { return device; }
  unsigned getNumCalls() const { return numCalls; }

  /// Replaces `op` with `call @name(args)`: memref arguments are cast to
  /// their ABI type. Fails with a diagnostic when `name` is already defined
  /// with an incompatible signature.
  LogicalResult replaceWithCall(ConversionPatternRewriter &rewriter,
                                Operation *op, StringRef hostName,
                                ArrayRef<Value> hostArgs) {
    // Device execution: the same entry point on device buffers, enqueued on
    // the step's stream (the last argument).
    std::string name = hostName.str();
    SmallVector<Value> args(hostArgs);
    if (device) {
      Value stream = getStepStream(op);
      if (!stream) {
        report(op) << "has no stream to run on in device execution; run "
                      "--fp8q-device-buffers first";
        return failure();
      }
      name =
          ("fp8q_rt_device_" + hostName.drop_front(strlen("fp8q_rt_"))).str();
      args.push_back(stream);
    }
    SmallVector<Type> argTypes;
    for (Value arg : args) {
      if (auto memref = dyn_cast<MemRefType>(arg.getType()))
        argTypes.push_back(getAbiType(memref));
      else
        argTypes.push_back(arg.getType());
    }
    Operation *existing = symbols.lookup(name);
    auto decl = dyn_cast_if_present<func::FuncOp>(existing);
    if (existing &&
        !(decl && compatible(decl.getFunctionType().getInputs(), argTypes))) {
      InFlightDiagnostic diag = report(op)
                                << "cannot call runtime entry point @" << name
                                << ": the module already defines that symbol "
                                   "with an incompatible signature";
      diag.attachNote(existing->getLoc()) << "defined here";
      return failure();
    }

    Location loc = op->getLoc();
    SmallVector<Value> operands;
    DenseMap<Value, Value> casts;
    for (Value arg : args) {
      auto memref = dyn_cast<MemRefType>(arg.getType());
      if (!memref) {
        operands.push_back(arg);
        continue;
      }
      Value &cast = casts[arg];
      if (!cast) {
        MemRefType abi = getAbiType(memref);
        auto dynamic = MemRefType::get(abi.getShape(), memref.getElementType(),
                                       abi.getLayout(), abi.getMemorySpace());
        cast = dynamic == memref
                   ? arg
                   : memref::CastOp::create(rewriter, loc, dynamic, arg)
                         .getResult();
        // fp8 as bytes: the descriptors are the same, so the cast
        // disappears when both sides become LLVM structs.
        if (abi != dynamic)
          cast = UnrealizedConversionCastOp::create(rewriter, loc, abi, cast)
                     .getResult(0);
      }
      operands.push_back(cast);
    }
    if (!decl)
      decl = declare(rewriter, name, argTypes);
    // A declaration the module already had may type fp8 operands with an
    // fp8 element type.
    ArrayRef<Type> params = decl.getFunctionType().getInputs();
    for (auto [operand, param] : llvm::zip(operands, params))
      if (operand.getType() != param)
        operand =
            UnrealizedConversionCastOp::create(rewriter, loc, param, operand)
                .getResult(0);
    func::CallOp::create(rewriter, loc, decl, operands);
    rewriter.eraseOp(op);
    ++numCalls;
    return success();
  }

private:
  func::FuncOp declare(ConversionPatternRewriter &rewriter, StringRef name,
                       ArrayRef<Type> argTypes) {
    MLIRContext *ctx = module.getContext();
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(module.getBody());
    auto decl = func::FuncOp::create(
        rewriter, module.getLoc(), name,
        FunctionType::get(ctx, argTypes, {IntegerType::get(ctx, 32)}));
    decl.setPrivate();
    decl->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                  UnitAttr::get(ctx));
    symbols.insert(decl);
    return decl;
  }

  /// Declared and wanted argument types agree up to the element type of
  /// 8-bit memrefs (the ABI reads fp8 as bytes).
  static bool compatible(ArrayRef<Type> declared, ArrayRef<Type> wanted) {
    if (declared.size() != wanted.size())
      return false;
    for (auto [d, w] : llvm::zip(declared, wanted)) {
      if (d == w)
        continue;
      auto dm = dyn_cast<MemRefType>(d), wm = dyn_cast<MemRefType>(w);
      if (!dm || !wm || dm.getRank() != wm.getRank() ||
          dm.getLayout() != wm.getLayout() ||
          dm.getElementTypeBitWidth() != wm.getElementTypeBitWidth() ||
          dm.getElementTypeBitWidth() > 8)
        return false;
    }
    return true;
  }

  ModuleOp module;
  SymbolTable symbols;
  bool device;
  DenseSet<Operation *> reported;
  unsigned numCalls = 0;
};

/// Base of the patterns that lower one fp8q.buffer.* op to one call.
template <typename OpTy>
class RuntimeCallPattern : public OpConversionPattern<OpTy> {
public:
  RuntimeCallPattern(const TypeConverter &converter, MLIRContext *ctx,
                     RuntimeCalls &calls)
      : OpConversionPattern<OpTy>(converter, ctx), calls(calls) {}

protected:
  static Value i32(ConversionPatternRewriter &rewriter, Location loc,
                   int64_t value) {
    return arith::ConstantIntOp::create(rewriter, loc, value, 32);
  }
  static Value i64(ConversionPatternRewriter &rewriter, Location loc,
                   int64_t value) {
    return arith::ConstantIntOp::create(rewriter, loc, value, 64);
  }
  static Value fp8Code(ConversionPatternRewriter &rewriter, Location loc,
                       Value fp8Buffer) {
    return i32(
        rewriter, loc,
        getFp8Code(cast<MemRefType>(fp8Buffer.getType()).getElementType()));
  }
  static StringRef elementSuffix(Value buffer) {
    return getActivationSuffix(
        cast<MemRefType>(buffer.getType()).getElementType());
  }

  RuntimeCalls &calls;
};

/// Lowers a v2 fp8q.buffer.gemm (SPEC v2 formats) to fp8q_rt_gemm_v2
/// (LowerGemmV2.cpp): the codes of the format and of both scale layouts,
/// NVFP4's product of the global scales, the weight layout.
LogicalResult lowerGemmV2(BufferGemmOp op, BufferGemmOp::Adaptor adaptor,
                          ConversionPatternRewriter &rewriter,
                          RuntimeCalls &calls, Kernel kernel);

} // namespace fp8q::lowering

#endif // FP8Q_LIB_CONVERSION_RUNTIMECALLS_H
