//===- PreshuffleTest.cpp - preshuffle_16x16 permutation ------------------===//

#include "fp8q/Target/Preshuffle.h"
#include "fp8q/Dialect/IR/Fp8qDialect.h"
#include "fp8q/Runtime/fp8q_preshuffle.h"

#include "mlir/IR/MLIRContext.h"
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

using namespace mlir;
using namespace fp8q;

namespace {

/// SPEC's definition, written independently of the library: view the
/// row-major [N, K] weight as [N/16, 16, K/32, 2, 16] and transpose it to
/// [N/16, K/32, 2, 16, 16] with a naive 5-deep loop.
std::vector<int> naivePreshuffle(const std::vector<int> &w, int64_t n,
                                 int64_t k) {
  std::vector<int> out;
  out.reserve(w.size());
  for (int64_t n0 = 0; n0 < n / 16; ++n0)
    for (int64_t k0 = 0; k0 < k / 32; ++k0)
      for (int64_t k1 = 0; k1 < 2; ++k1)
        for (int64_t n1 = 0; n1 < 16; ++n1)
          for (int64_t k2 = 0; k2 < 16; ++k2)
            out.push_back(w[(n0 * 16 + n1) * k + k0 * 32 + k1 * 16 + k2]);
  return out;
}

const std::pair<int64_t, int64_t> kShapes[] = {{16, 32}, {16, 128}, {32, 64},
                                               {48, 96}, {64, 256}, {128, 32}};

TEST(Preshuffle, OffsetMatchesNaiveLoop) {
  for (auto [n, k] : kShapes) {
    std::vector<int> w(n * k);
    std::iota(w.begin(), w.end(), 0);
    std::vector<int> expected = naivePreshuffle(w, n, k);
    std::vector<int> actual(n * k, -1);
    for (int64_t row = 0; row < n; ++row)
      for (int64_t col = 0; col < k; ++col)
        actual[preshuffleOffset(row, col, n, k)] = w[row * k + col];
    EXPECT_EQ(actual, expected) << "shape " << n << "x" << k;
  }
}

TEST(Preshuffle, OffsetIsABijectionAndInverseRoundTrips) {
  for (auto [n, k] : kShapes) {
    std::vector<bool> seen(n * k, false);
    for (int64_t row = 0; row < n; ++row) {
      for (int64_t col = 0; col < k; ++col) {
        int64_t offset = fp8q_preshuffle_offset(row, col, n, k);
        ASSERT_GE(offset, 0);
        ASSERT_LT(offset, n * k);
        EXPECT_FALSE(seen[offset]) << "offset " << offset << " hit twice";
        seen[offset] = true;
        int64_t backRow = -1, backCol = -1;
        fp8q_preshuffle_unoffset(offset, n, k, &backRow, &backCol);
        EXPECT_EQ(backRow, row);
        EXPECT_EQ(backCol, col);
      }
    }
  }
}

TEST(Preshuffle, SpecExampleOffsets) {
  // W[16*n0+n1, 32*k0+16*k1+k2] at (((n0*(K/32)+k0)*2+k1)*16+n1)*16+k2.
  EXPECT_EQ(preshuffleOffset(0, 0, 32, 64), 0);
  EXPECT_EQ(preshuffleOffset(1, 0, 32, 64), 16);     // n1 = 1
  EXPECT_EQ(preshuffleOffset(0, 16, 32, 64), 256);   // k1 = 1
  EXPECT_EQ(preshuffleOffset(0, 32, 32, 64), 512);   // k0 = 1
  EXPECT_EQ(preshuffleOffset(16, 0, 32, 64), 1024);  // n0 = 1
  EXPECT_EQ(preshuffleOffset(31, 63, 32, 64), 2047); // last element
  EXPECT_TRUE(fp8q_preshuffle_ok(16, 32));
  EXPECT_FALSE(fp8q_preshuffle_ok(8, 32));
  EXPECT_FALSE(fp8q_preshuffle_ok(16, 48));
}

TEST(Preshuffle, BufferRoundTripsWithWideElements) {
  for (size_t elemBytes : {size_t(1), size_t(2), size_t(4)}) {
    int64_t n = 32, k = 64;
    std::vector<char> plain(n * k * elemBytes);
    for (size_t i = 0; i < plain.size(); ++i)
      plain[i] = static_cast<char>((i * 7 + 3) & 0xff);
    std::vector<char> shuffled(plain.size()), back(plain.size());
    preshuffleBuffer(plain, shuffled, n, k, elemBytes);
    EXPECT_NE(shuffled, plain);
    unpreshuffleBuffer(shuffled, back, n, k, elemBytes);
    EXPECT_EQ(back, plain) << "element size " << elemBytes;
  }
}

TEST(Preshuffle, ConstantIsByteExact) {
  MLIRContext ctx;
  ctx.loadDialect<Fp8qDialect>();
  int64_t n = 16, k = 64;
  auto type = RankedTensorType::get({n, k}, Float8E4M3FNType::get(&ctx));
  std::vector<char> bytes(n * k);
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = static_cast<char>(i % 0x7e); // avoid NaN encodings
  auto dense = DenseElementsAttr::getFromRawBuffer(type, bytes);
  DenseElementsAttr shuffled = preshuffleConstant(dense);
  ASSERT_TRUE(shuffled);
  auto resultType = cast<RankedTensorType>(shuffled.getType());
  EXPECT_TRUE(isa<WeightLayoutAttr>(resultType.getEncoding()));
  EXPECT_EQ(resultType.getShape(), type.getShape());
  ArrayRef<char> raw = shuffled.getRawData();
  ASSERT_EQ(raw.size(), bytes.size());
  for (int64_t row = 0; row < n; ++row)
    for (int64_t col = 0; col < k; ++col)
      EXPECT_EQ(raw[preshuffleOffset(row, col, n, k)], bytes[row * k + col]);

  // Splats stay splats; shapes preshuffle_16x16 cannot hold are refused.
  auto splat =
      DenseElementsAttr::get(type, FloatAttr::get(type.getElementType(), 1.0));
  DenseElementsAttr splatShuffled = preshuffleConstant(splat);
  ASSERT_TRUE(splatShuffled);
  EXPECT_TRUE(splatShuffled.isSplat());
  auto odd = RankedTensorType::get({8, 64}, type.getElementType());
  EXPECT_FALSE(preshuffleConstant(
      DenseElementsAttr::get(odd, FloatAttr::get(type.getElementType(), 1.0))));
  EXPECT_FALSE(preshuffleConstant(shuffled)) << "already preshuffled";
}

} // namespace
