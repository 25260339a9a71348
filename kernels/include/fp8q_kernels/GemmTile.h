//===- GemmTile.h - The block-scale GEMM wave tile loop ---------*- C++ -*-===//
//
// The one copy of the GEMM's tile loop. It is written against a `Wave`
// policy: on the GPU a Wave is one lane (values are per-lane registers and
// mma() is the hardware MFMA); in the wave64 CPU model (WaveModel.h) a Wave
// holds all 64 lanes (values are arrays of 64) and mma() computes the MFMA
// from the documented lane mapping. The loads, scale reads and stores are
// the same code in both.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_KERNELS_GEMMTILE_H
#define FP8Q_KERNELS_GEMMTILE_H

#include "fp8q_kernels/IndexMath.h"
#include "fp8q_kernels/Numerics.h"

namespace fp8q::kern {

/// Everything a block-scale GEMM reads and writes. Offsets are in elements;
/// the launcher resolved the activation scale strides from the kernel
/// contract (column-major ld = M for ck_bpreshuffle).
struct GemmArgs {
  const uint8_t *q; ///< [M, K] fp8, row stride ldq
  const float *xs;  ///< [M, K/128], strides (xs0, xs1)
  const uint8_t *w; ///< [N, K] fp8 plain (row stride ldw) or preshuffled
  const float *ws;  ///< [ceil(N/128), K/128], strides (ws0, ws1)
  uint16_t *out;    ///< [M, N] bf16, row stride ldo
  int64_t M, N, K;
  int64_t ldq, xs0, xs1, ldw, ws0, ws1, ldo;
};

/// A lane's operand fragment: 32 consecutive k of one row (A) or column (B).
struct Frag {
  Bytes16 lo, hi;
};
/// A lane's 4 accumulators of one 16x16 tile.
struct Acc {
  float v[4];
};

/// Which matrix instruction sequence covers one K block of 128.
enum class Mma {
  X128, ///< one v_mfma_f32_16x16x128_f8f6f4 (gfx950)
  X32,  ///< four v_mfma_f32_16x16x32_fp8_fp8 (gfx942, also gfx950)
};

FP8Q_HOSTDEV inline Frag loadFrag(const uint8_t *base, int64_t lo, int64_t hi) {
  Frag f;
  f.lo = *reinterpret_cast<const Bytes16 *>(base + lo);
  f.hi = *reinterpret_cast<const Bytes16 *>(base + hi);
  return f;
}

/// Computes the wave tile `wave` of block (bm, bn): rows
/// [waveRow0, +16) x columns [waveCol0, +64) of out. Requires N % 16 == 0
/// and K % 128 == 0; rows past M read zeros and are not stored.
template <WLayout L, class Wave>
FP8Q_HOSTDEV inline void gemmWaveTile(const GemmArgs &p, int64_t bm, int64_t bn,
                                      int wave, Wave &W) {
  const int64_t row0 = waveRow0(bm, wave), col0 = waveCol0(bn, wave);
  if (col0 >= p.N)
    return;
  typename Wave::template Lanes<Acc> total[kWaveTilesN];
  for (int t = 0; t < kWaveTilesN; ++t)
    W.each([&](int lane) {
      for (int i = 0; i < 4; ++i)
        W.at(total[t], lane).v[i] = 0.0f;
    });
  const int64_t kBlocks = p.K / kGroup;
  // The block's 128 columns are one weight-scale row (kGemmBlockN == 128).
  const int64_t nb = col0 / kGroup;
  for (int64_t kb = 0; kb < kBlocks; ++kb) {
    typename Wave::template Lanes<Frag> a = W.map([&](int lane) {
      int64_t row = row0 + fragRow(lane);
      if (row >= p.M)
        return Frag{};
      int64_t o = aFragOffset(row, kb, lane, p.ldq);
      return loadFrag(p.q, o, o + 16);
    });
    const float ws = p.ws[scaleOffset(nb, kb, p.ws0, p.ws1)];
    // The activation scale of each accumulator row times the weight scale.
    typename Wave::template Lanes<Acc> s = W.map([&](int lane) {
      Acc r;
      for (int i = 0; i < 4; ++i) {
        int64_t row = row0 + accRow(lane, i);
        r.v[i] =
            row < p.M ? p.xs[scaleOffset(row, kb, p.xs0, p.xs1)] * ws : 0.0f;
      }
      return r;
    });
    for (int t = 0; t < kWaveTilesN; ++t) {
      const int64_t c0 = col0 + t * kMfmaN;
      if (c0 >= p.N) // N % 16 == 0: whole tiles only, uniform per wave
        break;
      typename Wave::template Lanes<Frag> b = W.map([&](int lane) {
        BHalves h = bFragOffsets(L, c0 + fragRow(lane), kb, lane, p.K, p.ldw);
        return loadFrag(p.w, h.lo, h.hi);
      });
      typename Wave::template Lanes<Acc> part = W.mma(a, b);
      W.each([&](int lane) {
        Acc &tot = W.at(total[t], lane);
        const Acc &pr = W.at(part, lane);
        const Acc &sc = W.at(s, lane);
        for (int i = 0; i < 4; ++i)
          tot.v[i] += pr.v[i] * sc.v[i];
      });
    }
  }
  for (int t = 0; t < kWaveTilesN; ++t) {
    const int64_t c0 = col0 + t * kMfmaN;
    if (c0 >= p.N)
      break;
    W.each([&](int lane) {
      const Acc &tot = W.at(total[t], lane);
      for (int i = 0; i < 4; ++i) {
        int64_t row = row0 + accRow(lane, i);
        if (row < p.M)
          p.out[row * p.ldo + c0 + accCol(lane)] = bf16Bits(tot.v[i]);
      }
    });
  }
}

} // namespace fp8q::kern

#endif // FP8Q_KERNELS_GEMMTILE_H
