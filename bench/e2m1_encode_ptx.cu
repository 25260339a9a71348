//===- e2m1_encode_ptx.cu - Static cost of the two MXFP4 encodes ----------===//
//
// One chunk (8 elements, one 16-byte load, one 4-byte store) encoded to
// E2M1 the two ways the raw-word quantize kernels can take for a
// power-of-two divisor: the packed encode (E2M1Packed.h, e2m1Pack8) and
// the fp32 path (widen, x * rcp, quantizeE2M1 per element). Compiled to
// PTX for sm_90 by bench/e2m1_encode_ptx.sh, which counts the
// instructions of each kernel (issue 18; no GPU needed). kNvfp4Fp32 /
// kNvfp4Packed: the same for NVFP4 quotients (e2m1Pack8Quotients).
//
//===----------------------------------------------------------------------===//

#include "fp8q_kernels/E2M1Packed.h"
#include "fp8q_kernels/QuantizeV2Common.h"
using namespace fp8q::kern;
template <class T>
__global__ void kPacked(const uint4 *in, uint32_t *out, uint32_t rcp2) {
  uint4 v = in[threadIdx.x];
  const uint32_t w[4] = {v.x, v.y, v.z, v.w};
  out[threadIdx.x] = e2m1Pack8<T>(w, rcp2);
}
template <class T>
__global__ void kFp32(const uint4 *in, uint32_t *out, float d, float rcp) {
  uint4 v = in[threadIdx.x];
  const uint32_t w[4] = {v.x, v.y, v.z, v.w};
  // The kernels take this path only for a finite, nonzero divisor.
  if (!(d > 0.0f && d < 1e38f))
    __builtin_unreachable();
  uint32_t r = 0;
#pragma unroll
  for (int i = 0; i < 8; ++i)
    r |= quantizeE2M1<true>(toFloat(T{(uint16_t)(w[i / 2] >> (16 * (i % 2)))}),
                            d, rcp, true)
         << (4 * i);
  out[threadIdx.x] = r;
}
template __global__ void kPacked<Bf16>(const uint4 *, uint32_t *, uint32_t);
template __global__ void kPacked<F16>(const uint4 *, uint32_t *, uint32_t);
template __global__ void kFp32<Bf16>(const uint4 *, uint32_t *, float, float);
template __global__ void kFp32<F16>(const uint4 *, uint32_t *, float, float);

// NVFP4 (a divisor that is no power of two): the fp32 quotient
// (correctedQuotient, what the kernels form for NVFP4) encoded per element,
// against the same quotients through e2m1Pack8Quotients (bf16 input).
__global__ void kNvfp4Fp32(const uint4 *in, uint32_t *out, float d,
                           float rcp) {
  uint4 v = in[threadIdx.x];
  const uint32_t w[4] = {v.x, v.y, v.z, v.w};
  uint32_t r = 0;
#pragma unroll
  for (int i = 0; i < 8; ++i)
    r |= quantizeE2M1<true>(
             toFloat(Bf16{(uint16_t)(w[i / 2] >> (16 * (i % 2)))}), d, rcp,
             false, true)
         << (4 * i);
  out[threadIdx.x] = r;
}
__global__ void kNvfp4Packed(const uint4 *in, uint32_t *out, float d,
                             float rcp) {
  uint4 v = in[threadIdx.x];
  const uint32_t w[4] = {v.x, v.y, v.z, v.w};
  float q[8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
    q[i] = correctedQuotient(
        toFloat(Bf16{(uint16_t)(w[i / 2] >> (16 * (i % 2)))}), d, rcp);
  out[threadIdx.x] = e2m1Pack8Quotients(q);
}
