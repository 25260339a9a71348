//===- DecoderBuilder.h - fp8q IR for a block-FP8 decoder -------*- C++ -*-===//
//
// Builds the fp8q IR of one decode step of a block-FP8 decoder: every FP8
// linear boundary (MLA: fused q_a/kv_a, q_b, kv_b, indexer projections; GQA:
// q/k/v; o_proj, dense MLP, shared and routed experts) with its producers
// (RMSNorm+quant, quant, communicator handoff of pre-quantized pairs). Kernels
// and scale layouts are left to --fp8q-select-kernels and
// --fp8q-propagate-scale-layout.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_MODELGEN_DECODERBUILDER_H
#define FP8Q_MODELGEN_DECODERBUILDER_H

#include "fp8q/Dialect/IR/ScaleLayout.h"
#include "fp8q/ModelGen/ModelConfig.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace fp8q {

/// Bounds of DecoderOptions (and of the tool's --tp and --tokens).
constexpr int64_t kMaxTensorParallel = 1024;
constexpr int64_t kMaxTokens = 1 << 20;
/// The widest N or K of one linear layer.
constexpr int64_t kMaxLinearWidth = 1 << 22;
/// The most ops and arguments (estimated) of a generated decode step: about
/// 2 GiB while building and printing.
constexpr int64_t kMaxDecoderOps = 4000000;

/// How to lay out the generated decode step.
struct DecoderOptions {
  std::string arch = "gfx950";
  /// ROCm version for AMD targets ("" for none).
  std::string rocm = "7.2";
  /// Tensor-parallel degree: attention heads and MLP widths are split by it.
  int64_t tp = 1;
  /// Expert-parallel degree: routed experts are distributed whole across
  /// ranks (each computes at full width); it must divide the expert count.
  /// 1: the routed experts of the GQA families are split by `tp`.
  int64_t ep = 1;
  /// Tokens per step (M); ShapedType::kDynamic for `?`.
  int64_t tokens = 16;
  /// Data-parallel attention (SGLang's --enable-dp-attention): each of the
  /// `tp` ranks runs attention on its own M tokens with whole heads; the
  /// post-attention (q, scale) pair is all-gathered across the ranks
  /// (shard.all_gather on grid @tp) for the tensor-parallel MLP, whose bf16
  /// output is reduce-scattered back to the rank's M tokens.
  bool dpAttention = false;
  /// The degree attention heads are split by: 1 under dpAttention.
  int64_t attentionTp() const { return dpAttention ? 1 : tp; }
  /// Put the MoE layers in one scf.for over stacked weights.
  bool layersAsLoop = false;
  /// Override of num_hidden_layers (0: the config's).
  int64_t numLayers = 0;
  /// SPEC v2 block format of every FP8 linear layer (FP8 1x128 by default):
  /// MXFP8, MXFP4 and NVFP4 quantize per 32 / 32 / 16 and scale each weight
  /// row; FP8 1x128 UE8M0 keeps 1x128 groups with e8m0 scales and one
  /// weight-scale row per weight row (what DeepGEMM reads on sm100). The
  /// RMSNorm producers become plain quantizes in these variants
  /// (fp8q.rms_norm_quantize writes FP8 1x128 only; a norm moves no scale).
  BlockFormat format = BlockFormat::Fp8Block;
};

/// Parses a --format value (fp8, mxfp8, mxfp4, nvfp4, ue8m0).
std::optional<BlockFormat> parseBlockFormatOption(llvm::StringRef text);

/// An upper estimate of the ops and arguments buildDecoderModule creates.
int64_t estimateDecoderOps(const ModelConfig &config,
                           const DecoderOptions &options);

/// Checks the options' bounds and that the module stays within
/// kMaxDecoderOps, before anything is built; the message names the fields
/// and options to change.
llvm::Error checkDecoderSize(const ModelConfig &config,
                             const DecoderOptions &options);

/// Checks --tp and --ep against the config: --ep divides the expert count,
/// the KV heads split or replicate over --tp, and --tp does not cut a routed
/// expert below or off the 128-wide block (the message suggests --ep).
llvm::Error checkParallelism(const ModelConfig &config,
                             const DecoderOptions &options);

/// Builds the module; returns null after emitting a diagnostic on a shape
/// that fp8q cannot express (e.g. a width that is not a multiple of 128).
mlir::OwningOpRef<mlir::ModuleOp>
buildDecoderModule(mlir::MLIRContext *ctx, const ModelConfig &config,
                   const DecoderOptions &options);

} // namespace fp8q

#endif // FP8Q_MODELGEN_DECODERBUILDER_H
