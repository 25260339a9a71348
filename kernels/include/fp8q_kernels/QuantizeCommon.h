//===- QuantizeCommon.h - One quantization group on 8 lanes -----*- C++ -*-===//
//
// Shared by the quantize and the fused RMSNorm+quantize kernels.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_KERNELS_QUANTIZECOMMON_H
#define FP8Q_KERNELS_QUANTIZECOMMON_H

#include "fp8q_kernels/IndexMath.h"
#include "fp8q_kernels/Numerics.h"

#include "fp8q/Runtime/fp8q_mx_numerics.h"

namespace fp8q::kern {

/// Loads 8 consecutive elements of T (16 or 32 bytes, aligned) as fp32.
template <class T> FP8Q_HOSTDEV inline void load8(const T *p, float (&v)[8]) {
  if constexpr (sizeof(T) == 2) {
    Bytes16 b = *reinterpret_cast<const Bytes16 *>(p);
    for (int i = 0; i < 8; ++i) {
      T e;
      e.bits = (uint16_t)(b.w[i / 2] >> (16 * (i % 2)));
      v[i] = toFloat(e);
    }
  } else {
    Bytes16 b0 = reinterpret_cast<const Bytes16 *>(p)[0];
    Bytes16 b1 = reinterpret_cast<const Bytes16 *>(p)[1];
    for (int i = 0; i < 4; ++i) {
      v[i] = bitsFloat(b0.w[i]);
      v[i + 4] = bitsFloat(b1.w[i]);
    }
  }
}

/// Stores 8 fp32 values as T (rounded to nearest even).
template <class T> FP8Q_HOSTDEV inline void store8(T *p, const float (&v)[8]) {
  if constexpr (sizeof(T) == 2) {
    Bytes16 b;
    for (int i = 0; i < 4; ++i)
      b.w[i] = (uint32_t)store(v[2 * i], T{}).bits |
               ((uint32_t)store(v[2 * i + 1], T{}).bits << 16);
    *reinterpret_cast<Bytes16 *>(p) = b;
  } else {
    Bytes16 b0, b1;
    for (int i = 0; i < 4; ++i) {
      b0.w[i] = floatBits(v[i]);
      b1.w[i] = floatBits(v[i + 4]);
    }
    reinterpret_cast<Bytes16 *>(p)[0] = b0;
    reinterpret_cast<Bytes16 *>(p)[1] = b1;
  }
}

#if defined(__CUDACC__) && !defined(__HIP__)
/// Two fp32 -> E4M3FN bytes (lo in the low byte) with the hardware
/// conversion: round to nearest even, finite values and infinities saturate
/// to +-448: fp8q_fp8_encode for every non-NaN input (all 2^32 checked by
/// bench/encode_exhaustive_h200.cu). Any NaN becomes 0x7F, where
/// fp8q_fp8_encode keeps the sign (0xFF), so storeQ8 re-encodes NaN bytes in
/// software.
__device__ inline uint32_t cvtE4M3FNx2(float lo, float hi) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  unsigned short r;
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(r) : "f"(hi), "f"(lo));
  return r;
#else // no fp8 conversion before sm_89 (never taken by storeQ8)
  return fp8q_fp8_encode(lo, FP8Q_F8E4M3FN) |
         ((uint32_t)fp8q_fp8_encode(hi, FP8Q_F8E4M3FN) << 8);
#endif
}

/// Two fp32 -> f8E5M2 bytes (lo in the low byte) with the hardware
/// conversion: RNE, finite values and infinities saturate to +-57344 as
/// fp8q_e5m2_encode does; a NaN gives a NaN code without the reference's
/// sign rule (bench/encode_exhaustive_h200.cu checks all 2^32 inputs).
__device__ inline uint32_t cvtE5M2x2(float lo, float hi) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  unsigned short r;
  asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(r) : "f"(hi), "f"(lo));
  return r;
#else // no fp8 conversion before sm_89 (never taken)
  return fp8q_e5m2_encode(lo) | ((uint32_t)fp8q_e5m2_encode(hi) << 8);
#endif
}

/// fl(x / scale) from rcp = RN(1 / scale) without a division: the remainder
/// x - y0 * scale is exact in an fma and one correction step rounds
/// correctly (Markstein). Checked bit-exact against the division for every
/// pair of bf16 and of f16 (x, amax) by bench/encode_exhaustive_h200.cu,
/// which is why only 16-bit inputs take this path. The correction turns
/// -0 into +0, so the sign of x is put back (it is the quotient's sign for
/// every other x too).
__device__ inline float quotient(float x, float scale, float rcp) {
  const float y0 = __fmul_rn(x, rcp);
  const float y = __fmaf_rn(__fmaf_rn(-y0, scale, x), rcp, y0);
  return fp8q_bits_f32(fp8q_f32_bits(y) | (fp8q_f32_bits(x) & 0x80000000u));
}
#endif

