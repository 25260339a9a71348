//===- TunedShapes.cpp - Per-shape kernel routing tables ------------------===//

#include "fp8q/Target/TunedShapes.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace fp8q {

/// REFERENCE.md "Kernel routing": the gfx950 tuned Triton list, and the one
/// published ck safe maximum ((4608, 4096) -> M 512).
static constexpr StringLiteral kDefaultJson = R"json({
  "triton_tuned": [
    [1024, 8192], [16384, 1536], [2112, 7168], [3072, 1536], [32768, 8192],
    [4096, 7168], [4608, 7168], [512, 7168], [7168, 2048], [7168, 2304],
    [7168, 16384], [7168, 256], [8192, 1024], [8192, 32768]
  ],
  "ck_max_m": [
    {"n": 4608, "k": 4096, "max_m": 512}
  ]
}
)json";

std::optional<int64_t> TunedShapeTable::getCkMaxM(int64_t n, int64_t k) const {
  auto it = ckMaxM.find({n, k});
  if (it == ckMaxM.end())
    return std::nullopt;
  return it->second;
}

StringRef TunedShapeTable::getDefaultJson() { return kDefaultJson; }

const TunedShapeTable &TunedShapeTable::getDefault() {
  static const TunedShapeTable table =
      cantFail(parse(kDefaultJson, "<embedded default>"));
  return table;
}

namespace {
/// Builds errors that name the file and the entry being parsed.
struct TableParser {
  StringRef source;

  Error error(const Twine &entry, const Twine &message) const {
    return createStringError(inconvertibleErrorCode(),
                             formatv("tuned table '{0}': {1}: {2}", source,
                                     entry.str(), message.str())
                                 .str());
  }

  /// Reads a positive integer or fails naming `entry`.
  Expected<int64_t> positive(const json::Value *value,
                             const Twine &entry) const {
    std::optional<int64_t> number =
        value ? value->getAsInteger() : std::nullopt;
    if (!number || *number <= 0)
      return error(entry, "expected a positive integer");
    return *number;
  }
};
} // namespace

Expected<TunedShapeTable> TunedShapeTable::parse(StringRef json,
                                                 StringRef source) {
  TableParser p{source};
  Expected<json::Value> root = json::parse(json);
  if (!root)
    return p.error("<file>", "invalid JSON " + toString(root.takeError()));
  const json::Object *object = root->getAsObject();
  if (!object)
    return p.error("<root>", "expected a JSON object with keys "
                             "\"triton_tuned\" and \"ck_max_m\"");
  for (const auto &member : *object)
    if (member.first != "triton_tuned" && member.first != "ck_max_m")
      return p.error(member.first.str(),
                     "unknown key; expected \"triton_tuned\" or \"ck_max_m\"");

  TunedShapeTable table;
  if (const json::Value *list = object->get("triton_tuned")) {
    const json::Array *array = list->getAsArray();
    if (!array)
      return p.error("triton_tuned", "expected an array of [N, K] pairs");
    for (auto [i, entry] : llvm::enumerate(*array)) {
      std::string name = formatv("triton_tuned[{0}]", i);
      const json::Array *pair = entry.getAsArray();
      if (!pair || pair->size() != 2)
        return p.error(name, "expected an [N, K] pair of positive integers");
      Expected<int64_t> n = p.positive(&(*pair)[0], name + "[0] (N)");
      if (!n)
        return n.takeError();
      Expected<int64_t> k = p.positive(&(*pair)[1], name + "[1] (K)");
      if (!k)
        return k.takeError();
      table.tritonTuned.insert({*n, *k});
    }
  }
  if (const json::Value *list = object->get("ck_max_m")) {
    const json::Array *array = list->getAsArray();
    if (!array)
      return p.error("ck_max_m",
                     "expected an array of {\"n\", \"k\", \"max_m\"} objects");
    for (auto [i, entry] : llvm::enumerate(*array)) {
      std::string name = formatv("ck_max_m[{0}]", i);
      const json::Object *fields = entry.getAsObject();
      if (!fields)
        return p.error(name,
                       "expected an object {\"n\": N, \"k\": K, \"max_m\": M}");
      for (const auto &member : *fields)
        if (member.first != "n" && member.first != "k" &&
            member.first != "max_m")
          return p.error(name + "." + member.first.str(),
                         "unknown key; expected \"n\", \"k\" or \"max_m\"");
      Expected<int64_t> n = p.positive(fields->get("n"), name + ".n");
      if (!n)
        return n.takeError();
      Expected<int64_t> k = p.positive(fields->get("k"), name + ".k");
      if (!k)
        return k.takeError();
      Expected<int64_t> maxM =
          p.positive(fields->get("max_m"), name + ".max_m");
      if (!maxM)
        return maxM.takeError();
      if (!table.ckMaxM.try_emplace({*n, *k}, *maxM).second)
        return p.error(
            name,
            formatv("duplicate entry for [N, K] = [{0}, {1}]", *n, *k).str());
    }
  }
  return table;
}

Expected<TunedShapeTable> TunedShapeTable::loadFile(StringRef path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
      MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return createStringError(
        buffer.getError(),
        formatv("tuned table '{0}': cannot read the file: {1}", path,
                buffer.getError().message())
            .str());
  return parse((*buffer)->getBuffer(), path);
}

} // namespace fp8q
