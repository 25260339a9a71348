//===- GemmV2.hip - Portable block-scaled GEMM of the SPEC v2 formats ----===//
//
// FP8 1x128 with UE8M0 scales, MXFP8, MXFP4 and NVFP4, each scale in any
// v2 layout (read through the one index map, fp8q_scale_offset), fp4
// weights plain or preshuffled byte-wise. It computes exactly what the CPU
// runtime's fp8q_gemm_v2 computes, in the same order and without FMA
// contraction, so the two agree bit for bit: each output's group partial
// sums run over k in increasing order, `acc += (xs * ws) * part` over
// increasing g, NVFP4 multiplies by the global-scale product last.
//
// One thread per output column n and kGemmV2RowsPerThread activation rows:
// the weight code (n, k) is decoded once for those rows; the codes decode
// through a per-block table in LDS. A correctness-first kernel for GPUs
// without MX / FP4 matrix instructions (the H200 has none): its speed is
// measured in bench/results (bench/v2_kernels_h200.sh), not tuned.
//
//===----------------------------------------------------------------------===//

#include "fp8q_kernels/GemmV2Args.h"
#include "fp8q_kernels/Portability.h"

#include "fp8q/Runtime/fp8q_mx_numerics.h"
#include "fp8q/Runtime/fp8q_numerics.h"
#include "fp8q/Runtime/fp8q_preshuffle.h"
#include "fp8q/Runtime/fp8q_scale_layouts.h"

using namespace fp8q::kern;

namespace {

/// Scale (r, c) of `s` as fp32 (1-byte e8m0 / e4m3).
__device__ inline float loadScale(const GemmV2Scale &s, int32_t scaleType,
                                  int64_t r, int64_t c) {
  const int64_t off =
      s.padded ? fp8q_scale_offset(s.layout, s.align, s.rows, s.cols, r, c)
               : r * s.s0 + c * s.s1;
  return fp8q_scale_decode_byte(s.base[off], scaleType);
}

/// Code k of row `row` (a byte, or a nibble of a packed f4E2M1FN row).
__device__ inline uint8_t codeAt(const uint8_t *base, int64_t ld, bool fp4,
                                 int64_t row, int64_t k) {
  if (!fp4)
    return base[row * ld + k];
  const uint8_t b = base[row * ld + k / 2];
  return (k & 1) ? uint8_t(b >> 4) : uint8_t(b & 0xF);
}

/// Weight code (n, k), plain or preshuffled (the dense [N, K / 2] bytes).
__device__ inline uint8_t weightCode(const GemmV2Args &p, bool fp4, int64_t n,
                                     int64_t k) {
  if (!p.preshuffled)
    return codeAt(p.w, p.ldw, fp4, n, k);
  const uint8_t b = p.w[fp8q_preshuffle_offset(n, k / 2, p.N, p.K / 2)];
  return (k & 1) ? uint8_t(b >> 4) : uint8_t(b & 0xF);
}

} // namespace

extern "C" __global__
FP8Q_LAUNCH_BOUNDS(kGemmV2BlockN, 1) void fp8q_kernel_gemm_v2(GemmV2Args p) {
  gridPrologue();
  __shared__ float lut[256];
  const bool fp4 = p.qType == FP8Q_Q_F4E2M1FN;
  for (int c = threadId(); c < 256; c += kGemmV2BlockN)
    lut[c] = fp8q_q_decode(uint8_t(fp4 ? (c & 0xF) : c), p.qType);
  barrier();

  const int64_t n = blockIdX() * kGemmV2BlockN + threadId();
  const int64_t m0 = blockIdY() * kGemmV2RowsPerThread;
  if (n >= p.N)
    return;
  const int rows =
      p.M - m0 < kGemmV2RowsPerThread ? int(p.M - m0) : kGemmV2RowsPerThread;
  const int64_t wRow = n / p.wRowBlock;
  float acc[kGemmV2RowsPerThread] = {};
  for (int64_t g = 0; g < p.G; ++g) {
    float part[kGemmV2RowsPerThread] = {};
    for (int64_t k = g * p.group; k < (g + 1) * p.group; ++k) {
      const float w = lut[weightCode(p, fp4, n, k)];
      FP8Q_UNROLL
      for (int r = 0; r < kGemmV2RowsPerThread; ++r)
        if (r < rows)
          part[r] =
              addRn(part[r], mulRn(lut[codeAt(p.q, p.ldq, fp4, m0 + r, k)], w));
    }
    const float ws = loadScale(p.ws, p.scaleType, wRow, g / p.groupsPerWCol);
    FP8Q_UNROLL
    for (int r = 0; r < kGemmV2RowsPerThread; ++r)
      if (r < rows) {
        const float xs = loadScale(p.xs, p.scaleType, m0 + r, g);
        acc[r] = addRn(acc[r], mulRn(mulRn(xs, ws), part[r]));
      }
  }
  const float global = p.global ? *p.global : 1.0f;
  for (int r = 0; r < rows; ++r) {
    const float v = p.global ? mulRn(global, acc[r]) : acc[r];
    p.out[(m0 + r) * p.os0 + n * p.os1] = fp8q_f32_to_bf16(v);
  }
}