/// Encodes 8 values x / scale (rcp = 1 / scale) and stores the 8 bytes.
/// `Hw16`: the values are bf16 or f16, so on sm_89+ the E4M3FN case may use
/// the hardware conversion (see quotient); every other case is the software
/// encode. bench/encode_exhaustive_h200.cu checks this function itself for
/// every bf16 and f16 (x, amax) pair.
template <bool Hw16 = false>
FP8Q_HOSTDEV inline void storeQ8(uint8_t *q, const float (&v)[8], float scale,
                                 float rcp, Fp8 t) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  // An infinite or NaN scale (amax inf / NaN) breaks the fma correction
  // (0 * inf); a NaN byte (x NaN, or x * rcp overflowing in a group whose
  // amax a NaN reset) may differ from the division in sign or saturation:
  // both go to the software encode, which is rare and keeps every byte
  // exact.
  if (Hw16 && t == Fp8::E4M3FN && scale <= 3.40282347e38f) {
    Bytes8 b;
    for (int i = 0; i < 2; ++i)
      b.w[i] = cvtE4M3FNx2(quotient(v[4 * i], scale, rcp),
                           quotient(v[4 * i + 1], scale, rcp)) |
               (cvtE4M3FNx2(quotient(v[4 * i + 2], scale, rcp),
                            quotient(v[4 * i + 3], scale, rcp))
                << 16);
    const uint32_t nanBytes = (((b.w[0] & 0x7f7f7f7fu) + 0x01010101u) |
                               ((b.w[1] & 0x7f7f7f7fu) + 0x01010101u)) &
                              0x80808080u;
    if (nanBytes == 0) {
      *reinterpret_cast<Bytes8 *>(q) = b;
      return;
    }
  }
#endif
  Bytes8 b = {{0, 0}};
  for (int i = 0; i < 8; ++i)
    b.w[i / 4] |= (uint32_t)quantizeValueFast(v[i], scale, rcp, t)
                  << (8 * (i % 4));
  *reinterpret_cast<Bytes8 *>(q) = b;
}

//===----------------------------------------------------------------------===//
// 16-bit inputs kept as loaded: element i of a 16-byte chunk is half i % 2
// of word i / 2 (little endian), so a lane holds 8 registers for 16 values.
//===----------------------------------------------------------------------===//

/// Magnitude bits of infinity; larger magnitudes are NaN.
FP8Q_HOSTDEV constexpr uint32_t infBits16(Bf16) { return 0x7f80u; }
FP8Q_HOSTDEV constexpr uint32_t infBits16(F16) { return 0x7c00u; }

/// Element h (0: low half, 1: high half) of a word of two T, as fp32.
FP8Q_HOSTDEV inline float halfValue(uint32_t w, int h, Bf16) {
  return bitsFloat(h ? w & 0xffff0000u : w << 16);
}
FP8Q_HOSTDEV inline float halfValue(uint32_t w, int h, F16) {
  return toFloat(F16{(uint16_t)(h ? w >> 16 : w)});
}
template <class T> FP8Q_HOSTDEV inline float halfValue(uint32_t w, int h) {
  return halfValue(w, h, T{});
}

/// Largest magnitude bits among the N words' 16-bit elements, skipping NaN
/// like the CPU runtime's `a > amax` loop: bf16 and f16 magnitudes order
/// like their bits, so this is the bits of the fp32 amax. `nan` reports a
/// NaN element (then the slow loop runs; it is rare).
template <class T, int N>
FP8Q_HOSTDEV inline uint32_t amaxBits16(const uint32_t (&w)[N], bool &nan) {
  uint32_t a = 0;
#pragma unroll
  for (int k = 0; k < N; ++k)
    a = maxU16x2(a, w[k] & 0x7fff7fffu);
  uint32_t m = (a & 0xffffu) > (a >> 16) ? a & 0xffffu : a >> 16;
  nan = m > infBits16(T{});
  if (nan) {
    m = 0;
    for (int k = 0; k < N; ++k)
      for (int h = 0; h < 2; ++h) {
        const uint32_t v = (w[k] >> (16 * h)) & 0x7fffu;
        if (v <= infBits16(T{}) && v > m)
          m = v;
      }
  }
  return m;
}

