//===- E2M1PackedTest.cpp - The packed MXFP4 encode against quantizeE2M1 --===//
//
// e2m1CodesPacked / e2m1Pack8 (kernels/include/fp8q_kernels/E2M1Packed.h)
// against the fp32 path the kernels take otherwise (quantizeE2M1 with a
// power-of-two divisor, itself checked against the CPU runtime by
// ScaleLayoutV2Test): every non-NaN bf16 and f16 x in either half, at every
// divisor 2^k e2m1PackedRcpOk admits, in the host model that keeps
// subnormals and in the one that flushes them; the divisors just outside
// the range fail the flushing model, which is why the range is what it is.
//
//===----------------------------------------------------------------------===//

#include "fp8q_kernels/E2M1Packed.h"
#include "fp8q_kernels/QuantizeV2Common.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace fp8q::kern;

namespace {

bool isNaN16(uint32_t h, Bf16) { return (h & 0x7fffu) > 0x7f80u; }
bool isNaN16(uint32_t h, F16) { return (h & 0x7fffu) > 0x7c00u; }

/// The fp32 path's code of T value h divided by 2^k.
template <class T> uint32_t reference(uint32_t h, int k) {
  const float d = std::ldexp(1.0f, k), rcp = std::ldexp(1.0f, -k);
  return quantizeE2M1<true>(toFloat(T{(uint16_t)h}), d, rcp, true);
}

/// Mismatches of the packed encode over every non-NaN x at divisor 2^k,
/// x in the low half (high half `partner`) and in the high half.
template <class T, bool Ftz> int mismatches(int k, uint32_t partner) {
  const uint32_t rcp2 = e2m1PackedRcp(std::ldexp(1.0f, -k), T{});
  const uint32_t pref = reference<T>(partner, k);
  int bad = 0;
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    if (isNaN16(h, T{}))
      continue;
    const uint32_t want = reference<T>(h, k);
    const uint32_t lo = e2m1CodesPacked<T, Ftz>(h | partner << 16, rcp2);
    const uint32_t hi = e2m1CodesPacked<T, Ftz>(partner | h << 16, rcp2);
    bad += lo != (want | pref << 16);
    bad += hi != (pref | want << 16);
  }
  return bad;
}

/// The exponents k with e2m1PackedRcpOk(2^-k).
template <class T> std::pair<int, int> admittedRange() {
  int lo = 1000, hi = -1000;
  for (int k = -149; k <= 149; ++k)
    if (e2m1PackedRcpOk(std::ldexp(1.0f, -k), T{})) {
      lo = std::min(lo, k);
      hi = std::max(hi, k);
    }
  return {lo, hi};
}

template <class T> void checkEveryDivisor(uint32_t maxFinite) {
  const auto [lo, hi] = admittedRange<T>();
  ASSERT_LT(lo, hi);
  for (int k = lo; k <= hi; ++k)
    for (uint32_t partner : {0u, 0x8000u | maxFinite, 0x0001u})
      ASSERT_EQ((mismatches<T, false>(k, partner)), 0)
          << "k " << k << " partner " << std::hex << partner;
  // Targets that flush subnormals: the same codes, for a few partners.
  for (int k = lo; k <= hi; ++k)
    ASSERT_EQ((mismatches<T, true>(k, 0x8001u)), 0) << "k " << k;
}

} // namespace

TEST(E2M1Packed, EqualsTheFp32PathForEveryBf16AtEveryAdmittedDivisor) {
  EXPECT_EQ(admittedRange<Bf16>(), (std::pair<int, int>{-124, 126}));
  checkEveryDivisor<Bf16>(0x7f7fu);
}

TEST(E2M1Packed, EqualsTheFp32PathForEveryF16AtEveryAdmittedDivisor) {
  EXPECT_EQ(admittedRange<F16>(), (std::pair<int, int>{-12, 14}));
  checkEveryDivisor<F16>(0x7bffu);
}

