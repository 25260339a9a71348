//===- DeviceBuffers.cpp - A step's buffers in device memory --------------===//
//
// Device execution, first half (docs/DeviceExecution.md). On the bufferized,
// deallocated module: one stream argument per function, the tensor data's
// allocations and copies moved to the GPU dialect's stream-ordered forms,
// and the checks of a public step's arguments. The GPU dialect ops are then
// lowered by upstream `gpu-to-llvm` to the `mgpu*` calls the fp8q GPU runtime
// implements, with the stream argument as their stream.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Conversion/DeviceExecution.h"
#include "fp8q/Conversion/Passes.h"
#include "fp8q/Support/Diagnostics.h"
#include "fp8q/Target/KernelContracts.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace fp8q {
#define GEN_PASS_DEF_DEVICEBUFFERS
#include "fp8q/Conversion/Passes.h.inc"
} // namespace fp8q

using namespace mlir;
using namespace fp8q;

namespace fp8q {

StringRef getDeviceTargetsAttrName() { return "fp8q_device.gpu_targets"; }

StringRef getDeviceCheckArgName() { return "fp8q_rt_device_check_arg"; }

bool isHostBookkeeping(MemRefType type) {
  Type element = type.getElementType();
  return element.isIndex() || element.isInteger(1);
}

Value getStepStream(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  if (!func || func.isExternal() || func.getNumArguments() == 0)
    return {};
  Value last = func.getArgument(func.getNumArguments() - 1);
  return isa<gpu::AsyncTokenType>(last.getType()) ? last : Value();
}

} // namespace fp8q

