//===- LowerToRuntime.cpp - fp8q.buffer.* ops to runtime calls ------------===//
//
// Maps each memref-level fp8q op to one call of the runtime C ABI
// (include/fp8q/Runtime/fp8q_runtime.h). The ABI's scalar codes (kernel ids,
// fp8 flavours, weight layouts) are taken from that header and from the
// contract table, never restated here.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Conversion/Passes.h"
#include "fp8q/Runtime/fp8q_runtime.h"
#include "fp8q/Support/Diagnostics.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace fp8q {
#define GEN_PASS_DEF_LOWERTORUNTIME
#include "fp8q/Conversion/Passes.h.inc"
} // namespace fp8q

using namespace mlir;
using namespace fp8q;

namespace {

/// The fully dynamic strided memref type of `type`'s rank and element type:
/// any strided memref casts to it, and its descriptor carries the real
/// offset, sizes and strides.
MemRefType getFullyDynamicType(MemRefType type) {
  SmallVector<int64_t> shape(type.getRank(), ShapedType::kDynamic);
  SmallVector<int64_t> strides(type.getRank(), ShapedType::kDynamic);
  auto layout =
      StridedLayoutAttr::get(type.getContext(), ShapedType::kDynamic, strides);
  return MemRefType::get(shape, type.getElementType(), layout,
                         type.getMemorySpace());
}

/// ABI name suffix of an activation element type.
StringRef getActivationSuffix(Type elementType) {
  if (elementType.isBF16())
    return "bf16";
  if (elementType.isF16())
    return "f16";
  return "f32";
}

/// ABI code of an fp8 element type (fp8q_fp8_type).
int32_t getFp8Code(Type elementType) {
  return isa<Float8E4M3FNUZType>(elementType) ? FP8Q_F8E4M3FNUZ : FP8Q_F8E4M3FN;
}

static_assert(static_cast<int32_t>(Kernel::CkBpreshuffle) ==
                      FP8Q_KERNEL_CK_BPRESHUFFLE &&
                  static_cast<int32_t>(Kernel::Reference) ==
                      FP8Q_KERNEL_REFERENCE,
              "fp8q::Kernel and fp8q_kernel must agree");

/// Emits runtime calls for one module, declaring entry points on first use.
class RuntimeCallBuilder {
public:
  RuntimeCallBuilder(ModuleOp module) : module(module), symbols(module) {}

  /// Emits `call @name(args)` before `op`: memref arguments are cast to the
  /// fully dynamic strided form. Fails with a diagnostic when `name` is
  /// already defined with an incompatible signature.
  LogicalResult emitCall(Operation *op, StringRef name, ArrayRef<Value> args) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    SmallVector<Value> operands;
    DenseMap<Value, Value> casts;
    for (Value arg : args) {
      if (auto memref = dyn_cast<MemRefType>(arg.getType())) {
        MemRefType dynamic = getFullyDynamicType(memref);
        Value &cast = casts[arg];
        if (!cast)
          cast = dynamic == memref
                     ? arg
                     : memref::CastOp::create(b, loc, dynamic, arg).getResult();
        operands.push_back(cast);
      } else {
        operands.push_back(arg);
      }
    }
    SmallVector<Type> argTypes(llvm::map_range(
        operands, [](Value operand) { return operand.getType(); }));
    FailureOr<func::FuncOp> callee = getOrDeclare(op, name, argTypes);
    if (failed(callee))
      return failure();
    // A module may use both fp8 flavours with one declaration: the
    // descriptor is the same, so bridge the element type with a cast that
    // disappears when both sides become LLVM structs.
    ArrayRef<Type> params = callee->getFunctionType().getInputs();
    for (auto [operand, param] : llvm::zip(operands, params))
      if (operand.getType() != param)
        operand = UnrealizedConversionCastOp::create(b, loc, param, operand)
                      .getResult(0);
    func::CallOp::create(b, loc, *callee, operands);
    return success();
  }

private:
  FailureOr<func::FuncOp> getOrDeclare(Operation *user, StringRef name,
                                       ArrayRef<Type> argTypes) {
    MLIRContext *ctx = module.getContext();
    auto i32 = IntegerType::get(ctx, 32);
    Operation *existing = symbols.lookup(name);
    if (!existing) {
      OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
      auto decl = func::FuncOp::create(b, module.getLoc(), name,
                                       FunctionType::get(ctx, argTypes, {i32}));
      decl.setPrivate();
      decl->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                    UnitAttr::get(ctx));
      symbols.insert(decl);
      return decl;
    }
    auto decl = dyn_cast<func::FuncOp>(existing);
    if (decl && compatible(decl.getFunctionType().getInputs(), argTypes))
      return decl;
    InFlightDiagnostic diag =
        fp8q::emitErrorAt(user)
        << "cannot call runtime entry point @" << name
        << ": the module already defines that symbol with "
           "an incompatible signature";
    diag.attachNote(existing->getLoc()) << "defined here";
    return failure();
  }

  /// Declared and wanted argument types agree up to the fp8 flavour of
  /// memref element types (the ABI reads fp8 as bytes).
  static bool compatible(ArrayRef<Type> declared, ArrayRef<Type> wanted) {
    if (declared.size() != wanted.size())
      return false;
    for (auto [d, w] : llvm::zip(declared, wanted)) {
      if (d == w)
        continue;
      auto dm = dyn_cast<MemRefType>(d), wm = dyn_cast<MemRefType>(w);
      if (!dm || !wm || dm.getRank() != wm.getRank() ||
          dm.getLayout() != wm.getLayout() ||
          dm.getElementTypeBitWidth() != 8 || wm.getElementTypeBitWidth() != 8)
        return false;
    }
    return true;
  }

  ModuleOp module;
  SymbolTable symbols;
};

