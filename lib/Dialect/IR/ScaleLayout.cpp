//===- ScaleLayout.cpp - Scale layout queries -----------------------------===//

#include "fp8q/Dialect/IR/ScaleLayout.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace fp8q {

bool isScaleTensorType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() == 2 && tensor.getElementType().isF32();
}

LayoutAttr getScaleLayout(RankedTensorType type) {
  if (auto layout = dyn_cast_or_null<LayoutAttr>(type.getEncoding()))
    return layout;
  return LayoutAttr::getRowMajor(type.getContext());
}

RankedTensorType withScaleLayout(RankedTensorType type, LayoutAttr layout) {
  Attribute encoding = layout.isRowMajor() ? Attribute() : Attribute(layout);
  return RankedTensorType::get(type.getShape(), type.getElementType(),
                               encoding);
}

SmallVector<int64_t, 2> getScaleStrides(LayoutAttr layout,
                                        ArrayRef<int64_t> shape) {
  assert(shape.size() == 2 && "scale tensors are rank 2");
  int64_t m = shape[0], g = shape[1];
  if (layout.isRowMajor())
    return {g, 1};
  if (ShapedType::isDynamic(m))
    return {1, ShapedType::kDynamic};
  return {1, static_cast<int64_t>(
                 llvm::alignTo(static_cast<uint64_t>(m), layout.getAlign()))};
}

bool areEquivalentLayouts(LayoutAttr a, LayoutAttr b, ArrayRef<int64_t> shape) {
  if (a == b)
    return true;
  SmallVector<int64_t, 2> sa = getScaleStrides(a, shape);
  SmallVector<int64_t, 2> sb = getScaleStrides(b, shape);
  for (unsigned d = 0; d < 2; ++d) {
    // A dimension of extent 1 is only ever indexed at 0: its stride is moot.
    if (shape[d] == 1)
      continue;
    // Strides that depend on a dynamic M can only be proven equal when they
    // come from identical layouts, handled above.
    if (ShapedType::isDynamic(sa[d]) || ShapedType::isDynamic(sb[d]))
      return false;
    if (sa[d] != sb[d])
      return false;
  }
  return true;
}

bool areEquivalentScaleTypes(RankedTensorType a, RankedTensorType b) {
  return a.getShape() == b.getShape() &&
         a.getElementType() == b.getElementType() &&
         areEquivalentLayouts(getScaleLayout(a), getScaleLayout(b),
                              a.getShape());
}

bool isFp8Type(Type type) {
  return isa<Float8E4M3FNType, Float8E4M3FNUZType>(type);
}

float getFp8Max(Type fp8Type) {
  return isa<Float8E4M3FNUZType>(fp8Type) ? 240.0f : 448.0f;
}

} // namespace fp8q
