//===- MxGemmTest.cpp - The MX GEMM's loads through a wave64 model --------===//
//
// Runs mxWaveTile (the loads and scale reads of the gfx950 MXFP8 / MXFP4
// kernels) through MxCpuWave, the wave64 model of
// v_mfma_scale_f32_16x16x128_f8f6f4 (MxWaveModel.h: fp8 split halves, fp4
// contiguous, lane group kb's scale byte for K block kb), and compares the
// result with the MX GEMM's definition (sum_k q * w * 2^(xs - 127) *
// 2^(ws - 127), in double) and with the CPU runtime's fp8q_gemm_v2. It also
// shows that the unscaled FP8 GEMM's contiguous load is wrong once the
// per-32 scales differ inside a 128-K step, and right when they do not.
//
// Exact operands: codes and scale exponents in small ranges such that every
// partial sum in any order is a multiple of 2^-11 below 2^13 (fp8) or of
// 2^-5 below 2^19 (fp4), so exact in fp32: the model, the reference and the
// runtime must then agree bit for bit whatever their addition order.
//
//===----------------------------------------------------------------------===//

#include "fp8q_kernels/MxWaveModel.h"

#include "TestData.h"

#include "fp8q/Runtime/fp8q_runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

using namespace fp8q::kern;
using namespace fp8q::kern::test;

namespace {

/// How the operands are drawn.
enum class Draw {
  Exact,        ///< the exact ranges above, scales vary per 32
  ExactUniform, ///< the same, the 4 scales of each 128-K step equal
  Random,       ///< any finite code, scale exponents in [-8, 8]
};

/// One MX GEMM's operands: logical codes and scale bytes, and the buffers
/// the kernel reads (packed rows, preshuffled weight, cdna4_mx scales).
struct MxProblem {
  MxFmt fmt;
  int64_t M, N, K, G, KB;
  bool preshuffled;
  std::vector<uint8_t> qc, wc, xe, we; // [M,K] [N,K] codes, [M,G] [N,G]
  std::vector<uint8_t> q, w, xs, ws;   // what the kernel reads
  std::vector<uint8_t> wPlain;         // w unshuffled
  std::vector<uint16_t> out;

  MxProblem(MxFmt fmt, int64_t M, int64_t N, int64_t K, bool preshuffled,
            Draw draw, unsigned seed)
      : fmt(fmt), M(M), N(N), K(K), G(K / kMxGroup), KB(mxBytes(fmt, K)),
        preshuffled(preshuffled) {
    std::mt19937 rng(seed);
    auto code = [&]() -> uint8_t {
      if (fmt == MxFmt::E2M1)
        return rng() & 0xF;
      if (draw == Draw::Random)
        return randomFp8(rng, Fp8::E4M3FN);
      if (rng() % 8 == 0)
        return 0;
      // +-(1 + m/8) * 2^e, e in {-1, 0}: E4M3FN exponent field e + 7.
      return uint8_t(((rng() & 1) << 7) | ((6 + rng() % 2) << 3) | (rng() & 7));
    };
    qc.resize(M * K);
    wc.resize(N * K);
    for (auto &c : qc)
      c = code();
    for (auto &c : wc)
      c = code();
    auto exps = [&](std::vector<uint8_t> &e, int64_t rows, int lo, int hi) {
      e.resize(rows * G);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t g = 0; g < G; ++g)
          e[r * G + g] = draw == Draw::ExactUniform && g % 4
                             ? e[r * G + g - g % 4]
                             : uint8_t(127 + lo + (int)(rng() % (hi - lo + 1)));
    };
    const bool rnd = draw == Draw::Random;
    exps(xe, M, rnd ? -8 : -1, rnd ? 8 : 1);
    exps(we, N, rnd ? -8 : -2, rnd ? 8 : 1);

