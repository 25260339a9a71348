//===- Quantize.hip - Per-group fp8 quantization kernels
//-------------------===//
//
// q = RNE(x / scale), scale = max(amax, 1e-10) / fp8_max per 1 x group_size
// group. 8 lanes share a 1x128 group (16 elements each); the scale is
// written through its strides, so row-major, column-major and aligned
// column-major outputs are the same kernel (the fused transposed write).
//
//===----------------------------------------------------------------------===//

#include "fp8q_kernels/KernelArgs.h"
#include "fp8q_kernels/QuantizeCommon.h"

using namespace fp8q::kern;

template <class T> __device__ inline void quantizeBody(const QuantArgs &p) {
  const int tid = threadId();
  const int64_t G = divNonNeg(p.K, p.group);
  const int64_t gid =
      blockIdX() * kQuantGroupsPerBlock + tid / kQuantLanesPerGroup;
  const bool active = gid < p.M * G;
  GroupCoord gc = groupOfIndex(active ? gid : 0, p.M, G, p.mFastest != 0);
  const T *x = static_cast<const T *>(p.x) + gc.m * p.ldx + gc.g * p.group;
  uint8_t *q = p.q + gc.m * p.ldq + gc.g * p.group;
  // bf16 / f16 inputs may take the sm_89+ hardware fp8 encode (storeQ8:
  // proven bit-exact only for 16-bit inputs); f32 keeps the software one.
  quantizeGroup<sizeof(T) == 2>(
      [&](int64_t e, float (&v)[8]) { load8(x + e, v); }, q,
      p.scale + scaleOffset(gc.m, gc.g, p.s0, p.s1), p.group,
      tid % kQuantLanesPerGroup, static_cast<Fp8>(p.fp8), active);
}

extern "C" __global__ FP8Q_LAUNCH_BOUNDS(
    kQuantBlock,
    FP8Q_NV_QUANT_MIN_BLOCKS) void fp8q_kernel_quantize_bf16(QuantArgs p) {
  quantizeBody<Bf16>(p);
}
extern "C" __global__ FP8Q_LAUNCH_BOUNDS(
    kQuantBlock,
    FP8Q_NV_QUANT_MIN_BLOCKS) void fp8q_kernel_quantize_f16(QuantArgs p) {
  quantizeBody<F16>(p);
}
extern "C" __global__ FP8Q_LAUNCH_BOUNDS(
    kQuantBlock,
    FP8Q_NV_QUANT_MIN_BLOCKS) void fp8q_kernel_quantize_f32(QuantArgs p) {
  quantizeBody<float>(p);
}
