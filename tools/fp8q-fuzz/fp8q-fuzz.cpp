//===- fp8q-fuzz.cpp - libFuzzer target: parse, verify, whole pipeline ----===//
//
// Feeds arbitrary bytes to the MLIR parser with the fp8q dialect loaded,
// verifies what parses, and runs the whole --fp8q-pipeline on what verifies.
// Any crash, sanitizer report, or hang is a bug: bad input must only ever
// produce diagnostics. Built with -DFP8Q_ENABLE_FUZZER=ON (clang-22,
// -fsanitize=fuzzer,address,undefined).
//
//===----------------------------------------------------------------------===//

#include "fp8q/InitFp8q.h"
#include "fp8q/Pipelines/Pipelines.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstddef>
#include <cstdint>

using namespace mlir;

static DialectRegistry &getRegistry() {
  static DialectRegistry *registry = [] {
    auto *r = new DialectRegistry();
    registerAllDialects(*r);
    registerAllExtensions(*r);
    fp8q::registerFp8qDialects(*r);
    return r;
  }();
  return *registry;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext context(getRegistry(), MLIRContext::Threading::DISABLED);
  // Diagnostics are the expected outcome of bad input: swallow them.
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });
  // MLIR's lexer relies on the NUL that every llvm::MemoryBuffer ends with:
  // hand it a copy of the bytes, as a file read would, never the raw input.
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          StringRef(reinterpret_cast<const char *>(data), size), "input"),
      llvm::SMLoc());
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module || failed(verify(*module)))
    return 0;
  PassManager pm(&context);
  fp8q::buildFp8qPipeline(pm, fp8q::Fp8qPipelineOptions());
  (void)pm.run(*module);
  return 0;
}
