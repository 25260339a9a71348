//===- QuantizeTest.cpp - quantize and rms_norm_quantize ------------------===//

#include "RuntimeTestUtil.h"

#include "fp8q/Runtime/fp8q_numerics.h"

#include "gtest/gtest.h"

#include <cmath>
#include <functional>

using namespace fp8q::test;

namespace {

/// Random f32 activations with per-row magnitudes spread over 2^-6..2^6.
Buf2<float> randomX(int64_t M, int64_t K, uint64_t seed) {
  Rng rng(seed);
  auto x = Buf2<float>::rowMajor(M, K);
  for (int64_t m = 0; m < M; ++m) {
    double mag = std::ldexp(1.0, int(rng.uniform(-6, 6)));
    for (int64_t k = 0; k < K; ++k)
      x.at(m, k) = float(rng.uniform(-mag, mag));
  }
  return x;
}

/// Checks q and scale of x [M, K] against the SPEC formula computed here
/// with the independent nearest-code encoder.
void expectQuantized(Buf2<float> &x, Buf2<uint8_t> &q, Buf2<float> &s,
                     int64_t group, int type) {
  for (int64_t m = 0; m < x.rows(); ++m)
    for (int64_t g = 0; g < x.cols() / group; ++g) {
      float amax = 0;
      for (int64_t i = 0; i < group; ++i)
        amax = std::max(amax, std::fabs(x.at(m, g * group + i)));
      float want = std::max(amax, 1e-10f) / (type ? 240.0f : 448.0f);
      ASSERT_EQ(s.at(m, g), want) << m << " " << g;
      for (int64_t i = 0; i < group; ++i) {
        float v = x.at(m, g * group + i) / want;
        ASSERT_EQ(q.at(m, g * group + i), refEncode(v, type))
            << m << " " << g * group + i;
      }
    }
}

TEST(Quantize, MatchesSpecForBothFlavours) {
  for (int type : {FP8Q_F8E4M3FN, FP8Q_F8E4M3FNUZ}) {
    auto x = randomX(5, 256, 1 + type);
    x.at(2, 0) = 0; // an all-zero group uses the 1e-10 floor
    for (int k = 0; k < 128; ++k)
      x.at(3, k) = 0;
    auto q = Buf2<uint8_t>::rowMajor(5, 256);
    auto s = Buf2<float>::rowMajor(5, 2);
    ASSERT_EQ(fp8q_quantize_f32(x.d(), q.d(), s.d(), 128, type), FP8Q_OK)
        << fp8q_last_error();
    expectQuantized(x, q, s, 128, type);
    EXPECT_EQ(s.at(3, 0), 1e-10f / (type ? 240.0f : 448.0f));
  }
}

TEST(Quantize, RowAndColumnMajorScaleWritesHoldTheSameValues) {
  const int64_t M = 7, K = 512, G = 4;
  auto x = randomX(M, K, 3);
  auto qr = Buf2<uint8_t>::rowMajor(M, K), qc = Buf2<uint8_t>::rowMajor(M, K),
       qa = Buf2<uint8_t>::rowMajor(M, K);
  auto sr = Buf2<float>::rowMajor(M, G, -1.0f);
  auto sc = Buf2<float>::colMajor(M, G, 1, -1.0f);
  auto sa = Buf2<float>::colMajor(M, G, 4, -1.0f);
  ASSERT_EQ(fp8q_quantize_f32(x.d(), qr.d(), sr.d(), 128, 0), FP8Q_OK);
  ASSERT_EQ(fp8q_quantize_f32(x.d(), qc.d(), sc.d(), 128, 0), FP8Q_OK);
  ASSERT_EQ(fp8q_quantize_f32(x.d(), qa.d(), sa.d(), 128, 0), FP8Q_OK);
  EXPECT_EQ(qr.data, qc.data);
  EXPECT_EQ(qr.data, qa.data);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t g = 0; g < G; ++g) {
      EXPECT_EQ(sr.at(m, g), sc.at(m, g));
      EXPECT_EQ(sr.at(m, g), sa.at(m, g));
      // Physical placement: column-major bytes really are transposed.
      EXPECT_EQ(sc.data[g * M + m], sr.data[m * G + g]);
      EXPECT_EQ(sa.data[g * 8 + m], sr.data[m * G + g]);
    }
  // The padding rows of the aligned layout are not written (the buffer
  // ends after the last real element).
  for (int64_t g = 0; g + 1 < G; ++g)
    EXPECT_EQ(sa.data[g * 8 + 7], -1.0f);
}

