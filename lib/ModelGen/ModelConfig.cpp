//===- ModelConfig.cpp - Decoder dimensions from a config.json ------------===//

#include "fp8q/ModelGen/ModelConfig.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace llvm;

namespace fp8q {
namespace {
/// Reads fields of one JSON object, remembering the first error.
class FieldReader {
public:
  FieldReader(const json::Object &object, StringRef fileName, StringRef prefix)
      : object(object), fileName(fileName), prefix(prefix) {}

  /// A required positive integer (or zero when `allowZero`).
  void required(StringRef key, int64_t &out, bool allowZero = false) {
    const json::Value *value = object.get(key);
    if (!value)
      return fail(key, "missing");
    readInt(key, *value, out, allowZero);
  }

  /// An optional positive integer: absent or null leaves `out` empty.
  void optional(StringRef key, std::optional<int64_t> &out) {
    const json::Value *value = object.get(key);
    if (!value || value->kind() == json::Value::Null)
      return;
    int64_t v = 0;
    if (readInt(key, *value, v, /*allowZero=*/false))
      out = v;
  }

  void optionalNumber(StringRef key, double &out) {
    const json::Value *value = object.get(key);
    if (!value)
      return;
    std::optional<double> v = value->getAsNumber();
    if (!v || !(*v > 0.0))
      return fail(key, "expected a positive number");
    out = *v;
  }

  void fail(StringRef key, const Twine &why) {
    if (!error)
      error =
          formatv("{0}: field '{1}{2}': {3}", fileName, prefix, key, why.str())
              .str();
  }

  std::optional<std::string> error;

private:
  bool readInt(StringRef key, const json::Value &value, int64_t &out,
               bool allowZero) {
    std::optional<int64_t> v = value.getAsInteger();
    if (!v) {
      fail(key, "expected an integer");
      return false;
    }
    if (*v < 0 || (*v == 0 && !allowZero)) {
      fail(key, formatv("expected a {0} integer, got {1}",
                        allowZero ? "non-negative" : "positive", *v));
      return false;
    }
    out = *v;
    return true;
  }

  const json::Object &object;
  StringRef fileName, prefix;
};
} // namespace

Expected<ModelConfig> parseModelConfig(StringRef text, StringRef fileName) {
  Expected<json::Value> parsed = json::parse(text);
  if (!parsed)
    return createStringError(inconvertibleErrorCode(), "%s: invalid JSON: %s",
                             fileName.str().c_str(),
                             toString(parsed.takeError()).c_str());
  const json::Object *root = parsed->getAsObject();
  if (!root)
    return createStringError(inconvertibleErrorCode(),
                             "%s: expected a JSON object at the top level",
                             fileName.str().c_str());

  ModelConfig c;
  FieldReader r(*root, fileName, "");
  r.required("hidden_size", c.hiddenSize);
  r.required("num_hidden_layers", c.numHiddenLayers);
  r.required("num_attention_heads", c.numAttentionHeads);
  r.optional("q_lora_rank", c.qLoraRank);
  r.required("kv_lora_rank", c.kvLoraRank);
  r.required("qk_nope_head_dim", c.qkNopeHeadDim);
  r.required("qk_rope_head_dim", c.qkRopeHeadDim);
  r.required("v_head_dim", c.vHeadDim);
  r.required("intermediate_size", c.intermediateSize);
  r.required("moe_intermediate_size", c.moeIntermediateSize);
  r.required("n_shared_experts", c.nSharedExperts, /*allowZero=*/true);
  r.required("n_routed_experts", c.nRoutedExperts, /*allowZero=*/true);
  r.required("num_experts_per_tok", c.numExpertsPerTok, /*allowZero=*/true);
  r.required("first_k_dense_replace", c.firstKDenseReplace,
             /*allowZero=*/true);
  r.optional("index_n_heads", c.indexNHeads);
  r.optional("index_head_dim", c.indexHeadDim);
  r.optionalNumber("rms_norm_eps", c.rmsNormEps);
  if (r.error)
    return createStringError(inconvertibleErrorCode(), "%s", r.error->c_str());

  const json::Object *quant = root->getObject("quantization_config");
  if (!quant)
    return createStringError(inconvertibleErrorCode(),
                             "%s: field 'quantization_config': missing (fp8q "
                             "compiles block-FP8 checkpoints)",
                             fileName.str().c_str());
  FieldReader q(*quant, fileName, "quantization_config.");
  if (std::optional<StringRef> method = quant->getString("quant_method");
      method && *method != "fp8")
    q.fail("quant_method", formatv("expected \"fp8\", got \"{0}\"", *method));
  const json::Array *block = quant->getArray("weight_block_size");
  if (!block)
    q.fail("weight_block_size", "missing");
  else if (block->size() != 2 || !(*block)[0].getAsInteger() ||
           !(*block)[1].getAsInteger())
    q.fail("weight_block_size", "expected [N, K] integers");
  else {
    c.blockN = *(*block)[0].getAsInteger();
    c.blockK = *(*block)[1].getAsInteger();
    if (c.blockN != 128 || c.blockK != 128)
      q.fail("weight_block_size",
             formatv("fp8q supports [128, 128] blocks, got [{0}, {1}]",
                     c.blockN, c.blockK));
  }
  if (q.error)
    return createStringError(inconvertibleErrorCode(), "%s", q.error->c_str());

  // Cross-field rules.
  auto fail = [&](StringRef field, const Twine &why) -> Error {
    return createStringError(inconvertibleErrorCode(), "%s: field '%s': %s",
                             fileName.str().c_str(), field.str().c_str(),
                             why.str().c_str());
  };
  if (c.indexNHeads.has_value() != c.indexHeadDim.has_value())
    return fail(c.indexNHeads ? "index_head_dim" : "index_n_heads",
                "the indexer needs both index_n_heads and index_head_dim");
  if (c.firstKDenseReplace > c.numHiddenLayers)
    return fail("first_k_dense_replace",
                formatv("{0} exceeds num_hidden_layers = {1}",
                        c.firstKDenseReplace, c.numHiddenLayers));
  if (c.numExpertsPerTok > c.nRoutedExperts)
    return fail("num_experts_per_tok",
                formatv("{0} exceeds n_routed_experts = {1}",
                        c.numExpertsPerTok, c.nRoutedExperts));
  if (c.hiddenSize % c.blockK != 0)
    return fail(
        "hidden_size",
        formatv("{0} is not a multiple of the 128-wide block", c.hiddenSize));
  return c;
}

} // namespace fp8q
