//===- DecodeGemmV2.h - Decode GEMM v2: LDS-staged, pipelined, split-K
//---*-===//
//
// out[m, n] = bf16(sum_kb xs[m, kb] * ws[n / 128, kb] * sum_{k in kb} q * w)
// for decode sizes, the second design (the first, DecodeGemm.h, stays the
// fallback). What the first kernel's H200 analysis (bench/RESULTS.md, issue
// 21) found and what this one changes:
//  - M = 16..64 was L2-bound: every 16-row block re-read the activations.
//    Here a block owns a tile of kDecode2TileN (64 by default) weight rows;
//    per K block of 128 the activation rows of the block are staged once in
//    shared memory (LDS) and read by all its waves, so L2 serves
//    M / kDecode2TileN activation bytes per weight byte instead of M / 16.
//    Waves split the tile along N (wave w: rows 16w .. 16w + 15 of it) and
//    each runs all K blocks of the block's range: no cross-wave reduction.
//  - Bytes in flight cost registers. Here the weight and activation bytes
//    of a K block ("stage": kDecode2TileN + R rows of 128 bytes) are copied
//    into LDS: on NVIDIA (sm_80+) with cp.async.cg 16-byte copies, a ring of
//    kDecode2Stages stages, stage i + S - 1 requested before stage i is
//    computed; on AMD with plain 16-byte global loads into registers, a
//    two-stage ring (the next stage's loads in flight during the compute,
//    written to LDS after it). LDS rows are 128 bytes with the 16-byte chunk
//    index XOR-swizzled by (row % 8), so the fragment reads of a quarter
//    warp (NVIDIA) hit 8 distinct chunks: conflict-free.
//  - N too small to fill the GPU. When ceil(N / tile) * ceil(M / R) blocks
//    are fewer than kDecode2BlocksPerSm * SMs, K is split across blocks
//    (grid.z): split s takes the contiguous K blocks
//    [s * kbPer, min(kBlocks, (s + 1) * kbPer)), at least kDecode2MinKb of
//    them, at most kDecode2MaxSplits splits. Each split writes its fp32
//    partial tile to a workspace; the last block of a tile to arrive (a
//    per-tile arrival counter, reset by that block) sums the partials.
//
// The matrix step is the first kernel's (DecodeGemm.h lane maps, the
// DecodeDeviceWave mma of DecodeGemm.hip): mma.sync.m16n8k32 e4m3 on
// NVIDIA, v_mfma_f32_16x16x128_f8f6f4 on gfx950, 4 x v_mfma_f32_16x16x32
// fp8 on gfx942; the fragments are read from LDS instead of global memory.
//
// Reduction order (fixed, independent of timing and of which block
// arrives last): within split s, a wave keeps, per output,
//   total_s += mma_fp32(kb) * (xs[m, kb] * ws[n / 128, kb])
// over the split's K blocks in increasing kb (mma_fp32: the matrix unit's
// fp32 sum of the block's 128 products). Without split-K (one split) the
// output is bf16_rne(total_0). With S splits it is
//   bf16_rne((((0 + total_0) + total_1) + ...) + total_{S-1})
// summed in split order by the last-arriving block from the workspace.
//
// The body is written against a Wave policy (DecodeGemm.h) and a Copier
// policy (the LDS ring): on the GPU one lane and one thread's copies; in the
// CPU model (DecodeGemmV2Model.h) all lanes of a wave and all threads'
// copies, through the same index math.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_KERNELS_DECODEGEMMV2_H
#define FP8Q_KERNELS_DECODEGEMMV2_H

#include "fp8q_kernels/DecodeGemm.h"

