//===- ModelConfig.h - Decoder dimensions from a config.json ----*- C++ -*-===//
//
// The FP8 linear-layer dimensions of a block-FP8 decoder, read from a Hugging
// Face `config.json` as published. Each model family (model_type) has its own
// reader in lib/ModelGen/Families and an entry in the family registry; the
// builders only see this struct.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_MODELGEN_MODELCONFIG_H
#define FP8Q_MODELGEN_MODELCONFIG_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fp8q {

// Bounds of the size fields of a config.json (and of the tool's options):
// far above every published model, low enough that no product of them
// overflows a tensor dimension or exhausts memory.

/// num_hidden_layers, first_k_dense_replace and --layers.
constexpr int64_t kMaxLayers = 100000;
/// hidden_size, intermediate_size, moe_intermediate_size, q_lora_rank,
/// kv_lora_rank.
constexpr int64_t kMaxWidth = 1 << 20;
/// num_attention_heads, num_key_value_heads and index_n_heads.
constexpr int64_t kMaxHeads = 4096;
/// head_dim, qk_nope_head_dim, qk_rope_head_dim, v_head_dim and
/// index_head_dim.
constexpr int64_t kMaxHeadDim = 4096;
/// n_routed_experts / num_experts and num_experts_per_tok.
constexpr int64_t kMaxExperts = 65536;
/// n_shared_experts.
constexpr int64_t kMaxSharedExperts = 64;

/// The attention of a family: which builder emits its projections.
enum class AttentionKind {
  /// Multi-head latent attention (DeepSeek-V3 and its descendants).
  MLA,
  /// Grouped-query attention: q/k/v projections with num_key_value_heads.
  GQA,
};

/// The fields of config.json that shape the FP8 linear layers.
struct ModelConfig {
  /// model_type (or the one `architectures` names); "" when both are absent
  /// (the MLA fields alone then describe the decoder).
  std::string modelType;
  AttentionKind attention = AttentionKind::MLA;
  int64_t hiddenSize = 0;
  int64_t numHiddenLayers = 0;
  int64_t numAttentionHeads = 0;

  // MLA.
  /// Absent (null) for models whose q projection reads the hidden state.
  std::optional<int64_t> qLoraRank;
  int64_t kvLoraRank = 0;
  int64_t qkNopeHeadDim = 0;
  int64_t qkRopeHeadDim = 0;
  int64_t vHeadDim = 0;
  /// Sparse-attention indexer (DeepSeek-V3.2, GLM-5); absent otherwise.
  std::optional<int64_t> indexNHeads;
  std::optional<int64_t> indexHeadDim;

  // GQA.
  int64_t numKeyValueHeads = 0;
  int64_t headDim = 0;
  /// q_norm / k_norm RMSNorms on q and k after the projection (qwen3,
  /// qwen3_moe, glm4_moe with use_qk_norm, minimax_m2).
  bool qkNorm = false;
  /// One fused qkv_proj weight in the checkpoint (else q_proj, k_proj and
  /// v_proj, as every supported GQA checkpoint names them).
  bool fusedQkv = false;

  // MLP.
  int64_t intermediateSize = 0;
  int64_t moeIntermediateSize = 0;
  int64_t nSharedExperts = 0;
  /// n_routed_experts / num_experts / num_local_experts; 0 for a dense model.
  int64_t nRoutedExperts = 0;
  /// The config.json name of nRoutedExperts, for messages.
  std::string expertsField = "n_routed_experts";
  int64_t numExpertsPerTok = 0;
  /// Layers [0, firstKDenseReplace) have a dense MLP.
  int64_t firstKDenseReplace = 0;
  /// qwen3_moe: layer l is MoE when (l + 1) % decoderSparseStep == 0 and l
  /// is not in mlpOnlyLayers.
  int64_t decoderSparseStep = 1;
  std::vector<int64_t> mlpOnlyLayers;
  /// MLA families model the routed experts whole on every rank (experts
  /// spread over the TP group, as DeepSeek-style MoE is served); the GQA
  /// families split them by --tp unless --ep is given.
  bool routedExpertsWhole = false;
  /// True for families with MoE layers at all (false: qwen3, llama).
  bool hasMoe = true;

  /// quantization_config.weight_block_size; fp8q supports [128, 128].
  int64_t blockN = 128, blockK = 128;
  /// quantization_config.modules_to_not_convert: these layers stay bf16.
  std::vector<std::string> modulesToNotConvert;
  double rmsNormEps = 1e-6;

  /// Whether layer `l` has an MoE MLP (else a dense one).
  bool isMoeLayer(int64_t l) const;
  /// Whether the linear layer `name` ("layers.3.self_attn.q_proj") is kept
  /// bf16 by modules_to_not_convert: an entry equal to the name, to it with
  /// the "model." prefix, or to a dot-separated suffix of it ("q_proj",
  /// "self_attn.o_proj").
  bool keepsBf16(llvm::StringRef name) const;
};

/// The model_type values fp8q-model-gen builds, comma-separated.
std::string supportedModelTypes();

/// Parses and validates config.json text: model_type first, then every size
/// field of its family against its bound, then quantization_config. Errors
/// name the file and the field (e.g. "glm5.json: field 'kv_lora_rank':
/// missing").
llvm::Expected<ModelConfig> parseModelConfig(llvm::StringRef text,
                                             llvm::StringRef fileName);

} // namespace fp8q

#endif // FP8Q_MODELGEN_MODELCONFIG_H
