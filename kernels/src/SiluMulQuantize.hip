//===- SiluMulQuantize.hip - Fused SiLU x mul + per-group quantize -------===//
//
// The f32 quantize kernel's data path (quantizeGroup, the software encode)
// on a = (g / (1 + exp(-g))) * u, g and u read from two strided inputs of T
// (gate and up, often the two column halves of one [M, 2K] buffer). The
// team and group order is the quantize kernel's (groupOfIndexChunked), so a
// column-major scale is the same fused transposed write. exp is the
// accurate expansion (expF), never the hardware approximation.
//
//===----------------------------------------------------------------------===//

#include "fp8q_kernels/KernelArgs.h"
#include "fp8q_kernels/QuantizeCommon.h"

using namespace fp8q::kern;

/// SiLU(g) * u in f32, operation by operation as the unfused program
/// (negate, exp, 1 + t, g / d, s * u), none of them contracted into an FMA.
__device__ inline float siluMul(float g, float u) {
#if defined(FP8Q_NVPTX)
  const float d = __fadd_rn(1.0f, expF(-g));
  return __fmul_rn(__fdiv_rn(g, d), u);
#else
#if defined(__clang__)
#pragma clang fp contract(off)
#endif
  const float d = 1.0f + expF(-g);
  const float s = g / d;
  return s * u;
#endif
}

/// The team's groups gid0, gid0 + 1, ... with index type I.
template <class T, class I>
__device__ inline void siluTeam(const SiluArgs &a, I G, I gid0, I total,
                                int sub) {
  const QuantArgs &p = a.quant;
  constexpr int NG = kQuantGroupsPerTeam;
  const int lgR = p.mFastest ? kQuantColChunkLog2 : 0;
  GroupCoordT<I> gc[NG];
  bool active[NG];
  gc[0] = groupOfIndexChunked<I>(gid0 < total ? gid0 : 0, (I)p.M, G, lgR);
  active[0] = gid0 < total;
#pragma unroll
  for (int j = 1; j < NG; ++j) {
    gc[j] = nextGroupChunked<I>(gc[j - 1], (I)p.M, G, lgR);
    active[j] = gid0 + j < total;
  }
  const Fp8 t = static_cast<Fp8>(p.fp8);
#pragma unroll
  for (int j = 0; j < NG; ++j) {
    const T *gate = static_cast<const T *>(p.x) +
                    (gc[j].m * (I)p.ldx + gc[j].g * (I)p.group);
    const T *up = static_cast<const T *>(a.up) +
                  (gc[j].m * (I)a.ldu + gc[j].g * (I)p.group);
    quantizeGroup<false>(
        [&](int64_t e, float (&v)[8]) {
          float gv[8], uv[8];
          load8(gate + e, gv);
          load8(up + e, uv);
          for (int i = 0; i < 8; ++i)
            v[i] = siluMul(gv[i], uv[i]);
        },
        p.q + (gc[j].m * (I)p.ldq + gc[j].g * (I)p.group),
        p.scale + (gc[j].m * (I)p.s0 + gc[j].g * (I)p.s1), p.group, sub, t,
        active[j]);
  }
}

template <class T> __device__ inline void siluMulBody(const SiluArgs &a) {
  const QuantArgs &p = a.quant;
  const int tid = threadId();
  const int sub = tid % kQuantLanesPerGroup;
  const int64_t G = p.group == kGroup ? p.K / kGroup : divNonNeg(p.K, p.group);
  const int64_t total = p.M * G;
  const int64_t gid0 =
      (blockIdX() * kQuantTeamsPerBlock + tid / kQuantLanesPerGroup) *
      kQuantGroupsPerTeam;
  // 32-bit index math when every group index and element offset fits.
  constexpr int64_t kMax32 = INT32_MAX;
  const bool fits32 = p.ldx >= 0 && p.ldq >= 0 && a.ldu >= 0 &&
                      total <= kMax32 - kQuantGroupsPerBlock &&
                      p.M * p.ldx <= kMax32 && p.M * a.ldu <= kMax32 &&
                      p.M * p.ldq <= kMax32 && p.s0 >= 0 && p.s1 >= 0 &&
                      p.M * p.s0 + G * p.s1 <= kMax32;
  if (fits32)
    siluTeam<T, uint32_t>(a, (uint32_t)G, (uint32_t)gid0, (uint32_t)total, sub);
  else
    siluTeam<T, int64_t>(a, G, gid0, total, sub);
}

extern "C" __global__ FP8Q_LAUNCH_BOUNDS(
    kQuantBlock,
    FP8Q_NV_QUANT_MIN_BLOCKS) void fp8q_kernel_silu_mul_quantize_bf16(SiluArgs
                                                                          a) {
  gridPrologue();
  siluMulBody<Bf16>(a);
}
extern "C" __global__ FP8Q_LAUNCH_BOUNDS(
    kQuantBlock,
    FP8Q_NV_QUANT_MIN_BLOCKS) void fp8q_kernel_silu_mul_quantize_f16(SiluArgs
                                                                         a) {
  gridPrologue();
  siluMulBody<F16>(a);
}
extern "C" __global__ FP8Q_LAUNCH_BOUNDS(
    kQuantBlock,
    FP8Q_NV_QUANT_MIN_BLOCKS) void fp8q_kernel_silu_mul_quantize_f32(SiluArgs
                                                                         a) {
  gridPrologue();
  siluMulBody<float>(a);
}
