//===- ArtifactSpec.h - What an fp8q artifact exports -----------*- C++ -*-===//
//
// The entries of an AOT artifact (docs/Artifact.md): read from the tensor
// level module after the pipeline's tensor stages (the public functions'
// final signatures, a @<fn>_prepare_weights of prepare-weight-args
// included) and before bufferization erases element types and shapes into
// descriptors, completed from the lowered module (does each entry take a
// stream?), and written into the artifact as its JSON manifest.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_ARTIFACT_ARTIFACTSPEC_H
#define FP8Q_ARTIFACT_ARTIFACTSPEC_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <string>
#include <vector>

namespace fp8q::artifact {

/// One tensor argument or result of an entry, as the manifest describes it.
struct TensorSpec {
  /// The element type as MLIR spells it ("bf16", "f8E4M3FN", "f32").
  std::string elementType;
  /// Static sizes; -1 for a dynamic size.
  llvm::SmallVector<int64_t, 4> shape;
  /// The tensor's encoding as MLIR prints it
  /// ("#fp8q.weight_layout<preshuffle_16x16>"), "" for none.
  std::string layout;
};

/// One public function of the module: the C entry points the artifact
/// exports for it.
struct EntrySpec {
  std::string name;
  llvm::SmallVector<TensorSpec, 8> args;
  llvm::SmallVector<TensorSpec, 2> results;
  /// Device mode: the lowered function takes a trailing stream argument.
  bool stream = false;
  /// A step compiled with prepare-weight-args: the entry that prepares its
  /// weights (`<name>_prepare_weights`), and the indices of the arguments
  /// it takes prepared (its `fp8q.prepared_args`, ascending): argument
  /// preparedArgs[j] is result j of that entry.
  std::string prepare;
  llvm::SmallVector<int64_t, 8> preparedArgs;
  /// A prepare entry: the step whose weights it prepares (`fp8q.prepares`).
  std::string prepares;
};

/// Everything the manifest states.
struct ArtifactSpec {
  /// "host" or "device".
  std::string execution = "host";
  /// The module's `fp8q.target` attribute as MLIR prints it ("" if none).
  std::string target;
  /// The ranks the step's collectives communicate among (0: none; the
  /// manifest's "collective_ranks" then is absent).
  int64_t collectiveRanks = 0;
  std::vector<EntrySpec> entries;
};

/// Reads the public functions with a body of a tensor-level module. Every
/// argument and result must be a ranked tensor: anything else is reported
/// at the function's location. A module without such a function is an
/// error too (an artifact with nothing to call). A step with
/// `fp8q.prepared_args` is linked to the function whose `fp8q.prepares`
/// names it; one without the other, or a prepare function whose signature
/// is not the prepared arguments', is reported at the function.
mlir::FailureOr<ArtifactSpec> collectEntries(mlir::ModuleOp module);

/// Completes `spec` from the module --fp8q-pipeline produced: an entry whose
/// `_mlir_ciface_` function has one parameter more than its tensors need
/// takes a stream (device mode, `execution=device`); a module holding
/// `gpu.binary` ops is device mode. Fails, at the function, on a C
/// interface that matches neither form.
mlir::LogicalResult resolveExecution(mlir::ModuleOp lowered,
                                     ArtifactSpec &spec);

/// The manifest JSON `fp8q_artifact_manifest()` returns; deterministic
/// (entries in module order, no whitespace variation).
std::string renderManifest(const ArtifactSpec &spec);

} // namespace fp8q::artifact

#endif // FP8Q_ARTIFACT_ARTIFACTSPEC_H
