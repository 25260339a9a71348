//===- DecodeGemm.h - The weight-streaming decode GEMM ----------*- C++ -*-===//
//
// out[m, n] = bf16(sum_kb xs[m, kb] * ws[n / 128, kb] * sum_{k in kb} q * w)
// for decode sizes (M <= 64): the weight is streamed once, so the kernel is
// built to keep HBM busy, not the matrix units. The product is computed
// transposed (out^T = w q^T, "swap AB"): the 16 weight rows of a tile fill
// the instruction's 16-row side, the few activation rows its narrow side.
//
// One design, two instruction sets. A block is 256 threads over one tile of
// 16 weight rows (n) and up to MT * kTileM activation rows (m); its waves
// split the K blocks of 128 (wave w takes kb = w, w + waves, ...), each lane
// loading 32 contiguous bytes of each weight row it holds per K block (two
// 16-byte loads, a whole 128-byte line per row across the lanes that share
// it). The matrix step differs:
//  - NVIDIA (sm_89+): four mma.sync.m16n8k32 e4m3 per K block; lane l holds
//    weight rows l/4 and l/4 + 8 and the activation row l/4 of each 8-row m
//    tile, bytes [32 (l % 4), +32) of the block;
//  - AMD gfx950: one v_mfma_f32_16x16x128_f8f6f4 per K block and 16-row m
//    tile; gfx942: four v_mfma_f32_16x16x32_fp8_fp8. Lane l holds weight row
//    l % 16 and activation row l % 16, bytes [32 (l / 16), +32).
// Both operands use the same byte -> k mapping, so the hardware's pairing of
// k within an instruction never matters, only that it pairs equal bytes.
//
// Split-K (DecodeSplitArgs, decodeSplitPlan): where the tiles do not fill
// the GPU (N small), grid.z splits K into contiguous ranges of K blocks, each
// block writes its fp32 tile to a workspace, and the last block of a tile to
// arrive sums the splits.
//
// Reduction order (what the tolerance against the CPU runtime rests on): a
// K block's dot product is the matrix unit's fp32 sum; each wave keeps
// total += block * (xs * ws) over its K blocks of its split in increasing
// kb; the waves' totals are added in wave order 0, 1, ... through LDS; with
// split-K the splits' sums are added in split order 0, 1, ... (whichever
// block arrives last); then bf16 RNE.
//
// The body is written against a Wave policy as GemmTile.h is: on the GPU a
// Wave is one lane, in the CPU model (DecodeGemmModel.h) all lanes of a wave
// with the instruction computed from an independent statement of its
// fragment layout.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_KERNELS_DECODEGEMM_H
#define FP8Q_KERNELS_DECODEGEMM_H

#include "fp8q_kernels/IndexMath.h"
#include "fp8q_kernels/Numerics.h"

