//===- ModelConfig.cpp - Decoder dimensions from a config.json ------------===//

#include "fp8q/ModelGen/ModelConfig.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cmath>

using namespace llvm;

namespace fp8q {
namespace {
/// "a string", "an array", ... for "expected X, got Y" messages.
StringRef kindName(const json::Value &value) {
  switch (value.kind()) {
  case json::Value::Null:
    return "null";
  case json::Value::Boolean:
    return "a boolean";
  case json::Value::Number:
    return "a number";
  case json::Value::String:
    return "a string";
  case json::Value::Array:
    return "an array";
  case json::Value::Object:
    return "an object";
  }
  llvm_unreachable("unknown JSON kind");
}

/// What a wrong value is: its JSON type, and a number's value.
std::string describe(const json::Value &value) {
  if (value.kind() == json::Value::Number)
    return formatv("a number ({0})", value).str();
  return kindName(value).str();
}

/// Reads fields of one JSON object, remembering the first error.
class FieldReader {
public:
  FieldReader(const json::Object &object, StringRef fileName, StringRef prefix)
      : object(object), fileName(fileName), prefix(prefix) {}

  /// A required integer in [1, max] (or [0, max] when `allowZero`).
  void required(StringRef key, int64_t &out, int64_t max,
                bool allowZero = false) {
    const json::Value *value = object.get(key);
    if (!value)
      return fail(key, "missing");
    readInt(key, *value, out, max, allowZero);
  }

  /// An optional integer in [1, max]: absent or null leaves `out` empty.
  void optional(StringRef key, std::optional<int64_t> &out, int64_t max) {
    const json::Value *value = object.get(key);
    if (!value || value->kind() == json::Value::Null)
      return;
    int64_t v = 0;
    if (readInt(key, *value, v, max, /*allowZero=*/false))
      out = v;
  }

  /// An optional number in (0, 1).
  void optionalFraction(StringRef key, double &out) {
    const json::Value *value = object.get(key);
    if (!value)
      return;
    std::optional<double> v = value->getAsNumber();
    if (!v || !std::isfinite(*v) || !(*v > 0.0 && *v < 1.0))
      return fail(key, "expected a positive number below 1, got " +
                           describe(*value));
    out = *v;
  }

  /// An optional string field: absent (or of another type, after an
  /// error) gives nullopt.
  std::optional<StringRef> string(StringRef key) {
    const json::Value *value = object.get(key);
    if (!value)
      return std::nullopt;
    std::optional<StringRef> s = value->getAsString();
    if (!s)
      fail(key, "expected a string, got " + describe(*value));
    return s;
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
               int64_t max, bool allowZero) {
    StringRef sign = allowZero ? "non-negative" : "positive";
    std::optional<int64_t> v = value.getAsInteger();
    if (!v) {
      // An integral number beyond int64 is out of range, not of wrong type.
      std::optional<double> d = value.getAsNumber();
      if (d && std::isfinite(*d) && std::trunc(*d) == *d)
        fail(key, formatv("expected a {0} integer of at most {1}, got {2}",
                          sign, max, value));
      else
        fail(key, "expected an integer, got " + describe(value));
      return false;
    }
    if (*v < 0 || (*v == 0 && !allowZero)) {
      fail(key, formatv("expected a {0} integer, got {1}", sign, *v));
      return false;
    }
    if (*v > max) {
      fail(key, formatv("expected a {0} integer of at most {1}, got {2}", sign,
                        max, *v));
      return false;
    }
    out = *v;
    return true;
  }

