//===- SelectKernels.cpp - Route gemms, check fp8, preshuffle weights -----===//
//
// --fp8q-select-kernels: the three steps of kernel selection, each its own
// pass, run in order as one nested pipeline:
//   --fp8q-route-kernels     (RouteKernels.cpp)      which kernel each gemm
//                                                    runs;
//   --fp8q-check-fp8-type    (CheckFp8Type.cpp)      which fp8 flavour it
//                                                    reads;
//   --fp8q-insert-preshuffle (InsertPreshuffle.cpp)  which weights must be
//                                                    stored preshuffled.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/PassManager.h"

namespace fp8q {
#define GEN_PASS_DEF_SELECTKERNELS
#include "fp8q/Transforms/Passes.h.inc"
} // namespace fp8q

using namespace mlir;
using namespace fp8q;

namespace {

struct SelectKernelsPass
    : public fp8q::impl::SelectKernelsBase<SelectKernelsPass> {
  using Base::Base;

  /// Builds the pipeline of the three steps from this pass's options.
  LogicalResult initialize(MLIRContext *) override {
    pipeline = OpPassManager(ModuleOp::getOperationName());
    RouteKernelsOptions route;
    route.tunedTable = tunedTable;
    route.sm90Kernel = sm90Kernel;
    pipeline.addPass(createRouteKernels(route));
    CheckFp8TypeOptions fp8;
    fp8.fixFp8Type = fixFp8Type;
    pipeline.addPass(createCheckFp8Type(fp8));
    pipeline.addPass(createInsertPreshuffle());
    return success();
  }

  void runOnOperation() override {
    // Each step reports its own errors; the first that fails stops the rest.
    if (failed(runPipeline(pipeline, getOperation())))
      signalPassFailure();
  }

private:
  OpPassManager pipeline{ModuleOp::getOperationName()};
};

} // namespace
