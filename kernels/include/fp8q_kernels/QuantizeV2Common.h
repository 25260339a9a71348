//===- QuantizeV2Common.h - The v2 kernels' arguments and numerics -*- C++ -*-//
//
// Argument structs of fp8q_kernel_quantize_v2_* and
// fp8q_kernel_materialize_v2 (filled by lib/Runtime/Gpu/GpuOpsV2.cpp), the
// team geometry the launcher and the kernel agree on, and the one-value
// quantization of SPEC v2 with the CPU runtime's results on every GPU:
// fp8q_mx_numerics.h's fp8q_q_quantize, plus the reciprocal fast path of
// power-of-two scales and the x86 NaN rules the CPU runtime has.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_KERNELS_QUANTIZEV2COMMON_H
#define FP8Q_KERNELS_QUANTIZEV2COMMON_H

#include "fp8q_kernels/Portability.h"

#include "fp8q/Runtime/fp8q_mx_numerics.h"

/// Forced inlining of the kernels' bodies: an outlined body would take the
/// by-value argument struct by address, which puts it in scratch on AMDGPU.
#define FP8Q_V2_INLINE __attribute__((always_inline)) inline

namespace fp8q::kern {

/// Threads per block of both v2 kernels.
constexpr int kV2Block = 256;
/// Elements a lane loads at once (16 bytes of bf16 / f16, 32 of f32).
constexpr int kV2Vec = 8;
/// Lanes of a team (one group) at most: a 1x128 group is 16 lanes.
constexpr int kV2MaxLanes = 16;
/// 32-bit scale words a materialize thread writes (16 bytes).
constexpr int kV2WordsPerThread = 4;

/// fp8q_kernel_quantize_v2_{bf16,f16,f32}. Blocks [0, quantBlocks)
/// quantize: a team of `lanes` lanes per group, `groupsPerTeam` consecutive
/// groups per team; the remaining blocks write the padding of a padded
/// scale layout as 0.
struct QuantV2Args {
  const void *x;       ///< [M, K] of T, row stride ldx, unit column stride
  uint8_t *q;          ///< [M, K] (fp8) or [M, K / 2] (fp4) bytes, stride ldq
  void *scale;         ///< f32 or 1-byte scales, see `padded`
  const float *global; ///< NVFP4 global scale (device), else null
  int64_t M, K, G, group, ldx, ldq;
  int64_t s0, s1;     ///< strided layouts: the descriptor's strides
  int64_t align;      ///< the layout's align (col_major, pack4)
  int64_t padM, padG; ///< padded domain (scalePaddedDomain)
  int64_t quantBlocks;
  int32_t qType, scaleType, rounding, layout;
  int32_t padded;        ///< the layout is pack4, swizzle or cdna4_mx
  int32_t lanes;         ///< team size: a power of two <= kV2MaxLanes
  int32_t groupsPerTeam; ///< 1 or 2
  int32_t words;         ///< the raw-word path (quantV2WordLanes)
  int32_t mFastest;      ///< walk groups m-fastest (chunks of rows)
};

/// fp8q_kernel_materialize_v2: dst[m, g] = src[m, g] as element bytes.
/// A padded dst is walked by 32-bit words of its allocation (padding
/// written 0), a strided one by element runs along its unit-stride
/// dimension.
struct MaterializeV2Args {
  const void *src;
  void *dst;
  int64_t M, G;
  int64_t ss0, ss1, ds0, ds1; ///< strided descriptors' strides
  int64_t srcAlign, dstAlign;
  int64_t dstPadM, dstPadG; ///< dst's padded domain
  int64_t units;            ///< work items (threads) of the launch
  int32_t srcLayout, dstLayout, srcPadded, dstPadded;
  int32_t elt;    ///< 4 (f32) or 1
  int32_t dstVec; ///< 16, 4 or 1: dst base alignment in bytes (padded)
};

/// Team size for a group of `group` elements (a multiple of kV2Vec): the
/// largest power of two <= min(group / kV2Vec, kV2MaxLanes).
FP8Q_HOSTDEV inline int quantV2Lanes(int64_t group) {
  const int64_t chunks = group / kV2Vec;
  int lanes = 1;
  while (lanes * 2 <= kV2MaxLanes && lanes * 2 <= chunks)
    lanes *= 2;
  return lanes;
}

/// Consecutive groups per team: two when a group is exactly one chunk per
/// lane (group = 8 * lanes: 16, 32, 64, 128), so every lane keeps 16
/// values of two groups in flight; one otherwise (a lane holds up to two
/// chunks of its group and reloads the rest).
FP8Q_HOSTDEV inline int quantV2GroupsPerTeam(int64_t group) {
  return group == (int64_t)kV2Vec * quantV2Lanes(group) ? 2 : 1;
}

/// Team size of the raw-word path for `eltBytes`-byte inputs: group / 16
/// (two 16-byte chunks of each of two groups per lane, as the FP8 1x128
/// kernel holds them) for 16-bit inputs and groups of 16 .. 256 elements
/// in steps of 16 with a power-of-two quotient; 0 when the fp32-value path
/// (quantV2Lanes, quantV2GroupsPerTeam) applies.
FP8Q_HOSTDEV inline int quantV2WordLanes(int64_t group, int eltBytes) {
  if (eltBytes != 2 || group < 16 || group % 16 != 0)
    return 0;
  const int64_t lanes = group / 16;
  return lanes <= kV2MaxLanes && (lanes & (lanes - 1)) == 0 ? (int)lanes : 0;
}

/// True when `rounding` makes every scale a power of two in [2^-127,
/// 2^127], so 1 / scale is exact and x * (1 / scale) is x / scale (both are
/// the correctly rounded value of the same real number).
FP8Q_HOSTDEV inline bool quantV2Pow2(int rounding) {
  return rounding == FP8Q_ROUND_POW2_CEIL || rounding == FP8Q_ROUND_POW2_FLOOR;
}

/// fp8q_q_quantize(x, divisor, QT) of the CPU runtime (x86) on any target:
/// the quotient x / divisor (x * rcp when `pow2`, the same value), x * 0
/// for a zero divisor; then the x86 NaN rules, which the encoders see
/// through the NaN's sign: a NaN x propagates with its sign (GPUs return a
/// positive canonical NaN), and a NaN made from non-NaN operands (inf / inf
/// under an infinite exact scale, inf * 0) is x86's default NaN, which is
/// negative.
template <int QT>
FP8Q_HOSTDEV inline uint8_t quantizeV2Value(float x, float divisor, float rcp,
                                            bool pow2) {
  float v;
  if ((floatBits(x) & 0x7fffffffu) > 0x7f800000u) {
    v = x;
  } else {
    v = divisor == 0.0f ? x * 0.0f : (pow2 ? x * rcp : x / divisor);
    if (v != v)
      v = bitsFloat(0xffc00000u);
  }
  return fp8q_q_encode(v, QT);
}

/// fp8q_e2m1_encode(x) without branches: RNE to f4E2M1FN as seven
/// comparisons of |x| with the midpoints of its values (0, 0.5, 1, 1.5, 2,
/// 3, 4, 6), a tie going to the even code (the midpoints are exact in
/// fp32, so the comparisons are exact); above 5 (infinity too) saturates
/// to 6; -0 keeps its sign; NaN is 0x7 of either sign, as the reference
/// has it. bench/encode_exhaustive_h200.cu checks it against
/// fp8q_e2m1_encode for all 2^32 fp32 bits.
FP8Q_HOSTDEV inline uint32_t encodeE2M1Branchless(float x) {
  const uint32_t bits = floatBits(x), mag = bits & 0x7fffffffu;
  const float a = bitsFloat(mag);
  const uint32_t c = (uint32_t)(a > 0.25f) + (uint32_t)(a >= 0.75f) +
                     (uint32_t)(a > 1.25f) + (uint32_t)(a >= 1.75f) +
                     (uint32_t)(a > 2.5f) + (uint32_t)(a >= 3.5f) +
                     (uint32_t)(a > 5.0f);
  return mag > 0x7f800000u ? 0x7u : (c | ((bits >> 28) & 0x8u));
}

/// Issue 18's encoder switches (each 0 restores the earlier path, for A/B
/// runs through FP8Q_NVCC_FLAGS): E2M1 by a magic-number add instead of
/// seven comparisons; E4M3FNUZ on sm_89+ through the E4M3FN hardware
/// conversion of 2y; E4M3FN 1x128 groups without NaN through encode8Raw.
#ifndef FP8Q_V2_E2M1_MAGIC
#define FP8Q_V2_E2M1_MAGIC 1
#endif
#ifndef FP8Q_V2_FNUZ_HW
#define FP8Q_V2_FNUZ_HW 1
#endif
#ifndef FP8Q_V2_FN_RAW
#define FP8Q_V2_FN_RAW 1
#endif

/// The E2M1 magnitude code of cm, the bits of a value a in [0, 6], RNE:
/// the grid has spacing 0.5 below 2, 1 in [2, 4) and 2 in [4, 6], so the
/// binade b = clamp(exponent(a), 0, 2) (from a's exponent field: at most
/// 129, the exponent of 6) picks the magic M = 2^(22 + b), whose ulp is
/// the spacing; the FPU rounds a + M to nearest even (a < M, and the
/// parity of the integer round(a / spacing) is the parity of the code,
/// whose offset 2b is even), and bits(a + M) - bits(M) + 2b is the code. A
/// value rounding up to the next binade's first value (1.75 -> 2, 3.5 ->
/// 4) gives that code, which is right.
FP8Q_HOSTDEV inline uint32_t e2m1MagicMag(uint32_t cm) {
  const uint32_t e0 = cm >> 23, e = e0 > 127u ? e0 : 127u; // 127 + b
  const uint32_t magic = (e + 22u) << 23;                  // bits of 2^(22+b)
  return floatBits(bitsFloat(cm) + bitsFloat(magic)) - magic + 2u * (e - 127u);
}

/// min(|x|, 6) as bits, by an integer min: non-negative floats order like
/// their bits, and every NaN magnitude is above 6's (so a NaN gives 6 on
/// every target, with no fminf canonicalization).
FP8Q_HOSTDEV inline uint32_t e2m1ClampBits(uint32_t bits) {
  const uint32_t mag = bits & 0x7fffffffu;
  return mag < 0x40c00000u ? mag : 0x40c00000u;
}

/// fp8q_e2m1_encode(x) for x not NaN (the group is known NaN-free): |x|
/// clamped to 6 (infinity too), e2m1MagicMag, x's sign (-0 keeps it).
FP8Q_HOSTDEV inline uint32_t encodeE2M1MagicNoNaN(float x) {
  const uint32_t bits = floatBits(x);
  return e2m1MagicMag(e2m1ClampBits(bits)) | ((bits >> 28) & 0x8u);
}

/// fp8q_e2m1_encode(x) for every x: encodeE2M1MagicNoNaN, except that a
/// NaN is 0x7 without its sign, as the reference has it.
FP8Q_HOSTDEV inline uint32_t encodeE2M1Magic(float x) {
  const uint32_t bits = floatBits(x);
  const uint32_t c = e2m1MagicMag(e2m1ClampBits(bits));
  return (bits & 0x7fffffffu) > 0x7f800000u ? 0x7u
                                            : (c | ((bits >> 28) & 0x8u));
}

/// The element encoder of the E2M1 kernels (FP8Q_V2_E2M1_MAGIC picks it).
/// `NoNaN`: x is known not NaN.
template <bool NoNaN = false> FP8Q_HOSTDEV inline uint32_t encodeE2M1(float x) {
#if FP8Q_V2_E2M1_MAGIC
  return NoNaN ? encodeE2M1MagicNoNaN(x) : encodeE2M1Magic(x);
#else
  return encodeE2M1Branchless(x);
#endif
}

/// Issue 18's switch for the fma-corrected quotient beyond the FP8 1x128
/// format (E4M3FN, exact f32 scale, group 128), which always takes it: 1
/// adds NVFP4 (E2M1, e4m3 scale times the global), 2 every non-power-of-two
/// scale (E5M2 / E4M3FNUZ / E2M1 exact too), 0 none. 1 is the default: on
/// the H200 NVFP4 gains 7%, while with one raw-word kernel per element type
/// 2 makes E4M3FNUZ 5% and E5M2 1x64 2% slower than the division, and the
/// E4M3FN kernel's pow2 paths 5-17% slower (bench/RESULTS.md, issue 18).
#ifndef FP8Q_V2_CORRECTED_QUOTIENT
#define FP8Q_V2_CORRECTED_QUOTIENT 1
#endif

/// The divisors the corrected quotient is taken for: 1 / divisor and every
/// quotient that can round to a nonzero code (>= 2^-18, E5M2's smallest
/// midpoint being 2^-17) stay normal, and so does the remainder of such a
/// quotient (x >= 2^-82), which keeps the fma remainder exact. Exact scales
/// are always inside (amax >= 1e-10, so divisor >= 2^-49); an e4m3 scale
/// times an extreme global may not be, and divides.
constexpr float kCorrectedDivisorMin = 0x1p-64f;
constexpr float kCorrectedDivisorMax = 0x1p120f;
/// The largest quotient amax / divisor taken: an overflowing quotient
/// (inf through the division) would be NaN through the fma. Exact scales
/// give qmax; an e4m3 scale saturated at 448 may give more, and divides.
constexpr float kCorrectedQuotientMax = 0x1p64f;

/// True when the corrected quotient is exact for every element of a group
/// with this divisor and amax (an infinite amax never: inf / d would be
/// NaN; NaN elements give NaN either way, the amax skips them).
FP8Q_HOSTDEV inline bool correctedQuotientOk(float divisor, float amax) {
  return divisor >= kCorrectedDivisorMin && divisor <= kCorrectedDivisorMax &&
         amax <= divisor * kCorrectedQuotientMax && amax <= 3.40282347e38f;
}

/// fl(x / divisor) for 16-bit x (every bf16 and f16 value widened to fp32)
/// from rcp = RN(1 / divisor), without a division: the remainder
/// x - y0 * divisor is exact in an fma and one correction step rounds
/// correctly (Markstein). Equal to the division for every pair of a bf16 or
/// f16 significand and an fp32 divisor significand, both exponent orders
/// (bench/encode_exhaustive_cpu.cpp, `corrected_quotient_*`), hence for
/// every |x| <= amax and divisor with correctedQuotientOk (a quotient below
/// 2^-18 may be off by an ulp, which no code sees: it rounds to zero). A
/// zero result keeps x's sign (the correction turns -0 into +0; the
/// quotient's sign is x's for a positive divisor).
FP8Q_HOSTDEV inline float correctedQuotient(float x, float divisor, float rcp) {
  const float y0 = mulRn(x, rcp);
  const float y = fmaRn(fmaRn(-y0, divisor, x), rcp, y0);
  return bitsFloat(floatBits(y) | (floatBits(x) & 0x80000000u));
}

/// x / divisor as the v2 kernels form it: x * 0 for a zero divisor, x * rcp
/// for power-of-two divisors, correctedQuotient when `corrected` (16-bit x,
/// rcp set, correctedQuotientOk), else the division; NaN quotients keep
/// whatever sign the target gives them, so only encoders that ignore the
/// NaN sign (E2M1, E4M3FNUZ) may take it unchanged.
FP8Q_HOSTDEV inline float quotientV2(float x, float divisor, float rcp,
                                     bool pow2, bool corrected = false) {
  if (divisor == 0.0f)
    return x * 0.0f;
  if (pow2)
    return x * rcp;
  return corrected ? correctedQuotient(x, divisor, rcp) : x / divisor;
}

/// The fp4 code of x / divisor as quantizeV2Value<FP8Q_Q_F4E2M1FN> gives
/// it: every NaN is 0x7 whatever its sign, so the x86 NaN rules do not
/// matter here. `NoNaN`: no quotient is NaN (x finite, divisor not NaN).
template <bool NoNaN = false>
FP8Q_HOSTDEV inline uint32_t quantizeE2M1(float x, float divisor, float rcp,
                                          bool pow2, bool corrected = false) {
  return encodeE2M1<NoNaN>(quotientV2(x, divisor, rcp, pow2, corrected));
}

/// Two fp32 -> E4M3FN bytes (lo in the low byte) as the sm_89+ hardware
/// conversion gives them (cvt.rn.satfinite.e4m3x2.f32: RNE, saturating to
/// +-448, every NaN 0x7f); elsewhere its model, fp8q_fp8_encode with NaN
/// as 0x7f, so that the CPU checks run the fix-ups below on the same codes
/// (bench/encode_exhaustive_h200.cu checks the model against the hardware
/// for all 2^32 inputs).
FP8Q_HOSTDEV inline uint32_t fnCodesPair(float lo, float hi) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  unsigned short r;
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(r) : "f"(hi), "f"(lo));
  return r;