namespace {

/// The GPU target attribute of `chip` ("sm_90", "gfx950", ...), or null.
Attribute getGpuTarget(MLIRContext *ctx, StringRef chip) {
  if (chip.starts_with("sm_"))
    return NVVM::NVVMTargetAttr::get(ctx, /*optLevel=*/3, "nvptx64-nvidia-cuda",
                                     chip, "+ptx80");
  if (chip.starts_with("gfx"))
    return ROCDL::ROCDLTargetAttr::get(ctx, /*optLevel=*/3, "amdgcn-amd-amdhsa",
                                       chip);
  return {};
}

/// The chip of an fp8q.target arch.
std::string getChipOfArch(StringRef arch) {
  if (arch == "sm90")
    return "sm_90";
  return arch.str();
}

struct DeviceBuffersPass
    : public fp8q::impl::DeviceBuffersBase<DeviceBuffersPass> {
  using DeviceBuffersBase::DeviceBuffersBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(recordTargets(module)) || failed(rejectHostOnly(module)))
      return signalPassFailure();
    addStreams(module);
    moveToDevice(module);
    checkArguments(module);
  }

  /// Records the GPU target for --fp8q-device-launches.
  LogicalResult recordTargets(ModuleOp module) {
    std::string target = chip;
    if (target.empty()) {
      TargetAttr fp8qTarget = getModuleTarget(module);
      if (!fp8qTarget)
        return emitErrorAt(module)
               << "device execution needs a GPU: give the module an "
                  "fp8q.target (e.g. #fp8q.target<arch = \"sm90\">) or the "
                  "chip option";
      target = getChipOfArch(fp8qTarget.getArch());
    }
    Attribute attr = getGpuTarget(&getContext(), target);
    if (!attr)
      return emitErrorAt(module) << "device execution: unknown GPU chip '"
                                 << target << "'; use sm_90, gfx950 or gfx942";
    module->setAttr(getDeviceTargetsAttrName(),
                    ArrayAttr::get(&getContext(), {attr}));
    return success();
  }

  /// Tensor data that only the host has: constants that are not splats
  /// (elementwise fusion folds splats into the kernels) and stack buffers.
  LogicalResult rejectHostOnly(ModuleOp module) {
    bool failed = false;
    module.walk(
        [&](Operation *op) {
          if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
            emitOpErrorAt(op)
                << "reads constant @" << global.getName()
                << ", which has no device copy in device execution; pass the "
                   "tensor as an argument of the step";
            failed = true;
          } else if (auto alloca = dyn_cast<memref::AllocaOp>(op)) {
            if (isHostBookkeeping(alloca.getType()))
              return;
            emitOpErrorAt(op) << "puts tensor data on the host stack, which a "
                                 "device-mode step cannot address";
            failed = true;
          }
        });
    return success(!failed);
  }

  /// One stream per function: a trailing !gpu.async.token argument, passed
  /// on by every call of a function with a body.
  void addStreams(ModuleOp module) {
    MLIRContext *ctx = &getContext();
    Type token = gpu::AsyncTokenType::get(ctx);
    DenseSet<StringAttr> defined;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      if (failed(func.insertArgument(func.getNumArguments(), token, {},
                                     func.getLoc())))
        llvm_unreachable("a function with a body takes one more argument");
      // A public step is called from C: _mlir_ciface_<name>(results,
      // descriptors..., stream).
      if (func.isPublic())
        func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                      UnitAttr::get(ctx));
      defined.insert(func.getSymNameAttr());
    }
    module.walk([&](func::CallOp call) {
      if (defined.contains(call.getCalleeAttr().getAttr()))
        call.getOperandsMutable().append(getStepStream(call));
    });
  }

  /// Allocations, deallocations and copies of tensor data on the stream.
  void moveToDevice(ModuleOp module) {
    MLIRContext *ctx = &getContext();
    Type token = gpu::AsyncTokenType::get(ctx);
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<memref::AllocOp, memref::DeallocOp, memref::CopyOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      Value stream = getStepStream(op);
      if (!stream)
        continue;
      OpBuilder b(op);
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        if (isHostBookkeeping(alloc.getType()))
          continue;
        auto device = gpu::AllocOp::create(
            b, alloc.getLoc(), alloc.getType(), token, ValueRange{stream},
            alloc.getDynamicSizes(), alloc.getSymbolOperands(),
            /*hostShared=*/false);
        alloc.replaceAllUsesWith(device.getMemref());
        alloc.erase();
        ++numAllocs;
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        if (isHostBookkeeping(cast<MemRefType>(dealloc.getMemref().getType())))
          continue;
        gpu::DeallocOp::create(b, dealloc.getLoc(), token, ValueRange{stream},
                               dealloc.getMemref());
        dealloc.erase();
      } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        auto source = cast<MemRefType>(copy.getSource().getType());
        auto target = cast<MemRefType>(copy.getTarget().getType());
        if (isHostBookkeeping(source))
          continue;
        if (source.getLayout().isIdentity() && target.getLayout().isIdentity())
          gpu::MemcpyOp::create(b, copy.getLoc(), token, ValueRange{stream},
                                copy.getTarget(), copy.getSource());
        else
          linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                                 copy.getTarget());
        copy.erase();
      }
    }
  }

  /// At the entry of every public step, one check per memref argument: its
  /// data pointer, the bytes its descriptor spans, its position, the stream.
  void checkArguments(ModuleOp module) {
    MLIRContext *ctx = &getContext();
    Type i64 = IntegerType::get(ctx, 64), i32 = IntegerType::get(ctx, 32);
    Type token = gpu::AsyncTokenType::get(ctx);
    func::FuncOp decl;
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (func.isExternal() || !func.isPublic())
        continue;
      Value stream = getStepStream(func.getBody().front().getTerminator());
      OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
      for (BlockArgument arg : func.getArguments()) {
        auto type = dyn_cast<MemRefType>(arg.getType());
        if (!type)
          continue;
        if (!decl)
          decl = declareCheck(module, {i64, i64, i32, token}, i32);
        Location loc = arg.getLoc();
        Value span = getSpanBytes(b, loc, arg, type);
        Value ptr = arith::IndexCastOp::create(
            b, loc, i64,
            memref::ExtractAlignedPointerAsIndexOp::create(b, loc, arg));
        Value index =
            arith::ConstantIntOp::create(b, loc, arg.getArgNumber(), 32);
        func::CallOp::create(b, loc, decl,
                             ValueRange{ptr, span, index, stream});
        ++numChecks;
      }
    }
  }

  /// (offset + sum((size - 1) * stride) + 1) * element bytes, 0 if empty.
  static Value getSpanBytes(OpBuilder &b, Location loc, Value memref,
                            MemRefType type) {
    auto meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value last = meta.getOffset();
    Value empty = arith::ConstantIntOp::create(b, loc, 0, 1);
    for (auto [size, stride] : llvm::zip(meta.getSizes(), meta.getStrides())) {
      Value isZero =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, size, zero);
      empty = arith::OrIOp::create(b, loc, empty, isZero);
      Value extent = arith::SubIOp::create(b, loc, size, one);
      last = arith::AddIOp::create(
          b, loc, last, arith::MulIOp::create(b, loc, extent, stride));
    }
    int64_t bytes = std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
    Value elements = arith::AddIOp::create(b, loc, last, one);
    Value span = arith::MulIOp::create(
        b, loc, elements, arith::ConstantIndexOp::create(b, loc, bytes));
    span = arith::SelectOp::create(b, loc, empty, zero, span);
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), span);
  }

  static func::FuncOp declareCheck(ModuleOp module, ArrayRef<Type> inputs,
                                   Type result) {
    SymbolTable symbols(module);
    if (auto existing = symbols.lookup<func::FuncOp>(getDeviceCheckArgName()))
      return existing;
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    auto decl = func::FuncOp::create(
        b, module.getLoc(), getDeviceCheckArgName(),
        FunctionType::get(module.getContext(), inputs, {result}));
    decl.setPrivate();
    decl->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                  UnitAttr::get(module.getContext()));
    return decl;
  }
};

} // namespace
