//===- ScaleLayoutV2Test.cpp - The v2 kernels' index math and numerics ----===//
//
// The word walk of the padded layouts (scaleWordOf) and the padding mask
// (scalePaddingMask) against the shared index map fp8q_scale_offset, and
// the v2 kernels' one-value quantization (quantizeV2Value, reciprocal path
// included; the fma-corrected quotient) against fp8q_q_quantize, the CPU
// runtime's.
//
//===----------------------------------------------------------------------===//

#include "fp8q_kernels/ScaleLayoutV2.h"
#include "fp8q_kernels/QuantizeV2Common.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace fp8q::kern;

namespace {

struct Shape {
  int layout;
  int64_t align, M, G;
};

std::vector<Shape> paddedShapes() {
  std::vector<Shape> r;
  for (int64_t M : {1, 3, 16, 31, 33, 129, 300})
    for (int64_t G : {1, 3, 4, 7, 8, 9, 28}) {
      for (int64_t a : {1, 4, 16})
        r.push_back({FP8Q_LAYOUT_COL_MAJOR_PACK4, a, M, G});
      r.push_back({FP8Q_LAYOUT_SWIZZLE_32_4_4, 1, M, G});
      r.push_back({FP8Q_LAYOUT_CDNA4_MX, 1, M, G});
    }
  return r;
}

TEST(ScaleLayoutV2, DomainIsTheAllocation) {
  for (const Shape &s : paddedShapes()) {
    int64_t pm, pg;
    scalePaddedDomain(s.layout, s.align, s.M, s.G, pm, pg);
    EXPECT_GE(pm, s.M);
    EXPECT_GE(pg, s.G);
    EXPECT_EQ(pm * pg, fp8q_scale_layout_alloc(s.layout, s.align, s.M, s.G))
        << fp8q_scale_layout_name(s.layout) << " M=" << s.M << " G=" << s.G;
    EXPECT_EQ(pm * pg % 4, 0);
  }
}

TEST(ScaleLayoutV2, WordsInvertTheIndexMap) {
  for (const Shape &s : paddedShapes()) {
    int64_t pm, pg;
    scalePaddedDomain(s.layout, s.align, s.M, s.G, pm, pg);
    const int64_t words = pm * pg / 4;
    for (int64_t w = 0; w < words; ++w) {
      const ScaleWord sw = scaleWordOf(s.layout, pm, pg, w);
      for (int k = 0; k < 4; ++k) {
        const int64_t m = sw.m + sw.dm[k], g = sw.g + sw.dg[k];
        ASSERT_TRUE(m >= 0 && m < pm && g >= 0 && g < pg)
            << fp8q_scale_layout_name(s.layout) << " word " << w;
        ASSERT_EQ(fp8q_scale_offset(s.layout, s.align, s.M, s.G, m, g),
                  4 * w + k)
            << fp8q_scale_layout_name(s.layout) << " M=" << s.M << " G=" << s.G
            << " align=" << s.align << " word " << w << " byte " << k;
      }
    }
  }
}

TEST(ScaleLayoutV2, StorageWalkInvertsTheIndexMap) {
  // The raw-word quantize kernels' storage-order walk: byte b of the
  // allocation is group scaleByteCoord(b), in both index types.
  for (const Shape &s : paddedShapes()) {
    int64_t pm, pg;
    scalePaddedDomain(s.layout, s.align, s.M, s.G, pm, pg);
    for (int64_t b = 0; b < pm * pg; ++b) {
      int64_t m, g;
      scaleByteCoord<int64_t>(s.layout, pm, pg, b, m, g);
      uint32_t m32, g32;
      scaleByteCoord<uint32_t>(s.layout, (uint32_t)pm, (uint32_t)pg,
                               (uint32_t)b, m32, g32);
      ASSERT_TRUE(m >= 0 && m < pm && g >= 0 && g < pg)
          << fp8q_scale_layout_name(s.layout) << " byte " << b;
      ASSERT_EQ((int64_t)m32, m);
      ASSERT_EQ((int64_t)g32, g);
      ASSERT_EQ(fp8q_scale_offset(s.layout, s.align, s.M, s.G, m, g), b)
          << fp8q_scale_layout_name(s.layout) << " M=" << s.M << " G=" << s.G
          << " align=" << s.align << " byte " << b;
    }
  }
}

TEST(ScaleLayoutV2, QuantizeWalkVisitsEveryByteOnceInPairs) {
  // The raw-word quantize kernels' walk over a padded scale: a bijection
  // onto the allocation, each position's byte the index map's, positions
  // 2t and 2t + 1 adjacent bytes of one word (the kernels store them as
  // one 16-bit word), in both index types.
  for (const Shape &s : paddedShapes()) {
    int64_t pm, pg;
    scalePaddedDomain(s.layout, s.align, s.M, s.G, pm, pg);
    std::vector<char> seen(pm * pg, 0);
    for (int64_t i = 0; i < pm * pg; ++i) {
      int64_t m, g;
      const int64_t b = scaleWalkCoord<int64_t>(s.layout, pm, pg, i, m, g);
      uint32_t m32, g32;
      const uint32_t b32 = scaleWalkCoord<uint32_t>(
          s.layout, (uint32_t)pm, (uint32_t)pg, (uint32_t)i, m32, g32);
      ASSERT_TRUE(m >= 0 && m < pm && g >= 0 && g < pg)
          << fp8q_scale_layout_name(s.layout) << " position " << i;
      ASSERT_EQ((int64_t)m32, m);
      ASSERT_EQ((int64_t)g32, g);
      ASSERT_EQ((int64_t)b32, b);
      ASSERT_EQ(fp8q_scale_offset(s.layout, s.align, s.M, s.G, m, g), b)
          << fp8q_scale_layout_name(s.layout) << " M=" << s.M << " G=" << s.G
          << " align=" << s.align << " position " << i;
      ASSERT_FALSE(seen[b]) << "byte " << b << " visited twice";
      seen[b] = 1;
      if (i % 2 == 1) {
        int64_t pmPrev, pgPrev;
        const int64_t bPrev =
            scaleWalkCoord<int64_t>(s.layout, pm, pg, i - 1, pmPrev, pgPrev);
        ASSERT_EQ(b, bPrev + 1) << fp8q_scale_layout_name(s.layout)
                                << " position " << i;
        ASSERT_EQ(b / 4, bPrev / 4);
        // The kernels derive position 2t + 1's (m, g) from 2t's.
        int64_t m1, g1;
        scaleWalkPairSecond<int64_t>(s.layout, pmPrev, pgPrev, m1, g1);
        ASSERT_EQ(m1, m) << fp8q_scale_layout_name(s.layout) << " position "
                         << i;
        ASSERT_EQ(g1, g);
      }
    }
  }
}

TEST(ScaleLayoutV2, Pack4WalkReadsXBandByBand) {
  // pack4 is walked in bands of kPack4WalkRows rows: every run of
  // kPack4WalkRows * 4 positions is one word column of one band (contiguous
  // scale bytes) and a band is finished before the next starts, so the
  // walk reads x rows in order. Storage order would go down all rows first.
  const int64_t M = 300, G = 28;
  int64_t pm, pg;
  scalePaddedDomain(FP8Q_LAYOUT_COL_MAJOR_PACK4, 1, M, G, pm, pg);
  int64_t lastBand = 0;
  for (int64_t i = 0; i < pm * pg; ++i) {
    int64_t m, g;
    const int64_t b = scaleWalkCoord<int64_t>(FP8Q_LAYOUT_COL_MAJOR_PACK4, pm,
                                              pg, i, m, g);
    const int64_t band = m / kPack4WalkRows;
    ASSERT_GE(band, lastBand) << "position " << i;
    lastBand = band;
    const int64_t run = kPack4WalkRows * 4;
    if (m < pm - pm % kPack4WalkRows && i % run != 0) {
      int64_t m0, g0;
      const int64_t b0 = scaleWalkCoord<int64_t>(FP8Q_LAYOUT_COL_MAJOR_PACK4,
                                                 pm, pg, i - i % run, m0, g0);
      EXPECT_EQ(b, b0 + i % run);
    }
  }
  EXPECT_EQ(lastBand, (pm - 1) / kPack4WalkRows);
}

TEST(ScaleLayoutV2, PaddingMaskMarksExactlyThePadding) {
  // The padding blocks' chunks (scalePaddingMask) in both index types: a
  // byte is marked iff no (m, g) inside [M, G] maps to it, and no bit past
  // the allocation is set.
  for (const Shape &s : paddedShapes()) {
    int64_t pm, pg;
    scalePaddedDomain(s.layout, s.align, s.M, s.G, pm, pg);
    const int64_t alloc = pm * pg;
    std::vector<bool> data(alloc, false);
    for (int64_t m = 0; m < s.M; ++m)
      for (int64_t g = 0; g < s.G; ++g)
        data[fp8q_scale_offset(s.layout, s.align, s.M, s.G, m, g)] = true;
    const int64_t chunks = (alloc + kPadChunkBytes - 1) / kPadChunkBytes;
    for (int64_t c = 0; c < chunks; ++c) {
      const uint32_t mask64 =
          scalePaddingMask<int64_t>(s.layout, s.M, s.G, pm, pg, c);
      const uint32_t mask32 = scalePaddingMask<uint32_t>(
          s.layout, (uint32_t)s.M, (uint32_t)s.G, (uint32_t)pm, (uint32_t)pg,
          (uint32_t)c);
      ASSERT_EQ(mask64, mask32) << c;
      for (int k = 0; k < kPadChunkBytes; ++k) {
        const int64_t b = c * kPadChunkBytes + k;
        const bool want = b < alloc && !data[b];
        ASSERT_EQ((mask64 >> k & 1) != 0, want)
            << fp8q_scale_layout_name(s.layout) << " M=" << s.M
            << " G=" << s.G << " align=" << s.align << " byte " << b;
      }
    }
  }
}

TEST(ScaleLayoutV2, WordPathTeamCoversEveryChunkOnce) {
  for (int64_t group = 8; group <= 2048; group += 8) {
    EXPECT_EQ(quantV2WordLanes(group, 4), 0) << group;
    const int lanes = quantV2WordLanes(group, 2);
    const bool expected = group == 16 || group == 32 || group == 64 ||
                          group == 128 || group == 256;
    EXPECT_EQ(lanes != 0, expected) << group;
    if (!lanes)
      continue;
    // Lane sub holds chunks sub and sub + lanes of each group (8 elements
    // per chunk): together every chunk exactly once.
    std::vector<int> hits(group / kV2Vec, 0);
    for (int sub = 0; sub < lanes; ++sub)
      for (int s = 0; s < 2; ++s)
        ++hits.at(sub + s * lanes);
    for (int64_t c = 0; c < group / kV2Vec; ++c)
      EXPECT_EQ(hits[c], 1) << group << " chunk " << c;
    EXPECT_LE(lanes, kV2MaxLanes);
  }
}

TEST(ScaleLayoutV2, TeamGeometry) {
  for (int64_t group = 8; group <= 2048; group += 8) {
    const int lanes = quantV2Lanes(group);
    EXPECT_GE(lanes, 1);
    EXPECT_LE(lanes, kV2MaxLanes);
    EXPECT_EQ(lanes & (lanes - 1), 0);
    EXPECT_LE(lanes * kV2Vec, group);
    EXPECT_TRUE(lanes == kV2MaxLanes || lanes * 2 * kV2Vec > group) << group;
    EXPECT_EQ(quantV2GroupsPerTeam(group), group == 16 || group == 32 ||
                                                   group == 64 ||
                                                   group == 128 || group == 8
                                               ? 2
                                               : 1)
        << group;
  }
}

float bitsOf(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/// Values that stress the encoders: random bits of every exponent, zeros,
/// infinities, NaNs of both signs, rounding midpoints of each format.
std::vector<float> probeValues() {
  std::vector<float> v = {0.0f,
                          -0.0f,
                          bitsOf(0x7f800000u),
                          bitsOf(0xff800000u),
                          bitsOf(0x7fc00000u),
                          bitsOf(0xffc00001u),
                          1.0f,
                          -2.5f,
                          5.0f,
                          0.75f,
                          0.25f,
                          1.25f,
                          448.0f,
                          464.0f,
                          57344.0f,
                          61440.0f,
                          6.0f,
                          7.0f,
                          1e-30f,
                          -1e-42f};
  std::mt19937 rng(3);
  for (int i = 0; i < 20000; ++i)
    v.push_back(bitsOf((uint32_t)rng()));
  return v;
}

template <int QT> void checkValues(float divisor, bool pow2) {
  const float rcp = pow2 ? 1.0f / divisor : 0.0f;
  for (float x : probeValues())
    ASSERT_EQ(quantizeV2Value<QT>(x, divisor, rcp, pow2),
              fp8q_q_quantize(x, divisor, QT))
        << "q_type " << QT << " x bits " << std::hex << fp8q_f32_bits(x)
        << " divisor " << divisor;
}

template <int QT> void checkAllDivisors() {
  // Every power of two the pow2 rules give, through the reciprocal.
  for (int e = FP8Q_E8M0_MIN_EXP; e <= FP8Q_E8M0_MAX_EXP; e += 3)
    checkValues<QT>(fp8q_pow2f(e), true);
  checkValues<QT>(fp8q_pow2f(FP8Q_E8M0_MAX_EXP), true);
  checkValues<QT>(fp8q_pow2f(FP8Q_E8M0_MIN_EXP), true);
  // Exact and NVFP4 divisors, an infinite exact scale, a zero e4m3 scale.
  for (float d : {1e-10f / 448.0f, 0.37f, 3.0f / 448.0f, 1234.5f,
                  bitsOf(0x7f800000u), 0.0f})
    checkValues<QT>(d, false);
}

TEST(QuantizeV2Value, MatchesTheCpuRuntime) {
  checkAllDivisors<FP8Q_Q_F8E4M3FN>();
  checkAllDivisors<FP8Q_Q_F8E4M3FNUZ>();
  checkAllDivisors<FP8Q_Q_F8E5M2>();
  checkAllDivisors<FP8Q_Q_F4E2M1FN>();
}

TEST(QuantizeV2Value, NaNRulesOfX86) {
  // The GPU's canonical NaN is positive; the kernels must not depend on
  // it: a NaN x keeps its sign, inf * 0 and inf / inf are negative NaNs.
  const float nNaN = bitsOf(0xffc00000u), inf = bitsOf(0x7f800000u);
  EXPECT_EQ(quantizeV2Value<FP8Q_Q_F8E5M2>(nNaN, 1.0f, 1.0f, true), 0xFE);
  EXPECT_EQ(quantizeV2Value<FP8Q_Q_F8E4M3FN>(inf, 0.0f, 0.0f, false), 0xFF);
  EXPECT_EQ(quantizeV2Value<FP8Q_Q_F8E4M3FN>(inf, inf, 0.0f, false), 0xFF);
  EXPECT_EQ(quantizeV2Value<FP8Q_Q_F8E4M3FN>(-1.0f, inf, 0.0f, false), 0x80);
  EXPECT_EQ(quantizeV2Value<FP8Q_Q_F4E2M1FN>(nNaN, 2.0f, 0.5f, true), 0x7);
}

TEST(EncodeE2M1Branchless, MatchesTheReferenceEncoder) {
  // Every fp32 whose high 16 bits are any value and low 16 bits one of a
  // few patterns (every bf16, both signs, NaN and inf), plus every fp32 in
  // [0.125, 8) (the midpoints and their neighbours) of both signs.
  // bench/encode_exhaustive_h200.cu checks all 2^32 on a GPU.
  for (uint32_t hi = 0; hi < 0x10000u; ++hi)
    for (uint32_t lo : {0x0000u, 0x0001u, 0x7fffu, 0x8000u, 0xffffu}) {
      const uint32_t u = hi << 16 | lo;
      ASSERT_EQ(encodeE2M1Branchless(bitsOf(u)), fp8q_e2m1_encode(bitsOf(u)))
          << std::hex << u;
    }
  for (uint32_t u = 0x3e000000u; u < 0x41000000u; ++u)
    for (uint32_t s : {0u, 0x80000000u})
      ASSERT_EQ(encodeE2M1Branchless(bitsOf(u | s)),
                fp8q_e2m1_encode(bitsOf(u | s)))
          << std::hex << (u | s);
  // The fp4 code of a quotient, with a zero divisor (x * 0).
  EXPECT_EQ(quantizeE2M1(2.6f, 1.0f, 0.0f, false), 0x5u);
  EXPECT_EQ(quantizeE2M1(-2.5f, 0.5f, 2.0f, true), 0xEu); // -5: tie to 4
  EXPECT_EQ(quantizeE2M1(-3.0f, 0.0f, 0.0f, false), 0x8u);
  EXPECT_EQ(quantizeE2M1(bitsOf(0x7f800000u), 0.0f, 0.0f, false), 0x7u);
}

/// The division the CPU runtime performs (never contracted or replaced).
float dividedBy(float x, float d) {
  volatile float q = x / d;
  return q;
}

TEST(CorrectedQuotient, IsTheDivisionForEveryBf16Significand) {
  // Every bf16 significand over every 97th fp32 divisor significand, x in
  // [1, 2) and [2, 4) against d in [1, 2) (the rounding depends on the
  // significands and on which is larger only);
  // bench/encode_exhaustive_cpu.cpp takes every divisor significand, for
  // f16 too. The uncorrected x * rcp must differ somewhere, or this test
  // could not see a broken correction.
  int64_t uncorrectedOff = 0;
  for (uint32_t xm = 0; xm < 128; ++xm)
    for (uint32_t xe : {127u, 128u}) {
      const float x = bitsOf(xe << 23 | xm << 16);
      for (uint32_t dm = 0; dm < (1u << 23); dm += 97) {
        const float d = bitsOf(127u << 23 | dm), rcp = 1.0f / d;
        ASSERT_EQ(floatBits(correctedQuotient(x, d, rcp)),
                  floatBits(dividedBy(x, d)))
            << x << " / " << d;
        uncorrectedOff +=
            floatBits(mulRn(x, rcp)) != floatBits(dividedBy(x, d));
      }
    }
  EXPECT_GT(uncorrectedOff, 0);
}

/// Quantizes every bf16 x by `d` through the corrected quotient and through
/// quantizeV2Value (the division, CPU runtime rules) and counts the codes
/// that differ; E4M3FN / E5M2 compare non-NaN codes (their NaN signs are
/// re-encoded in software by the kernels), E2M1 / E4M3FNUZ every code.
template <int QT> int64_t correctedCodesOff(float d) {
  const float rcp = 1.0f / d;
  int64_t off = 0;
  for (uint32_t b = 0; b < 0x10000u; ++b) {
    const float x = bitsOf(b << 16);
    // The kernels take the corrected quotient for a group whose amax
    // passes correctedQuotientOk; |x| is the least such amax (a NaN is
    // skipped by the amax).
    if (x == x && !correctedQuotientOk(d, std::fabs(x)))
      continue;
    const uint8_t want = quantizeV2Value<QT>(x, d, 0.0f, false);
    uint32_t got;
    if constexpr (QT == FP8Q_Q_F4E2M1FN) {
      got = quantizeE2M1(x, d, rcp, false, true);
    } else if constexpr (QT == FP8Q_Q_F8E4M3FNUZ) {
      float v[8] = {x, x, x, x, x, x, x, x};
      uint32_t w[2];
      fnuzQuantize8(v, d, rcp, false, w, true);
      got = w[0] & 0xffu;
    } else {
      if (x != x)
        continue;
      got = quantizeV2Value<QT>(correctedQuotient(x, d, rcp), 1.0f, 1.0f, true);
    }
    off += got != want;
  }
  return off;
}

TEST(CorrectedQuotient, GivesTheDividedCodesOverItsWholeRange) {
  // Every bf16 x (zeros, subnormals, inf and NaN included) at divisors
  // spread over [2^-64, 2^120] and its ends, NVFP4-like products of an
  // e4m3 scale and a global among them.
  std::vector<float> divisors = {
      kCorrectedDivisorMin, kCorrectedDivisorMax, 0.37f,          3.0f / 448.0f,
      1e-10f / 448.0f,      0.75f * 1.7e-5f,      448.0f * 3.1e7f};
  std::mt19937 rng(18);
  for (int i = 0; i < 24; ++i) {
    const int e = (int)(rng() % 185) - 64;
    divisors.push_back(std::ldexp(1.0f + (rng() & 0x7fffffu) * 0x1p-23f, e) *
                       (e > 119 ? 0.5f : 1.0f));
  }
  for (float d : divisors) {
    ASSERT_TRUE(correctedQuotientOk(d, 0.0f)) << d;
    EXPECT_EQ(correctedCodesOff<FP8Q_Q_F8E4M3FN>(d), 0) << d;
    EXPECT_EQ(correctedCodesOff<FP8Q_Q_F8E5M2>(d), 0) << d;
    EXPECT_EQ(correctedCodesOff<FP8Q_Q_F8E4M3FNUZ>(d), 0) << d;
    EXPECT_EQ(correctedCodesOff<FP8Q_Q_F4E2M1FN>(d), 0) << d;
  }
}

TEST(CorrectedQuotient, KeepsTheSignOfZeroAndItsRange) {
  // -0 / d and a negative x whose quotient underflows keep the sign the
  // division gives (the fma correction alone makes +0).
  EXPECT_EQ(floatBits(correctedQuotient(-0.0f, 3.0f, 1.0f / 3.0f)),
            0x80000000u);
  const float tiny = bitsOf(0x80000001u), d = 0x1p60f;
  EXPECT_EQ(floatBits(correctedQuotient(tiny, d, 1.0f / d)) & 0x80000000u,
            0x80000000u);
  // Outside the range the kernels divide.
  EXPECT_FALSE(correctedQuotientOk(0x1p-65f, 0.0f));
  EXPECT_FALSE(correctedQuotientOk(0x1p121f, 1.0f));
  EXPECT_FALSE(correctedQuotientOk(0.0f, 0.0f));
  EXPECT_FALSE(correctedQuotientOk(bitsOf(0x7f800000u), 1.0f));
  EXPECT_FALSE(correctedQuotientOk(bitsOf(0x7fc00000u), 1.0f));
  // An amax whose quotient could overflow (an e4m3 scale saturated at 448
  // under a small global): inf / d would be NaN through the fma.
  EXPECT_TRUE(correctedQuotientOk(448.0f, 448.0f * 0x1p64f));
  EXPECT_FALSE(correctedQuotientOk(448.0f, 448.0f * 0x1p65f));
  EXPECT_FALSE(correctedQuotientOk(1.0f, bitsOf(0x7f800000u)));
  EXPECT_FALSE(correctedQuotientOk(0x1p100f, bitsOf(0x7f800000u)));
  EXPECT_TRUE(std::isnan(correctedQuotient(bitsOf(0x7f800000u), 1.0f, 1.0f)));
}

} // namespace