#else
  auto one = [](float f) -> uint32_t {
    return (floatBits(f) & 0x7fffffffu) > 0x7f800000u
               ? 0x7fu
               : fp8q_fp8_encode(f, FP8Q_F8E4M3FN);
  };
  return one(lo) | (one(hi) << 8);
#endif
}

/// E4M3FNUZ byte from the E4M3FN code `fn` of 2y (one byte; fnuzFixWord
/// does four): FNUZ's value of code c is FN's value of c divided by 2 (bias
/// 8 against 7, subnormal quanta 2^-10 and 2^-9), and 2y is exact, so both
/// round alike, except: FN's -0 (0x80) is FNUZ +0; an FN NaN code (y NaN)
/// is FNUZ's NaN 0x80; |y| > 232 (the midpoint of 224 and 240; infinity
/// too) is FNUZ's 0x7f, which FN has as NaN, so its conversion saturates
/// to 0x7e there (`sat`).
FP8Q_HOSTDEV inline uint32_t fnuzFromFn(uint32_t fn, bool sat) {
  if ((fn & 0x7fu) == 0x7fu)
    return 0x80u;
  if ((fn & 0x7fu) == 0)
    return 0;
  return fn | (uint32_t)sat;
}

/// fnuzFromFn on the four bytes of `w` at once; `sat` holds 0x01 in the
/// bytes with |y| > 232 (never NaN bytes).
FP8Q_HOSTDEV inline uint32_t fnuzFixWord(uint32_t w, uint32_t sat) {
  const uint32_t m = w & 0x7f7f7f7fu;
  const uint32_t nz = (m + 0x7f7f7f7fu) & 0x80808080u;  // magnitude != 0
  const uint32_t nan = (m + 0x01010101u) & 0x80808080u; // magnitude 0x7f
  const uint32_t nanBytes = nan | (nan - (nan >> 7));   // 0xff per NaN byte
  return (w & (nz | 0x7f7f7f7fu) & ~nanBytes) | nan | sat;
}

