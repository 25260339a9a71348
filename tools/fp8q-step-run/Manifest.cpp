//===- Manifest.cpp - An fp8q artifact's manifest, without MLIR -----------===//

#include "Manifest.h"

#include <cstdlib>
#include <map>
#include <memory>

namespace fp8q::steprun {
namespace {

/// A JSON value: just what the manifest uses.
struct Value {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Value> array;
  std::map<std::string, Value> object;

  const Value *get(const std::string &key) const {
    auto it = object.find(key);
    return kind == Object && it != object.end() ? &it->second : nullptr;
  }
};

/// Recursive-descent JSON parser over a string.
class Parser {
public:
  explicit Parser(const std::string &text) : text(text) {}

  bool parse(Value &value, std::string &error) {
    if (!parseValue(value) || (skipSpace(), pos != text.size())) {
      error = "malformed JSON at offset " + std::to_string(pos);
      return false;
    }
    return true;
  }

private:
  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\n' ||
                                 text[pos] == '\t' || text[pos] == '\r'))
      ++pos;
  }
  bool consume(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool literal(const char *word) {
    size_t n = std::char_traits<char>::length(word);
    if (text.compare(pos, n, word) != 0)
      return false;
    pos += n;
    return true;
  }
  bool parseString(std::string &out) {
    if (!consume('"'))
      return false;
    while (pos < text.size() && text[pos] != '"') {
      char c = text[pos++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos >= text.size())
        return false;
      char e = text[pos++];
      if (e == 'u') {
        if (pos + 4 > text.size())
          return false;
        out += char(std::strtol(text.substr(pos, 4).c_str(), nullptr, 16));
        pos += 4;
      } else {
        out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
      }
    }
    return consume('"');
  }
  bool parseValue(Value &value) {
    skipSpace();
    if (pos >= text.size())
      return false;
    char c = text[pos];
    if (c == '"') {
      value.kind = Value::String;
      return parseString(value.string);
    }
    if (c == '{') {
      value.kind = Value::Object;
      ++pos;
      if (consume('}'))
        return true;
      do {
        std::string key;
        skipSpace();
        if (!parseString(key) || !consume(':') ||
            !parseValue(value.object[key]))
          return false;
      } while (consume(','));
      return consume('}');
    }
    if (c == '[') {
      value.kind = Value::Array;
      ++pos;
      if (consume(']'))
        return true;
      do {
        value.array.emplace_back();
        if (!parseValue(value.array.back()))
          return false;
      } while (consume(','));
      return consume(']');
    }
    if (literal("true") || literal("false")) {
      value.kind = Value::Bool;
      value.boolean = text[pos - 1] == 'e' && text[pos - 2] == 'u';
      return true;
    }
    if (literal("null"))
      return true;
    char *end;
    value.number = std::strtod(text.c_str() + pos, &end);
    if (end == text.c_str() + pos)
      return false;
    value.kind = Value::Number;
    pos = end - text.c_str();
    return true;
  }

  const std::string &text;
  size_t pos = 0;
};

bool readTensors(const Value *list, std::vector<TensorSpec> &out) {
  if (!list || list->kind != Value::Array)
    return false;
  for (const Value &item : list->array) {
    const Value *type = item.get("type"), *shape = item.get("shape"),
                *layout = item.get("layout");
    if (!type || type->kind != Value::String || !shape ||
        shape->kind != Value::Array ||
        (layout && layout->kind != Value::String))
      return false;
    TensorSpec tensor{type->string, {}, layout ? layout->string : ""};
    for (const Value &size : shape->array) {
      if (size.kind != Value::Number)
        return false;
      tensor.shape.push_back(int64_t(size.number));
    }
    out.push_back(std::move(tensor));
  }
  return true;
}

/// Reads the prepare fields of an entry; false if they are malformed.
bool readPrepare(const Value &item, Entry &entry) {
  const Value *prepare = item.get("prepare"),
              *prepared = item.get("prepared_args"),
              *prepares = item.get("prepares");
  if (bool(prepare) != bool(prepared) ||
      (prepare &&
       (prepare->kind != Value::String || prepared->kind != Value::Array)) ||
      (prepares && prepares->kind != Value::String))
    return false;
  if (prepares)
    entry.prepares = prepares->string;
  if (!prepare)
    return true;
  entry.prepare = prepare->string;
  for (const Value &index : prepared->array) {
    if (index.kind != Value::Number)
      return false;
    entry.preparedArgs.push_back(int64_t(index.number));
  }
  return true;
}

