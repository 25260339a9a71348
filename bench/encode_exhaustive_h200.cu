//===- encode_exhaustive_h200.cu - Exhaustive check of the sm_90 fp8 path -===//
//
// The quantize kernel's E4M3FN fast path on sm_89+ (QuantizeCommon.h:
// fma-corrected quotient + cvt.rn.satfinite.e4m3x2.f32) must give the bytes
// of the software path, fp8q_quantize_value(x, scale) =
// fp8q_fp8_encode(x / scale). Checked here exhaustively on the GPU:
//   1. the conversion alone against fp8q_fp8_encode for all 2^32 fp32 bits;
//   1b. the v2 kernels' encoders against the CPU runtime's for all 2^32
//      fp32 bits: cvt.rn.satfinite.e5m2x2.f32 against fp8q_e5m2_encode
//      (NaN inputs only counted: the kernel re-encodes NaN codes in
//      software) and encodeE2M1Branchless against fp8q_e2m1_encode (every
//      input, NaN included);
//   1c. issue 18's encoders (QuantizeV2Common.h) for all 2^32 fp32 bits:
//      encodeE2M1Magic against fp8q_e2m1_encode (every input),
//      encodeE2M1MagicNoNaN (every non-NaN input), and E4M3FNUZ through
//      the E4M3FN hardware conversion of 2y, fnuzFromFn per byte and
//      fnuzCodes8 eight at a time, against fp8q_fp8_encode(y, FNUZ) (every
//      input, NaN included: FNUZ has one NaN code);
//   1d. the FNUZ kernels' quotient path, fnuzQuantize8 with the exact
//      scale (x / (amax / 240)) and a power-of-two one (x * rcp), for every
//      pair (x, amax) of bf16 values against quantizeV2Value (the
//      division is correctly rounded on both sides; every NaN is 0x80);
//   2. the whole path, storeQ8<true> (fp32 values) and encode8Raw (the 1x128
//      kernel, 16-bit words), for every pair (x, amax) of bf16 values and of
//      f16 values, scale = fp8q_quant_scale(amax), rcp = 1 / scale as in the
//      kernel (all 2^32 pairs per type, NaN and infinities included), against
//      the bytes of the CPU runtime on x86 (NaN quotients: see checkPath).
// Usage (repository root, sm_89+ GPU):
//   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -Ikernels/include \
//     bench/encode_exhaustive_h200.cu -o ex && ./ex
//
//===----------------------------------------------------------------------===//

#include "fp8q_kernels/QuantizeCommon.h"
#include "fp8q_kernels/QuantizeV2Common.h"

#include <cstdio>
#include <cstring>

using namespace fp8q::kern;

struct Counts {
  unsigned long long bad, badNaN, badInGroup;
  unsigned first[4];
  unsigned xHist[65536]; ///< in-group differences per x code
};

__global__ void checkEncode(Counts *c) {
  const uint32_t hiBits = blockIdx.x * (uint32_t)blockDim.x + threadIdx.x;
  // 2^22 threads x 1024 consecutive values.
  for (uint32_t i = 0; i < 1024; ++i) {
    const uint32_t u = hiBits * 1024u + i;
    const float f = fp8q_bits_f32(u);
    const uint32_t hw = cvtE4M3FNx2(f, 0.0f) & 0xFFu;
    const uint32_t sw = fp8q_fp8_encode(f, FP8Q_F8E4M3FN);
    if (hw != sw) {
      const bool nan = (u & 0x7FFFFFFFu) > 0x7F800000u;
      unsigned long long n = atomicAdd(nan ? &c->badNaN : &c->bad, 1ull);
      if (!nan && n < 4)
        c->first[n] = u;
    }
  }
}

