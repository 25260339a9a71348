//===- RmsNormQuantize.hip - Fused RMSNorm + per-group quantize
//------------===//
//
// One block per row: the block reduces sum(x^2) through LDS, then 8-lane
// teams quantize the row's groups. y = x / sqrt(mean(x^2) + eps) * gamma is
// rounded to x's element type before quantization (SPEC) and is written out
// when `keep` is set (the optional unquantized result).
//
//===----------------------------------------------------------------------===//

#include "fp8q_kernels/KernelArgs.h"
#include "fp8q_kernels/QuantizeCommon.h"

using namespace fp8q::kern;

template <class T>
__device__ inline void rmsNormQuantizeBody(const RmsArgs &p) {
  __shared__ float red[kQuantBlock];
  const int tid = threadId();
  const int64_t m = blockIdX();
  const T *x = static_cast<const T *>(p.x) + m * p.ldx;
  const T *gamma = static_cast<const T *>(p.gamma);
  float ss = 0.0f;
  for (int64_t e = (int64_t)tid * kQuantVec; e < p.K;
       e += (int64_t)kQuantBlock * kQuantVec) {
    float v[8];
    load8(x + e, v);
    for (int i = 0; i < 8; ++i)
      ss += v[i] * v[i];
  }
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
  for (int64_t g0 = 0; g0 < G; g0 += kQuantGroupsPerBlock) {
    const int64_t g = g0 + tid / kQuantLanesPerGroup;
    const bool active = g < G;
    const int64_t base = (active ? g : 0) * p.group;
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

extern "C" __global__ FP8Q_LAUNCH_BOUNDS(
    kQuantBlock,
    FP8Q_NV_QUANT_MIN_BLOCKS) void fp8q_kernel_rms_norm_quantize_bf16(RmsArgs
                                                                          p) {
  rmsNormQuantizeBody<Bf16>(p);
}
extern "C" __global__ FP8Q_LAUNCH_BOUNDS(
    kQuantBlock,
    FP8Q_NV_QUANT_MIN_BLOCKS) void fp8q_kernel_rms_norm_quantize_f16(RmsArgs
                                                                         p) {
  rmsNormQuantizeBody<F16>(p);
}
extern "C" __global__ FP8Q_LAUNCH_BOUNDS(
    kQuantBlock,
    FP8Q_NV_QUANT_MIN_BLOCKS) void fp8q_kernel_rms_norm_quantize_f32(RmsArgs
                                                                         p) {
  rmsNormQuantizeBody<float>(p);
}
