//===- encode_instr_probe.hip - Static instructions per encoded element ---===//
//
// Issue 18: one 8-element chunk per thread through each element encoder of
// QuantizeV2Common.h / QuantizeCommon.h, so that the static instruction
// count of a probe minus its base (same loads and stores, no encoding),
// divided by 8, is the encoder's cost per element. Counts in
// bench/results/encode_instr_counts.txt; commands:
//   clang-22 -x hip --offload-arch=gfx950 --offload-device-only \
//     --no-gpu-bundle-output -nogpuinc -nogpulib -O3 -std=c++17 \
//     -Ikernels/include -Iinclude bench/encode_instr_probe.hip -o p.hsaco
//   nvcc -O3 -std=c++17 -ptx -arch=sm_90 -Iinclude -Ikernels/include \
//     -x cu bench/encode_instr_probe.hip -o p.ptx
//
//===----------------------------------------------------------------------===//
#include "fp8q_kernels/QuantizeCommon.h"
#include "fp8q_kernels/QuantizeV2Common.h"
using namespace fp8q::kern;
#define LOAD8                                                                  \
  const int t = threadId();                                                    \
  float v[8];                                                                  \
  for (int i = 0; i < 8; ++i)                                                  \
    v[i] = x[8 * t + i];
extern "C" __global__ void probe_base4(const float *x, uint32_t *q) {
  LOAD8 uint32_t w = 0;
  for (int i = 0; i < 8; ++i)
    w ^= floatBits(v[i]) << (4 * i);
  q[t] = w;
}
extern "C" __global__ void probe_e2m1_branchless(const float *x, uint32_t *q) {
  LOAD8 uint32_t w = 0;
  for (int i = 0; i < 8; ++i)
    w |= encodeE2M1Branchless(v[i]) << (4 * i);
  q[t] = w;
}
extern "C" __global__ void probe_e2m1_magic(const float *x, uint32_t *q) {
  LOAD8 uint32_t w = 0;
  for (int i = 0; i < 8; ++i)
    w |= encodeE2M1Magic(v[i]) << (4 * i);
  q[t] = w;
}
extern "C" __global__ void probe_e2m1_magic_nonan(const float *x, uint32_t *q) {
  LOAD8 uint32_t w = 0;
  for (int i = 0; i < 8; ++i)
    w |= encodeE2M1MagicNoNaN(v[i]) << (4 * i);
  q[t] = w;
}
extern "C" __global__ void probe_base8(const float *x, uint32_t *q) {
  LOAD8 uint32_t w0 = 0, w1 = 0;
  for (int i = 0; i < 4; ++i) {
    w0 ^= floatBits(v[i]) << (8 * i);
    w1 ^= floatBits(v[4 + i]) << (8 * i);
  }
  q[2 * t] = w0;
  q[2 * t + 1] = w1;
}
extern "C" __global__ void probe_fnuz_soft(const float *x, uint32_t *q) {
  LOAD8 uint32_t w0 = 0, w1 = 0;
  for (int i = 0; i < 4; ++i) {
    w0 |= (uint32_t)fp8q_q_encode(v[i], FP8Q_Q_F8E4M3FNUZ) << (8 * i);
    w1 |= (uint32_t)fp8q_q_encode(v[4 + i], FP8Q_Q_F8E4M3FNUZ) << (8 * i);
  }
  q[2 * t] = w0;
  q[2 * t + 1] = w1;
}
extern "C" __global__ void probe_fnuz_hw(const float *x, uint32_t *q) {
  LOAD8 uint32_t w[2];
  fnuzCodes8(v, w);
  q[2 * t] = w[0];
  q[2 * t + 1] = w[1];
}
#if defined(__CUDA_ARCH__)
// FN 1x128: hwCodes8 (fma-corrected quotient + cvt + sign fix + NaN-code
// test) against encode8Raw on the raw bf16 words.
extern "C" __global__ void probe_fn_hwcodes8(const uint32_t *xw, uint32_t *q,
                                             float scale, float rcp) {
  const int t = threadId();
  uint32_t w[4];
  for (int i = 0; i < 4; ++i)
    w[i] = xw[4 * t + i];
  float v[8];
  for (int i = 0; i < 8; ++i)
    v[i] = halfValue<Bf16>(w[i / 2], i % 2);
  Bytes8 b; // hwCodes8<E4M3FN, Q16> with exactQ (QuantizeV2.hip)
  for (int i = 0; i < 2; ++i)
    b.w[i] = cvtE4M3FNx2(quotient(v[4 * i], scale, rcp),
                         quotient(v[4 * i + 1], scale, rcp)) |
             (cvtE4M3FNx2(quotient(v[4 * i + 2], scale, rcp),
                          quotient(v[4 * i + 3], scale, rcp))
              << 16);
  if ((((b.w[0] & 0x7f7f7f7fu) + 0x01010101u) |
       ((b.w[1] & 0x7f7f7f7fu) + 0x01010101u)) &
      0x80808080u)
    b.w[0] = b.w[1] = 0;
  q[2 * t] = b.w[0];
  q[2 * t + 1] = b.w[1];
}
extern "C" __global__ void probe_fn_raw(const uint32_t *xw, uint32_t *q,
                                        float scale, float rcp) {
  const int t = threadId();
  uint32_t w[4];
  for (int i = 0; i < 4; ++i)
    w[i] = xw[4 * t + i];
  Bytes8 b = encode8Raw<Bf16>(w, scale, rcp, Fp8::E4M3FN, true);
  q[2 * t] = b.w[0];
  q[2 * t + 1] = b.w[1];
}
#endif