struct LowerToRuntimePass
    : public fp8q::impl::LowerToRuntimeBase<LowerToRuntimePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    RuntimeCallBuilder calls(module);
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<BufferQuantizeOp, BufferRmsNormQuantizeOp, BufferGemmOp,
              BufferMaterializeOp, BufferPreshuffleOp>(op))
        ops.push_back(op);
    });
    bool failed = false;
    for (Operation *op : ops) {
      if (mlir::failed(lower(op, calls))) {
        failed = true;
        continue;
      }
      ++numCalls;
      op->erase();
    }
    if (failed)
      signalPassFailure();
  }

  LogicalResult lower(Operation *op, RuntimeCallBuilder &calls) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    auto i32 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, loc, v, 32);
    };
    auto fp8Code = [&](Value fp8Buffer) {
      return i32(
          getFp8Code(cast<MemRefType>(fp8Buffer.getType()).getElementType()));
    };
    auto elementSuffix = [](Value buffer) {
      return getActivationSuffix(
          cast<MemRefType>(buffer.getType()).getElementType());
    };

    if (auto quant = dyn_cast<BufferQuantizeOp>(op)) {
      std::string name =
          ("fp8q_rt_quantize_" + elementSuffix(quant.getX())).str();
      Value groupSize =
          arith::ConstantIntOp::create(b, loc, quant.getGroupSize(), 64);
      return calls.emitCall(op, name,
                            {quant.getX(), quant.getQ(), quant.getScale(),
                             groupSize, fp8Code(quant.getQ())});
    }
    if (auto norm = dyn_cast<BufferRmsNormQuantizeOp>(op)) {
      std::string name =
          ("fp8q_rt_rms_norm_quantize_" + elementSuffix(norm.getX())).str();
      Value y = norm.getUnquantized();
      // The ABI leaves y untouched when keep_unquantized is 0; x stands in.
      Value keep = i32(y ? 1 : 0);
      if (!y)
        y = norm.getX();
      Value epsilon = arith::ConstantOp::create(b, loc, norm.getEpsilonAttr());
      Value groupSize =
          arith::ConstantIntOp::create(b, loc, norm.getGroupSize(), 64);
      return calls.emitCall(op, name,
                            {norm.getX(), norm.getGamma(), norm.getQ(),
                             norm.getScale(), y, epsilon, groupSize,
                             fp8Code(norm.getQ()), keep});
    }
    if (auto gemm = dyn_cast<BufferGemmOp>(op)) {
      std::optional<Kernel> kernel = gemm.getKernel();
      if (!kernel)
        return fp8q::emitOpErrorAt(gemm)
               << "has no kernel; run --fp8q-select-kernels or name one "
                  "with kernel = #fp8q.kernel<...> before lowering to the "
                  "runtime";
      int32_t weightLayout = gemm.getWLayout()
                                 ? FP8Q_WEIGHT_LAYOUT_PRESHUFFLE_16X16
                                 : FP8Q_WEIGHT_LAYOUT_PLAIN;
      return calls.emitCall(op, "fp8q_rt_gemm",
                            {gemm.getQ(), gemm.getXScale(), gemm.getW(),
                             gemm.getWScale(), gemm.getOut(),
                             i32(static_cast<int32_t>(*kernel)),
                             fp8Code(gemm.getQ()), i32(weightLayout)});
    }
    if (auto mat = dyn_cast<BufferMaterializeOp>(op))
      return calls.emitCall(op, "fp8q_rt_materialize",
                            {mat.getSource(), mat.getDest()});
    auto shuffle = cast<BufferPreshuffleOp>(op);
    return calls.emitCall(op, "fp8q_rt_preshuffle",
                          {shuffle.getW(), shuffle.getDest()});
  }
};

} // namespace
