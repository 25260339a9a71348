//===- ScaleLayout.cpp - Scale layout queries -----------------------------===//

#include "fp8q/Dialect/IR/ScaleLayout.h"

#include "fp8q/Runtime/fp8q_scale_layouts.h"

#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

// The enum values are the C codes the runtime ABI takes.
static_assert(static_cast<int>(fp8q::ScaleRounding::Exact) ==
                      FP8Q_ROUND_EXACT &&
                  static_cast<int>(fp8q::ScaleRounding::Pow2Ceil) ==
                      FP8Q_ROUND_POW2_CEIL &&
                  static_cast<int>(fp8q::ScaleRounding::Pow2Floor) ==
                      FP8Q_ROUND_POW2_FLOOR &&
                  static_cast<int>(fp8q::ScaleRounding::E4M3) ==
                      FP8Q_ROUND_E4M3,
              "ScaleRounding must match fp8q_scale_rounding");

/// Above this many (m, g) pairs the exhaustive byte comparison is skipped
/// and the layouts are reported different: a copy is inserted rather than
/// compile time spent (identical attributes are still equal).
static constexpr int64_t kMaxComparedElements = int64_t(1) << 24;

namespace fp8q {

bool isScaleTensorType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getRank() != 2)
    return false;
  Type element = tensor.getElementType();
  if (!element.isF32() && !isByteScaleType(element))
    return false;
  // A weight (#fp8q.weight_layout) or any other encoding is not a scale.
  Attribute encoding = tensor.getEncoding();
  return !encoding || isa<LayoutAttr>(encoding);
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
  // SPEC v2's padded layouts have no strides (a strided memref cannot
  // express them).
  if (!layout.isStrided())
    return {ShapedType::kDynamic, ShapedType::kDynamic};
  if (layout.isRowMajor())
    return {g, 1};
  if (ShapedType::isDynamic(m))
    return {1, ShapedType::kDynamic};
  return {1, static_cast<int64_t>(
                 llvm::alignTo(static_cast<uint64_t>(m), layout.getAlign()))};
}

std::optional<int64_t> getScaleAllocation(LayoutAttr layout,
                                          ArrayRef<int64_t> shape) {
  assert(shape.size() == 2 && "scale tensors are rank 2");
  if (ShapedType::isDynamic(shape[0]) || ShapedType::isDynamic(shape[1]))
    return std::nullopt;
  return fp8q_scale_layout_alloc(layout.getLayoutCode(), layout.getAlign(),
                                 shape[0], shape[1]);
}

/// The dynamic-shape rule of areEquivalentLayouts (a static shape goes to
/// fp8q_scale_layouts_equal): strided layouts compare the strides of the
/// dimensions whose extent may exceed 1, and a stride that depends on a
/// dynamic M proves nothing; a padded layout's formula depends on M, so it
/// is only equal to itself (handled by the caller).
static bool haveEqualDynamicStrides(LayoutAttr a, LayoutAttr b,
                                    ArrayRef<int64_t> shape) {
  if (!a.isStrided() || !b.isStrided())
    return false;
  SmallVector<int64_t, 2> sa = getScaleStrides(a, shape);
  SmallVector<int64_t, 2> sb = getScaleStrides(b, shape);
  for (unsigned d = 0; d < 2; ++d) {
    // A dimension of extent 1 is only ever indexed at 0: its stride is moot.
    if (shape[d] == 1)
      continue;
    if (ShapedType::isDynamic(sa[d]) || ShapedType::isDynamic(sb[d]) ||
        sa[d] != sb[d])
      return false;
  }
  return true;
}

bool areEquivalentLayouts(LayoutAttr a, LayoutAttr b, ArrayRef<int64_t> shape) {
  assert(shape.size() == 2 && "scale tensors are rank 2");
  if (a == b)
    return true;
  int64_t m = shape[0], g = shape[1];
  if (ShapedType::isDynamic(m) || ShapedType::isDynamic(g))
    return haveEqualDynamicStrides(a, b, shape);
  // Two strided layouts compare in O(1); a padded one walks every (m, g).
  int64_t count = 0;
  if (!(a.isStrided() && b.isStrided()) &&
      (llvm::MulOverflow(m, g, count) || count > kMaxComparedElements))
    return false;
  return fp8q_scale_layouts_equal(a.getLayoutCode(), a.getAlign(),
                                  b.getLayoutCode(), b.getAlign(), m, g);
}

bool areEquivalentScaleTypes(RankedTensorType a, RankedTensorType b) {
  return a.getShape() == b.getShape() &&
         a.getElementType() == b.getElementType() &&
         areEquivalentLayouts(getScaleLayout(a), getScaleLayout(b),
                              a.getShape());
}

bool isByteScaleType(Type type) {
  return isa<Float8E8M0FNUType, Float8E4M3FNType>(type);
}