/// The 8 E4M3FNUZ codes of y[0..7] (fp8q_fp8_encode(y, FNUZ) for every y,
/// NaN too) through the E4M3FN conversion of 2y.
FP8Q_HOSTDEV inline void fnuzCodes8(const float (&y)[8], uint32_t (&out)[2]) {
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    uint32_t w = 0, sat = 0;
#pragma unroll
    for (int k = 0; k < 4; k += 2) {
      const float a = y[4 * i + k], b = y[4 * i + k + 1];
      w |= fnCodesPair(2.0f * a, 2.0f * b) << (8 * k);
      sat |= ((uint32_t)(__builtin_fabsf(a) > 232.0f) |
              ((uint32_t)(__builtin_fabsf(b) > 232.0f) << 8))
             << (8 * k);
    }
    out[i] = fnuzFixWord(w, sat);
  }
}

/// The 8 E4M3FNUZ codes of x / divisor, quantizeV2Value<FP8Q_Q_F8E4M3FNUZ>
/// for every x and divisor: every NaN is 0x80, so the NaN sign rules do not
/// matter.
FP8Q_HOSTDEV inline void fnuzQuantize8(const float (&v)[8], float divisor,
                                       float rcp, bool pow2, uint32_t (&out)[2],
                                       bool corrected = false) {
  float y[8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
    y[i] = quotientV2(v[i], divisor, rcp, pow2, corrected);
  fnuzCodes8(y, out);
}

} // namespace fp8q::kern

#endif // FP8Q_KERNELS_QUANTIZEV2COMMON_H
