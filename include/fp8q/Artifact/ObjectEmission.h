//===- ObjectEmission.h - LLVM IR to a native artifact ----------*- C++ -*-===//
//
// The LLVM half of fp8q-compile: a PIC TargetMachine, the new-pass-manager
// optimization pipeline, object emission into memory and the ld.lld link
// of a shared library. No MLIR here.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_ARTIFACT_OBJECTEMISSION_H
#define FP8Q_ARTIFACT_OBJECTEMISSION_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace fp8q::artifact {

/// A position-independent TargetMachine for `triple` ("" = the host's),
/// generic CPU (an artifact runs on other machines than the compiler's),
/// code generation at `optLevel` (0-3). Registers LLVM's targets once.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(llvm::StringRef triple, unsigned optLevel);

/// Runs the new pass manager's default per-module pipeline at `optLevel`
/// (0: nothing) for `machine`; sets the module's triple and data layout.
llvm::Error optimizeModule(llvm::Module &module, llvm::TargetMachine &machine,
                           unsigned optLevel);

/// Emits `module` as a relocatable object into `object`.
llvm::Error emitObject(llvm::Module &module, llvm::TargetMachine &machine,
                       llvm::SmallVectorImpl<char> &object);

/// Links `object` with `linker` (ld.lld) `-shared` plus `extraArgs` (e.g.
/// a runtime library) and writes the shared library to `out`. Temporary
/// files live in the system temp folder and are removed either way.
llvm::Error linkSharedLibrary(llvm::StringRef linker,
                              llvm::ArrayRef<char> object,
                              llvm::ArrayRef<std::string> extraArgs,
                              llvm::raw_ostream &out);

} // namespace fp8q::artifact

#endif // FP8Q_ARTIFACT_OBJECTEMISSION_H
