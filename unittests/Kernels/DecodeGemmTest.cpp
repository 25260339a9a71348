//===- DecodeGemmTest.cpp - The decode GEMM on CPU models of both ISAs ----===//
//
// Runs DecodeGemm.h's body (the code of fp8q_kernel_decode_gemm_m*) through
// DecodeGemmModel.h for the NVIDIA (mma.sync m16n8k32, warp of 32) and AMD
// (16x16 MFMA, wave64) lane mappings, against a double-precision reference
// and against the CPU reference runtime, on ragged shapes: M = 1, N and K
// not multiples of 128, M beyond one block.
//
//===----------------------------------------------------------------------===//

#include "fp8q_kernels/DecodeGemmModel.h"

#include "TestData.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <tuple>
#include <utility>

using namespace fp8q::kern;
using namespace fp8q::kern::test;

namespace {

/// Every byte of a K block of the 16-row weight tile and of the m tile is
/// loaded by exactly one (lane, row) of a wave, 16-byte aligned.
template <class Map> void expectCoverage() {
  std::multiset<std::pair<int, int>> w, x;
  for (int l = 0; l < Map::kLanes; ++l) {
    EXPECT_EQ(Map::kOff(l) % 16, 0);
    for (int b = 0; b < kDecodeLaneBytes; ++b) {
      for (int r = 0; r < Map::kWRows; ++r)
        w.insert({Map::wRow(l, r), Map::kOff(l) + b});
      x.insert({Map::xRow(l), Map::kOff(l) + b});
    }
  }
  for (int r = 0; r < kDecodeTileN; ++r)
    for (int k = 0; k < kGroup; ++k)
      EXPECT_EQ(w.count({r, k}), 1u) << "weight row " << r << " byte " << k;
  for (int r = 0; r < Map::kTileM; ++r)
    for (int k = 0; k < kGroup; ++k)
      EXPECT_EQ(x.count({r, k}), 1u) << "activation row " << r << " byte " << k;
  EXPECT_EQ(w.size(), (size_t)kDecodeTileN * kGroup);
  EXPECT_EQ(x.size(), (size_t)Map::kTileM * kGroup);
  // The accumulators are the 16 x kTileM tile, once each.
  std::set<std::pair<int, int>> acc;
  for (int l = 0; l < Map::kLanes; ++l)
    for (int i = 0; i < 4; ++i)
      acc.insert({Map::accN(l, i), Map::accM(l, i)});
  EXPECT_EQ(acc.size(), (size_t)kDecodeTileN * Map::kTileM);
}

TEST(DecodeGemm, NvLanesCoverTheTileOnce) { expectCoverage<DecodeMapNv>(); }
TEST(DecodeGemm, AmdLanesCoverTheTileOnce) { expectCoverage<DecodeMapAmd>(); }

TEST(DecodeGemm, KernelRows) {
  EXPECT_EQ(decodeKernelRows<DecodeMapNv>(1), 8);
  EXPECT_EQ(decodeKernelRows<DecodeMapNv>(9), 16);
  EXPECT_EQ(decodeKernelRows<DecodeMapNv>(33), 64);
  EXPECT_EQ(decodeKernelRows<DecodeMapNv>(300), 64);
  EXPECT_EQ(decodeKernelRows<DecodeMapAmd>(1), 16);
  EXPECT_EQ(decodeKernelRows<DecodeMapAmd>(17), 32);
  EXPECT_EQ(decodeKernelRows<DecodeMapAmd>(64), 64);
}

/// One decode GEMM's operands: column-major activation scale (ld = M, the
/// layout that needs no copy after a fused quantize), plain weight.
struct Problem {
  int64_t M, N, K, G, NB;
  Fp8 fp8;
  std::vector<uint8_t> q, w;
  std::vector<float> xs, ws;

  Problem(int64_t M, int64_t N, int64_t K, Fp8 fp8, unsigned seed)
      : M(M), N(N), K(K), G((K + kGroup - 1) / kGroup), NB((N + 127) / 128),
        fp8(fp8) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> sd(0.25f, 2.0f);
    q.resize(M * K);
    w.resize(N * K);
    for (auto &b : q)
      b = randomFp8(rng, fp8);
    for (auto &b : w)
      b = randomFp8(rng, fp8);
    xs.resize(M * G);
    for (auto &s : xs)
      s = sd(rng) / 64.0f;
    ws.resize(NB * G);
    for (auto &s : ws)
      s = sd(rng) / 64.0f;
  }
  float xScale(int64_t m, int64_t g) const { return xs[g * M + m]; }

