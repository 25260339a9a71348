//===- GemmV2Args.h - Arguments of the portable v2 GEMM kernel --*- C++ -*-===//
//
// fp8q_kernel_gemm_v2 (kernels/src/GemmV2.hip), filled by
// lib/Runtime/Gpu/GpuOpsV2.cpp from a plan that fp8q_gemm_v2_checks.h
// accepted. Pointers already include the memref offsets; strides are in
// bytes for q and w (f4E2M1FN: two codes per byte) and in elements for the
// scales and out.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_KERNELS_GEMMV2ARGS_H
#define FP8Q_KERNELS_GEMMV2ARGS_H

#include <stdint.h>

namespace fp8q::kern {

/// Output columns per block of fp8q_kernel_gemm_v2 (one per thread).
constexpr int kGemmV2BlockN = 128;
/// Activation rows per thread: each weight code is decoded once for them.
constexpr int kGemmV2RowsPerThread = 4;

/// One scale operand: a strided descriptor (s0, s1) or a padded layout's
/// allocation (layout, align), [rows, cols] logical.
struct GemmV2Scale {
  const uint8_t *base;
  int64_t rows, cols, s0, s1, align;
  int32_t layout, padded;
};

/// fp8q_kernel_gemm_v2: out[m, n] = bf16(global * sum_g (xs[m, g] *
/// ws[n / wRowBlock, g / groupsPerWCol]) * sum_{k in g} q[m, k] * w[n, k]),
/// in the CPU runtime's order (fp8q_gemm_v2), without FMA contraction.
struct GemmV2Args {
  const uint8_t *q; ///< [M, K] codes, row stride ldq bytes
  const uint8_t *w; ///< [N, K] codes, row stride ldw bytes, or preshuffled
  GemmV2Scale xs, ws;
  uint16_t *out;       ///< [M, N] bf16, strides (os0, os1) elements
  const float *global; ///< NVFP4's global-scale product (device), or null
  int64_t M, N, K, G, group, ldq, ldw, os0, os1;
  int64_t wRowBlock, groupsPerWCol;
  int32_t qType, scaleType, preshuffled;
};

} // namespace fp8q::kern

#endif // FP8Q_KERNELS_GEMMV2ARGS_H