/// 1b: which = 0 E5M2 conversion, 1 branchless E2M1.
__global__ void checkEncodeV2(Counts *c, int which) {
  const uint32_t hiBits = blockIdx.x * (uint32_t)blockDim.x + threadIdx.x;
  for (uint32_t i = 0; i < 1024; ++i) {
    const uint32_t u = hiBits * 1024u + i;
    const float f = fp8q_bits_f32(u);
    const uint32_t got =
        which == 0 ? cvtE5M2x2(f, 0.0f) & 0xFFu : encodeE2M1Branchless(f);
    const uint32_t want =
        which == 0 ? fp8q_e5m2_encode(f) : fp8q_e2m1_encode(f);
    if (got != want) {
      const bool nan = which == 0 && (u & 0x7FFFFFFFu) > 0x7F800000u;
      unsigned long long n = atomicAdd(nan ? &c->badNaN : &c->bad, 1ull);
      if (!nan && n < 4)
        c->first[n] = u;
    }
  }
}

/// 1c: which = 0 encodeE2M1Magic, 1 encodeE2M1MagicNoNaN, 2 fnuzFromFn on
/// the hardware FN code of 2y, 3 fnuzCodes8 (8 consecutive inputs).
__global__ void checkEncodeIssue18(Counts *c, int which) {
  const uint32_t hiBits = blockIdx.x * (uint32_t)blockDim.x + threadIdx.x;
  for (uint32_t i = 0; i < 1024; i += (which == 3 ? 8 : 1)) {
    const uint32_t u = hiBits * 1024u + i;
    const float f = fp8q_bits_f32(u);
    unsigned n = 0;
    if (which == 0) {
      n = encodeE2M1Magic(f) != fp8q_e2m1_encode(f);
    } else if (which == 1) {
      n = (u & 0x7FFFFFFFu) <= 0x7F800000u &&
          encodeE2M1MagicNoNaN(f) != fp8q_e2m1_encode(f);
    } else if (which == 2) {
      const uint32_t fn = fnCodesPair(2.0f * f, 0.0f) & 0xFFu;
      n = fnuzFromFn(fn, fp8q_absf(f) > 232.0f) !=
          fp8q_fp8_encode(f, FP8Q_F8E4M3FNUZ);
    } else {
      float y[8];
      for (int k = 0; k < 8; ++k)
        y[k] = fp8q_bits_f32(u + k);
      uint32_t w[2];
      fnuzCodes8(y, w);
      for (int k = 0; k < 8; ++k)
        n += ((w[k / 4] >> (8 * (k % 4))) & 0xFFu) !=
             fp8q_fp8_encode(y[k], FP8Q_F8E4M3FNUZ);
    }
    if (n) {
      unsigned long long k = atomicAdd(&c->bad, (unsigned long long)n);
      if (k < 4)
        c->first[k] = u;
    }
  }
}

/// 1d: block b: bf16 amax code b; each thread walks 256 bf16 x codes;
/// pow2: the divisor is amax's power-of-two ceiling scale.
template <bool Pow2> __global__ void checkFnuzPath(Counts *c) {
  const float amax = fp8q_absf(fp8q_bf16_to_f32((uint16_t)blockIdx.x));
  const int rounding = Pow2 ? FP8Q_ROUND_POW2_CEIL : FP8Q_ROUND_EXACT;
  const float divisor =
      fp8q_group_scale(amax, FP8Q_Q_F8E4M3FNUZ, rounding, 1.0f);
  const bool hw = divisor != 0.0f && divisor <= 3.40282347e38f;
  if (!hw)
    return; // the kernel encodes such groups in software
  const float rcp = Pow2 ? 1.0f / divisor : 0.0f;
  for (uint32_t i = 0; i < 256; i += 8) {
    float v[8];
    for (int k = 0; k < 8; ++k)
      v[k] = fp8q_bf16_to_f32((uint16_t)(threadIdx.x * 256u + i + k));
    uint32_t w[2];
    fnuzQuantize8(v, divisor, rcp, Pow2, w);
    for (int k = 0; k < 8; ++k)
      if (((w[k / 4] >> (8 * (k % 4))) & 0xFFu) !=
          quantizeV2Value<FP8Q_Q_F8E4M3FNUZ>(v[k], divisor, rcp, Pow2)) {
        unsigned long long n = atomicAdd(&c->bad, 1ull);
        if (n < 4)
          c->first[n] = blockIdx.x << 16 | (threadIdx.x * 256u + i + k);
      }
  }
}

