/*===- fp8q_mx_numerics.h - Numerics of the v2 block-scaled formats -*- C -*-=*
 *
 * SPEC v2 numerics ("Block-scaled formats beyond FP8 1x128 (v2)"), shared
 * by the CPU reference runtime and the kernels so that all of them round
 * identically: f8E5M2 and f4E2M1FN encode/decode, f8E8M0FNU scales, the
 * four scale rules (exact, pow2_ceil, pow2_floor, e4m3) and the quantize /
 * dequantize of one value. fp4 packing is here too (two per byte, element
 * 2i in the low nibble, as AITER's pack_uint4, PyTorch float4_e2m1fn_x2 and
 * cuBLAS store it).
 *
 * Same rules as fp8q_numerics.h: C99 / C++ / HIP / CUDA, `static inline`,
 * no library calls, IEEE fp32 in the default rounding mode (no
 * -ffast-math). Powers of two come from the float bits, never from libm's
 * log2/exp2, so no rounding of a logarithm can move a scale.
 *
 *===----------------------------------------------------------------------===*/

#ifndef FP8Q_RUNTIME_FP8Q_MX_NUMERICS_H
#define FP8Q_RUNTIME_FP8Q_MX_NUMERICS_H

#include "fp8q/Runtime/fp8q_formats.h"
#include "fp8q/Runtime/fp8q_numerics.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===-- Minifloat encoding ------------------------------------------------===*/

/// Magnitude code of |x| (abs_bits: the fp32 bits without sign, finite, not
/// NaN) in a minifloat with `mbits` mantissa bits and exponent `bias`,
/// round-to-nearest-even, saturating to `max_code`. One routine for E5M2
/// and E2M1 (and E4M3FN: the tests check it against fp8q_fp8_encode), so
/// every format rounds the same way.
static inline FP8Q_HD uint32_t fp8q_minifloat_mag(uint32_t abs_bits, int mbits,
                                                  int bias, uint32_t max_code) {
  uint32_t min_normal_bits = (uint32_t)(127 + 1 - bias) << 23;
  uint32_t mag;
  if (abs_bits < min_normal_bits) {
    /* Subnormal range: |x| in units of the quantum 2^(1 - bias - mbits) is
       exact in fp32 (a power-of-two scaling up) and below 2^mbits + 1;
       round it to an integer, ties to even, with the 2^23 trick. A result
       of 2^mbits is the smallest normal code, which is right. */
    float units = fp8q_bits_f32(abs_bits) *
                  fp8q_bits_f32((uint32_t)(127 + bias + mbits - 1) << 23);
    float r = (units + 8388608.0f) - 8388608.0f;
    mag = (uint32_t)r;
  } else {
    /* Normal: round the 23-bit mantissa to mbits, ties to even; a carry
       moves into the exponent, which is what RNE wants. */
    int shift = 23 - mbits;
    uint32_t rounded =
        abs_bits + ((1u << (shift - 1)) - 1u) + ((abs_bits >> shift) & 1u);
    int fexp = (int)(rounded >> 23) - 127 + bias;
    uint32_t man = (rounded >> shift) & ((1u << mbits) - 1u);
    if (fexp > (int)(max_code >> mbits))
      return max_code;
    mag = ((uint32_t)fexp << mbits) | man;
  }
  return mag > max_code ? max_code : mag;
}

/*===-- f8E5M2 ------------------------------------------------------------===*/

/// Largest finite f8E5M2 value.
#define FP8Q_E5M2_MAX 57344.0f

/// Decodes an f8E5M2 byte: S.EEEEE.MM, bias 15, E = 31 is inf (M = 0) or
/// NaN (M != 0); subnormals are M * 2^-16.
static inline FP8Q_HD float fp8q_e5m2_decode(uint8_t code) {
  uint32_t sign = (uint32_t)(code & 0x80u) << 24;
  uint32_t e = (code >> 2) & 0x1Fu;
  uint32_t m = code & 0x3u;
  if (e == 31)
    return fp8q_bits_f32(sign | (m ? 0x7FC00000u : 0x7F800000u));
  if (e == 0) {
    float mag = (float)m * 1.52587890625e-5f; /* 2^-16 */
    return fp8q_bits_f32(sign | fp8q_f32_bits(mag));
  }
  return fp8q_bits_f32(sign | ((e + 112u) << 23) | (m << 21));
}

