//===- FusedProducers.cpp - add_rms_norm_quantize, silu_mul_quantize ------===//
//
// The elementwise producers the compiler folds into quantization, computed
// the way the unfused program computes them and then handed to the very
// code of rms_norm_quantize / quantize (quantizeRows), so that the fused
// call is bit-exact with the unfused program on this runtime:
//  - residual add: sum = round_T(f32(x) + f32(residual)), round-to-nearest-
//    even with fp8q_numerics.h's helpers (what LLVM's bf16 / f16 fadd gives
//    on the host, NaN included), materialized, then rms_norm_quantize on it;
//  - SiLU x mul: a = (g / (1.0f + expf(-g))) * u in f32 with libm's expf,
//    materialized, then the f32 quantize on it.
// The target is compiled with -ffp-contract=off (CMakeLists.txt): nothing
// here may be fused into an FMA or reassociated.
//
//===----------------------------------------------------------------------===//

#include "CpuRuntime.h"

#include <cstring>
#include <math.h>
#include <vector>

namespace fp8q::rt {

namespace {

/// A dense row-major [M, K] scratch view of `data` (elements of eltSize).
View2 denseView(void *data, int64_t M, int64_t K, size_t eltSize) {
  View2 v;
  v.base = static_cast<char *>(data);
  v.rows = M;
  v.cols = K;
  v.s0 = K;
  v.s1 = 1;
  v.eltSize = eltSize;
  return v;
}

/// The unfused program's SiLU x mul, operation by operation: arith.negf,
/// math.exp (llvm.exp.f32, the libm call expf on the host), arith.addf of
/// 1.0 on the left, arith.divf, arith.mulf.
float siluMul(float g, float u) {
  const float t = ::expf(-g);
  const float d = 1.0f + t;
  const float s = g / d;
  return s * u;
}

} // namespace

int32_t addRmsNormQuantizeImpl(const char *entry, ActType t, fp8q_memref_2d *x,
                               fp8q_memref_2d *residual, fp8q_memref_1d *gamma,
                               fp8q_memref_2d *q, fp8q_memref_2d *scale,
                               fp8q_memref_2d *y, fp8q_memref_2d *sum,
                               float epsilon, int64_t groupSize,
                               int32_t fp8Type, bool keepUnquantized) {
  clearError();
  QuantizeOperands o;
  if (int32_t s = checkQuantize(entry, t, "x", x, gamma, q, scale, y, epsilon,
                                groupSize, fp8Type, /*rmsNorm=*/true,
                                keepUnquantized, o))
    return s;
  const int64_t M = o.M, K = o.K;
  const size_t es = actSize(t);
  View2 rv, sv;
  if (int32_t s =
          checkOperand(entry, "residual", residual, es, M, K, Access::Read, rv))
    return s;
  if (int32_t s = checkOperand(entry, "sum", sum, es, M, K, Access::Write, sv))
    return s;
  if (int32_t s = checkSumAliasing(entry, sv, o.x, rv, o.gamma, o.q, o.scale,
                                   keepUnquantized ? &o.y : nullptr))
    return s;

  // The rounded sum, materialized before anything is written (sum may be x
  // or residual), then rms_norm_quantize's own code on it.
  std::vector<char> sumBuf(size_t(M * K) * es);
  const View2 sumView = denseView(sumBuf.data(), M, K, es);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k)
      storeAct(sumView.at<char>(m, k), t,
               loadAct(o.x.at<char>(m, k), t) + loadAct(rv.at<char>(m, k), t));
  o.x = sumView;
  quantizeRows(t, o, epsilon, fp8Type, /*rmsNorm=*/true, keepUnquantized);
  // sum shares no byte with q, scale or y: the order of the writes does not
  // matter.
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k)
      std::memcpy(sv.at<char>(m, k), sumView.at<char>(m, k), es);
  return FP8Q_OK;
}

int32_t siluMulQuantizeImpl(const char *entry, ActType t, fp8q_memref_2d *gate,
                            fp8q_memref_2d *up, fp8q_memref_2d *q,
                            fp8q_memref_2d *scale, int64_t groupSize,
                            int32_t fp8Type) {
  clearError();
  QuantizeOperands o;
  if (int32_t s = checkQuantize(entry, t, "gate", gate, nullptr, q, scale,
                                nullptr, 0.0f, groupSize, fp8Type,
                                /*rmsNorm=*/false, false, o))
    return s;
  const int64_t M = o.M, K = o.K;
  View2 uv;
  if (int32_t s =
          checkOperand(entry, "up", up, actSize(t), M, K, Access::Read, uv))
    return s;

  // a in f32, materialized before anything is written, then the f32
  // quantize's own code on it.
  std::vector<float> aBuf(size_t(M * K));
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k)
      aBuf[m * K + k] = siluMul(loadAct(o.x.at<char>(m, k), t),
                                loadAct(uv.at<char>(m, k), t));
  o.x = denseView(aBuf.data(), M, K, sizeof(float));
  quantizeRows(ActType::F32, o, 0.0f, fp8Type, /*rmsNorm=*/false, false);
  return FP8Q_OK;
}

} // namespace fp8q::rt
