//===- DeviceLaunches.cpp - Kernels on the step's stream ------------------===//
//
// Device execution, second half (docs/DeviceExecution.md), after
// gpu-kernel-outlining: every launch on the step's stream, identical
// kernels merged (a decode step repeats the same elementwise kernel once
// per layer; one module each would be compiled and loaded hundreds of
// times), the GPU targets attached, and a proof that the host code left
// touches no tensor data.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Conversion/DeviceExecution.h"
#include "fp8q/Conversion/Passes.h"
#include "fp8q/Support/Diagnostics.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace fp8q {
#define GEN_PASS_DEF_DEVICELAUNCHES
#include "fp8q/Conversion/Passes.h.inc"
} // namespace fp8q

using namespace mlir;
using namespace fp8q;

namespace {

/// The text of `kernel` with its own name replaced: equal for kernels that
/// differ only in their name.
std::string getKernelKey(gpu::GPUModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (Operation &op : module.getBody()->getOperations()) {
    auto func = dyn_cast<gpu::GPUFuncOp>(op);
    StringRef name = func ? func.getName() : StringRef();
    std::string opText;
    llvm::raw_string_ostream opOs(opText);
    op.print(opOs, OpPrintingFlags()
                       .printGenericOpForm()
                       .useLocalScope()
                       .elideLargeElementsAttrs(0));
    if (!name.empty()) {
      std::string quoted = "\"" + name.str() + "\"";
      size_t at = opText.find(quoted);
      if (at != std::string::npos)
        opText.replace(at, quoted.size(), "\"kernel\"");
    }
    os << opText << "\n";
  }
  return text;
}

/// True if `op` reads or writes tensor data (anything but the deallocation's
/// index / i1 bookkeeping).
bool touchesTensorData(Operation *op) {
  auto dataOperand = [](Value value) {
    auto type = dyn_cast<MemRefType>(value.getType());
    return type && !isHostBookkeeping(type);
  };
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return dataOperand(load.getMemref());
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return dataOperand(store.getMemref());
  if (isa<memref::CopyOp, linalg::LinalgOp>(op))
    return llvm::any_of(op->getOperands(), dataOperand);
  return false;
}

struct DeviceLaunchesPass
    : public fp8q::impl::DeviceLaunchesBase<DeviceLaunchesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkHostCode(module)) || failed(streamLaunches(module)))
      return signalPassFailure();
    mergeKernels(module);
    attachTargets(module);
  }

  LogicalResult checkHostCode(ModuleOp module) {
    bool failed = false;
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      if (touchesTensorData(op)) {
        emitOpErrorAt(op) << "touches tensor data on the host in device "
                             "execution; only GPU kernels and runtime calls "
                             "may (is it an op the GPU mapping does not "
                             "handle?)";
        failed = true;
      }
      return WalkResult::advance();
    });
    return success(!failed);
  }

  LogicalResult streamLaunches(ModuleOp module) {
    Type token = gpu::AsyncTokenType::get(&getContext());
    SmallVector<gpu::LaunchFuncOp> launches;
    module.walk([&](gpu::LaunchFuncOp launch) { launches.push_back(launch); });
    for (gpu::LaunchFuncOp launch : launches) {
      Value stream = getStepStream(launch);
      if (!stream)
        return emitOpErrorAt(launch)
               << "has no stream: run --fp8q-device-buffers first";
      if (launch.getAsyncToken())
        continue;
      OpBuilder b(launch);
      std::optional<gpu::KernelDim3> cluster;
      if (launch.hasClusterSize())
        cluster = launch.getClusterSizeOperandValues();
      gpu::LaunchFuncOp::create(
          b, launch.getLoc(), launch.getKernel(),
          launch.getGridSizeOperandValues(), launch.getBlockSizeOperandValues(),
          launch.getDynamicSharedMemorySize(), launch.getKernelOperands(),
          token, ValueRange{stream}, cluster);
      launch.erase();
      ++numLaunches;
    }
    return success();
  }

  void mergeKernels(ModuleOp module) {
    llvm::StringMap<gpu::GPUModuleOp> byKey;
    DenseMap<StringAttr, gpu::GPUModuleOp> replacement;
    for (auto gpuModule : llvm::to_vector(module.getOps<gpu::GPUModuleOp>())) {
      auto [it, inserted] =
          byKey.try_emplace(getKernelKey(gpuModule), gpuModule);
      if (!inserted)
        replacement[gpuModule.getSymNameAttr()] = it->second;
    }
    if (replacement.empty())
      return;
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto it = replacement.find(launch.getKernelModuleName());
      if (it == replacement.end())
        return;
      gpu::GPUModuleOp kept = it->second;
      gpu::GPUFuncOp keptFunc = *kept.getOps<gpu::GPUFuncOp>().begin();
      launch.setKernelAttr(
          SymbolRefAttr::get(kept.getSymNameAttr(),
                             {FlatSymbolRefAttr::get(keptFunc.getNameAttr())}));
    });
    for (auto &entry : replacement) {
      auto dead = cast<gpu::GPUModuleOp>(
          SymbolTable::lookupSymbolIn(module, entry.first));
      dead.erase();
      ++numMerged;
    }
  }

  void attachTargets(ModuleOp module) {
    auto targets = module->getAttrOfType<ArrayAttr>(getDeviceTargetsAttrName());
    if (!targets)
      return;
    for (auto gpuModule : module.getOps<gpu::GPUModuleOp>())
      gpuModule.setTargetsAttr(targets);
    module->removeAttr(getDeviceTargetsAttrName());
  }
};

} // namespace