  const json::Object &object;
  StringRef fileName, prefix;
};

/// The `architectures` entries of the supported model types.
constexpr std::pair<StringRef, StringRef> kArchitectures[] = {
    {"DeepseekV3ForCausalLM", "deepseek_v3"},
    {"DeepseekV32ForCausalLM", "deepseek_v32"},
    {"GlmMoeDsaForCausalLM", "glm_moe_dsa"},
};

bool isSupportedModelType(StringRef type) {
  return StringSwitch<bool>(type)
      .Cases({"deepseek_v3", "deepseek_v32", "kimi_k2", "glm_moe_dsa"}, true)
      .Default(false);
}

/// Model types with a sparse-attention indexer.
bool hasIndexer(StringRef type) {
  return type == "deepseek_v32" || type == "glm_moe_dsa";
}

/// Why a well-known model type is not supported ("" if not well known).
StringRef unsupportedReason(StringRef type) {
  return StringSwitch<StringRef>(type)
      .Cases({"glm4_moe", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe",
              "qwen3_next", "minimax_m2", "llama", "llama4", "mistral",
              "mixtral", "gpt_oss"},
             "grouped-query attention")
      .Default("");
}

/// Reads model_type, or the model type `architectures` names; "" when
/// both are absent (the fields alone then describe the decoder).
Expected<std::string> readModelType(const json::Object &root,
                                    StringRef fileName) {
  auto error = [&](const Twine &message) {
    return createStringError(inconvertibleErrorCode(), "%s: %s",
                             fileName.str().c_str(), message.str().c_str());
  };
  if (const json::Value *value = root.get("model_type")) {
    std::optional<StringRef> type = value->getAsString();
    if (!type)
      return error("field 'model_type': expected a string, got " +
                   describe(*value));
    if (isSupportedModelType(*type))
      return type->str();
    StringRef reason = unsupportedReason(*type);
    std::string why = reason.empty() ? "" : (" (" + reason + ")").str();
    return error(formatv("model_type '{0}' is not supported{1}; supported: {2} "
                         "(MLA + MoE decoders)",
                         *type, why, kSupportedModelTypes));
  }
  const json::Value *value = root.get("architectures");
  if (!value)
    return std::string();
  const json::Array *list = value->getAsArray();
  if (!list)
    return error("field 'architectures': expected an array, got " +
                 describe(*value));
  if (list->empty())
    return std::string();
  std::optional<StringRef> arch = list->front().getAsString();
  if (!arch)
    return error("field 'architectures': expected strings, got " +
                 describe(list->front()));
  for (auto [name, type] : kArchitectures)
    if (*arch == name)
      return type.str();
  std::string supported;
  for (auto [name, type] : kArchitectures)
    supported += (supported.empty() ? "" : ", ") + name.str();
  return error(formatv("architectures '{0}' is not supported (and model_type "
                       "is absent); supported: {1}, or model_type {2}",
                       *arch, supported, kSupportedModelTypes));
}
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
  Expected<std::string> modelType = readModelType(*root, fileName);
  if (!modelType)
    return modelType.takeError();
  c.modelType = std::move(*modelType);

  FieldReader r(*root, fileName, "");
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
    return createStringError(inconvertibleErrorCode(), "%s", r.error->c_str());

  const json::Value *quantValue = root->get("quantization_config");
  if (!quantValue)
    return createStringError(inconvertibleErrorCode(),
                             "%s: field 'quantization_config': missing (fp8q "
                             "compiles block-FP8 checkpoints)",
                             fileName.str().c_str());
  const json::Object *quant = quantValue->getAsObject();
  if (!quant)
    return createStringError(
        inconvertibleErrorCode(),
        "%s: field 'quantization_config': expected an object, got %s",
        fileName.str().c_str(), describe(*quantValue).c_str());
  FieldReader q(*quant, fileName, "quantization_config.");
  std::optional<StringRef> method = q.string("quant_method");
  if (!method && !quant->get("quant_method"))
    q.fail("quant_method", "missing (fp8q compiles block-FP8 checkpoints: "
                           "quant_method \"fp8\")");
  else if (method && *method != "fp8")
    q.fail("quant_method",
           formatv("fp8q supports \"fp8\" (block-FP8 checkpoints), got "
                   "\"{0}\"",
                   *method));
  if (std::optional<StringRef> fmt = q.string("fmt"); fmt && *fmt != "e4m3")
    q.fail("fmt",
           formatv("fp8q supports \"e4m3\" (FP8 E4M3 weights), got \"{0}\"",
                   *fmt));
  if (std::optional<StringRef> scheme = q.string("activation_scheme");
      scheme && *scheme != "dynamic")
    q.fail("activation_scheme",
           formatv("fp8q supports \"dynamic\" (activation scales computed per "
                   "1x128 group at run time), got \"{0}\"",
                   *scheme));
  const json::Value *blockValue = quant->get("weight_block_size");
  const json::Array *block = blockValue ? blockValue->getAsArray() : nullptr;
  if (!blockValue)
    q.fail("weight_block_size", "missing");
  else if (!block)
    q.fail("weight_block_size",
           "expected an array [N, K], got " + describe(*blockValue));
  else if (block->size() != 2 || !(*block)[0].getAsInteger() ||
           !(*block)[1].getAsInteger())
    q.fail("weight_block_size",
           formatv("expected [N, K] integers, got {0}", *blockValue));
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
  if (hasIndexer(c.modelType) && !c.indexNHeads)
    return fail("index_n_heads",
                formatv("missing (model_type '{0}' has a sparse-attention "
                        "indexer: index_n_heads and index_head_dim)",
                        c.modelType));
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
