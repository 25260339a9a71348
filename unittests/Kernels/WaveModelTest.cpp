//===- WaveModelTest.cpp - The HIP GEMM's tile loop on a CPU wave64 -------===//
//
// Runs gemmWaveTile (the code the gfx950/gfx942 GEMM kernels run) through the
// wave64 CPU model: 64 lanes, 32-byte operand fragments loaded through the
// kernels' index math, the MFMA lane mapping, 4 accumulators per lane. The
// result is compared with a double-precision reference and with the CPU
// reference runtime's fp8q_gemm, on shapes that are multiples of the
// 32 x 128 block tile and shapes that are not.
//
//===----------------------------------------------------------------------===//

#include "fp8q_kernels/WaveModel.h"

#include "TestData.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <tuple>

using namespace fp8q::kern;
using namespace fp8q::kern::test;

namespace {

/// Operands of one GEMM in the layouts one kernel reads.
struct Problem {
  int64_t M, N, K, G, NB;
  Fp8 fp8;
  std::vector<uint8_t> q, w, wShuf;
  std::vector<float> xsRow, xsCol, ws;

  Problem(int64_t M, int64_t N, int64_t K, Fp8 fp8, unsigned seed)
      : M(M), N(N), K(K), G(K / kGroup), NB((N + 127) / 128), fp8(fp8) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> sd(0.25f, 2.0f);
    q.resize(M * K);
    w.resize(N * K);
    for (auto &b : q)
      b = randomFp8(rng, fp8);
    for (auto &b : w)
      b = randomFp8(rng, fp8);
    wShuf.resize(N * K);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t k = 0; k < K; ++k)
        wShuf[preshuffleOffset(n, k, K)] = w[n * K + k];
    xsRow.resize(M * G);
    xsCol.resize(M * G);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t g = 0; g < G; ++g) {
        float s = sd(rng) / 64.0f;
        xsRow[m * G + g] = s;
        xsCol[g * M + m] = s; // column-major, ld = M
      }
    ws.resize(NB * G);
    for (auto &s : ws)
      s = sd(rng) / 64.0f;
  }

  /// out[m, n] in double, and the sum of |terms| (the cancellation scale).
  void reference(std::vector<double> &ref, std::vector<double> &mag) const {
    ref.assign(M * N, 0.0);
    mag.assign(M * N, 0.0);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n)
        for (int64_t kb = 0; kb < G; ++kb) {
          double part = 0, partMag = 0;
          for (int64_t k = kb * kGroup; k < (kb + 1) * kGroup; ++k) {
            double p = (double)decodeFp8(q[m * K + k], fp8) *
                       decodeFp8(w[n * K + k], fp8);
            part += p;
            partMag += std::fabs(p);
          }
          double s = (double)xsRow[m * G + kb] * ws[(n / 128) * G + kb];
          ref[m * N + n] += part * s;
          mag[m * N + n] += partMag * s;
        }
  }
};

/// Kernel variants: the gfx950 ck_bpreshuffle kernel (x128 MFMA, OCP fp8,
/// column-major scale, preshuffled weight) and gfx942 kernels (x32 MFMA,
/// FNUZ) on plain and preshuffled weights with the row-major scale.
enum class Variant { Gfx950Bpreshuffle, Gfx942Plain, Gfx942Preshuffle };

struct Shape {
  int64_t M, N, K;
};

class GemmWaveModel
    : public ::testing::TestWithParam<std::tuple<Variant, Shape>> {};

std::vector<uint16_t> runModel(const Problem &pr, Variant v, bool colMajor,
                               int64_t &mmaCalls) {
  std::vector<uint16_t> out(pr.M * pr.N, 0xffff); // NaN sentinel
  GemmArgs a{};
  a.q = pr.q.data();
  a.M = pr.M;
  a.N = pr.N;
  a.K = pr.K;
  a.ldq = pr.K;
  a.xs = colMajor ? pr.xsCol.data() : pr.xsRow.data();
  a.xs0 = colMajor ? 1 : pr.G;
  a.xs1 = colMajor ? pr.M : 1;
  a.ws = pr.ws.data();
  a.ws0 = pr.G;
  a.ws1 = 1;
  a.out = out.data();
  a.ldo = pr.N;
  a.ldw = pr.K;
  switch (v) {
  case Variant::Gfx950Bpreshuffle:
    a.w = pr.wShuf.data();
    mmaCalls = runGemmModel<Mma::X128, WLayout::Preshuffle16x16>(a, pr.fp8);
    break;
  case Variant::Gfx942Plain:
    a.w = pr.w.data();
    mmaCalls = runGemmModel<Mma::X32, WLayout::Plain>(a, pr.fp8);
    break;
  case Variant::Gfx942Preshuffle:
    a.w = pr.wShuf.data();
    mmaCalls = runGemmModel<Mma::X32, WLayout::Preshuffle16x16>(a, pr.fp8);
    break;
  }
  return out;
}

float bf16(uint16_t b) { return toFloat(Bf16{b}); }