template <bool Bf16> __device__ inline float half16(uint32_t h) {
  return Bf16 ? fp8q_bf16_to_f32((uint16_t)h) : fp8q_f16_to_f32((uint16_t)h);
}

/// Block b: amax code b; each thread walks 256 x codes. Raw: the 1x128
/// kernel's encode8Raw on the 16-bit words, with `hw` as the kernel sets it
/// (no NaN element, finite scale); else storeQ8<true> on fp32 values.
template <bool Bf16, bool Raw> __global__ void checkPath(Counts *c) {
  const float amax = fp8q_absf(half16<Bf16>(blockIdx.x));
  const float scale = groupScale(amax, Fp8::E4M3FN);
  const float rcp = 1.0f / scale;
  for (uint32_t i = 0; i < 256; ++i) {
    const uint32_t xc = threadIdx.x * 256u + i;
    const float x = half16<Bf16>(xc);
    uint8_t hw[8];
    if constexpr (Raw) {
      const uint32_t w[4] = {xc | xc << 16, xc | xc << 16, xc | xc << 16,
                             xc | xc << 16};
      const bool use = !(x != x) && scale <= 3.40282347e38f;
      Bytes8 b =
          Bf16 ? encode8Raw<::fp8q::kern::Bf16>(w, scale, rcp, Fp8::E4M3FN, use)
               : encode8Raw<F16>(w, scale, rcp, Fp8::E4M3FN, use);
      memcpy(hw, &b, 8);
    } else {
      float v[8] = {x, x, x, x, x, x, x, x};
      storeQ8<true>(hw, v, scale, rcp, Fp8::E4M3FN);
    }
    // The CPU runtime's bytes: fp8q_quantize_value, except that its NaN
    // quotients are those of the x86 CPU, not of the GPU's division (+NaN):
    // a NaN x keeps its sign, inf / inf is the negative default NaN.
    uint8_t sw = quantizeValue(x, scale, Fp8::E4M3FN);
    if (x != x)
      sw = (uint8_t)(((fp8q_f32_bits(x) >> 24) & 0x80u) | 0x7fu);
    else if (fp8q_absf(x) > 3.40282347e38f && !(scale <= 3.40282347e38f))
      sw = 0xff;
    bool same = true;
    for (int k = 0; k < 8; ++k)
      same &= hw[k] == sw;
    if (!same) {
      const bool inGroup = fp8q_absf(x) <= amax; // what a real group holds
      atomicAdd(inGroup ? &c->badInGroup : &c->bad, 1ull);
      if (inGroup && atomicAdd(&c->xHist[xc], 1u) == 0)
        printf("  in-group difference: amax code 0x%04x x code 0x%04x: "
               "0x%02x vs 0x%02x\n",
               blockIdx.x, xc, hw[0], sw);
    }
  }
}

