//===- E2M1Packed.h - Two E2M1 codes per instruction from 16-bit x -*- C++ -*-//
//
// The E2M1 encode of x / 2^k for 16-bit x (bf16, f16) and a power-of-two
// divisor, the MXFP4 case, without widening x to fp32: x * 2^-k is exact in
// x's own format, so the packed 16-bit arithmetic of the GPU (bf16x2 / f16x2
// multiply, add, min, max: one instruction for two elements) runs
// e2m1MagicMag's magic-number rounding on both halves of a raw word at once.
// For one 8-element chunk on sm_90: 79 PTX instructions against 180 for the
// fp32 path (widen, multiply, clamp, binade, magic add, sign and nibble
// insert per element; bf16, bench/e2m1_encode_ptx.sh). The kernels take it
// on NVIDIA only (e2m1PackedNative).
//
// The host model (CPU checks) rounds each half's product and sum from fp32,
// which is exact for these formats (2p + 2 <= 24 bits), and can flush
// subnormals, so that the exhaustive test covers targets that flush and
// targets that keep them: the divisor range e2m1PackedRcpOk admits makes
// the two agree.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_KERNELS_E2M1PACKED_H
#define FP8Q_KERNELS_E2M1PACKED_H

#include "fp8q_kernels/Numerics.h"

/// Issue 18's switch for the packed MXFP4 encode (0: every element takes the
/// fp32 path, for A/B runs through FP8Q_NVCC_FLAGS).
#ifndef FP8Q_V2_E2M1_PACKED
#define FP8Q_V2_E2M1_PACKED 1
#endif

/// Issue 18's switch for NVFP4's packed encode of fp32 quotients
/// (e2m1Pack8Quotients; 0: the fp32 encode per element, for A/B runs).
#ifndef FP8Q_V2_NVFP4_PACKED
#define FP8Q_V2_NVFP4_PACKED 1
#endif

