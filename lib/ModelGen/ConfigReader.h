//===- ConfigReader.h - Field readers shared by the family parsers -*- C++
//-*-===//
//
// Private to lib/ModelGen: the JSON field reader every family parser uses,
// and the family registry entry type.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_LIB_MODELGEN_CONFIGREADER_H
#define FP8Q_LIB_MODELGEN_CONFIGREADER_H

#include "fp8q/ModelGen/ModelConfig.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cmath>

namespace fp8q {
namespace modelgen {
using namespace llvm;

/// "a string", "an array", ... for "expected X, got Y" messages.
inline StringRef kindName(const json::Value &value) {
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
inline std::string describe(const json::Value &value) {
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

  /// An optional integer in [1, max] (or [0, max]): absent or null keeps
  /// `out`'s default.
  void optionalInt(StringRef key, int64_t &out, int64_t max,
                   bool allowZero = false) {
    const json::Value *value = object.get(key);
    if (!value || value->kind() == json::Value::Null)
      return;
    readInt(key, *value, out, max, allowZero);
  }

  /// An optional boolean: absent or null keeps `out`'s default.
  void optionalBool(StringRef key, bool &out) {
    const json::Value *value = object.get(key);
    if (!value || value->kind() == json::Value::Null)
      return;
    std::optional<bool> v = value->getAsBoolean();
    if (!v)
      return fail(key, "expected a boolean, got " + describe(*value));
    out = *v;
  }

  /// An optional array of integers in [0, max].
  void intList(StringRef key, std::vector<int64_t> &out, int64_t max) {
    const json::Value *value = object.get(key);
    if (!value || value->kind() == json::Value::Null)
      return;
    const json::Array *list = value->getAsArray();
    if (!list)
      return fail(key,
                  "expected an array of integers, got " + describe(*value));
    for (const json::Value &item : *list) {
      int64_t v = 0;
      if (!readInt(key, item, v, max, /*allowZero=*/true))
        return;
      out.push_back(v);
    }
  }

  /// An optional array of strings.
  void stringList(StringRef key, std::vector<std::string> &out) {
    const json::Value *value = object.get(key);
    if (!value || value->kind() == json::Value::Null)
      return;
    const json::Array *list = value->getAsArray();
    if (!list)
      return fail(key, "expected an array of strings, got " + describe(*value));
    for (const json::Value &item : *list) {
      std::optional<StringRef> v = item.getAsString();
      if (!v)
        return fail(key, "expected an array of strings, got an element " +
                             describe(item));
      out.push_back(v->str());
    }
  }

  bool has(StringRef key) const { return object.get(key) != nullptr; }

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

/// One model family: its model_type values, the `architectures` names that
/// select it without a model_type, and the reader of its size fields (after
/// model_type; quantization_config is read for every family afterwards).
struct Family {
  ArrayRef<StringRef> modelTypes;
  /// (architectures[0], model_type) pairs.
  ArrayRef<std::pair<StringRef, StringRef>> architectures;
  /// Reads the family's fields into `c` (c.modelType is already set); errors
  /// go through `r`. Cross-field rules return an Error naming the field.
  Error (*read)(FieldReader &r, ModelConfig &c, StringRef fileName);
};

/// An Error "<file>: field '<field>': <why>".
inline Error fieldError(StringRef fileName, StringRef field, const Twine &why) {
  return createStringError(inconvertibleErrorCode(), "%s: field '%s': %s",
                           fileName.str().c_str(), field.str().c_str(),
                           why.str().c_str());
}

/// The families, in the order their names are listed (Families/*.cpp).
extern const Family kMlaFamily, kGlm4MoeFamily, kQwen3Family, kQwen3MoeFamily,
    kMiniMaxM2Family, kLlamaFamily;

/// Shared by the GQA families: hidden_size, num_hidden_layers,
/// num_attention_heads, num_key_value_heads, head_dim (default
/// hidden_size / num_attention_heads) and rms_norm_eps.
Error readGqaAttention(FieldReader &r, ModelConfig &c, StringRef fileName);

} // namespace modelgen
} // namespace fp8q

#endif // FP8Q_LIB_MODELGEN_CONFIGREADER_H
