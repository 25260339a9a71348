//===- Fp8qDialect.h - fp8q dialect, attributes and ops ---------*- C++ -*-===//
//
// The one header users include for the fp8q dialect.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_DIALECT_IR_FP8QDIALECT_H
#define FP8Q_DIALECT_IR_FP8QDIALECT_H

// FP8Q_SCALE_BLOCK: the group_size default of the quantize ops.
#include "fp8q/Runtime/fp8q_contracts.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/TensorEncoding.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "fp8q/Dialect/IR/Fp8qDialect.h.inc"
#include "fp8q/Dialect/IR/Fp8qEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "fp8q/Dialect/IR/Fp8qAttributes.h.inc"

#define GET_OP_CLASSES
#include "fp8q/Dialect/IR/Fp8qOps.h.inc"

#endif // FP8Q_DIALECT_IR_FP8QDIALECT_H