    auto pack = [&](const std::vector<uint8_t> &c, int64_t rows) {
      std::vector<uint8_t> b(rows * KB, 0);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t k = 0; k < K; ++k) {
          uint8_t &d = b[r * KB + mxBytes(fmt, k)];
          if (fmt == MxFmt::E4M3)
            d = c[r * K + k];
          else
            d |= uint8_t(c[r * K + k] << (4 * (k & 1)));
        }
      return b;
    };
    q = pack(qc, M);
    wPlain = pack(wc, N);
    if (!preshuffled) {
      w = wPlain;
    } else {
      w.assign(N * KB, 0);
      for (int64_t n = 0; n < N; ++n)
        for (int64_t kb = 0; kb < KB; ++kb)
          w[fp8q_preshuffle_offset(n, kb, N, KB)] = wPlain[n * KB + kb];
    }
    auto shuffle = [&](const std::vector<uint8_t> &e, int64_t rows) {
      std::vector<uint8_t> s(
          fp8q_scale_layout_alloc(FP8Q_LAYOUT_CDNA4_MX, 1, rows, G), 0);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t g = 0; g < G; ++g)
          s[fp8q_scale_offset(FP8Q_LAYOUT_CDNA4_MX, 1, rows, G, r, g)] =
              e[r * G + g];
      return s;
    };
    xs = shuffle(xe, M);
    ws = shuffle(we, N);
    out.assign(M * N, 0xFFFF);
  }

  MxGemmArgs args() {
    return MxGemmArgs{
        q.data(), xs.data(), w.data(), ws.data(), out.data(),         M, N, K,
        KB,       KB,        N,        1,         preshuffled ? 1 : 0};
  }

  double decode(uint8_t c) const {
    return fmt == MxFmt::E2M1 ? fp8q_e2m1_decode(c) : decodeFp8(c, Fp8::E4M3FN);
  }
  /// The definition in double, and the sum of |terms|.
  void reference(std::vector<double> &ref, std::vector<double> &mag) const {
    ref.assign(M * N, 0.0);
    mag.assign(M * N, 0.0);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n)
        for (int64_t k = 0; k < K; ++k) {
          const double t = decode(qc[m * K + k]) * decode(wc[n * K + k]) *
                           std::ldexp(1.0, xe[m * G + k / 32] - 127) *
                           std::ldexp(1.0, we[n * G + k / 32] - 127);
          ref[m * N + n] += t;
          mag[m * N + n] += std::fabs(t);
        }
  }

  /// fp8q_gemm_v2 of the CPU runtime: MXFP4 with a preshuffled weight
  /// under the aiter_mxfp4 contract; otherwise the reference kernel with the
  /// plain weight (gemm_v2 preshuffles fp4 weights only).
  std::vector<uint16_t> runtime() {
    std::vector<uint16_t> o(M * N, 0xFFFF);
    const bool aiter = fmt == MxFmt::E2M1 && preshuffled;
    fp8q_memref_2d dq = memref2d(q.data(), M, KB, KB, 1);
    fp8q_memref_2d dw =
        memref2d(aiter ? w.data() : wPlain.data(), N, KB, KB, 1);
    fp8q_memref_2d dxs = memref2d(xs.data(), M, G, 0, 0);
    fp8q_memref_2d dws = memref2d(ws.data(), N, G, 0, 0);
    fp8q_memref_2d dout = memref2d(o.data(), M, N, N, 1);
    const bool fp4 = fmt == MxFmt::E2M1;
    int32_t s = fp8q_gemm_v2(
        &dq, &dxs, &dw, &dws, nullptr, &dout, kMxGroup,
        aiter ? FP8Q_KERNEL_AITER_MXFP4 : FP8Q_KERNEL_REFERENCE,
        fp4 ? FP8Q_Q_F4E2M1FN : FP8Q_Q_F8E4M3FN, FP8Q_SCALE_F8E8M0FNU,
        FP8Q_LAYOUT_CDNA4_MX, 1, FP8Q_LAYOUT_CDNA4_MX, 1, aiter ? 1 : 0);
    EXPECT_EQ(s, FP8Q_OK) << fp8q_last_error();
    return o;
  }

  /// Scaled MFMAs the kernel issues: per wave inside [M, N], 2 per 16-column
  /// tile inside N and 128-K step.
  int64_t expectedCalls() const {
    int64_t c = 0;
    for (int64_t r0 = 0; r0 < M; r0 += kMxWaveM)
      for (int64_t c0 = 0; c0 < N; c0 += kMxWaveN) {
        const int64_t cols = N - c0 < kMxWaveN ? N - c0 : kMxWaveN;
        c += 2 * (cols / 16) * (K / kMxStepK);
      }
    return c;
  }
};

