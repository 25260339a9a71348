//===- DecodeGemmTest.cpp - The decode GEMM on CPU models of both ISAs ----===//
//
// Runs DecodeGemm.h's body (the code of fp8q_kernel_decode_gemm_m*) through
// DecodeGemmModel.h for the NVIDIA (mma.sync m16n8k32, warp of 32) and AMD
// (16x16 MFMA, wave64) lane mappings, against a double-precision reference
// and against the CPU reference runtime, on ragged shapes: M = 1, N and K
// not multiples of 128, M beyond one block. The second design
// (DecodeGemmV2.h: LDS ring, split-K with an ordered fix-up) runs through
// DecodeGemmV2Model.h on the same shapes, split-K on and off.
//
//===----------------------------------------------------------------------===//

#include "fp8q_kernels/DecodeGemmModel.h"
#include "fp8q_kernels/DecodeGemmV2Model.h"

#include "TestData.h"

#include <gtest/gtest.h>

#include <algorithm>
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
  // A lane's activation scales are loaded once per distinct row
  // (DecodeXOps): accRow names a slot holding the same row.
  for (int l = 0; l < Map::kLanes; ++l)
    for (int i = 0; i < 4; ++i) {
      ASSERT_LT(Map::accRow(i), Map::kAccRows);
      EXPECT_EQ(Map::accM(l, i), Map::accM(l, Map::accRow(i)))
          << "lane " << l << " accumulator " << i;
    }
}

TEST(DecodeGemm, NvLanesCoverTheTileOnce) { expectCoverage<DecodeMapNv>(); }
TEST(DecodeGemm, AmdLanesCoverTheTileOnce) { expectCoverage<DecodeMapAmd>(); }

/// The routing table against cuBLASLt is the H200 measurement at M = 16
/// (bench/results/h200-decode-gemm-pdl.log): routed exactly where the
/// decode GEMM was faster.
TEST(DecodeGemm, BeatsCublasWhereMeasured) {
  struct Measured {
    int64_t N, K;
    bool faster; // decode GEMM faster than cuBLASLt at M = 16
  };
  const Measured m16[] = {{6144, 2048, true},   {4096, 6144, true},
                          {2624, 6144, true},   {2048, 2048, true},
                          {2112, 7168, true},   {7168, 2048, false},
                          {24576, 1536, false}, {6144, 256, false}};
  for (const Measured &s : m16) {
    EXPECT_EQ(decodeGemmBeatsCublas(16, s.N, s.K), s.faster)
        << s.N << " x " << s.K;
    // M = 9 .. 15 take M = 16's measurement (the same 16-row kernel
    // variant; not measured separately).
    EXPECT_EQ(decodeGemmBeatsCublas(9, s.N, s.K), s.faster);
    // M <= 8: every shape (cuBLASLt refuses M = 1); M > 16: none.
    EXPECT_TRUE(decodeGemmBeatsCublas(1, s.N, s.K));
    EXPECT_TRUE(decodeGemmBeatsCublas(8, s.N, s.K));
    EXPECT_FALSE(decodeGemmBeatsCublas(17, s.N, s.K));
    EXPECT_FALSE(decodeGemmBeatsCublas(64, s.N, s.K));
  }
  // The region's edges.
  EXPECT_TRUE(decodeGemmBeatsCublas(16, 6144, 2048));
  EXPECT_FALSE(decodeGemmBeatsCublas(16, 6145, 2048));
  EXPECT_FALSE(decodeGemmBeatsCublas(16, 6144, 2032));
}

/// The 8-row variant per shape is the H100 measurement at M = 1
/// (bench/results/h100-decode-b2-s16.log, 132 SMs; 7168 x 2048 and
/// 4608 x 7168 from h100-decode-m8b2-s17.log): the two-block variant where
/// it was faster, the three-block one where it was slower. The rule's one
/// measured miss, 576 x 7168 (36 blocks: b2 4% slower), is not in the
/// table.
TEST(DecodeGemm, M8TwoBlocksWhereMeasured) {
  struct Measured {
    int64_t N, K;
    bool twoFaster; // m8_b2 faster than m8 at M = 1
  };
  const Measured m1[] = {{6144, 2048, false}, {4096, 6144, true},
                         {2624, 6144, true},  {2048, 2048, true},
                         {2112, 7168, true},  {6144, 256, false},
                         {24576, 1536, false}, {7168, 2048, false},
                         {4608, 7168, false}};
  for (const Measured &s : m1) {
    EXPECT_EQ(decodeM8TwoBlocks(1, s.N, 132), s.twoFaster)
        << s.N << " x " << s.K;
    EXPECT_EQ(decodeM8TwoBlocks(8, s.N, 132), s.twoFaster);
  }
  // The edge: 2 * 132 blocks of 16 weight rows.
  EXPECT_TRUE(decodeM8TwoBlocks(1, 264 * 16, 132));
  EXPECT_FALSE(decodeM8TwoBlocks(1, 264 * 16 + 1, 132));
  // No multiprocessor count known: the default variant.
  EXPECT_FALSE(decodeM8TwoBlocks(1, 16, 0));
}