/// Encodes fp32 as f8E5M2, RNE. Saturating: finite values beyond 57344 and
/// infinities give +-57344 (0x7B / 0xFB), never an infinity, as the
/// saturating E4M3 encoder does. NaN gives the quiet NaN 0x7E with x's sign
/// (f16's top byte). The sign of zero is kept.
static inline FP8Q_HD uint8_t fp8q_e5m2_encode(float x) {
  uint32_t bits = fp8q_f32_bits(x);
  uint32_t sign = (bits >> 24) & 0x80u;
  uint32_t a = bits & 0x7FFFFFFFu;
  if (a > 0x7F800000u)
    return (uint8_t)(sign | 0x7Eu);
  if (a == 0x7F800000u)
    return (uint8_t)(sign | 0x7Bu);
  return (uint8_t)(sign | fp8q_minifloat_mag(a, 2, 15, 0x7Bu));
}

/*===-- f4E2M1FN ----------------------------------------------------------===*/

/// Largest f4E2M1FN value.
#define FP8Q_E2M1_MAX 6.0f

/// Decodes a 4-bit f4E2M1FN code (the low nibble of `code`): S.EE.M, bias 1,
/// values 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives (0x8 is -0). No
/// infinities, no NaN.
static inline FP8Q_HD float fp8q_e2m1_decode(uint8_t code) {
  uint32_t sign = (uint32_t)(code & 0x8u) << 28;
  uint32_t e = (code >> 1) & 0x3u;
  uint32_t m = code & 0x1u;
  float mag =
      e == 0 ? (float)m * 0.5f : fp8q_bits_f32(((e + 126u) << 23) | (m << 22));
  return fp8q_bits_f32(sign | fp8q_f32_bits(mag));
}

/// Encodes fp32 as a 4-bit f4E2M1FN code, RNE (2.5 -> 2, 5 -> 4, 0.75 -> 1),
/// saturating to +-6 (infinities too). E2M1 has no NaN: a NaN encodes as
/// +6 (0x7), the same code as +inf; NaN inputs are not representable, so
/// MX callers see them only through the group (amax skips NaN). The sign of
/// zero is kept (-0 is 0x8).
static inline FP8Q_HD uint8_t fp8q_e2m1_encode(float x) {
  uint32_t bits = fp8q_f32_bits(x);
  uint32_t sign = (bits >> 28) & 0x8u;
  uint32_t a = bits & 0x7FFFFFFFu;
  if (a > 0x7F800000u)
    return 0x7u;
  if (a == 0x7F800000u)
    return (uint8_t)(sign | 0x7u);
  return (uint8_t)(sign | fp8q_minifloat_mag(a, 1, 1, 0x7u));
}

/// Nibble i of a packed f4E2M1FN row (element 2j is byte j's low nibble).
static inline FP8Q_HD uint8_t fp8q_fp4_get(const uint8_t *bytes, int64_t i) {
  uint8_t b = bytes[i >> 1];
  return (uint8_t)((i & 1) ? (b >> 4) : (b & 0xFu));
}

/// Packs n 4-bit codes (low nibbles of codes[0..n)) into ceil(n / 2) bytes,
/// element 2i in the low nibble; an odd n leaves the last high nibble 0.
static inline FP8Q_HD void fp8q_fp4_pack_row(const uint8_t *codes, int64_t n,
                                             uint8_t *bytes) {
  for (int64_t j = 0; 2 * j < n; ++j) {
    uint8_t lo = codes[2 * j] & 0xFu;
    uint8_t hi = 2 * j + 1 < n ? (uint8_t)(codes[2 * j + 1] & 0xFu) : 0;
    bytes[j] = (uint8_t)(lo | (hi << 4));
  }
}

/// Inverse of fp8q_fp4_pack_row: n codes from ceil(n / 2) bytes.
static inline FP8Q_HD void fp8q_fp4_unpack_row(const uint8_t *bytes, int64_t n,
                                               uint8_t *codes) {
  for (int64_t i = 0; i < n; ++i)
    codes[i] = fp8q_fp4_get(bytes, i);
}

/*===-- Element types by code ---------------------------------------------===*/

/// Largest finite value of a q_type: 448, 240, 57344, 6.
static inline FP8Q_HD float fp8q_q_max(int q_type) {
  switch (q_type) {
  case FP8Q_Q_F8E4M3FNUZ:
    return 240.0f;
  case FP8Q_Q_F8E5M2:
    return FP8Q_E5M2_MAX;
  case FP8Q_Q_F4E2M1FN:
    return FP8Q_E2M1_MAX;
  default:
    return 448.0f;
  }
}

