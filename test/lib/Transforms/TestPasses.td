//===- TestPasses.td - fp8q passes for tests and benchmarks -*- tablegen -*-===//
//
// Passes the product does not ship (not in registerFp8qPassesAndPipelines,
// not in the plugin): fp8q-opt registers them when FP8Q_INCLUDE_TESTS is on.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_TEST_PASSES_TD
#define FP8Q_TEST_PASSES_TD

include "mlir/Pass/PassBase.td"

def HandPlacedCopies : Pass<"fp8q-hand-placed-copies", "mlir::ModuleOp"> {
  let summary = "Baseline: the historical hand-placed fix, a scale copy at "
                "every consumer that reads another layout";
  let description = [{
    A reference policy to measure `--fp8q-propagate-scale-layout` against,
    not a pass to ship: it models SGLang's hand-written fix, where producers
    write row-major and each GEMM whose kernel reads another layout gets its
    own `scale.t().contiguous().t()` copy right before it, shared with no
    other consumer and hoisted out of nothing. Which gemms read another
    layout comes from the scale-layout analysis run read-only. Run it after
    `--fp8q-select-kernels` in place of propagation; `--fp8q-verify-contracts`
    passes afterwards.
  }];
  let dependentDialects = ["::fp8q::Fp8qDialect"];
  let statistics = [
    Statistic<"numCopiesInserted", "copies-inserted",
              "fp8q.materialize ops inserted at consumers">
  ];
}
#endif // FP8Q_TEST_PASSES_TD