int main() {
  Counts *c;
  cudaMallocManaged(&c, sizeof(Counts));
  memset(c, 0, sizeof(Counts));
  checkEncode<<<1u << 14, 256>>>(c);
  cudaDeviceSynchronize();
  printf("EXHAUSTIVE encode: all 2^32 fp32 -> e4m3fn, cvt.rn.satfinite vs "
         "fp8q_fp8_encode: %llu non-NaN differ, %llu NaN inputs differ "
         "(sign of NaN)\n",
         c->bad, c->badNaN);
  for (unsigned k = 0; k < 4 && k < c->bad; ++k)
    printf("  first differing: 0x%08x\n", c->first[k]);
  int fails = c->bad != 0;
  for (int which = 0; which < 2; ++which) {
    memset(c, 0, sizeof(Counts));
    checkEncodeV2<<<1u << 14, 256>>>(c, which);
    cudaDeviceSynchronize();
    printf("EXHAUSTIVE encode: all 2^32 fp32 -> %s: %llu non-NaN differ, "
           "%llu NaN inputs differ (sign of NaN)\n",
           which == 0 ? "e5m2, cvt.rn.satfinite vs fp8q_e5m2_encode"
                      : "e2m1, encodeE2M1Branchless vs fp8q_e2m1_encode",
           c->bad, c->badNaN);
    for (unsigned k = 0; k < 4 && k < c->bad; ++k)
      printf("  first differing: 0x%08x\n", c->first[k]);
    fails |= c->bad != 0;
  }
  static const char *const kIssue18[4] = {
      "e2m1, encodeE2M1Magic vs fp8q_e2m1_encode (every input)",
      "e2m1, encodeE2M1MagicNoNaN vs fp8q_e2m1_encode (non-NaN inputs)",
      "e4m3fnuz, fnuzFromFn(cvt.rn.satfinite.e4m3x2(2y)) vs fp8q_fp8_encode",
      "e4m3fnuz, fnuzCodes8 (hardware cvt of 2y) vs fp8q_fp8_encode"};
  for (int which = 0; which < 4; ++which) {
    memset(c, 0, sizeof(Counts));
    checkEncodeIssue18<<<1u << 14, 256>>>(c, which);
    cudaError_t e = cudaDeviceSynchronize();
    printf("EXHAUSTIVE encode: all 2^32 fp32 -> %s: %llu differ (%s)\n",
           kIssue18[which], c->bad, cudaGetErrorString(e));
    for (unsigned k = 0; k < 4 && k < c->bad; ++k)
      printf("  first differing: 0x%08x\n", c->first[k]);
    fails |= c->bad != 0 || e != cudaSuccess;
  }
  for (int pow2 = 0; pow2 < 2; ++pow2) {
    memset(c, 0, sizeof(Counts));
    if (pow2)
      checkFnuzPath<true><<<65536, 256>>>(c);
    else
      checkFnuzPath<false><<<65536, 256>>>(c);
    cudaError_t e = cudaDeviceSynchronize();
    printf("EXHAUSTIVE path bf16 e4m3fnuz fnuzQuantize8 (%s scale): all 2^32 "
           "(x, amax) pairs vs quantizeV2Value: %llu differ (%s)\n",
           pow2 ? "pow2_ceil" : "exact", c->bad, cudaGetErrorString(e));
    for (unsigned k = 0; k < 4 && k < c->bad; ++k)
      printf("  first differing: amax code 0x%04x x code 0x%04x\n",
             c->first[k] >> 16, c->first[k] & 0xFFFFu);
    fails |= c->bad != 0 || e != cudaSuccess;
  }
  for (int t = 0; t < 4; ++t) {
    memset(c, 0, sizeof(Counts));
    if (t == 0)
      checkPath<true, false><<<65536, 256>>>(c);
    else if (t == 1)
      checkPath<false, false><<<65536, 256>>>(c);
    else if (t == 2)
      checkPath<true, true><<<65536, 256>>>(c);
    else
      checkPath<false, true><<<65536, 256>>>(c);
    cudaError_t e = cudaDeviceSynchronize();
    printf("EXHAUSTIVE path %s %s: all 2^32 (x, amax) pairs vs "
           "fp8q_quantize_value: %llu differ with |x| <= amax, %llu with "
           "|x| > amax or NaN (%s)\n",
           t % 2 == 0 ? "bf16" : "f16",
           t < 2 ? "storeQ8 (fp32 values)" : "encode8Raw (16-bit words)",
           c->badInGroup, c->bad, cudaGetErrorString(e));
    // encode8Raw is only ever given groups (|x| <= amax, amax not NaN).
    fails |= c->badInGroup != 0 || (t < 2 && c->bad != 0) || e != cudaSuccess;
  }
  printf("EXHAUSTIVE %s\n", fails ? "FAILED" : "passed");
  return fails;
}
