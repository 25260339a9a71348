//===- WaveModel.h - A wave64 CPU model for GemmTile.h ----------*- C++ -*-===//
//
// Runs the GEMM's tile loop (gemmWaveTile) on the host with all 64 lanes of
// a wave held explicitly: every per-lane value is an array of 64, loads go
// through the same index math as on the GPU, and mma() computes each lane's
// 4 accumulators from the operand fragments using the MFMA lane mapping of
// IndexMath.h (lane % 16 = row/column, lane / 16 = 32-wide k group,
// accumulator i = row 4 * (lane / 16) + i). Host only.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_KERNELS_WAVEMODEL_H
#define FP8Q_KERNELS_WAVEMODEL_H

#include "fp8q_kernels/CpuLanes.h"
#include "fp8q_kernels/GemmTile.h"

namespace fp8q::kern {

/// Byte j (0..31) of a fragment.
inline uint8_t fragByte(const Frag &f, int j) {
  const Bytes16 &h = j < 16 ? f.lo : f.hi;
  return (uint8_t)(h.w[(j % 16) / 4] >> (8 * (j % 4)));
}

/// One wave64 on the CPU. `mmaCalls` counts MFMA instructions issued.
template <Mma K> struct CpuWave : CpuLanes<64> {
  Fp8 fp8;
  int64_t mmaCalls = 0;

  /// The matrix instruction(s) covering one K block of 128: fresh
  /// accumulators, fp32 sums of exact fp8 products. The operand and result
  /// layouts are written out here from the ISA description (REFERENCE.md),
  /// deliberately not through IndexMath.h, so that the kernel's index math
  /// is checked against an independent statement of the hardware mapping:
  /// A/B lane l holds row/column l % 16 and, for k group l / 16, the bytes
  /// the instruction pairs with the same bytes of the other operand; result
  /// register i of lane l is D[4 * (l / 16) + i][l % 16].
  Lanes<Acc> mma(const Lanes<Frag> &a, const Lanes<Frag> &b) {
    Lanes<Acc> d;
    const int steps = K == Mma::X128 ? 1 : 4;
    const int bytes = kFragBytes / steps;
    mmaCalls += steps;
    for (int lane = 0; lane < 64; ++lane)
      for (int i = 0; i < 4; ++i) {
        const int r = 4 * (lane / 16) + i, c = lane % 16;
        float acc = 0.0f;
        for (int s = 0; s < steps; ++s) {
          // One instruction: the dot product over all 4 lane groups.
          float dot = 0.0f;
          for (int g = 0; g < 4; ++g) {
            const Frag &fa = a[r + 16 * g], &fb = b[c + 16 * g];
            for (int j = s * bytes; j < (s + 1) * bytes; ++j)
              dot += decodeFp8(fragByte(fa, j), fp8) *
                     decodeFp8(fragByte(fb, j), fp8);
          }
          acc += dot;
        }
        d[lane].v[i] = acc;
      }
    return d;
  }
};

/// Runs the whole GEMM grid through the wave model.
template <Mma K, WLayout L>
inline int64_t runGemmModel(const GemmArgs &p, Fp8 fp8) {
  int64_t calls = 0;
  for (int64_t bm = 0; bm < gemmBlocksM(p.M); ++bm)
    for (int64_t bn = 0; bn < gemmBlocksN(p.N); ++bn)
      for (int wave = 0; wave < kGemmWaves; ++wave) {
        CpuWave<K> w{{}, fp8};
        gemmWaveTile<L>(p, bm, bn, wave, w);
        calls += w.mmaCalls;
      }
  return calls;
}

} // namespace fp8q::kern

#endif // FP8Q_KERNELS_WAVEMODEL_H