TEST(DecodeGemm, KernelRows) {
  EXPECT_EQ(decodeKernelRows<DecodeMapNv>(1), 8);
  EXPECT_EQ(decodeKernelRows<DecodeMapNv>(9), 16);
  EXPECT_EQ(decodeKernelRows<DecodeMapNv>(33), 64);
  EXPECT_EQ(decodeKernelRows<DecodeMapNv>(300), 64);
  EXPECT_EQ(decodeKernelRows<DecodeMapAmd>(1), 16);
  EXPECT_EQ(decodeKernelRows<DecodeMapAmd>(17), 32);
  EXPECT_EQ(decodeKernelRows<DecodeMapAmd>(64), 64);
}

/// The split-K plan against the H100 measurements (132 SMs, M = 1 and 16;
/// bench/results/s18/split.txt): split where it was faster, not where it
/// was slower; and the rule's invariants over a sweep.
TEST(DecodeGemm, SplitPlanWhereMeasured) {
  // 576 x 7168 (DeepSeek-V3.2 kv_a): 36 tiles, 56 K blocks: 264 slots / 36
  // = 7 splits (5.69 us against 8.38 unsplit at M = 1).
  for (int64_t M : {1, 16}) {
    const int rows = decodeKernelRows<DecodeMapNv>(M);
    DecodeSplitPlan pl = decodeSplitPlan<DecodeMapNv>(M, 576, 7168, rows, 132);
    EXPECT_EQ(pl.tiles, 36);
    EXPECT_EQ(pl.splits, 7);
    EXPECT_EQ(pl.kbPer, 8);
    // 1536 x 7168: 96 tiles, 2 splits (9.19 us against 10.10; 3 splits,
    // a partial second wave, 11.27).
    EXPECT_EQ(decodeSplitPlan<DecodeMapNv>(M, 1536, 7168, rows, 132).splits, 2);
    // 2048 x 2048: 16 K blocks, all in flight unsplit (4.63 us against
    // 5.42 with 2 splits): none.
    EXPECT_EQ(decodeSplitPlan<DecodeMapNv>(M, 2048, 2048, rows, 132).splits, 1);
    // Tiles >= SMs: none (6144 x 2048: 384 tiles; 2112 x 7168: 132).
    EXPECT_EQ(decodeSplitPlan<DecodeMapNv>(M, 6144, 2048, rows, 132).splits, 1);
    EXPECT_EQ(decodeSplitPlan<DecodeMapNv>(M, 2112, 7168, rows, 132).splits, 1);
  }
  // M = 64 (one resident block of the 64-row variant per SM): 1536 x 7168
  // unsplit (22.53 us against 30.41 with 2 splits on the 2-block rule,
  // bench/results/s18/split-rule.txt); 576 x 7168 in 132 / 36 = 3.
  EXPECT_EQ(decodeSplitPlan<DecodeMapNv>(64, 1536, 7168, 64, 132).splits, 1);
  EXPECT_EQ(decodeSplitPlan<DecodeMapNv>(64, 576, 7168, 64, 132).splits, 3);
  // One tile, long K: capped at kDecodeMaxSplits.
  EXPECT_EQ(decodeSplitPlan<DecodeMapNv>(1, 16, 128 * 1024, 8, 132).splits,
            kDecodeMaxSplits);
  // AMD blocks have 4 waves: 16 K blocks split 4 ways on one tile.
  EXPECT_EQ(decodeSplitPlan<DecodeMapAmd>(1, 16, 2048, 16, 256).splits, 4);
  // The target override (bench A/B): 1 block per SM, 132 / 36 = 3.
  EXPECT_EQ(decodeSplitPlan<DecodeMapNv>(1, 576, 7168, 8, 132, 1).splits, 3);
  // No multiprocessor count known: no split.
  EXPECT_EQ(decodeSplitPlan<DecodeMapNv>(1, 16, 7168, 8, 0).splits, 1);
  // Every plan over a sweep: the splits cover K exactly, none empty; a
  // split plan has fewer tiles than SMs, K blocks beyond two per wave, a K
  // block per wave in each split and every block resident at once.
  for (int64_t N : {16, 40, 576, 1000, 2112, 4096})
    for (int64_t K : {128, 1024, 2048, 2176, 7168, 16384})
      for (int64_t M : {1, 8, 16, 64})
        for (int sms : {1, 80, 132, 304}) {
          const int rows = decodeKernelRows<DecodeMapNv>(M);
          const DecodeSplitPlan p =
              decodeSplitPlan<DecodeMapNv>(M, N, K, rows, sms);
          ASSERT_GE(p.splits, 1);
          ASSERT_LE(p.splits, kDecodeMaxSplits);
          EXPECT_GE(p.kbPer * p.splits, p.kBlocks);
          EXPECT_LT(p.kbPer * (p.splits - 1), p.kBlocks) << "an empty split";
          if (p.splits > 1) {
            EXPECT_LT(p.tiles, sms);
            EXPECT_GT(p.kBlocks, 2 * decodeWaves<DecodeMapNv>());
            EXPECT_GE(p.kbPer, decodeWaves<DecodeMapNv>());
            EXPECT_LE(p.tiles * p.splits,
                      decodeSplitBlocksPerSm(rows) * (int64_t)sms);
          }
        }
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
int64_t runVariant(const DecodeGemmArgs &a, Fp8 fp8, int rows, int splits) {
  switch (rows / Map::kTileM) {
  case 1:
    return runDecodeGemmModel<Map, 1, L>(a, fp8, splits);
  case 2:
    return runDecodeGemmModel<Map, 2, L>(a, fp8, splits);
  case 4:
    return runDecodeGemmModel<Map, 4, L>(a, fp8, splits);
  default:
    return runDecodeGemmModel<Map, 8, L>(a, fp8, splits);
  }
}

template <class Map>
int64_t runVariant(const DecodeGemmArgs &a, Fp8 fp8, int rows, bool shuffled,
                   int splits = 1) {
  return shuffled
             ? runVariant<Map, WLayout::Preshuffle16x16>(a, fp8, rows, splits)
             : runVariant<Map, WLayout::Plain>(a, fp8, rows, splits);
}

enum class Isa { Nv, Gfx950, Gfx942 };

struct Shape {
  int64_t M, N, K;
};

float bf16(uint16_t b) { return toFloat(Bf16{b}); }

/// Checks a model's output against the double reference and (K % 128 ==
/// 0) the CPU reference runtime.
void expectMatchesReferences(const Problem &pr,
                             const std::vector<uint16_t> &out) {
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
  ASSERT_EQ(fp8q_gemm(&q, &xs, &w, &ws, &o, FP8Q_KERNEL_REFERENCE,
                      (int32_t)pr.fp8, FP8Q_WEIGHT_LAYOUT_PLAIN),
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

/// The problem's weight in preshuffle_16x16 order (N % 16 == 0, K % 32 ==
/// 0), as the preshuffled kernels read it.
std::vector<uint8_t> preshuffledWeight(const Problem &pr) {
  std::vector<uint8_t> w(pr.N * pr.K);
  for (int64_t n = 0; n < pr.N; ++n)
    for (int64_t k = 0; k < pr.K; ++k)
      w[preshuffleOffset(n, k, pr.K)] = pr.w[n * pr.K + k];
  return w;
}

/// Whether preshuffle_16x16 can hold an N x K weight.
bool preshuffleFits(int64_t N, int64_t K) { return N % 16 == 0 && K % 32 == 0; }

/// Runs the variant a launcher picks for M with `splits` K splits on a
/// seeded problem, checks the matrix instructions issued (every m tile of
/// every block and split-independent: each K block once per tile) and the
/// output against both references.
void expectModelMatches(Isa isa, int64_t M, int64_t N, int64_t K, unsigned seed,
                        bool shuffled, int splits) {
  const Fp8 fp8 = isa == Isa::Gfx942 ? Fp8::E4M3FNUZ : Fp8::E4M3FN;
  Problem pr(M, N, K, fp8, seed);
  std::vector<uint16_t> out(pr.M * pr.N, 0xffff); // NaN sentinel
  DecodeGemmArgs a = pr.args(out.data());
  std::vector<uint8_t> wShuf;
  if (shuffled) {
    wShuf = preshuffledWeight(pr);
    a.w = wShuf.data();
  }
  const bool nv = isa == Isa::Nv;
  const int rows = nv ? decodeKernelRows<DecodeMapNv>(pr.M)
                      : decodeKernelRows<DecodeMapAmd>(pr.M);
  const int64_t calls =
      nv ? runVariant<DecodeMapNv>(a, fp8, rows, shuffled, splits)
         : runVariant<DecodeMapAmd>(a, fp8, rows, shuffled, splits);
  const int64_t tileM = nv ? DecodeMapNv::kTileM : DecodeMapAmd::kTileM;
  const int64_t tilesN = (pr.N + kDecodeTileN - 1) / kDecodeTileN;
  // Every m tile of every block, whether or not rows reach into it.
  const int64_t mTiles = (pr.M + rows - 1) / rows * (rows / tileM);
  // NVIDIA: four m16n8k32 per K block; AMD: the model counts one per
  // 16x16x128 (or its 4 x32 steps).
  EXPECT_EQ(calls, tilesN * mTiles * pr.G * (nv ? 4 : 1));
  expectMatchesReferences(pr, out);
}

/// A model case: the shape and the K splits (1: none).
struct ModelShape {
  int64_t M, N, K;
  int splits;
};

class DecodeGemmModelTest
    : public ::testing::TestWithParam<std::tuple<Isa, ModelShape, bool>> {};

TEST_P(DecodeGemmModelTest, MatchesReferences) {
  auto [isa, s, shuffled] = GetParam();
  if (shuffled && !preshuffleFits(s.N, s.K))
    GTEST_SKIP() << "preshuffle_16x16 needs N % 16 == 0 and K % 32 == 0";
  expectModelMatches(isa, s.M, s.N, s.K,
                     (unsigned)(s.M * 977 + s.N * 13 + s.K + 131 * s.splits),
                     shuffled, s.splits);
}

std::string paramName(
    const ::testing::TestParamInfo<DecodeGemmModelTest::ParamType> &info) {
  static const char *names[] = {"nv", "gfx950", "gfx942"};
  const ModelShape &s = std::get<1>(info.param);
  return std::string(names[(int)std::get<0>(info.param)]) +
         (std::get<2>(info.param) ? "_preshuffle" : "_plain") + "_M" +
         std::to_string(s.M) + "_N" + std::to_string(s.N) + "_K" +
         std::to_string(s.K) +
         (s.splits > 1 ? "_S" + std::to_string(s.splits) : "");
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, DecodeGemmModelTest,
    ::testing::Combine(::testing::Values(Isa::Nv, Isa::Gfx950, Isa::Gfx942),
                       ::testing::Values(ModelShape{1, 16, 128, 1},
                                         ModelShape{1, 40, 256, 1},
                                         ModelShape{5, 136, 384, 1},
                                         ModelShape{16, 128, 2048, 1},
                                         ModelShape{33, 48, 640, 1},
                                         ModelShape{64, 256, 1024, 1},
                                         ModelShape{64, 24, 144, 1},
                                         ModelShape{70, 32, 256, 1},
                                         ModelShape{16, 200, 1152, 1}),
                       ::testing::Bool()),
    paramName);

/// Split-K (DecodeSplitArgs): each K block still computed once per tile,
/// the fix-up in split order (the model runs the splits last-first), ragged
/// M, N and K, splits whose last range is shorter, both weight layouts.
INSTANTIATE_TEST_SUITE_P(
    Splits, DecodeGemmModelTest,
    ::testing::Combine(::testing::Values(Isa::Nv, Isa::Gfx950, Isa::Gfx942),
                       ::testing::Values(ModelShape{1, 16, 2048, 2},
                                         ModelShape{1, 40, 2304, 3},
                                         ModelShape{5, 48, 2048, 7},
                                         ModelShape{16, 32, 1040, 4},
                                         ModelShape{3, 64, 4096, 8}),
                       ::testing::Bool()),
    paramName);

/// The sm_90 matrix step (decodeNvF16Weight / decodeNvF16Regs: one
/// m16n8k16 f16 per word of a lane's 32 bytes, DecodeGemm.hip) computes
/// the K block's sums of the m16n8k32 e4m3 step the model states. The
/// m16n8k16 model here is an independent statement of its fragment layout
/// (PTX ISA: lane l = 4 g + q holds A rows g / g + 8 at k 2q, 2q + 1
/// (a0 / a1) and k 2q + 8, 2q + 9 (a2 / a3), B column g at k 2q, 2q + 1
/// (b0) and 2q + 8, 2q + 9 (b1), D rows g / g + 8 at columns 2q, 2q + 1);
/// its conversion keeps the two bytes (half e = byte e: A and B share one
/// conversion, so only their pairing matters). Integer-valued operands
/// make every sum exact: the two steps must agree bit for bit.
TEST(DecodeGemm, NvF16StepMatchesE4m3Step) {
  std::vector<uint8_t> small; // e4m3 codes of the integers -8 .. 8
  for (int c = 0; c < 256; ++c) {
    const float v = decodeFp8((uint8_t)c, Fp8::E4M3FN);
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) <= 8.0f)
      small.push_back((uint8_t)c);
  }
  ASSERT_GE(small.size(), 17u);
  std::mt19937 rng(21);
  auto randomFrag = [&] {
    DecodeFrag f;
    for (int w = 0; w < 4; ++w) {
      f.lo.w[w] = f.hi.w[w] = 0;
      for (int b = 0; b < 4; ++b) {
        f.lo.w[w] |= (uint32_t)small[rng() % small.size()] << (8 * b);
        f.hi.w[w] |= (uint32_t)small[rng() % small.size()] << (8 * b);
      }
    }
    return f;
  };
  using Wave = DecodeCpuWave<DecodeMapNv>;
  for (int trial = 0; trial < 4; ++trial) {
    Wave W{{}, Fp8::E4M3FN};
    Wave::Lanes<DecodeWFrag<DecodeMapNv>> a;
    Wave::Lanes<DecodeFrag> b;
    for (int l = 0; l < 32; ++l) {
      a[l].row[0] = randomFrag();
      a[l].row[1] = randomFrag();
      b[l] = randomFrag();
    }
    const Wave::Lanes<DecodeAcc> want = W.mma(a, b);
    auto keep = [](uint16_t v) { return (uint32_t)v; };
    auto elem = [](uint32_t reg, int half) {
      return decodeFp8((uint8_t)(reg >> (8 * half)), Fp8::E4M3FN);
    };
    float D[16][8] = {};
    for (int i = 0; i < 8; ++i) {
      uint32_t ra[32][4], rb[32][2];
      for (int l = 0; l < 32; ++l)
        decodeNvF16Regs(decodeNvF16Weight(a[l], keep), b[l], i, keep, ra[l],
                        rb[l]);
      for (int r = 0; r < 16; ++r)
        for (int n = 0; n < 8; ++n) {
          float dot = 0.0f;
          for (int k = 0; k < 16; ++k)
            dot += elem(ra[(r % 8) * 4 + (k % 8) / 2][(r >= 8) + 2 * (k >= 8)],
                        k % 2) *
                   elem(rb[4 * n + (k % 8) / 2][k >= 8], k % 2);
          D[r][n] += dot;
        }
    }
    for (int l = 0; l < 32; ++l)
      for (int j = 0; j < 4; ++j)
        ASSERT_EQ(D[l / 4 + 8 * (j / 2)][2 * (l % 4) + j % 2], want[l].v[j])
            << "lane " << l << " accumulator " << j;
  }
}

/// Strided operands whose bytes past K in each row are NaN codes: the
/// kernel loads the K blocks inside K unchecked and only a partial last
/// one with the K check (decodeLoad32's Full), so a K check that let a
/// half past K through would put NaN into the outputs. Ragged M, N and K
/// (the clamped rows past M and N are read in bounds: ASan), one and two
/// splits, both lane maps.
TEST(DecodeGemm, BytesPastKNeverReachOutputs) {
  constexpr uint8_t kNaN = 0x7f; // E4M3FN NaN
  for (Isa isa : {Isa::Nv, Isa::Gfx950})
    for (Shape sh : {Shape{5, 40, 144}, Shape{1, 24, 272}, Shape{17, 8, 400}})
      for (int splits : {1, 2}) {
        SCOPED_TRACE(::testing::Message()
                     << "isa " << (int)isa << " M " << sh.M << " N " << sh.N
                     << " K " << sh.K << " splits " << splits);
        Problem pr(sh.M, sh.N, sh.K, Fp8::E4M3FN, (unsigned)(sh.K + splits));
        const int64_t ld = (sh.K + 64 + 15) / 16 * 16;
        auto padded = [&](const std::vector<uint8_t> &x, int64_t rows) {
          std::vector<uint8_t> y(rows * ld, kNaN);
          for (int64_t r = 0; r < rows; ++r)
            std::copy_n(x.data() + r * sh.K, sh.K, y.data() + r * ld);
          return y;
        };
        std::vector<uint8_t> q = padded(pr.q, sh.M), w = padded(pr.w, sh.N);
        std::vector<uint16_t> out(sh.M * sh.N, 0xffff);
        DecodeGemmArgs a = pr.args(out.data());
        a.q = q.data();
        a.ldq = ld;
        a.w = w.data();
        a.ldw = ld;
        const int rows = isa == Isa::Nv ? decodeKernelRows<DecodeMapNv>(sh.M)
                                        : decodeKernelRows<DecodeMapAmd>(sh.M);
        if (isa == Isa::Nv)
          runVariant<DecodeMapNv>(a, pr.fp8, rows, false, splits);
        else
          runVariant<DecodeMapAmd>(a, pr.fp8, rows, false, splits);
        expectMatchesReferences(pr, out);
      }
}

//===----------------------------------------------------------------------===//
// Decode GEMM v2 (DecodeGemmV2.h)
//===----------------------------------------------------------------------===//

/// The swizzled LDS rows are a bijection onto the stage, one row per 128
/// bytes; the NVIDIA fragment reads are conflict-free: the 8 lanes of each
/// quarter warp (one 16-byte shared load phase) read 8 distinct 16-byte
/// bank groups, for weight rows (both row halves) and activation rows.
TEST(DecodeGemmV2, LdsSwizzleIsConflictFree) {
  constexpr int rows = kDecode2TileN + 64;
  std::set<int> offs;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < kDecode2Chunks; ++c) {
      const int o = decode2LdsOffset(r, c);
      EXPECT_EQ(o / kDecode2RowBytes, r);
      EXPECT_EQ(o % 16, 0);
      offs.insert(o);
    }
  EXPECT_EQ(offs.size(), (size_t)rows * kDecode2Chunks);
  using M = DecodeMapNv;
  for (int wave = 0; wave < Decode2Shape<M>::kWaves; ++wave)
    for (int half = 0; half < 2; ++half)
      for (int q = 0; q < 4; ++q) {
        for (int r = 0; r < M::kWRows; ++r) {
          std::set<int> banks;
          for (int l = 8 * q; l < 8 * q + 8; ++l)
            banks.insert((decode2LdsOffset(16 * wave + M::wRow(l, r),
                                           M::kOff(l) / 16 + half) /
                          16) %
                         8);
          EXPECT_EQ(banks.size(), 8u) << "weight wave " << wave;
        }
        for (int t = 0; t < 8; ++t) {
          std::set<int> banks;
          for (int l = 8 * q; l < 8 * q + 8; ++l)
            banks.insert((decode2LdsOffset(kDecode2TileN + 8 * t + M::xRow(l),
                                           M::kOff(l) / 16 + half) /
                          16) %
                         8);
          EXPECT_EQ(banks.size(), 8u) << "activation tile " << t;
        }
      }
}