  /// out[m, n] in double and the sum of |terms|, written from the
  /// definition (not the kernel's order).
  void reference(std::vector<double> &ref, std::vector<double> &mag) const {
    ref.assign(M * N, 0.0);
    mag.assign(M * N, 0.0);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n)
        for (int64_t k = 0; k < K; ++k) {
          const double s =
              (double)xScale(m, k / kGroup) * ws[(n / 128) * G + k / kGroup];
          const double p = (double)decodeFp8(q[m * K + k], fp8) *
                           decodeFp8(w[n * K + k], fp8) * s;
          ref[m * N + n] += p;
          mag[m * N + n] += std::fabs(p);
        }
  }

  DecodeGemmArgs args(uint16_t *out) const {
    DecodeGemmArgs a{};
    a.q = q.data();
    a.xs = xs.data();
    a.w = w.data();
    a.ws = ws.data();
    a.out = out;
    a.M = M;
    a.N = N;
    a.K = K;
    a.ldq = K;
    a.xs0 = 1;
    a.xs1 = M;
    a.ldw = K;
    a.ws0 = G;
    a.ws1 = 1;
    a.ldo = N;
    return a;
  }
};

/// Runs the variant a launcher picks for M; returns matrix instructions.
template <class Map, WLayout L>
int64_t runVariant(const DecodeGemmArgs &a, Fp8 fp8, int rows) {
  switch (rows / Map::kTileM) {
  case 1:
    return runDecodeGemmModel<Map, 1, L>(a, fp8);
  case 2:
    return runDecodeGemmModel<Map, 2, L>(a, fp8);
  case 4:
    return runDecodeGemmModel<Map, 4, L>(a, fp8);
  default:
    return runDecodeGemmModel<Map, 8, L>(a, fp8);
  }
}

template <class Map>
int64_t runVariant(const DecodeGemmArgs &a, Fp8 fp8, int rows, bool shuffled) {
  return shuffled ? runVariant<Map, WLayout::Preshuffle16x16>(a, fp8, rows)
                  : runVariant<Map, WLayout::Plain>(a, fp8, rows);
}

enum class Isa { Nv, Gfx950, Gfx942 };

struct Shape {
  int64_t M, N, K;
};

class DecodeGemmModelTest
    : public ::testing::TestWithParam<std::tuple<Isa, Shape, bool>> {};

float bf16(uint16_t b) { return toFloat(Bf16{b}); }

