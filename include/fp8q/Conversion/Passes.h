//===- Passes.h - fp8q conversion passes ------------------------*- C++ -*-===//
//
// Bufferization (--fp8q-bufferize) and lowering of the bufferized fp8q ops
// to runtime calls (--fp8q-lower-to-runtime).
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_CONVERSION_PASSES_H
#define FP8Q_CONVERSION_PASSES_H

#include "fp8q/Dialect/IR/Fp8qDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace fp8q {

#define GEN_PASS_DECL
#include "fp8q/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fp8q/Conversion/Passes.h.inc"

} // namespace fp8q

#endif // FP8Q_CONVERSION_PASSES_H