/// Every weight byte of a stage is copied by exactly one copy, from the
/// right source, for both layouts: the copies of the tile at n0 for K block
/// kb land at the LDS row / chunk of (n - n0, k - 128 kb); a row past N
/// copies row N - 1 (clamped); a chunk past K is null (16 zeros); a K block
/// inside K (decode2FullKb) gives the unchecked source the same address.
template <WLayout L> void expectWeightCopies(int64_t N, int64_t K) {
  std::vector<uint8_t> w(N * K), wl(N * K);
  for (int64_t i = 0; i < N * K; ++i)
    w[i] = (uint8_t)(i * 131 + 7);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k)
      wl[L == WLayout::Plain ? n * K + k : preshuffleOffset(n, k, K)] =
          w[n * K + k];
  DecodeGemmArgs p{};
  p.w = wl.data();
  p.N = N;
  p.K = K;
  p.ldw = K;
  for (int64_t n0 = 0; n0 < N; n0 += kDecode2TileN)
    for (int64_t kb = 0; kb < (K + 127) / 128; ++kb) {
      std::set<int> seen;
      for (int f = 0; f < kDecode2WChunks; ++f) {
        const Decode2Stream st = decode2WeightStream<L>(p, n0, f);
        EXPECT_TRUE(seen.insert(st.lds).second);
        const int row = st.lds / kDecode2RowBytes;
        const int64_t n = std::min<int64_t>(n0 + row, N - 1),
                      k = kb * 128 + st.kOff;
        const uint8_t *src = decode2Src(st, kb, decode2WeightKbStride<L>(), K);
        EXPECT_EQ(src != nullptr, k < K);
        if (decode2FullKb(kb, K))
          EXPECT_EQ(decode2Src<true>(st, kb, decode2WeightKbStride<L>(), K),
                    src);
        EXPECT_EQ(decode2LdsOffset(row, st.kOff / 16), st.lds);
        if (src)
          for (int b = 0; b < 16; ++b)
            ASSERT_EQ(src[b], w[n * K + k + b]) << "n " << n << " k " << k;
      }
      EXPECT_EQ(seen.size(), (size_t)kDecode2WChunks);
    }
}

