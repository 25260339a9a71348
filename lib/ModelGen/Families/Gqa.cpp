//===- Gqa.cpp - The attention fields shared by the GQA families ----------===//

#include "../ConfigReader.h"

namespace fp8q {
namespace modelgen {

Error readGqaAttention(FieldReader &r, ModelConfig &c, StringRef fileName) {
  c.attention = AttentionKind::GQA;
  r.required("hidden_size", c.hiddenSize, kMaxWidth);
  r.required("num_hidden_layers", c.numHiddenLayers, kMaxLayers);
  r.required("num_attention_heads", c.numAttentionHeads, kMaxHeads);
  r.required("num_key_value_heads", c.numKeyValueHeads, kMaxHeads);
  r.optionalInt("head_dim", c.headDim, kMaxHeadDim);
  r.optionalFraction("rms_norm_eps", c.rmsNormEps);
  if (r.error)
    return Error::success();
  // Llama-style configs may leave head_dim out: hidden / heads.
  if (c.headDim == 0) {
    if (c.hiddenSize % c.numAttentionHeads != 0)
      return fieldError(fileName, "head_dim",
                        formatv("missing, and hidden_size = {0} is not "
                                "divisible by num_attention_heads = {1}",
                                c.hiddenSize, c.numAttentionHeads));
    c.headDim = c.hiddenSize / c.numAttentionHeads;
  }
  if (c.numAttentionHeads % c.numKeyValueHeads != 0)
    return fieldError(fileName, "num_key_value_heads",
                      formatv("{0} does not divide num_attention_heads = {1}",
                              c.numKeyValueHeads, c.numAttentionHeads));
  return Error::success();
}

} // namespace modelgen
} // namespace fp8q