namespace fp8q::kern {

/// Operands of the decode GEMM. Element offsets; K % 16 == 0 (a last K
/// block shorter than 128 has the last scale group); any M, N >= 1.
struct DecodeGemmArgs {
  const uint8_t *q; ///< [M, K] fp8, row stride ldq (multiple of 16)
  const float *xs;  ///< [M, ceil(K/128)], strides (xs0, xs1)
  const uint8_t *w; ///< [N, K] fp8 row-major, row stride ldw (multiple of 16)
  const float *ws;  ///< [ceil(N/128), ceil(K/128)], strides (ws0, ws1)
  uint16_t *out;    ///< [M, N] bf16, row stride ldo
  int64_t M, N, K;
  int64_t ldq, xs0, xs1, ldw, ws0, ws1, ldo;
};

/// Threads of a decode GEMM block, weight rows of its tile.
constexpr int kDecodeThreads = 256;
constexpr int kDecodeTileN = 16;
/// Bytes of one K block a lane holds per row.
constexpr int kDecodeLaneBytes = 32;
/// K blocks a wave loads before it computes (bytes in flight per lane).
#ifndef FP8Q_DECODE_UNROLL
#define FP8Q_DECODE_UNROLL 1
#endif
constexpr int kDecodeUnroll = FP8Q_DECODE_UNROLL;

/// The NVIDIA lane mapping (mma.sync.m16n8k32, warp of 32).
struct DecodeMapNv {
  static constexpr int kLanes = 32, kTileM = 8, kWRows = 2;
  FP8Q_HOSTDEV static int wRow(int lane, int r) { return lane / 4 + 8 * r; }
  FP8Q_HOSTDEV static int xRow(int lane) { return lane / 4; }
  FP8Q_HOSTDEV static int kOff(int lane) {
    return kDecodeLaneBytes * (lane % 4);
  }
  /// Accumulator i of a lane: D[accN][accM] of the 16 x 8 tile.
  FP8Q_HOSTDEV static int accN(int lane, int i) {
    return lane / 4 + 8 * (i / 2);
  }
  FP8Q_HOSTDEV static int accM(int lane, int i) {
    return 2 * (lane % 4) + i % 2;
  }
  /// Distinct activation rows among a lane's accumulators, and the one of
  /// accumulator i: accM(lane, i) == accM(lane, accRow(i)).
  static constexpr int kAccRows = 2;
  FP8Q_HOSTDEV static int accRow(int i) { return i % 2; }
};

/// The AMD lane mapping (16x16 MFMA, wave64).
struct DecodeMapAmd {
  static constexpr int kLanes = 64, kTileM = 16, kWRows = 1;
  FP8Q_HOSTDEV static int wRow(int lane, int) { return lane % 16; }
  FP8Q_HOSTDEV static int xRow(int lane) { return lane % 16; }
  FP8Q_HOSTDEV static int kOff(int lane) {
    return kDecodeLaneBytes * (lane / 16);
  }
  FP8Q_HOSTDEV static int accN(int lane, int i) { return 4 * (lane / 16) + i; }
  FP8Q_HOSTDEV static int accM(int lane, int) { return lane % 16; }
  static constexpr int kAccRows = 1;
  FP8Q_HOSTDEV static int accRow(int) { return 0; }
};

/// A lane's 32 bytes of one row of one K block.
struct DecodeFrag {
  Bytes16 lo, hi;
};
/// A lane's weight bytes of one K block (kWRows rows).
template <class Map> struct DecodeWFrag {
  DecodeFrag row[Map::kWRows];
};
/// A lane's 4 accumulators of one 16 x kTileM tile.
struct DecodeAcc {
  float v[4];
};
/// A lane's accumulators of all MT m tiles.
template <int MT> struct DecodeAccs {
  DecodeAcc t[MT];
};

/// Word i (0..7) of a lane's 32 bytes.
FP8Q_HOSTDEV inline uint32_t decodeWord(const DecodeFrag &f, int i) {
  return i < 4 ? f.lo.w[i] : f.hi.w[i - 4];
}

/// The registers of NVIDIA instruction j (0..3) of a K block: it reads
/// bytes [8j, 8j + 8) of each lane's 32, i.e. words 2j and 2j + 1. A (the
/// weight, 16 x 32): a0 / a1 = first word of rows l/4 and l/4 + 8, a2 / a3
/// their second word; B (the activations, 32 x 8): b0, b1.
FP8Q_HOSTDEV inline void decodeNvRegs(const DecodeWFrag<DecodeMapNv> &a,
                                      const DecodeFrag &b, int j,
                                      uint32_t ra[4], uint32_t rb[2]) {
  ra[0] = decodeWord(a.row[0], 2 * j);
  ra[1] = decodeWord(a.row[1], 2 * j);
  ra[2] = decodeWord(a.row[0], 2 * j + 1);
  ra[3] = decodeWord(a.row[1], 2 * j + 1);
  rb[0] = decodeWord(b, 2 * j);
  rb[1] = decodeWord(b, 2 * j + 1);
}

/// A lane's weight bytes of one K block as 16-bit pairs, each converted by
/// `cvt` (e4m3x2 -> f16x2 on the GPU): h[r][2 i + e] = cvt(bytes 2 e,
/// 2 e + 1 of word i of row r). Hopper (sm_90) has no FP8 mma.sync (ptxas
/// emulates sm_89's m16n8k32 e4m3 through f16); with
/// FP8Q_DECODE_SM90_F16=1 (DecodeGemm.hip) the weight is converted here
/// once per K block for all m tiles and the native m16n8k16 f16
/// instruction runs once per word. Measured no faster than the emulation
/// on the H100 (bench/RESULTS.md), so off by default.
struct DecodeWF16 {
  uint32_t h[DecodeMapNv::kWRows][16];
};
template <class Cvt>
FP8Q_HOSTDEV inline DecodeWF16
decodeNvF16Weight(const DecodeWFrag<DecodeMapNv> &a, Cvt cvt) {
  DecodeWF16 f;
  FP8Q_UNROLL
  for (int r = 0; r < DecodeMapNv::kWRows; ++r)
    FP8Q_UNROLL
  for (int i = 0; i < 8; ++i) {
    const uint32_t w = decodeWord(a.row[r], i);
    f.h[r][2 * i] = cvt((uint16_t)w);
    f.h[r][2 * i + 1] = cvt((uint16_t)(w >> 16));
  }
  return f;
}

/// The registers of f16 step i (0..7) of a K block: word i of each lane's
/// 32 bytes. A (m16n8k16: a0 / a1 rows l/4 / l/4 + 8 at k 2 (l % 4) + 0..1,
/// a2 / a3 the same rows at k + 8): the word's first pair of both rows,
/// then its second pair; B (b0 at k 2 (l % 4) + 0..1 of column l/4, b1 at
/// k + 8): the activation word's two pairs. Lane l supplies A and B at the
/// same slots, so A's byte 32 (l % 4) + 4 i + e pairs with B's same byte.
template <class Cvt>
FP8Q_HOSTDEV inline void decodeNvF16Regs(const DecodeWF16 &a,
                                         const DecodeFrag &b, int i, Cvt cvt,
                                         uint32_t ra[4], uint32_t rb[2]) {
  ra[0] = a.h[0][2 * i];
  ra[1] = a.h[1][2 * i];
  ra[2] = a.h[0][2 * i + 1];
  ra[3] = a.h[1][2 * i + 1];
  const uint32_t x = decodeWord(b, i);
  rb[0] = cvt((uint16_t)x);
  rb[1] = cvt((uint16_t)(x >> 16));
}

/// Waves of a block.
template <class Map> FP8Q_HOSTDEV constexpr int decodeWaves() {
  return kDecodeThreads / Map::kLanes;
}

/// 16 bytes at p; Stream: the weight stream (loadStream16 on the GPU).
template <bool Stream>
FP8Q_HOSTDEV inline Bytes16 decodeLoad16(const uint8_t *p) {
#if defined(FP8Q_GPU) &&                                                       \
    (defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__))
  if constexpr (Stream)
    return loadStream16(p);
#endif
  return *reinterpret_cast<const Bytes16 *>(p);
}

