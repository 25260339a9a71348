//===- Layout.cpp - materialize and preshuffle ----------------------------===//
//
// Data movement that changes only the physical layout: scale
// materialization between any two strided layouts (zero-copy when both
// address the same bytes) and SPEC's preshuffle_16x16 weight permutation.
//
//===----------------------------------------------------------------------===//

#include "CpuRuntime.h"

#include "fp8q/Runtime/fp8q_numerics.h"
#include "fp8q/Runtime/fp8q_preshuffle.h"

#include <vector>

namespace fp8q::rt {

int32_t materializeImpl(const char *entry, fp8q_memref_2d *src,
                        fp8q_memref_2d *dst) {
  clearError();
  View2 sv, dv;
  if (int32_t s = checkOperand(entry, "src", src, 4, -1, -1, Access::Read, sv))
    return s;
  if (int32_t s = checkOperand(entry, "dst", dst, 4, sv.rows, sv.cols,
                               Access::Write, dv))
    return s;
  // Equal layouts (SPEC): the bytes are already where dst says they are.
  if (sameAddresses(sv, dv))
    return FP8Q_OK;
  const int64_t M = sv.rows, G = sv.cols;
  if (!rangesOverlap(sv, dv)) {
    for (int64_t m = 0; m < M; ++m)
      for (int64_t g = 0; g < G; ++g)
        *dv.at<float>(m, g) = *sv.at<float>(m, g);
    return FP8Q_OK;
  }
  // In-place relayout of overlapping buffers goes through a temporary.
  std::vector<float> tmp(M * G);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t g = 0; g < G; ++g)
      tmp[m * G + g] = *sv.at<float>(m, g);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t g = 0; g < G; ++g)
      *dv.at<float>(m, g) = tmp[m * G + g];
  return FP8Q_OK;
}

int32_t preshuffleImpl(const char *entry, fp8q_memref_2d *src,
                       fp8q_memref_2d *dst, bool inverse) {
  clearError();
  View2 sv, dv;
  if (int32_t s = checkOperand(entry, "w", src, 1, -1, -1, Access::Read, sv))
    return s;
  const int64_t N = sv.rows, K = sv.cols;
  if (!fp8q_preshuffle_tiles_ok(N, K))
    return fail(entry, FP8Q_ERR_SHAPE,
                "preshuffle_16x16 needs N %% 16 == 0 and K %% 32 == 0, got "
                "[%lld, %lld]",
                (long long)N, (long long)K);
  if (int32_t s = checkOperand(entry, "dst", dst, 1, N, K, Access::Write, dv))
    return s;
  // The permuted side is a dense buffer addressed by flat offset.
  const View2 &dense = inverse ? sv : dv;
  const char *denseName = inverse ? "w" : "dst";
  if ((N > 1 && dense.s0 != K) || dense.s1 != 1)
    return fail(entry, FP8Q_ERR_LAYOUT,
                "preshuffled operand %s must be dense (strides (%lld, 1)) but "
                "has strides (%lld, %lld)",
                denseName, (long long)K, (long long)dense.s0,
                (long long)dense.s1);
  // In-place (overlapping) calls read from a copy of the source.
  std::vector<uint8_t> copy;
  View2 in = sv;
  if (rangesOverlap(sv, dv)) {
    copy.resize(N * K);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t k = 0; k < K; ++k)
        copy[n * K + k] = *sv.at<uint8_t>(n, k);
    in.base = reinterpret_cast<char *>(copy.data());
    in.s0 = K;
    in.s1 = 1;
  }
  // Row by row on the plain side; the dense side gets 16-byte runs.
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k) {
      int64_t p = fp8q_preshuffle_offset(n, k, N, K);
      if (inverse)
        *dv.at<uint8_t>(n, k) = uint8_t(in.base[p]);
      else
        dv.base[p] = char(*in.at<uint8_t>(n, k));
    }
  return FP8Q_OK;
}

} // namespace fp8q::rt
