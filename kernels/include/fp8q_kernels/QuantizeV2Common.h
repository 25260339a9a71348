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
/// Padding elements zeroed per thread by the padding blocks.
constexpr int kV2PadPerThread = 16;
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

/// The fp4 code of x / divisor as quantizeV2Value<FP8Q_Q_F4E2M1FN> gives
/// it: every NaN is 0x7 whatever its sign, so the x86 NaN rules do not
/// matter here.
FP8Q_HOSTDEV inline uint32_t quantizeE2M1(float x, float divisor, float rcp,
                                          bool pow2) {
  return encodeE2M1Branchless(divisor == 0.0f ? x * 0.0f
                                              : (pow2 ? x * rcp : x / divisor));
}

} // namespace fp8q::kern

#endif // FP8Q_KERNELS_QUANTIZEV2COMMON_H
