//===- QuantizePathTest.cpp - The quantize kernels' data path on the host -===//
//
// The quantize kernels move 8 elements per lane through load8 / storeQ8
// (QuantizeCommon.h) and reduce amax over the 16 lanes of a group. This
// replays that path on the host for every group (lane by lane) and checks
// the bytes and scales bit-exactly against the CPU reference runtime, for
// row-major and column-major (fused transposed) scale writes.
//
//===----------------------------------------------------------------------===//

#include "fp8q_kernels/QuantizeCommon.h"

#include "TestData.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace fp8q::kern;
using namespace fp8q::kern::test;

namespace {

/// The kernel's group computation, lane by lane.
template <class T>
void quantizeGroupHost(const T *x, uint8_t *q, float *scale, int64_t group,
                       Fp8 t) {
  float amax = 0.0f;
  std::vector<float> v(group);
  for (int64_t e = 0; e < group; e += kQuantVec) {
    float chunk[8];
    load8(x + e, chunk);
    for (int i = 0; i < 8; ++i) {
      v[e + i] = chunk[i];
      amax = maxf(amax, absf(chunk[i]));
    }
  }
  const float s = groupScale(amax, t);
  for (int64_t e = 0; e < group; e += kQuantVec) {
    float chunk[8];
    for (int i = 0; i < 8; ++i)
      chunk[i] = v[e + i];
    storeQ8(q + e, chunk, s, 1.0f / s, t);
  }
  *scale = s;
}

class QuantizePath : public ::testing::TestWithParam<std::tuple<Fp8, bool>> {};

TEST_P(QuantizePath, Bf16MatchesCpuRuntime) {
  auto [fp8, colMajor] = GetParam();
  const int64_t M = 13, K = 512, G = K / kGroup;
  std::mt19937 rng(3);
  std::normal_distribution<float> nd(0.0f, 3.0f);
  std::vector<Bf16> x(M * K);
  for (int64_t i = 0; i < M * K; ++i)
    x[i] = store(nd(rng) * (i % 97 == 0 ? 1e3f : 1.0f), Bf16{});
  for (int64_t k = 0; k < kGroup; ++k) // an all-zero group: scale 1e-10/max
    x[2 * K + k] = Bf16{0};
  x[5] = Bf16{0x8000}; // -0
  const int64_t s0 = colMajor ? 1 : G, s1 = colMajor ? M : 1;
  std::vector<uint8_t> q(M * K);
  std::vector<float> s(M * G);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t g = 0; g < G; ++g)
      quantizeGroupHost(x.data() + m * K + g * kGroup,
                        q.data() + m * K + g * kGroup,
                        s.data() + scaleOffset(m, g, s0, s1), kGroup, fp8);
  std::vector<uint8_t> qr(M * K);
  std::vector<float> sr(M * G);
  fp8q_memref_2d xd = memref2d(x.data(), M, K, K, 1);
  fp8q_memref_2d qd = memref2d(qr.data(), M, K, K, 1);
  fp8q_memref_2d sd = memref2d(sr.data(), M, G, s0, s1);
  ASSERT_EQ(fp8q_quantize_bf16(&xd, &qd, &sd, kGroup, (int32_t)fp8), FP8Q_OK)
      << fp8q_last_error();
  EXPECT_EQ(q, qr);
  for (int64_t i = 0; i < M * G; ++i)
    EXPECT_EQ(floatBits(s[i]), floatBits(sr[i])) << i;
}

INSTANTIATE_TEST_SUITE_P(All, QuantizePath,
                         ::testing::Combine(::testing::Values(Fp8::E4M3FN,
                                                              Fp8::E4M3FNUZ),
                                            ::testing::Bool()));

TEST(QuantizePathPacking, BytesAndHalvesKeepElementOrder) {
  // load8 / store8 / storeQ8 keep element i in byte / half i (little endian).
  Bf16 in[8];
  for (int i = 0; i < 8; ++i)
    in[i] = store((float)(i + 1), Bf16{});
  alignas(16) Bf16 buf[8];
  std::memcpy(buf, in, sizeof(in));
  float v[8];
  load8(buf, v);
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(v[i], (float)(i + 1));
  alignas(16) Bf16 back[8];
  store8(back, v);
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(back[i].bits, in[i].bits);
  alignas(8) uint8_t qb[8];
  storeQ8(qb, v, 1.0f, 1.0f, Fp8::E4M3FN);
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(decodeFp8(qb[i], Fp8::E4M3FN), (float)(i + 1));
}

TEST(QuantizeFastPath, SameBitsAsTheExactDivision) {
  // Every bf16 value (and a half-ulp-shifted fp32 neighbour, which lands on
  // fp8 midpoints after scaling) against many group scales, both flavours.
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> ud(-30.0f, 30.0f);
  int64_t slow = 0, total = 0;
  for (Fp8 t : {Fp8::E4M3FN, Fp8::E4M3FNUZ}) {
    std::vector<float> scales = {groupScale(0.0f, t), groupScale(1.0f, t),
                                 groupScale(448.0f, t), 1.0f, 0.5f};
    for (int i = 0; i < 40; ++i)
      scales.push_back(
          groupScale(std::ldexp(1.0f + ud(rng) / 64.0f, (int)ud(rng)), t));
    for (float sc : scales) {
      const float rcp = 1.0f / sc;
      for (uint32_t h = 0; h < 0x10000u; ++h)
        for (uint32_t lowBits : {0u, 0x8000u, 0x7fffu}) {
          float x = bitsFloat((h << 16) | lowBits);
          uint8_t exact = quantizeValue(x, sc, t);
          uint8_t fast = quantizeValueFast(x, sc, rcp, t);
          ++total;
          if (exact != fast) {
            ADD_FAILURE() << "x=" << x << " scale=" << sc << " exact "
                          << (int)exact << " fast " << (int)fast;
            return;
          }
        }
      // Values at exact fp8 midpoints times the scale (ties to even).
      for (int c = 0; c < 0x7e; ++c) {
        float mid =
            0.5f * (decodeFp8((uint8_t)c, t) + decodeFp8((uint8_t)(c + 1), t));
        for (float x : {mid * sc, -mid * sc}) {
          ++slow;
          ASSERT_EQ(quantizeValueFast(x, sc, rcp, t), quantizeValue(x, sc, t))
              << "midpoint " << mid << " scale " << sc;
        }
      }
    }
  }
  EXPECT_GT(total, 1000000);
  EXPECT_GT(slow, 0);
}

} // namespace