/// emax of pow2_floor: the exponent of the largest power of two <= q_max
/// (OCP MX): 8 (E4M3FN), 7 (E4M3FNUZ), 15 (E5M2), 2 (E2M1).
static inline FP8Q_HD int fp8q_q_emax(int q_type) {
  switch (q_type) {
  case FP8Q_Q_F8E4M3FNUZ:
    return 7;
  case FP8Q_Q_F8E5M2:
    return 15;
  case FP8Q_Q_F4E2M1FN:
    return 2;
  default:
    return 8;
  }
}

/// Encodes fp32 in a q_type (fp4: the 4-bit code).
static inline FP8Q_HD uint8_t fp8q_q_encode(float x, int q_type) {
  switch (q_type) {
  case FP8Q_Q_F8E5M2:
    return fp8q_e5m2_encode(x);
  case FP8Q_Q_F4E2M1FN:
    return fp8q_e2m1_encode(x);
  default:
    return fp8q_fp8_encode(x, q_type);
  }
}

/// Decodes a q_type code (fp4: the low nibble).
static inline FP8Q_HD float fp8q_q_decode(uint8_t code, int q_type) {
  switch (q_type) {
  case FP8Q_Q_F8E5M2:
    return fp8q_e5m2_decode(code);
  case FP8Q_Q_F4E2M1FN:
    return fp8q_e2m1_decode(code);
  default:
    return fp8q_fp8_decode(code, q_type);
  }
}

/*===-- f8E8M0FNU and powers of two ---------------------------------------===*/

/// Exponent range of an e8m0 scale: 2^-127 (byte 0) .. 2^127 (byte 254).
enum { FP8Q_E8M0_MIN_EXP = -127, FP8Q_E8M0_MAX_EXP = 127 };

/// 2^e as fp32 for e in [-149, 127] (2^-127 is the fp32 subnormal
/// 0x00400000), exact.
static inline FP8Q_HD float fp8q_pow2f(int e) {
  if (e >= -126)
    return fp8q_bits_f32((uint32_t)(e + 127) << 23);
  return fp8q_bits_f32(1u << (e + 149));
}

/// Decodes an e8m0 byte: 2^(e - 127); 0xFF is NaN.
static inline FP8Q_HD float fp8q_e8m0_decode(uint8_t e) {
  if (e == 0xFFu)
    return fp8q_bits_f32(0x7FC00000u);
  return fp8q_pow2f((int)e - 127);
}

/// floor(log2(v)) of a positive fp32 v from its bits: the unbiased exponent
/// of a normal, the leading bit's position - 149 of a subnormal. Returns
/// -1000 for 0 and 1000 for infinity (beyond every clamp).
static inline FP8Q_HD int fp8q_ilog2_floor(float v) {
  uint32_t a = fp8q_f32_bits(v) & 0x7FFFFFFFu;
  if (a == 0)
    return -1000;
  if (a >= 0x7F800000u)
    return 1000;
  if (a >= 0x00800000u)
    return (int)(a >> 23) - 127;
  int p = 22;
  while (!(a >> p))
    --p;
  return p - 149;
}

/// ceil(log2(v)) of a positive fp32 v, exactly: floor, plus one unless v is
/// a power of two.
static inline FP8Q_HD int fp8q_ilog2_ceil(float v) {
  int f = fp8q_ilog2_floor(v);
  if (f <= -1000 || f >= 1000)
    return f;
  return fp8q_f32_bits(v) == fp8q_f32_bits(fp8q_pow2f(f)) ? f : f + 1;
}

/// Clamps an exponent to the e8m0 range [-127, 127].
static inline FP8Q_HD int fp8q_e8m0_clamp_exp(int e) {
  return e < FP8Q_E8M0_MIN_EXP
             ? FP8Q_E8M0_MIN_EXP
             : (e > FP8Q_E8M0_MAX_EXP ? FP8Q_E8M0_MAX_EXP : e);
}

