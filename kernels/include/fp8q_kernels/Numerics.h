//===- Numerics.h - Kernel spelling of the runtime's numerics ---*- C++ -*-===//
//
// The kernels round exactly like the CPU reference runtime because they call
// the same code: fp8q/Runtime/fp8q_numerics.h (SPEC "Numerics": scale =
// max(amax, 1e-10) / fp8_max, q = RNE(x / scale) saturated; bf16/f16 RNE).
// This header only adds C++ names and the element-type tags.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_KERNELS_NUMERICS_H
#define FP8Q_KERNELS_NUMERICS_H

#include "fp8q_kernels/Portability.h"

#include "fp8q/Runtime/fp8q_numerics.h"

namespace fp8q::kern {

/// The two FP8 flavours (values match fp8q_fp8_type).
enum class Fp8 : int { E4M3FN = FP8Q_F8E4M3FN, E4M3FNUZ = FP8Q_F8E4M3FNUZ };

/// Largest finite value: 448 (OCP E4M3FN) or 240 (E4M3FNUZ).
FP8Q_HOSTDEV inline float fp8Max(Fp8 t) { return fp8q_fp8_max((int)t); }
/// RNE encode, saturating to +-max (fp8q_fp8_encode).
FP8Q_HOSTDEV inline uint8_t encodeFp8(float f, Fp8 t) {
  return fp8q_fp8_encode(f, (int)t);
}
/// Exact decode (fp8q_fp8_decode).
FP8Q_HOSTDEV inline float decodeFp8(uint8_t b, Fp8 t) {
  return fp8q_fp8_decode(b, (int)t);
}
/// SPEC's group scale: max(amax, 1e-10) / fp8_max.
FP8Q_HOSTDEV inline float groupScale(float amax, Fp8 t) {
  return fp8q_quant_scale(amax, (int)t);
}
/// q = RNE(x / scale) saturated.
FP8Q_HOSTDEV inline uint8_t quantizeValue(float x, float scale, Fp8 t) {
  return fp8q_quantize_value(x, scale, (int)t);
}

/// quantizeValue(x, scale, t) computed through the reciprocal `rcp` =
/// 1 / scale: the same bits, about 4x cheaper. y = x * rcp is within 2 fp32
/// ulps of fl(x / scale); in the normal fp8 range the fp8 rounding of
/// fl(x / scale) depends only on which side of the midpoint (low 20 mantissa
/// bits == 0x80000) it lies, so whenever y is more than 16 ulps from a
/// midpoint both round alike. Near a midpoint, in the fp8 subnormal range,
/// for zero, NaN and infinity it falls back to the exact division.
FP8Q_HOSTDEV inline uint8_t quantizeValueFast(float x, float scale, float rcp,
                                              Fp8 t) {
  const bool fnuz = t == Fp8::E4M3FNUZ;
  const uint32_t bias = fnuz ? 8 : 7;
  const uint32_t minNormal = (127 + 1 - bias) << 23;
  const uint32_t maxBits = fnuz ? 0x43700000u : 0x43e00000u; // 240 / 448
  const uint32_t u = fp8q_f32_bits(x * rcp);
  const uint32_t a = u & 0x7fffffffu;
  const uint32_t low = a & 0xfffffu;
  if (a < minNormal || a >= 0x7f800000u || low - 0x7fff0u < 0x20u) {
    // NaN quotients are encoded here, not from the division, whose NaN sign
    // depends on the hardware (NVIDIA returns +NaN): x NaN keeps its sign
    // (the NaN operand propagates on the CPU); inf / inf is x86's default
    // NaN, which is negative (the CPU runtime's platform).
    const uint32_t xa = fp8q_f32_bits(x) & 0x7fffffffu;
    if (xa > 0x7f800000u)
      return fnuz ? 0x80 : (uint8_t)(((fp8q_f32_bits(x) >> 24) & 0x80u) | 0x7f);
    if (xa == 0x7f800000u && !(scale <= 3.40282347e38f))
      return fnuz ? 0x80 : 0xff;
    return fp8q_quantize_value(x, scale, (int)t);
  }
  const uint32_t c = a < maxBits ? a : maxBits; // saturate
  const uint32_t code =
      ((c + 0x7ffffu + ((c >> 20) & 1u)) >> 20) - ((127u - bias) << 3);
  return (uint8_t)(code | ((u >> 24) & 0x80u));
}

/// bf16 storage.
struct Bf16 {
  uint16_t bits;
};
/// IEEE half storage.
struct F16 {
  uint16_t bits;
};

FP8Q_HOSTDEV inline float toFloat(float v) { return v; }
FP8Q_HOSTDEV inline float toFloat(Bf16 v) { return fp8q_bf16_to_f32(v.bits); }
FP8Q_HOSTDEV inline float toFloat(F16 v) { return fp8q_f16_to_f32(v.bits); }

/// fp32 -> bf16 bits, round to nearest even.
FP8Q_HOSTDEV inline uint16_t bf16Bits(float f) { return fp8q_f32_to_bf16(f); }

FP8Q_HOSTDEV inline float store(float v, float) { return v; }
FP8Q_HOSTDEV inline Bf16 store(float v, Bf16) {
  return Bf16{fp8q_f32_to_bf16(v)};
}
FP8Q_HOSTDEV inline F16 store(float v, F16) { return F16{fp8q_f32_to_f16(v)}; }

/// Rounds fp32 to the storage type T and back (what rms_norm_quantize's
/// unquantized result holds and what it quantizes).
template <class T> FP8Q_HOSTDEV inline float roundTo(float v, T tag) {
  return toFloat(store(v, tag));
}

} // namespace fp8q::kern

#endif // FP8Q_KERNELS_NUMERICS_H
