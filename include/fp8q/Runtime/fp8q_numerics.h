/*===- fp8q_numerics.h - Exact scalar conversions ------------------*- C -*-===*
 *
 * Scalar numerics of SPEC.md "Numerics", shared by the CPU reference runtime
 * and the HIP/CUDA kernels so that both round identically: fp8 E4M3FN and
 * E4M3FNUZ encode (round-to-nearest-even, saturating) and decode, bf16 and
 * f16 round-to-nearest-even, and the per-group quantization scale.
 *
 * Plain C99 / C++ / HIP / CUDA: every function is `static inline`, uses no
 * library calls and no std::, and relies only on IEEE fp32 arithmetic in the
 * default rounding mode (do not compile with -ffast-math).
 *
 *===----------------------------------------------------------------------===*/

#ifndef FP8Q_RUNTIME_FP8Q_NUMERICS_H
#define FP8Q_RUNTIME_FP8Q_NUMERICS_H

#include "fp8q/Runtime/fp8q_contracts.h"

#include <stdint.h>

#if defined(__HIP__) || defined(__CUDACC__)
#define FP8Q_HD __host__ __device__
#else
#define FP8Q_HD
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// Bits of an fp32 value (union punning: defined in C, supported by every
/// C++ compiler we target).
static inline FP8Q_HD uint32_t fp8q_f32_bits(float f) {
  union {
    float f;
    uint32_t u;
  } v;
  v.f = f;
  return v.u;
}

/// fp32 value of bits.
static inline FP8Q_HD float fp8q_bits_f32(uint32_t u) {
  union {
    float f;
    uint32_t u;
  } v;
  v.u = u;
  return v.f;
}

/// Largest finite value of an fp8 flavour: 448 (E4M3FN) or 240 (E4M3FNUZ).
static inline FP8Q_HD float fp8q_fp8_max(int fp8_type) {
  return fp8_type == FP8Q_F8E4M3FNUZ ? 240.0f : 448.0f;
}

/// Exponent bias: 7 (E4M3FN) or 8 (E4M3FNUZ).
static inline FP8Q_HD int fp8q_fp8_bias(int fp8_type) {
  return fp8_type == FP8Q_F8E4M3FNUZ ? 8 : 7;
}

/// Decodes one fp8 byte. E4M3FN: NaN is S.1111.111, no infinities.
/// E4M3FNUZ: 0x80 is the only NaN, no negative zero.
static inline FP8Q_HD float fp8q_fp8_decode(uint8_t code, int fp8_type) {
  uint32_t sign = (uint32_t)(code & 0x80u) << 24;
  uint32_t e = (code >> 3) & 0xFu;
  uint32_t m = code & 0x7u;
  int bias = fp8q_fp8_bias(fp8_type);
  if (fp8_type == FP8Q_F8E4M3FNUZ) {
    if (code == 0x80u)
      return fp8q_bits_f32(0x7FC00000u);
  } else if ((code & 0x7Fu) == 0x7Fu) {
    return fp8q_bits_f32(sign | 0x7FC00000u);
  }
  if (e == 0) {
    /* Subnormal: m * 2^(1 - bias - 3), exact in fp32. */
    float mag = (float)m * fp8q_bits_f32((uint32_t)(127 + 1 - bias - 3) << 23);
    return fp8q_bits_f32(sign | fp8q_f32_bits(mag));
  }
  return fp8q_bits_f32(sign | ((e + 127u - (uint32_t)bias) << 23) | (m << 20));
}

