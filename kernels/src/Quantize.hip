//===- Quantize.hip - Per-group fp8 quantization kernels -----------------===//
//
// q = RNE(x / scale), scale = max(amax, 1e-10) / fp8_max per 1 x group_size
// group. An 8-lane team quantizes kQuantGroupsPerTeam consecutive groups
// (16 elements per lane and group); the scale is written through its
// strides, so row-major, column-major and aligned column-major outputs are
// the same kernel (the fused transposed write), walked in the order of
// groupOfIndexChunked.
//
//===----------------------------------------------------------------------===//

#include "fp8q_kernels/KernelArgs.h"
#include "fp8q_kernels/QuantizeCommon.h"

using namespace fp8q::kern;

/// 0 forces the 64-bit index path (for comparison).
#ifndef FP8Q_QUANT_INDEX32
#define FP8Q_QUANT_INDEX32 1
#endif

/// 1x128 groups of a 16-bit type, NG consecutive groups per 8-lane team:
/// every load of the lane is issued first (the bytes in flight are what the
/// bandwidth needs) and the data stays in its 16-bit words, then
/// quantizeWords128.
template <class T, class I, int NG>
__device__ inline void quantize128(const QuantArgs &p,
                                   const GroupCoordT<I> (&gc)[NG],
                                   const bool (&active)[NG], int sub) {
  static_assert(NG <= 2, "the team's amax word packs two groups");
  constexpr int kHalf = kGroup / 2; // a lane's second chunk
  Bytes16 w[NG][2];
#pragma unroll
  for (int j = 0; j < NG; ++j) {
    const T *x = static_cast<const T *>(p.x) +
                 (gc[j].m * (I)p.ldx + gc[j].g * (I)kGroup + sub * kQuantVec);
#pragma unroll
    for (int s = 0; s < 2; ++s)
      w[j][s] = active[j] ? loadOnce16(x + s * kHalf) : Bytes16{{0, 0, 0, 0}};
  }
  quantizeWords128<T>(
      w, active, sub, static_cast<Fp8>(p.fp8),
      [&](int j) { return p.q + (gc[j].m * (I)p.ldq + gc[j].g * (I)kGroup); },
      [&](int j) { return p.scale + (gc[j].m * (I)p.s0 + gc[j].g * (I)p.s1); });
}

/// The team's groups gid0, gid0 + 1, ... with index type I.
template <class T, class I>
__device__ inline void quantizeTeam(const QuantArgs &p, I G, I gid0, I total,
                                    int sub) {
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
  if constexpr (sizeof(T) == 2) {
    if (p.group == kGroup) {
      if constexpr (sizeof(I) == 4) {
        quantize128<T, I, NG>(p, gc, active, sub);
      } else {
        // Huge tensors: one group at a time keeps the 64-bit addresses
        // near the 32-bit path's registers (ptxas still spills 16 bytes
        // here under the sm_90 cap; this path is cold).
#pragma unroll
        for (int j = 0; j < NG; ++j) {
          const GroupCoordT<I> c[1] = {gc[j]};
          const bool a[1] = {active[j]};
          quantize128<T, I, 1>(p, c, a, sub);
        }
      }
      return;
    }
#pragma unroll
    for (int j = 0; j < NG; ++j) {
      const T *x = static_cast<const T *>(p.x) +
                   (gc[j].m * (I)p.ldx + gc[j].g * (I)p.group);
      quantizeGroupRaw16<T>([&](int64_t e) { return loadOnce16(x + e); },
                            p.q + (gc[j].m * (I)p.ldq + gc[j].g * (I)p.group),
                            p.scale + (gc[j].m * (I)p.s0 + gc[j].g * (I)p.s1),
                            p.group, sub, t, active[j]);
    }
  } else {
#pragma unroll
    for (int j = 0; j < NG; ++j) {
      const T *x = static_cast<const T *>(p.x) +
                   (gc[j].m * (I)p.ldx + gc[j].g * (I)p.group);
      // f32 keeps the software encode (the hardware path is proven
      // bit-exact only for 16-bit inputs).
      quantizeGroup<false>([&](int64_t e, float (&v)[8]) { load8(x + e, v); },
                           p.q + (gc[j].m * (I)p.ldq + gc[j].g * (I)p.group),
                           p.scale + (gc[j].m * (I)p.s0 + gc[j].g * (I)p.s1),
                           p.group, sub, t, active[j]);
    }
  }
}

template <class T> __device__ inline void quantizeBody(const QuantArgs &p) {
  const int tid = threadId();
  const int sub = tid % kQuantLanesPerGroup;
  const int64_t G = p.group == kGroup ? p.K / kGroup : divNonNeg(p.K, p.group);
  const int64_t total = p.M * G;
  const int64_t gid0 =
      (blockIdX() * kQuantTeamsPerBlock + tid / kQuantLanesPerGroup) *
      kQuantGroupsPerTeam;
  // 32-bit index math when every group index and element offset fits (one
  // uniform branch on the arguments).
  constexpr int64_t kMax32 = INT32_MAX;
  const bool fits32 = FP8Q_QUANT_INDEX32 && p.ldx >= 0 && p.ldq >= 0 &&
                      total <= kMax32 - kQuantGroupsPerBlock &&
                      p.M * p.ldx <= kMax32 && p.M * p.ldq <= kMax32 &&
                      p.s0 >= 0 && p.s1 >= 0 && p.M * p.s0 + G * p.s1 <= kMax32;
  if (fits32)
    quantizeTeam<T, uint32_t>(p, (uint32_t)G, (uint32_t)gid0, (uint32_t)total,
                              sub);
  else
    quantizeTeam<T, int64_t>(p, G, gid0, total, sub);
}

extern "C" __global__ FP8Q_LAUNCH_BOUNDS(
    kQuantBlock,
    FP8Q_NV_QUANT16_MIN_BLOCKS) void fp8q_kernel_quantize_bf16(QuantArgs p) {
  gridPrologue();
  quantizeBody<Bf16>(p);
}
extern "C" __global__ FP8Q_LAUNCH_BOUNDS(
    kQuantBlock,
    FP8Q_NV_QUANT16_MIN_BLOCKS) void fp8q_kernel_quantize_f16(QuantArgs p) {
  gridPrologue();
  quantizeBody<F16>(p);
}
extern "C" __global__ FP8Q_LAUNCH_BOUNDS(
    kQuantBlock,
    FP8Q_NV_QUANT_MIN_BLOCKS) void fp8q_kernel_quantize_f32(QuantArgs p) {
  gridPrologue();
  quantizeBody<float>(p);
}
