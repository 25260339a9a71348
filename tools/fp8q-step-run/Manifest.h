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
/// dynamic), and the encoding of a re-laid-out (prepared) weight as MLIR
/// prints it ("" for none).
struct TensorSpec {
  std::string type;
  std::vector<int64_t> shape;
  std::string layout;
};

/// One entry of the artifact.
struct Entry {
  std::string name, symbol;
  bool stream = false;
  std::vector<TensorSpec> args, results;
  /// A step compiled with prepare-weight-args: the entry that prepares its
  /// weights, and the arguments it takes prepared (ascending): argument
  /// preparedArgs[j] is result j of that entry, called once on argument j
  /// of its own.
  std::string prepare;
  std::vector<int64_t> preparedArgs;
  /// A prepare entry: the step whose weights it prepares.
  std::string prepares;
  /// The arguments a driver seeds: `args`, except that a prepared one is
  /// in the type its prepare entry takes (the original layout). Equal to
  /// `args` for a step without a prepare entry.
  std::vector<TensorSpec> originalArgs;
};

struct Manifest {
  std::string execution, target;
  /// "collective_ranks": the ranks the step's collectives communicate
  /// among (0 when the step has none).
  int64_t collectiveRanks = 0;
  std::vector<Entry> entries;
  /// The entry called `name`, or null.
  const Entry *find(const std::string &name) const;
};

/// Parses `json`; on failure returns false with a message in `error`. A
/// step's prepare entry must be in the manifest, its prepared indices
/// ascending and in range, and the prepare entry must take and return one
/// tensor per prepared argument, returning the type the step takes there.
bool parseManifest(const std::string &json, Manifest &manifest,
                   std::string &error);

/// Whether two tensors have the same type, shape and layout.
bool sameTensor(const TensorSpec &a, const TensorSpec &b);

/// "bf16[?x256]" style text of a tensor, for messages.
std::string describe(const TensorSpec &tensor);

} // namespace fp8q::steprun

#endif // FP8Q_STEP_RUN_MANIFEST_H
