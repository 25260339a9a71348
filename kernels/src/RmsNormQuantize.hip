//===- RmsNormQuantize.hip - Fused RMSNorm + per-group quantize ---------===//
//
// One block per row: the block reduces sum(x^2) through LDS, then 8-lane
// teams quantize the row's groups (rows of up to 64 1x128 groups of bf16
// stay in registers: rmsNorm128). y = x / sqrt(mean(x^2) + eps) * gamma is
// rounded to x's element type before quantization (SPEC) and is written out
// when `keep` is set (the optional unquantized result).
//
// The residual variant (kAdd, fp8q_kernel_add_rms_norm_quantize_*) first
// forms sum = round_T(x + residual) (the CPU runtime's rounding), writes it
// and normalizes the rounded values: the register path keeps them, the
// two-pass path reads the row of `sum` back after the block's barrier.
// Every element of x and residual is read by the thread that writes the
// same element of sum, before the barrier, so sum may be exactly x or
// residual (in place).
//
//===----------------------------------------------------------------------===//

#include "fp8q_kernels/KernelArgs.h"
#include "fp8q_kernels/QuantizeCommon.h"

using namespace fp8q::kern;

/// y = x / rms * gamma rounded to T (SPEC; the CPU runtime's expression) for
/// the 8 elements of 16-bit words xw, with gamma's words gw.
template <class T>
__device__ inline Bytes16 normalized16(const Bytes16 &xw, const Bytes16 &gw,
                                       float rms) {
  Bytes16 r;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    r.w[k] = 0;
#pragma unroll
    for (int h = 0; h < 2; ++h)
      r.w[k] |=
          (uint32_t)store(
              halfValue<T>(xw.w[k], h) / rms * halfValue<T>(gw.w[k], h), T{})
              .bits
          << (16 * h);
  }
  return r;
}

/// round_T(x + r) for the 8 elements of 16-bit words xw and rw (what the
/// CPU runtime's add_rms_norm_quantize stores as sum).
template <class T>
__device__ inline Bytes16 added16(const Bytes16 &xw, const Bytes16 &rw) {
  Bytes16 r;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    r.w[k] = 0;
#pragma unroll
    for (int h = 0; h < 2; ++h)
      r.w[k] |= (uint32_t)store(
                    halfValue<T>(xw.w[k], h) + halfValue<T>(rw.w[k], h), T{})
                    .bits
                << (16 * h);
  }
  return r;
}