std::string name(MxFmt f) { return f == MxFmt::E2M1 ? "MXFP4" : "MXFP8"; }

/// Outputs whose bits differ from bf16(ref) (ref exact in fp32).
int64_t mismatches(const std::vector<uint16_t> &got,
                   const std::vector<double> &ref) {
  int64_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i)
    bad += got[i] != bf16Bits((float)ref[i]);
  return bad;
}

struct Shape {
  int64_t M, N, K;
};
// Whole blocks, ragged M, N past one wave but not a block, an odd number of
// 128-K steps (half of the last scale word unused), a single row.
const Shape kShapes[] = {{64, 128, 256},
                         {40, 48, 384},
                         {100, 160, 128},
                         {1, 16, 512},
                         {33, 80, 640}};

TEST(MxGemmIndexMath, ScaleOffsetIsCdna4Mx) {
  for (int64_t M : {1, 40, 256, 300})
    for (int64_t G : {4, 12, 20})
      for (int64_t m = 0; m < M; ++m)
        for (int64_t g = 0; g < G; ++g)
          ASSERT_EQ(mxScaleOffset(m, g, G), fp8q_offset_cdna4_mx(m, g, G))
              << m << " " << g << " " << G;
}

// The hardware K map loads every K of the step exactly once per row, in the
// slot the instruction reads it from (MxWaveModel.h's independent statement).
TEST(MxGemmIndexMath, HardwareLoadFillsTheInstructionsSlots) {
  for (MxFmt f : {MxFmt::E4M3, MxFmt::E2M1}) {
    std::vector<int> seen(kMxStepK, 0);
    for (int lane = 0; lane < 64; lane += 16)
      for (int r = 0; r < mxRuns(f); ++r)
        for (int j = 0; j < 16; ++j)
          for (int nib = 0; nib < (f == MxFmt::E2M1 ? 2 : 1); ++nib) {
            const int k = mxRunK(f, MxKMap::Hardware, lane, r) +
                          (f == MxFmt::E2M1 ? 2 * j + nib : j);
            ASSERT_LT(k, kMxStepK);
            ++seen[k];
            const MxHwSlot s = mxHwSlot(f, k);
            EXPECT_EQ(s.group, lane / 16) << name(f) << " k " << k;
            EXPECT_EQ(s.byte, 16 * r + j) << name(f) << " k " << k;
            EXPECT_EQ(s.hiNibble, nib == 1) << name(f) << " k " << k;
          }
    for (int k = 0; k < kMxStepK; ++k)
      EXPECT_EQ(seen[k], 1) << name(f) << " k " << k;
  }
}

/// runMxGemmModel for a format known at run time (the hardware K order);
/// the number of scaled MFMAs issued.
int64_t runMxGemmModelOf(MxFmt fmt, const MxGemmArgs &a) {
  return fmt == MxFmt::E2M1 ? runMxGemmModel<MxFmt::E2M1>(a)
                            : runMxGemmModel<MxFmt::E4M3>(a);
}

class MxGemmModel
    : public ::testing::TestWithParam<std::tuple<MxFmt, bool, Shape>> {};