namespace fp8q::kern {

/// Weight rows of a block's tile (16 per wave; a divisor of 128 so a tile
/// has one weight-scale row).
#ifndef FP8Q_DECODE2_TILE_N
#define FP8Q_DECODE2_TILE_N 64
#endif
/// LDS stages of the NVIDIA cp.async ring (AMD: 2, register staged).
#ifndef FP8Q_DECODE2_STAGES
#define FP8Q_DECODE2_STAGES 4
#endif
/// Split-K target: K is split until the grid has this many blocks per SM.
#ifndef FP8Q_DECODE2_BLOCKS_PER_SM
#define FP8Q_DECODE2_BLOCKS_PER_SM 2
#endif
/// Fewest K blocks of 128 per split (a split must amortise its fix-up and
/// its ring must reach steady state). 8, with SPLIT_FLOOR 1 and SCALES_LDS
/// 1 below: the "best" configuration of the H200 v2 diagnosis
/// (bench/RESULTS.md, "A second design"), faster than MIN_KB 2, ceil splits
/// and global scales on every shape it measured (e.g. 4096 x 6144 at
/// M = 64: 35.89 against 75.76 us).
#ifndef FP8Q_DECODE2_MIN_KB
#define FP8Q_DECODE2_MIN_KB 8
#endif
/// Most splits (bounds the workspace and the fix-up's reads).
#ifndef FP8Q_DECODE2_MAX_SPLITS
#define FP8Q_DECODE2_MAX_SPLITS 16
#endif
/// 1 (default) rounds the split count down (floor(target / tiles)) so
/// tiles * splits never exceeds the split-K target; 0: ceil, which
/// overshoots the resident blocks of the 32- and 64-row variants, 2 per SM,
/// into a second partial wave.
#ifndef FP8Q_DECODE2_SPLIT_FLOOR
#define FP8Q_DECODE2_SPLIT_FLOOR 1
#endif
/// 1 (default) stages the block scales of a K block (the R activation
/// scales xs[m0 .., kb] and the tile's ws[nb, kb]) in the LDS ring with the
/// fragments (4-byte cp.async on NVIDIA), so the per-stage compute has no
/// dependent global load; 0: read from global memory after the stage's
/// barrier, one L1/L2 round trip per stage on the critical path. Same
/// floats, same products: the output does not change. NVIDIA only (the AMD
/// ring, and the CPU model's AMD runs, read global memory).
#ifndef FP8Q_DECODE2_SCALES_LDS
#define FP8Q_DECODE2_SCALES_LDS 1
#endif
/// NVIDIA resident blocks per SM the 8-row variant's registers are cut for
/// (DecodeGemm.hip has the other variants'; 128-row tiles: half).
#ifndef FP8Q_DECODE2_MIN_BLOCKS
#if FP8Q_DECODE2_TILE_N >= 128
#define FP8Q_DECODE2_MIN_BLOCKS 2
#else
#define FP8Q_DECODE2_MIN_BLOCKS 4
#endif
#endif

constexpr int kDecode2TileN = FP8Q_DECODE2_TILE_N;
static_assert(kDecode2TileN % 16 == 0 && 128 % kDecode2TileN == 0,
              "the tile is whole waves inside one weight-scale row");
constexpr int kDecode2BlocksPerSm = FP8Q_DECODE2_BLOCKS_PER_SM;
constexpr int kDecode2MinKb = FP8Q_DECODE2_MIN_KB;
constexpr int kDecode2MaxSplits = FP8Q_DECODE2_MAX_SPLITS;
/// Bytes of one LDS row (one K block of one weight or activation row) and
/// its 16-byte chunks.
constexpr int kDecode2RowBytes = kGroup;
constexpr int kDecode2Chunks = kDecode2RowBytes / 16;

/// Waves, threads and stages of a block of lane map `Map`.
template <class Map> struct Decode2Shape {
  static constexpr int kWaves = kDecode2TileN / 16;
  static constexpr int kThreads = kWaves * Map::kLanes;
  static constexpr int kStages = Map::kLanes == 32 ? FP8Q_DECODE2_STAGES : 2;
  static_assert(kStages >= 2, "a ring needs two stages");
};

/// Whether the ring of lane map Map stages the block scales
/// (FP8Q_DECODE2_SCALES_LDS: NVIDIA only; the AMD ring reads them from
/// global memory).
template <class Map> FP8Q_HOSTDEV constexpr bool decode2ScalesInLds() {
  return Map::kLanes == 32 && FP8Q_DECODE2_SCALES_LDS != 0;
}
/// Bytes of a stage's scale area (decode2ScalesInLds: R activation scales
/// then the weight scale, fp32, padded to 16 bytes; else none).
template <class Map, int R> FP8Q_HOSTDEV constexpr int decode2ScaleBytes() {
  return decode2ScalesInLds<Map>() ? ((R + 1) * 4 + 15) / 16 * 16 : 0;
}
/// Byte offset of scale i (0 .. R - 1: activation row i, R: the weight
/// scale) inside a stage: after the fragment rows.
template <int R> FP8Q_HOSTDEV constexpr int decode2ScaleOffset(int i) {
  return (kDecode2TileN + R) * kDecode2RowBytes + 4 * i;
}

/// LDS bytes of one stage (tile rows + R activation rows + scales) and of
/// the ring.
template <class Map, int R> FP8Q_HOSTDEV constexpr int decode2StageBytes() {
  return (kDecode2TileN + R) * kDecode2RowBytes + decode2ScaleBytes<Map, R>();
}
template <class Map, int R> FP8Q_HOSTDEV constexpr int decode2LdsBytes() {
  return Decode2Shape<Map>::kStages * decode2StageBytes<Map, R>();
}

/// Byte offset of chunk `c` (0..7) of LDS row `row` inside a stage (weight
/// rows 0 .. tile - 1, then activation rows): 128-byte rows, chunk index
/// XOR (row % 8) (DecodeGemmV2.h header: conflict-free fragment reads).
FP8Q_HOSTDEV inline int decode2LdsOffset(int row, int c) {
  return row * kDecode2RowBytes + ((c ^ (row & 7)) << 4);
}

/// The launch geometry: grid (tilesN, tilesM, splits), split s's K blocks
/// [s * kbPer, min(kBlocks, (s + 1) * kbPer)).
struct Decode2Plan {
  int64_t tilesN, tilesM, kBlocks, kbPer;
  int rows, splits;
};

/// Plan for M x N x K with R = `rows` activation rows per block on a GPU of
/// `sms` SMs / CUs (the split-K rule of the header); `minKb` overrides
/// kDecode2MinKb (the CPU model's split-K runs on short K).
FP8Q_HOSTDEV inline Decode2Plan decode2Plan(int64_t M, int64_t N, int64_t K,
                                            int rows, int sms,
                                            int minKb = kDecode2MinKb) {
  Decode2Plan pl{};
  pl.rows = rows;
  pl.tilesN = (N + kDecode2TileN - 1) / kDecode2TileN;
  pl.tilesM = (M + rows - 1) / rows;
  pl.kBlocks = (K + kGroup - 1) / kGroup;
  const int64_t tiles = pl.tilesN * pl.tilesM;
  const int64_t target = (int64_t)sms * kDecode2BlocksPerSm;
  int64_t splits = 1;
  if (tiles < target) {
    splits = FP8Q_DECODE2_SPLIT_FLOOR ? target / tiles
                                      : (target + tiles - 1) / tiles;
    if (splits > kDecode2MaxSplits)
      splits = kDecode2MaxSplits;
    const int64_t byK = pl.kBlocks / minKb;
    if (splits > byK)
      splits = byK;
    if (splits < 1)
      splits = 1;
  }
  pl.kbPer = (pl.kBlocks + splits - 1) / splits;
  pl.splits = (int)((pl.kBlocks + pl.kbPer - 1) / pl.kbPer); // none empty
  return pl;
}

/// The v2 kernel's arguments: the first kernel's split-K arguments
/// (DecodeGemm.h; part: [splits][M][N] fp32, arrive: tilesN * tilesM
/// counters, both unused with one split).
using Decode2Args = DecodeSplitArgs;

/// Workspace floats and counters of a plan (0 without split-K).
FP8Q_HOSTDEV inline int64_t decode2PartFloats(const Decode2Plan &pl, int64_t M,
                                              int64_t N) {
  return pl.splits > 1 ? pl.splits * M * N : 0;
}
FP8Q_HOSTDEV inline int64_t decode2Counters(const Decode2Plan &pl) {
  return pl.splits > 1 ? pl.tilesN * pl.tilesM : 0;
}

/// Weight chunks of a stage (tile rows x 8) and activation chunks (R x 8).
constexpr int kDecode2WChunks = kDecode2TileN * kDecode2Chunks;
template <int R> FP8Q_HOSTDEV constexpr int decode2XChunks() {
  return R * kDecode2Chunks;
}

/// A thread's copy f of every stage, its kb-invariant part: LDS offset,
/// global source at kb = 0 (the source of K block kb is src + kb * stride),
/// and k offset inside the K block. Weight rows past N are clamped to the
/// last row (DecodeLaneBase's rule): a weight row only reaches outputs of
/// its n, which the store drops, so the weight copies need no row check.
/// Activation rows past M are not copied (src null; the kernel zeroes them
/// once): a clamped copy would move the same row R times per stage at M = 1.
struct Decode2Stream {
  int lds, kOff;
  const uint8_t *src;
};

/// Row r clamped to the last of `rows` (rows >= 1).
FP8Q_HOSTDEV inline int64_t decode2Clamp(int64_t r, int64_t rows) {
  return r < rows ? r : rows - 1;
}

/// Bytes between one K block's source and the next: a 128-byte step along
/// a plain row; a 2 KiB piece of a preshuffled 16-row group.
template <WLayout L> FP8Q_HOSTDEV constexpr int64_t decode2WeightKbStride() {
  return L == WLayout::Plain ? kGroup : 16 * kGroup;
}

/// Weight copy f (0 .. kDecode2WChunks - 1) of the tile at n0. Consecutive
/// f are consecutive 16 bytes of global memory: plain, 8 per row (one
/// 128-byte line); preshuffle_16x16, 128 per 16-row group (the group's K
/// block is one contiguous 2 KiB piece, [k32][half][n16]).
template <WLayout L>
FP8Q_HOSTDEV inline Decode2Stream decode2WeightStream(const DecodeGemmArgs &p,
                                                      int64_t n0, int f) {
  int row, c;
  if constexpr (L == WLayout::Plain) {
    row = f / kDecode2Chunks;
    c = f % kDecode2Chunks;
  } else {
    const int j = f % 128;
    row = (f / 128) * 16 + j % 16;
    c = j / 16;
  }
  const int64_t n = decode2Clamp(n0 + row, p.N);
  Decode2Stream st{decode2LdsOffset(row, c), c * 16, p.w};
  if constexpr (L == WLayout::Plain)
    st.src = p.w + n * p.ldw + c * 16;
  else
    st.src = p.w + preshuffleOffset(n, c * 16, p.K);
  return st;
}

/// Activation copy f (0 .. R * 8 - 1) for rows from m0 (src null past M).
template <int R>
FP8Q_HOSTDEV inline Decode2Stream decode2ActStream(const DecodeGemmArgs &p,
                                                   int64_t m0, int f) {
  const int row = f / kDecode2Chunks, c = f % kDecode2Chunks;
  const int64_t m = m0 + row;
  return {decode2LdsOffset(kDecode2TileN + row, c), c * 16,
          m < p.M ? p.q + m * p.ldq + c * 16 : nullptr};
}

/// Whether K block kb lies inside K (no copy of it needs the K check;
/// uniform per block).
FP8Q_HOSTDEV inline bool decode2FullKb(int64_t kb, int64_t K) {
  return (kb + 1) * kGroup <= K;
}

/// The source of stream `st` for K block kb with `stride` bytes per K
/// block; null (16 zeros) past K. Full: kb lies inside K (decode2FullKb),
/// no check.
template <bool Full = false>
FP8Q_HOSTDEV inline const uint8_t *
decode2Src(const Decode2Stream &st, int64_t kb, int64_t stride, int64_t K) {
  return Full || kb * kGroup + st.kOff < K ? st.src + kb * stride : nullptr;
}

/// Scale copy i (0 .. R) of the tile at (n0, m0): its kb-invariant source
/// and its step in floats per K block. An activation row past M copies the
/// scale of row M - 1: its activation bytes are zeros, so its products are
/// zero (and only reach outputs the store drops); every scale slot is
/// written, and the K loop reads them without a row check.
struct Decode2ScaleStream {
  const float *src;
  int64_t stride;
};
template <int R>
FP8Q_HOSTDEV inline Decode2ScaleStream
decode2ScaleStream(const DecodeGemmArgs &p, int64_t n0, int64_t m0, int i) {
  if (i == R)
    return {p.ws + (n0 / kGroup) * p.ws0, p.ws1};
  return {p.xs + decode2Clamp(m0 + i, p.M) * p.xs0, p.xs1};
}

/// A lane's 32 bytes of LDS row `row` at the lane's K offset kOff
/// (chunks kOff / 16 and kOff / 16 + 1). `Rd` reads 16 bytes at an offset.
template <class Rd>
FP8Q_HOSTDEV inline DecodeFrag decode2ReadFrag(Rd &rd, int row, int kOff) {
  DecodeFrag f;
  f.lo = rd(decode2LdsOffset(row, kOff / 16));
  f.hi = rd(decode2LdsOffset(row, kOff / 16 + 1));
  return f;
}

/// The K loop of one wave: accumulators of its 16 weight rows (tile rows
/// 16 * wave ..) by MT m tiles, over K blocks [kbLo, kbHi) in increasing
/// order. Cp: the LDS ring (fetch(slot, kb), land(slot), wait(), sync(),
/// read(slot) -> Rd, kLandAfterCompute; kScalesInLds: scale(slot, i) reads
/// scale i of the stage, decode2ScaleOffset).
template <class Map, int MT, class Wave, class Cp>
FP8Q_HOSTDEV inline typename Wave::template Lanes<DecodeAccs<MT>>
decode2WaveTotals(const DecodeGemmArgs &p, int64_t n0, int64_t m0, int64_t kbLo,
                  int64_t kbHi, int wave, Wave &W, Cp &cp) {
  constexpr int S = Decode2Shape<Map>::kStages;
  typename Wave::template Lanes<DecodeAccs<MT>> total =
      W.map([&](int) { return DecodeAccs<MT>{}; });
  const int64_t nb = n0 / kGroup; // one weight-scale row per tile
  const int64_t nkb = kbHi - kbLo;
  FP8Q_UNROLL
  for (int s = 0; s < S - 1; ++s) {
    if (s < nkb)
      cp.fetch(s, kbLo + s);
    cp.land(s, s < nkb);
  }
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#pragma unroll 1
#endif
  for (int64_t i = 0; i < nkb; ++i) {
    cp.wait();
    cp.sync(); // stage i landed for all; stage i - 1 read by all
    const int64_t ahead = i + S - 1;
    const int aslot = (int)(ahead % S);
    if (ahead < nkb)
      cp.fetch(aslot, kbLo + ahead);
    if constexpr (!Cp::kLandAfterCompute)
      cp.land(aslot, ahead < nkb);
    const int64_t kb = kbLo + i;
    auto rd = cp.read((int)(i % S));
    float ws;
    if constexpr (Cp::kScalesInLds)
      ws = cp.scale((int)(i % S), Map::kTileM * MT);
    else
      ws = p.ws[scaleOffset(nb, kb, p.ws0, p.ws1)];
    typename Wave::template Lanes<DecodeWFrag<Map>> a = W.map([&](int lane) {
      DecodeWFrag<Map> f;
      FP8Q_UNROLL
      for (int r = 0; r < Map::kWRows; ++r)
        f.row[r] = decode2ReadFrag(rd, 16 * wave + Map::wRow(lane, r),
                                   Map::kOff(lane));
      return f;
    });
    // The weight operand once per K block, shared by the m tiles.
    const auto &wp = W.prepareWeight(a);
    const int slot = (int)(i % S);
    FP8Q_UNROLL
    for (int t = 0; t < MT; ++t) {
      typename Wave::template Lanes<DecodeFrag> b = W.map([&](int lane) {
        return decode2ReadFrag(
            rd, kDecode2TileN + t * Map::kTileM + Map::xRow(lane),
            Map::kOff(lane));
      });
      typename Wave::template Lanes<DecodeAcc> part = W.mma(wp, b);
      W.each([&](int lane) {
        // The lane's kAccRows distinct activation rows of tile t, each
        // scale product once (rows past M: decode2ScaleStream).
        float s[Map::kAccRows];
        FP8Q_UNROLL
        for (int r = 0; r < Map::kAccRows; ++r) {
          const int row = t * Map::kTileM + Map::accM(lane, r);
          if constexpr (Cp::kScalesInLds)
            s[r] = cp.scale(slot, row) * ws;
          else
            s[r] = p.xs[decode2Clamp(m0 + row, p.M) * p.xs0 + kb * p.xs1] * ws;
        }
        DecodeAcc &tot = W.at(total, lane).t[t];
        const DecodeAcc &pr = W.at(part, lane);
        FP8Q_UNROLL
        for (int j = 0; j < 4; ++j)
          tot.v[j] += pr.v[j] * s[Map::accRow(j)];
      });
    }
    if constexpr (Cp::kLandAfterCompute)
      cp.land(aslot, ahead < nkb);
  }
  return total;
}

/// Output (n, m) of a lane's accumulator j of m tile t of wave `wave`
/// (tile-relative).
template <class Map>
FP8Q_HOSTDEV inline int decode2AccN(int wave, int lane, int j) {
  return 16 * wave + Map::accN(lane, j);
}
template <class Map>
FP8Q_HOSTDEV inline int decode2AccM(int t, int lane, int j) {
  return t * Map::kTileM + Map::accM(lane, j);
}

/// Activation rows per block of the v2 kernel for M (as the first kernel:
/// 8 (NVIDIA only), 16, 32, 64; grid.y covers M beyond 64).
template <class Map> FP8Q_HOSTDEV inline int decode2KernelRows(int64_t M) {
  return decodeKernelRows<Map>(M);
}

} // namespace fp8q::kern

#endif // FP8Q_KERNELS_DECODEGEMMV2_H
