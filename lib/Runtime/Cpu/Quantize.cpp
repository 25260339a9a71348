//===- Quantize.cpp - quantize and rms_norm_quantize ----------------------===//
//
// Per-1xG quantization (SPEC "Numerics"), optionally preceded by RMSNorm.
// The scale is written through its descriptor's strides, so a column-major
// scale type is the fused transposed write.
//
//===----------------------------------------------------------------------===//

#include "CpuRuntime.h"

#include "fp8q/Runtime/fp8q_numerics.h"

#include <cmath>
#include <vector>

namespace fp8q::rt {

int32_t checkQuantize(const char *entry, ActType t, const char *xName,
                      fp8q_memref_2d *x, fp8q_memref_1d *gamma,
                      fp8q_memref_2d *q, fp8q_memref_2d *scale,
                      fp8q_memref_2d *y, float epsilon, int64_t groupSize,
                      int32_t fp8Type, bool rmsNorm, bool keepUnquantized,
                      QuantizeOperands &o) {
  size_t es = actSize(t);
  if (int32_t s = checkOperand(entry, xName, x, es, -1, -1, Access::Read, o.x))
    return s;
  const int64_t M = o.x.rows, K = o.x.cols;
  if (int32_t s = checkGroupSize(entry, groupSize, K))
    return s;
  const int64_t G = K / groupSize;
  if (int32_t s = checkFp8Type(entry, fp8Type))
    return s;
  if (rmsNorm) {
    if (int32_t s = checkOperand(entry, "gamma", gamma, es, K, o.gamma))
      return s;
    if (!(epsilon >= 0.0f) || std::isinf(epsilon))
      return fail(entry, FP8Q_ERR_ARG,
                  "epsilon %g must be finite and non-negative",
                  double(epsilon));
    if (keepUnquantized) {
      if (int32_t s = checkOperand(entry, "y", y, es, M, K, Access::Write, o.y))
        return s;
    }
  }
  if (int32_t s = checkOperand(entry, "q", q, 1, M, K, Access::Write, o.q))
    return s;
  if (int32_t s =
          checkOperand(entry, "scale", scale, 4, M, G, Access::Write, o.scale))
    return s;
  o.M = M;
  o.K = K;
  o.G = G;
  o.groupSize = groupSize;
  return FP8Q_OK;
}

void quantizeRows(ActType t, const QuantizeOperands &o, float epsilon,
                  int32_t fp8Type, bool rmsNorm, bool keepUnquantized) {
  const int64_t M = o.M, K = o.K, G = o.G, groupSize = o.groupSize;
  const View2 &xv = o.x, &qv = o.q, &sv = o.scale, &yv = o.y;
  const View1 &gv = o.gamma;
  // Compute everything before writing, so inputs aliasing outputs (e.g.
  // rms_norm_quantize in place) read unmodified values.
  std::vector<float> row(K);
  std::vector<uint8_t> qBuf(M * K);
  std::vector<float> sBuf(M * G), yBuf;
  if (rmsNorm && keepUnquantized)
    yBuf.resize(M * K);
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t k = 0; k < K; ++k)
      row[k] = loadAct(xv.at<char>(m, k), t);
    if (rmsNorm) {
      float sumSq = 0.0f;
      for (int64_t k = 0; k < K; ++k)
        sumSq += row[k] * row[k];
      float rms = std::sqrt(sumSq / float(K) + epsilon);
      for (int64_t k = 0; k < K; ++k) {
        float v = row[k] / rms * loadAct(gv.at<char>(k), t);
        // Round to x's element type: that is the unquantized result and
        // what gets quantized.
        uint32_t tmp;
        row[k] = storeAct(&tmp, t, v);
        if (keepUnquantized)
          yBuf[m * K + k] = row[k];
      }
    }
    for (int64_t g = 0; g < G; ++g) {
      const float *grp = row.data() + g * groupSize;
      float amax = 0.0f;
      for (int64_t i = 0; i < groupSize; ++i) {
        float a = fp8q_absf(grp[i]);
        amax = a > amax ? a : amax;
      }
      float sc = fp8q_quant_scale(amax, fp8Type);
      sBuf[m * G + g] = sc;
      for (int64_t i = 0; i < groupSize; ++i)
        qBuf[m * K + g * groupSize + i] =
            fp8q_quantize_value(grp[i], sc, fp8Type);
    }
  }
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t k = 0; k < K; ++k) {
      *qv.at<uint8_t>(m, k) = qBuf[m * K + k];
      if (!yBuf.empty())
        storeAct(yv.at<char>(m, k), t, yBuf[m * K + k]);
    }
    for (int64_t g = 0; g < G; ++g)
      *sv.at<float>(m, g) = sBuf[m * G + g];
  }
}

int32_t quantizeImpl(const char *entry, ActType t, fp8q_memref_2d *x,
                     fp8q_memref_1d *gamma, fp8q_memref_2d *q,
                     fp8q_memref_2d *scale, fp8q_memref_2d *y, float epsilon,
                     int64_t groupSize, int32_t fp8Type, bool rmsNorm,
                     bool keepUnquantized) {
  clearError();
  QuantizeOperands o;
  if (int32_t s =
          checkQuantize(entry, t, "x", x, gamma, q, scale, y, epsilon,
                        groupSize, fp8Type, rmsNorm, keepUnquantized, o))
    return s;
  quantizeRows(t, o, epsilon, fp8Type, rmsNorm, keepUnquantized);
  return FP8Q_OK;
}

} // namespace fp8q::rt