#if defined(__CUDACC__) && !defined(__HIP__)
/// quotient() without its sign fix: fl(x / scale) up to the sign of a zero
/// result (encode8Raw puts x's sign on every byte instead).
__device__ inline float quotientMag(float x, float scale, float rcp) {
  const float y0 = __fmul_rn(x, rcp);
  return __fmaf_rn(__fmaf_rn(-y0, scale, x), rcp, y0);
}
#endif

/// encode8Raw's software path (every target, every case).
template <class T>
FP8Q_HOSTDEV inline Bytes8 encode8Soft(const uint32_t *w, float scale,
                                       float rcp, Fp8 t) {
  Bytes8 b;
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    uint32_t r = 0;
#pragma unroll
    for (int e = 0; e < 4; ++e)
      r |= (uint32_t)quantizeValueFast(halfValue<T>(w[2 * i + e / 2], e % 2),
                                       scale, rcp, t)
           << (8 * e);
    b.w[i] = r;
  }
  return b;
}

/// Encodes the 8 elements of 4 words (16 bytes of T) as x / scale, rcp =
/// 1 / scale, like storeQ8. `hw`: E4M3FN, scale finite and no element NaN,
/// so on sm_89+ the hardware conversion of the fma-corrected quotient gives
/// exactly fp8q_quantize_value (bench/encode_exhaustive_h200.cu checks this
/// function for every bf16 and f16 (x, amax) pair with |x| <= amax); the
/// byte's sign is x's sign (also for zeros, which the correction makes +0).
template <class T>
FP8Q_HOSTDEV inline Bytes8 encode8Raw(const uint32_t *w, float scale, float rcp,
                                      Fp8 t, bool hw) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  if (hw) {
    Bytes8 b;
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const uint32_t w0 = w[2 * i], w1 = w[2 * i + 1];
      const uint32_t mag =
          cvtE4M3FNx2(quotientMag(halfValue<T>(w0, 0), scale, rcp),
                      quotientMag(halfValue<T>(w0, 1), scale, rcp)) |
          (cvtE4M3FNx2(quotientMag(halfValue<T>(w1, 0), scale, rcp),
                       quotientMag(halfValue<T>(w1, 1), scale, rcp))
           << 16);
      // The sign bytes of the four elements: bytes 1, 3 of w0 and w1.
      b.w[i] = mag | (__byte_perm(w0, w1, 0x7531) & 0x80808080u);
    }
    return b;
  }
#endif
  (void)hw;
  return encode8Soft<T>(w, scale, rcp, t);
}

#if defined(FP8Q_GPU)
/// Max over the kQuantLanesPerGroup lanes of a group (aligned lanes of one
/// wave).
__device__ inline float groupMax(float v) {
  for (int m = kQuantLanesPerGroup / 2; m >= 1; m /= 2)
    v = maxf(v, shflXor(v, m));
  return v;
}
/// maxU16x2 over the kQuantLanesPerGroup lanes of a team.
__device__ inline uint32_t teamMaxU16x2(uint32_t v,
                                        int lanes = kQuantLanesPerGroup) {
  for (int m = lanes / 2; m >= 1; m /= 2)
    v = maxU16x2(v, shflXor(v, m));
  return v;
}

/// Quantizes NG 1x128 groups held by a team as 16-bit words: lane `sub` has
/// elements sub * 8 .. + 7 of group j in w[j][0] and 64 + sub * 8 .. in
/// w[j][1] (8 registers per group). The amax is a packed 16-bit integer max
/// (amaxBits16) reduced for both groups at once, the encode the hardware
/// conversion on sm_89+ (encode8Raw). qAt(j) / scaleAt(j): group j's first
/// byte and its scale. Inactive groups take part in the shuffles only.
template <class T, int NG, class QAt, class ScaleAt>
__device__ inline void quantizeWords128(const Bytes16 (&w)[NG][2],
                                        const bool (&active)[NG], int sub,
                                        Fp8 t, QAt qAt, ScaleAt scaleAt) {
  static_assert(NG <= 2, "the team's amax word packs two groups");
  bool nan[NG];
  uint32_t amax = 0;
#pragma unroll
  for (int j = 0; j < NG; ++j)
    amax |= amaxBits16<T>(reinterpret_cast<const uint32_t (&)[8]>(w[j]), nan[j])
            << (16 * j);
  amax = teamMaxU16x2(amax);
#pragma unroll
  for (int j = 0; j < NG; ++j) {
    if (!active[j])
      continue;
    const float scale = groupScale(toFloat(T{(uint16_t)(amax >> (16 * j))}), t);
    const float rcp = 1.0f / scale;
    const bool hw = t == Fp8::E4M3FN && !nan[j] && scale <= 3.40282347e38f;
    uint8_t *q = qAt(j) + sub * kQuantVec;
#pragma unroll
    for (int s = 0; s < 2; ++s)
      storeOnce8(q + s * (kGroup / 2),
                 encode8Raw<T>(w[j][s].w, scale, rcp, t, hw));
    if (sub == j)
      *scaleAt(j) = scale;
  }
}

