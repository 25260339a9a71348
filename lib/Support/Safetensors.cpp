//===- Safetensors.cpp - Safetensors headers and checkpoints --------------===//

#include "fp8q/Support/Safetensors.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <tuple>

using namespace llvm;

namespace fp8q {

/// The largest header safetensors itself accepts (100 MB).
static constexpr uint64_t kMaxHeaderBytes = 100'000'000;

unsigned safetensorsDTypeBits(StringRef dtype) {
  return StringSwitch<unsigned>(dtype)
      .Cases({"F64", "I64", "U64"}, 64)
      .Cases({"F32", "I32", "U32"}, 32)
      .Cases({"F16", "BF16", "I16", "U16"}, 16)
      .Cases({"F8_E4M3", "F8_E5M2", "F8_E8M0", "I8", "U8", "BOOL"}, 8)
      .Case("F4", 4)
      .Default(0);
}

std::string knownSafetensorsDTypes() {
  return "F64, F32, F16, BF16, F8_E4M3, F8_E5M2, F8_E8M0, F4, I64, I32, "
         "I16, I8, U64, U32, U16, U8, BOOL";
}

int64_t SafetensorsTensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

ArrayRef<uint8_t> SafetensorsFile::bytes(const SafetensorsTensor &t) const {
  if (!buffer)
    return {};
  const auto *data =
      reinterpret_cast<const uint8_t *>(buffer->getBufferStart()) + dataStart;
  return ArrayRef<uint8_t>(data + t.begin, data + t.end);
}

static Error error(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

/// "<file>: tensor '<name>': <what>".
static Error tensorError(StringRef file, StringRef name, const Twine &what) {
  return error(file + ": tensor '" + name + "': " + what);
}

/// Reads a non-negative integer of a JSON array; false if it is not one.
static bool readCount(const json::Value &value, uint64_t max, uint64_t &out) {
  std::optional<int64_t> v = value.getAsInteger();
  if (!v) {
    // Offsets beyond INT64_MAX parse as unsigned.
    std::optional<uint64_t> u = value.getAsUINT64();
    if (!u)
      return false;
    v = static_cast<int64_t>(std::min<uint64_t>(*u, INT64_MAX));
  }
  if (*v < 0 || static_cast<uint64_t>(*v) > max)
    return false;
  out = static_cast<uint64_t>(*v);
  return true;
}

/// Parses one entry {dtype, shape, data_offsets} of a header.
static Expected<SafetensorsTensor> parseEntry(StringRef file, StringRef name,
                                              const json::Value &value,
                                              uint64_t dataBytes) {
  const json::Object *entry = value.getAsObject();
  if (!entry)
    return tensorError(file, name,
                       "expected an object {dtype, shape, data_offsets}; the "
                       "header is not a safetensors header");
  SafetensorsTensor t;
  t.name = name.str();
  std::optional<StringRef> dtype = entry->getString("dtype");
  if (!dtype)
    return tensorError(file, name, "missing string field 'dtype'");
  t.dtype = dtype->str();
  unsigned bits = safetensorsDTypeBits(*dtype);
  if (bits == 0)
    return tensorError(file, name,
                       "unknown dtype '" + *dtype +
                           "' (known: " + knownSafetensorsDTypes() + ")");
  const json::Array *shape = entry->getArray("shape");
  if (!shape)
    return tensorError(file, name, "missing array field 'shape'");
  // Elements are bounded by the data bytes (checked below), so bounding
  // each dimension and the running product by 2^62 cannot overflow.
  constexpr uint64_t kMaxElements = uint64_t(1) << 62;
  uint64_t elements = 1;
  for (const json::Value &d : *shape) {
    uint64_t size;
    if (!readCount(d, kMaxElements, size))
      return tensorError(file, name,
                         "shape holds " + formatv("{0}", d).str() +
                             ", not a non-negative integer");
    t.shape.push_back(static_cast<int64_t>(size));
    if (size != 0 && elements > kMaxElements / size)
      return tensorError(file, name, "shape has more than 2^62 elements");
    elements *= size;
  }
  const json::Array *offsets = entry->getArray("data_offsets");
  if (!offsets || offsets->size() != 2)
    return tensorError(file, name,
                       "missing field 'data_offsets' ([begin, end])");
  if (!readCount((*offsets)[0], UINT64_MAX, t.begin) ||
      !readCount((*offsets)[1], UINT64_MAX, t.end))
    return tensorError(file, name,
                       "data_offsets must be two non-negative integers");
  if (t.begin > t.end)
    return tensorError(file, name,
                       formatv("data_offsets [{0}, {1}] end before they begin",
                               t.begin, t.end));
  if (t.end > dataBytes)
    return tensorError(
        file, name,
        formatv("data_offsets [{0}, {1}] end past the data section ({2} "
                "bytes after the header); the file is truncated or the "
                "header is wrong: re-download or re-write the shard",
                t.begin, t.end, dataBytes));
  // Bits, not bytes: F4 packs two elements per byte.
  uint64_t expectedBits = elements * bits;
  if (elements > UINT64_MAX / 64 || expectedBits % 8 != 0 ||
      expectedBits / 8 != t.end - t.begin) {
    std::string shapeText;
    raw_string_ostream os(shapeText);
    os << "[";
    interleaveComma(t.shape, os);
    os << "]";
    return tensorError(
        file, name,
        formatv("{0} {1} is {2} bytes, but data_offsets [{3}, {4}] hold {5}; "
                "the header's dtype, shape and offsets disagree",
                t.dtype, shapeText, expectedBits / 8, t.begin, t.end,
                t.end - t.begin));
  }
  return t;
}

Expected<std::vector<SafetensorsTensor>>
parseSafetensorsHeader(StringRef contents, StringRef fileName,
                       uint64_t &dataStart) {
  if (contents.size() < 8)
    return error(fileName + formatv(": truncated: {0} bytes, but a "
                                    "safetensors file starts with an 8-byte "
                                    "header length",
                                    contents.size()));
  uint64_t headerBytes = support::endian::read64le(contents.data());
  uint64_t available = contents.size() - 8;
  if (headerBytes > available)
    return error(fileName +
                 formatv(": header length {0} exceeds the {1} bytes after the "
                         "length field; the file is truncated or not a "
                         "safetensors file",
                         headerBytes, available));
  if (headerBytes > kMaxHeaderBytes)
    return error(fileName + formatv(": header length {0} exceeds the {1}-byte "
                                    "limit of the safetensors format",
                                    headerBytes, kMaxHeaderBytes));
  dataStart = 8 + headerBytes;
  uint64_t dataBytes = contents.size() - dataStart;
  Expected<json::Value> header = json::parse(contents.substr(8, headerBytes));
  if (!header)
    return error(fileName +
                 ": invalid JSON header: " + toString(header.takeError()));
  const json::Object *root = header->getAsObject();
  if (!root)
    return error(fileName + ": the header must be a JSON object {name: "
                            "{dtype, shape, data_offsets}}");
  std::vector<SafetensorsTensor> tensors;
  for (const auto &[key, value] : *root) {
    if (key == "__metadata__") {
      if (!value.getAsObject())
        return error(fileName + ": '__metadata__' must be an object");
      continue;
    }
    Expected<SafetensorsTensor> t = parseEntry(fileName, key, value, dataBytes);
    if (!t)
      return t.takeError();
    tensors.push_back(std::move(*t));
  }
  // json::Object is unordered: sort by name for stable messages, then look
  // for overlaps in offset order (empty tensors overlap nothing).
  llvm::sort(tensors,
             [](const SafetensorsTensor &a, const SafetensorsTensor &b) {
               return a.name < b.name;
             });
  std::vector<const SafetensorsTensor *> byOffset;
  for (const SafetensorsTensor &t : tensors)
    if (t.end > t.begin)
      byOffset.push_back(&t);
  llvm::sort(byOffset,
             [](const SafetensorsTensor *a, const SafetensorsTensor *b) {
               return std::tie(a->begin, a->name) < std::tie(b->begin, b->name);
             });
  for (size_t i = 1; i < byOffset.size(); ++i)
    if (byOffset[i]->begin < byOffset[i - 1]->end)
      return tensorError(
          fileName, byOffset[i]->name,
          formatv("data_offsets [{0}, {1}] overlap those of '{2}' [{3}, {4}]; "
                  "each tensor needs its own bytes: re-write the shard",
                  byOffset[i]->begin, byOffset[i]->end, byOffset[i - 1]->name,
                  byOffset[i - 1]->begin, byOffset[i - 1]->end));
  return tensors;
}

Expected<SafetensorsFile> readSafetensorsFile(StringRef path) {
  // Read-only and not volatile: large files are mmapped, never written.
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
      MemoryBuffer::getFile(path, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return error(path + ": cannot read: " + buffer.getError().message());
  SafetensorsFile file;
  file.path = path.str();
  Expected<std::vector<SafetensorsTensor>> tensors =
      parseSafetensorsHeader((*buffer)->getBuffer(), path, file.dataStart);
  if (!tensors)
    return tensors.takeError();
  file.tensors = std::move(*tensors);
  file.buffer = std::move(*buffer);
  return file;
}

const SafetensorsTensor *SafetensorsCheckpoint::lookup(StringRef name) const {
  auto it = byName.find(name);
  return it == byName.end() ? nullptr : &it->second;
}

std::vector<const SafetensorsTensor *> SafetensorsCheckpoint::tensors() const {
  std::vector<const SafetensorsTensor *> all;
  for (const auto &entry : byName)
    all.push_back(&entry.second);
  llvm::sort(all, [](const SafetensorsTensor *a, const SafetensorsTensor *b) {
    return a->name < b->name;
  });
  return all;
}

std::vector<std::string> SafetensorsCheckpoint::files() const {
  std::vector<std::string> all;
  if (!indexPath.empty())
    all.push_back(indexPath);
  for (const SafetensorsFile &shard : shards)
    all.push_back(shard.path);
  return all;
}

Expected<SafetensorsCheckpoint> SafetensorsCheckpoint::open(StringRef dir) {
  SafetensorsCheckpoint ckpt;
  ckpt.dir = dir.str();
  SmallString<256> indexPath(dir), singlePath(dir);
  sys::path::append(indexPath, "model.safetensors.index.json");
  sys::path::append(singlePath, "model.safetensors");

  // Adds the tensors of one shard; a name already seen is an error.
  auto addShard = [&](SafetensorsFile file) -> Error {
    unsigned index = ckpt.shards.size();
    for (SafetensorsTensor &t : file.tensors) {
      t.shard = index;
      auto [it, inserted] = ckpt.byName.try_emplace(t.name, t);
      if (!inserted)
        return tensorError(file.path, t.name,
                           "also stored in " +
                               ckpt.shards[it->second.shard].path +
                               "; a checkpoint holds each tensor once");
    }
    ckpt.shards.push_back(std::move(file));
    return Error::success();
  };

  if (!sys::fs::exists(indexPath)) {
    if (!sys::fs::exists(singlePath))
      return error(dir + ": neither model.safetensors.index.json nor "
                         "model.safetensors is there; pass the checkpoint "
                         "directory (the one holding config.json)");
    Expected<SafetensorsFile> file = readSafetensorsFile(singlePath);
    if (!file)
      return file.takeError();
    if (Error e = addShard(std::move(*file)))
      return std::move(e);
    return std::move(ckpt);
  }

  ckpt.indexPath = std::string(indexPath);
  ErrorOr<std::unique_ptr<MemoryBuffer>> indexText =
      MemoryBuffer::getFile(indexPath, /*IsText=*/true);
  if (!indexText)
    return error(indexPath +
                 ": cannot read: " + indexText.getError().message());
  Expected<json::Value> index = json::parse((*indexText)->getBuffer());
  if (!index)
    return error(indexPath + ": invalid JSON: " + toString(index.takeError()));
  const json::Object *root = index->getAsObject();
  const json::Object *weightMap =
      root ? root->getObject("weight_map") : nullptr;
  if (!weightMap)
    return error(indexPath + ": missing object 'weight_map' ({tensor name: "
                             "shard file})");
  // Shards in order of first mention, each read once.
  StringMap<std::vector<std::string>> namesByShard;
  std::vector<std::string> shardOrder;
  std::vector<std::pair<std::string, std::string>> entries;
  for (const auto &[key, value] : *weightMap)
    entries.emplace_back(key.str(), "");
  llvm::sort(entries);
  for (auto &[name, shard] : entries) {
    std::optional<StringRef> file = weightMap->getString(name);
    if (!file)
      return tensorError(indexPath, name,
                         "weight_map value must be a shard file name");
    if (file->empty() || file->contains('/') || file->contains('\\') ||
        *file == "." || *file == "..")
      return tensorError(indexPath, name,
                         "shard '" + *file +
                             "' is not a file name in the checkpoint "
                             "directory");
    auto [it, inserted] = namesByShard.try_emplace(*file);
    if (inserted)
      shardOrder.push_back(file->str());
    it->second.push_back(name);
  }
  for (const std::string &shard : shardOrder) {
    SmallString<256> path(dir);
    sys::path::append(path, shard);
    const std::vector<std::string> &names = namesByShard[shard];
    if (!sys::fs::exists(path))
      return tensorError(indexPath, names.front(),
                         "its shard " + path +
                             " does not exist; download every shard the "
                             "index names");
    Expected<SafetensorsFile> file = readSafetensorsFile(path);
    if (!file)
      return file.takeError();
    StringMap<bool> present;
    for (const SafetensorsTensor &t : file->tensors)
      present[t.name] = true;
    for (const std::string &name : names)
      if (!present.count(name))
        return tensorError(indexPath, name,
                           "the index places it in " + path +
                               ", whose header does not hold it; the index "
                               "and the shard are from different versions");
    if (Error e = addShard(std::move(*file)))
      return std::move(e);
  }
  return std::move(ckpt);
}

} // namespace fp8q
