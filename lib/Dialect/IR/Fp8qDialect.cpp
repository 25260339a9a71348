//===- Fp8qDialect.cpp - fp8q dialect registration ------------------------===//

#include "fp8q/Dialect/IR/Fp8qDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace fp8q;

#include "fp8q/Dialect/IR/Fp8qDialect.cpp.inc"

void Fp8qDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "fp8q/Dialect/IR/Fp8qOps.cpp.inc"
      >();
}

Operation *Fp8qDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  if (!arith::ConstantOp::isBuildableWith(value, type))
    return nullptr;
  return arith::ConstantOp::create(builder, loc, type, cast<TypedAttr>(value));
}
