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

/// A model for an op whose single result is stored in the layout of the
/// operands `Model::isCarried` accepts, when `Model::carries(op)` holds.
template <typename Model, typename OpTy>
struct SingleResultCarrier
    : ScaleLayoutCarrierOpInterface::ExternalModel<Model, OpTy> {
  Value getCarriedScaleLayoutResult(Operation *op, OpOperand &operand) const {
    auto concrete = llvm::cast<OpTy>(op);
    if (!Model::isCarried(operand) || !Model::carries(concrete))
      return Value();
    return concrete->getResult(0);
  }
  bool carriesScaleLayout(Operation *op, OpResult) const {
    return Model::carries(llvm::cast<OpTy>(op));
  }
};

/// tensor.cast between two scale types.
struct CastModel : SingleResultCarrier<CastModel, tensor::CastOp> {
  static bool isCarried(OpOperand &) { return true; }
  static bool carries(tensor::CastOp cast) {
    return isScaleTensorType(cast.getSource().getType()) &&
           isScaleTensorType(cast.getType());
  }
};

/// tensor.extract_slice that keeps whole rows: offsets (o, 0), sizes
/// (m, G), unit strides, no rank reduction; its source is carried.
struct ExtractSliceModel
    : SingleResultCarrier<ExtractSliceModel, tensor::ExtractSliceOp> {
  static bool isCarried(OpOperand &operand) {
    return operand.getOperandNumber() == 0;
  }
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
};

/// tensor.concat of scales along dim 0; every input is carried.
struct ConcatModel : SingleResultCarrier<ConcatModel, tensor::ConcatOp> {
  static bool isCarried(OpOperand &) { return true; }
  static bool carries(tensor::ConcatOp concat) {
    return concat.getDim() == 0 && isScaleTensorType(concat.getType()) &&
           llvm::all_of(concat.getInputs(),
                        [](Value v) { return isScaleTensorType(v.getType()); });
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

bool fp8q::hasScaleLayoutCarrierModels(MLIRContext *ctx) {
  std::optional<RegisteredOperationName> cast =
      RegisteredOperationName::lookup(tensor::CastOp::getOperationName(), ctx);
  return !cast || cast->hasInterface<ScaleLayoutCarrierOpInterface>();
}