std::optional<BlockFormat> getBlockFormat(Type q, Type scale, int64_t group,
                                          std::string *why) {
  auto fail = [&](const Twine &text) -> std::optional<BlockFormat> {
    if (why)
      *why = text.str();
    return std::nullopt;
  };
  std::string qName, groupText = std::to_string(group);
  llvm::raw_string_ostream(qName) << q;
  if (scale.isF32()) {
    if (isFp8Type(q))
      return BlockFormat::Fp8Block;
    return fail(qName + " q needs a 1-byte scale: f8E8M0FNU (MX, group_size "
                        "32) or, for f4E2M1FN, f8E4M3FN (NVFP4, group_size "
                        "16); f32 scales are FP8 1x128's");
  }
  if (isa<Float8E8M0FNUType>(scale)) {
    if (isa<Float8E4M3FNType>(q)) {
      if (group == 32)
        return BlockFormat::MxFp8;
      if (group == 128)
        return BlockFormat::Fp8BlockE8M0;
      return fail("f8E4M3FN q with f8E8M0FNU scales is MXFP8 (group_size "
                  "32) or FP8 1x128 UE8M0 (group_size 128), got group_size " +
                  groupText);
    }
    if (isa<Float8E5M2Type>(q)) {
      if (group == 32)
        return BlockFormat::MxFp8;
      return fail("MXFP8 (f8E5M2 q) needs group_size 32, got group_size " +
                  groupText);
    }
    if (isa<Float4E2M1FNType>(q)) {
      if (group == 32)
        return BlockFormat::MxFp4;
      return fail("MXFP4 (f4E2M1FN q, f8E8M0FNU scales) needs group_size 32, "
                  "got group_size " +
                  groupText);
    }
    return fail(qName + " q takes f32 scales only (FP8 1x128); f8E8M0FNU "
                        "scales need f8E4M3FN, f8E5M2 or f4E2M1FN q");
  }
  if (isa<Float8E4M3FNType>(scale)) {
    if (isa<Float4E2M1FNType>(q)) {
      if (group == 16)
        return BlockFormat::NvFp4;
      return fail("NVFP4 (f4E2M1FN q, f8E4M3FN scales) needs group_size 16, "
                  "got group_size " +
                  groupText);
    }
    return fail("f8E4M3FN scales are NVFP4's and need f4E2M1FN q, got " +
                qName + " q");
  }
  return fail("unsupported scale element type");
}

std::optional<BlockFormat> getGemmFormat(GemmOp gemm) {
  auto qType = cast<RankedTensorType>(gemm.getQ().getType());
  auto xsType = cast<RankedTensorType>(gemm.getXScale().getType());
  int64_t k = qType.getDimSize(1), groups = xsType.getDimSize(1);
  if (ShapedType::isDynamic(k) || ShapedType::isDynamic(groups) ||
      groups <= 0 || k % groups != 0)
    return std::nullopt;
  return getBlockFormat(qType.getElementType(), xsType.getElementType(),
                        k / groups, nullptr);
}

StringRef getBlockFormatName(BlockFormat format) {
  switch (format) {
  case BlockFormat::Fp8Block:
    return "FP8 1x128";
  case BlockFormat::Fp8BlockE8M0:
    return "FP8 1x128 UE8M0";
  case BlockFormat::MxFp8:
    return "MXFP8";
  case BlockFormat::MxFp4:
    return "MXFP4";
  case BlockFormat::NvFp4:
    return "NVFP4";
  }
  llvm_unreachable("unknown block format");
}

ScaleRounding getDefaultScaleRounding(BlockFormat format) {
  switch (format) {
  case BlockFormat::Fp8Block:
    return ScaleRounding::Exact;
  case BlockFormat::NvFp4:
    return ScaleRounding::E4M3;
  default:
    return ScaleRounding::Pow2Ceil;
  }
}

bool isScaleRoundingAllowed(BlockFormat format, ScaleRounding rounding) {
  switch (format) {
  case BlockFormat::Fp8Block:
    return rounding == ScaleRounding::Exact ||
           rounding == ScaleRounding::Pow2Ceil;
  case BlockFormat::Fp8BlockE8M0:
    return rounding == ScaleRounding::Pow2Ceil;
  case BlockFormat::MxFp8:
  case BlockFormat::MxFp4:
    return rounding == ScaleRounding::Pow2Ceil ||
           rounding == ScaleRounding::Pow2Floor;
  case BlockFormat::NvFp4:
    return rounding == ScaleRounding::E4M3;
  }
  return false;
}

bool isFp8Type(Type type) {
  return isa<Float8E4M3FNType, Float8E4M3FNUZType>(type);
}

float getFp8Max(Type fp8Type) {
  return isa<Float8E4M3FNUZType>(fp8Type) ? 240.0f : 448.0f;
}

} // namespace fp8q
