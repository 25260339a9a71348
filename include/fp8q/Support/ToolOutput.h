//===- ToolOutput.h - Safe output files for fp8q tools ----------*- C++ -*-===//
//
// Every fp8q tool writes its result through writeToolOutput so that a failed
// run leaves no half-written file (nor clobbers an existing one) and no
// output ever replaces one of the run's inputs.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_SUPPORT_TOOLOUTPUT_H
#define FP8Q_SUPPORT_TOOLOUTPUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace fp8q {

/// Fails when `outputPath` names the same file as one of `inputPaths` ("-"
/// never matches): a tool must not overwrite what it reads.
llvm::Error checkOutputIsNotAnInput(llvm::StringRef outputPath,
                                    llvm::ArrayRef<llvm::StringRef> inputPaths);

/// Writes the output of a tool: "-" is stdout; any other path gets the text
/// in a temporary file next to it, renamed over `outputPath` only when
/// `write` succeeds (llvm::writeToOutput), so a failed or interrupted run
/// leaves any earlier file untouched and no partial one. Refuses outputs
/// that are inputs (checkOutputIsNotAnInput).
llvm::Error
writeToolOutput(llvm::StringRef outputPath,
                llvm::ArrayRef<llvm::StringRef> inputPaths,
                llvm::function_ref<llvm::Error(llvm::raw_ostream &)> write);

/// The error `write` returns when it already reported its failure (e.g. as
/// MLIR diagnostics): writeToolOutput's caller prints nothing more for it.
llvm::Error makeAlreadyReportedError();

/// Prints `error` as "<tool>: error: <message>" on stderr unless it was
/// already reported; returns the process exit status (0 on success, else 1).
int reportToolError(llvm::StringRef tool, llvm::Error error);

} // namespace fp8q

#endif // FP8Q_SUPPORT_TOOLOUTPUT_H
