//===- MxGemm.h - The MX (MXFP8 / MXFP4) GEMM's index math and tile loop -===//
//
// out[m, n] = bf16(sum_k q[m, k] * w[n, k] * 2^(xs[m, k/32] - 127) *
// 2^(ws[n, k/32] - 127)): MXFP8 (E4M3 codes) or MXFP4 (E2M1, two codes per
// byte, element 2i in the low nibble), e8m0 scales per 1x32 of each row of
// both operands, both stored cdna4_mx (SPEC v2: AITER e8m0_shuffle), the
// weight plain or preshuffle_16x16 on bytes (AITER shuffle_weight; for fp4
// the [N, K/2] byte matrix). MXFP4 with a preshuffled weight is the
// aiter_mxfp4 contract.
//
// On gfx950 one v_mfma_scale_f32_16x16x128_f8f6f4 covers a 16x16 tile and
// 128 K, the e8m0 bytes applied by the instruction (GemmMx.hip). Like
// GemmTile.h, the tile loop is written against a `Wave` policy: one lane on
// the GPU, all 64 lanes in the CPU model (MxWaveModel.h), so the loads and
// scale reads below are the code the kernel runs.
//
// K order inside a lane (why the load is not the unscaled GEMM's). With
// fp8 operands the instruction does not number K contiguously in a lane:
// lane group g = lane / 16 holds K 16g..16g+15 in VGPRs 0-3 (bytes 0-15)
// and K 64+16g..64+16g+15 in VGPRs 4-7 (bytes 16-31), and the scale byte
// that lane group g supplies covers K block g (K 32g..32g+31), whose codes
// sit in lane groups 2(g%2) and 2(g%2)+1 (CK test/mx_mfma_op/mx_mfma_op.hpp
// register tables; REFERENCE.md "MFMA operand layouts"). The unscaled FP8
// GEMM's load (32 consecutive K per lane group, IndexMath.h fragK) pairs A
// and B correctly under either numbering, which is all one scale per 128 K
// needs; with per-32 scales it would scale K 32..47 by block 0's bytes. So
// the MX load is the split one (mxRunK, MxKMap::Hardware): each lane loads
// 16 bytes at K 16g and 16 bytes at K 64 + 16g of the 128-K step. With fp4
// operands (4 VGPRs, 32 codes a lane) lane group g holds K 32g..32g+31 in
// order (same CK source), so the fp4 load is contiguous. MxKMap::Contiguous
// is the unscaled-FP8-style load, kept only so that the wave64 model can
// show that it is wrong (unittests/Kernels/MxGemmTest.cpp).
//
// Scales: cdna4_mx keeps, for rows 32a + 16b + c and groups 8d + 4e + f,
// the four bytes (b, e) of one (a, d, f, c) as one 32-bit word, byte 2e + b
// (fp8q_offset_cdna4_mx). Lane c + 16f of the instruction supplies the
// scale of row c, K block f: one word load per lane serves two 16-row tiles
// (b, the instruction's op_sel byte) and two 128-K steps (e). A wave
// therefore computes 32 rows x 64 columns (2 x 4 tiles) and walks K 256 at a
// time: one A scale word and two B scale words per 256 K.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_KERNELS_MXGEMM_H
#define FP8Q_KERNELS_MXGEMM_H

#include "fp8q_kernels/Numerics.h"
#include "fp8q_kernels/Portability.h"

#include "fp8q/Runtime/fp8q_mx_numerics.h"
#include "fp8q/Runtime/fp8q_preshuffle.h"
#include "fp8q/Runtime/fp8q_scale_layouts.h"

