//===- KernelArgs.h - Argument structs of the fp8q kernels ------*- C++ -*-===//
//
// Each kernel takes one of these structs by value; the launchers
// (kernels/runtime) and the nvcc harness (bench/) fill them. Offsets and
// strides are in elements; pointers already include the memref offset.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_KERNELS_KERNELARGS_H
#define FP8Q_KERNELS_KERNELARGS_H

#include <stdint.h>

namespace fp8q::kern {

/// fp8q_quantize_{bf16,f16,f32}.
struct QuantArgs {
  const void *x; ///< [M, K] of T, row stride ldx, unit column stride
  uint8_t *q;    ///< [M, K] fp8, row stride ldq
  float *scale;  ///< [M, K/group], strides (s0, s1)
  int64_t M, K, group, ldx, ldq, s0, s1;
  int32_t fp8;      ///< Fp8
  int32_t mFastest; ///< walk groups m-fastest (column-major scale)
};

/// fp8q_rms_norm_quantize_{bf16,f16,f32}: one block per row.
struct RmsArgs {
  const void *x;     ///< [M, K] of T, row stride ldx
  const void *gamma; ///< [K] of T, contiguous
  uint8_t *q;        ///< [M, K] fp8, row stride ldq
  float *scale;      ///< [M, K/group], strides (s0, s1)
  void *y;           ///< [M, K] of T, row stride ldy, written if keep
  int64_t M, K, group, ldx, ldq, ldy, s0, s1;
  float epsilon;
  int32_t fp8;
  int32_t keep;
};

/// fp8q_add_rms_norm_quantize_{bf16,f16,f32}: one block per row; rms.x is
/// the first addend and the norm reads sum = round_T(x + residual).
struct AddRmsArgs {
  RmsArgs rms;
  const void *residual; ///< [M, K] of T, row stride ldr
  void *sum;            ///< [M, K] of T, row stride lds, written (may be x
                        ///< or residual, exactly)
  int64_t ldr, lds;
};

/// fp8q_silu_mul_quantize_{bf16,f16,f32}: quant.x is gate, and the value
/// quantized is the f32 (gate / (1 + exp(-gate))) * up.
struct SiluArgs {
  QuantArgs quant;
  const void *up; ///< [M, K] of T, row stride ldu, unit column stride
  int64_t ldu;
};

/// fp8q_materialize: dst[m, g] = src[m, g], each through its strides.
struct MaterializeArgs {
  const float *src;
  float *dst;
  int64_t M, G, ss0, ss1, ds0, ds1;
};

/// fp8q_preshuffle: dense preshuffled dst from the plain [N, K] weight w
/// (row stride ldw, a multiple of 16, unit column stride). fp8q_unpreshuffle:
/// the inverse, w dense preshuffled and dst plain with row stride ldw.
struct PreshuffleArgs {
  const uint8_t *w;
  uint8_t *dst;
  int64_t N, K, ldw;
};

} // namespace fp8q::kern

#endif // FP8Q_KERNELS_KERNELARGS_H