TEST(DecodeGemmV2, WeightCopiesPlain) {
  expectWeightCopies<WLayout::Plain>(200, 1168);
}
TEST(DecodeGemmV2, WeightCopiesPreshuffle) {
  expectWeightCopies<WLayout::Preshuffle16x16>(208, 1184);
}

/// The split-K rule: splits only when the tiles cannot fill the target,
/// every split non-empty, the splits' K ranges cover all K blocks once.
TEST(DecodeGemmV2, SplitKPlan) {
  for (int sms : {1, 8, 132, 256})
    for (int64_t M : {1, 16, 64, 70})
      for (int64_t N : {16, 200, 2048, 2112, 6144, 24576})
        for (int64_t K : {128, 144, 512, 2048, 7168}) {
          const int rows = decode2KernelRows<DecodeMapNv>(M);
          const Decode2Plan pl = decode2Plan(M, N, K, rows, sms);
          const int64_t tiles = pl.tilesN * pl.tilesM;
          EXPECT_EQ(pl.tilesN, (N + kDecode2TileN - 1) / kDecode2TileN);
          EXPECT_EQ(pl.kBlocks, (K + 127) / 128);
          EXPECT_GE(pl.splits, 1);
          EXPECT_LE(pl.splits, kDecode2MaxSplits);
          if (tiles >= (int64_t)sms * kDecode2BlocksPerSm)
            EXPECT_EQ(pl.splits, 1);
          if (pl.splits > 1)
            EXPECT_GE(pl.kbPer, kDecode2MinKb);
          EXPECT_LT((pl.splits - 1) * pl.kbPer, pl.kBlocks); // none empty
          EXPECT_GE(pl.splits * pl.kbPer, pl.kBlocks);       // all covered
        }
  // The H200 (132 SMs): 2048 x 2048 at M = 1 is 32 tiles of 64 rows,
  // 16 K blocks. A target of 264 blocks: with splits of at least 2 K blocks,
  // 8 splits (floor 264 / 32 = 8; ceil, 9, would leave a partial wave) of
  // 2; with the default 8 (the H200 diagnosis' "best"), 2 splits of 8.
  // 24576 x 1536 fills the GPU without splitting.
  if (kDecode2TileN == 64 && kDecode2BlocksPerSm == 2 &&
      FP8Q_DECODE2_SPLIT_FLOOR) {
    Decode2Plan pl = decode2Plan(1, 2048, 2048, 8, 132, 2);
    EXPECT_EQ(pl.splits, 8);
    EXPECT_EQ(pl.kbPer, 2);
    pl = decode2Plan(1, 2048, 2048, 8, 132, 8);
    EXPECT_EQ(pl.splits, 2);
    EXPECT_EQ(pl.kbPer, 8);
    EXPECT_EQ(decode2Plan(1, 24576, 1536, 8, 132).splits, 1);
  }
}

