//===- QuantizeV2.hip - Quantize into every SPEC v2 format and layout ----===//
//
// x [M, K] (bf16, f16, f32) -> q (f8E4M3FN, f8E4M3FNUZ, f8E5M2 bytes or
// f4E2M1FN, two per byte, element 2i in the low nibble) and a scale (f32,
// e8m0 or e4m3, every rounding rule) written straight into its layout: a
// strided one (row_major, col_major align a) through its strides, a padded
// one (pack4, swizzle_32_4_4, cdna4_mx) through the shared index map, its
// padding zeroed by the same launch (the blocks after the quantizing ones).
// The numerics are fp8q_mx_numerics.h's, so every byte equals the CPU
// runtime's (bench/gpu_v2_check.cu checks it on the H200).
//
// 16-bit inputs with groups of 16, 32, 64, 128 or 256 take the raw-word
// kernels (fp8q_kernel_quantize_v2_words_<x>_<q> for strided scales and
// ..._words_padded_<x>_<q> for padded ones, one per element type and scale
// kind; the FP8 1x128 kernel's structure): a team of group / 16 lanes holds two
// consecutive groups in their 16-bit words, two 16-byte chunks of each per
// lane, all four loads issued before any arithmetic; 64 bytes in flight per
// lane is what the bandwidth needs. Otherwise (f32 x, other group sizes) a
// team of `lanes` lanes (a power of two, 16 for a 1x128 group) quantizes a
// group as fp32 values, 8 elements per lane and chunk; a team takes two
// consecutive groups when a group is one chunk per lane. Column-major and
// pack4 scales walk groups m-fastest in chunks of 8 rows (groupOfIndexChunked):
// consecutive teams write consecutive scales.
//
//===----------------------------------------------------------------------===//

#include "fp8q_kernels/E2M1Packed.h"
#include "fp8q_kernels/QuantizeCommon.h"
#include "fp8q_kernels/QuantizeV2Common.h"
#include "fp8q_kernels/ScaleLayoutV2.h"

using namespace fp8q::kern;

/// Blocks per SM the quantize kernels are built for: 3 leaves sm_90 74
/// registers and no spills with the hardware conversions inlined (4, at 64
/// registers, spilled up to 144 bytes); bench/v2_kernels_h200.sh times
/// both.
#ifndef FP8Q_V2_QUANT_MIN_BLOCKS
#define FP8Q_V2_QUANT_MIN_BLOCKS 3
#endif

/// Blocks per SM of the raw-word kernels (fp8q_kernel_quantize_v2_words_*):
/// 4 leaves sm_90 64 registers without spills, 64 bytes of x in flight per
/// lane; 5 (48 registers) spills.
#ifndef FP8Q_V2_QUANT_WORDS_MIN_BLOCKS
#define FP8Q_V2_QUANT_WORDS_MIN_BLOCKS 4
#endif

