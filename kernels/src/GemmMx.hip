//===- GemmMx.hip - MXFP8 / MXFP4 GEMM with the gfx950 scaled MFMA -------===//
//
// fp8q_kernel_gemm_mxfp8 / fp8q_kernel_gemm_mxfp4 (gfx950 only): 4 waves,
// each 32 x 64 outputs (2 x 4 tiles of 16x16), one
// v_mfma_scale_f32_16x16x128_f8f6f4 per tile and 128 K with the e8m0 scale
// bytes as its scale operands (format codes 0 = E4M3, 4 = E2M1 for both
// operands; op_sel picks the byte of the cdna4_mx word, MxGemm.h). The
// instruction accumulates: no per-block fp32 rescaling as in the FP8 1x128
// GEMM. Operand loads follow the instruction's K order inside a lane
// (MxGemm.h: split halves for fp8, contiguous for fp4). MXFP4 with a
// preshuffled weight and cdna4_mx scales is the aiter_mxfp4 contract.
// Correctness first: fragments come straight from global memory (no LDS
// staging, as in GemmBlockScale.hip) and nothing here has run on gfx950
// silicon; the wave64 model (MxWaveModel.h) is what checks the loads.
//
// Only gfx950 has the scaled MFMA (and FP4 matrix instructions): gfx942's
// code object and the NVIDIA build do not contain these two kernels. Every
// target gets fp8q_kernel_gemm_mx_portable: the same index math (scale word
// and byte, weight offsets), one thread per output, in fp8q_gemm_v2's order
// so that it matches the CPU runtime bit for bit; it is what the H200 runs
// (through kernels/cuda/hip_on_cuda.h).
//
//===----------------------------------------------------------------------===//

#include "fp8q_kernels/MxGemm.h"

using namespace fp8q::kern;

#if defined(FP8Q_AMDGCN) && defined(__gfx950__)
namespace {

typedef int v8i32mx __attribute__((ext_vector_type(8)));
typedef float v4f32mx __attribute__((ext_vector_type(4)));

/// An mxWaveTile Wave that is one hardware lane.
struct MxDeviceWave {
  int lane;
  template <class T> using Lanes = T;
  template <class F> __device__ auto map(F f) { return f(lane); }
  template <class F> __device__ void each(F f) { f(lane); }
  template <class T> __device__ T &at(T &x, int) { return x; }

  /// One scaled MFMA. The builtin wants op_sel as immediates: the switch
  /// folds once mxWaveTile's loops are unrolled (gemm-mx.test counts the
  /// instructions).
  template <MxFmt F>
  __device__ MxAcc mma(const MxFrag &a, const MxFrag &b, const MxAcc &c,
                       uint32_t sa, int opA, uint32_t sb, int opB) {
    // fp4 operands are 4 VGPRs: hi is zero and the backend drops it.
    v8i32mx va = {(int)a.lo.w[0], (int)a.lo.w[1], (int)a.lo.w[2],
                  (int)a.lo.w[3], (int)a.hi.w[0], (int)a.hi.w[1],
                  (int)a.hi.w[2], (int)a.hi.w[3]};
    v8i32mx vb = {(int)b.lo.w[0], (int)b.lo.w[1], (int)b.lo.w[2],
                  (int)b.lo.w[3], (int)b.hi.w[0], (int)b.hi.w[1],
                  (int)b.hi.w[2], (int)b.hi.w[3]};
    v4f32mx d = {c.v[0], c.v[1], c.v[2], c.v[3]};
    constexpr int fmt = (int)F;
#define FP8Q_MX_MFMA(A, B)                                                     \
  case A * 4 + B:                                                              \
    d = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(                      \
        va, vb, d, fmt, fmt, A, (int)sa, B, (int)sb);                          \
    break;
#define FP8Q_MX_MFMA_ROW(A)                                                    \
  FP8Q_MX_MFMA(A, 0) FP8Q_MX_MFMA(A, 1) FP8Q_MX_MFMA(A, 2) FP8Q_MX_MFMA(A, 3)
    switch (opA * 4 + opB) {
      FP8Q_MX_MFMA_ROW(0)
      FP8Q_MX_MFMA_ROW(1)
      FP8Q_MX_MFMA_ROW(2)
      FP8Q_MX_MFMA_ROW(3)
    }
#undef FP8Q_MX_MFMA_ROW
#undef FP8Q_MX_MFMA
    return MxAcc{{d[0], d[1], d[2], d[3]}};
  }
};

template <MxFmt F> __device__ inline void gemmMxBody(const MxGemmArgs &p) {
  const int tid = threadId();
  MxDeviceWave w{tid % 64};
  mxWaveTile<F, MxKMap::Hardware>(p, blockIdY(), blockIdX(), waveIndex(64), w);
}

} // namespace

#define FP8Q_MX_KERNEL extern "C" __global__ FP8Q_LAUNCH_BOUNDS(kMxThreads, 1)

FP8Q_MX_KERNEL void fp8q_kernel_gemm_mxfp8(MxGemmArgs p) {
  gridPrologue();
  gemmMxBody<MxFmt::E4M3>(p);
}
FP8Q_MX_KERNEL void fp8q_kernel_gemm_mxfp4(MxGemmArgs p) {
  gridPrologue();
  gemmMxBody<MxFmt::E2M1>(p);
}
#undef FP8Q_MX_KERNEL
#endif // FP8Q_AMDGCN && __gfx950__

/// Portable MX GEMM: grid (ceil(N / 16), ceil(M / 16)) of 16 x 16 threads;
/// `fmt` is an MxFmt value.
extern "C" __global__
FP8Q_LAUNCH_BOUNDS(kMxPortableTile *kMxPortableTile,
                   1) void fp8q_kernel_gemm_mx_portable(MxGemmArgs p,
                                                        int32_t fmt) {
  gridPrologue();
  const int tid = threadId();
  const int64_t n = blockIdX() * kMxPortableTile + tid % kMxPortableTile;
  const int64_t m = blockIdY() * kMxPortableTile + tid / kMxPortableTile;
  if (m >= p.M || n >= p.N)
    return;
  p.out[m * p.os0 + n * p.os1] =
      bf16Bits(mxPortableOutput(p, static_cast<MxFmt>(fmt), m, n));
}
