//===- MaterializeV2.hip - A v2 scale from any layout into any layout ----===//
//
// dst[m, g] = src[m, g] for a logical [M, G] scale (f32 or 1-byte elements,
// copied as bytes), src and dst each in any v2 layout. The destination
// decides the walk, so its stores are consecutive: a padded dst (pack4,
// swizzle_32_4_4, cdna4_mx) by 32-bit words of its allocation
// (scaleWordOf, four words = one 16-byte store per thread), padding
// written 0 in the same store; a strided dst (row_major, col_major) by
// runs of four elements along its unit-stride dimension. Sources are
// gathered through the shared index map (fp8q_scale_offset) or their
// strides; the scales are a few MiB at most, so the gathers hit L2.
//
// fp8q_kernel_materialize_v2_tiled is the same operation at copy
// bandwidth: one 128-row x 8-word tile per 64-thread block, read in the
// source's storage order with 16-byte (or 4-byte) loads into shared
// memory as words, written in the destination's storage order with
// 16-byte stores, padding written 0 (MaterializeTile.h has the design and
// the per-block algorithm, run on the CPU by MaterializeTileTest). The
// runtime (GpuOpsV2.cpp) launches it whenever both sides' units are
// 4-byte aligned (matSideVec) and fp8q_kernel_materialize_v2 otherwise
// (1-byte row_major with G % 4 != 0, col_major with an odd leading
// dimension, unaligned pointers).
//
//===----------------------------------------------------------------------===//

#include "fp8q_kernels/MaterializeTile.h"
#include "fp8q_kernels/QuantizeV2Common.h"
#include "fp8q_kernels/ScaleLayoutV2.h"

using namespace fp8q::kern;

/// Resident blocks per SM the tiled kernel asks nvcc for: 16 blocks of 64
/// threads (1024 threads, 64 KiB of shared tiles and of loads in flight
/// per SM, 64 registers, no spills on sm_90). On the H200 (one run each,
/// bench/results/h200-v2-bench.log) its worst layout pair was 87% of a
/// copy, 20 blocks' (48 registers) 80%; 24 blocks spill 24 bytes, 32
/// spill 224.
#ifndef FP8Q_MAT_TILE_MIN_BLOCKS
#define FP8Q_MAT_TILE_MIN_BLOCKS 16
#endif

namespace {

/// The src element (m, g) as a 32-bit value (f32 bits or the byte).
__device__ FP8Q_V2_INLINE uint32_t loadScaleV2(const MaterializeV2Args &p,
                                               int64_t m, int64_t g) {
  const int64_t off = scaleOffsetV2(p.srcPadded, p.srcLayout, p.srcAlign, p.M,
                                    p.G, p.ss0, p.ss1, m, g);
  if (p.elt == 4)
    return static_cast<const uint32_t *>(p.src)[off];
  return static_cast<const uint8_t *>(p.src)[off];
}

/// Word `w` of a padded dst: its four bytes, 0 where padding.
__device__ FP8Q_V2_INLINE uint32_t dstWordV2(const MaterializeV2Args &p,
                                             int64_t w) {
  const ScaleWord sw = scaleWordOf(p.dstLayout, p.dstPadM, p.dstPadG, w);
  uint32_t r = 0;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const int64_t m = sw.m + sw.dm[k], g = sw.g + sw.dg[k];
    if (m < p.M && g < p.G)
      r |= loadScaleV2(p, m, g) << (8 * k);
  }
  return r;
}

__device__ FP8Q_V2_INLINE void materializePaddedV2(const MaterializeV2Args &p,
                                                   int64_t u) {
  const int64_t words = p.dstPadM * p.dstPadG / 4;
  const int64_t w0 = u * kV2WordsPerThread;
  uint32_t r[kV2WordsPerThread];
#pragma unroll
  for (int i = 0; i < kV2WordsPerThread; ++i)
    r[i] = w0 + i < words ? dstWordV2(p, w0 + i) : 0;
  uint32_t *dst = static_cast<uint32_t *>(p.dst) + w0;
  if (p.dstVec == 16 && w0 + kV2WordsPerThread <= words) {
    *reinterpret_cast<Bytes16 *>(dst) = Bytes16{{r[0], r[1], r[2], r[3]}};
    return;
  }
#pragma unroll
  for (int i = 0; i < kV2WordsPerThread; ++i) {
    if (w0 + i >= words)
      break;
    if (p.dstVec >= 4) {
      dst[i] = r[i];
    } else {
      uint8_t *b = reinterpret_cast<uint8_t *>(dst + i);
      for (int k = 0; k < 4; ++k)
        b[k] = (uint8_t)(r[i] >> (8 * k));
    }
  }
}

