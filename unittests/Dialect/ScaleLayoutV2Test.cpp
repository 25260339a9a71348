//===- ScaleLayoutV2Test.cpp - SPEC v2 layouts compared by bytes ----------===//
//
// areEquivalentLayouts on every pair of layouts (SPEC v2's padded ones
// included) over every small static shape, against the offset and
// allocation formulas of fp8q_scale_layouts.h; the format table.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Dialect/IR/ScaleLayout.h"
#include "fp8q/Runtime/fp8q_scale_layouts.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include <gtest/gtest.h>

using namespace mlir;
using namespace fp8q;

namespace {
class ScaleLayoutV2Test : public ::testing::Test {
protected:
  ScaleLayoutV2Test() { ctx.loadDialect<Fp8qDialect>(); }
  MLIRContext ctx;
  static constexpr int64_t kDyn = ShapedType::kDynamic;

  /// The attribute as fp8q-opt prints it, for failure messages.
  static std::string str(Attribute attr) {
    std::string text;
    llvm::raw_string_ostream(text) << attr;
    return text;
  }

  /// Every layout the dialect has, with a few aligns.
  SmallVector<LayoutAttr> allLayouts() {
    return {LayoutAttr::getRowMajor(&ctx),
            LayoutAttr::getColMajor(&ctx, 1),
            LayoutAttr::getColMajor(&ctx, 2),
            LayoutAttr::getColMajor(&ctx, 4),
            LayoutAttr::getColMajorPack4(&ctx, 1),
            LayoutAttr::getColMajorPack4(&ctx, 4),
            LayoutAttr::getColMajorPack4(&ctx, 8),
            LayoutAttr::getTiled(&ctx, ScaleOrder::Swizzle32x4x4),
            LayoutAttr::getTiled(&ctx, ScaleOrder::Cdna4Mx)};
  }

  /// The oracle, straight from SPEC v2: the same byte for every (m, g),
  /// and (when a padded layout is involved) the same allocation.
  static bool sameBytes(LayoutAttr a, LayoutAttr b, int64_t m, int64_t g) {
    int ca = a.getLayoutCode(), cb = b.getLayoutCode();
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < g; ++j)
        if (fp8q_scale_offset(ca, a.getAlign(), m, g, i, j) !=
            fp8q_scale_offset(cb, b.getAlign(), m, g, i, j))
          return false;
    if (a.isStrided() && b.isStrided())
      return true; // a strided memref views its buffer: no allocation rule
    return fp8q_scale_layout_alloc(ca, a.getAlign(), m, g) ==
           fp8q_scale_layout_alloc(cb, b.getAlign(), m, g);
  }
};

TEST_F(ScaleLayoutV2Test, ExhaustiveSmallShapesMatchTheFormulas) {
  SmallVector<int64_t> ms;
  for (int64_t m = 1; m <= 40; ++m)
    ms.push_back(m);
  for (int64_t m : {64, 127, 128, 129, 255, 256, 257})
    ms.push_back(m);
  int equalPairs = 0;
  for (LayoutAttr a : allLayouts())
    for (LayoutAttr b : allLayouts())
      for (int64_t m : ms)
        for (int64_t g = 1; g <= 10; ++g) {
          bool want = sameBytes(a, b, m, g);
          equalPairs += want && a != b;
          ASSERT_EQ(areEquivalentLayouts(a, b, {m, g}), want)
              << str(a) << " vs " << str(b) << " on [" << m << ", " << g << "]";
        }
  // The sweep does reach distinct layouts that are equal.
  EXPECT_GT(equalPairs, 0);
}

TEST_F(ScaleLayoutV2Test, PaddedLayoutsNeedEqualAllocations) {
  LayoutAttr row = LayoutAttr::getRowMajor(&ctx);
  LayoutAttr pack1 = LayoutAttr::getColMajorPack4(&ctx, 1);
  // M == 1, G == 4: one word, offsets g, 4 bytes either way.
  EXPECT_TRUE(areEquivalentLayouts(row, pack1, {1, 4}));
  EXPECT_TRUE(areEquivalentLayouts(pack1, row, {1, 4}));
  // M == 1, G == 3: same offsets, but pack4 allocates a whole word.
  EXPECT_FALSE(areEquivalentLayouts(row, pack1, {1, 3}));
  // pack4 with align 4 pads M == 1 to 4 words.
  EXPECT_FALSE(
      areEquivalentLayouts(row, LayoutAttr::getColMajorPack4(&ctx, 4), {1, 4}));
  // A single scale lands on byte 0 of every layout, but the tiles pad.
  LayoutAttr swz = LayoutAttr::getTiled(&ctx, ScaleOrder::Swizzle32x4x4);
  LayoutAttr cdna = LayoutAttr::getTiled(&ctx, ScaleOrder::Cdna4Mx);
  EXPECT_FALSE(areEquivalentLayouts(row, swz, {1, 1}));
  EXPECT_FALSE(areEquivalentLayouts(swz, cdna, {1, 1}));
  // Full tiles: still different byte orders.
  EXPECT_FALSE(areEquivalentLayouts(swz, cdna, {256, 8}));
  EXPECT_FALSE(areEquivalentLayouts(row, swz, {128, 4}));
}