TEST_P(MxGemmModel, BitExactOnExactOperands) {
  auto [fmt, shuf, s] = GetParam();
  MxProblem P(fmt, s.M, s.N, s.K, shuf, Draw::Exact, 7 + (unsigned)s.K);
  std::vector<double> ref, mag;
  P.reference(ref, mag);
  MxGemmArgs a = P.args();
  const int64_t calls = runMxGemmModelOf(fmt, a);
  EXPECT_EQ(calls, P.expectedCalls());
  EXPECT_EQ(mismatches(P.out, ref), 0);
  // The CPU runtime (another order of fp32 additions) agrees too.
  EXPECT_EQ(P.runtime(), P.out);
}

TEST_P(MxGemmModel, PortablePathIsTheRuntimeBitForBit) {
  auto [fmt, shuf, s] = GetParam();
  MxProblem P(fmt, s.M, s.N, s.K, shuf, Draw::Random, 11 + (unsigned)s.M);
  MxGemmArgs a = P.args();
  for (int64_t m = 0; m < P.M; ++m)
    for (int64_t n = 0; n < P.N; ++n)
      P.out[m * P.N + n] = bf16Bits(mxPortableOutput(a, fmt, m, n));
  EXPECT_EQ(P.runtime(), P.out);
}

// Full-range codes and scales: the model rounds differently from the
// definition (fp32 accumulation across 128-K steps), so a tolerance: the
// bf16 rounding (2^-8 relative) plus 2^-18 of the sum of |terms|.
TEST_P(MxGemmModel, WithinToleranceOnRandomOperands) {
  auto [fmt, shuf, s] = GetParam();
  MxProblem P(fmt, s.M, s.N, s.K, shuf, Draw::Random, 3 + (unsigned)s.N);
  std::vector<double> ref, mag;
  P.reference(ref, mag);
  MxGemmArgs a = P.args();
  runMxGemmModelOf(fmt, a);
  for (int64_t i = 0; i < P.M * P.N; ++i) {
    const double got = bitsFloat(uint32_t(P.out[i]) << 16);
    ASSERT_LE(std::fabs(got - ref[i]),
              std::ldexp(std::fabs(ref[i]), -8) + std::ldexp(mag[i], -18))
        << "output " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, MxGemmModel,
    ::testing::Combine(::testing::Values(MxFmt::E4M3, MxFmt::E2M1),
                       ::testing::Bool(), ::testing::ValuesIn(kShapes)),
    [](const auto &info) {
      const Shape s = std::get<2>(info.param);
      return name(std::get<0>(info.param)) +
             (std::get<1>(info.param) ? "_preshuffled_" : "_plain_") +
             std::to_string(s.M) + "x" + std::to_string(s.N) + "x" +
             std::to_string(s.K);
    });

// The negative test: the unscaled FP8 GEMM's load (32 consecutive K
// per lane group) puts K 32..47 in hardware block 0, so with per-32 scales
// that differ inside a step most outputs are wrong...
TEST(MxGemmContiguousLoad, FailsWithPer32Scales) {
  MxProblem P(MxFmt::E4M3, 64, 128, 256, false, Draw::Exact, 5);
  std::vector<double> ref, mag;
  P.reference(ref, mag);
  MxGemmArgs a = P.args();
  runMxGemmModel<MxFmt::E4M3, MxKMap::Contiguous>(a);
  EXPECT_GT(mismatches(P.out, ref), P.M * P.N / 2);
  runMxGemmModel<MxFmt::E4M3, MxKMap::Hardware>(a);
  EXPECT_EQ(mismatches(P.out, ref), 0);
}

// ...while with one scale per 128 K (what the unscaled GEMM has) it is
// exact: the products still pair equal K.
TEST(MxGemmContiguousLoad, ExactWithOneScalePer128) {
  MxProblem P(MxFmt::E4M3, 64, 128, 256, true, Draw::ExactUniform, 6);
  std::vector<double> ref, mag;
  P.reference(ref, mag);
  MxGemmArgs a = P.args();
  runMxGemmModel<MxFmt::E4M3, MxKMap::Contiguous>(a);
  EXPECT_EQ(mismatches(P.out, ref), 0);
}

} // namespace