/// Checks `step`'s prepare entry against it and fills its originalArgs.
bool linkPrepare(const Manifest &manifest, Entry &step, std::string &error) {
  step.originalArgs = step.args;
  if (step.prepare.empty())
    return true;
  std::string where = "entry '" + step.name + "': ";
  const Entry *prepare = manifest.find(step.prepare);
  if (!prepare || prepare->prepares != step.name) {
    error = where + "its prepare entry '" + step.prepare + "' is " +
            (prepare ? "not marked as preparing '" + step.name + "'"
                     : std::string("not in the manifest")) +
            " (recompile the artifact with fp8q-compile)";
    return false;
  }
  size_t count = step.preparedArgs.size();
  if (prepare->args.size() != count || prepare->results.size() != count) {
    error = where + "prepared_args names " + std::to_string(count) +
            " arguments, but '" + prepare->name + "' takes " +
            std::to_string(prepare->args.size()) + " and returns " +
            std::to_string(prepare->results.size());
    return false;
  }
  for (size_t j = 0; j < count; ++j) {
    int64_t index = step.preparedArgs[j];
    int64_t previous = j ? step.preparedArgs[j - 1] : -1;
    if (index <= previous || index >= int64_t(step.args.size())) {
      error = where + "prepared argument index " + std::to_string(index) +
              " (prepared_args #" + std::to_string(j) +
              ") is not ascending or not below its " +
              std::to_string(step.args.size()) + " arguments";
      return false;
    }
    if (!sameTensor(prepare->results[j], step.args[index])) {
      error = where + "argument #" + std::to_string(index) + " is " +
              describe(step.args[index]) + ", but '" + prepare->name +
              "' returns " + describe(prepare->results[j]) + " for it";
      return false;
    }
    step.originalArgs[index] = prepare->args[j];
  }
  return true;
}

} // namespace

bool sameTensor(const TensorSpec &a, const TensorSpec &b) {
  return a.type == b.type && a.shape == b.shape && a.layout == b.layout;
}

const Entry *Manifest::find(const std::string &name) const {
  for (const Entry &entry : entries)
    if (entry.name == name)
      return &entry;
  return nullptr;
}

bool parseManifest(const std::string &json, Manifest &manifest,
                   std::string &error) {
  Value root;
  if (!Parser(json).parse(root, error))
    return false;
  const Value *format = root.get("format");
  if (!format || format->string != "fp8q-artifact") {
    error = "not an fp8q-artifact manifest";
    return false;
  }
  const Value *execution = root.get("execution"), *target = root.get("target"),
              *entries = root.get("entries");
  if (!execution || !entries || entries->kind != Value::Array) {
    error = "the manifest lacks 'execution' or 'entries'";
    return false;
  }
  manifest.execution = execution->string;
  manifest.target = target ? target->string : "";
  if (const Value *ranks = root.get("collective_ranks")) {
    if (ranks->kind != Value::Number || ranks->number < 1 ||
        ranks->number > 1024 || ranks->number != int64_t(ranks->number)) {
      error = "'collective_ranks' must be an integer from 1 to 1024";
      return false;
    }
    manifest.collectiveRanks = int64_t(ranks->number);
  }
  for (const Value &item : entries->array) {
    Entry entry;
    const Value *name = item.get("name"), *symbol = item.get("symbol"),
                *stream = item.get("stream");
    if (!name || !symbol || !readTensors(item.get("args"), entry.args) ||
        !readTensors(item.get("results"), entry.results) ||
        !readPrepare(item, entry)) {
      error = "malformed entry in the manifest";
      return false;
    }
    entry.name = name->string;
    entry.symbol = symbol->string;
    entry.stream = stream && stream->boolean;
    manifest.entries.push_back(std::move(entry));
  }
  for (Entry &entry : manifest.entries)
    if (!linkPrepare(manifest, entry, error))
      return false;
  return true;
}

std::string describe(const TensorSpec &tensor) {
  std::string text = tensor.type + "[";
  for (size_t d = 0; d < tensor.shape.size(); ++d)
    text += (d ? "x" : "") + (tensor.shape[d] < 0
                                  ? std::string("?")
                                  : std::to_string(tensor.shape[d]));
  text += "]";
  if (!tensor.layout.empty())
    text += " " + tensor.layout;
  return text;
}

} // namespace fp8q::steprun