/// Bytes between consecutive K blocks of one lane's weight stream in
/// layout L, and between the two 16-byte halves of its 32 bytes. With
/// preshuffle_16x16 (SPEC; requires N % 16 == 0, K % 32 == 0) a tile's 16
/// rows are one contiguous run over all of K and a K block's 16 x 128 bytes
/// one 2 KiB piece (preshuffleOffset), so a block streams one contiguous
/// region.
template <WLayout L> FP8Q_HOSTDEV constexpr int64_t decodeWKbStride() {
  return L == WLayout::Plain ? kGroup : kDecodeTileN * kGroup;
}
template <WLayout L> FP8Q_HOSTDEV constexpr int decodeWHalfOffset() {
  return L == WLayout::Plain ? 16 : 16 * kDecodeTileN;
}

/// 32 bytes at p, the second half at p + half. Full: the lane's K block
/// lies inside K (no check); otherwise `kLeft` = K minus the lane's k, and
/// each 16-byte half at or past K is zero (K % 16 == 0).
template <bool Stream, bool Full>
FP8Q_HOSTDEV inline DecodeFrag decodeLoad32(const uint8_t *p, int half,
                                            int64_t kLeft) {
  DecodeFrag f{};
  if (Full || kLeft > 0)
    f.lo = decodeLoad16<Stream>(p);
  if (Full || kLeft > 16)
    f.hi = decodeLoad16<Stream>(p + half);
  return f;
}

/// Whether a K block lies inside K, as a type (the loaders' Full argument
/// from a runtime branch; kernels include no standard headers).
template <bool B> struct DecodeFull { static constexpr bool value = B; };