TEST_F(ScaleLayoutV2Test, DynamicMOnlyWhenTheFormulasAreEqual) {
  LayoutAttr swz = LayoutAttr::getTiled(&ctx, ScaleOrder::Swizzle32x4x4);
  LayoutAttr cdna = LayoutAttr::getTiled(&ctx, ScaleOrder::Cdna4Mx);
  LayoutAttr pack4 = LayoutAttr::getColMajorPack4(&ctx, 4);
  EXPECT_TRUE(areEquivalentLayouts(swz, swz, {kDyn, 8}));
  EXPECT_TRUE(areEquivalentLayouts(pack4, pack4, {kDyn, 8}));
  EXPECT_FALSE(areEquivalentLayouts(swz, cdna, {kDyn, 8}));
  EXPECT_FALSE(areEquivalentLayouts(
      pack4, LayoutAttr::getColMajorPack4(&ctx, 1), {kDyn, 8}));
  EXPECT_FALSE(
      areEquivalentLayouts(pack4, LayoutAttr::getColMajor(&ctx, 4), {kDyn, 1}));
  EXPECT_FALSE(
      areEquivalentLayouts(swz, LayoutAttr::getRowMajor(&ctx), {kDyn, 4}));
}

TEST_F(ScaleLayoutV2Test, TooLargeToCompareIsDifferent) {
  // Conservative: a copy rather than minutes of comparison.
  LayoutAttr row = LayoutAttr::getRowMajor(&ctx);
  LayoutAttr pack1 = LayoutAttr::getColMajorPack4(&ctx, 1);
  EXPECT_FALSE(areEquivalentLayouts(row, pack1, {1, int64_t(1) << 26}));
}

TEST_F(ScaleLayoutV2Test, AllocationsAndCodes) {
  LayoutAttr swz = LayoutAttr::getTiled(&ctx, ScaleOrder::Swizzle32x4x4);
  LayoutAttr cdna = LayoutAttr::getTiled(&ctx, ScaleOrder::Cdna4Mx);
  LayoutAttr pack4 = LayoutAttr::getColMajorPack4(&ctx, 4);
  EXPECT_EQ(swz.getLayoutCode(), FP8Q_LAYOUT_SWIZZLE_32_4_4);
  EXPECT_EQ(cdna.getLayoutCode(), FP8Q_LAYOUT_CDNA4_MX);
  EXPECT_EQ(pack4.getLayoutCode(), FP8Q_LAYOUT_COL_MAJOR_PACK4);
  EXPECT_EQ(LayoutAttr::getColMajor(&ctx, 4).getLayoutCode(),
            FP8Q_LAYOUT_COL_MAJOR);
  EXPECT_EQ(LayoutAttr::getRowMajor(&ctx).getLayoutCode(),
            FP8Q_LAYOUT_ROW_MAJOR);
  EXPECT_EQ(getScaleAllocation(swz, {130, 5}), 256 * 8);
  EXPECT_EQ(getScaleAllocation(cdna, {130, 5}), 256 * 8);
  EXPECT_EQ(getScaleAllocation(pack4, {13, 5}), 8 * 16);
  EXPECT_EQ(getScaleAllocation(swz, {kDyn, 5}), std::nullopt);
  EXPECT_FALSE(swz.isStrided());
  EXPECT_FALSE(pack4.isStrided());
  EXPECT_FALSE(pack4.isColMajor());
  EXPECT_TRUE(LayoutAttr::getColMajor(&ctx, 4).isStrided());
}

TEST_F(ScaleLayoutV2Test, FormatTable) {
  Builder b(&ctx);
  Type e4m3 = b.getType<Float8E4M3FNType>(), e5m2 = b.getType<Float8E5M2Type>(),
       fnuz = b.getType<Float8E4M3FNUZType>(),
       fp4 = b.getType<Float4E2M1FNType>(),
       e8m0 = b.getType<Float8E8M0FNUType>(), f32 = b.getF32Type();
  std::string why;
  EXPECT_EQ(getBlockFormat(e4m3, f32, 128, &why), BlockFormat::Fp8Block);
  EXPECT_EQ(getBlockFormat(fnuz, f32, 64, &why), BlockFormat::Fp8Block);
  EXPECT_EQ(getBlockFormat(e4m3, e8m0, 128, &why), BlockFormat::Fp8BlockE8M0);
  EXPECT_EQ(getBlockFormat(e4m3, e8m0, 32, &why), BlockFormat::MxFp8);
  EXPECT_EQ(getBlockFormat(e5m2, e8m0, 32, &why), BlockFormat::MxFp8);
  EXPECT_EQ(getBlockFormat(fp4, e8m0, 32, &why), BlockFormat::MxFp4);
  EXPECT_EQ(getBlockFormat(fp4, e4m3, 16, &why), BlockFormat::NvFp4);
  EXPECT_EQ(getBlockFormat(fp4, e4m3, 32, &why), std::nullopt);
  EXPECT_EQ(getBlockFormat(e5m2, f32, 128, &why), std::nullopt);
  EXPECT_EQ(getBlockFormat(fnuz, e8m0, 32, &why), std::nullopt);
  EXPECT_EQ(getDefaultScaleRounding(BlockFormat::Fp8Block),
            ScaleRounding::Exact);
  EXPECT_EQ(getDefaultScaleRounding(BlockFormat::MxFp4),
            ScaleRounding::Pow2Ceil);
  EXPECT_EQ(getDefaultScaleRounding(BlockFormat::NvFp4), ScaleRounding::E4M3);
  EXPECT_TRUE(
      isScaleRoundingAllowed(BlockFormat::MxFp8, ScaleRounding::Pow2Floor));
  EXPECT_FALSE(
      isScaleRoundingAllowed(BlockFormat::MxFp8, ScaleRounding::Exact));
  EXPECT_FALSE(
      isScaleRoundingAllowed(BlockFormat::NvFp4, ScaleRounding::Pow2Ceil));
}
} // namespace