TEST(E2M1Packed, TheRangeIsWhereFlushingStopsMattering) {
  // One step past either end, a target that flushes subnormals gives other
  // codes: 2^-k subnormal in T (k = 127 bf16, 15 f16), or a subnormal x
  // whose quotient reaches 0.25 (k = -125 bf16, -13 f16).
  EXPECT_GT((mismatches<Bf16, true>(127, 0)), 0);
  EXPECT_GT((mismatches<Bf16, true>(-125, 0)), 0);
  EXPECT_GT((mismatches<F16, true>(15, 0)), 0);
  EXPECT_GT((mismatches<F16, true>(-13, 0)), 0);
}

TEST(E2M1Packed, PacksEightCodesElementTwoIInTheLowNibble) {
  // bf16 1.0, 2.0, -0.5, 6.0, 5.0 (tie: 4), 0.25 (tie: 0), -7, 1.75 (-> 2)
  // over 2^0.
  const uint32_t w[4] = {0x40003f80u, 0x40c0bf00u, 0x3e8040a0u, 0x3fe0c0e0u};
  EXPECT_EQ((e2m1Pack8<Bf16>(w, e2m1PackedRcp(1.0f, Bf16{}))), 0x4f067942u);
  // The same values as f16, over 2^1 (so 0.5, 1, -0.25 -> -0, 3, 2.5 -> 2,
  // 0.125 -> 0, -3.5 -> -4, 0.875 -> 1).
  const uint32_t h[4] = {0x40003c00u, 0x4600b800u, 0x34004500u, 0x3f00c700u};
  EXPECT_EQ((e2m1Pack8<F16>(h, e2m1PackedRcp(0.5f, F16{}))), 0x2e045821u);
}

namespace {

/// Mismatches of e2m1Pack8Quotients against the fp32 encode over every
/// non-NaN fp32 q whose low 16 bits are `low` (every bf16 truncation and
/// its sticky bits), q at each of the 8 positions beside fixed partners.
template <bool Ftz> int quotientMismatches(uint32_t low) {
  const float partners[8] = {0.0f,  -6.5f, 0.75f,   2.5000002f,
                             -0.0f, 1e-40f, 3.4e38f, -0.2500001f};
  int bad = 0;
  for (uint32_t hi = 0; hi < 0x10000u; ++hi) {
    const uint32_t u = hi << 16 | low;
    if ((u & 0x7fffffffu) > 0x7f800000u)
      continue;
    for (int pos = 0; pos < 8; ++pos) {
      float q[8];
      for (int i = 0; i < 8; ++i)
        q[i] = i == pos ? fp8q_bits_f32(u) : partners[i];
      const uint32_t got = e2m1Pack8Quotients<Ftz>(q);
      for (int i = 0; i < 8; ++i)
        bad += ((got >> (4 * i)) & 0xfu) != encodeE2M1MagicNoNaN(q[i]);
    }
  }
  return bad;
}

} // namespace

TEST(E2M1Packed, QuotientsRoundedToOddKeepTheFp32Codes) {
  // The discarded 16 bits decide only through the sticky bit: zero, the
  // smallest and largest nonzero, and both sides of the bf16 midpoint.
  for (uint32_t low : {0x0000u, 0x0001u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu}) {
    EXPECT_EQ(quotientMismatches<false>(low), 0) << std::hex << low;
    EXPECT_EQ(quotientMismatches<true>(low), 0) << std::hex << low;
  }
}

TEST(E2M1Packed, RoundingToNearestInsteadOfOddFailsTheQuotients) {
  // Why round to odd: 0.25 + 2^-25 rounds to nearest bf16 0.25, a tie that
  // E2M1 breaks down to 0 (code 0), but q is above the midpoint (0.5, code
  // 1).
  const float q = fp8q_bits_f32(0x3e800000u | 0x0001u);
  EXPECT_EQ(encodeE2M1MagicNoNaN(q), 1u);
  const float qs[8] = {q, q, q, q, q, q, q, q};
  EXPECT_EQ(e2m1Pack8Quotients(qs), 0x11111111u);
  const uint32_t nearest = fp8q_f32_to_bf16(q) * 0x10001u;
  EXPECT_EQ((e2m1CodesPacked<Bf16, false, false>(nearest, 0)), 0u);
}
