//===- IndexMath.h - Shared index math of the fp8q kernels ------*- C++ -*-===//
//
// Every address a kernel computes comes from here, so that the GPU kernels,
// the wave64 CPU model (unittests/Kernels) and the nvcc build use one copy:
// preshuffle offsets (SPEC preshuffle_16x16), scale
// addressing, the quantize group order, the GEMM tile geometry and the MFMA
// lane / fragment / accumulator mapping. Of the runtime headers it includes
// only the plain-C contract table, for the block width (FP8Q_SCALE_BLOCK,
// the one definition the compiler and the runtimes use); the preshuffle
// formula is SPEC's, checked against fp8q/Runtime/fp8q_preshuffle.h by
// unittests/Kernels.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_KERNELS_INDEXMATH_H
#define FP8Q_KERNELS_INDEXMATH_H

#include "fp8q/Runtime/fp8q_contracts.h"
#include "fp8q_kernels/Portability.h"

namespace fp8q::kern {

/// Quantization group (the K block of the block-scale GEMM).
constexpr int kGroup = FP8Q_SCALE_BLOCK;

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

/// A group's (m, g) in index type I: int64_t, or uint32_t when every index
/// and element offset of the launch fits (cheaper on GPUs).
template <class I> struct GroupCoordT {
  I m, g;
};

/// Chunked quantize order: rows in chunks of 2^lgR, each chunk walked
/// m-fastest. lgR = 0 is the row-major order (consecutive g of a row); for a
/// column-major scale lgR = kQuantColChunkLog2 makes 8 consecutive groups
/// write one 32-byte run of scales while a block still reads and writes a
/// few long row runs (the fully m-fastest groupOfIndex reads one 256-byte
/// piece per row, which costs DRAM locality). The last chunk may be shorter.
template <class I>
FP8Q_HOSTDEV inline GroupCoordT<I> groupOfIndexChunked(I gid, I M, I G,
                                                       int lgR) {
  const I R = (I)1 << lgR, chunk = G << lgR;
  I c, r;
  if constexpr (sizeof(I) > 4) {
    if (((uint64_t)gid | (uint64_t)chunk) >> 32 == 0) {
      const uint32_t q = (uint32_t)gid / (uint32_t)chunk;
      c = q;
      r = (I)((uint32_t)gid - q * (uint32_t)chunk);
    } else {
      c = gid / chunk;
      r = gid - c * chunk;
    }
  } else {
    c = gid / chunk;
    r = gid - c * chunk;
  }
  const I m0 = c << lgR, rows = M - m0 < R ? M - m0 : R;
  if (rows == R)
    return GroupCoordT<I>{m0 + (r & (R - 1)), r >> lgR};
  const I g = sizeof(I) > 4 ? (I)divNonNeg(r, rows) : r / rows;
  return GroupCoordT<I>{m0 + r - g * rows, g};
}

/// The group after `c` in groupOfIndexChunked's order (no division).
template <class I>
FP8Q_HOSTDEV inline GroupCoordT<I> nextGroupChunked(GroupCoordT<I> c, I M, I G,
                                                    int lgR) {
  const I R = (I)1 << lgR, m0 = c.m & ~(R - 1);
  const I end = M - m0 < R ? M : m0 + R;
  if (c.m + 1 < end)
    return GroupCoordT<I>{c.m + 1, c.g};
  if (c.g + 1 < G)
    return GroupCoordT<I>{m0, c.g + 1};
  return GroupCoordT<I>{m0 + R, 0};
}

/// Quantize: lanes per group, elements per lane per step (16 B of bf16) and
/// steps kept in registers: 8 lanes x 2 steps x 8 = one 1x128 group in one
/// pass, 16 values per lane, so the per-thread index math and the scale
/// division are shared by 16 elements.
constexpr int kQuantLanesPerGroup = 8;
constexpr int kQuantVec = 8;
constexpr int kQuantRegSteps = 2;
constexpr int kQuantBlock = 256;
/// 8-lane teams per 256-thread block.
constexpr int kQuantTeamsPerBlock = kQuantBlock / kQuantLanesPerGroup;
/// Consecutive groups per team in the quantize kernel: a lane issues all
/// its loads (2 x 16 B per group) before it reduces, so more groups per team
/// means more bytes in flight per thread (what the bandwidth needs).
#ifndef FP8Q_QUANT_GROUPS_PER_TEAM
#define FP8Q_QUANT_GROUPS_PER_TEAM 2
#endif
constexpr int kQuantGroupsPerTeam = FP8Q_QUANT_GROUPS_PER_TEAM;
/// Groups per quantize block (grid = ceil(M * G / kQuantGroupsPerBlock)).
constexpr int kQuantGroupsPerBlock = kQuantTeamsPerBlock * kQuantGroupsPerTeam;
/// Rows per chunk (log2) of the quantize order for a column-major scale.
#ifndef FP8Q_QUANT_COL_CHUNK_LOG2
#define FP8Q_QUANT_COL_CHUNK_LOG2 3
#endif
constexpr int kQuantColChunkLog2 = FP8Q_QUANT_COL_CHUNK_LOG2;
/// Resident blocks per NVIDIA SM the compiler must allow for the bf16 / f16
/// quantize kernels: 5 caps them at 48 registers (62.5% occupancy), which
/// the 32-bit 1x128 path fits without spilling (measured on H200 against no
/// cap, 56 registers and 4 blocks: bench/RESULTS.md).
#ifndef FP8Q_NV_QUANT16_MIN_BLOCKS
#define FP8Q_NV_QUANT16_MIN_BLOCKS 5
#endif
/// The same for the bf16 fused RMSNorm + quantize kernel: 4 (64 registers,
/// no spills).
#ifndef FP8Q_NV_RMS_BF16_MIN_BLOCKS
#define FP8Q_NV_RMS_BF16_MIN_BLOCKS 4
#endif
/// The same for the f32 quantize and the other RMSNorm kernels: capping
/// registers only adds spills there, so 1 (no cap).
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