__device__ FP8Q_V2_INLINE void materializeStridedV2(const MaterializeV2Args &p,
                                                    int64_t u) {
  // Runs of 4 along g (row_major) or along m (col_major).
  const bool alongG = p.dstLayout == FP8Q_LAYOUT_ROW_MAJOR;
  const int64_t runs = ((alongG ? p.G : p.M) + 3) / 4;
  const int64_t outer = u / runs, inner0 = (u % runs) * 4;
  const int64_t n = alongG ? p.G : p.M;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const int64_t i = inner0 + k;
    if (i >= n)
      break;
    const int64_t m = alongG ? outer : i, g = alongG ? i : outer;
    const uint32_t v = loadScaleV2(p, m, g);
    const int64_t off = m * p.ds0 + g * p.ds1;
    if (p.elt == 4)
      static_cast<uint32_t *>(p.dst)[off] = v;
    else
      static_cast<uint8_t *>(p.dst)[off] = (uint8_t)v;
  }
}

} // namespace

extern "C" __global__
FP8Q_LAUNCH_BOUNDS(kV2Block,
                   4) void fp8q_kernel_materialize_v2(MaterializeV2Args p) {
  gridPrologue();
  const int64_t u = blockIdX() * (int64_t)kV2Block + threadId();
  if (u >= p.units)
    return;
  if (p.dstPadded)
    materializePaddedV2(p, u);
  else
    materializeStridedV2(p, u);
}

namespace {

/// The tiled kernel's phases with the layout, element size and unit
/// alignment as constants (one instantiation each).
template <bool Load, int L, int E>
__device__ FP8Q_V2_INLINE void matPhase(const MaterializeV2TileArgs &p, int vec,
                                        int64_t m0, int64_t w0, int t,
                                        uint32_t *tile) {
  if (Load) {
    if (vec == 16)
      matLoadTile(p, L, E, 16, m0, w0, t, tile);
    else
      matLoadTile(p, L, E, 4, m0, w0, t, tile);
  } else {
    if (vec == 16)
      matStoreTile(p, L, E, 16, m0, w0, t, tile);
    else
      matStoreTile(p, L, E, 4, m0, w0, t, tile);
  }
}

/// One phase for the side's layout.
template <bool Load>
__device__ FP8Q_V2_INLINE void matPhaseOf(const MaterializeV2TileArgs &p,
                                          const MatSide &sd, int64_t m0,
                                          int64_t w0, int t, uint32_t *tile) {
  if (p.elt == 4) {
    if (sd.layout == FP8Q_LAYOUT_COL_MAJOR)
      matPhase<Load, FP8Q_LAYOUT_COL_MAJOR, 4>(p, sd.vec, m0, w0, t, tile);
    else
      matPhase<Load, FP8Q_LAYOUT_ROW_MAJOR, 4>(p, sd.vec, m0, w0, t, tile);
    return;
  }
  switch (sd.layout) {
  case FP8Q_LAYOUT_COL_MAJOR:
    matPhase<Load, FP8Q_LAYOUT_COL_MAJOR, 1>(p, sd.vec, m0, w0, t, tile);
    break;
  case FP8Q_LAYOUT_COL_MAJOR_PACK4:
    matPhase<Load, FP8Q_LAYOUT_COL_MAJOR_PACK4, 1>(p, sd.vec, m0, w0, t, tile);
    break;
  case FP8Q_LAYOUT_SWIZZLE_32_4_4:
    matPhase<Load, FP8Q_LAYOUT_SWIZZLE_32_4_4, 1>(p, sd.vec, m0, w0, t, tile);
    break;
  case FP8Q_LAYOUT_CDNA4_MX:
    matPhase<Load, FP8Q_LAYOUT_CDNA4_MX, 1>(p, sd.vec, m0, w0, t, tile);
    break;
  default:
    matPhase<Load, FP8Q_LAYOUT_ROW_MAJOR, 1>(p, sd.vec, m0, w0, t, tile);
  }
}

} // namespace

/// One 128-row x 8-word tile per block (MaterializeTile.h): the source's
/// units into the shared tile, a barrier, the tile into the destination's
/// units.
extern "C" __global__ FP8Q_LAUNCH_BOUNDS(
    kMatThreads,
    FP8Q_MAT_TILE_MIN_BLOCKS) void fp8q_kernel_materialize_v2_tiled(MaterializeV2TileArgs
                                                                        p) {
  gridPrologue();
  __shared__ uint32_t tile[kMatRows * kMatWords];
  int64_t m0, w0;
  matTileOf(blockIdX(), p.tilesW, m0, w0);
  const int t = threadId();
  matPhaseOf<true>(p, p.s, m0, w0, t, tile);
  barrier();
  matPhaseOf<false>(p, p.d, m0, w0, t, tile);
}
