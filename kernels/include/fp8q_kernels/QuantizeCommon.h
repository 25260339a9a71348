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

/// Encodes 8 values x / scale (rcp = 1 / scale) and stores the 8 bytes.
FP8Q_HOSTDEV inline void storeQ8(uint8_t *q, const float (&v)[8], float scale,
                                 float rcp, Fp8 t) {
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
template <class Load>
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
      storeQ8(q + e, v[s], scale, rcp, t);
  }
  for (int64_t e = (int64_t)sub * kQuantVec + kRegSpan; active && e < group;
       e += kStep) {
    float w[8];
    load(e, w);
    storeQ8(q + e, w, scale, rcp, t);
  }
  if (active && sub == 0)
    *scaleOut = scale;
}
#endif

} // namespace fp8q::kern

#endif // FP8Q_KERNELS_QUANTIZECOMMON_H