TEST(Quantize, Bf16AndF16InputsAreReadExactly) {
  const int64_t M = 3, K = 128;
  auto xf = randomX(M, K, 9);
  auto xb = Buf2<uint16_t>::rowMajor(M, K), xh = Buf2<uint16_t>::rowMajor(M, K);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k) {
      xb.at(m, k) = fp8q_f32_to_bf16(xf.at(m, k));
      xh.at(m, k) = fp8q_f32_to_f16(xf.at(m, k));
    }
  for (bool bf : {true, false}) {
    auto xr = Buf2<float>::rowMajor(M, K);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t k = 0; k < K; ++k)
        xr.at(m, k) =
            bf ? fp8q_bf16_to_f32(xb.at(m, k)) : fp8q_f16_to_f32(xh.at(m, k));
    auto q = Buf2<uint8_t>::rowMajor(M, K);
    auto s = Buf2<float>::colMajor(M, 1);
    int32_t st = bf ? fp8q_quantize_bf16(xb.d(), q.d(), s.d(), 128, 0)
                    : fp8q_quantize_f16(xh.d(), q.d(), s.d(), 128, 0);
    ASSERT_EQ(st, FP8Q_OK) << fp8q_last_error();
    expectQuantized(xr, q, s, 128, 0);
  }
}

TEST(RmsNormQuantize, MatchesDoubleReferenceAndKeepsUnquantized) {
  const int64_t M = 4, K = 256;
  auto x = randomX(M, K, 11);
  Buf1<float> gamma(K);
  Rng rng(5);
  for (auto &g : gamma.data)
    g = float(rng.uniform(0.5, 1.5));
  auto q = Buf2<uint8_t>::rowMajor(M, K);
  auto s = Buf2<float>::colMajor(M, 2);
  auto y = Buf2<float>::rowMajor(M, K);
  const float eps = 1e-6f;
  ASSERT_EQ(fp8q_rms_norm_quantize_f32(x.d(), gamma.d(), q.d(), s.d(), y.d(),
                                       eps, 128, 0, 1),
            FP8Q_OK)
      << fp8q_last_error();
  for (int64_t m = 0; m < M; ++m) {
    double ss = 0;
    for (int64_t k = 0; k < K; ++k)
      ss += double(x.at(m, k)) * x.at(m, k);
    double rms = std::sqrt(ss / K + eps);
    for (int64_t k = 0; k < K; ++k) {
      double want = x.at(m, k) / rms * gamma.data[k];
      EXPECT_NEAR(y.at(m, k), want, 1e-5 * std::fabs(want) + 1e-30);
      // The quantized value is within half an fp8 step of y / scale.
      double dq = refDecode(q.at(m, k), 0) * s.at(m, k / 128);
      EXPECT_NEAR(dq, y.at(m, k), std::fabs(want) / 16 + s.at(m, k / 128));
    }
  }
  // q and scale are exactly the quantization of the unquantized output.
  auto q2 = Buf2<uint8_t>::rowMajor(M, K);
  auto s2 = Buf2<float>::colMajor(M, 2);
  ASSERT_EQ(fp8q_quantize_f32(y.d(), q2.d(), s2.d(), 128, 0), FP8Q_OK);
  EXPECT_EQ(q.data, q2.data);
  EXPECT_EQ(s.data, s2.data);
}

