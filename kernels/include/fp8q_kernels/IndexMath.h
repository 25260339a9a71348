//===- IndexMath.h - Shared index math of the fp8q kernels ------*- C++ -*-===//
//
// Every address a kernel computes comes from here, so that the GPU kernels,
// the wave64 CPU model (unittests/Kernels) and the nvcc build use one copy:
// preshuffle offsets (SPEC preshuffle_16x16), scale
// addressing, the quantize group order, the GEMM tile geometry and the MFMA
// lane / fragment / accumulator mapping. It includes no runtime header:
// the preshuffle formula is SPEC's, checked against
// fp8q/Runtime/fp8q_preshuffle.h by unittests/Kernels.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_KERNELS_INDEXMATH_H
#define FP8Q_KERNELS_INDEXMATH_H

#include "fp8q_kernels/Portability.h"

namespace fp8q::kern {

/// Quantization group (the K block of the block-scale GEMM).
constexpr int kGroup = 128;

//===----------------------------------------------------------------------===//
// Scales
//===----------------------------------------------------------------------===//

/// Element offset of scale[m, g] for element strides (s0, s1): (G, 1) is
/// row-major, (1, ld) column-major with leading dimension ld.
FP8Q_HOSTDEV inline int64_t scaleOffset(int64_t m, int64_t g, int64_t s0,
                                        int64_t s1) {
  return m * s0 + g * s1;
}

/// a / b for non-negative operands; 32-bit division (about 20 GPU
/// instructions instead of about 100) whenever both fit.
FP8Q_HOSTDEV inline int64_t divNonNeg(int64_t a, int64_t b) {
  if ((((uint64_t)a | (uint64_t)b) >> 32) == 0)
    return (int64_t)((uint32_t)a / (uint32_t)b);
  return a / b;
}

/// Quantize work order: the groups of one block are consecutive in the
/// scale's memory order, so the scale write is one contiguous run in either
/// layout (the fused transposed write costs nothing extra).
struct GroupCoord {
  int64_t m, g;
};
FP8Q_HOSTDEV inline GroupCoord groupOfIndex(int64_t gid, int64_t M, int64_t G,
                                            bool mFastest) {
  const int64_t d = mFastest ? M : G;
  // 64-bit division costs ~100 GPU instructions per thread; 32 bits suffice
  // for every realistic grid.
  if (((uint64_t)gid | (uint64_t)d) >> 32 == 0) {
    const uint32_t q = (uint32_t)gid / (uint32_t)d,
                   r = (uint32_t)gid - q * (uint32_t)d;
    return mFastest ? GroupCoord{r, q} : GroupCoord{q, r};
  }
  return mFastest ? GroupCoord{gid % M, gid / M} : GroupCoord{gid / G, gid % G};
}

/// Quantize: lanes per group, elements per lane per step (16 B of bf16) and
/// steps kept in registers: 8 lanes x 2 steps x 8 = one 1x128 group in one
/// pass, 16 values per lane, so the per-thread index math and the scale
/// division are shared by 16 elements.
constexpr int kQuantLanesPerGroup = 8;
constexpr int kQuantVec = 8;
constexpr int kQuantRegSteps = 2;
constexpr int kQuantBlock = 256;
constexpr int kQuantGroupsPerBlock = kQuantBlock / kQuantLanesPerGroup;
/// Resident quantize blocks per NVIDIA SM the compiler must allow. Measured
/// on H200: capping registers for more blocks only adds spills, so 1 (no
/// cap) is the default.
#ifndef FP8Q_NV_QUANT_MIN_BLOCKS
#define FP8Q_NV_QUANT_MIN_BLOCKS 1
#endif

//===----------------------------------------------------------------------===//
// Materialize (tiled transpose through LDS)
//===----------------------------------------------------------------------===//

constexpr int kTransTile = 32;
constexpr int kTransRows = 8; // block = 32 x 8 threads, 4 elements each
constexpr int kTransBlock = kTransTile * kTransRows;
/// LDS row pitch: one extra float so that column reads hit 32 banks.
constexpr int kTransPitch = kTransTile + 1;

//===----------------------------------------------------------------------===//
// Preshuffle
//===----------------------------------------------------------------------===//

/// Flat offset of W[n, k] in SPEC's preshuffle_16x16 layout of an [N, K]
/// weight: W[16*n0+n1, 32*k0+16*k1+k2] is stored at
/// (((n0*(K/32)+k0)*2+k1)*16+n1)*16+k2.
FP8Q_HOSTDEV inline int64_t preshuffleOffset(int64_t n, int64_t k, int64_t K) {
  int64_t n0 = n / 16, n1 = n % 16, k0 = k / 32, k1 = (k / 16) % 2, k2 = k % 16;
  return (((n0 * (K / 32) + k0) * 2 + k1) * 16 + n1) * 16 + k2;
}

/// The preshuffled weight is 16-byte runs of 16 consecutive k (k2): run
/// `c` of the destination comes from this source offset of the row-major
/// [N, K] weight with row stride ldw.
FP8Q_HOSTDEV inline int64_t preshuffleRunSource(int64_t c, int64_t K,
                                                int64_t ldw) {
  const int64_t n1 = c % 16, k1 = (c / 16) % 2, k0 = (c / 32) % (K / 32),
                n0 = c / 32 / (K / 32);
  return (n0 * 16 + n1) * ldw + k0 * 32 + k1 * 16;
}

//===----------------------------------------------------------------------===//
// Block-scale GEMM tile geometry and MFMA mapping
//===----------------------------------------------------------------------===//

/// One MFMA tile is 16x16 outputs; a wave computes kWaveTilesN of them side
/// by side (16 x 64), a block 2x2 waves (32 x 128). A block's N range is one
/// 128-row block of the weight scale, so a wave reads one w_scale per K
/// block.
constexpr int kMfmaM = 16, kMfmaN = 16;
constexpr int kWaveTilesN = 4;
constexpr int kWavesM = 2, kWavesN = 2;
constexpr int kGemmWaves = kWavesM * kWavesN;
constexpr int kGemmBlockM = kWavesM * kMfmaM;               // 32
constexpr int kGemmBlockN = kWavesN * kWaveTilesN * kMfmaN; // 128
constexpr int kGemmThreads = kGemmWaves * 64;               // wave64
/// fp8 bytes of A (and of B) one lane holds per K block of 128.
constexpr int kFragBytes = 32;

/// MFMA operand mapping for one K block of 128 (both instructions): lane l
/// holds row (A) / column (B) l % 16 and the 32 consecutive k starting at
/// 32 * (l / 16). v_mfma_f32_16x16x128_f8f6f4 takes all 32 bytes at once;
/// v_mfma_f32_16x16x32_fp8_fp8 takes bytes [8s, 8s+8) in step s = 0..3.
/// A and B use the same k assignment, so every product pairs equal k.
FP8Q_HOSTDEV inline int fragRow(int lane) { return lane % 16; }
FP8Q_HOSTDEV inline int fragK(int lane) { return 32 * (lane / 16); }
/// Accumulator i (0..3) of lane l is output (4 * (l / 16) + i, l % 16) of
/// the 16x16 tile.
FP8Q_HOSTDEV inline int accRow(int lane, int i) { return 4 * (lane / 16) + i; }
FP8Q_HOSTDEV inline int accCol(int lane) { return lane % 16; }
/// For output (r, c) of a tile: the lane and accumulator index holding it.
FP8Q_HOSTDEV inline int accLane(int r, int c) { return (r / 4) * 16 + c; }
FP8Q_HOSTDEV inline int accIndex(int r) { return r % 4; }

/// Top-left output of wave `wave` in block (bm, bn).
FP8Q_HOSTDEV inline int64_t waveRow0(int64_t bm, int wave) {
  return bm * kGemmBlockM + (wave / kWavesN) * kMfmaM;
}
FP8Q_HOSTDEV inline int64_t waveCol0(int64_t bn, int wave) {
  return bn * kGemmBlockN + (wave % kWavesN) * kWaveTilesN * kMfmaN;
}

/// Byte offset of the first of a lane's 32 A bytes in row-major q [M, K]
/// (row stride ldq) for K block kb.
FP8Q_HOSTDEV inline int64_t aFragOffset(int64_t row, int64_t kb, int lane,
                                        int64_t ldq) {
  return row * ldq + kb * kGroup + fragK(lane);
}

/// Weight layouts the GEMM reads (values match fp8q_weight_layout).
enum class WLayout : int { Plain = 0, Preshuffle16x16 = 1 };

/// Byte offsets of a lane's two 16-byte halves of B (k = base + [0, 16) and
/// base + [16, 32)) for output column n and K block kb.
struct BHalves {
  int64_t lo, hi;
};
FP8Q_HOSTDEV inline BHalves bFragOffsets(WLayout layout, int64_t n, int64_t kb,
                                         int lane, int64_t K, int64_t ldw) {
  int64_t k = kb * kGroup + fragK(lane);
  if (layout == WLayout::Plain) {
    int64_t o = n * ldw + k;
    return {o, o + 16};
  }
  return {preshuffleOffset(n, k, K), preshuffleOffset(n, k + 16, K)};
}

/// Grid of the GEMM: blocks along M and N.
FP8Q_HOSTDEV inline int64_t gemmBlocksM(int64_t M) {
  return (M + kGemmBlockM - 1) / kGemmBlockM;
}
FP8Q_HOSTDEV inline int64_t gemmBlocksN(int64_t N) {
  return (N + kGemmBlockN - 1) / kGemmBlockN;
}

} // namespace fp8q::kern

#endif // FP8Q_KERNELS_INDEXMATH_H
