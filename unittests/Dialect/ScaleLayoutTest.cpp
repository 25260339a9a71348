//===- ScaleLayoutTest.cpp - Layout equivalence and strides ---------------===//

#include "fp8q/Dialect/IR/ScaleLayout.h"

#include "mlir/IR/MLIRContext.h"
#include <gtest/gtest.h>

using namespace mlir;
using namespace fp8q;

namespace {
class ScaleLayoutTest : public ::testing::Test {
protected:
  ScaleLayoutTest() { ctx.loadDialect<Fp8qDialect>(); }
  MLIRContext ctx;
  LayoutAttr row() { return LayoutAttr::getRowMajor(&ctx); }
  LayoutAttr col(int64_t align = 1) {
    return LayoutAttr::getColMajor(&ctx, align);
  }
  static constexpr int64_t kDyn = ShapedType::kDynamic;
};

TEST_F(ScaleLayoutTest, Strides) {
  EXPECT_EQ(getScaleStrides(row(), {64, 56}), (SmallVector<int64_t, 2>{56, 1}));
  EXPECT_EQ(getScaleStrides(col(), {64, 56}), (SmallVector<int64_t, 2>{1, 64}));
  EXPECT_EQ(getScaleStrides(col(4), {13, 56}),
            (SmallVector<int64_t, 2>{1, 16}));
  EXPECT_EQ(getScaleStrides(col(4), {16, 56}),
            (SmallVector<int64_t, 2>{1, 16}));
  EXPECT_EQ(getScaleStrides(col(), {kDyn, 56}),
            (SmallVector<int64_t, 2>{1, kDyn}));
  EXPECT_EQ(getScaleStrides(row(), {kDyn, 56}),
            (SmallVector<int64_t, 2>{56, 1}));
}

TEST_F(ScaleLayoutTest, RowAndColDifferInGeneral) {
  EXPECT_FALSE(areEquivalentLayouts(row(), col(), {64, 56}));
  EXPECT_FALSE(areEquivalentLayouts(row(), col(), {kDyn, 56}));
  EXPECT_FALSE(areEquivalentLayouts(col(), col(4), {kDyn, 56}));
  EXPECT_FALSE(areEquivalentLayouts(col(), col(4), {13, 56}));
}

TEST_F(ScaleLayoutTest, DegenerateShapesAreEquivalent) {
  // M == 1: the row index is always 0.
  EXPECT_TRUE(areEquivalentLayouts(row(), col(), {1, 56}));
  // G == 1: the column index is always 0, even with dynamic M.
  EXPECT_TRUE(areEquivalentLayouts(row(), col(), {64, 1}));
  EXPECT_TRUE(areEquivalentLayouts(row(), col(), {kDyn, 1}));
  EXPECT_TRUE(areEquivalentLayouts(col(), col(4), {kDyn, 1}));
  // M a static multiple of the alignment: no padding.
  EXPECT_TRUE(areEquivalentLayouts(col(), col(4), {64, 56}));
  // With M == 1, padding to 4 moves column 1 to offset 4, not 1.
  EXPECT_FALSE(areEquivalentLayouts(row(), col(4), {1, 56}));
  EXPECT_TRUE(areEquivalentLayouts(row(), col(4), {1, 1}));
}

TEST_F(ScaleLayoutTest, RowMajorIsSpelledWithoutEncoding) {
  auto plain = RankedTensorType::get({kDyn, 56}, Float32Type::get(&ctx));
  RankedTensorType colType = withScaleLayout(plain, col());
  EXPECT_EQ(getScaleLayout(colType), col());
  EXPECT_EQ(withScaleLayout(colType, row()), plain);
  EXPECT_EQ(getScaleLayout(plain), row());
}
} // namespace
