//===- Fp8q.td - fp8q dialect umbrella ---------------------*- tablegen -*-===//
//
// One umbrella file for the dialect (CIRCT style): the dialect, its
// attributes and its ops are generated from here.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_DIALECT_IR_FP8Q_TD
#define FP8Q_DIALECT_IR_FP8Q_TD

include "fp8q/Dialect/IR/Fp8qDialect.td"
include "fp8q/Dialect/IR/Fp8qAttributes.td"
include "fp8q/Dialect/IR/Fp8qOps.td"
include "fp8q/Dialect/IR/Fp8qBufferOps.td"

#endif // FP8Q_DIALECT_IR_FP8Q_TD
