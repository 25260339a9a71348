//===- NumericsTest.cpp - Exact fp8 / bf16 / f16 conversions --------------===//

#include "RuntimeTestUtil.h"

#include "fp8q/Runtime/fp8q_numerics.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace fp8q::test;

namespace {

const int kTypes[] = {FP8Q_F8E4M3FN, FP8Q_F8E4M3FNUZ};

bool isNanCode(uint8_t c, int type) {
  return type == FP8Q_F8E4M3FNUZ ? c == 0x80 : (c & 0x7F) == 0x7F;
}

TEST(Fp8Numerics, DecodeAllCodesMatchesFormatDefinition) {
  for (int type : kTypes)
    for (int c = 0; c < 256; ++c) {
      float got = fp8q_fp8_decode(uint8_t(c), type);
      double want = refDecode(uint8_t(c), type);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << "type " << type << " code " << c;
        continue;
      }
      EXPECT_EQ(double(got), want) << "type " << type << " code " << c;
      if (c == 0x80 && type == FP8Q_F8E4M3FN)
        EXPECT_TRUE(std::signbit(got));
    }
  EXPECT_EQ(fp8q_fp8_decode(0x7E, FP8Q_F8E4M3FN), 448.0f);
  EXPECT_EQ(fp8q_fp8_decode(0x7F, FP8Q_F8E4M3FNUZ), 240.0f);
  EXPECT_EQ(fp8q_fp8_decode(0x01, FP8Q_F8E4M3FN), 0x1p-9f);
  EXPECT_EQ(fp8q_fp8_decode(0x01, FP8Q_F8E4M3FNUZ), 0x1p-10f);
}

TEST(Fp8Numerics, RoundTripAllFiniteCodes) {
  int checked = 0;
  for (int type : kTypes)
    for (int c = 0; c < 256; ++c) {
      if (isNanCode(uint8_t(c), type))
        continue;
      EXPECT_EQ(fp8q_fp8_encode(fp8q_fp8_decode(uint8_t(c), type), type), c)
          << "type " << type << " code " << c;
      ++checked;
    }
  EXPECT_EQ(checked, 254 + 255);
}

TEST(Fp8Numerics, TiesRoundToEvenAtEveryMidpoint) {
  for (int type : kTypes)
    for (int c = 0; c < 127; ++c) {
      if (isNanCode(uint8_t(c + 1), type))
        continue;
      float lo = fp8q_fp8_decode(uint8_t(c), type);
      float hi = fp8q_fp8_decode(uint8_t(c + 1), type);
      float mid = (lo + hi) / 2; // exact: fp8 has 3 mantissa bits
      ASSERT_EQ(double(mid), (double(lo) + double(hi)) / 2);
      uint8_t even = (c & 1) ? c + 1 : c;
      EXPECT_EQ(fp8q_fp8_encode(mid, type), even) << type << " " << c;
      EXPECT_EQ(
          fp8q_fp8_encode(-mid, type),
          (c == 0 && even == 0 && type == FP8Q_F8E4M3FNUZ) ? 0 : (even | 0x80))
          << type << " " << c;
      EXPECT_EQ(fp8q_fp8_encode(std::nextafter(mid, 0.0f), type), c);
      EXPECT_EQ(fp8q_fp8_encode(std::nextafter(mid, 1e9f), type), c + 1);
    }
}

TEST(Fp8Numerics, MatchesExhaustiveNearestSearch) {
  Rng rng(7);
  for (int type : kTypes)
    for (int i = 0; i < 20000; ++i) {
      // Log-uniform magnitudes from far below the subnormals to far above
      // the range.
      float x = float(std::ldexp(rng.uniform(1, 2), int(rng.uniform(-14, 11))));
      if (rng.next() & 1)
        x = -x;
      ASSERT_EQ(fp8q_fp8_encode(x, type), refEncode(x, type))
          << "type " << type << " x " << x;
    }
}