/// A lane's operand addresses at K block 0, computed once per wave
/// (decodeLaneBase); K block kb is kb * decodeWKbStride<L>() bytes on in
/// the weight, kb * kGroup in the activations, kb * ws1 / xs1 floats on in
/// the scales, so the K loop does no index arithmetic beyond one add per
/// stream. Rows past N or M are clamped to the last row: a weight row only
/// reaches outputs of its n and an activation row outputs of its m, which
/// decodeStoreOne drops, so the loads need no row check and the rows they
/// feed stay finite.
template <class Map, int MT> struct DecodeLaneBase {
  const uint8_t *w[Map::kWRows];
  const uint8_t *x[MT];
  const float *xs[MT][Map::kAccRows];
  const float *ws;
  int64_t kOff; ///< the lane's byte offset in a K block (Map::kOff)
};

template <class Map, int MT, WLayout L>
FP8Q_HOSTDEV inline DecodeLaneBase<Map, MT>
decodeLaneBase(const DecodeGemmArgs &p, int64_t n0, int64_t m0, int lane) {
  DecodeLaneBase<Map, MT> b;
  b.kOff = Map::kOff(lane);
  auto clamp = [](int64_t v, int64_t rows) { return v < rows ? v : rows - 1; };
  FP8Q_UNROLL
  for (int r = 0; r < Map::kWRows; ++r) {
    const int64_t n = clamp(n0 + Map::wRow(lane, r), p.N);
    b.w[r] = p.w + (L == WLayout::Plain ? n * p.ldw + b.kOff
                                        : preshuffleOffset(n, b.kOff, p.K));
  }
  b.ws = p.ws + (n0 / kGroup) * p.ws0; // 16 | 128: one scale row per tile
  FP8Q_UNROLL
  for (int t = 0; t < MT; ++t) {
    const int64_t mt0 = m0 + t * Map::kTileM;
    b.x[t] = p.q + clamp(mt0 + Map::xRow(lane), p.M) * p.ldq + b.kOff;
    FP8Q_UNROLL
    for (int r = 0; r < Map::kAccRows; ++r)
      b.xs[t][r] = p.xs + clamp(mt0 + Map::accM(lane, r), p.M) * p.xs0;
  }
  return b;
}

/// A lane's weight bytes of K block kb.
template <class Map, int MT, WLayout L, bool Full>
FP8Q_HOSTDEV inline DecodeWFrag<Map>
loadDecodeWeight(const DecodeGemmArgs &p, const DecodeLaneBase<Map, MT> &b,
                 int64_t kb) {
  DecodeWFrag<Map> f;
  const int64_t kLeft = p.K - kb * kGroup - b.kOff;
  FP8Q_UNROLL
  for (int r = 0; r < Map::kWRows; ++r)
    f.row[r] = decodeLoad32<true, Full>(b.w[r] + kb * decodeWKbStride<L>(),
                                        decodeWHalfOffset<L>(), kLeft);
  return f;
}

/// Issue 21's switch: 1 loads a round's activation bytes and scales with
/// its weight bytes, one round ahead, in the variants of up to 16
/// activation rows (decodePrefetchX); 0 (default, the kernel as measured on
/// the H200) loads them when the round computes. Not yet timed: the default
/// stays 0 until an H200 A/B (bench/decode_gemm_sweep_h200.sh with
/// KERNEL=v1) shows 1 faster. With 1 as the default the CPU model tests
/// (DecodeGemmTest, 146 cases) and the gfx950 / gfx942 checks passed.
#ifndef FP8Q_DECODE_PREFETCH_X
#define FP8Q_DECODE_PREFETCH_X 0
#endif

/// Whether the MT-tile variant loads its activation bytes and scales a
/// round ahead: the 32- and 64-row variants hold 4-8 tiles of them, which
/// would double their spills on sm_90 (255 registers already).
template <class Map, int MT> FP8Q_HOSTDEV constexpr bool decodePrefetchX() {
  return FP8Q_DECODE_PREFETCH_X && MT * Map::kTileM <= 16;
}

/// A lane's operands of one K block beside the weight: the activation bytes
/// of each m tile, the activation scale of each accumulator row it holds
/// (rows past M clamped, DecodeLaneBase) and the weight scale. All are L2
/// reads; loaded with the weight, they arrive in the shadow of the weight's
/// HBM latency instead of adding an L2 round trip per K block after it.
template <class Map, int MT> struct DecodeXOps {
  DecodeFrag x[MT];
  float xs[MT][Map::kAccRows];
  float ws;
};

