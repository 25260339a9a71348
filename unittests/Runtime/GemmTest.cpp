//===- GemmTest.cpp - Block-scale GEMM per kernel family ------------------===//

#include "RuntimeTestUtil.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdlib>
#include <string>

using namespace fp8q::test;

namespace {

/// One GEMM problem with plain, logically indexed operands.
struct Problem {
  int64_t M, N, K, G;
  int type;
  Buf2<uint8_t> q, w;
  Buf2<float> xs, ws;
  std::vector<double> dec; // fp8 code -> value, from the format definition

  Problem(int64_t M, int64_t N, int64_t K, int type, uint64_t seed)
      : M(M), N(N), K(K), G(K / 128), type(type),
        q(Buf2<uint8_t>::rowMajor(M, K)), w(Buf2<uint8_t>::rowMajor(N, K)),
        xs(Buf2<float>::rowMajor(M, K / 128)),
        ws(Buf2<float>::rowMajor((N + 127) / 128, K / 128)) {
    Rng rng(seed);
    auto code = [&] {
      for (;;) {
        uint8_t c = uint8_t(rng.next());
        if (!std::isnan(refDecode(c, type)))
          return c;
      }
    };
    for (auto &c : q.data)
      c = code();
    for (auto &c : w.data)
      c = code();
    // Scales spread over a factor of 16 so a scrambled read shows.
    for (auto &s : xs.data)
      s = float(std::ldexp(rng.uniform(1, 2), int(rng.uniform(-9, -5))));
    for (auto &s : ws.data)
      s = float(std::ldexp(rng.uniform(1, 2), int(rng.uniform(-9, -5))));
  }

  /// Independent double-precision reference; also returns sum |terms|.
  double ref(int64_t m, int64_t n, double *absSum) {
    if (dec.empty())
      for (int c = 0; c < 256; ++c)
        dec.push_back(refDecode(uint8_t(c), type));
    double acc = 0, abs = 0;
    for (int64_t k = 0; k < K; ++k) {
      double t = dec[q.at(m, k)] * dec[w.at(n, k)] * xs.at(m, k / 128) *
                 ws.at(n / 128, k / 128);
      acc += t;
      abs += std::fabs(t);
    }
    *absSum = abs;
    return acc;
  }

  /// x_scale copied into another layout.
  Buf2<float> scaleAs(Buf2<float> layout) {
    for (int64_t m = 0; m < M; ++m)
      for (int64_t g = 0; g < G; ++g)
        layout.at(m, g) = xs.at(m, g);
    return layout;
  }