TEST(RmsNormQuantize, Bf16RoundsBeforeQuantizingAndLeavesYAlone) {
  const int64_t M = 2, K = 128;
  auto xf = randomX(M, K, 13);
  auto x = Buf2<uint16_t>::rowMajor(M, K);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k)
      x.at(m, k) = fp8q_f32_to_bf16(xf.at(m, k));
  Buf1<uint16_t> gamma(K);
  for (auto &g : gamma.data)
    g = fp8q_f32_to_bf16(1.25f);
  auto q = Buf2<uint8_t>::rowMajor(M, K);
  auto s = Buf2<float>::rowMajor(M, 1);
  auto y = Buf2<uint16_t>::rowMajor(M, K, 0xBEEF);
  ASSERT_EQ(fp8q_rms_norm_quantize_bf16(x.d(), gamma.d(), q.d(), s.d(), y.d(),
                                        1e-5f, 128, 0, 0),
            FP8Q_OK);
  for (uint16_t v : y.data)
    ASSERT_EQ(v, 0xBEEF); // keep_unquantized = 0: y untouched
  auto q1 = Buf2<uint8_t>::rowMajor(M, K);
  auto s1 = Buf2<float>::rowMajor(M, 1);
  ASSERT_EQ(fp8q_rms_norm_quantize_bf16(x.d(), gamma.d(), q1.d(), s1.d(), y.d(),
                                        1e-5f, 128, 0, 1),
            FP8Q_OK);
  EXPECT_EQ(q.data, q1.data);
  // y holds bf16 values, and q quantizes exactly those.
  auto yf = Buf2<float>::rowMajor(M, K);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k)
      yf.at(m, k) = fp8q_bf16_to_f32(y.at(m, k));
  expectQuantized(yf, q1, s1, 128, 0);
}

TEST(Quantize, RejectsBadInputsWithoutWriting) {
  auto x = randomX(4, 256, 17);
  auto q = Buf2<uint8_t>::rowMajor(4, 256, 0xAA);
  auto s = Buf2<float>::rowMajor(4, 2, -7.0f);
  auto unchanged = [&] {
    for (uint8_t v : q.data)
      if (v != 0xAA)
        return false;
    for (float v : s.data)
      if (v != -7.0f)
        return false;
    return true;
  };
  EXPECT_EQ(fp8q_quantize_f32(nullptr, q.d(), s.d(), 128, 0), FP8Q_ERR_NULL);
  fp8q_memref_2d nullData = q.desc;
  nullData.aligned = nullptr;
  EXPECT_EQ(fp8q_quantize_f32(x.d(), &nullData, s.d(), 128, 0), FP8Q_ERR_NULL);
  EXPECT_NE(std::string(fp8q_last_error()).find("operand q"),
            std::string::npos);
  fp8q_memref_2d misaligned = s.desc;
  misaligned.aligned = reinterpret_cast<char *>(s.data.data()) + 2;
  EXPECT_EQ(fp8q_quantize_f32(x.d(), q.d(), &misaligned, 128, 0),
            FP8Q_ERR_ALIGN);
  EXPECT_EQ(fp8q_quantize_f32(x.d(), q.d(), s.d(), 64, 0), FP8Q_ERR_SHAPE);
  EXPECT_EQ(fp8q_quantize_f32(x.d(), q.d(), s.d(), 0, 0), FP8Q_ERR_ARG);
  EXPECT_EQ(fp8q_quantize_f32(x.d(), q.d(), s.d(), 100, 0), FP8Q_ERR_ARG);
  EXPECT_EQ(fp8q_quantize_f32(x.d(), q.d(), s.d(), 128, 5), FP8Q_ERR_ARG);
  fp8q_memref_2d empty = x.desc;
  empty.sizes[0] = 0;
  fp8q_memref_2d emptyQ = q.desc, emptyS = s.desc;
  emptyQ.sizes[0] = emptyS.sizes[0] = 0;
  EXPECT_EQ(fp8q_quantize_f32(&empty, &emptyQ, &emptyS, 128, 0),
            FP8Q_ERR_EMPTY);
  fp8q_memref_2d overlapping = s.desc;
  overlapping.strides[0] = 1; // rows overlap
  EXPECT_EQ(fp8q_quantize_f32(x.d(), q.d(), &overlapping, 128, 0),
            FP8Q_ERR_LAYOUT);
  EXPECT_TRUE(unchanged());
}

TEST(Quantize, MlirEntryPointExitsOnError) {
  auto x = randomX(4, 256, 17);
  auto q = Buf2<uint8_t>::rowMajor(4, 256);
  auto s = Buf2<float>::rowMajor(4, 3);
  EXPECT_EXIT(_mlir_ciface_fp8q_rt_quantize_f32(x.d(), q.d(), s.d(), 128, 0),
              testing::ExitedWithCode(1),
              "fp8q runtime error: fp8q_rt_quantize_f32: operand scale has "
              "sizes \\[4, 3\\], expected \\[4, 2\\]");
}

} // namespace
