//===- Passes.td - fp8q transformation passes --------------*- tablegen -*-===//

#ifndef FP8Q_TRANSFORMS_PASSES_TD
#define FP8Q_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def VerifyContracts : Pass<"fp8q-verify-contracts", "mlir::ModuleOp"> {
  let summary = "Fail on any GEMM whose operands break its kernel's contract";
  let description = [{
    Checks every `fp8q.gemm` against the kernel-contract table: the x_scale
    layout (compared by the bytes it addresses), the weight layout, and,
    when the module has an `fp8q.target`, that the kernel runs on that
    target with the gemm's fp8 type. A gemm without a kernel has no contract
    to prove and is an error. Changes nothing.
  }];
  let dependentDialects = ["::fp8q::Fp8qDialect"];
  let statistics = [
    Statistic<"numGemmsChecked", "gemms-checked",
              "Number of fp8q.gemm ops checked">,
    Statistic<"numViolations", "violations",
              "Number of contract violations reported">
  ];
}

#endif // FP8Q_TRANSFORMS_PASSES_TD
