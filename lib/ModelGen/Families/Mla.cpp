//===- Mla.cpp - deepseek_v3, deepseek_v32, kimi_k2, glm_moe_dsa ----------===//
//
// MLA + MoE decoders: DeepSeek-V3 / V3.2, Kimi-K2, GLM-5. Their output is
// fixed by the lit tests and bench numbers: the fields, their order and the
// messages stay as they were.
//
//===----------------------------------------------------------------------===//

#include "../ConfigReader.h"

namespace fp8q {
namespace modelgen {
namespace {
constexpr StringRef kTypes[] = {"deepseek_v3", "deepseek_v32", "kimi_k2",
                                "glm_moe_dsa"};
constexpr std::pair<StringRef, StringRef> kArchs[] = {
    {"DeepseekV3ForCausalLM", "deepseek_v3"},
    {"DeepseekV32ForCausalLM", "deepseek_v32"},
    {"GlmMoeDsaForCausalLM", "glm_moe_dsa"}};

/// Model types with a sparse-attention indexer.
bool hasIndexer(StringRef type) {
  return type == "deepseek_v32" || type == "glm_moe_dsa";
}

Error read(FieldReader &r, ModelConfig &c, StringRef fileName) {
  c.attention = AttentionKind::MLA;
  c.routedExpertsWhole = true;
  r.required("hidden_size", c.hiddenSize, kMaxWidth);
  r.required("num_hidden_layers", c.numHiddenLayers, kMaxLayers);
  r.required("num_attention_heads", c.numAttentionHeads, kMaxHeads);
  r.optional("q_lora_rank", c.qLoraRank, kMaxWidth);
  r.required("kv_lora_rank", c.kvLoraRank, kMaxWidth);
  r.required("qk_nope_head_dim", c.qkNopeHeadDim, kMaxHeadDim);
  r.required("qk_rope_head_dim", c.qkRopeHeadDim, kMaxHeadDim);
  r.required("v_head_dim", c.vHeadDim, kMaxHeadDim);
  r.required("intermediate_size", c.intermediateSize, kMaxWidth);
  r.required("moe_intermediate_size", c.moeIntermediateSize, kMaxWidth);
  r.required("n_shared_experts", c.nSharedExperts, kMaxSharedExperts,
             /*allowZero=*/true);
  r.required("n_routed_experts", c.nRoutedExperts, kMaxExperts,
             /*allowZero=*/true);
  r.required("num_experts_per_tok", c.numExpertsPerTok, kMaxExperts,
             /*allowZero=*/true);
  r.required("first_k_dense_replace", c.firstKDenseReplace, kMaxLayers,
             /*allowZero=*/true);
  r.optional("index_n_heads", c.indexNHeads, kMaxHeads);
  r.optional("index_head_dim", c.indexHeadDim, kMaxHeadDim);
  r.optionalFraction("rms_norm_eps", c.rmsNormEps);
  if (r.error)
    return Error::success();
  if (c.indexNHeads.has_value() != c.indexHeadDim.has_value())
    return fieldError(
        fileName, c.indexNHeads ? "index_head_dim" : "index_n_heads",
        "the indexer needs both index_n_heads and index_head_dim");
  if (hasIndexer(c.modelType) && !c.indexNHeads)
    return fieldError(fileName, "index_n_heads",
                      formatv("missing (model_type '{0}' has a sparse-"
                              "attention indexer: index_n_heads and "
                              "index_head_dim)",
                              c.modelType));
  return Error::success();
}
} // namespace

const Family kMlaFamily{kTypes, kArchs, read};

} // namespace modelgen
} // namespace fp8q
