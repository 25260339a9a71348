//===- Passes.h - fp8q transformation passes --------------------*- C++ -*-===//

#ifndef FP8Q_TRANSFORMS_PASSES_H
#define FP8Q_TRANSFORMS_PASSES_H

#include "fp8q/Dialect/IR/Fp8qDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace fp8q {

#define GEN_PASS_DECL
#include "fp8q/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fp8q/Transforms/Passes.h.inc"

} // namespace fp8q

#endif // FP8Q_TRANSFORMS_PASSES_H