/// (isa, shape, preshuffled, split-K on)
class DecodeGemmV2ModelTest
    : public ::testing::TestWithParam<std::tuple<Isa, Shape, bool, bool>> {};

/// Split-K runs of the model take splits of 2 K blocks, so the test's
/// short K (K >= 512) still splits.
constexpr int kModelMinKb = 2;

template <class Map, WLayout L>
Decode2ModelStats runV2(const DecodeGemmArgs &a, Fp8 fp8, int rows, int sms) {
  switch (rows / Map::kTileM) {
  case 1:
    return runDecode2Model<Map, 1, L>(a, fp8, sms, kModelMinKb);
  case 2:
    return runDecode2Model<Map, 2, L>(a, fp8, sms, kModelMinKb);
  case 4:
    return runDecode2Model<Map, 4, L>(a, fp8, sms, kModelMinKb);
  default:
    return runDecode2Model<Map, 8, L>(a, fp8, sms, kModelMinKb);
  }
}

template <class Map>
Decode2ModelStats runV2(const DecodeGemmArgs &a, Fp8 fp8, bool shuffled,
                        int sms) {
  const int rows = decode2KernelRows<Map>(a.M);
  return shuffled ? runV2<Map, WLayout::Preshuffle16x16>(a, fp8, rows, sms)
                  : runV2<Map, WLayout::Plain>(a, fp8, rows, sms);
}

