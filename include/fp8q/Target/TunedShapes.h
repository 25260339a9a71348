//===- TunedShapes.h - Per-shape kernel routing tables ----------*- C++ -*-===//
//
// The shape tables kernel selection reads on gfx950 (REFERENCE.md, "Kernel
// routing"): weight shapes (N, K) with a tuned Triton config, and per-shape
// M limits of the plain CK blockscale kernel. The REFERENCE values are
// embedded; a JSON file can replace them.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_TARGET_TUNEDSHAPES_H
#define FP8Q_TARGET_TUNEDSHAPES_H

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <utility>

namespace fp8q {

/// A weight shape (N, K).
using WeightShape = std::pair<int64_t, int64_t>;

/// Routing tables for one target family (gfx950).
///
/// JSON schema (every key optional, no other keys allowed):
///   { "triton_tuned": [[N, K], ...],
///     "ck_max_m": [{"n": N, "k": K, "max_m": M}, ...] }
/// with positive integers; a [N, K] may appear once in ck_max_m.
class TunedShapeTable {
public:
  /// Returns true when (n, k) has a tuned Triton config.
  bool isTritonTuned(int64_t n, int64_t k) const {
    return tritonTuned.contains({n, k});
  }

  /// The largest M the plain ck kernel handles for (n, k); nullopt when
  /// the shape has no limit.
  std::optional<int64_t> getCkMaxM(int64_t n, int64_t k) const;

  /// Number of tuned shapes and of M limits (for tests and dumps).
  size_t getNumTritonTuned() const { return tritonTuned.size(); }
  size_t getNumCkMaxM() const { return ckMaxM.size(); }

  /// The embedded table, parsed once from getDefaultJson().
  static const TunedShapeTable &getDefault();

  /// The embedded table as JSON (REFERENCE.md's values): a starting point
  /// for a replacement file.
  static llvm::StringRef getDefaultJson();

  /// Parses a table from JSON text. Errors name `source` (a file name) and
  /// the offending entry, e.g. "tuned table 't.json': triton_tuned[2]: ...".
  static llvm::Expected<TunedShapeTable> parse(llvm::StringRef json,
                                               llvm::StringRef source);

  /// Reads and parses the JSON file at `path`.
  static llvm::Expected<TunedShapeTable> loadFile(llvm::StringRef path);

private:
  llvm::DenseSet<WeightShape> tritonTuned;
  llvm::DenseMap<WeightShape, int64_t> ckMaxM;
};

} // namespace fp8q

#endif // FP8Q_TARGET_TUNEDSHAPES_H
