//===- MaterializeV2Test.cpp - materialize_v2 between any two layouts -----===//
//
// Every pair of layouts that can hold the element size, M around the
// layouts' tile sizes: every (m, g) arrives unchanged (NaN bytes
// included), a padded destination's padding is 0, nothing outside the
// destination's allocation is touched. The expected positions come from
// the tests' own spelling of SPEC v2's offset formulas
// (SpecScaleLayouts.h), not from fp8q_scale_layouts.h. Then the
// descriptor checks.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtil.h"
#include "SpecScaleLayouts.h"

#include "fp8q/Runtime/fp8q_scale_layouts.h"

#include "gtest/gtest.h"

#include <cstring>
#include <string>
#include <vector>

using namespace fp8q::test;

namespace {

struct Pair {
  LayoutCase src, dst;
  int scaleType;
};

std::vector<Pair> allPairs() {
  std::vector<Pair> ps;
  for (int scaleType : {FP8Q_SCALE_F32, FP8Q_SCALE_F8E8M0FNU})
    for (const LayoutCase &a : kLayouts)
      for (const LayoutCase &b : kLayouts)
        if (scaleType != FP8Q_SCALE_F32 || (!isPadded(a) && !isPadded(b)))
          ps.push_back({a, b, scaleType});
  return ps;
}

class MaterializeV2 : public testing::TestWithParam<Pair> {};

TEST_P(MaterializeV2, EveryElementArrivesAndPaddingIsZero) {
  const Pair &p = GetParam();
  const size_t elt = p.scaleType == FP8Q_SCALE_F32 ? 4 : 1;
  for (int64_t M : {1, 33, 130, 257})
    for (int64_t G : {1, 5, 9}) {
      Rng rng(uint64_t(M * 131 + G));
      ScaleBuf src(p.src, M, G, elt, 0x5A), dst(p.dst, M, G, elt, 0xAB);
      // Distinct element bytes; some NaN e8m0 bytes (0xFF).
      std::vector<uint8_t> value(M * G * elt);
      for (size_t i = 0; i < value.size(); ++i)
        value[i] = uint8_t(rng.next() % 7 == 0 ? 0xFF : rng.next());
      for (int64_t m = 0; m < M; ++m)
        for (int64_t g = 0; g < G; ++g)
          std::memcpy(&src.bytes[specOffset(p.src, M, G, m, g) * elt],
                      &value[(m * G + g) * elt], elt);
      ASSERT_EQ(fp8q_materialize_v2(src.d(), dst.d(), p.scaleType,
                                    p.src.layout, p.src.align, p.dst.layout,
                                    p.dst.align),
                FP8Q_OK)
          << fp8q_last_error();
      std::vector<uint8_t> want(dst.bytes.size(), 0xAB);
      if (isPadded(p.dst))
        std::fill(want.begin(), want.begin() + specAlloc(p.dst, M, G) * elt,
                  0);
      for (int64_t m = 0; m < M; ++m)
        for (int64_t g = 0; g < G; ++g)
          std::memcpy(&want[specOffset(p.dst, M, G, m, g) * elt],
                      &value[(m * G + g) * elt], elt);
      ASSERT_EQ(dst.bytes, want) << "M=" << M << " G=" << G;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Layouts, MaterializeV2, testing::ValuesIn(allPairs()),
    [](const testing::TestParamInfo<Pair> &info) {
      return std::string(info.param.scaleType == FP8Q_SCALE_F32 ? "F32_"
                                                                : "Byte_") +
             info.param.src.name + "_to_" + info.param.dst.name;
    });

/// Expects `status` and a message containing `msg`, and dst untouched.
void expectRejected(fp8q_memref_2d *src, ScaleBuf &dst, int scaleType,
                    int srcLayout, int64_t srcAlign, int dstLayout,
                    int64_t dstAlign, int32_t status, const char *msg) {
  auto before = dst.bytes;
  EXPECT_EQ(fp8q_materialize_v2(src, dst.d(), scaleType, srcLayout, srcAlign,
                                dstLayout, dstAlign),
            status)
      << fp8q_last_error();
  EXPECT_NE(std::string(fp8q_last_error()).find(msg), std::string::npos)
      << fp8q_last_error();
  EXPECT_EQ(dst.bytes, before);
}

TEST(MaterializeV2Checks, DescriptorsMustMatchTheirDeclaredLayouts) {
  const LayoutCase row{"RowMajor", FP8Q_LAYOUT_ROW_MAJOR, 1};
  const LayoutCase sw{"Swizzle", FP8Q_LAYOUT_SWIZZLE_32_4_4, 1};
  const LayoutCase mx{"Cdna4Mx", FP8Q_LAYOUT_CDNA4_MX, 1};
  ScaleBuf rowSrc(row, 4, 8, 1, 1), swSrc(sw, 4, 8, 1, 1);
  ScaleBuf swDst(sw, 4, 8, 1, 0xAB), mxDst(mx, 4, 8, 1, 0xAB);
  ScaleBuf rowDst(row, 4, 8, 1, 0xAB);
  // A row-major buffer (same shape) where a swizzled one is declared.
  expectRejected(rowSrc.d(), mxDst, FP8Q_SCALE_F8E8M0FNU, sw.layout, 1,
                 mx.layout, 1, FP8Q_ERR_LAYOUT,
                 "operand src is declared swizzle_32_4_4, a padded layout: "
                 "its descriptor must have strides (0, 0)");
  // A swizzled buffer where row_major is declared.
  expectRejected(swSrc.d(), mxDst, FP8Q_SCALE_F8E8M0FNU, row.layout, 1,
                 mx.layout, 1, FP8Q_ERR_LAYOUT,
                 "operand src is declared row_major (align 1): its strides "
                 "must be (8, 1), got (0, 0)");
  expectRejected(swSrc.d(), rowDst, FP8Q_SCALE_F8E8M0FNU, sw.layout, 1,
                 sw.layout, 1, FP8Q_ERR_LAYOUT,
                 "operand dst is declared swizzle_32_4_4, a padded layout");
  // Sizes must agree.
  ScaleBuf small(mx, 4, 4, 1, 0xAB);
  expectRejected(swSrc.d(), small, FP8Q_SCALE_F8E8M0FNU, sw.layout, 1,
                 mx.layout, 1, FP8Q_ERR_SHAPE,
                 "operand dst has sizes [4, 4], expected [4, 8]");
  // Codes.
  expectRejected(swSrc.d(), mxDst, FP8Q_SCALE_F32, sw.layout, 1, mx.layout, 1,
                 FP8Q_ERR_ARG,
                 "src_layout swizzle_32_4_4 holds 1-byte scales (f8E8M0FNU "
                 "or f8E4M3FN), not f32");
  expectRejected(swSrc.d(), mxDst, 3, sw.layout, 1, mx.layout, 1,
                 FP8Q_ERR_ARG, "scale_type 3 is not an fp8q_scale_type");
  expectRejected(swSrc.d(), mxDst, FP8Q_SCALE_F8E8M0FNU, sw.layout, 1, 7, 1,
                 FP8Q_ERR_ARG, "dst_layout 7 is not an fp8q_scale_layout");
  expectRejected(swSrc.d(), mxDst, FP8Q_SCALE_F8E8M0FNU, sw.layout, 2,
                 mx.layout, 1, FP8Q_ERR_ARG,
                 "src_layout swizzle_32_4_4 has no align");
  expectRejected(nullptr, mxDst, FP8Q_SCALE_F8E8M0FNU, sw.layout, 1,
                 mx.layout, 1, FP8Q_ERR_NULL,
                 "operand src: descriptor pointer is null");
}

TEST(MaterializeV2Checks, InPlaceBetweenEqualLayoutsKeepsTheValues) {
  // src and dst the same buffer: every value is read before any write.
  const LayoutCase mx{"Cdna4Mx", FP8Q_LAYOUT_CDNA4_MX, 1};
  ScaleBuf b(mx, 40, 8, 1, 0);
  for (int64_t m = 0; m < 40; ++m)
    for (int64_t g = 0; g < 8; ++g)
      b.bytes[specOffset(mx, 40, 8, m, g)] = uint8_t(m * 8 + g);
  auto before = b.bytes;
  ASSERT_EQ(fp8q_materialize_v2(b.d(), b.d(), FP8Q_SCALE_F8E8M0FNU, mx.layout,
                                1, mx.layout, 1),
            FP8Q_OK)
      << fp8q_last_error();
  EXPECT_EQ(b.bytes, before);
}

} // namespace
