//===- DecoderBuilder.h - fp8q IR for an MLA + MoE decoder ------*- C++ -*-===//
//
// Builds the fp8q IR of one decode step of an MLA + MoE decoder: every FP8
// linear boundary (fused q_a/kv_a, q_b, kv_b, o_proj, indexer projections,
// dense MLP, shared and routed experts) with its producers (RMSNorm+quant,
// quant, communicator handoff of pre-quantized pairs). Kernels and scale
// layouts are left to --fp8q-select-kernels and
// --fp8q-propagate-scale-layout.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_MODELGEN_DECODERBUILDER_H
#define FP8Q_MODELGEN_DECODERBUILDER_H

#include "fp8q/ModelGen/ModelConfig.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace fp8q {

/// How to lay out the generated decode step.
struct DecoderOptions {
  std::string arch = "gfx950";
  /// ROCm version for AMD targets ("" for none).
  std::string rocm = "7.2";
  /// Tensor-parallel degree: attention heads and MLP widths are split by it.
  int64_t tp = 1;
  /// Tokens per step (M); ShapedType::kDynamic for `?`.
  int64_t tokens = 16;
  /// Put the MoE layers in one scf.for over stacked weights.
  bool layersAsLoop = false;
  /// Override of num_hidden_layers (0: the config's).
  int64_t numLayers = 0;
};

/// Builds the module; returns null after emitting a diagnostic on a shape
/// that fp8q cannot express (e.g. a width that is not a multiple of 128).
mlir::OwningOpRef<mlir::ModuleOp>
buildDecoderModule(mlir::MLIRContext *ctx, const ModelConfig &config,
                   const DecoderOptions &options);

} // namespace fp8q

#endif // FP8Q_MODELGEN_DECODERBUILDER_H
