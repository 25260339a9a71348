//===- fp8q-opt.cpp - fp8q optimizer driver -------------------------------===//
//
// mlir-opt with the fp8q dialect and passes added: every upstream dialect,
// extension and pass stays available.
//
//===----------------------------------------------------------------------===//

#include "fp8q/InitFp8q.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  fp8q::registerFp8qPassesAndPipelines();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  fp8q::registerFp8qDialects(registry);

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "fp8q optimizer driver\n", registry));
}
