//===- Qwen3.cpp - qwen3 (dense) and qwen3_moe ----------------------------===//
//
// Qwen3: GQA with per-head q_norm / k_norm. qwen3 has a dense MLP in every
// layer; qwen3_moe has routed experts (num_experts, no shared expert) in the
// layers decoder_sparse_step and mlp_only_layers leave sparse.
//
//===----------------------------------------------------------------------===//

#include "../ConfigReader.h"

namespace fp8q {
namespace modelgen {
namespace {
constexpr StringRef kDenseTypes[] = {"qwen3"};
constexpr std::pair<StringRef, StringRef> kDenseArchs[] = {
    {"Qwen3ForCausalLM", "qwen3"}};
constexpr StringRef kMoeTypes[] = {"qwen3_moe"};
constexpr std::pair<StringRef, StringRef> kMoeArchs[] = {
    {"Qwen3MoeForCausalLM", "qwen3_moe"}};

Error readDense(FieldReader &r, ModelConfig &c, StringRef fileName) {
  if (Error e = readGqaAttention(r, c, fileName))
    return e;
  c.qkNorm = true;
  c.hasMoe = false;
  r.required("intermediate_size", c.intermediateSize, kMaxWidth);
  return Error::success();
}

Error readMoe(FieldReader &r, ModelConfig &c, StringRef fileName) {
  if (Error e = readGqaAttention(r, c, fileName))
    return e;
  c.qkNorm = true;
  r.required("intermediate_size", c.intermediateSize, kMaxWidth);
  r.required("moe_intermediate_size", c.moeIntermediateSize, kMaxWidth);
  c.expertsField = "num_experts";
  r.required("num_experts", c.nRoutedExperts, kMaxExperts);
  r.required("num_experts_per_tok", c.numExpertsPerTok, kMaxExperts);
  r.optionalInt("decoder_sparse_step", c.decoderSparseStep, kMaxLayers);
  r.intList("mlp_only_layers", c.mlpOnlyLayers, kMaxLayers);
  return Error::success();
}
} // namespace

const Family kQwen3Family{kDenseTypes, kDenseArchs, readDense};
const Family kQwen3MoeFamily{kMoeTypes, kMoeArchs, readMoe};

} // namespace modelgen
} // namespace fp8q
