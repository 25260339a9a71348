//===- Pipelines.cpp - The fp8q compilation pipeline ----------------------===//

#include "fp8q/Pipelines/Pipelines.h"

#include "fp8q/Conversion/Passes.h"
#include "fp8q/Transforms/Passes.h"

#include "fp8q/InitFp8q.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/ControlFlow/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/ControlFlow/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/AllocationOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVM/ROCDL/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace fp8q {

namespace {

/// Views, index math, control flow and bf16 arithmetic in the forms the
/// LLVM conversions take (host code and kernels alike); bf16 conversions are
/// expanded to integer ops, so no soft-float call is needed at run time.
void addLlvmPreparation(OpPassManager &pm) {
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
}

/// Device execution after bufferization: device buffers and one stream,
/// runtime calls on device buffers, the remaining linalg ops as GPU kernels
/// through upstream's parallel-loop mapping, compiled and embedded.
void buildDeviceTail(OpPassManager &pm, const Fp8qPipelineOptions &options) {
  // As on the host: the deallocation's scf.if per buffer makes one huge
  // function that scf-to-cf and the LLVM lowering handle slowly; the parts
  // get their own stream argument next.
  OutlineLoopsOptions outline;
  outline.minLoops = options.outlineMinLoops;
  pm.addPass(createOutlineLoops(outline));
  DeviceBuffersOptions buffers;
  buffers.chip = options.gpuChip;
  pm.addPass(createDeviceBuffers(buffers));
  LowerToRuntimeOptions runtime;
  runtime.device = true;
  pm.addPass(createLowerToRuntime(runtime));
  pm.addPass(createConvertLinalgToParallelLoopsPass());
  // Tile the innermost dimension by the block size, the others by 1:
  // after mapping, one block per (outer indices, 256 innermost elements).
  SmallVector<int64_t> tiles = {1, static_cast<int64_t>(options.gpuBlockSize)};
  pm.addPass(createParallelLoopTilingPass(tiles, /*noMinMaxBounds=*/true));
  pm.addNestedPass<func::FuncOp>(createGpuMapParallelLoopsPass());
  pm.addPass(createConvertParallelLoopToGpuPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createDeviceLaunches());
  // Host code and kernels alike: views, index math and control flow in the
  // forms the LLVM conversions take.
  addLlvmPreparation(pm);
  DeviceKernelsOptions kernels;
  kernels.nvvmFormat = options.nvvmFormat;
  kernels.rocdlToolkit = options.rocdlToolkit.empty()
                             ? std::string(FP8Q_DEFAULT_ROCDL_TOOLKIT)
                             : options.rocdlToolkit.getValue();
  pm.addPass(createDeviceKernels(kernels));
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

} // namespace

void buildFp8qPipeline(OpPassManager &pm, const Fp8qPipelineOptions &options) {
  buildFp8qTensorPipeline(pm, options);
  buildFp8qLoweringPipeline(pm, options);
}

void buildFp8qTensorPipeline(OpPassManager &pm,
                             const Fp8qPipelineOptions &options) {
  // 0: the elementwise producers of quantization become part of it.
  if (options.fuseElementwiseProducers)
    pm.addPass(createFuseElementwiseProducers());
  // 1-3: decide kernels and layouts at the tensor level, then prove them.
  SelectKernelsOptions select;
  select.tunedTable = options.tunedTable;
  select.sm90Kernel = options.sm90Kernel;
  select.fixFp8Type = options.fixFp8Type;
  pm.addPass(createSelectKernels(select));
  if (!options.skipPropagation) {
    PropagateScaleLayoutOptions propagate;
    propagate.fuseProducers = options.fuseProducers;
    pm.addPass(createPropagateScaleLayout(propagate));
  }
  // Weight re-layouts move out of the step, before the contracts are
  // proven on the step that remains.
  if (options.prepareWeightArgs)
    pm.addPass(createPrepareWeightArgs());
  if (!options.skipPropagation)
    pm.addPass(createVerifyContracts());
}

void buildFp8qLoweringPipeline(OpPassManager &pm,
                               const Fp8qPipelineOptions &options) {
  const bool device = options.execution == Execution::Device;
  // 4: whole-module bufferization, then free what it allocated.
  // Elementwise arith / math ops on tensors (activations, residual adds)
  // have no bufferization of their own: make them linalg.generic first.
  pm.addPass(createConvertElementwiseToLinalgPass());
  // Device execution: one kernel per elementwise region, not per op, and
  // splat constants folded into it (they have no device copy).
  if (device)
    pm.addPass(createLinalgElementwiseOpFusionPass());
  pm.addPass(bufferization::createEmptyTensorToAllocTensorPass());
  // Bounds the alias sets One-Shot Bufferize proves in-place writes
  // against; without it bufferization is quadratic in the model's layers.
  pm.addPass(createFreshElementwiseInits());
  pm.addPass(createBufferize());
  // A private function that returns an argument unchanged (the TP handoff
  // of a scale) returns nothing after this: callers use their own buffer
  // and deallocation has no borrowed buffer to clone.
  pm.addPass(bufferization::createDropEquivalentBufferResultsPass());
  // Upstream's buffer-deallocation-pipeline minus
  // buffer-deallocation-simplification: that pass costs time quadratic in
  // the buffers of one function (40% of compiling a 78-layer model) and
  // only removes run-time aliasing checks that lower-deallocations emits
  // correctly anyway.
  memref::ExpandReallocPassOptions realloc;
  realloc.emitDeallocs = false;
  pm.addPass(memref::createExpandReallocPass(realloc));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(bufferization::createOwnershipBasedBufferDeallocationPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(bufferization::createLowerDeallocationsPass());
  // Ownership-based deallocation clones a buffer it returns without owning
  // it (e.g. a result that may alias an argument): lower those clones too,
  // the strided ones (column-major scales) first, which upstream cannot.
  pm.addPass(createLowerStridedClones());
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  if (device)
    return buildDeviceTail(pm, options);

  // 5: fp8q.buffer.* -> fp8q_rt_* calls; nothing of fp8q survives.
  pm.addPass(createLowerToRuntime());

  // 6: everything to the LLVM dialect. bf16 conversions are expanded to
  // integer ops (no soft-float library call is needed at run time).
  pm.addPass(createConvertLinalgToLoopsPass());
  OutlineLoopsOptions outline;
  outline.minLoops = options.outlineMinLoops;
  pm.addPass(createOutlineLoops(outline));
  addLlvmPreparation(pm);
  // One dialect conversion for memref, math, arith, index, func and cf
  // (their ConvertToLLVMPatternInterface patterns) instead of a walk of the
  // module per dialect. (Its allow-pattern-rollback=false mode is 25%
  // faster but upstream calls it experimental: not used.)
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void registerFp8qPipelineDependencies(DialectRegistry &registry) {
  registerFp8qDialects(registry);
  registry.insert<affine::AffineDialect, arith::ArithDialect,
                  bufferization::BufferizationDialect, cf::ControlFlowDialect,
                  func::FuncDialect, index::IndexDialect, linalg::LinalgDialect,
                  LLVM::LLVMDialect, math::MathDialect, memref::MemRefDialect,
                  scf::SCFDialect, tensor::TensorDialect, ub::UBDialect>();
  // Stage 4: One-Shot Bufferize and ownership-based deallocation.
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  arith::registerBufferDeallocationOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  cf::registerBufferizableOpInterfaceExternalModels(registry);
  cf::registerBufferDeallocationOpInterfaceExternalModels(registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  memref::registerAllocationOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferDeallocationOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  // Stage 6: convert-to-llvm finds its patterns through these.
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  // Device execution: the GPU dialect and its targets, serialization of
  // gpu.modules (which translates them to LLVM IR first).
  registry.insert<gpu::GPUDialect, NVVM::NVVMDialect, ROCDL::ROCDLDialect>();
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  ROCDL::registerROCDLTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  registerROCDLDialectTranslation(registry);
}

void registerFp8qPipelines() {
  PassPipelineRegistration<Fp8qPipelineOptions>(
      "fp8q-pipeline",
      "fp8q tensor IR to the LLVM dialect: select kernels, propagate scale "
      "layouts, verify contracts, bufferize, lower to runtime calls, lower "
      "to LLVM",
      buildFp8qPipeline);
}

} // namespace fp8q
