//===- Safetensors.h - Safetensors headers and checkpoints ------*- C++ -*-===//
//
// Reads the metadata of a Hugging Face checkpoint: model.safetensors.index.json
// and the JSON header of each shard (8-byte little-endian header length N,
// N bytes of JSON {name: {dtype, shape, data_offsets}, "__metadata__": {}},
// then the data). Every check a loader relies on is made up front, so that a
// bad file is a located error (file, tensor, what is wrong, what to fix) and
// never an out-of-bounds read. Shards are mapped read-only; nothing here
// writes to them. LLVM Support only: no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_SUPPORT_SAFETENSORS_H
#define FP8Q_SUPPORT_SAFETENSORS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fp8q {

/// Bits per element of a safetensors dtype ("F8_E4M3" -> 8, "F4" -> 4), or
/// 0 for a dtype fp8q does not know.
unsigned safetensorsDTypeBits(llvm::StringRef dtype);

/// The dtypes safetensorsDTypeBits knows, comma-separated, for messages.
std::string knownSafetensorsDTypes();

/// One tensor of a shard, as its header describes it.
struct SafetensorsTensor {
  std::string name;
  std::string dtype;
  llvm::SmallVector<int64_t, 4> shape;
  /// data_offsets, relative to the start of the data (after the header).
  uint64_t begin = 0, end = 0;
  /// Index of the shard in SafetensorsCheckpoint::shards.
  unsigned shard = 0;

  int64_t numElements() const;
};

/// One parsed .safetensors file: its tensors and, when mapped, its bytes.
struct SafetensorsFile {
  std::string path;
  /// The whole file, mapped read-only (null when only the header was read).
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  /// Offset of the data section in the file: 8 + header length.
  uint64_t dataStart = 0;
  /// In header order.
  std::vector<SafetensorsTensor> tensors;

  /// The bytes of `tensor` (checked against the file size when parsed).
  llvm::ArrayRef<uint8_t> bytes(const SafetensorsTensor &tensor) const;
};

/// Parses and checks the header of a safetensors file held in `contents`
/// (the whole file): the length field, the JSON, each tensor's dtype, shape
/// and data_offsets (inside the data section, no two overlapping, their
/// byte count equal to the shape's elements times the dtype's size). Errors
/// read "<fileName>: tensor '<name>': <what>; <fix>".
llvm::Expected<std::vector<SafetensorsTensor>>
parseSafetensorsHeader(llvm::StringRef contents, llvm::StringRef fileName,
                       uint64_t &dataStart);

/// Maps `path` read-only and parses its header (parseSafetensorsHeader).
llvm::Expected<SafetensorsFile> readSafetensorsFile(llvm::StringRef path);

/// A checkpoint directory: model.safetensors.index.json and the shards its
/// weight_map names, or one model.safetensors.
class SafetensorsCheckpoint {
public:
  /// Opens `dir`: the index (every shard it names must exist and hold the
  /// tensors the index assigns it), or else model.safetensors. A tensor
  /// name in two shards is an error.
  static llvm::Expected<SafetensorsCheckpoint> open(llvm::StringRef dir);

  /// The tensor called `name`, or null.
  const SafetensorsTensor *lookup(llvm::StringRef name) const;
  /// The bytes of a tensor of this checkpoint, straight from its shard.
  llvm::ArrayRef<uint8_t> bytes(const SafetensorsTensor &tensor) const {
    return shards[tensor.shard].bytes(tensor);
  }
  /// The file that holds `tensor`, for messages.
  llvm::StringRef fileOf(const SafetensorsTensor &tensor) const {
    return shards[tensor.shard].path;
  }
  /// Every tensor, sorted by name.
  std::vector<const SafetensorsTensor *> tensors() const;
  /// The index (if any) and every shard: what a tool's output must not
  /// replace (checkOutputIsNotAnInput).
  std::vector<std::string> files() const;

  std::string dir;
  /// model.safetensors.index.json, or "" for a single model.safetensors.
  std::string indexPath;
  std::vector<SafetensorsFile> shards;

private:
  llvm::StringMap<SafetensorsTensor> byName;
};

} // namespace fp8q

#endif // FP8Q_SUPPORT_SAFETENSORS_H
