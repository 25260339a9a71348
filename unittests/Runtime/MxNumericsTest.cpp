//===- MxNumericsTest.cpp - v2 formats: E5M2, E2M1, E8M0, scale rules -----===//
//
// Exhaustive over codes, property tests over fp32 values, checked against
// references written from the format definitions (double arithmetic,
// nearest-code search), not against fp8q_mx_numerics.h itself.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtil.h"

#include "fp8q/Runtime/fp8q_mx_numerics.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>
#include <vector>

using namespace fp8q::test;

namespace {

/// E5M2 from its definition: S.EEEEE.MM, bias 15.
double refE5M2(int c) {
  int e = (c >> 2) & 31, m = c & 3;
  double mag;
  if (e == 31)
    mag = m ? NAN : INFINITY;
  else
    mag = e == 0 ? std::ldexp(m / 4.0, -14) : std::ldexp(1 + m / 4.0, e - 15);
  return (c & 0x80) ? -mag : mag;
}

/// E2M1 from its definition: S.EE.M, bias 1.
double refE2M1(int c) {
  int e = (c >> 1) & 3, m = c & 1;
  double mag = e == 0 ? m * 0.5 : std::ldexp(1 + m / 2.0, e - 1);
  return (c & 8) ? -mag : mag;
}

/// Nearest positive code among codes [0, maxCode] of `dec`, ties to the
/// even code, saturating; the sign bit `signBit` is added for negatives.
template <typename Dec>
int refNearest(double x, Dec dec, int maxCode, int signBit) {
  double a = std::fabs(x);
  if (a > dec(maxCode))
    a = dec(maxCode);
  int best = 0;
  double bestErr = INFINITY;
  for (int c = 0; c <= maxCode; ++c) {
    double err = std::fabs(dec(c) - a);
    if (err < bestErr || (err == bestErr && (c & 1) == 0)) {
      best = c;
      bestErr = err;
    }
  }
  return std::signbit(x) ? (best | signBit) : best;
}

/// Random fp32 values over a wide exponent range, both signs.
std::vector<float> sampleValues(int lo, int hi, int n, uint64_t seed) {
  Rng rng(seed);
  std::vector<float> v;
  for (int i = 0; i < n; ++i) {
    double mag = std::ldexp(rng.uniform(1.0, 2.0), int(rng.uniform(lo, hi)));
    v.push_back(float(rng.next() & 1 ? -mag : mag));
  }
  return v;
}

TEST(E5M2, DecodeEveryCodeMatchesDefinition) {
  for (int c = 0; c < 256; ++c) {
    double want = refE5M2(c);
    float got = fp8q_e5m2_decode(uint8_t(c));
    if (std::isnan(want))
      EXPECT_TRUE(std::isnan(got)) << c;
    else
      EXPECT_EQ(double(got), want) << c;
  }
  EXPECT_EQ(fp8q_e5m2_decode(0x7B), 57344.0f);
  EXPECT_EQ(fp8q_e5m2_decode(0x01), 0x1p-16f);
}

TEST(E5M2, EncodeRoundTripsEveryFiniteCode) {
  int n = 0;
  for (int c = 0; c < 256; ++c) {
    if (((c >> 2) & 31) == 31)
      continue;
    EXPECT_EQ(fp8q_e5m2_encode(fp8q_e5m2_decode(uint8_t(c))), c) << c;
    ++n;
  }
  EXPECT_EQ(n, 248);
}

TEST(E5M2, EncodeIsNearestEvenSaturatingAtMidpointsAndRandomValues) {
  std::vector<float> xs = sampleValues(-20, 18, 20000, 7);
  for (int c = 0; c < 0x7B; ++c) // every midpoint (exact in fp32)
    xs.push_back(float((refE5M2(c) + refE5M2(c + 1)) / 2));
  xs.push_back(57344.0f * 1.125f); // past the last midpoint
  xs.push_back(1e30f);
  xs.push_back(0x1p-18f); // below half the smallest subnormal
  for (float x : xs)
    ASSERT_EQ(fp8q_e5m2_encode(x), refNearest(x, refE5M2, 0x7B, 0x80)) << x;
  EXPECT_EQ(fp8q_e5m2_encode(INFINITY), 0x7B);
  EXPECT_EQ(fp8q_e5m2_encode(-INFINITY), 0xFB);
  EXPECT_EQ(fp8q_e5m2_encode(NAN), 0x7E);
  EXPECT_EQ(fp8q_e5m2_encode(-0.0f), 0x80);
  EXPECT_TRUE(std::isnan(fp8q_e5m2_decode(fp8q_e5m2_encode(NAN))));
}

TEST(E2M1, DecodeIsTheSixteenValues) {
  const float want[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
  for (int c = 0; c < 16; ++c) {
    EXPECT_EQ(fp8q_e2m1_decode(uint8_t(c)),
              (c & 8) ? -want[c & 7] : want[c & 7]);
    EXPECT_EQ(double(fp8q_e2m1_decode(uint8_t(c))), refE2M1(c));
    EXPECT_EQ(std::signbit(fp8q_e2m1_decode(uint8_t(c))), c >= 8);
    // Only the low nibble is read.
    EXPECT_EQ(fp8q_e2m1_decode(uint8_t(c | 0xA0)),
              fp8q_e2m1_decode(uint8_t(c)));
  }
}

TEST(E2M1, EncodeTiesGoToEvenAndValuesSaturate) {
  struct {
    float x;
    int code;
  } cases[] = {{0.25f, 0},   {0.75f, 2},   {1.25f, 2},    {1.75f, 4},
               {2.5f, 4},    {3.5f, 6},    {5.0f, 6},     {-5.0f, 14},
               {0.2499f, 0}, {0.2501f, 1}, {5.0001f, 7},  {6.0f, 7},
               {7.0f, 7},    {1e38f, 7},   {-100.0f, 15}, {-0.0f, 8},
               {-0.1f, 8}};
  for (auto &t : cases)
    EXPECT_EQ(fp8q_e2m1_encode(t.x), t.code) << t.x;
  EXPECT_EQ(fp8q_e2m1_encode(INFINITY), 7);
  EXPECT_EQ(fp8q_e2m1_encode(-INFINITY), 15);
  EXPECT_EQ(fp8q_e2m1_encode(NAN), 7); // documented: E2M1 has no NaN
  for (int c = 0; c < 16; ++c)
    EXPECT_EQ(fp8q_e2m1_encode(fp8q_e2m1_decode(uint8_t(c))), c);
  for (float x : sampleValues(-6, 4, 20000, 11))
    ASSERT_EQ(fp8q_e2m1_encode(x), refNearest(x, refE2M1, 7, 8)) << x;
}

TEST(Minifloat, GenericRoutineEqualsTheE4M3Encoder) {
  // Cross-check: the shared rounding routine reproduces fp8q_fp8_encode for
  // E4M3FN on a sweep of fp32 bit patterns (every 4093rd, all exponents).
  for (uint64_t b = 0; b < 0x7F800000u; b += 4093) {
    uint32_t bits = uint32_t(b);
    uint8_t want = fp8q_fp8_encode(fp8q_bits_f32(bits), FP8Q_F8E4M3FN);
    ASSERT_EQ(fp8q_minifloat_mag(bits, 3, 7, 0x7E), want) << bits;
  }
}

TEST(E8M0, DecodeEveryByteAndEncodeInverts) {
  for (int e = 0; e < 255; ++e) {
    float v = fp8q_e8m0_decode(uint8_t(e));
    EXPECT_EQ(double(v), std::ldexp(1.0, e - 127)) << e;
    EXPECT_EQ(fp8q_e8m0_encode(v), e);
  }
  EXPECT_EQ(fp8q_f32_bits(fp8q_e8m0_decode(0)), 0x00400000u); // 2^-127
  EXPECT_TRUE(std::isnan(fp8q_e8m0_decode(0xFF)));
  EXPECT_EQ(fp8q_e8m0_encode(NAN), 0xFF);
  EXPECT_EQ(fp8q_e8m0_encode(0.0f), 0);       // clamp to 2^-127
  EXPECT_EQ(fp8q_e8m0_encode(0x1p-140f), 0);  // clamp to 2^-127
  EXPECT_EQ(fp8q_e8m0_encode(INFINITY), 254); // clamp to 2^127
  EXPECT_EQ(fp8q_e8m0_encode(3.0f), 128);     // not a power: rounds down
}

TEST(Pow2, ExactLog2AtEveryExponentAndItsNeighbours) {
  for (int e = -149; e <= 127; ++e) {
    float p = fp8q_pow2f(e);
    ASSERT_EQ(double(p), std::ldexp(1.0, e)) << e;
    EXPECT_EQ(fp8q_ilog2_floor(p), e);
    EXPECT_EQ(fp8q_ilog2_ceil(p), e);
    float up = std::nextafter(p, INFINITY); // 2^-149's is 2^-148
    if (e > -149) {
      EXPECT_EQ(fp8q_ilog2_floor(up), e) << e;
      EXPECT_EQ(fp8q_ilog2_ceil(up), e + 1) << e;
    }
    if (e > -148) { // 2^-148's lower neighbour is 2^-149
      float down = std::nextafter(p, 0.0f);
      EXPECT_EQ(fp8q_ilog2_floor(down), e - 1) << e;
      EXPECT_EQ(fp8q_ilog2_ceil(down), e) << e;
    }
  }
  EXPECT_EQ(fp8q_ilog2_floor(std::numeric_limits<float>::max()), 127);
  EXPECT_EQ(fp8q_ilog2_ceil(std::numeric_limits<float>::max()), 128);
}

const int kQTypes[] = {FP8Q_Q_F8E4M3FN, FP8Q_Q_F8E4M3FNUZ, FP8Q_Q_F8E5M2,
                       FP8Q_Q_F4E2M1FN};

TEST(ScaleRules, Pow2CeilIsTheSmallestPowerAtOrAboveTheQuotient) {
  for (int qt : kQTypes) {
    float qmax = fp8q_q_max(qt);
    std::vector<float> amaxes = sampleValues(-30, 120, 5000, 13 + qt);
    for (int e = -40; e <= 100; ++e) // exact powers of two times qmax
      amaxes.push_back(std::ldexp(qmax, e));
    for (float amax : amaxes) {
      amax = std::fabs(amax);
      float v = std::max(amax, 1e-10f) / qmax; // the fp32 quotient
      int e = fp8q_scale_exp_pow2_ceil(amax, qt);
      ASSERT_GE(std::ldexp(1.0, e), double(v)) << amax;
      ASSERT_LT(std::ldexp(1.0, e - 1), double(v)) << amax;
      EXPECT_EQ(fp8q_group_scale(amax, qt, FP8Q_ROUND_POW2_CEIL, 1.0f),
                float(std::ldexp(1.0, e)));
    }
    for (int e = -30; e <= 100; ++e) // a power of two is its own ceiling
      EXPECT_EQ(fp8q_scale_exp_pow2_ceil(std::ldexp(qmax, e), qt), e) << qt;
  }
  // E4M3: 448 * 2^k maps to 2^k; one ulp more to 2^(k+1).
  EXPECT_EQ(fp8q_scale_exp_pow2_ceil(448.0f, FP8Q_Q_F8E4M3FN), 0);
  EXPECT_EQ(
      fp8q_scale_exp_pow2_ceil(std::nextafter(448.0f, 1e9f), FP8Q_Q_F8E4M3FN),
      1);
}

TEST(ScaleRules, Pow2FloorUsesTheAmaxExponentMinusEmax) {
  const int emax[] = {8, 7, 15, 2};
  for (int qt : kQTypes) {
    EXPECT_EQ(fp8q_q_emax(qt), emax[qt]);
    for (float amax : sampleValues(-100, 120, 5000, 17 + qt)) {
      amax = std::fabs(amax);
      int want = std::ilogb(amax) - emax[qt];
      want = std::max(-127, std::min(127, want));
      ASSERT_EQ(fp8q_scale_exp_pow2_floor(amax, qt), want) << amax;
    }
    EXPECT_EQ(fp8q_scale_exp_pow2_floor(0.0f, qt), -127);
    EXPECT_EQ(fp8q_scale_exp_pow2_floor(0x1p-149f, qt), -127);
    EXPECT_EQ(fp8q_scale_exp_pow2_floor(INFINITY, qt), 127);
  }
  EXPECT_EQ(fp8q_scale_exp_pow2_floor(6.0f, FP8Q_Q_F4E2M1FN), 0);
  EXPECT_EQ(fp8q_scale_exp_pow2_floor(448.0f, FP8Q_Q_F8E4M3FN), 0);
  EXPECT_EQ(fp8q_scale_exp_pow2_floor(57344.0f, FP8Q_Q_F8E5M2), 0);
}

TEST(ScaleRules, AllZeroGroup) {
  // pow2_floor has no floor: an all-zero group clamps to 2^-127 (byte 0).
  float s = fp8q_group_scale(0.0f, FP8Q_Q_F4E2M1FN, FP8Q_ROUND_POW2_FLOOR, 1);
  EXPECT_EQ(fp8q_f32_bits(s), 0x00400000u);
  EXPECT_EQ(fp8q_e8m0_encode(s), 0);
  // pow2_ceil keeps SPEC's 1e-10 floor: 2^ceil(log2(1e-10 / qmax)).
  EXPECT_EQ(fp8q_scale_exp_pow2_ceil(0.0f, FP8Q_Q_F8E4M3FN), -42);
  EXPECT_EQ(fp8q_scale_exp_pow2_ceil(0.0f, FP8Q_Q_F4E2M1FN), -35);
  // exact: 1e-10 / qmax as before.
  EXPECT_EQ(fp8q_group_scale(0.0f, FP8Q_Q_F8E5M2, FP8Q_ROUND_EXACT, 1),
            1e-10f / 57344.0f);
  // Every element of the group quantizes to +0 under each rule.
  for (int r : {FP8Q_ROUND_POW2_CEIL, FP8Q_ROUND_POW2_FLOOR, FP8Q_ROUND_EXACT})
    EXPECT_EQ(fp8q_q_quantize(0.0f, fp8q_group_scale(0, 3, r, 1), 3), 0);
}

TEST(ScaleRules, E4M3IsNearestEvenOfAmaxOverSixGlobal) {
  Rng rng(5);
  for (int i = 0; i < 5000; ++i) {
    float amax =
        float(std::ldexp(rng.uniform(1, 2), int(rng.uniform(-20, 20))));
    float global =
        float(std::ldexp(rng.uniform(1, 2), int(rng.uniform(-8, 8))));
    float v = amax / (6.0f * global);
    uint8_t c = fp8q_scale_code_e4m3(amax, global);
    ASSERT_EQ(c, refEncode(v, FP8Q_F8E4M3FN)) << amax << " " << global;
    EXPECT_EQ(fp8q_group_scale(amax, 3, FP8Q_ROUND_E4M3, global),
              fp8q_fp8_decode(c, FP8Q_F8E4M3FN));
  }
  EXPECT_EQ(fp8q_scale_code_e4m3(1e30f, 1.0f), 0x7E); // saturates to 448
  EXPECT_EQ(fp8q_scale_code_e4m3(INFINITY, 1.0f), 0x7E);
  // A scale that rounds to 0 quantizes its group to zeros, not to +-6.
  EXPECT_EQ(fp8q_scale_code_e4m3(1e-9f, 1.0f), 0);
  EXPECT_EQ(fp8q_q_quantize(1e-9f, 0.0f, FP8Q_Q_F4E2M1FN), 0);
  EXPECT_EQ(fp8q_q_quantize(-1e-9f, 0.0f, FP8Q_Q_F4E2M1FN), 8);
}

TEST(Quantize, SubnormalResultsAndLargestFiniteValues) {
  // fp8 subnormal q: x / scale below the smallest normal.
  EXPECT_EQ(fp8q_q_quantize(0x1p-15f, 1.0f, FP8Q_Q_F8E5M2), 0x02); // 2*2^-16
  EXPECT_EQ(fp8q_q_quantize(3 * 0x1p-17f, 1.0f, FP8Q_Q_F8E5M2), 0x02); // tie
  EXPECT_EQ(fp8q_q_quantize(0.25f, 1.0f, FP8Q_Q_F4E2M1FN), 0); // tie to 0
  // A tiny e8m0 scale (2^-127, an fp32 subnormal) divides exactly.
  EXPECT_EQ(fp8q_q_quantize(0x1p-126f, fp8q_pow2f(-127), FP8Q_Q_F4E2M1FN),
            fp8q_e2m1_encode(2.0f));
  // The largest finite values survive and saturate.
  const float big = std::numeric_limits<float>::max();
  EXPECT_EQ(fp8q_q_quantize(big, 1.0f, FP8Q_Q_F8E5M2), 0x7B);
  EXPECT_EQ(fp8q_q_quantize(-big, fp8q_pow2f(127), FP8Q_Q_F8E5M2), 0xC0);
  for (int qt : kQTypes) {
    float qmax = fp8q_q_max(qt);
    EXPECT_EQ(fp8q_q_dequantize(fp8q_q_quantize(qmax, 2.0f, qt), 2.0f, qt),
              qmax);
  }
}

TEST(Fp4Packing, LowNibbleFirstAndRoundTrip) {
  const uint8_t codes[5] = {0x1, 0xF, 0x7, 0x8, 0x3};
  uint8_t bytes[3] = {0xAA, 0xAA, 0xAA};
  fp8q_fp4_pack_row(codes, 5, bytes);
  EXPECT_EQ(bytes[0], 0xF1);
  EXPECT_EQ(bytes[1], 0x87);
  EXPECT_EQ(bytes[2], 0x03); // odd length: high nibble 0
  uint8_t back[5];
  fp8q_fp4_unpack_row(bytes, 5, back);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(back[i], codes[i]);
  Rng rng(3);
  std::vector<uint8_t> c(64), b(32), u(64);
  for (auto &v : c)
    v = uint8_t(rng.next() & 0xF);
  fp8q_fp4_pack_row(c.data(), 64, b.data());
  fp8q_fp4_unpack_row(b.data(), 64, u.data());
  EXPECT_EQ(c, u);
}

} // namespace
