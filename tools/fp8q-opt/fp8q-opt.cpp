//===- fp8q-opt.cpp - fp8q optimizer driver -------------------------------===//
//
// mlir-opt with the fp8q dialect and passes added: every upstream dialect,
// extension and pass stays available. Unlike upstream mlir-opt, the output
// file is written atomically (a failed run leaves no partial file and keeps
// an earlier one) and never replaces the input file.
//
//===----------------------------------------------------------------------===//

#include "fp8q/InitFp8q.h"
#include "fp8q/Pipelines/Pipelines.h"
#include "fp8q/Support/ToolOutput.h"
#ifdef FP8Q_INCLUDE_TESTS
#include "TestPasses.h"
#endif

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  fp8q::registerFp8qPassesAndPipelines();
#ifdef FP8Q_INCLUDE_TESTS
  // Passes for tests and measurements only (test/lib), as upstream mlir-opt
  // registers its test passes.
  fp8q::test::registerFp8qTestPasses();
#endif

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  fp8q::registerFp8qDialects(registry);
  // What the pipeline needs beyond the dialects: the GPU targets and the
  // LLVM IR translations that serialize device-mode kernels.
  fp8q::registerFp8qPipelineDependencies(registry);

  auto [inputFile, outputFile] = mlir::registerAndParseCLIOptions(
      argc, argv, "fp8q optimizer driver\n", registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  // Listings print to stdout and read no input: upstream handles them.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputFile, outputFile, registry));

  llvm::InitLLVM initLLVM(argc, argv);
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFile, &errorMessage);
  if (!input) {
    llvm::WithColor::error(llvm::errs(), "fp8q-opt") << errorMessage << "\n";
    return 1;
  }
  return fp8q::reportToolError(
      "fp8q-opt",
      fp8q::writeToolOutput(outputFile, {inputFile},
                            [&](llvm::raw_ostream &os) -> llvm::Error {
                              if (failed(mlir::MlirOptMain(os, std::move(input),
                                                           registry, config)))
                                return fp8q::makeAlreadyReportedError();
                              return llvm::Error::success();
                            }));
}