/// Rows of at most 2 * kQuantTeamsPerBlock 1x128 groups of a 16-bit type:
/// the row is loaded once, all of it before any use (16-bit words, team t
/// holds groups t and t + kQuantTeamsPerBlock), the sum of squares is a wave
/// reduction plus one LDS partial per wave, and y = x / rms * gamma, rounded
/// to T, replaces x in the same registers before quantizeWords128.
/// With kAdd the row is sum = round_T(x + residual), written to a.sum.
template <class T, bool kAdd>
__device__ inline void rmsNorm128(const AddRmsArgs &a, float *red, int G) {
  const RmsArgs &p = a.rms;
  constexpr int NG = 2, kHalf = kGroup / 2;
  const int tid = threadId();
  const int team = tid / kQuantLanesPerGroup, sub = tid % kQuantLanesPerGroup;
  const int64_t m = blockIdX();
  const T *x = static_cast<const T *>(p.x) + m * p.ldx + sub * kQuantVec;
  const T *gamma = static_cast<const T *>(p.gamma) + sub * kQuantVec;
  int g[NG];
  bool active[NG];
  Bytes16 w[NG][2];
#pragma unroll
  for (int j = 0; j < NG; ++j) {
    g[j] = team + j * kQuantTeamsPerBlock;
    active[j] = g[j] < G;
#pragma unroll
    for (int s = 0; s < 2; ++s)
      w[j][s] = active[j] ? loadOnce16(x + g[j] * kGroup + s * kHalf)
                          : Bytes16{{0, 0, 0, 0}};
  }
  if constexpr (kAdd) {
    const T *r =
        static_cast<const T *>(a.residual) + m * a.ldr + sub * kQuantVec;
    T *sum = static_cast<T *>(a.sum) + m * a.lds + sub * kQuantVec;
    Bytes16 rw[NG][2];
#pragma unroll
    for (int j = 0; j < NG; ++j)
#pragma unroll
      for (int s = 0; s < 2; ++s)
        rw[j][s] = active[j] ? loadOnce16(r + g[j] * kGroup + s * kHalf)
                             : Bytes16{{0, 0, 0, 0}};
#pragma unroll
    for (int j = 0; j < NG; ++j) {
      if (!active[j])
        continue;
#pragma unroll
      for (int s = 0; s < 2; ++s) {
        w[j][s] = added16<T>(w[j][s], rw[j][s]);
        *reinterpret_cast<Bytes16 *>(sum + g[j] * kGroup + s * kHalf) = w[j][s];
      }
    }
  }
  float ss = 0.0f;
#pragma unroll
  for (int j = 0; j < NG; ++j)
#pragma unroll
    for (int s = 0; s < 2; ++s)
#pragma unroll
      for (int e = 0; e < 8; ++e) {
        const float v = halfValue<T>(w[j][s].w[e / 2], e % 2);
        ss += v * v;
      }
  for (int o = kWaveSize / 2; o >= 1; o /= 2)
    ss += shflXor(ss, o);
  if (tid % kWaveSize == 0)
    red[tid / kWaveSize] = ss;
  barrier();
  float total = 0.0f;
#pragma unroll
  for (int i = 0; i < kQuantBlock / kWaveSize; ++i)
    total += red[i];
  const float rms = sqrtF(total / (float)p.K + p.epsilon);
  T *y = static_cast<T *>(p.y) + m * p.ldy + sub * kQuantVec;
#pragma unroll
  for (int j = 0; j < NG; ++j) {
    if (!active[j])
      continue;
#pragma unroll
    for (int s = 0; s < 2; ++s) {
      w[j][s] = normalized16<T>(
          w[j][s],
          *reinterpret_cast<const Bytes16 *>(gamma + g[j] * kGroup + s * kHalf),
          rms);
      if (p.keep)
        *reinterpret_cast<Bytes16 *>(y + g[j] * kGroup + s * kHalf) = w[j][s];
    }
  }
  quantizeWords128<T>(
      w, active, sub, static_cast<Fp8>(p.fp8),
      [&](int j) { return p.q + m * p.ldq + g[j] * kGroup; },
      [&](int j) { return p.scale + scaleOffset(m, g[j], p.s0, p.s1); });
}

/// Element types that take rmsNorm128: bf16 (f16's software conversions
/// would exceed the AMD register budget there; it keeps the general path).
template <class T> constexpr bool kRmsRowInRegisters = false;
template <> constexpr bool kRmsRowInRegisters<Bf16> = true;

