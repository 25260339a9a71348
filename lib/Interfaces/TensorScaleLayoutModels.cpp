//===- TensorScaleLayoutModels.cpp - Tensor ops that carry a layout -------===//
//
// ScaleLayoutCarrierOpInterface for the tensor ops SPEC.md lets a layout
// flow through: tensor.cast between scale types, tensor.extract_slice of
// whole rows and tensor.concat along dim 0. Each keeps its operand's layout
// (a slice of a column-major scale is re-strided to the slice's own M when
// bufferized, as a concat is).
//
//===----------------------------------------------------------------------===//

#include "fp8q/Dialect/IR/ScaleLayout.h"
#include "fp8q/Interfaces/ScaleLayoutInterfaces.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace fp8q;

namespace {

/// tensor.cast between two scale types.
struct CastModel
    : ScaleLayoutCarrierOpInterface::ExternalModel<CastModel, tensor::CastOp> {
  static bool carries(tensor::CastOp cast) {
    return isScaleTensorType(cast.getSource().getType()) &&
           isScaleTensorType(cast.getType());
  }
  Value getCarriedScaleLayoutResult(Operation *op, OpOperand &) const {
    auto cast = llvm::cast<tensor::CastOp>(op);
    return carries(cast) ? cast.getResult() : Value();
  }
  bool carriesScaleLayout(Operation *op, OpResult) const {
    return carries(llvm::cast<tensor::CastOp>(op));
  }
};

/// tensor.extract_slice that keeps whole rows: offsets (o, 0), sizes
/// (m, G), unit strides, no rank reduction; its source is carried.
struct ExtractSliceModel
    : ScaleLayoutCarrierOpInterface::ExternalModel<ExtractSliceModel,
                                                   tensor::ExtractSliceOp> {
  static bool carries(tensor::ExtractSliceOp slice) {
    RankedTensorType src = slice.getSourceType(), res = slice.getResultType();
    if (!isScaleTensorType(src) || !isScaleTensorType(res))
      return false;
    if (ShapedType::isDynamic(src.getDimSize(1)))
      return false;
    std::optional<int64_t> off1 =
        getConstantIntValue(slice.getMixedOffsets()[1]);
    std::optional<int64_t> size1 =
        getConstantIntValue(slice.getMixedSizes()[1]);
    return off1 == 0 && size1 == src.getDimSize(1) &&
           llvm::all_of(slice.getMixedStrides(), [](OpFoldResult s) {
             return getConstantIntValue(s) == 1;
           });
  }
  Value getCarriedScaleLayoutResult(Operation *op, OpOperand &operand) const {
    auto slice = llvm::cast<tensor::ExtractSliceOp>(op);
    return operand.getOperandNumber() == 0 && carries(slice) ? slice.getResult()
                                                             : Value();
  }
  bool carriesScaleLayout(Operation *op, OpResult) const {
    return carries(llvm::cast<tensor::ExtractSliceOp>(op));
  }
};

/// tensor.concat of scales along dim 0; every input is carried.
struct ConcatModel
    : ScaleLayoutCarrierOpInterface::ExternalModel<ConcatModel,
                                                   tensor::ConcatOp> {
  static bool carries(tensor::ConcatOp concat) {
    return concat.getDim() == 0 && isScaleTensorType(concat.getType()) &&
           llvm::all_of(concat.getInputs(),
                        [](Value v) { return isScaleTensorType(v.getType()); });
  }
  Value getCarriedScaleLayoutResult(Operation *op, OpOperand &) const {
    auto concat = llvm::cast<tensor::ConcatOp>(op);
    return carries(concat) ? concat.getResult() : Value();
  }
  bool carriesScaleLayout(Operation *op, OpResult) const {
    return carries(llvm::cast<tensor::ConcatOp>(op));
  }
};

} // namespace

void fp8q::registerScaleLayoutCarrierExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
    tensor::CastOp::attachInterface<CastModel>(*ctx);
    tensor::ExtractSliceOp::attachInterface<ExtractSliceModel>(*ctx);
    tensor::ConcatOp::attachInterface<ConcatModel>(*ctx);
  });
}

void fp8q::ensureScaleLayoutCarrierExternalModels(MLIRContext *ctx) {
  std::optional<RegisteredOperationName> cast =
      RegisteredOperationName::lookup(tensor::CastOp::getOperationName(), ctx);
  if (!cast || cast->hasInterface<ScaleLayoutCarrierOpInterface>())
    return;
  DialectRegistry registry;
  registerScaleLayoutCarrierExternalModels(registry);
  ctx->appendDialectRegistry(registry);
}