/// A lane's loads of one round entry: the weight, and with
/// decodePrefetchX the other operands.
template <class Map, int MT> struct DecodeRound {
  DecodeWFrag<Map> w;
  DecodeXOps<Map, MT> ops;
};

/// A lane's DecodeXOps of K block kb (kb < kBlocks).
template <class Map, int MT, bool Full>
FP8Q_HOSTDEV inline DecodeXOps<Map, MT>
loadDecodeXOps(const DecodeGemmArgs &p, const DecodeLaneBase<Map, MT> &b,
               int64_t kb) {
  DecodeXOps<Map, MT> o;
  o.ws = b.ws[kb * p.ws1];
  const int64_t kLeft = p.K - kb * kGroup - b.kOff;
  const int64_t xsOff = kb * p.xs1;
  FP8Q_UNROLL
  for (int t = 0; t < MT; ++t) {
    o.x[t] = decodeLoad32<false, Full>(b.x[t] + kb * kGroup, 16, kLeft);
    FP8Q_UNROLL
    for (int r = 0; r < Map::kAccRows; ++r)
      o.xs[t][r] = b.xs[t][r][xsOff];
  }
  return o;
}

/// One wave's totals over its K blocks of [kbLo, kbHi) (the block's split;
/// wave w takes kbLo + w, kbLo + w + waves, ...) for the block's tile:
/// weight rows [n0, n0 + 16), activation rows [m0, m0 + MT * kTileM).
template <class Map, int MT, WLayout L, class Wave>
FP8Q_HOSTDEV inline typename Wave::template Lanes<DecodeAccs<MT>>
decodeWaveTotals(const DecodeGemmArgs &p, int64_t n0, int64_t m0, int64_t kbLo,
                 int64_t kbHi, int wave, Wave &W) {
  typename Wave::template Lanes<DecodeAccs<MT>> total =
      W.map([&](int) { return DecodeAccs<MT>{}; });
  const int64_t kBlocks = kbHi;
  constexpr int kStep = decodeWaves<Map>();
  typename Wave::template Lanes<DecodeLaneBase<Map, MT>> base = W.map(
      [&](int lane) { return decodeLaneBase<Map, MT, L>(p, n0, m0, lane); });
  // Rounds of kDecodeUnroll K blocks, software-pipelined: the loads of
  // round r + 1 are requested before round r's matrix steps, so the weight
  // stream stays in flight while round r computes (each lane: 2 * 32 *
  // kWRows * U weight bytes, and with decodePrefetchX the round's
  // activation bytes and scales, so that a round waits on one set of loads).
  // Every K block but a partial last one (K % 128 != 0) loads unchecked.
  constexpr bool kPrefetchX = decodePrefetchX<Map, MT>();
  using Round = typename Wave::template Lanes<DecodeRound<Map, MT>>;
  Round a[kDecodeUnroll], next[kDecodeUnroll];
  auto loadRound = [&](int64_t kb0, Round *dst) {
    FP8Q_UNROLL
    for (int u = 0; u < kDecodeUnroll; ++u) {
      const int64_t kb = kb0 + u * kStep;
      auto load = [&](auto full) {
        constexpr bool kFull = decltype(full)::value;
        return W.map([&](int lane) {
          DecodeRound<Map, MT> f{};
          f.w = loadDecodeWeight<Map, MT, L, kFull>(p, W.at(base, lane), kb);
          if constexpr (kPrefetchX)
            f.ops = loadDecodeXOps<Map, MT, kFull>(p, W.at(base, lane), kb);
          return f;
        });
      };
      if (kb >= kBlocks) // uniform per wave, as the two below
        dst[u] = W.map([&](int) { return DecodeRound<Map, MT>{}; });
      else if ((kb + 1) * kGroup <= p.K)
        dst[u] = load(DecodeFull<true>{});
      else
        dst[u] = load(DecodeFull<false>{});
    }
  };
  auto computeRound = [&](int64_t kb0, Round *rd) {
    FP8Q_UNROLL
    for (int u = 0; u < kDecodeUnroll; ++u) {
      const int64_t kb = kb0 + u * kStep;
      if (kb >= kBlocks) // uniform per wave
        continue;
      if constexpr (!kPrefetchX) {
        auto load = [&](auto full) {
          W.each([&](int lane) {
            W.at(rd[u], lane).ops =
                loadDecodeXOps<Map, MT, decltype(full)::value>(
                    p, W.at(base, lane), kb);
          });
        };
        if ((kb + 1) * kGroup <= p.K)
          load(DecodeFull<true>{});
        else
          load(DecodeFull<false>{});
      }
      typename Wave::template Lanes<DecodeWFrag<Map>> wf =
          W.map([&](int lane) { return W.at(rd[u], lane).w; });
      // The weight operand once per K block, shared by the m tiles.
      const auto &wp = W.prepareWeight(wf);
      FP8Q_UNROLL
      for (int t = 0; t < MT; ++t) {
        typename Wave::template Lanes<DecodeFrag> xf =
            W.map([&](int lane) { return W.at(rd[u], lane).ops.x[t]; });
        typename Wave::template Lanes<DecodeAcc> part = W.mma(wp, xf);
        W.each([&](int lane) {
          const DecodeXOps<Map, MT> &o = W.at(rd[u], lane).ops;
          DecodeAcc &tot = W.at(total, lane).t[t];
          const DecodeAcc &pr = W.at(part, lane);
          FP8Q_UNROLL
          for (int i = 0; i < 4; ++i)
            tot.v[i] += pr.v[i] * (o.xs[t][Map::accRow(i)] * o.ws);
        });
      }
    }
  };
  loadRound(kbLo + wave, a);
  for (int64_t kb0 = kbLo + wave; kb0 < kBlocks; kb0 += kStep * kDecodeUnroll) {
    loadRound(kb0 + kStep * kDecodeUnroll, next);
    computeRound(kb0, a);
    FP8Q_UNROLL
    for (int u = 0; u < kDecodeUnroll; ++u)
      a[u] = next[u];
  }
  return total;
}

