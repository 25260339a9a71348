//===- MiniMaxM2.cpp - minimax_m2: GQA + MoE without shared experts -------===//
//
// MiniMax-M2: q/k/v projections with q/k RMS norms (use_qk_norm, over all
// heads of the rank), every layer MoE: num_local_experts routed experts of
// width intermediate_size, no shared expert, no dense layer.
//
//===----------------------------------------------------------------------===//

#include "../ConfigReader.h"

namespace fp8q {
namespace modelgen {
namespace {
constexpr StringRef kTypes[] = {"minimax_m2"};
constexpr std::pair<StringRef, StringRef> kArchs[] = {
    {"MiniMaxM2ForCausalLM", "minimax_m2"}};

Error read(FieldReader &r, ModelConfig &c, StringRef fileName) {
  if (Error e = readGqaAttention(r, c, fileName))
    return e;
  c.qkNorm = true;
  r.optionalBool("use_qk_norm", c.qkNorm);
  // The expert width is intermediate_size (there is no dense MLP).
  r.required("intermediate_size", c.moeIntermediateSize, kMaxWidth);
  c.expertsField = "num_local_experts";
  r.required("num_local_experts", c.nRoutedExperts, kMaxExperts);
  r.required("num_experts_per_tok", c.numExpertsPerTok, kMaxExperts);
  return Error::success();
}
} // namespace

const Family kMiniMaxM2Family{kTypes, kArchs, read};

} // namespace modelgen
} // namespace fp8q