namespace fp8q::kern {

/// True where the kernels take the packed encode for T: sm_90 (bf16x2 add /
/// mul) and sm_80 (f16x2 min / max), and the host, whose model the CPU
/// tests run. Not on AMD: gfx9 has no packed bf16 arithmetic (gfx12.5
/// adds it), and with v_pk_*_f16 the f16 MXFP4 kernel took 75 VGPRs on
/// gfx950, above the raw-word kernels' budget of 64 (resources.test).
FP8Q_HOSTDEV constexpr bool e2m1PackedNative(Bf16) {
#if defined(FP8Q_NVPTX)
  return FP8Q_V2_E2M1_PACKED && __CUDA_ARCH__ >= 900;
#elif defined(FP8Q_AMDGCN)
  return false;
#else
  return FP8Q_V2_E2M1_PACKED;
#endif
}
FP8Q_HOSTDEV constexpr bool e2m1PackedNative(F16) {
#if defined(FP8Q_NVPTX)
  return FP8Q_V2_E2M1_PACKED && __CUDA_ARCH__ >= 800;
#elif defined(FP8Q_AMDGCN)
  return false;
#else
  return FP8Q_V2_E2M1_PACKED;
#endif
}

/// The reciprocals 2^-k the packed encode is exact for, on targets that
/// flush subnormals and on those that do not: 2^-k itself normal in T, and
/// small enough that a subnormal x (below 2^-126 for bf16, 2^-14 for f16)
/// gives a quotient below 0.25, which is code 0 whether or not it is
/// flushed (the sign comes from x's bits). Other divisors take the fp32
/// path.
FP8Q_HOSTDEV inline bool e2m1PackedRcpOk(float rcp, Bf16) {
  return rcp >= 0x1p-126f && rcp <= 0x1p124f;
}
FP8Q_HOSTDEV inline bool e2m1PackedRcpOk(float rcp, F16) {
  return rcp >= 0x1p-14f && rcp <= 0x1p12f;
}

/// rcp (a power of two e2m1PackedRcpOk admits) in both halves of a word.
FP8Q_HOSTDEV inline uint32_t e2m1PackedRcp(float rcp, Bf16) {
  return (floatBits(rcp) >> 16) * 0x10001u;
}
FP8Q_HOSTDEV inline uint32_t e2m1PackedRcp(float rcp, F16) {
  return (uint32_t)fp8q_f32_to_f16(rcp) * 0x10001u;
}

/// The format constants of the packed encode: 1.0 and 6.0 in both halves,
/// the exponent field, and the magic's offset from the binade's exponent
/// field (2^(p-2) above it: the ulp of 2^(p - 2 + b) is E2M1's spacing
/// 2^(b - 1), p the significand bits of T).
template <class T> struct E2M1PackedConsts;
template <> struct E2M1PackedConsts<Bf16> {
  static constexpr uint32_t kOne = 0x3f803f80u, kSix = 0x40c040c0u,
                            kExp = 0x7f807f80u, kMagicOff = 0x03000300u;
  static constexpr int kMant = 7;
};
template <> struct E2M1PackedConsts<F16> {
  static constexpr uint32_t kOne = 0x3c003c00u, kSix = 0x46004600u,
                            kExp = 0x7c007c00u, kMagicOff = 0x24002400u;
  static constexpr int kMant = 10;
};

namespace e2m1packed {

/// The host model of one half's operation: fp32 result rounded to T (exact
/// rounding for both formats), subnormal operands and results flushed to
/// zero when `Ftz`.
template <bool Ftz> FP8Q_HOSTDEV inline uint32_t half16(float r, Bf16) {
  uint32_t h = fp8q_f32_to_bf16(r);
  return Ftz && (h & 0x7f80u) == 0 ? (h & 0x8000u) : h;
}
template <bool Ftz> FP8Q_HOSTDEV inline uint32_t half16(float r, F16) {
  uint32_t h = fp8q_f32_to_f16(r);
  return Ftz && (h & 0x7c00u) == 0 ? (h & 0x8000u) : h;
}
template <bool Ftz, class T> FP8Q_HOSTDEV inline float widen(uint32_t h) {
  if (Ftz && (h & E2M1PackedConsts<T>::kExp & 0xffffu) == 0)
    h &= 0x8000u;
  return toFloat(T{(uint16_t)h});
}
template <class T, bool Ftz, bool Add>
FP8Q_HOSTDEV inline uint32_t modelOp(uint32_t a, uint32_t b) {
  uint32_t r = 0;
  for (int i = 0; i < 2; ++i) {
    const float x = widen<Ftz, T>((a >> (16 * i)) & 0xffffu),
                y = widen<Ftz, T>((b >> (16 * i)) & 0xffffu);
    r |= half16<Ftz>(Add ? addRn(x, y) : mulRn(x, y), T{}) << (16 * i);
  }
  return r;
}

/// a + b (`Add`) or a * b per half, rounded to nearest even.
template <class T, bool Ftz, bool Add>
FP8Q_HOSTDEV inline uint32_t arith2(uint32_t a, uint32_t b) {
#if defined(FP8Q_NVPTX)
  constexpr bool kBf16 = E2M1PackedConsts<T>::kMant == 7;
  uint32_t r;
  if constexpr (Add && kBf16)
    asm("add.rn.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  else if constexpr (Add)
    asm("add.rn.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  else if constexpr (kBf16)
    asm("mul.rn.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  else
    asm("mul.rn.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
#else
  return modelOp<T, Ftz, Add>(a, b);
#endif
}

/// min / max per half of non-negative, non-NaN values (they order like
/// their bits, so an unsigned 16-bit min is the float min).
template <class T, bool Max>
FP8Q_HOSTDEV inline uint32_t minMax2(uint32_t a, uint32_t b) {
#if defined(FP8Q_NVPTX)
  uint32_t r;
  if constexpr (E2M1PackedConsts<T>::kMant == 7) {
    if constexpr (Max)
      asm("max.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    else
      asm("min.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  } else {
    if constexpr (Max)
      asm("max.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    else
      asm("min.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  }
  return r;
#else
  uint32_t r = 0;
  for (int i = 0; i < 2; ++i) {
    const uint32_t x = (a >> (16 * i)) & 0xffffu, y = (b >> (16 * i)) & 0xffffu;
    r |= (Max ? (x > y ? x : y) : (x < y ? x : y)) << (16 * i);
  }
  return r;
#endif
}

} // namespace e2m1packed

/// The E2M1 codes of the two T values of `w` divided by 2^k (rcp2 =
/// e2m1PackedRcp(2^-k)), low half's code in bits 0-3, high half's in bits
/// 16-19: quantizeE2M1(x, 2^k, 2^-k, pow2) for every non-NaN x when
/// e2m1PackedRcpOk(2^-k) (unittests/Kernels/E2M1PackedTest.cpp, every x
/// and k). y = |x| * 2^-k is exact, min(y, 6) saturates (infinity too), and
/// the magic 2^(p - 2 + b) of the binade b = clamp(exponent, 0, 2) rounds
/// it to E2M1's grid as e2m1MagicMag does: bits(c + M) - bits(M) + 2b per
/// half, no carry or borrow crossing (each half's difference is 0..4,
/// c + M >= M). `HostFtz`: the host model flushes subnormals.
/// `Scaled` false: w holds the quotients themselves and the multiply is
/// skipped (rcp2 unused).
template <class T, bool HostFtz = false, bool Scaled = true>
FP8Q_HOSTDEV inline uint32_t e2m1CodesPacked(uint32_t w, uint32_t rcp2) {
  using C = E2M1PackedConsts<T>;
  using namespace e2m1packed;
  const uint32_t y = Scaled ? arith2<T, HostFtz, false>(w & 0x7fff7fffu, rcp2)
                            : w & 0x7fff7fffu;
  const uint32_t c = minMax2<T, false>(y, C::kSix);
  const uint32_t eb = minMax2<T, true>(c, C::kOne) & C::kExp;
  const uint32_t magic = eb + C::kMagicOff;
  const uint32_t s = arith2<T, HostFtz, true>(c, magic);
  const uint32_t twoB = (eb - C::kOne) >> (C::kMant - 1);
  return (s - magic + twoB) | ((w >> 12) & 0x00080008u);
}

/// The 4 bytes of 8 E2M1 codes (element 2i in the low nibble) of the 8 T
/// values of w[0..3] (element 2i in the low half of w[i]) divided by 2^k.
template <class T, bool HostFtz = false>
FP8Q_HOSTDEV inline uint32_t e2m1Pack8(const uint32_t (&w)[4], uint32_t rcp2) {
  uint32_t out = 0;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const uint32_t c = e2m1CodesPacked<T, HostFtz>(w[i], rcp2);
    out |= ((c | (c >> 12)) & 0xffu) << (8 * i);
  }
  return out;
}

/// Two fp32 values as one bf16x2 word (lo in the low half), each rounded to
/// odd: its high 16 bits, the lowest of them set when a discarded bit is.
/// For E2M1 (2 significand bits) this keeps the rounding: bf16 has
/// 8 >= 2 + 2 bits, and every E2M1 value and rounding midpoint (0.25,
/// 0.75, .., 5) is a bf16 with its lowest bit clear, so the word's value
/// sits on the same side of each midpoint as q, or on it exactly when q is
/// (the round-to-odd argument; no overflow: the largest finite fp32
/// becomes the largest finite bf16).
FP8Q_HOSTDEV inline uint32_t bf16x2RoundToOdd(float lo, float hi) {
  const uint32_t a = floatBits(lo), b = floatBits(hi);
  const uint32_t stickyLo = (a & 0xffffu) < 1u ? (a & 0xffffu) : 1u;
  const uint32_t stickyHi = (b & 0xffffu) < 1u ? (b & 0xffffu) : 1u;
  return ((a >> 16) | (b & 0xffff0000u)) | stickyLo | stickyHi << 16;
}

/// The 4 bytes of the E2M1 codes of 8 non-NaN fp32 quotients (element 2i
/// in the low nibble): encodeE2M1MagicNoNaN(q[i]) for every non-NaN q
/// (unittests/Kernels/E2M1PackedTest.cpp; bench/encode_exhaustive_cpu.cpp
/// `e2m1_quotient_packed` for all 2^32), two codes per packed bf16
/// instruction after bf16x2RoundToOdd. NVFP4's path: its e4m3 scale times
/// the global is no power of two, so the quotient is formed in fp32
/// (correctedQuotient) and only the encode is packed. A subnormal bf16
/// quotient is below 0.25, code 0 with q's sign whether or not the target
/// flushes it.
template <bool HostFtz = false>
FP8Q_HOSTDEV inline uint32_t e2m1Pack8Quotients(const float (&q)[8]) {
  uint32_t out = 0;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const uint32_t c = e2m1CodesPacked<Bf16, HostFtz, false>(
        bf16x2RoundToOdd(q[2 * i], q[2 * i + 1]), 0);
    out |= ((c | (c >> 12)) & 0xffu) << (8 * i);
  }
  return out;
}

} // namespace fp8q::kern

#endif // FP8Q_KERNELS_E2M1PACKED_H