namespace fp8q::kern {

/// Operand formats; the values are the instruction's cbsz / blgp codes.
enum class MxFmt : int { E4M3 = 0, E2M1 = 4 };

/// Which logical K a lane's operand bytes hold (see the header comment).
enum class MxKMap {
  Hardware,   ///< the instruction's order: fp8 split halves, fp4 contiguous
  Contiguous, ///< 32 consecutive K per lane group (wrong for MXFP8)
};

/// K of one instruction, the MX group, the tiles of a wave and a block.
constexpr int kMxStepK = 128;
constexpr int kMxGroup = 32;
constexpr int kMxWaveM = 32, kMxWaveN = 64;
constexpr int kMxWavesM = 2, kMxWavesN = 2;
constexpr int kMxBlockM = kMxWavesM * kMxWaveM; // 64
constexpr int kMxBlockN = kMxWavesN * kMxWaveN; // 128
constexpr int kMxThreads = kMxWavesM * kMxWavesN * 64;

/// Everything the MX GEMM reads and writes. Requires K % 128 == 0 and
/// N % 16 == 0; M is any. q and w rows (ldq, ldw) and base pointers are
/// 16-byte aligned (the fragments are 16-byte loads), scales 4-byte
/// aligned. Scales are cdna4_mx allocations of [M, K/32] and [N, K/32]
/// (roundup(rows, 256) x roundup(K/32, 8) bytes, padding 0).
struct MxGemmArgs {
  const uint8_t *q;  ///< [M, K] codes row-major, row stride ldq bytes
  const uint8_t *xs; ///< cdna4_mx e8m0 of q
  const uint8_t *w;  ///< [N, K] codes: row stride ldw bytes, or preshuffled
  const uint8_t *ws; ///< cdna4_mx e8m0 of w
  uint16_t *out;     ///< [M, N] bf16, strides (os0, os1) elements
  int64_t M, N, K, ldq, ldw, os0, os1;
  int32_t preshuffled; ///< w is preshuffle_16x16 of the dense byte matrix
};

/// A lane's operand: 32 bytes (fp4: 16 bytes in lo, hi unused and zero).
struct MxFrag {
  Bytes16 lo, hi;
};
/// A lane's 4 accumulators of one 16x16 tile (D row 4 * (lane / 16) + i,
/// column lane % 16, as in every 16x16 MFMA).
struct MxAcc {
  float v[4];
};

/// Bytes of `k` codes of format f.
FP8Q_HOSTDEV inline int64_t mxBytes(MxFmt f, int64_t k) {
  return f == MxFmt::E2M1 ? k / 2 : k;
}
/// 16-byte runs a lane loads per operand and step: 2 (fp8), 1 (fp4).
FP8Q_HOSTDEV inline int mxRuns(MxFmt f) { return f == MxFmt::E2M1 ? 1 : 2; }

/// Logical K, within one 128-K step, of the first code of run r of lane
/// `lane`'s operand (run r fills bytes 16r..16r+15 of the fragment).
FP8Q_HOSTDEV inline int mxRunK(MxFmt f, MxKMap map, int lane, int r) {
  const int g = lane / 16;
  if (f == MxFmt::E2M1)
    return 32 * g;
  return map == MxKMap::Contiguous ? 32 * g + 16 * r : 64 * r + 16 * g;
}

/// Byte offset of code k's byte in row `row` of a row-major operand.
FP8Q_HOSTDEV inline int64_t mxRowByte(MxFmt f, int64_t row, int64_t k,
                                      int64_t ld) {
  return row * ld + mxBytes(f, k);
}
/// Byte offset of code k's byte of weight row n, plain or preshuffled (the
/// [N, K bytes] matrix in preshuffle_16x16; a 16-byte run starting at a
/// multiple of 16 bytes stays contiguous there).
FP8Q_HOSTDEV inline int64_t mxWeightByte(const MxGemmArgs &p, MxFmt f,
                                         int64_t n, int64_t k) {
  if (!p.preshuffled)
    return mxRowByte(f, n, k, p.ldw);
  return fp8q_preshuffle_offset(n, mxBytes(f, k), p.N, mxBytes(f, p.K));
}

/// Index (in 32-bit words) of the cdna4_mx scale word lane `lane` supplies
/// for rows 32 * tile32 + [0, 32) and K [256 * step2, +256) of an operand
/// with G = K / 32 groups: row c = lane % 16, K block f = lane / 16.
FP8Q_HOSTDEV inline int64_t mxScaleWord(int64_t tile32, int64_t step2, int lane,
                                        int64_t G) {
  return ((tile32 * (fp8q_roundup(G, 8) / 8) + step2) * 4 + lane / 16) * 16 +
         lane % 16;
}
/// The byte (the instruction's op_sel) of that word for 16-row tile `sub`
/// (0, 1) and 128-K step `e` (0, 1) of the 256.
FP8Q_HOSTDEV inline int mxScaleByte(int sub, int e) { return 2 * e + sub; }
/// Byte offset of scale (row, g) through the two functions above (what the
/// portable kernel reads; equal to fp8q_offset_cdna4_mx).
FP8Q_HOSTDEV inline int64_t mxScaleOffset(int64_t row, int64_t g, int64_t G) {
  const int lane = (int)(g % 4) * 16 + (int)(row % 16);
  return 4 * mxScaleWord(row / 32, g / 8, lane, G) +
         mxScaleByte((int)(row / 16) % 2, (int)(g / 4) % 2);
}

/// Grid of the MFMA kernels: blocks along M and N.
FP8Q_HOSTDEV inline int64_t mxBlocksM(int64_t M) {
  return (M + kMxBlockM - 1) / kMxBlockM;
}
FP8Q_HOSTDEV inline int64_t mxBlocksN(int64_t N) {
  return (N + kMxBlockN - 1) / kMxBlockN;
}

/// Lane `lane`'s fragment of row `row` (q) or column `row` (w) for K step
/// kb, loaded through the K map.
template <MxFmt F, MxKMap Map>
FP8Q_HOSTDEV inline MxFrag mxLoadFrag(const MxGemmArgs &p, bool weight,
                                      int64_t row, int64_t kb, int lane) {
  MxFrag fr{};
  Bytes16 *runs[2] = {&fr.lo, &fr.hi};
  for (int r = 0; r < mxRuns(F); ++r) {
    const int64_t k = kb * kMxStepK + mxRunK(F, Map, lane, r);
    const uint8_t *src = weight ? p.w + mxWeightByte(p, F, row, k)
                                : p.q + mxRowByte(F, row, k, p.ldq);
    *runs[r] = *reinterpret_cast<const Bytes16 *>(src);
  }
  return fr;
}

/// 32-bit word `i` of a scale allocation.
FP8Q_HOSTDEV inline uint32_t mxLoadWord(const uint8_t *base, int64_t i) {
  return reinterpret_cast<const uint32_t *>(base)[i];
}

/// Computes wave `wave` of block (bm, bn): rows [row0, +32) x columns
/// [col0, +64). Rows past M read zero codes (their scale bytes are the
/// layout's zero padding) and are not stored; 16-column tiles past N are
/// skipped (uniform per wave). Wave::mma<F>(a, b, c, sa, opselA, sb, opselB)
/// is one scaled MFMA; opsel arguments are constants after unrolling.
template <MxFmt F, MxKMap Map, class Wave>
FP8Q_HOSTDEV inline void mxWaveTile(const MxGemmArgs &p, int64_t bm, int64_t bn,
                                    int wave, Wave &W) {
  const int64_t row0 = bm * kMxBlockM + (wave / kMxWavesN) * kMxWaveM;
  const int64_t col0 = bn * kMxBlockN + (wave % kMxWavesN) * kMxWaveN;
  if (row0 >= p.M || col0 >= p.N)
    return;
  const int64_t G = p.K / kMxGroup, steps = p.K / kMxStepK;
  typename Wave::template Lanes<MxAcc> acc[2][4];
  FP8Q_UNROLL
  for (int b = 0; b < 2; ++b)
    FP8Q_UNROLL
  for (int t = 0; t < 4; ++t)
    W.each([&](int lane) {
      for (int i = 0; i < 4; ++i)
        W.at(acc[b][t], lane).v[i] = 0.0f;
    });
  for (int64_t d = 0; d < (steps + 1) / 2; ++d) {
    // One word per lane: both 16-row tiles and both 128-K steps.
    typename Wave::template Lanes<uint32_t> sa = W.map([&](int lane) {
      return mxLoadWord(p.xs, mxScaleWord(row0 / 32, d, lane, G));
    });
    typename Wave::template Lanes<uint32_t> sb[2];
    FP8Q_UNROLL
    for (int h = 0; h < 2; ++h)
      sb[h] = W.map([&](int lane) {
        // Past N: a word of the padded allocation (N % 16 == 0 keeps the
        // wave's first pair in range; the second is read only if used).
        return col0 + 32 * h < p.N
                   ? mxLoadWord(p.ws, mxScaleWord(col0 / 32 + h, d, lane, G))
                   : 0u;
      });
    FP8Q_UNROLL
    for (int e = 0; e < 2; ++e) {
      const int64_t kb = 2 * d + e;
      if (kb >= steps)
        break;
      typename Wave::template Lanes<MxFrag> a[2];
      FP8Q_UNROLL
      for (int b = 0; b < 2; ++b)
        a[b] = W.map([&](int lane) {
          const int64_t row = row0 + 16 * b + lane % 16;
          return row < p.M ? mxLoadFrag<F, Map>(p, false, row, kb, lane)
                           : MxFrag{};
        });
      FP8Q_UNROLL
      for (int t = 0; t < 4; ++t) {
        const int64_t c0 = col0 + 16 * t;
        if (c0 >= p.N)
          break;
        typename Wave::template Lanes<MxFrag> bf = W.map([&](int lane) {
          return mxLoadFrag<F, Map>(p, true, c0 + lane % 16, kb, lane);
        });
        FP8Q_UNROLL
        for (int b = 0; b < 2; ++b)
          acc[b][t] =
              W.template mma<F>(a[b], bf, acc[b][t], sa, mxScaleByte(b, e),
                                sb[t / 2], mxScaleByte(t % 2, e));
      }
    }
  }
  FP8Q_UNROLL
  for (int t = 0; t < 4; ++t) {
    const int64_t c0 = col0 + 16 * t;
    if (c0 >= p.N)
      break;
    FP8Q_UNROLL
    for (int b = 0; b < 2; ++b)
      W.each([&](int lane) {
        const MxAcc &r = W.at(acc[b][t], lane);
        for (int i = 0; i < 4; ++i) {
          const int64_t row = row0 + 16 * b + 4 * (lane / 16) + i;
          if (row < p.M)
            p.out[row * p.os0 + (c0 + lane % 16) * p.os1] = bf16Bits(r.v[i]);
        }
      });
  }
}

//===----------------------------------------------------------------------===//
// Portable path (every target): one output, the CPU runtime's order
//===----------------------------------------------------------------------===//

/// a * b and a + b rounded once each, never contracted into an FMA.
FP8Q_HOSTDEV inline float mxMulRn(float a, float b) {
#if defined(FP8Q_NVPTX)
  return __fmul_rn(a, b);
#else
#pragma clang fp contract(off)
  return a * b;
#endif
}
FP8Q_HOSTDEV inline float mxAddRn(float a, float b) {
#if defined(FP8Q_NVPTX)
  return __fadd_rn(a, b);
#else
#pragma clang fp contract(off)
  return a + b;
#endif
}

/// Code k of row `row` of q, or of weight row `row`.
FP8Q_HOSTDEV inline uint8_t mxCode(const MxGemmArgs &p, MxFmt f, bool weight,
                                   int64_t row, int64_t k) {
  const uint8_t b = weight ? p.w[mxWeightByte(p, f, row, k)]
                           : p.q[mxRowByte(f, row, k, p.ldq)];
  if (f == MxFmt::E4M3)
    return b;
  return (k & 1) ? uint8_t(b >> 4) : uint8_t(b & 0xF);
}

/// out[m, n] before the bf16 rounding, in fp8q_gemm_v2's order (SPEC v2,
/// the CPU runtime): per group an fp32 sum of products over increasing k,
/// then acc += (xs * ws) * part over increasing groups. The products and
/// the power-of-two scalings are exact, so this differs from the MFMA only
/// in the order of fp32 additions.
FP8Q_HOSTDEV inline float mxPortableOutput(const MxGemmArgs &p, MxFmt f,
                                           int64_t m, int64_t n) {
  const int qType = f == MxFmt::E2M1 ? FP8Q_Q_F4E2M1FN : FP8Q_Q_F8E4M3FN;
  const int64_t G = p.K / kMxGroup;
  float acc = 0.0f;
  for (int64_t g = 0; g < G; ++g) {
    float part = 0.0f;
    for (int64_t k = g * kMxGroup; k < (g + 1) * kMxGroup; ++k)
      part = mxAddRn(part,
                     mxMulRn(fp8q_q_decode(mxCode(p, f, false, m, k), qType),
                             fp8q_q_decode(mxCode(p, f, true, n, k), qType)));
    const float xs = fp8q_e8m0_decode(p.xs[mxScaleOffset(m, g, G)]);
    const float ws = fp8q_e8m0_decode(p.ws[mxScaleOffset(n, g, G)]);
    acc = mxAddRn(acc, mxMulRn(mxMulRn(xs, ws), part));
  }
  return acc;
}

/// Threads per side of the portable kernel's square output tile.
constexpr int kMxPortableTile = 16;

} // namespace fp8q::kern

#endif // FP8Q_KERNELS_MXGEMM_H