TEST(Fp8Numerics, SaturatesAndHandlesSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // E4M3FN: 448 is 0x7E; 464 (the tie with the missing 480) and beyond
  // saturate.
  EXPECT_EQ(fp8q_fp8_encode(449.0f, FP8Q_F8E4M3FN), 0x7E);
  EXPECT_EQ(fp8q_fp8_encode(464.0f, FP8Q_F8E4M3FN), 0x7E);
  EXPECT_EQ(fp8q_fp8_encode(1e30f, FP8Q_F8E4M3FN), 0x7E);
  EXPECT_EQ(fp8q_fp8_encode(-1e30f, FP8Q_F8E4M3FN), 0xFE);
  EXPECT_EQ(fp8q_fp8_encode(inf, FP8Q_F8E4M3FN), 0x7E);
  EXPECT_EQ(fp8q_fp8_encode(-inf, FP8Q_F8E4M3FN), 0xFE);
  EXPECT_EQ(fp8q_fp8_encode(nan, FP8Q_F8E4M3FN), 0x7F);
  EXPECT_EQ(fp8q_fp8_encode(-nan, FP8Q_F8E4M3FN), 0xFF);
  EXPECT_EQ(fp8q_fp8_encode(-0.0f, FP8Q_F8E4M3FN), 0x80);
  // E4M3FNUZ: 240 is 0x7F, 0x80 is the only NaN, no negative zero.
  EXPECT_EQ(fp8q_fp8_encode(250.0f, FP8Q_F8E4M3FNUZ), 0x7F);
  EXPECT_EQ(fp8q_fp8_encode(-1e30f, FP8Q_F8E4M3FNUZ), 0xFF);
  EXPECT_EQ(fp8q_fp8_encode(inf, FP8Q_F8E4M3FNUZ), 0x7F);
  EXPECT_EQ(fp8q_fp8_encode(nan, FP8Q_F8E4M3FNUZ), 0x80);
  EXPECT_EQ(fp8q_fp8_encode(-nan, FP8Q_F8E4M3FNUZ), 0x80);
  EXPECT_EQ(fp8q_fp8_encode(-0.0f, FP8Q_F8E4M3FNUZ), 0x00);
  EXPECT_EQ(fp8q_fp8_encode(-0x1p-13f, FP8Q_F8E4M3FNUZ), 0x00);
  // fp32 subnormals round to zero.
  EXPECT_EQ(fp8q_fp8_encode(1e-40f, FP8Q_F8E4M3FN), 0x00);
}

TEST(Bf16Numerics, RoundToNearestEven) {
  // 1 + 2^-8 is the tie between 1 and 1 + 2^-7: goes to even (1).
  EXPECT_EQ(fp8q_f32_to_bf16(1.0f + 0x1p-8f), 0x3F80);
  // 1 + 3*2^-8 ties between 1+2^-7 (odd) and 1+2^-6 (even).
  EXPECT_EQ(fp8q_f32_to_bf16(1.0f + 3 * 0x1p-8f), 0x3F82);
  EXPECT_EQ(fp8q_f32_to_bf16(1.0f + 0x1p-8f + 0x1p-20f), 0x3F81);
  EXPECT_EQ(fp8q_f32_to_bf16(-2.0f), 0xC000);
  EXPECT_EQ(fp8q_f32_to_bf16(0x1.fffffep127f), 0x7F80); // rounds to inf
  uint16_t n = fp8q_f32_to_bf16(std::numeric_limits<float>::quiet_NaN());
  EXPECT_TRUE(std::isnan(fp8q_bf16_to_f32(n)));
  // Every bf16 value round-trips, and the midpoints to the next value go
  // to the even neighbour.
  for (uint32_t h = 0; h < 0x7F80; ++h) {
    float v = fp8q_bf16_to_f32(uint16_t(h));
    ASSERT_EQ(fp8q_f32_to_bf16(v), h);
    float mid = fp8q_bits_f32((h << 16) | 0x8000u);
    ASSERT_EQ(fp8q_f32_to_bf16(mid), (h & 1) ? h + 1 : h) << h;
  }
}

TEST(F16Numerics, RoundToNearestEven) {
  for (uint32_t h = 0; h < 0x7C00; ++h) {
    float v = fp8q_f16_to_f32(uint16_t(h));
    ASSERT_EQ(fp8q_f32_to_f16(v), h) << h;
    ASSERT_EQ(fp8q_f32_to_f16(-v), h | 0x8000) << h;
    if (h + 1 < 0x7C00) {
      double mid = (double(v) + double(fp8q_f16_to_f32(uint16_t(h + 1)))) / 2;
      ASSERT_EQ(fp8q_f32_to_f16(float(mid)), (h & 1) ? h + 1 : h) << h;
    }
  }
  EXPECT_EQ(fp8q_f16_to_f32(0x3C00), 1.0f);
  EXPECT_EQ(fp8q_f16_to_f32(0x0001), 0x1p-24f);
  EXPECT_EQ(fp8q_f32_to_f16(65504.0f), 0x7BFF);
  EXPECT_EQ(fp8q_f32_to_f16(65520.0f), 0x7C00); // tie above max -> inf
  EXPECT_EQ(fp8q_f32_to_f16(1e9f), 0x7C00);
  EXPECT_TRUE(std::isnan(fp8q_f16_to_f32(
      fp8q_f32_to_f16(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(QuantScale, FollowsSpecFormula) {
  EXPECT_EQ(fp8q_quant_scale(448.0f, FP8Q_F8E4M3FN), 1.0f);
  EXPECT_EQ(fp8q_quant_scale(240.0f, FP8Q_F8E4M3FNUZ), 1.0f);
  EXPECT_EQ(fp8q_quant_scale(0.0f, FP8Q_F8E4M3FN), 1e-10f / 448.0f);
  EXPECT_EQ(fp8q_quantize_value(-448.0f, 1.0f, FP8Q_F8E4M3FN), 0xFE);
}

} // namespace