TEST_P(DecodeGemmModelTest, MatchesReferences) {
  auto [isa, s, shuffled] = GetParam();
  const Fp8 fp8 = isa == Isa::Gfx942 ? Fp8::E4M3FNUZ : Fp8::E4M3FN;
  Problem pr(s.M, s.N, s.K, fp8, (unsigned)(s.M * 977 + s.N * 13 + s.K));
  std::vector<uint16_t> out(pr.M * pr.N, 0xffff); // NaN sentinel
  DecodeGemmArgs a = pr.args(out.data());
  std::vector<uint8_t> wShuf;
  if (shuffled) {
    if (pr.N % 16 || pr.K % 32)
      GTEST_SKIP() << "preshuffle_16x16 needs N % 16 == 0 and K % 32 == 0";
    wShuf.resize(pr.N * pr.K);
    for (int64_t n = 0; n < pr.N; ++n)
      for (int64_t k = 0; k < pr.K; ++k)
        wShuf[preshuffleOffset(n, k, pr.K)] = pr.w[n * pr.K + k];
    a.w = wShuf.data();
  }
  int64_t calls, tileM, perBlock;
  if (isa == Isa::Nv) {
    const int rows = decodeKernelRows<DecodeMapNv>(pr.M);
    calls = runVariant<DecodeMapNv>(a, fp8, rows, shuffled);
    tileM = DecodeMapNv::kTileM;
    perBlock = 4;
    // Every m tile of every block, whether or not rows reach into it.
    tileM = (pr.M + rows - 1) / rows * (rows / tileM);
  } else {
    const int rows = decodeKernelRows<DecodeMapAmd>(pr.M);
    calls = runVariant<DecodeMapAmd>(a, fp8, rows, shuffled);
    perBlock = 1; // the model counts one per 16x16x128 (or its 4 x32 steps)
    tileM = (pr.M + rows - 1) / rows * (rows / DecodeMapAmd::kTileM);
  }
  const int64_t tilesN = (pr.N + kDecodeTileN - 1) / kDecodeTileN;
  EXPECT_EQ(calls, tilesN * tileM * pr.G * perBlock);

  std::vector<double> ref, mag;
  pr.reference(ref, mag);
  int64_t bad = 0;
  for (int64_t i = 0; i < pr.M * pr.N; ++i) {
    const float o = bf16(out[i]);
    ASSERT_FALSE(std::isnan(o)) << "output " << i << " never written";
    // bf16 rounding (2^-9 relative) plus fp32 accumulation error.
    const double tol = std::ldexp(std::fabs(ref[i]), -8) + 1e-5 * mag[i];
    if (std::fabs(o - ref[i]) > tol && ++bad < 5)
      ADD_FAILURE() << "out[" << i / pr.N << "," << i % pr.N << "] = " << o
                    << ", reference " << ref[i];
  }
  EXPECT_EQ(bad, 0);

  if (pr.K % kGroup != 0)
    return; // the runtime ABI's K is a multiple of the scale block
  std::vector<uint16_t> rt(pr.M * pr.N, 0);
  fp8q_memref_2d q = memref2d(pr.q.data(), pr.M, pr.K, pr.K, 1);
  fp8q_memref_2d xs = memref2d(pr.xs.data(), pr.M, pr.G, 1, pr.M);
  fp8q_memref_2d w = memref2d(pr.w.data(), pr.N, pr.K, pr.K, 1);
  fp8q_memref_2d ws = memref2d(pr.ws.data(), pr.NB, pr.G, pr.G, 1);
  fp8q_memref_2d o = memref2d(rt.data(), pr.M, pr.N, pr.N, 1);
  ASSERT_EQ(fp8q_gemm(&q, &xs, &w, &ws, &o, FP8Q_KERNEL_REFERENCE, (int32_t)fp8,
                      FP8Q_WEIGHT_LAYOUT_PLAIN),
            FP8Q_OK)
      << fp8q_last_error();
  int64_t differ = 0;
  for (int64_t i = 0; i < pr.M * pr.N; ++i) {
    const double x = bf16(out[i]), y = bf16(rt[i]);
    // Both round an fp32 sum of the same exact products to bf16; only the
    // summation order differs (DecodeGemm.h states the kernel's).
    const double tol = std::ldexp(std::fabs(y), -7) + 1e-5 * mag[i];
    if (std::fabs(x - y) > tol && ++differ < 5)
      ADD_FAILURE() << "model " << x << " vs CPU runtime " << y << " at " << i;
  }
  EXPECT_EQ(differ, 0);
}

std::string paramName(
    const ::testing::TestParamInfo<DecodeGemmModelTest::ParamType> &info) {
  static const char *names[] = {"nv", "gfx950", "gfx942"};
  const Shape &s = std::get<1>(info.param);
  return std::string(names[(int)std::get<0>(info.param)]) +
         (std::get<2>(info.param) ? "_preshuffle" : "_plain") + "_M" +
         std::to_string(s.M) + "_N" + std::to_string(s.N) + "_K" +
         std::to_string(s.K);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, DecodeGemmModelTest,
    ::testing::Combine(::testing::Values(Isa::Nv, Isa::Gfx950, Isa::Gfx942),
                       ::testing::Values(Shape{1, 16, 128}, Shape{1, 40, 256},
                                         Shape{5, 136, 384},
                                         Shape{16, 128, 2048},
                                         Shape{33, 48, 640},
                                         Shape{64, 256, 1024},
                                         Shape{64, 24, 144}, Shape{70, 32, 256},
                                         Shape{16, 200, 1152}),
                       ::testing::Bool()),
    paramName);

} // namespace
