//===- Glm4Moe.cpp - glm4_moe: GQA + MoE with a shared expert -------------===//
//
// GLM-4.5 / 4.6: q/k/v projections (q/k RMS norms when use_qk_norm), dense
// MLP in the first first_k_dense_replace layers, then n_routed_experts
// routed experts plus n_shared_experts shared ones.
//
//===----------------------------------------------------------------------===//

#include "../ConfigReader.h"

namespace fp8q {
namespace modelgen {
namespace {
constexpr StringRef kTypes[] = {"glm4_moe"};
constexpr std::pair<StringRef, StringRef> kArchs[] = {
    {"Glm4MoeForCausalLM", "glm4_moe"}};

Error read(FieldReader &r, ModelConfig &c, StringRef fileName) {
  if (Error e = readGqaAttention(r, c, fileName))
    return e;
  r.optionalBool("use_qk_norm", c.qkNorm);
  r.required("intermediate_size", c.intermediateSize, kMaxWidth);
  r.required("moe_intermediate_size", c.moeIntermediateSize, kMaxWidth);
  r.required("n_routed_experts", c.nRoutedExperts, kMaxExperts);
  r.required("n_shared_experts", c.nSharedExperts, kMaxSharedExperts,
             /*allowZero=*/true);
  r.required("num_experts_per_tok", c.numExpertsPerTok, kMaxExperts);
  r.optionalInt("first_k_dense_replace", c.firstKDenseReplace, kMaxLayers,
                /*allowZero=*/true);
  return Error::success();
}
} // namespace

const Family kGlm4MoeFamily{kTypes, kArchs, read};

} // namespace modelgen
} // namespace fp8q
