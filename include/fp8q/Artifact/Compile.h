//===- Compile.h - fp8q tensor IR to an AOT artifact ------------*- C++ -*-===//
//
// What `fp8q-compile` does, callable from other drivers: parse a tensor
// level module, run `--fp8q-pipeline` with the given option string,
// translate to LLVM IR, add the artifact's C ABI (docs/Artifact.md),
// optimize, and write LLVM IR, a PIC object or a shared library.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_ARTIFACT_COMPILE_H
#define FP8Q_ARTIFACT_COMPILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace fp8q::artifact {

/// What to write.
enum class EmitKind { LLVMIR, Object, SharedLibrary };

/// Options of one compilation (the flags of fp8q-compile).
struct CompileOptions {
  std::string inputPath;
  std::string outputPath;
  /// The options of `--fp8q-pipeline`, passed through unchanged
  /// ("fuse-producers=false execution=device").
  std::string pipelineOptions;
  EmitKind emit = EmitKind::SharedLibrary;
  /// "" = the host's triple.
  std::string targetTriple;
  /// LLVM optimization level (0-3) of the new pass manager and codegen of
  /// the host code. Unset: 2 for host execution; 0 for device execution,
  /// whose host code is straight-line glue around runtime calls and kernel
  /// launches (no loop touches tensor data; the kernels are compiled by
  /// their GPU target at its own level), where optimization costs most of
  /// the compile time and saves nothing measurable (bench/RESULTS.md).
  std::optional<unsigned> optLevel;
  /// Functions above this many LLVM instructions are compiled without
  /// optimization (compileHugeFunctionsFast); 0 = never.
  unsigned hugeFunctionThreshold = 8000;
  /// "", "cpu", "cuda" or "hip": the shared library records a DT_NEEDED on
  /// libfp8q_runtime_<runtime>.so, found in `runtimeDir` at link time.
  std::string runtime;
  std::string runtimeDir;
  /// The linker of `.so` outputs (ld.lld).
  std::string linker;
  /// Print an -mlir-timing style breakdown (parse, each pipeline pass,
  /// translation, LLVM optimization, code generation, link) to stderr.
  bool timing = false;
  /// Print the pipeline's remarks (one per scale copy), silent by default.
  bool remarks = false;
};

/// The EmitKind `path`'s extension names (.so, .o, .ll), if any.
std::optional<EmitKind> emitKindForPath(llvm::StringRef path);

/// Compiles `options.inputPath` into `options.outputPath`. Diagnostics of
/// the input are printed at their location as they happen (the returned
/// error is then fp8q::makeAlreadyReportedError()); the output is written
/// through a temporary file and renamed only on success, and is never one
/// of the inputs.
llvm::Error compileArtifact(const CompileOptions &options);

} // namespace fp8q::artifact

#endif // FP8Q_ARTIFACT_COMPILE_H
