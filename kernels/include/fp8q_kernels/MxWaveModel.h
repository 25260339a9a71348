//===- MxWaveModel.h - wave64 CPU model of the scaled MFMA ------*- C++ -*-===//
//
// v_mfma_scale_f32_16x16x128_f8f6f4 on the host, all 64 lanes held
// explicitly, so that mxWaveTile (MxGemm.h, the loads the gfx950 kernel
// issues) runs on the CPU. The instruction is stated here from the ISA
// sources (REFERENCE.md "MFMA operand layouts": CK's mx_mfma_op register
// tables), deliberately not through MxGemm.h's index math, so that the
// kernel's loads are checked against an independent description:
//
//  - operand A row i (B column j) is in lanes i + 16g, g = 0..3;
//  - fp8 (format 0): hardware K k is byte (k / 64) * 16 + k % 16 of lane
//    group (k % 64) / 16 -- the split halves;
//  - fp4 (format 4): hardware K k is nibble k % 32 (even = low) of the 16
//    bytes of lane group k / 32 -- contiguous;
//  - K block kb = k / 32 is scaled by byte `opsel` of the scale VGPR of lane
//    i + 16 * kb (A) and j + 16 * kb (B): 2^(byte - 127), 0xFF NaN;
//  - D[4 * (l / 16) + r][l % 16] is accumulator r of lane l.
//
// Rounding: the hardware's internal accumulation is not documented; the
// model forms the dot product of the 128 scaled products in double and
// rounds once when adding it to the fp32 accumulator. Tests that need
// bit-exact results use operands whose every partial sum is exact in fp32
// (then all orders agree); others use a tolerance. Host only.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_KERNELS_MXWAVEMODEL_H
#define FP8Q_KERNELS_MXWAVEMODEL_H

#include "fp8q_kernels/CpuLanes.h"
#include "fp8q_kernels/MxGemm.h"

#include <array>
#include <cmath>

namespace fp8q::kern {

/// Byte j (0..31) of a fragment.
inline uint8_t mxFragByte(const MxFrag &f, int j) {
  const Bytes16 &h = j < 16 ? f.lo : f.hi;
  return (uint8_t)(h.w[(j % 16) / 4] >> (8 * (j % 4)));
}

/// Lane group and fragment byte holding hardware K `k` (0..127) of format
/// f; for fp4 also which nibble (`hiNibble`).
struct MxHwSlot {
  int group, byte;
  bool hiNibble;
};
inline MxHwSlot mxHwSlot(MxFmt f, int k) {
  if (f == MxFmt::E2M1)
    return {k / 32, (k % 32) / 2, (k % 2) == 1};
  return {(k % 64) / 16, (k / 64) * 16 + k % 16, false};
}

/// The value of an operand code as the instruction reads it.
inline double mxHwDecode(MxFmt f, const MxFrag &fr, int k) {
  const MxHwSlot s = mxHwSlot(f, k);
  const uint8_t b = mxFragByte(fr, s.byte);
  if (f == MxFmt::E2M1)
    return fp8q_e2m1_decode(s.hiNibble ? uint8_t(b >> 4) : uint8_t(b & 0xF));
  return decodeFp8(b, Fp8::E4M3FN);
}

/// One wave64 on the CPU for mxWaveTile. `mmaCalls` counts instructions.
struct MxCpuWave : CpuLanes<64> {
  int64_t mmaCalls = 0;

  /// One v_mfma_scale_f32_16x16x128_f8f6f4 with format F for both
  /// operands, op_sel bytes opA / opB of the scale VGPRs sa / sb.
  template <MxFmt F>
  Lanes<MxAcc> mma(const Lanes<MxFrag> &a, const Lanes<MxFrag> &b,
                   const Lanes<MxAcc> &c, const Lanes<uint32_t> &sa, int opA,
                   const Lanes<uint32_t> &sb, int opB) {
    ++mmaCalls;
    Lanes<MxAcc> d;
    for (int lane = 0; lane < 64; ++lane)
      for (int r = 0; r < 4; ++r) {
        const int i = 4 * (lane / 16) + r, j = lane % 16;
        double dot = 0.0;
        for (int k = 0; k < kMxStepK; ++k) {
          const int kb = k / 32;
          const uint8_t ea = (uint8_t)(sa[i + 16 * kb] >> (8 * opA));
          const uint8_t eb = (uint8_t)(sb[j + 16 * kb] >> (8 * opB));
          const double prod =
              mxHwDecode(F, a[i + 16 * mxHwSlot(F, k).group], k) *
              mxHwDecode(F, b[j + 16 * mxHwSlot(F, k).group], k);
          dot += prod * (double)fp8q_e8m0_decode(ea) *
                 (double)fp8q_e8m0_decode(eb);
        }
        d[lane].v[r] = (float)((double)c[lane].v[r] + dot);
      }
    return d;
  }
};

/// Runs the whole MX GEMM grid through the wave model with K map `Map`;
/// returns the number of scaled MFMAs issued.
template <MxFmt F, MxKMap Map = MxKMap::Hardware>
inline int64_t runMxGemmModel(const MxGemmArgs &p) {
  int64_t calls = 0;
  for (int64_t bm = 0; bm < mxBlocksM(p.M); ++bm)
    for (int64_t bn = 0; bn < mxBlocksN(p.N); ++bn)
      for (int wave = 0; wave < kMxWavesM * kMxWavesN; ++wave) {
        MxCpuWave w;
        mxWaveTile<F, Map>(p, bm, bn, wave, w);
        calls += w.mmaCalls;
      }
  return calls;
}

} // namespace fp8q::kern

#endif // FP8Q_KERNELS_MXWAVEMODEL_H