/// LDS floats of the cross-wave reduction: [waves][16][MT * kTileM].
template <class Map, int MT> FP8Q_HOSTDEV constexpr int decodeReduceFloats() {
  return decodeWaves<Map>() * kDecodeTileN * MT * Map::kTileM;
}

/// Index of D[n][m] of wave `wave` in the reduction buffer.
template <class Map, int MT>
FP8Q_HOSTDEV inline int decodeReduceIndex(int wave, int n, int m) {
  return (wave * kDecodeTileN + n) * (MT * Map::kTileM) + m;
}

/// Writes a lane's totals into the reduction buffer.
template <class Map, int MT>
FP8Q_HOSTDEV inline void decodeSpill(float *red, int wave, int lane,
                                     const DecodeAccs<MT> &tot) {
  FP8Q_UNROLL
  for (int t = 0; t < MT; ++t)
    FP8Q_UNROLL
  for (int i = 0; i < 4; ++i)
    red[decodeReduceIndex<Map, MT>(wave, Map::accN(lane, i),
                                   t * Map::kTileM + Map::accM(lane, i))] =
        tot.t[t].v[i];
}

/// Split-K of a launch (grid.z = splits): split s takes the K blocks
/// [s * kbPer, min(kBlocks, (s + 1) * kbPer)); each split's fp32 tile goes
/// to the workspace `part` ([splits][M][N]) and the last block of a tile to
/// arrive (per-tile counters `arrive`, tilesN * tilesM of them, zero
/// between launches: that block resets its counter) sums the partials in
/// split order. With one split, part and arrive are unused. The decode
/// GEMM v2 (DecodeGemmV2.h) launches with the same arguments.
struct DecodeSplitArgs {
  DecodeGemmArgs g;
  float *part;
  uint32_t *arrive;
  int64_t tilesN, kbPer, kBlocks;
  int splits;
};

/// Index of output (m, n) of split s in the workspace [splits][M][N].
FP8Q_HOSTDEV inline int64_t decodePartIndex(const DecodeGemmArgs &p, int s,
                                            int64_t m, int64_t n) {
  return ((int64_t)s * p.M + m) * p.N + n;
}

