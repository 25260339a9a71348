//===- Pipelines.h - The fp8q compilation pipeline --------------*- C++ -*-===//
//
// `--fp8q-pipeline`: tensor-level fp8q IR to the LLVM dialect, ready for
// mlir-runner with a runtime library (SPEC.md). In order:
//   1. --fp8q-select-kernels          (kernel per gemm, weight preshuffle)
//   2. --fp8q-propagate-scale-layout  (layouts, fewest materializations),
//      with prepare-weight-args then --fp8q-prepare-weight-args (weight
//      re-layouts move to a load-time @<fn>_prepare_weights)
//   3. --fp8q-verify-contracts        (every gemm's contract holds)
//   4. --fp8q-bufferize               (whole-module One-Shot Bufferize),
//      then the ownership-based buffer deallocation pipeline
//   5. --fp8q-lower-to-runtime        (fp8q_rt_* calls, strides travel)
//   6. lowering to LLVM: linalg to loops, splitting of large functions
//      into chunks (--fp8q-outline-loops), affine, scf to cf,
//      expand-strided-metadata, one convert-to-llvm for
//      memref/arith/math/index/func/cf/ub, reconcile-unrealized-casts.
// Upstream ops in the module (arith, math, tensor, linalg, bufferization,
// memref, scf, func) go along.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_PIPELINES_PIPELINES_H
#define FP8Q_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir {
class DialectRegistry;
class OpPassManager;
} // namespace mlir

namespace fp8q {

/// Where a compiled step runs.
enum class Execution { Host, Device };

/// Options of `--fp8q-pipeline`.
struct Fp8qPipelineOptions
    : public mlir::PassPipelineOptions<Fp8qPipelineOptions> {
  Option<bool> fuseProducers{
      *this, "fuse-producers",
      llvm::cl::desc("Let propagation retype quantize producers to write the "
                     "layout their consumers read (fused transposed write)"),
      llvm::cl::init(true)};
  Option<bool> fuseElementwiseProducers{
      *this, "fuse-elementwise-producers",
      llvm::cl::desc("Fuse the residual add into rms_norm_quantize and the "
                     "SiLU x mul into quantize "
                     "(--fp8q-fuse-elementwise-producers)"),
      llvm::cl::init(true)};
  Option<bool> skipPropagation{
      *this, "skip-propagation",
      llvm::cl::desc(
          "Reproduce the historical hand-placed flow: no layout propagation "
          "and no compile-time contract check, so a wrong layout reaches the "
          "runtime (whose checks, or FP8Q_RT_UNCHECKED=1 damage, show it)"),
      llvm::cl::init(false)};
  Option<bool> prepareWeightArgs{
      *this, "prepare-weight-args",
      llvm::cl::desc(
          "Re-lay out weight arguments (weight-scale materializations, "
          "weight preshuffles) once, in a public @<fn>_prepare_weights the "
          "driver calls at load time, instead of in every step; changes the "
          "step's signature (--fp8q-prepare-weight-args)"),
      llvm::cl::init(false)};
  Option<unsigned> outlineMinLoops{
      *this, "outline-min-loops",
      llvm::cl::desc("Split functions with more outermost loop nests than "
                     "this into chunks (keeps the LLVM lowering fast)"),
      llvm::cl::init(16)};
  Option<std::string> tunedTable{
      *this, "tuned-table",
      llvm::cl::desc("JSON file replacing the embedded tuned-shape table of "
                     "--fp8q-select-kernels"),
      llvm::cl::init("")};
  Option<std::string> sm90Kernel{
      *this, "sm90-kernel",
      llvm::cl::desc("Kernel for sm90 gemms: deepgemm or cublas"),
      llvm::cl::init("deepgemm")};
  Option<bool> fixFp8Type{
      *this, "fix-fp8-type",
      llvm::cl::desc("Rewrite quantize producers and constant weights to the "
                     "target's fp8 flavour instead of reporting a mismatch"),
      llvm::cl::init(false)};
  Option<Execution> execution{
      *this, "execution",
      llvm::cl::desc("Where a step runs (docs/DeviceExecution.md)"),
      llvm::cl::init(Execution::Host),
      llvm::cl::values(
          clEnumValN(Execution::Host, "host",
                     "buffers in host memory, elementwise ops as host loops, "
                     "fp8q_rt_* calls (the CPU runtime)"),
          clEnumValN(Execution::Device, "device",
                     "every buffer in device memory, elementwise ops as GPU "
                     "kernels embedded in the output, fp8q_rt_device_* "
                     "calls, one stream passed into each step"))};
  Option<std::string> gpuChip{
      *this, "gpu-chip",
      llvm::cl::desc("Device execution: GPU chip (sm_90, gfx950, gfx942); "
                     "default: from the module's fp8q.target"),
      llvm::cl::init("")};
  Option<unsigned> gpuBlockSize{
      *this, "gpu-block-size",
      llvm::cl::desc("Device execution: threads per block of the elementwise "
                     "kernels (along the innermost dimension)"),
      llvm::cl::init(256)};
  Option<std::string> nvvmFormat{
      *this, "nvvm-format",
      llvm::cl::desc("Device execution on NVIDIA: isa (PTX, compiled by the "
                     "driver at load), bin (cubin, needs ptxas) or fatbin"),
      llvm::cl::init("isa")};
  Option<std::string> rocdlToolkit{
      *this, "rocdl-toolkit",
      llvm::cl::desc("Device execution on AMD: folder holding llvm/bin/ld.lld "
                     "(default: the one configured at build time)"),
      llvm::cl::init("")};
};

/// Appends the whole fp8q pipeline to `pm`, which must run on
/// builtin.module. Callable from other compilers' pass managers.
void buildFp8qPipeline(mlir::OpPassManager &pm,
                       const Fp8qPipelineOptions &options);

/// Appends stages 0-3 of the pipeline (fusion, kernel selection, layout
/// propagation, prepare-weight-args, contracts): what remains is tensor
/// level, with the public functions' final signatures. buildFp8qPipeline
/// is this followed by buildFp8qLoweringPipeline; a driver that reads the
/// signatures (fp8q-compile's manifest) runs the two apart.
void buildFp8qTensorPipeline(mlir::OpPassManager &pm,
                             const Fp8qPipelineOptions &options);

/// Appends stages 4-6 of the pipeline (bufferization to LLVM) to what
/// buildFp8qTensorPipeline produced.
void buildFp8qLoweringPipeline(mlir::OpPassManager &pm,
                               const Fp8qPipelineOptions &options);

/// Adds to `registry` what `buildFp8qPipeline` needs in the context that
/// runs it, and nothing more: the fp8q dialect and the upstream dialects of
/// its input and output, the bufferization and deallocation external models
/// of the upstream dialects it bufferizes, and the ConvertToLLVM interfaces
/// of the dialects it lowers. A compiler embedding the pipeline calls this
/// instead of registering every upstream dialect and extension.
void registerFp8qPipelineDependencies(mlir::DialectRegistry &registry);

/// Registers `--fp8q-pipeline` with the global pass pipeline registry.
void registerFp8qPipelines();

} // namespace fp8q

#endif // FP8Q_PIPELINES_PIPELINES_H