/// Encodes a scale value as e8m0: NaN -> 0xFF, else the exponent of v
/// (floor(log2(v)), exact for the powers of two the pow2 rules produce)
/// clamped to [-127, 127] (zero and negatives give byte 0).
static inline FP8Q_HD uint8_t fp8q_e8m0_encode(float v) {
  uint32_t b = fp8q_f32_bits(v);
  if ((b & 0x7FFFFFFFu) > 0x7F800000u)
    return 0xFFu;
  if (b & 0x80000000u)
    return 0;
  return (uint8_t)(fp8q_e8m0_clamp_exp(fp8q_ilog2_floor(v)) + 127);
}

/*===-- Scale rules (SPEC v2) ---------------------------------------------===*/

/// pow2_ceil exponent: ceil(log2(max(amax, 1e-10) / qmax)) of the fp32
/// quotient, clamped to [-127, 127]. An infinite amax gives 127.
static inline FP8Q_HD int fp8q_scale_exp_pow2_ceil(float amax, int q_type) {
  float a = amax > 1e-10f ? amax : 1e-10f;
  return fp8q_e8m0_clamp_exp(fp8q_ilog2_ceil(a / fp8q_q_max(q_type)));
}

/// pow2_floor exponent: floor(log2(amax)) - emax, clamped to [-127, 127]
/// (an all-zero group gets -127, an infinite amax 127).
static inline FP8Q_HD int fp8q_scale_exp_pow2_floor(float amax, int q_type) {
  int f = fp8q_ilog2_floor(amax);
  if (f <= -1000)
    return FP8Q_E8M0_MIN_EXP;
  return fp8q_e8m0_clamp_exp(f - fp8q_q_emax(q_type));
}

/// e4m3 (NVFP4) scale code: RNE to f8E4M3FN of amax / (6 * global), in
/// fp32, saturating to 448. global > 0 and finite (the runtime checks).
static inline FP8Q_HD uint8_t fp8q_scale_code_e4m3(float amax, float global) {
  return fp8q_fp8_encode(amax / (6.0f * global), FP8Q_F8E4M3FN);
}

/// The fp32 scale value of a group with this amax (NaN skipped by the
/// caller) under `rounding`; `global` is read by e4m3 only. The value is
/// exactly representable in every scale type the rule is valid with.
static inline FP8Q_HD float fp8q_group_scale(float amax, int q_type,
                                             int rounding, float global) {
  switch (rounding) {
  case FP8Q_ROUND_POW2_CEIL:
    return fp8q_pow2f(fp8q_scale_exp_pow2_ceil(amax, q_type));
  case FP8Q_ROUND_POW2_FLOOR:
    return fp8q_pow2f(fp8q_scale_exp_pow2_floor(amax, q_type));
  case FP8Q_ROUND_E4M3:
    return fp8q_fp8_decode(fp8q_scale_code_e4m3(amax, global), FP8Q_F8E4M3FN);
  default: {
    float a = amax > 1e-10f ? amax : 1e-10f;
    return a / fp8q_q_max(q_type);
  }
  }
}

/// Stores a scale value in a 1-byte scale type (e8m0 or e4m3).
static inline FP8Q_HD uint8_t fp8q_scale_encode_byte(float v, int scale_type) {
  return scale_type == FP8Q_SCALE_F8E8M0FNU ? fp8q_e8m0_encode(v)
                                            : fp8q_fp8_encode(v, FP8Q_F8E4M3FN);
}

/// Reads a 1-byte scale.
static inline FP8Q_HD float fp8q_scale_decode_byte(uint8_t b, int scale_type) {
  return scale_type == FP8Q_SCALE_F8E8M0FNU ? fp8q_e8m0_decode(b)
                                            : fp8q_fp8_decode(b, FP8Q_F8E4M3FN);
}

/// q = RNE(x / divisor), saturated, divisor = scale (NVFP4: scale * global,
/// in fp32). A zero divisor (an e4m3 scale that rounded to 0) quantizes
/// x * 0, as TensorRT-LLM's NVFP4 quantizer multiplies by a zero
/// reciprocal: the group becomes +-0, never +-qmax.
static inline FP8Q_HD uint8_t fp8q_q_quantize(float x, float divisor,
                                              int q_type) {
  float v = divisor == 0.0f ? x * 0.0f : x / divisor;
  return fp8q_q_encode(v, q_type);
}

/// x' = decode(q) * divisor, the inverse of fp8q_q_quantize (fp32).
static inline FP8Q_HD float fp8q_q_dequantize(uint8_t code, float divisor,
                                              int q_type) {
  return fp8q_q_decode(code, q_type) * divisor;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* FP8Q_RUNTIME_FP8Q_MX_NUMERICS_H */
