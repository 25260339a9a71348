//===- ModelConfig.h - Decoder dimensions from a config.json ----*- C++ -*-===//
//
// The FP8 linear-layer dimensions of an MLA + MoE decoder (DeepSeek-V3 /
// V3.2, GLM-5 family), read from a Hugging Face `config.json` as published.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_MODELGEN_MODELCONFIG_H
#define FP8Q_MODELGEN_MODELCONFIG_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace fp8q {

// Bounds of the size fields of a config.json (and of the tool's options):
// far above every published model, low enough that no product of them
// overflows a tensor dimension or exhausts memory.

/// num_hidden_layers, first_k_dense_replace and --layers.
constexpr int64_t kMaxLayers = 100000;
/// hidden_size, intermediate_size, moe_intermediate_size, q_lora_rank,
/// kv_lora_rank.
constexpr int64_t kMaxWidth = 1 << 20;
/// num_attention_heads and index_n_heads.
constexpr int64_t kMaxHeads = 4096;
/// qk_nope_head_dim, qk_rope_head_dim, v_head_dim and index_head_dim.
constexpr int64_t kMaxHeadDim = 4096;
/// n_routed_experts and num_experts_per_tok.
constexpr int64_t kMaxExperts = 65536;
/// n_shared_experts.
constexpr int64_t kMaxSharedExperts = 64;

/// The model_type values fp8q-model-gen builds (MLA + MoE decoders).
constexpr const char *kSupportedModelTypes =
    "deepseek_v3, deepseek_v32, kimi_k2, glm_moe_dsa";

/// The fields of config.json that shape the FP8 linear layers.
struct ModelConfig {
  /// model_type (or the one `architectures` names); "" when both are absent.
  std::string modelType;
  int64_t hiddenSize = 0;
  int64_t numHiddenLayers = 0;
  int64_t numAttentionHeads = 0;
  /// Absent (null) for models whose q projection reads the hidden state.
  std::optional<int64_t> qLoraRank;
  int64_t kvLoraRank = 0;
  int64_t qkNopeHeadDim = 0;
  int64_t qkRopeHeadDim = 0;
  int64_t vHeadDim = 0;
  int64_t intermediateSize = 0;
  int64_t moeIntermediateSize = 0;
  int64_t nSharedExperts = 0;
  int64_t nRoutedExperts = 0;
  int64_t numExpertsPerTok = 0;
  int64_t firstKDenseReplace = 0;
  /// Sparse-attention indexer (DeepSeek-V3.2, GLM-5); absent otherwise.
  std::optional<int64_t> indexNHeads;
  std::optional<int64_t> indexHeadDim;
  /// quantization_config.weight_block_size; fp8q supports [128, 128].
  int64_t blockN = 128, blockK = 128;
  double rmsNormEps = 1e-6;
};

/// Parses and validates config.json text: model_type first, then every size
/// field against its bound, then quantization_config. Errors name the file
/// and the field (e.g. "glm5.json: field 'kv_lora_rank': missing").
llvm::Expected<ModelConfig> parseModelConfig(llvm::StringRef text,
                                             llvm::StringRef fileName);

} // namespace fp8q

#endif // FP8Q_MODELGEN_MODELCONFIG_H
