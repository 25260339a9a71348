//===- DecodeGemm.hip - The weight-streaming decode GEMM kernels ----------===//
//
// fp8q_kernel_decode_gemm_m<R> (plain weight) and
// fp8q_kernel_decode_gemm_preshuffle_m<R> (preshuffle_16x16): the decode GEMM
// of DecodeGemm.h for up to R activation rows per block (grid.x = ceil(N / 16),
// grid.y = ceil(M / R)). R = 8, 16, 32, 64 on NVIDIA (8-row mma.sync tiles);
// 16, 32, 64 on AMD (16-row MFMA tiles). The matrix step per K block of 128 is
// spelled here, once per instruction set; everything else is DecodeGemm.h.
//
//===----------------------------------------------------------------------===//

#include "fp8q_kernels/DecodeGemm.h"

using namespace fp8q::kern;

// nvcc (both passes: the host pass needs the kernels to launch them) or
// the AMD device compile.
#if defined(__NVCC__)
#define FP8Q_DECODE_NV 1
#endif

#if defined(FP8Q_DECODE_NV) || defined(FP8Q_AMDGCN)

#if defined(FP8Q_DECODE_NV)
using DecodeMap = DecodeMapNv;
#else
using DecodeMap = DecodeMapAmd;
typedef int v8i32 __attribute__((ext_vector_type(8)));
typedef float v4f32 __attribute__((ext_vector_type(4)));
#endif

/// A DecodeGemm.h Wave that is one hardware lane.
struct DecodeDeviceWave {
  int lane;
  template <class T> using Lanes = T;
  template <class F> __device__ auto map(F f) { return f(lane); }
  template <class F> __device__ void each(F f) { f(lane); }
  template <class T> __device__ T &at(T &x, int) { return x; }

  /// The fp32 dot products of one K block for the 16 x kTileM tile.
  __device__ DecodeAcc mma(const DecodeWFrag<DecodeMap> &a,
                           const DecodeFrag &b) {
#if defined(FP8Q_DECODE_NV) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 890
    // FP8 mma needs sm_89; the launcher never selects this kernel below.
    (void)a;
    (void)b;
    __trap();
    return DecodeAcc{};
#elif defined(FP8Q_DECODE_NV)
    // Four m16n8k32 chained on one accumulator (registers: decodeNvRegs).
    float c0 = 0.0f, c1 = 0.0f, c2 = 0.0f, c3 = 0.0f;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      uint32_t ra[4], rb[2];
      decodeNvRegs(a, b, j, ra, rb);
      asm("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 "
          "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
          "{%0, %1, %2, %3};"
          : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
          : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]),
            "r"(rb[1]));
    }
    return DecodeAcc{{c0, c1, c2, c3}};
#else
    const DecodeFrag &f = a.row[0];
    v4f32 c = {0.0f, 0.0f, 0.0f, 0.0f};
#if defined(__gfx950__)
    v8i32 va = {(int)f.lo.w[0], (int)f.lo.w[1], (int)f.lo.w[2], (int)f.lo.w[3],
                (int)f.hi.w[0], (int)f.hi.w[1], (int)f.hi.w[2], (int)f.hi.w[3]};
    v8i32 vb = {(int)b.lo.w[0], (int)b.lo.w[1], (int)b.lo.w[2], (int)b.lo.w[3],
                (int)b.hi.w[0], (int)b.hi.w[1], (int)b.hi.w[2], (int)b.hi.w[3]};
    // Formats 0/0 = E4M3 for A and B; scale operands 0 select the unscaled
    // instruction (the block scales are fp32, applied by the caller).
    c = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(va, vb, c, 0, 0, 0, 0,
                                                         0, 0);
#else
    const Bytes16 *ha[2] = {&f.lo, &f.hi}, *hb[2] = {&b.lo, &b.hi};
#pragma unroll
    for (int s = 0; s < 4; ++s) {
      const uint32_t *pa = ha[s / 2]->w + 2 * (s % 2);
      const uint32_t *pb = hb[s / 2]->w + 2 * (s % 2);
      long la = (long)((uint64_t)pa[0] | ((uint64_t)pa[1] << 32));
      long lb = (long)((uint64_t)pb[0] | ((uint64_t)pb[1] << 32));
      c = __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(la, lb, c, 0, 0, 0);
    }
#endif
    return DecodeAcc{{c[0], c[1], c[2], c[3]}};
#endif
  }
};

template <int MT, WLayout L>
__device__ inline void decodeGemmBody(const DecodeGemmArgs &p) {
  __shared__ float red[decodeReduceFloats<DecodeMap, MT>()];
  const int tid = threadId();
  const int lane = tid % DecodeMap::kLanes, wave = tid / DecodeMap::kLanes;
  const int64_t n0 = blockIdX() * kDecodeTileN;
  const int64_t m0 = blockIdY() * (MT * DecodeMap::kTileM);
  DecodeDeviceWave W{lane};
  DecodeAccs<MT> tot = decodeWaveTotals<DecodeMap, MT, L>(p, n0, m0, wave, W);
  decodeSpill<DecodeMap, MT>(red, wave, lane, tot);
  barrier();
  for (int idx = tid; idx < kDecodeTileN * MT * DecodeMap::kTileM;
       idx += kDecodeThreads)
    decodeStoreOne<DecodeMap, MT>(p, red, n0, m0, idx);
}

/// minBlocks: resident blocks per SM the NVIDIA register budget is cut for
/// (3: 85 registers, 2: 128, 1: 255; the 32- and 64-row variants hold 4-8 m
/// tiles of accumulators beside the weight bytes in flight). Measured on the
/// H200 (bench/results/h200-decode-gemm.log): 3 for the 8-row variant beats
/// 2 (6144 x 2048, M = 1: 6.9 vs 8.7 us) and 4 spills.
#define FP8Q_DECODE_KERNEL(rows, minBlocks)                                    \
  extern "C" __global__ FP8Q_LAUNCH_BOUNDS(                                    \
      kDecodeThreads,                                                          \
      minBlocks) void fp8q_kernel_decode_gemm_m##rows(DecodeGemmArgs p) {      \
    decodeGemmBody<rows / DecodeMap::kTileM, WLayout::Plain>(p);               \
  }                                                                            \
  extern "C" __global__ FP8Q_LAUNCH_BOUNDS(kDecodeThreads, minBlocks) void     \
      fp8q_kernel_decode_gemm_preshuffle_m##rows(DecodeGemmArgs p) {           \
    decodeGemmBody<rows / DecodeMap::kTileM, WLayout::Preshuffle16x16>(p);     \
  }

#ifndef FP8Q_DECODE_M8_MIN_BLOCKS
#define FP8Q_DECODE_M8_MIN_BLOCKS 3
#endif
#ifndef FP8Q_DECODE_M16_MIN_BLOCKS
#define FP8Q_DECODE_M16_MIN_BLOCKS 2
#endif
#if defined(FP8Q_DECODE_NV)
FP8Q_DECODE_KERNEL(8, FP8Q_DECODE_M8_MIN_BLOCKS)
#endif
FP8Q_DECODE_KERNEL(16, FP8Q_DECODE_M16_MIN_BLOCKS)
FP8Q_DECODE_KERNEL(32, 1)
FP8Q_DECODE_KERNEL(64, 1)

#endif // FP8Q_DECODE_NV || FP8Q_AMDGCN