/// Quantizes one group of `group` elements (a multiple of 8) with
/// kQuantLanesPerGroup lanes; `sub` is the lane's index in the group.
/// `load(e, v)` produces the 8 fp32 values starting at element e of the
/// group; groups wider than 128 call it twice per element, so its side
/// effects must be idempotent. The first kQuantRegSteps steps of a lane
/// (all of a 1x128 group) stay in registers; wider groups make a second
/// pass that loads again, so that every group size keeps the register count
/// (and the occupancy) of the 1x128 case. Inactive lanes (past the last
/// group) take part in the shuffles only: NVIDIA's full-mask shuffles need
/// every lane. The amax skips NaN like the CPU runtime (maxNum).
template <bool Hw16 = false, class Load>
__device__ inline void quantizeGroup(Load load, uint8_t *q, float *scaleOut,
                                     int64_t group, int sub, Fp8 t,
                                     bool active) {
  constexpr int64_t kStep = kQuantLanesPerGroup * kQuantVec;
  constexpr int64_t kRegSpan = kStep * kQuantRegSteps;
  float v[kQuantRegSteps][8];
  float amax = 0.0f;
#pragma unroll
  for (int s = 0; s < kQuantRegSteps; ++s) {
    const int64_t e = (int64_t)sub * kQuantVec + s * kStep;
    if (active && e < group) {
      load(e, v[s]);
      for (int i = 0; i < 8; ++i)
        amax = maxNum(amax, absf(v[s][i]));
    }
  }
  for (int64_t e = (int64_t)sub * kQuantVec + kRegSpan; active && e < group;
       e += kStep) {
    float w[8];
    load(e, w);
    for (int i = 0; i < 8; ++i)
      amax = maxNum(amax, absf(w[i]));
  }
  amax = groupMax(amax);
  const float scale = groupScale(amax, t);
  const float rcp = 1.0f / scale;
#pragma unroll
  for (int s = 0; s < kQuantRegSteps; ++s) {
    const int64_t e = (int64_t)sub * kQuantVec + s * kStep;
    if (active && e < group)
      storeQ8<Hw16>(q + e, v[s], scale, rcp, t);
  }
  for (int64_t e = (int64_t)sub * kQuantVec + kRegSpan; active && e < group;
       e += kStep) {
    float w[8];
    load(e, w);
    storeQ8<Hw16>(q + e, w, scale, rcp, t);
  }
  if (active && sub == 0)
    *scaleOut = scale;
}

/// quantizeGroup for bf16 / f16 of any group size (a multiple of 8) with
/// nothing kept: `load(e)` gives the 16 bytes (8 elements of T) at element
/// e of the group; one pass for the amax, a second one that loads again and
/// encodes (so `load`'s side effects must be idempotent), which keeps the
/// registers below those of the 1x128 paths sharing the kernel.
template <class T, class Load>
__device__ inline void quantizeGroupRaw16(Load load, uint8_t *q,
                                          float *scaleOut, int64_t group,
                                          int sub, Fp8 t, bool active) {
  constexpr int64_t kStep = kQuantLanesPerGroup * kQuantVec;
  uint32_t amax = 0;
  bool nan = false;
  for (int64_t e = (int64_t)sub * kQuantVec; active && e < group; e += kStep) {
    bool n;
    const uint32_t a = amaxBits16<T>(load(e).w, n);
    amax = a > amax ? a : amax;
    nan |= n;
  }
  amax = teamMaxU16x2(amax);
  const float scale = groupScale(toFloat(T{(uint16_t)amax}), t);
  const float rcp = 1.0f / scale;
  const bool hw = t == Fp8::E4M3FN && !nan && scale <= 3.40282347e38f;
  for (int64_t e = (int64_t)sub * kQuantVec; active && e < group; e += kStep)
    storeOnce8(q + e, encode8Raw<T>(load(e).w, scale, rcp, t, hw));
  if (active && sub == 0)
    *scaleOut = scale;
}
#endif

} // namespace fp8q::kern

#endif // FP8Q_KERNELS_QUANTIZECOMMON_H
