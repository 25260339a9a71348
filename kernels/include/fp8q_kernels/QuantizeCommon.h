//===- QuantizeCommon.h - One quantization group on 8 lanes -----*- C++ -*-===//
//
// Shared by the quantize and the fused RMSNorm+quantize kernels.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_KERNELS_QUANTIZECOMMON_H
#define FP8Q_KERNELS_QUANTIZECOMMON_H

#include "fp8q_kernels/IndexMath.h"
#include "fp8q_kernels/Numerics.h"

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

#if defined(FP8Q_GPU)
/// Max over the kQuantLanesPerGroup lanes of a group (aligned lanes of one
/// wave).
__device__ inline float groupMax(float v) {
  for (int m = kQuantLanesPerGroup / 2; m >= 1; m /= 2)
    v = maxf(v, shflXor(v, m));
  return v;
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
/// every lane.
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
        amax = maxf(amax, absf(v[s][i]));
    }
  }
  for (int64_t e = (int64_t)sub * kQuantVec + kRegSpan; active && e < group;
       e += kStep) {
    float w[8];
    load(e, w);
    for (int i = 0; i < 8; ++i)
      amax = maxf(amax, absf(w[i]));
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
#endif

} // namespace fp8q::kern

#endif // FP8Q_KERNELS_QUANTIZECOMMON_H