/// Encodes an fp32 value as fp8 with round-to-nearest-even. Finite values
/// beyond the range and infinities saturate to +-fp8_max; NaN encodes as
/// NaN (E4M3FN keeps the sign: 0x7F / 0xFF; E4M3FNUZ: 0x80). A result of
/// zero is +0 in E4M3FNUZ, which has no negative zero.
static inline FP8Q_HD uint8_t fp8q_fp8_encode(float x, int fp8_type) {
  uint32_t bits = fp8q_f32_bits(x);
  uint32_t sign = (bits >> 24) & 0x80u;
  uint32_t abs_bits = bits & 0x7FFFFFFFu;
  int fnuz = fp8_type == FP8Q_F8E4M3FNUZ;
  int bias = fp8q_fp8_bias(fp8_type);
  uint32_t max_code = fnuz ? 0x7Fu : 0x7Eu;
  uint32_t mag;
  if (abs_bits > 0x7F800000u) /* NaN */
    return fnuz ? (uint8_t)0x80u : (uint8_t)(sign | 0x7Fu);
  if (abs_bits >= 0x7F800000u) {
    mag = max_code; /* infinity saturates */
  } else {
    /* Smallest normal fp8 exponent is 1 - bias. */
    uint32_t min_normal_bits = (uint32_t)(127 + 1 - bias) << 23;
    if (abs_bits < min_normal_bits) {
      /* Subnormal range: the value in units of the subnormal quantum
         2^(1 - bias - 3) is exact in fp32 (power-of-two scaling of a value
         >= 2^-126 * 2^..., or an fp32 subnormal that rounds to 0); round
         it to an integer, ties to even, with the 2^23 trick. */
      float units = fp8q_bits_f32(abs_bits) *
                    fp8q_bits_f32((uint32_t)(127 - (1 - bias - 3)) << 23);
      float r = (units + 8388608.0f) - 8388608.0f;
      mag = (uint32_t)r; /* 0..8; 8 is the smallest normal, code 0x08 */
    } else {
      /* Normal: round the 23-bit mantissa to 3 bits, ties to even; a carry
         moves into the exponent, which is what RNE wants. */
      uint32_t rounded = abs_bits + 0x7FFFFu + ((abs_bits >> 20) & 1u);
      uint32_t exp = (rounded >> 23) & 0xFFu;
      uint32_t man = (rounded >> 20) & 0x7u;
      int fexp = (int)exp - 127 + bias;
      if (fexp > 15)
        mag = max_code;
      else
        mag = ((uint32_t)fexp << 3) | man;
      if (mag > max_code)
        mag = max_code;
    }
  }
  if (fnuz && mag == 0)
    return 0;
  return (uint8_t)(sign | mag);
}

/// fp32 -> bf16 bits, round-to-nearest-even; NaN stays a quiet NaN.
static inline FP8Q_HD uint16_t fp8q_f32_to_bf16(float f) {
  uint32_t u = fp8q_f32_bits(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u)
    return (uint16_t)((u >> 16) | 0x0040u);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

/// bf16 bits -> fp32 (exact).
static inline FP8Q_HD float fp8q_bf16_to_f32(uint16_t h) {
  return fp8q_bits_f32((uint32_t)h << 16);
}

/// fp32 -> IEEE binary16 bits, round-to-nearest-even, overflow to
/// infinity, NaN stays a quiet NaN.
static inline FP8Q_HD uint16_t fp8q_f32_to_f16(float f) {
  uint32_t u = fp8q_f32_bits(f);
  uint32_t sign = (u >> 16) & 0x8000u;
  uint32_t a = u & 0x7FFFFFFFu;
  if (a > 0x7F800000u)
    return (uint16_t)(sign | 0x7E00u | ((a >> 13) & 0x3FFu));
  if (a >= 0x477FF000u) /* >= 65520 rounds to infinity */
    return (uint16_t)(sign | 0x7C00u);
  if (a < 0x38800000u) {
    /* Below 2^-14: f16 subnormal, quantum 2^-24. The scaled value is exact
       in fp32; round it to an integer, ties to even. */
    float units = fp8q_bits_f32(a) * 16777216.0f; /* * 2^24 */
    float r = (units + 8388608.0f) - 8388608.0f;
    return (uint16_t)(sign | (uint32_t)r); /* 1024 is the smallest normal */
  }
  a += 0xFFFu + ((a >> 13) & 1u);
  return (uint16_t)(sign | ((a - 0x38000000u) >> 13));
}

/// IEEE binary16 bits -> fp32 (exact).
static inline FP8Q_HD float fp8q_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t e = (h >> 10) & 0x1Fu;
  uint32_t m = h & 0x3FFu;
  if (e == 0) {
    float mag = (float)m * 5.9604644775390625e-8f; /* 2^-24 */
    return fp8q_bits_f32(sign | fp8q_f32_bits(mag));
  }
  if (e == 31)
    return fp8q_bits_f32(sign | 0x7F800000u | (m << 13));
  return fp8q_bits_f32(sign | ((e + 112u) << 23) | (m << 13));
}

/// Per-group quantization scale: max(amax, 1e-10) / fp8_max (fp32).
static inline FP8Q_HD float fp8q_quant_scale(float amax, int fp8_type) {
  float a = amax > 1e-10f ? amax : 1e-10f;
  return a / fp8q_fp8_max(fp8_type);
}

/// Quantizes one value with its group scale: RNE(x / scale), saturated.
static inline FP8Q_HD uint8_t fp8q_quantize_value(float x, float scale,
                                                  int fp8_type) {
  return fp8q_fp8_encode(x / scale, fp8_type);
}

/// |x| for the amax reduction (no libm).
static inline FP8Q_HD float fp8q_absf(float x) {
  return fp8q_bits_f32(fp8q_f32_bits(x) & 0x7FFFFFFFu);
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* FP8Q_RUNTIME_FP8Q_NUMERICS_H */
