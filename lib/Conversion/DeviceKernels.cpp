//===- DeviceKernels.cpp - GPU modules to embedded binaries ---------------===//
//
// Device execution, third step (docs/DeviceExecution.md): the kernels of a
// step are lowered and serialized by upstream passes, chosen per gpu.module
// from its target attribute, so one pipeline serves NVIDIA and AMD targets
// without the pipeline builder knowing the module's target.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Conversion/Passes.h"
#include "fp8q/Support/Diagnostics.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"

namespace fp8q {
#define GEN_PASS_DEF_DEVICEKERNELS
#include "fp8q/Conversion/Passes.h.inc"
} // namespace fp8q

using namespace mlir;
using namespace fp8q;

namespace {

struct DeviceKernelsPass
    : public fp8q::impl::DeviceKernelsBase<DeviceKernelsPass> {
  using DeviceKernelsBase::DeviceKernelsBase;

  static OpPassManager nvvmKernels() {
    OpPassManager pm(gpu::GPUModuleOp::getOperationName());
    pm.addPass(createConvertGpuOpsToNVVMOps());
    pm.addPass(createReconcileUnrealizedCastsPass());
    return pm;
  }
  static OpPassManager rocdlKernels(StringRef chip) {
    OpPassManager pm(gpu::GPUModuleOp::getOperationName());
    ConvertGpuOpsToROCDLOpsOptions options;
    options.chipset = chip.str();
    pm.addPass(createConvertGpuOpsToROCDLOps(options));
    pm.addPass(createReconcileUnrealizedCastsPass());
    return pm;
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    DeviceKernelsBase::getDependentDialects(registry);
    nvvmKernels().getDependentDialects(registry);
    rocdlKernels("gfx950").getDependentDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool anyNvvm = false, anyRocdl = false;
    for (auto gpuModule : llvm::to_vector(module.getOps<gpu::GPUModuleOp>())) {
      ArrayAttr targets = gpuModule.getTargetsAttr();
      if (!targets || targets.size() != 1) {
        emitOpErrorAt(gpuModule) << "needs exactly one GPU target; run "
                                    "--fp8q-device-launches first";
        return signalPassFailure();
      }
      OpPassManager pm;
      if (isa<NVVM::NVVMTargetAttr>(targets[0])) {
        pm = nvvmKernels();
        anyNvvm = true;
      } else if (auto rocdl = dyn_cast<ROCDL::ROCDLTargetAttr>(targets[0])) {
        pm = rocdlKernels(rocdl.getChip());
        anyRocdl = true;
      } else {
        emitOpErrorAt(gpuModule) << "has a GPU target fp8q does not compile "
                                    "for; use sm_90, gfx950 or gfx942";
        return signalPassFailure();
      }
      if (failed(runPipeline(pm, gpuModule)))
        return signalPassFailure();
    }
    if (!anyNvvm && !anyRocdl)
      return;
    if (anyNvvm && anyRocdl) {
      emitErrorAt(module) << "device execution targets one GPU kind per step";
      return signalPassFailure();
    }
    GpuModuleToBinaryPassOptions options;
    options.compilationTarget = anyNvvm ? nvvmFormat : std::string("bin");
    if (anyRocdl)
      options.toolkitPath = rocdlToolkit;
    OpPassManager serialize(ModuleOp::getOperationName());
    serialize.addPass(createGpuModuleToBinaryPass(options));
    if (failed(runPipeline(serialize, module)))
      return signalPassFailure();
  }
};

} // namespace
