//===- Manifest.h - An fp8q artifact's manifest, without MLIR ---*- C++ -*-===//
//
// fp8q-step-run links no MLIR or LLVM: this reads the JSON that
// `fp8q_artifact_manifest()` returns (docs/Artifact.md) with a small parser
// of its own.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_STEP_RUN_MANIFEST_H
#define FP8Q_STEP_RUN_MANIFEST_H

#include <cstdint>
#include <string>
#include <vector>

namespace fp8q::steprun {

/// One argument or result: element type as MLIR spells it, sizes (-1:
/// dynamic).
struct TensorSpec {
  std::string type;
  std::vector<int64_t> shape;
};

/// One entry of the artifact.
struct Entry {
  std::string name, symbol;
  bool stream = false;
  std::vector<TensorSpec> args, results;
};

struct Manifest {
  std::string execution, target;
  std::vector<Entry> entries;
  /// The entry called `name`, or null.
  const Entry *find(const std::string &name) const;
};

/// Parses `json`; on failure returns false with a message in `error`.
bool parseManifest(const std::string &json, Manifest &manifest,
                   std::string &error);

/// "bf16[?x256]" style text of a tensor, for messages.
std::string describe(const TensorSpec &tensor);

} // namespace fp8q::steprun

#endif // FP8Q_STEP_RUN_MANIFEST_H