/// Output `idx` of the block (n fastest, so a row's 16 outputs are one
/// 32-byte store run) of split `split`: the waves' totals summed in wave
/// order; bf16 RNE into the output with one split, the fp32 sum into the
/// split's workspace tile with more.
template <class Map, int MT>
FP8Q_HOSTDEV inline void decodeStoreOne(const DecodeSplitArgs &a,
                                        const float *red, int64_t n0,
                                        int64_t m0, int split, int idx) {
  const DecodeGemmArgs &p = a.g;
  const int n = idx % kDecodeTileN, m = idx / kDecodeTileN;
  if (n0 + n >= p.N || m0 + m >= p.M)
    return;
  float sum = 0.0f;
  for (int w = 0; w < decodeWaves<Map>(); ++w)
    sum += red[decodeReduceIndex<Map, MT>(w, n, m)];
  if (a.splits == 1)
    p.out[(m0 + m) * p.ldo + n0 + n] = bf16Bits(sum);
  else
    a.part[decodePartIndex(p, split, m0 + m, n0 + n)] = sum;
}

/// Element e of a tile of TileN weight rows in the split-K fix-up (n
/// fastest: coalesced reads and stores): the splits' partials summed in
/// split order, bf16 RNE. `Ld` reads a workspace float (past L1 on the
/// GPU: other blocks wrote it).
template <int TileN, class Ld>
FP8Q_HOSTDEV inline void decodeReduceSplits(const DecodeSplitArgs &a,
                                            int64_t n0, int64_t m0, int e,
                                            Ld ld) {
  const DecodeGemmArgs &p = a.g;
  const int64_t n = n0 + e % TileN, m = m0 + e / TileN;
  if (n >= p.N || m >= p.M)
    return;
  float sum = 0.0f;
  for (int s = 0; s < a.splits; ++s)
    sum += ld(a.part + decodePartIndex(p, s, m, n));
  p.out[m * p.ldo + n] = bf16Bits(sum);
}

/// The first kernel's split-K rule (issue 21: "split-K across all compute
/// units for N too small to fill the GPU"). A wave keeps two rounds of K
/// blocks in flight, so a grid of `tiles` blocks (ceil(N / 16) x
/// ceil(M / rows)) smaller than the `sms` multiprocessors whose waves have
/// more than two K blocks each (kBlocks > 2 * waves) waits on several
/// round trips with few bytes in flight: K is split into the most splits
/// whose blocks are all resident at once (decodeSplitBlocksPerSm; floor: a
/// partial second wave of blocks costs more than the split gains), each
/// wave of a split still holding a K block (kbPer >= waves), at most
/// kDecodeMaxSplits. Measured on the H100 (M = 1 / 16, us;
/// bench/results/s18/split.txt): 576 x 7168 (36 tiles) 8.38 / 9.99 unsplit,
/// 5.69 / 6.68 with 7 splits, 6.08 / 7.18 with 4; 1536 x 7168 (96 tiles)
/// 10.10 / 12.64 unsplit, 9.19 / 10.84 with 2, 11.27 / 13.39 with 3 (288
/// blocks: a partial second wave); 2048 x 2048 (128 tiles, 16 K blocks)
/// 4.63 / 5.69 unsplit, 5.42 / 6.41 with 2 (each wave's K blocks were in
/// flight at once already). The 32- and 64-row variants are built for one
/// resident block (FP8Q_DECODE_KERNEL's minBlocks): 1536 x 7168 at M = 64
/// took 30.41 us with 2 splits on 2 blocks per SM, 22.53 unsplit
/// (bench/results/s18/split-rule.txt).
constexpr int kDecodeMaxSplits = 8;

/// Resident blocks per SM the split rule counts for the variant of `rows`
/// activation rows: 2 up to 16 rows (the 8-row variant a split grid runs is
/// the two-block one, decodeM8TwoBlocks; the 16-row one is built for 2), 1
/// for 32 and 64.
FP8Q_HOSTDEV constexpr int decodeSplitBlocksPerSm(int rows) {
  return rows <= 16 ? 2 : 1;
}

