/*===- fp8q_preshuffle.h - preshuffle_16x16 index math -----------*- C -*-===*
 *
 * SPEC.md's preshuffle_16x16 weight layout as plain C index math, so that the
 * compiler (constant folding), the runtimes and kernels compute the same
 * permutation. The [N, K] weight is viewed as [N/16, 16, K/32, 2, 16] and
 * permuted to [N/16, K/32, 2, 16(n), 16(k)]: element W[16*n0+n1,
 * 32*k0+16*k1+k2] is stored at flat offset
 * (((n0*(K/32)+k0)*2+k1)*16+n1)*16+k2. Requires N % 16 == 0, K % 32 == 0.
 *
 *===----------------------------------------------------------------------===*/

#ifndef FP8Q_RUNTIME_FP8Q_PRESHUFFLE_H
#define FP8Q_RUNTIME_FP8Q_PRESHUFFLE_H

#include <stdint.h>

#if defined(__HIPCC__) || defined(__CUDACC__)
#define FP8Q_PRESHUFFLE_HD __host__ __device__
#else
#define FP8Q_PRESHUFFLE_HD
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// Rows and columns of one preshuffle tile: N and K must be multiples.
enum { FP8Q_PRESHUFFLE_N_TILE = 16, FP8Q_PRESHUFFLE_K_TILE = 32 };

/// Returns 1 when whole tiles cover [n_total, k_total]: N % 16 == 0 and
/// K % 32 == 0 (the divisibility half of fp8q_preshuffle_ok, for callers
/// that check extents on their own).
static inline FP8Q_PRESHUFFLE_HD int fp8q_preshuffle_tiles_ok(int64_t n_total,
                                                              int64_t k_total) {
  return n_total % FP8Q_PRESHUFFLE_N_TILE == 0 &&
         k_total % FP8Q_PRESHUFFLE_K_TILE == 0;
}

/// Returns 1 when an [n_total, k_total] weight can be stored preshuffled.
static inline FP8Q_PRESHUFFLE_HD int fp8q_preshuffle_ok(int64_t n_total,
                                                        int64_t k_total) {
  return n_total > 0 && k_total > 0 &&
         fp8q_preshuffle_tiles_ok(n_total, k_total);
}

/// Flat element offset at which logical element W[n, k] of an
/// [n_total, k_total] weight is stored in preshuffle_16x16 order.
static inline FP8Q_PRESHUFFLE_HD int64_t
fp8q_preshuffle_offset(int64_t n, int64_t k, int64_t n_total, int64_t k_total) {
  (void)n_total;
  int64_t n0 = n / 16, n1 = n % 16;
  int64_t k0 = k / 32, k1 = (k % 32) / 16, k2 = k % 16;
  return (((n0 * (k_total / 32) + k0) * 2 + k1) * 16 + n1) * 16 + k2;
}

/// Inverse of fp8q_preshuffle_offset: the logical (n, k) stored at flat
/// `offset` of a preshuffled [n_total, k_total] weight.
static inline FP8Q_PRESHUFFLE_HD void
fp8q_preshuffle_unoffset(int64_t offset, int64_t n_total, int64_t k_total,
                         int64_t *n, int64_t *k) {
  (void)n_total;
  int64_t k2 = offset % 16;
  offset /= 16;
  int64_t n1 = offset % 16;
  offset /= 16;
  int64_t k1 = offset % 2;
  offset /= 2;
  int64_t k0 = offset % (k_total / 32);
  int64_t n0 = offset / (k_total / 32);
  *n = n0 * 16 + n1;
  *k = k0 * 32 + k1 * 16 + k2;
}

#ifdef __cplusplus
} /* extern "C" */

namespace fp8q {
/// C++ spelling of fp8q_preshuffle_offset (the brief's runtime entry point).
inline FP8Q_PRESHUFFLE_HD int64_t preshuffleOffset(int64_t n, int64_t k,
                                                   int64_t nTotal,
                                                   int64_t kTotal) {
  return fp8q_preshuffle_offset(n, k, nTotal, kTotal);
}
} // namespace fp8q
#endif

#endif /* FP8Q_RUNTIME_FP8Q_PRESHUFFLE_H */