/// With kAdd (the residual variant) the row normalized is sum =
/// round_T(x + residual): the first pass writes it, and the second pass
/// reads it back instead of x (after the reduction's barriers, which make
/// the block's global writes visible to the whole block).
template <class T, bool kAdd>
__device__ inline void rmsNormQuantizeBody(const AddRmsArgs &a) {
  const RmsArgs &p = a.rms;
  __shared__ float red[kQuantBlock];
  if constexpr (kRmsRowInRegisters<T>) {
    if (p.group == kGroup && p.K <= 2 * kQuantTeamsPerBlock * kGroup) {
      rmsNorm128<T, kAdd>(a, red, (int)(p.K / kGroup));
      return;
    }
  }
  const int tid = threadId();
  const int64_t m = blockIdX();
  const T *x = static_cast<const T *>(p.x) + m * p.ldx;
  const T *gamma = static_cast<const T *>(p.gamma);
  float ss = 0.0f;
  for (int64_t e = (int64_t)tid * kQuantVec; e < p.K;
       e += (int64_t)kQuantBlock * kQuantVec) {
    float v[8];
    load8(x + e, v);
    if constexpr (kAdd) {
      float r[8];
      load8(static_cast<const T *>(a.residual) + m * a.ldr + e, r);
      for (int i = 0; i < 8; ++i)
        v[i] = roundTo(v[i] + r[i], T{});
      store8(static_cast<T *>(a.sum) + m * a.lds + e, v);
    }
    for (int i = 0; i < 8; ++i)
      ss += v[i] * v[i];
  }
  if constexpr (kAdd)
    x = static_cast<const T *>(a.sum) + m * a.lds;
  red[tid] = ss;
  barrier();
  for (int s = kQuantBlock / 2; s > 0; s /= 2) {
    if (tid < s)
      red[tid] += red[tid + s];
    barrier();
  }
  const float rms = sqrtF(red[0] / (float)p.K + p.epsilon);
  const int64_t G = divNonNeg(p.K, p.group);
  const Fp8 t = static_cast<Fp8>(p.fp8);
  T *y = static_cast<T *>(p.y) + m * p.ldy;
  for (int64_t g0 = 0; g0 < G; g0 += kQuantTeamsPerBlock) {
    const int64_t g = g0 + tid / kQuantLanesPerGroup;
    const bool active = g < G;
    const int64_t base = (active ? g : 0) * p.group;
    if constexpr (sizeof(T) == 2) {
      quantizeGroupRaw16<T>(
          [&](int64_t e) {
            const Bytes16 v = normalized16<T>(
                *reinterpret_cast<const Bytes16 *>(x + base + e),
                *reinterpret_cast<const Bytes16 *>(gamma + base + e), rms);
            if (p.keep)
              *reinterpret_cast<Bytes16 *>(y + base + e) = v;
            return v;
          },
          p.q + m * p.ldq + base, p.scale + scaleOffset(m, g, p.s0, p.s1),
          p.group, tid % kQuantLanesPerGroup, t, active);
    } else {
      quantizeGroup(
          [&](int64_t e, float (&v)[8]) {
            float xv[8], gv[8];
            load8(x + base + e, xv);
            load8(gamma + base + e, gv);
            for (int i = 0; i < 8; ++i)
              v[i] = roundTo(xv[i] / rms * gv[i], T{});
            if (p.keep)
              store8(y + base + e, v);
          },
          p.q + m * p.ldq + base, p.scale + scaleOffset(m, g, p.s0, p.s1),
          p.group, tid % kQuantLanesPerGroup, t, active);
    }
  }
}

/// The plain kernels take an AddRmsArgs with only `rms` set.
template <class T> __device__ inline void rmsNormQuantize(const RmsArgs &p) {
  AddRmsArgs a;
  a.rms = p;
  a.residual = nullptr;
  a.sum = nullptr;
  a.ldr = a.lds = 0;
  rmsNormQuantizeBody<T, false>(a);
}

extern "C" __global__ FP8Q_LAUNCH_BOUNDS(
    kQuantBlock,
    FP8Q_NV_RMS_BF16_MIN_BLOCKS) void fp8q_kernel_rms_norm_quantize_bf16(RmsArgs
                                                                             p) {
  gridPrologue();
  rmsNormQuantize<Bf16>(p);
}
extern "C" __global__ FP8Q_LAUNCH_BOUNDS(
    kQuantBlock,
    FP8Q_NV_QUANT_MIN_BLOCKS) void fp8q_kernel_rms_norm_quantize_f16(RmsArgs
                                                                         p) {
  gridPrologue();
  rmsNormQuantize<F16>(p);
}
extern "C" __global__ FP8Q_LAUNCH_BOUNDS(
    kQuantBlock,
    FP8Q_NV_QUANT_MIN_BLOCKS) void fp8q_kernel_rms_norm_quantize_f32(RmsArgs
                                                                         p) {
  gridPrologue();
  rmsNormQuantize<float>(p);
}

extern "C" __global__ FP8Q_LAUNCH_BOUNDS(
    kQuantBlock,
    FP8Q_NV_QUANT_MIN_BLOCKS) void fp8q_kernel_add_rms_norm_quantize_bf16(AddRmsArgs
                                                                              a) {
  gridPrologue();
  rmsNormQuantizeBody<Bf16, true>(a);
}
extern "C" __global__ FP8Q_LAUNCH_BOUNDS(
    kQuantBlock,
    FP8Q_NV_QUANT_MIN_BLOCKS) void fp8q_kernel_add_rms_norm_quantize_f16(AddRmsArgs
                                                                             a) {
  gridPrologue();
  rmsNormQuantizeBody<F16, true>(a);
}
extern "C" __global__ FP8Q_LAUNCH_BOUNDS(
    kQuantBlock,
    FP8Q_NV_QUANT_MIN_BLOCKS) void fp8q_kernel_add_rms_norm_quantize_f32(AddRmsArgs
                                                                             a) {
  gridPrologue();
  rmsNormQuantizeBody<float, true>(a);
}