/// Splits and K blocks per split of a launch; `blocksPerSm` overrides the
/// resident blocks counted (0: decodeSplitBlocksPerSm(rows); bench A/B
/// runs). The last split may be shorter; none is empty.
struct DecodeSplitPlan {
  int64_t tiles, kBlocks, kbPer;
  int splits;
};
template <class Map>
FP8Q_HOSTDEV inline DecodeSplitPlan
decodeSplitPlan(int64_t M, int64_t N, int64_t K, int rows, int sms,
                int blocksPerSm = 0) {
  DecodeSplitPlan pl{};
  pl.tiles = ((N + kDecodeTileN - 1) / kDecodeTileN) * ((M + rows - 1) / rows);
  pl.kBlocks = (K + kGroup - 1) / kGroup;
  constexpr int waves = decodeWaves<Map>();
  int64_t splits = 1;
  if (sms > 0 && pl.tiles < sms && pl.kBlocks > 2 * waves) {
    const int64_t slots =
        (int64_t)sms *
        (blocksPerSm > 0 ? blocksPerSm : decodeSplitBlocksPerSm(rows));
    splits = slots / pl.tiles;
    const int64_t byK = pl.kBlocks / waves;
    if (splits > byK)
      splits = byK;
    if (splits > kDecodeMaxSplits)
      splits = kDecodeMaxSplits;
    if (splits < 1)
      splits = 1;
  }
  pl.kbPer = (pl.kBlocks + splits - 1) / splits;
  pl.splits = (int)((pl.kBlocks + pl.kbPer - 1) / pl.kbPer);
  return pl;
}

/// Workspace of a plan: fp32 partials and tile counters (0 with one split).
FP8Q_HOSTDEV inline int64_t decodePartFloats(const DecodeSplitPlan &pl,
                                             int64_t M, int64_t N) {
  return pl.splits > 1 ? pl.splits * M * N : 0;
}

/// Activation rows per block of the kernel a launch of M rows uses: the
/// fewest of the built variants (fp8q_kernel_decode_gemm_m<rows>: 8 (NVIDIA
/// only), 16, 32, 64) that hold M, 64 beyond (grid.y covers the rest).
template <class Map> FP8Q_HOSTDEV inline int decodeKernelRows(int64_t M) {
  for (int rows = Map::kTileM; rows < 64; rows *= 2)
    if (M <= rows)
      return rows;
  return 64;
}

/// Whether an 8-row launch (NVIDIA) takes the two-resident-block variant
/// (fp8q_kernel_decode_gemm_m8_b2, up to 128 registers) rather than the
/// three-block one (85): when its grid (ceil(N / 16) x ceil(M / 8) blocks)
/// fits two blocks on each of the `sms` multiprocessors, so the larger
/// register budget costs no residency. Measured on the H100 at M = 1
/// (bench/results/h100-decode-b2-s16.log, h100-decode-m8b2-s17.log): the
/// two-block variant faster where this picks it (N = 2048 .. 4096, 7-13%)
/// but for 2112 x 7168 (even) and 576 x 7168 (4% slower: 36 blocks),
/// slower on every shape it does not pick it for (N = 4608 .. 24576,
/// 10-46%).
FP8Q_HOSTDEV inline bool decodeM8TwoBlocks(int64_t M, int64_t N, int sms) {
  const int64_t blocks = ((N + kDecodeTileN - 1) / kDecodeTileN) * ((M + 7) / 8);
  return sms > 0 && blocks <= 2 * (int64_t)sms;
}

/// Where the decode GEMM replaces cuBLASLt's blockwise FP8 GEMM (the
/// `cublas` kernel id on CUDA): where it was measured faster on the H200
/// (bench/results/h200-decode-gemm-pdl.log, both launch kinds). M <= 8 on
/// every shape (cuBLASLt refuses M = 1 and runs M padded to 16); 8 < M <=
/// 16 for N <= 6144 and K >= 2048, the region where it beat cuBLASLt at
/// M = 16 on every measured shape (1.07-1.94x: 6144 x 2048, 4096 x 6144,
/// 2624 x 6144, 2048 x 2048, 2112 x 7168) and outside which it lost on
/// every one (0.77-0.97x: 7168 x 2048, 24576 x 1536, 6144 x 256). Never
/// above 16 (0.20-1.03x at M = 64).
FP8Q_HOSTDEV inline bool decodeGemmBeatsCublas(int64_t M, int64_t N,
                                               int64_t K) {
  if (M <= 8)
    return true;
  return M <= 16 && N <= 6144 && K >= 2048;
}

} // namespace fp8q::kern

#endif // FP8Q_KERNELS_DECODEGEMM_H