namespace {

/// (m, g) of group `gid` in the launch's walk order.
__device__ FP8Q_V2_INLINE GroupCoordT<int64_t>
quantV2Coord(const QuantV2Args &p, int64_t gid) {
  const int lgR = p.mFastest ? kQuantColChunkLog2 : 0;
  if (p.M * p.G <= INT32_MAX) {
    GroupCoordT<uint32_t> c = groupOfIndexChunked<uint32_t>(
        (uint32_t)gid, (uint32_t)p.M, (uint32_t)p.G, lgR);
    return GroupCoordT<int64_t>{(int64_t)c.m, (int64_t)c.g};
  }
  return groupOfIndexChunked<int64_t>(gid, p.M, p.G, lgR);
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
/// The 8 fp8 codes of x / divisor with the sm_89+ conversions (E4M3FN,
/// E5M2), or false when one of them is a NaN code, whose sign the x86
/// rules decide (the caller re-encodes the chunk in software). The
/// quotient: x * rcp for power-of-two divisors (the same value), the
/// fma-corrected quotient when `corrected` (16-bit x, see quantV2QuotientOf),
/// else the division.
template <int QT, bool Q16>
__device__ FP8Q_V2_INLINE bool hwCodes8(const float (&v)[8], float divisor,
                                        float rcp, bool pow2, bool corrected,
                                        Bytes8 &b) {
  auto y = [&](int i) {
    if (pow2)
      return v[i] * rcp;
    if (Q16 && corrected)
      return correctedQuotient(v[i], divisor, rcp);
    return v[i] / divisor;
  };
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    if constexpr (QT == FP8Q_Q_F8E5M2)
      b.w[i] = cvtE5M2x2(y(4 * i), y(4 * i + 1)) |
               (cvtE5M2x2(y(4 * i + 2), y(4 * i + 3)) << 16);
    else
      b.w[i] = cvtE4M3FNx2(y(4 * i), y(4 * i + 1)) |
               (cvtE4M3FNx2(y(4 * i + 2), y(4 * i + 3)) << 16);
  }
  // NaN codes: E4M3FN 0x7f, E5M2 0x7d..0x7f (0x7c, infinity, never comes
  // out of a saturating conversion), either sign.
  constexpr uint32_t kNanFrom = QT == FP8Q_Q_F8E5M2 ? 0x04040404u : 0x01010101u;
  return ((((b.w[0] & 0x7f7f7f7fu) + kNanFrom) |
           ((b.w[1] & 0x7f7f7f7fu) + kNanFrom)) &
          0x80808080u) == 0;
}
#endif

/// Stores the 8 codes of one chunk: 8 bytes (fp8) or 4 (fp4). `hw`: the
/// divisor is finite and nonzero (and the group's reciprocal is set), so
/// E4M3FN and E5M2 may take the hardware conversion on sm_89+, and
/// E4M3FNUZ the E4M3FN one of 2y (fnuzQuantize8). `corrected`: the
/// quotient is the fma-corrected one (quantV2QuotientOf; 16-bit x only).
/// `noNaN`: no quotient of the chunk is NaN (its x finite, the divisor not
/// NaN), so E2M1 drops its NaN select.
template <int QT, bool Q16>
__device__ FP8Q_V2_INLINE void
storeCodesV2(const QuantV2Args &p, int64_t m, int64_t e0, const float (&v)[8],
             float divisor, float rcp, bool pow2, bool hw, bool corrected,
             bool noNaN = false) {
  corrected = Q16 && corrected;
  if constexpr (QT == FP8Q_Q_F4E2M1FN) {
    uint32_t w = 0;
    if (noNaN && FP8Q_V2_NVFP4_PACKED && e2m1PackedNative(Bf16{}) &&
        corrected && !pow2) {
      // NVFP4 (E2M1Packed.h): the fp32 quotients, then two codes per packed
      // bf16 instruction; the same codes for every non-NaN quotient.
      float qv[8];
#pragma unroll
      for (int i = 0; i < 8; ++i)
        qv[i] = correctedQuotient(v[i], divisor, rcp);
      w = e2m1Pack8Quotients(qv);
    } else if (noNaN) {
#pragma unroll
      for (int i = 0; i < 8; ++i)
        w |= quantizeE2M1<true>(v[i], divisor, rcp, pow2, corrected)
             << (4 * i);
    } else {
#pragma unroll
      for (int i = 0; i < 8; ++i)
        w |= quantizeE2M1<false>(v[i], divisor, rcp, pow2, corrected)
             << (4 * i);
    }
    *reinterpret_cast<uint32_t *>(p.q + m * p.ldq + e0 / 2) = w;
  } else {
    Bytes8 b = {{0, 0}};
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#if FP8Q_V2_FNUZ_HW
    if constexpr (QT == FP8Q_Q_F8E4M3FNUZ) {
      if (hw) {
        fnuzQuantize8(v, divisor, rcp, pow2, b.w, corrected);
        storeOnce8(p.q + m * p.ldq + e0, b);
        return;
      }
    }
#endif
    if constexpr (QT == FP8Q_Q_F8E4M3FN || QT == FP8Q_Q_F8E5M2) {
      if (hw && hwCodes8<QT, Q16>(v, divisor, rcp, pow2, corrected, b)) {
        storeOnce8(p.q + m * p.ldq + e0, b);
        return;
      }
      b = Bytes8{{0, 0}};
    }
#else
    (void)hw;
    (void)noNaN;
#endif
#pragma unroll
    for (int i = 0; i < 8; ++i)
      b.w[i / 4] |= (uint32_t)quantizeV2Value<QT>(v[i], divisor, rcp, pow2)
                    << (8 * (i % 4));
    storeOnce8(p.q + m * p.ldq + e0, b);
  }
}

/// Stores a group's scale value in the scale's type and layout.
__device__ FP8Q_V2_INLINE void storeScaleV2(const QuantV2Args &p, int64_t m,
                                            int64_t g, float sc) {
  const int64_t off =
      scaleOffsetV2(p.padded, p.layout, p.align, p.M, p.G, p.s0, p.s1, m, g);
  if (p.scaleType == FP8Q_SCALE_F32)
    static_cast<float *>(p.scale)[off] = sc;
  else
    static_cast<uint8_t *>(p.scale)[off] =
        fp8q_scale_encode_byte(sc, p.scaleType);
}

/// max over the team's lanes (aligned lanes of one wave; every lane of the
/// wave takes part).
__device__ FP8Q_V2_INLINE float teamMax(float v, int lanes) {
  for (int s = lanes / 2; s >= 1; s /= 2)
    v = maxf(v, shflXor(v, s));
  return v;
}

/// How the kernels form x / divisor for 16-bit x, fixed per launch (and per
/// instantiation in the raw-word kernels, so that no per-element branch on
/// it remains: uniform branches between the elements' conversions cost the
/// instruction-level parallelism the loop needs): x * rcp for power-of-two
/// scales; the fma-corrected quotient (correctedQuotient) for the FP8
/// 1x128 format and NVFP4 (FP8Q_V2_CORRECTED_QUOTIENT), per group where the
/// divisor is finite and correctedQuotientOk holds for it and the group's
/// amax; else the division.
enum QuantV2Quotient { kQuotPow2, kQuotCorrected, kQuotDivide };

/// The quotient kind of a launch (uniform: it depends on the arguments).
template <int QT>
__device__ FP8Q_V2_INLINE int quantV2QuotientOf(const QuantV2Args &p) {
  if (quantV2Pow2(p.rounding))
    return kQuotPow2;
  if (QT == FP8Q_Q_F8E4M3FN && p.rounding == FP8Q_ROUND_EXACT &&
      p.scaleType == FP8Q_SCALE_F32 && p.group == 128)
    return kQuotCorrected;
  if (FP8Q_V2_CORRECTED_QUOTIENT >= 2 ||
      (FP8Q_V2_CORRECTED_QUOTIENT == 1 && QT == FP8Q_Q_F4E2M1FN &&
       p.scaleType == FP8Q_SCALE_F8E4M3FN))
    return kQuotCorrected;
  return kQuotDivide;
}

/// The quantizing blocks: a team's one or two groups.
template <class T, int QT>
__device__ FP8Q_V2_INLINE void quantizeV2Groups(const QuantV2Args &p) {
  constexpr bool Q16 = sizeof(T) == 2;
  const int tid = threadId();
  const int lanes = p.lanes, ng = p.groupsPerTeam;
  const int sub = tid & (lanes - 1);
  const int64_t total = p.M * p.G, chunks = p.group / kV2Vec;
  const int64_t gid0 =
      (blockIdX() * (kV2Block / lanes) + tid / lanes) * (int64_t)ng;
  GroupCoordT<int64_t> gc[2];
  bool active[2];
#pragma unroll
  for (int j = 0; j < 2; ++j) {
    active[j] = j < ng && gid0 + j < total;
    gc[j] = quantV2Coord(p, active[j] ? gid0 + j : 0);
  }
  const T *x[2];
#pragma unroll
  for (int j = 0; j < 2; ++j)
    x[j] = static_cast<const T *>(p.x) + gc[j].m * p.ldx + gc[j].g * p.group;
  // Slot s holds chunk `sub` of group s (two groups) or chunk sub + s *
  // lanes of the one group. Every index below is a constant after
  // unrolling (a run-time index would put the arrays in scratch).
  const bool two = ng == 2;
  float v[2][8];
  float amax0 = 0.0f, amax1 = 0.0f;
#pragma unroll
  for (int s = 0; s < 2; ++s) {
    const bool own = two ? active[s] : active[0];
    const T *xs = two ? x[s] : x[0];
    const int64_t c = two ? sub : sub + s * lanes;
    if (own && c < chunks) {
      load8(xs + c * kV2Vec, v[s]);
      float a = 0.0f;
#pragma unroll
      for (int i = 0; i < 8; ++i)
        a = maxNum(a, absf(v[s][i]));
      if (two && s == 1)
        amax1 = maxf(amax1, a);
      else
        amax0 = maxf(amax0, a);
    }
  }
  for (int64_t c = sub + 2 * lanes; !two && active[0] && c < chunks;
       c += lanes) {
    float w[8];
    load8(x[0] + c * kV2Vec, w);
    for (int i = 0; i < 8; ++i)
      amax0 = maxNum(amax0, absf(w[i]));
  }
  amax0 = teamMax(amax0, lanes);
  if (two)
    amax1 = teamMax(amax1, lanes);
  const float global = p.scaleType == FP8Q_SCALE_F8E4M3FN ? *p.global : 1.0f;
  const bool pow2 = quantV2Pow2(p.rounding);
#pragma unroll
  for (int j = 0; j < 2; ++j) {
    if (!active[j])
      continue;
    const float sc =
        fp8q_group_scale(j ? amax1 : amax0, p.qType, p.rounding, global);
    const float divisor = p.scaleType == FP8Q_SCALE_F8E4M3FN ? sc * global : sc;
    // The fma-corrected quotient needs a finite divisor (amax inf gives an
    // infinite exact scale); a zero divisor quantizes x * 0.
    const bool hw = divisor != 0.0f && divisor <= 3.40282347e38f;
    const bool corrected =
        Q16 && quantV2QuotientOf<QT>(p) == kQuotCorrected && hw &&
        correctedQuotientOk(divisor, j ? amax1 : amax0);
    const float rcp = (pow2 || corrected) ? 1.0f / divisor : 0.0f;
    const int64_t e0 = gc[j].g * p.group;
    if (two) {
      if (sub < chunks)
        storeCodesV2<QT, Q16>(p, gc[j].m, e0 + sub * kV2Vec, v[j], divisor, rcp,
                              pow2, hw, corrected);
    } else {
#pragma unroll
      for (int s = 0; s < 2; ++s) {
        const int64_t c = sub + s * lanes;
        if (c < chunks)
          storeCodesV2<QT, Q16>(p, gc[0].m, e0 + c * kV2Vec, v[s], divisor, rcp,
                                pow2, hw, corrected);
      }
      for (int64_t c = sub + 2 * lanes; c < chunks; c += lanes) {
        float w[8];
        load8(x[0] + c * kV2Vec, w);
        storeCodesV2<QT, Q16>(p, gc[0].m, e0 + c * kV2Vec, w, divisor, rcp,
                              pow2, hw, corrected);
      }
    }
    if (sub == 0)
      storeScaleV2(p, gc[j].m, gc[j].g, sc);
  }
}

/// The quantizing blocks of the raw-word path (16-bit x, group = 16 *
/// lanes): a team's two groups stay in their 16-bit words, lane `sub`
/// holding chunks sub and sub + lanes of each (four 16-byte loads issued
/// before any arithmetic: the bytes in flight the bandwidth needs, at half
/// the registers of fp32 values). The amax is a packed 16-bit integer max
/// (amaxBits16: |x| orders like its bits, NaN skipped as maxNum does); each
/// chunk is widened to fp32 only to be encoded, by storeCodesV2 as in the
/// fp32-value path, so the bytes are the same.

/// (m, g) of position `i` of the walk over a padded scale
/// (scaleWalkCoord), its scale byte in `byte`; 32-bit index math where the
/// allocation fits.
template <bool Pack4>
__device__ FP8Q_V2_INLINE GroupCoordT<int64_t>
storageCoordV2(const QuantV2Args &p, int64_t i, int64_t &byte) {
  // swizzle_32_4_4 and cdna4_mx take storage order directly; pack4's band
  // walk is its own instantiation, so its index math does not shape the
  // other layouts' code (with it in one instantiation, MXFP8 E5M2 and
  // MXFP4 swizzled writes lost 10-13% on the H100, bench/RESULTS.md).
  if (p.padM * p.padG <= INT32_MAX) {
    uint32_t m, g;
    if constexpr (Pack4)
      byte = scaleWalkCoord<uint32_t>(p.layout, (uint32_t)p.padM,
                                      (uint32_t)p.padG, (uint32_t)i, m, g);
    else {
      byte = i;
      scaleByteCoord<uint32_t>(p.layout, (uint32_t)p.padM, (uint32_t)p.padG,
                               (uint32_t)i, m, g);
    }
    return GroupCoordT<int64_t>{(int64_t)m, (int64_t)g};
  }
  int64_t m, g;
  if constexpr (Pack4)
    byte = scaleWalkCoord<int64_t>(p.layout, p.padM, p.padG, i, m, g);
  else {
    byte = i;
    scaleByteCoord<int64_t>(p.layout, p.padM, p.padG, i, m, g);
  }
  return GroupCoordT<int64_t>{m, g};
}

/// One team's two groups of the raw-word path, loaded: their coordinates,
/// the scale byte of walk position gid0 (storage walk), and the lane's
/// four 16-byte chunks.
struct WordsTileV2 {
  GroupCoordT<int64_t> gc[2];
  int64_t byte0;
  bool active[2];
  Bytes16 w[2][2];
};

/// Issues the loads of the team's groups at walk positions gid0, gid0 + 1.
template <class T, bool Storage, bool Pack4>
__device__ FP8Q_V2_INLINE WordsTileV2 loadWordsTileV2(const QuantV2Args &p,
                                                      int64_t gid0, int sub) {
  // A padded scale is walked position by position (scaleWalkCoord: storage
  // order, pack4 in bands of rows), so consecutive teams write consecutive
  // bytes and the padding bytes are this launch's groups past [M, G],
  // written 0.
  const int64_t total = Storage ? p.padM * p.padG : p.M * p.G;
  WordsTileV2 t;
  t.byte0 = 0;
#pragma unroll
  for (int j = 0; j < 2; ++j) {
    const bool inside = gid0 + j < total;
    if constexpr (Storage) {
      // gid0 is even and the allocation's size a multiple of 4, so gid0 + 1
      // is the next byte of gid0's word: one index decode for both.
      if (j == 0) {
        int64_t byte;
        t.gc[0] = storageCoordV2<Pack4>(p, inside ? gid0 : 0, byte);
        t.byte0 = byte;
      } else {
        scaleWalkPairSecond<int64_t>(p.layout, t.gc[0].m, t.gc[0].g,
                                     t.gc[1].m, t.gc[1].g);
      }
      t.active[j] = inside && t.gc[j].m < p.M && t.gc[j].g < p.G;
    } else {
      t.active[j] = inside;
      t.gc[j] = quantV2Coord(p, inside ? gid0 + j : 0);
    }
    const T *x = static_cast<const T *>(p.x) + t.gc[j].m * p.ldx +
                 t.gc[j].g * p.group + sub * kV2Vec;
#pragma unroll
    for (int s = 0; s < 2; ++s)
      t.w[j][s] = t.active[j] ? loadOnce16(x + s * p.lanes * kV2Vec)
                              : Bytes16{{0, 0, 0, 0}};
  }
  return t;
}

/// Quantizes a loaded tile (loadWordsTileV2 at gid0) and writes its codes
/// and scales.
template <class T, int QT, int Quot, bool Storage>
__device__ FP8Q_V2_INLINE void quantizeWordsTileV2(const QuantV2Args &p,
                                                   const WordsTileV2 &t,
                                                   int64_t gid0, int sub) {
  const int lanes = p.lanes;
  const int64_t total = Storage ? p.padM * p.padG : p.M * p.G;
  const GroupCoordT<int64_t> *gc = t.gc;
  const bool *active = t.active;
  const Bytes16(&w)[2][2] = t.w;
  const int64_t byte0 = t.byte0;
  uint32_t amax = 0;
  bool laneNaN[2];
#pragma unroll
  for (int j = 0; j < 2; ++j)
    amax |=
        amaxBits16<T>(reinterpret_cast<const uint32_t (&)[8]>(w[j]), laneNaN[j])
        << (16 * j);
  amax = teamMaxU16x2(amax, lanes);
  const float global = p.scaleType == FP8Q_SCALE_F8E4M3FN ? *p.global : 1.0f;
  constexpr bool pow2 = Quot == kQuotPow2;
  constexpr bool kQ16 = true;
  uint8_t scaleByte[2] = {0, 0};
#pragma unroll
  for (int j = 0; j < 2; ++j) {
    if (!active[j])
      continue;
    const float a = toFloat(T{(uint16_t)(amax >> (16 * j))});
    const float sc = fp8q_group_scale(a, QT, p.rounding, global);
    const float divisor = p.scaleType == FP8Q_SCALE_F8E4M3FN ? sc * global : sc;
    const bool hw = divisor != 0.0f && divisor <= 3.40282347e38f;
    const bool corrected =
        Quot == kQuotCorrected && hw && correctedQuotientOk(divisor, a);
    const float rcp = (pow2 || corrected) ? 1.0f / divisor : 0.0f;
    const int64_t e0 = gc[j].g * p.group;
    // The lane's 16 elements of group j are finite (no NaN among them, the
    // group's amax, which skips NaN, finite) and the divisor is not NaN: no
    // quotient is NaN.
    const bool noNaN = !laneNaN[j] &&
                       ((amax >> (16 * j)) & 0xffffu) < infBits16(T{}) &&
                       divisor == divisor;
    // MXFP4 (a power-of-two divisor) where the target has packed 16-bit
    // arithmetic: two codes per instruction on the raw words
    // (E2M1Packed.h), the same codes as the fp32 path for every non-NaN x
    // at the divisors e2m1PackedRcpOk admits.
    constexpr bool kPackable =
        QT == FP8Q_Q_F4E2M1FN && pow2 && e2m1PackedNative(T{});
    bool packed = false;
    uint32_t rcp2 = 0;
    if constexpr (kPackable) {
      packed = noNaN && hw && e2m1PackedRcpOk(rcp, T{});
      rcp2 = e2m1PackedRcp(rcp, T{});
    }
#pragma unroll
    for (int s = 0; s < 2; ++s) {
      const int64_t e = e0 + (sub + s * lanes) * kV2Vec;
      if constexpr (kPackable) {
        if (packed) {
          *reinterpret_cast<uint32_t *>(p.q + gc[j].m * p.ldq + e / 2) =
              e2m1Pack8<T>(w[j][s].w, rcp2);
          continue;
        }
      }
#if FP8Q_V2_FN_RAW && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
      // E4M3FN with a corrected quotient: the 1x128 kernel's encode8Raw on
      // the raw words (fma-corrected quotient, hardware conversion, x's
      // sign byte put back), exact for |x| <= amax finite (checked for
      // every bf16 and f16 (x, amax) pair of the 1x128 format by
      // bench/encode_exhaustive_h200.cu; the quotient itself for every
      // divisor by bench/encode_exhaustive_cpu.cpp); it skips the sign fix
      // per element and the NaN-code test of hwCodes8.
      if constexpr (QT == FP8Q_Q_F8E4M3FN && Quot == kQuotCorrected) {
        if (noNaN && corrected) {
          storeOnce8(p.q + gc[j].m * p.ldq + e,
                     encode8Raw<T>(w[j][s].w, divisor, rcp, Fp8::E4M3FN, true));
          continue;
        }
      }
#endif
      float v[8];
#pragma unroll
      for (int i = 0; i < 8; ++i)
        v[i] = toFloat(T{(uint16_t)(w[j][s].w[i / 2] >> (16 * (i % 2)))});
      storeCodesV2<QT, kQ16>(p, gc[j].m, e, v, divisor, rcp, pow2, hw,
                             corrected, noNaN);
    }
    if constexpr (Storage)
      scaleByte[j] = fp8q_scale_encode_byte(sc, p.scaleType);
    else if (sub == (j & (lanes - 1)))
      storeScaleV2(p, gc[j].m, gc[j].g, sc);
  }
  if constexpr (Storage) {
    if (sub != 0 || gid0 >= total)
      return;
    // Both bytes in one 16-bit store where the pair is whole and aligned.
    // Walk positions gid0 and gid0 + 1 are adjacent bytes of one word.
    uint8_t *s = static_cast<uint8_t *>(p.scale) + byte0;
    if (gid0 + 1 < total && (reinterpret_cast<uintptr_t>(s) & 1) == 0) {
      *reinterpret_cast<uint16_t *>(s) =
          (uint16_t)(scaleByte[0] | (scaleByte[1] << 8));
    } else {
      s[0] = scaleByte[0];
      if (gid0 + 1 < total)
        s[1] = scaleByte[1];
    }
  }
}

/// The raw-word path's quantizing blocks: a team's two groups at walk
/// positions 2 * slot and 2 * slot + 1, loaded, then quantized.
template <class T, int QT, int Quot, bool Storage, bool Pack4>
__device__ FP8Q_V2_INLINE void quantizeV2Words(const QuantV2Args &p) {
  const int tid = threadId();
  const int lanes = p.lanes;
  const int sub = tid & (lanes - 1);
  const int64_t gid0 = (blockIdX() * (kV2Block / lanes) + tid / lanes) * 2;
  quantizeWordsTileV2<T, QT, Quot, Storage>(
      p, loadWordsTileV2<T, Storage, Pack4>(p, gid0, sub), gid0, sub);
}

/// The padding blocks: a thread per 16-byte chunk of the allocation (1-byte
/// scales; only padded layouts have padding of their own) zeroes the
/// chunk's padding bytes (scalePaddingMask), in one 16-byte store where the
/// chunk is all padding and aligned, else byte by byte; the chunk's other
/// bytes are the quantizing blocks'. At small M nearly all of a swizzled
/// scale is padding (cdna4_mx pads M = 1 to 256 rows).
__device__ FP8Q_V2_INLINE void zeroPaddingV2(const QuantV2Args &p) {
  const int64_t c =
      (blockIdX() - p.quantBlocks) * (int64_t)kV2Block + threadId();
  if (c * kPadChunkBytes >= p.padM * p.padG)
    return;
  const uint32_t mask =
      p.padM * p.padG <= UINT32_MAX
          ? scalePaddingMask<uint32_t>(p.layout, (uint32_t)p.M, (uint32_t)p.G,
                                       (uint32_t)p.padM, (uint32_t)p.padG,
                                       (uint32_t)c)
          : scalePaddingMask<int64_t>(p.layout, p.M, p.G, p.padM, p.padG, c);
  uint8_t *s = static_cast<uint8_t *>(p.scale) + c * kPadChunkBytes;
  if (mask == 0xffffu && (reinterpret_cast<uintptr_t>(s) & 15) == 0) {
    *reinterpret_cast<Bytes16 *>(s) = Bytes16{{0, 0, 0, 0}};
    return;
  }
  for (int k = 0; k < kPadChunkBytes; ++k)
    if (mask >> k & 1)
      s[k] = 0;
}

template <class T>
__device__ FP8Q_V2_INLINE void quantizeV2Body(const QuantV2Args &p) {
  if (blockIdX() >= p.quantBlocks) {
    zeroPaddingV2(p);
    return;
  }
  switch (p.qType) {
  case FP8Q_Q_F8E4M3FNUZ:
    quantizeV2Groups<T, FP8Q_Q_F8E4M3FNUZ>(p);
    return;
  case FP8Q_Q_F8E5M2:
    quantizeV2Groups<T, FP8Q_Q_F8E5M2>(p);
    return;
  case FP8Q_Q_F4E2M1FN:
    quantizeV2Groups<T, FP8Q_Q_F4E2M1FN>(p);
    return;
  default:
    quantizeV2Groups<T, FP8Q_Q_F8E4M3FN>(p);
  }
}

/// quantizeV2Words with the launch's walk: storage order for a padded
/// scale (Padded; pack4's band walk its own instantiation), the strided
/// walk otherwise.
template <class T, int QT, int Quot, bool Padded>
__device__ FP8Q_V2_INLINE void quantizeV2WordsWalk(const QuantV2Args &p) {
  if constexpr (Padded) {
    if (p.layout == FP8Q_LAYOUT_COL_MAJOR_PACK4)
      quantizeV2Words<T, QT, Quot, true, true>(p);
    else
      quantizeV2Words<T, QT, Quot, true, false>(p);
  } else {
    quantizeV2Words<T, QT, Quot, false, false>(p);
  }
}

/// The raw-word kernels' body (16-bit x, p.words set by the launcher):
/// quantizeV2Words with the launch's quotient kind. One kernel per element
/// type and scale kind (strided, or padded walked in storage order:
/// Padded), each with its own register allocation and schedule. Per element
/// type, the split made the FP8 1x128 exact launch 7% faster on the H200;
/// with both walks in one kernel, a change to one walk's code moved the
/// other's time by 10-15% on the H100 (bench/RESULTS.md, session 17). The
/// storage walk writes the padding itself, so these launches have no
/// padding blocks.
template <class T, int QT, bool Padded>
__device__ FP8Q_V2_INLINE void quantizeV2WordsBody(const QuantV2Args &p) {
  const int quot = quantV2QuotientOf<QT>(p);
  if (quot == kQuotPow2)
    quantizeV2WordsWalk<T, QT, kQuotPow2, Padded>(p);
  else if (quot == kQuotCorrected &&
           (QT == FP8Q_Q_F8E4M3FN || QT == FP8Q_Q_F4E2M1FN ||
            FP8Q_V2_CORRECTED_QUOTIENT >= 2))
    quantizeV2WordsWalk<T, QT, kQuotCorrected, Padded>(p);
#if FP8Q_V2_CORRECTED_QUOTIENT < 2
  else
    quantizeV2WordsWalk<T, QT, kQuotDivide, Padded>(p);
#endif
}

} // namespace