TEST_P(GemmWaveModel, MatchesReferences) {
  auto [variant, shape] = GetParam();
  const Fp8 fp8 =
      variant == Variant::Gfx950Bpreshuffle ? Fp8::E4M3FN : Fp8::E4M3FNUZ;
  const bool colMajor = variant == Variant::Gfx950Bpreshuffle;
  Problem pr(shape.M, shape.N, shape.K, fp8,
             (unsigned)(shape.M * 131 + shape.N * 7 + shape.K));
  int64_t calls = 0;
  std::vector<uint16_t> out = runModel(pr, variant, colMajor, calls);

  // One MFMA tile per 16 columns, per 16 rows of each block, per K block.
  const int64_t tilesN = pr.N / 16;
  const int64_t tilesM = gemmBlocksM(pr.M) * (kGemmBlockM / 16);
  EXPECT_EQ(calls, tilesM * tilesN * pr.G *
                       (variant == Variant::Gfx950Bpreshuffle ? 1 : 4));

  std::vector<double> ref, mag;
  pr.reference(ref, mag);
  int64_t bad = 0;
  for (int64_t i = 0; i < pr.M * pr.N; ++i) {
    float o = bf16(out[i]);
    ASSERT_FALSE(std::isnan(o)) << "output " << i << " never written";
    // bf16 rounding (2^-9 relative) plus fp32 accumulation error.
    double tol = std::ldexp(std::fabs(ref[i]), -8) + 1e-5 * mag[i];
    if (std::fabs(o - ref[i]) > tol && ++bad < 5)
      ADD_FAILURE() << "out[" << i / pr.N << "," << i % pr.N << "] = " << o
                    << ", reference " << ref[i];
  }
  EXPECT_EQ(bad, 0);

  // The CPU runtime reads the same buffers under the same kernel contract.
  std::vector<uint16_t> rt(pr.M * pr.N, 0);
  fp8q_memref_2d q = memref2d(pr.q.data(), pr.M, pr.K, pr.K, 1);
  fp8q_memref_2d xs = colMajor ? memref2d(pr.xsCol.data(), pr.M, pr.G, 1, pr.M)
                               : memref2d(pr.xsRow.data(), pr.M, pr.G, pr.G, 1);
  const bool shuf = variant != Variant::Gfx942Plain;
  fp8q_memref_2d w =
      memref2d(shuf ? pr.wShuf.data() : pr.w.data(), pr.N, pr.K, pr.K, 1);
  fp8q_memref_2d ws = memref2d(pr.ws.data(), pr.NB, pr.G, pr.G, 1);
  fp8q_memref_2d o = memref2d(rt.data(), pr.M, pr.N, pr.N, 1);
  int32_t kernel = variant == Variant::Gfx950Bpreshuffle
                       ? FP8Q_KERNEL_CK_BPRESHUFFLE
                   : variant == Variant::Gfx942Plain ? FP8Q_KERNEL_CK
                                                     : FP8Q_KERNEL_REFERENCE;
  ASSERT_EQ(fp8q_gemm(&q, &xs, &w, &ws, &o, kernel, (int32_t)fp8,
                      shuf ? FP8Q_WEIGHT_LAYOUT_PRESHUFFLE_16X16
                           : FP8Q_WEIGHT_LAYOUT_PLAIN),
            FP8Q_OK)
      << fp8q_last_error();
  int64_t differ = 0;
  for (int64_t i = 0; i < pr.M * pr.N; ++i) {
    double a = bf16(out[i]), b = bf16(rt[i]);
    // Both round an fp32 sum of the same exact products to bf16; only the
    // summation order differs.
    double tol = std::ldexp(std::fabs(b), -7) + 1e-5 * mag[i];
    if (std::fabs(a - b) > tol && ++differ < 5)
      ADD_FAILURE() << "model " << a << " vs CPU runtime " << b << " at " << i;
  }
  EXPECT_EQ(differ, 0);
}

std::string
paramName(const ::testing::TestParamInfo<GemmWaveModel::ParamType> &info) {
  static const char *names[] = {"gfx950_bpreshuffle", "gfx942_plain",
                                "gfx942_preshuffle"};
  const Shape &s = std::get<1>(info.param);
  return std::string(names[(int)std::get<0>(info.param)]) + "_M" +
         std::to_string(s.M) + "_N" + std::to_string(s.N) + "_K" +
         std::to_string(s.K);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, GemmWaveModel,
    ::testing::Combine(
        ::testing::Values(Variant::Gfx950Bpreshuffle, Variant::Gfx942Plain,
                          Variant::Gfx942Preshuffle),
        ::testing::Values(Shape{32, 128, 128},  // one block tile
                          Shape{64, 256, 512},  // 2 x 2 tiles, 4 K blocks
                          Shape{1, 16, 128},    // decode row, one MFMA tile
                          Shape{17, 48, 256},   // partial rows and columns
                          Shape{45, 272, 384},  // partial in M and N
                          Shape{5, 144, 128})), // N past a 128 block
    paramName);

TEST(GemmWaveModelLayout, RowMajorBytesReadColumnMajorAreWrong) {
  // The historical bug: the bpreshuffle kernel reading row-major scale
  // bytes as column-major. The model must see it (the test can fail).
  Problem pr(24, 128, 512, Fp8::E4M3FN, 7);
  std::vector<uint16_t> out(pr.M * pr.N);
  GemmArgs a{};
  a.q = pr.q.data();
  a.M = pr.M;
  a.N = pr.N;
  a.K = pr.K;
  a.ldq = pr.K;
  a.xs = pr.xsRow.data(); // row-major bytes ...
  a.xs0 = 1;              // ... read with column-major strides (1, M)
  a.xs1 = pr.M;
  a.w = pr.wShuf.data();
  a.ldw = pr.K;
  a.ws = pr.ws.data();
  a.ws0 = pr.G;
  a.ws1 = 1;
  a.out = out.data();
  a.ldo = pr.N;
  runGemmModel<Mma::X128, WLayout::Preshuffle16x16>(a, pr.fp8);
  std::vector<double> ref, mag;
  pr.reference(ref, mag);
  double err = 0, norm = 0;
  for (int64_t i = 0; i < pr.M * pr.N; ++i) {
    err += std::pow(bf16(out[i]) - ref[i], 2);
    norm += ref[i] * ref[i];
  }
  EXPECT_GT(std::sqrt(err / norm), 0.05);
}

} // namespace
