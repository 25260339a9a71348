//===- GemmBlockScale.hip - Block-scale FP8 GEMM kernels
//-------------------===//
//
// out[m, n] = bf16(sum_kb xs[m, kb] * ws[n/128, kb] * sum_{k in kb} q * w)
// with fp32 accumulation.
//
// fp8q_kernel_gemm_preshuffle / fp8q_kernel_gemm_plain (AMD only): 4 waves,
// each a 16x64 tile of 16x16 MFMA tiles (GemmTile.h). One K block of 128 is one
// v_mfma_f32_16x16x128_f8f6f4 on gfx950 (OCP E4M3, scale operands 0 = the
// unscaled form) or four v_mfma_f32_16x16x32_fp8_fp8 on gfx942 (E4M3FNUZ);
// the block's fp32 partial is multiplied by xs * ws and added to the total.
// The preshuffle kernel is ck_bpreshuffle's: column-major activation scale
// (strides resolved by the launcher) and the preshuffled weight.
//
// fp8q_gemm_portable_*: no matrix instructions, one thread per output, the
// same index math and the same per-block scaling order; it runs on every
// target (the nvcc build for sm_90 checks it against the CPU runtime).
//
//===----------------------------------------------------------------------===//

#include "fp8q_kernels/GemmTile.h"

using namespace fp8q::kern;

#if defined(FP8Q_AMDGCN)
typedef int v8i32 __attribute__((ext_vector_type(8)));
typedef float v4f32 __attribute__((ext_vector_type(4)));

/// A GemmTile Wave that is one hardware lane.
template <Mma K> struct DeviceWave {
  int lane;
  template <class T> using Lanes = T;
  template <class F> __device__ auto map(F f) { return f(lane); }
  template <class F> __device__ void each(F f) { f(lane); }
  template <class T> __device__ T &at(T &x, int) { return x; }

  __device__ Acc mma(const Frag &a, const Frag &b) {
    v4f32 c = {0.0f, 0.0f, 0.0f, 0.0f};
    if constexpr (K == Mma::X128) {
      v8i32 va = {(int)a.lo.w[0], (int)a.lo.w[1], (int)a.lo.w[2],
                  (int)a.lo.w[3], (int)a.hi.w[0], (int)a.hi.w[1],
                  (int)a.hi.w[2], (int)a.hi.w[3]};
      v8i32 vb = {(int)b.lo.w[0], (int)b.lo.w[1], (int)b.lo.w[2],
                  (int)b.lo.w[3], (int)b.hi.w[0], (int)b.hi.w[1],
                  (int)b.hi.w[2], (int)b.hi.w[3]};
      // Formats 0/0 = E4M3 for A and B; opsel 0 and scale 0 select the
      // unscaled instruction (the block scales are fp32, applied below).
      c = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(va, vb, c, 0, 0, 0,
                                                           0, 0, 0);
    } else {
      const Bytes16 *ha[2] = {&a.lo, &a.hi}, *hb[2] = {&b.lo, &b.hi};
#pragma unroll
      for (int s = 0; s < 4; ++s) {
        const uint32_t *pa = ha[s / 2]->w + 2 * (s % 2);
        const uint32_t *pb = hb[s / 2]->w + 2 * (s % 2);
        long la = (long)((uint64_t)pa[0] | ((uint64_t)pa[1] << 32));
        long lb = (long)((uint64_t)pb[0] | ((uint64_t)pb[1] << 32));
        c = __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(la, lb, c, 0, 0, 0);
      }
    }
    return Acc{{c[0], c[1], c[2], c[3]}};
  }
};

#if defined(__gfx950__)
constexpr Mma kTargetMma = Mma::X128;
#else
constexpr Mma kTargetMma = Mma::X32;
#endif

template <WLayout L> __device__ inline void gemmMfmaBody(const GemmArgs &p) {
  const int tid = threadId();
  DeviceWave<kTargetMma> w{tid % 64};
  gemmWaveTile<L>(p, blockIdY(), blockIdX(), waveIndex(64), w);
}

extern "C" __global__
FP8Q_LAUNCH_BOUNDS(kGemmThreads,
                   1) void fp8q_kernel_gemm_preshuffle(GemmArgs p) {
  gridPrologue();
  gemmMfmaBody<WLayout::Preshuffle16x16>(p);
}
extern "C" __global__
FP8Q_LAUNCH_BOUNDS(kGemmThreads, 1) void fp8q_kernel_gemm_plain(GemmArgs p) {
  gridPrologue();
  gemmMfmaBody<WLayout::Plain>(p);
}
#endif // FP8Q_AMDGCN

/// Threads per portable GEMM block: a 16 x 16 output tile.
constexpr int kPortableTile = 16;

template <WLayout L>
__device__ inline void gemmPortableBody(const GemmArgs &p, Fp8 t) {
  const int tid = threadId();
  const int64_t n = blockIdX() * kPortableTile + tid % kPortableTile;
  const int64_t m = blockIdY() * kPortableTile + tid / kPortableTile;
  if (m >= p.M || n >= p.N)
    return;
  const int64_t nb = n / kGroup;
  float total = 0.0f;
  for (int64_t kb = 0; kb < p.K / kGroup; ++kb) {
    float part = 0.0f;
    for (int lane16 = 0; lane16 < 4; ++lane16) {
      // The k order of one MFMA lane group (IndexMath.h).
      const int lane = lane16 * 16;
      const uint8_t *qa = p.q + aFragOffset(m, kb, lane, p.ldq);
      BHalves h = bFragOffsets(L, n, kb, lane, p.K, p.ldw);
      for (int j = 0; j < 32; ++j)
        part += decodeFp8(qa[j], t) *
                decodeFp8(p.w[j < 16 ? h.lo + j : h.hi + j - 16], t);
    }
    total += part * (p.xs[scaleOffset(m, kb, p.xs0, p.xs1)] *
                     p.ws[scaleOffset(nb, kb, p.ws0, p.ws1)]);
  }
  p.out[m * p.ldo + n] = bf16Bits(total);
}

extern "C" __global__
FP8Q_LAUNCH_BOUNDS(kPortableTile *kPortableTile,
                   1) void fp8q_kernel_gemm_portable_preshuffle(GemmArgs p,
                                                                int32_t fp8) {
  gridPrologue();
  gemmPortableBody<WLayout::Preshuffle16x16>(p, static_cast<Fp8>(fp8));
}
extern "C" __global__
FP8Q_LAUNCH_BOUNDS(kPortableTile *kPortableTile,
                   1) void fp8q_kernel_gemm_portable_plain(GemmArgs p,
                                                           int32_t fp8) {
  gridPrologue();
  gemmPortableBody<WLayout::Plain>(p, static_cast<Fp8>(fp8));
}