/// fp8q_kernel_quantize_v2_words_<x>_<q> (strided scales) and
/// fp8q_kernel_quantize_v2_words_padded_<x>_<q> (padded scales): x in
/// {bf16, f16}, q the element type (the launcher's
/// quantizeV2WordsKernel(x, qType, padded)).
#define FP8Q_V2_WORDS_KERNEL(xname, T, qname, QT)                              \
  extern "C" __global__                                                        \
  FP8Q_LAUNCH_BOUNDS(kV2Block, FP8Q_V2_QUANT_WORDS_MIN_BLOCKS) void            \
      fp8q_kernel_quantize_v2_words_##xname##_##qname(QuantV2Args p) {         \
    gridPrologue();                                                            \
    quantizeV2WordsBody<T, QT, false>(p);                                      \
  }                                                                            \
  extern "C" __global__                                                        \
  FP8Q_LAUNCH_BOUNDS(kV2Block, FP8Q_V2_QUANT_WORDS_MIN_BLOCKS) void            \
      fp8q_kernel_quantize_v2_words_padded_##xname##_##qname(QuantV2Args p) { \
    gridPrologue();                                                            \
    quantizeV2WordsBody<T, QT, true>(p);                                       \
  }
FP8Q_V2_WORDS_KERNEL(bf16, Bf16, e4m3fn, FP8Q_Q_F8E4M3FN)
FP8Q_V2_WORDS_KERNEL(bf16, Bf16, e4m3fnuz, FP8Q_Q_F8E4M3FNUZ)
FP8Q_V2_WORDS_KERNEL(bf16, Bf16, e5m2, FP8Q_Q_F8E5M2)
FP8Q_V2_WORDS_KERNEL(bf16, Bf16, e2m1, FP8Q_Q_F4E2M1FN)
FP8Q_V2_WORDS_KERNEL(f16, F16, e4m3fn, FP8Q_Q_F8E4M3FN)
FP8Q_V2_WORDS_KERNEL(f16, F16, e4m3fnuz, FP8Q_Q_F8E4M3FNUZ)
FP8Q_V2_WORDS_KERNEL(f16, F16, e5m2, FP8Q_Q_F8E5M2)
FP8Q_V2_WORDS_KERNEL(f16, F16, e2m1, FP8Q_Q_F4E2M1FN)
#undef FP8Q_V2_WORDS_KERNEL

extern "C" __global__ FP8Q_LAUNCH_BOUNDS(
    kV2Block,
    FP8Q_V2_QUANT_MIN_BLOCKS) void fp8q_kernel_quantize_v2_bf16(QuantV2Args p) {
  gridPrologue();
  quantizeV2Body<Bf16>(p);
}
extern "C" __global__ FP8Q_LAUNCH_BOUNDS(
    kV2Block,
    FP8Q_V2_QUANT_MIN_BLOCKS) void fp8q_kernel_quantize_v2_f16(QuantV2Args p) {
  gridPrologue();
  quantizeV2Body<F16>(p);
}
extern "C" __global__ FP8Q_LAUNCH_BOUNDS(
    kV2Block,
    FP8Q_V2_QUANT_MIN_BLOCKS) void fp8q_kernel_quantize_v2_f32(QuantV2Args p) {
  gridPrologue();
  quantizeV2Body<float>(p);
}