TEST_P(DecodeGemmV2ModelTest, MatchesReferences) {
  auto [isa, s, shuffled, splitK] = GetParam();
  const Fp8 fp8 = isa == Isa::Gfx942 ? Fp8::E4M3FNUZ : Fp8::E4M3FN;
  Problem pr(s.M, s.N, s.K, fp8, (unsigned)(s.M * 977 + s.N * 13 + s.K));
  std::vector<uint16_t> out(pr.M * pr.N, 0xffff); // NaN sentinel
  DecodeGemmArgs a = pr.args(out.data());
  std::vector<uint8_t> wShuf;
  if (shuffled) {
    if (pr.N % 16 || pr.K % 32)
      GTEST_SKIP() << "preshuffle_16x16 needs N % 16 == 0 and K % 32 == 0";
    wShuf = preshuffledWeight(pr);
    a.w = wShuf.data();
  }
  // Split-K on: a GPU far too large for the grid; off: a single SM.
  const int sms = splitK ? 4096 : 1;
  const Decode2ModelStats st = isa == Isa::Nv
                                   ? runV2<DecodeMapNv>(a, fp8, shuffled, sms)
                                   : runV2<DecodeMapAmd>(a, fp8, shuffled, sms);
  if (splitK && pr.G >= 2 * kModelMinKb)
    EXPECT_GT(st.plan.splits, 1);
  if (!splitK && st.plan.tilesN * st.plan.tilesM >= kDecode2BlocksPerSm)
    EXPECT_EQ(st.plan.splits, 1);
  // One matrix step per K block, m tile and 16 weight rows (4 mma.sync or
  // 1 MFMA as the models count them), over every tile of the grid.
  const int64_t mTiles =
      st.plan.tilesM * (st.plan.rows / (isa == Isa::Nv ? DecodeMapNv::kTileM
                                                       : DecodeMapAmd::kTileM));
  EXPECT_EQ(st.mmaCalls, st.plan.tilesN * Decode2Shape<DecodeMapNv>::kWaves *
                             mTiles * pr.G * (isa == Isa::Nv ? 4 : 1));
  // One 16-byte copy per weight chunk of every K block and per activation
  // chunk of every row that exists (each block, counted once).
  const int64_t xRows = pr.M; // rows past M are never copied
  EXPECT_EQ(st.copies,
            pr.G * (st.plan.tilesN * st.plan.tilesM * kDecode2WChunks +
                    st.plan.tilesN * xRows * kDecode2Chunks));
  expectMatchesReferences(pr, out);
}

std::string paramNameV2(
    const ::testing::TestParamInfo<DecodeGemmV2ModelTest::ParamType> &info) {
  static const char *names[] = {"nv", "gfx950", "gfx942"};
  const Shape &s = std::get<1>(info.param);
  return std::string(names[(int)std::get<0>(info.param)]) +
         (std::get<2>(info.param) ? "_preshuffle" : "_plain") +
         (std::get<3>(info.param) ? "_splitk" : "_nosplit") + "_M" +
         std::to_string(s.M) + "_N" + std::to_string(s.N) + "_K" +
         std::to_string(s.K);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, DecodeGemmV2ModelTest,
    ::testing::Combine(
        ::testing::Values(Isa::Nv, Isa::Gfx950, Isa::Gfx942),
        ::testing::Values(Shape{1, 16, 128}, Shape{1, 200, 1168},
                          Shape{1, 128, 1024}, Shape{5, 136, 384},
                          Shape{16, 128, 2048}, Shape{33, 48, 640},
                          Shape{64, 256, 1024}, Shape{64, 24, 144},
                          Shape{70, 32, 256}, Shape{16, 200, 1152}),
        ::testing::Bool(), ::testing::Bool()),
    paramNameV2);

} // namespace
