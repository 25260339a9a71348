//===- ModelConfig.cpp - Decoder dimensions from a config.json ------------===//

#include "ConfigReader.h"

#include "llvm/ADT/STLExtras.h"

using namespace llvm;

namespace fp8q {
namespace modelgen {
namespace {
/// Every family, in the order supportedModelTypes() lists them.
const Family *const kFamilies[] = {&kMlaFamily,       &kGlm4MoeFamily,
                                   &kQwen3Family,     &kQwen3MoeFamily,
                                   &kMiniMaxM2Family, &kLlamaFamily};

const Family *familyOfType(StringRef type) {
  for (const Family *f : kFamilies)
    if (llvm::is_contained(f->modelTypes, type))
      return f;
  return nullptr;
}

std::string supportedArchitectures() {
  std::string list;
  for (const Family *f : kFamilies)
    for (auto [name, type] : f->architectures)
      list += (list.empty() ? "" : ", ") + name.str();
  return list;
}

/// Reads model_type, or the model type `architectures` names; "" when
/// both are absent (the MLA fields alone then describe the decoder).
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
    if (familyOfType(*type))
      return type->str();
    return error(formatv("model_type '{0}' is not supported; supported: {1}",
                         *type, supportedModelTypes()));
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
  for (const Family *f : kFamilies)
    for (auto [name, type] : f->architectures)
      if (*arch == name)
        return type.str();
  return error(formatv("architectures '{0}' is not supported (and model_type "
                       "is absent); supported: {1}, or model_type {2}",
                       *arch, supportedArchitectures(), supportedModelTypes()));
}
} // namespace
} // namespace modelgen

using namespace modelgen;

std::string supportedModelTypes() {
  std::string list;
  for (const Family *f : kFamilies)
    for (StringRef t : f->modelTypes)
      list += (list.empty() ? "" : ", ") + t.str();
  return list;
}

bool ModelConfig::isMoeLayer(int64_t l) const {
  if (!hasMoe || l < firstKDenseReplace)
    return false;
  if (llvm::is_contained(mlpOnlyLayers, l))
    return false;
  return (l + 1) % decoderSparseStep == 0;
}

bool ModelConfig::keepsBf16(StringRef name) const {
  for (StringRef entry : modulesToNotConvert) {
    if (entry.consume_front("model."); entry == name)
      return true;
    if (name.ends_with(entry) && (name.size() == entry.size() ||
                                  name[name.size() - entry.size() - 1] == '.'))
      return true;
  }
  return false;
}

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
  // An MLA decoder when neither model_type nor architectures names one.
  const Family *family =
      c.modelType.empty() ? &kMlaFamily : familyOfType(c.modelType);
  // The family's cross-field error comes after quantization_config's.
  std::string familyError;
  if (Error e = family->read(r, c, fileName))
    familyError = toString(std::move(e));
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
  // MiniMax-M2 spells E4M3 as torch does.
  if (std::optional<StringRef> fmt = q.string("fmt");
      fmt && *fmt != "e4m3" && *fmt != "float8_e4m3fn")
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
  q.stringList("modules_to_not_convert", c.modulesToNotConvert);
  if (q.error)
    return createStringError(inconvertibleErrorCode(), "%s", q.error->c_str());
  if (!familyError.empty())
    return createStringError(inconvertibleErrorCode(), "%s",
                             familyError.c_str());

  // Cross-field rules.
  auto fail = [&](StringRef field, const Twine &why) -> Error {
    return createStringError(inconvertibleErrorCode(), "%s: field '%s': %s",
                             fileName.str().c_str(), field.str().c_str(),
                             why.str().c_str());
  };
  if (c.firstKDenseReplace > c.numHiddenLayers)
    return fail("first_k_dense_replace",
                formatv("{0} exceeds num_hidden_layers = {1}",
                        c.firstKDenseReplace, c.numHiddenLayers));
  if (c.numExpertsPerTok > c.nRoutedExperts)
    return fail("num_experts_per_tok",
                formatv("{0} exceeds {1} = {2}", c.numExpertsPerTok,
                        c.expertsField, c.nRoutedExperts));
  if (c.hiddenSize % c.blockK != 0)
    return fail(
        "hidden_size",
        formatv("{0} is not a multiple of the 128-wide block", c.hiddenSize));
  for (int64_t l : c.mlpOnlyLayers)
    if (l >= c.numHiddenLayers)
      return fail("mlp_only_layers",
                  formatv("layer {0} is past num_hidden_layers = {1}", l,
                          c.numHiddenLayers));
  return c;
}

} // namespace fp8q