  /// The weight in SPEC's preshuffle_16x16 layout (via the runtime, checked
  /// against the naive loop in LayoutTest).
  Buf2<uint8_t> preshuffled() {
    auto out = Buf2<uint8_t>::rowMajor(N, K);
    EXPECT_EQ(fp8q_preshuffle(w.d(), out.d()), FP8Q_OK);
    return out;
  }
};

/// Relative Frobenius error of out against the reference; also checks each
/// element within bf16 rounding plus an fp32 accumulation bound.
double checkAgainstRef(Problem &p, Buf2<uint16_t> &out, bool elementwise) {
  double num = 0, den = 0;
  for (int64_t m = 0; m < p.M; ++m)
    for (int64_t n = 0; n < p.N; ++n) {
      double abs;
      double want = p.ref(m, n, &abs);
      double got = bf16ToFloat(out.at(m, n));
      if (elementwise)
        EXPECT_NEAR(got, want, std::fabs(want) * 0x1p-8 + abs * 1e-6)
            << "m=" << m << " n=" << n;
      num += (got - want) * (got - want);
      den += want * want;
    }
  return std::sqrt(num / den);
}

struct Shape {
  int64_t M, N, K;
};
const Shape kShapes[] = {
    {1, 128, 128}, {3, 208, 256}, {17, 272, 384}, {64, 336, 512}, {5, 16, 128}};

/// The x_scale layout each kernel family reads, and its weight layout.
Buf2<float> contractScale(Problem &p, fp8q_kernel k) {
  switch (k) {
  case FP8Q_KERNEL_CK_BPRESHUFFLE:
  case FP8Q_KERNEL_CUBLAS:
    return p.scaleAs(Buf2<float>::colMajor(p.M, p.G));
  case FP8Q_KERNEL_DEEPGEMM:
    return p.scaleAs(Buf2<float>::colMajor(p.M, p.G, 4));
  case FP8Q_KERNEL_CK:
    return p.scaleAs(Buf2<float>::rowMajor(p.M, p.G));
  default:
    // Any strides: a padded column-major view with an offset.
    return p.scaleAs(Buf2<float>(p.M, p.G, 1, p.M + 3, 7));
  }
}

TEST(Gemm, EveryKernelMatchesDoubleReference) {
  for (int kernel = 0; kernel < FP8Q_KERNEL_COUNT; ++kernel)
    for (const Shape &s : kShapes)
      for (int type : {FP8Q_F8E4M3FN, FP8Q_F8E4M3FNUZ}) {
        if (type == FP8Q_F8E4M3FNUZ &&
            fp8q_kernel_contracts[kernel].fp8 == FP8Q_FP8_E4M3FN)
          continue;
        // fp8q_gemm is the FP8 1x128 (f32 scales) GEMM: SPEC v2's kernels
        // read other formats.
        if (!(fp8q_kernel_contracts[kernel].formats & FP8Q_FORMAT_FP8_1X128))
          continue;
        Problem p(s.M, s.N, s.K, type, 100 * kernel + s.M);
        auto xs = contractScale(p, fp8q_kernel(kernel));
        bool shuffled = kernel == FP8Q_KERNEL_CK_BPRESHUFFLE ||
                        (kernel == FP8Q_KERNEL_REFERENCE && s.M % 2 == 1);
        auto w = shuffled ? p.preshuffled() : p.w;
        auto out = Buf2<uint16_t>::rowMajor(s.M, s.N);
        ASSERT_EQ(fp8q_gemm(p.q.d(), xs.d(), w.d(), p.ws.d(), out.d(), kernel,
                            type, shuffled ? 1 : 0),
                  FP8Q_OK)
            << fp8q_last_error();
        double rel = checkAgainstRef(p, out, true);
        EXPECT_LT(rel, 0x1p-8) << fp8q_kernel_contracts[kernel].name;
      }
}

TEST(Gemm, StridedOperandsAreHonoured) {
  // triton/reference honour every stride; q, w, w_scale and out are read
  // and written through their strides by every kernel.
  Problem p(6, 144, 256, FP8Q_F8E4M3FN, 3);
  Buf2<uint8_t> qT(6, 256, 1, 6);
  for (int64_t m = 0; m < 6; ++m)
    for (int64_t k = 0; k < 256; ++k)
      qT.at(m, k) = p.q.at(m, k);
  Buf2<uint16_t> out(6, 144, 150, 1, 3, 0xFFFF);
  auto xs = p.scaleAs(Buf2<float>::colMajor(6, 2));
  ASSERT_EQ(fp8q_gemm(qT.d(), xs.d(), p.w.d(), p.ws.d(), out.d(),
                      FP8Q_KERNEL_CUBLAS, 0, 0),
            FP8Q_OK)
      << fp8q_last_error();
  EXPECT_LT(checkAgainstRef(p, out, true), 0x1p-8);
  EXPECT_EQ(out.data[0], 0xFFFF);       // offset respected
  EXPECT_EQ(out.data[3 + 144], 0xFFFF); // row padding untouched
}

TEST(Gemm, BpreshuffleReadsRowMajorScaleScrambledWhenUnchecked) {
  // The historical failure: ck_bpreshuffle handed a row-major scale reads
  // it column-major. Scales here vary like real activations.
  Problem p(64, 256, 512, FP8Q_F8E4M3FN, 42);
  auto w = p.preshuffled();
  auto out = Buf2<uint16_t>::rowMajor(64, 256);
  setenv("FP8Q_RT_UNCHECKED", "1", 1);
  int32_t st = fp8q_gemm(p.q.d(), p.xs.d(), w.d(), p.ws.d(), out.d(),
                         FP8Q_KERNEL_CK_BPRESHUFFLE, 0, 1);
  unsetenv("FP8Q_RT_UNCHECKED");
  ASSERT_EQ(st, FP8Q_OK);
  double scrambled = checkAgainstRef(p, out, false);
  // Correct layout for comparison.
  auto xs = p.scaleAs(Buf2<float>::colMajor(64, 4));
  ASSERT_EQ(fp8q_gemm(p.q.d(), xs.d(), w.d(), p.ws.d(), out.d(),
                      FP8Q_KERNEL_CK_BPRESHUFFLE, 0, 1),
            FP8Q_OK);
  double good = checkAgainstRef(p, out, false);
  printf("ck_bpreshuffle M=64 N=256 K=512: relative error %.4f with a "
         "row-major scale (unchecked), %.6f with the contract layout\n",
         scrambled, good);
  EXPECT_GT(scrambled, 0.1);
  EXPECT_LT(good, 0.005);
}

TEST(Gemm, CheckedModeStopsBeforeWriting) {
  Problem p(8, 128, 256, FP8Q_F8E4M3FN, 5);
  auto w = p.preshuffled();
  auto out = Buf2<uint16_t>::rowMajor(8, 128, 0x1234);
  unsetenv("FP8Q_RT_UNCHECKED");
  EXPECT_EQ(fp8q_gemm(p.q.d(), p.xs.d(), w.d(), p.ws.d(), out.d(),
                      FP8Q_KERNEL_CK_BPRESHUFFLE, 0, 1),
            FP8Q_ERR_CONTRACT);
  EXPECT_STREQ(fp8q_last_error(),
               "fp8q_rt_gemm: operand x_scale of kernel ck_bpreshuffle must "
               "be col_major (strides (1, 8)) but has strides (2, 1) "
               "[M=8, G=2]");
  for (uint16_t v : out.data)
    ASSERT_EQ(v, 0x1234);
  // deepgemm wants M rounded up to 4; ck wants row-major.
  Problem p3(3, 128, 256, FP8Q_F8E4M3FN, 6);
  auto col = p3.scaleAs(Buf2<float>::colMajor(3, 2));
  auto out3 = Buf2<uint16_t>::rowMajor(3, 128, 0x1234);
  EXPECT_EQ(fp8q_gemm(p3.q.d(), col.d(), p3.w.d(), p3.ws.d(), out3.d(),
                      FP8Q_KERNEL_DEEPGEMM, 0, 0),
            FP8Q_ERR_CONTRACT);
  EXPECT_NE(std::string(fp8q_last_error())
                .find("col_major align 4 (strides "
                      "(1, 4)) but has strides (1, "
                      "3)"),
            std::string::npos);
  EXPECT_EQ(fp8q_gemm(p3.q.d(), col.d(), p3.w.d(), p3.ws.d(), out3.d(),
                      FP8Q_KERNEL_CK, 0, 0),
            FP8Q_ERR_CONTRACT);
  // Weight layout and fp8 flavour are part of the contract too.
  auto colOk = p3.scaleAs(Buf2<float>::colMajor(3, 2));
  EXPECT_EQ(fp8q_gemm(p3.q.d(), colOk.d(), p3.w.d(), p3.ws.d(), out3.d(),
                      FP8Q_KERNEL_CK_BPRESHUFFLE, 0, 0),
            FP8Q_ERR_CONTRACT);
  EXPECT_NE(std::string(fp8q_last_error()).find("must be preshuffle_16x16"),
            std::string::npos);
  EXPECT_EQ(fp8q_gemm(p3.q.d(), colOk.d(), p3.w.d(), p3.ws.d(), out3.d(),
                      FP8Q_KERNEL_CUBLAS, 1, 0),
            FP8Q_ERR_CONTRACT);
  for (uint16_t v : out3.data)
    ASSERT_EQ(v, 0x1234);
}

// Regression: a SPEC v2 kernel id (cublas_mx) given to the FP8 1x128 entry
// was rejected with its x_scale requirement printed as "col_major", which
// it is not; the message now names the entry that reads its formats.
TEST(Gemm, V2KernelIsRejectedByName) {
  Problem p(8, 128, 256, FP8Q_F8E4M3FN, 5);
  auto out = Buf2<uint16_t>::rowMajor(8, 128, 0x1234);
  unsetenv("FP8Q_RT_UNCHECKED");
  for (int32_t kernel : {6, 7, 8}) {
    EXPECT_EQ(
        fp8q_gemm(p.q.d(), p.xs.d(), p.w.d(), p.ws.d(), out.d(), kernel, 0, 0),
        FP8Q_ERR_CONTRACT);
    EXPECT_EQ(std::string(fp8q_last_error()),
              std::string("fp8q_rt_gemm: kernel ") +
                  fp8q_kernel_contracts[kernel].name +
                  " does not read FP8 1x128 with f32 scales (this entry's "
                  "format); its formats go through fp8q_gemm_v2");
  }
  for (uint16_t v : out.data)
    ASSERT_EQ(v, 0x1234);
}

TEST(Gemm, MlirEntryPointExitsOnContractViolation) {
  Problem p(8, 128, 256, FP8Q_F8E4M3FN, 5);
  auto w = p.preshuffled();
  auto out = Buf2<uint16_t>::rowMajor(8, 128);
  EXPECT_EXIT(_mlir_ciface_fp8q_rt_gemm(p.q.d(), p.xs.d(), w.d(), p.ws.d(),
                                        out.d(), FP8Q_KERNEL_CK_BPRESHUFFLE, 0,
                                        1),
              testing::ExitedWithCode(1),
              "fp8q runtime error: fp8q_rt_gemm: operand x_scale of kernel "
              "ck_bpreshuffle must be col_major \\(strides \\(1, 8\\)\\) but "
              "has strides \\(2, 1\\)");
}

TEST(Gemm, UncheckedModeNeverReadsOutOfBounds) {
  // deepgemm reads ld = roundup(3, 4) = 4: past the end of a dense 3x2
  // row-major scale. Unchecked mode still refuses.
  Problem p(3, 128, 256, FP8Q_F8E4M3FN, 8);
  auto out = Buf2<uint16_t>::rowMajor(3, 128, 0x1234);
  setenv("FP8Q_RT_UNCHECKED", "1", 1);
  int32_t st = fp8q_gemm(p.q.d(), p.xs.d(), p.w.d(), p.ws.d(), out.d(),
                         FP8Q_KERNEL_DEEPGEMM, 0, 0);
  unsetenv("FP8Q_RT_UNCHECKED");
  EXPECT_EQ(st, FP8Q_ERR_LAYOUT);
  for (uint16_t v : out.data)
    ASSERT_EQ(v, 0x1234);
}

TEST(Gemm, RejectsNullWrongSizesAndEmptyM) {
  Problem p(4, 128, 256, FP8Q_F8E4M3FN, 9);
  auto out = Buf2<uint16_t>::rowMajor(4, 128, 0x1234);
  const int k = FP8Q_KERNEL_REFERENCE;
  EXPECT_EQ(fp8q_gemm(nullptr, p.xs.d(), p.w.d(), p.ws.d(), out.d(), k, 0, 0),
            FP8Q_ERR_NULL);
  fp8q_memref_2d nullW = p.w.desc;
  nullW.aligned = nullptr;
  EXPECT_EQ(fp8q_gemm(p.q.d(), p.xs.d(), &nullW, p.ws.d(), out.d(), k, 0, 0),
            FP8Q_ERR_NULL);
  auto badOut = Buf2<uint16_t>::rowMajor(4, 120);
  EXPECT_EQ(
      fp8q_gemm(p.q.d(), p.xs.d(), p.w.d(), p.ws.d(), badOut.d(), k, 0, 0),
      FP8Q_ERR_SHAPE);
  auto badWs = Buf2<float>::rowMajor(2, 2);
  EXPECT_EQ(fp8q_gemm(p.q.d(), p.xs.d(), p.w.d(), badWs.d(), out.d(), k, 0, 0),
            FP8Q_ERR_SHAPE);
  auto badXs = Buf2<float>::rowMajor(4, 3);
  EXPECT_EQ(fp8q_gemm(p.q.d(), badXs.d(), p.w.d(), p.ws.d(), out.d(), k, 0, 0),
            FP8Q_ERR_SHAPE);
  fp8q_memref_2d q0 = p.q.desc, xs0 = p.xs.desc, out0 = out.desc;
  q0.sizes[0] = xs0.sizes[0] = out0.sizes[0] = 0;
  EXPECT_EQ(fp8q_gemm(&q0, &xs0, p.w.d(), p.ws.d(), &out0, k, 0, 0),
            FP8Q_ERR_EMPTY);
  EXPECT_EQ(fp8q_gemm(p.q.d(), p.xs.d(), p.w.d(), p.ws.d(), out.d(), 17, 0, 0),
            FP8Q_ERR_ARG);
  EXPECT_EQ(fp8q_gemm(p.q.d(), p.xs.d(), p.w.d(), p.ws.d(), out.d(), k, 0, 9),
            FP8Q_ERR_ARG);
  fp8q_memref_2d misaligned = out.desc;
  misaligned.aligned = reinterpret_cast<char *>(out.data.data()) + 1;
  EXPECT_EQ(
      fp8q_gemm(p.q.d(), p.xs.d(), p.w.d(), p.ws.d(), &misaligned, k, 0, 0),
      FP8Q_ERR_ALIGN);
  for (uint16_t v : out.data)
    ASSERT_EQ(v, 0x1234);
}

TEST(Gemm, ResultDoesNotDependOnThreadCount) {
  Problem p(9, 400, 256, FP8Q_F8E4M3FN, 12);
  auto a = Buf2<uint16_t>::rowMajor(9, 400),
       b = Buf2<uint16_t>::rowMajor(9, 400);
  setenv("FP8Q_RT_THREADS", "1", 1);
  ASSERT_EQ(fp8q_gemm(p.q.d(), p.xs.d(), p.w.d(), p.ws.d(), a.d(),
                      FP8Q_KERNEL_TRITON, 0, 0),
            FP8Q_OK);
  setenv("FP8Q_RT_THREADS", "3", 1);
  ASSERT_EQ(fp8q_gemm(p.q.d(), p.xs.d(), p.w.d(), p.ws.d(), b.d(),
                      FP8Q_KERNEL_TRITON, 0, 0),
            FP8Q_OK);
  unsetenv("FP8Q_RT_THREADS");
  EXPECT_EQ(a.data, b.data);
}

} // namespace
