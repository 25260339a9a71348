//===- QuantizeV2.cpp - quantize / dequantize in the v2 formats -----------===//
//
// SPEC v2 block-scaled formats on the CPU: x [M, K] -> q (fp8 bytes or
// packed fp4) and a scale in any layout (a v2 scale descriptor,
// fp8q_scale_checks.h; a padded layout's padding written 0); and back to
// f32.
// The numerics are fp8q_mx_numerics.h's, the index math
// fp8q_scale_layouts.h's: this file validates and moves bytes.
//
//===----------------------------------------------------------------------===//

#include "CpuRuntime.h"

#include "fp8q/Runtime/fp8q_mx_numerics.h"
#include "fp8q/Runtime/fp8q_scale_layouts.h"
#include "fp8q_scale_checks.h"

#include <cmath>
#include <cstring>
#include <vector>

namespace fp8q::rt {

namespace {

/// What both directions agree on once the operands are validated.
struct Plan {
  View2 x; // quantize: x; dequantize: out
  View2 q; // bytes
  ScaleView scale;
  int64_t M = 0, K = 0, G = 0, group = 0;
  float global = 1.0f;
};

/// Validates the operands shared by quantize_v2 and dequantize_v2 after
/// `x` (the activation or the output, [M, K]) was checked: group size,
/// q, the scale allocation and the global scale.
int32_t checkRest(const char *entry, fp8q_memref_2d *q, fp8q_memref_2d *scale,
                  fp8q_memref_0d *global, int64_t groupSize, int32_t qType,
                  int32_t scaleType, int32_t layout, int64_t align,
                  Access qAccess, Plan &p) {
  p.M = p.x.rows;
  p.K = p.x.cols;
  if (int32_t s = checkGroupSize(entry, groupSize, p.K))
    return s;
  p.group = groupSize;
  p.G = p.K / groupSize;
  const bool fp4 = qType == FP8Q_Q_F4E2M1FN;
  if (fp4 && p.K % 2 != 0)
    return fail(entry, FP8Q_ERR_SHAPE,
                "f4E2M1FN packs two values per byte: K = %lld must be even",
                (long long)p.K);
  if (int32_t s =
          checkCodesOperand(entry, "q", q, qType, p.M, p.K, qAccess, p.q))
    return s;
  if (int32_t s = checkScaleOperand(entry, "scale", scale, scaleType, layout,
                                    align, p.M, p.G, qAccess, p.scale))
    return s;
  if (scaleType != FP8Q_SCALE_F8E4M3FN)
    return FP8Q_OK;
  return readGlobalScale(entry, global, p.global);
}

/// Stores the scale value of (m, g) into `image` (the scale's bytes from
/// v.base, either the whole allocation or, strided, the addressed span).
void storeScale(const ScaleView &v, uint8_t *image, int32_t scaleType,
                int64_t m, int64_t g, float sc) {
  uint8_t *at = image + v.offset(m, g) * int64_t(v.eltSize);
  if (scaleType == FP8Q_SCALE_F32)
    std::memcpy(at, &sc, 4);
  else
    *at = fp8q_scale_encode_byte(sc, scaleType);
}

} // namespace

int32_t quantizeV2Impl(const char *entry, ActType t, fp8q_memref_2d *x,
                       fp8q_memref_2d *q, fp8q_memref_2d *scale,
                       fp8q_memref_0d *global, int64_t groupSize, int32_t qType,
                       int32_t scaleType, int32_t rounding, int32_t layout,
                       int64_t align) {
  clearError();
  if (int32_t s =
          checkScaleFormat(entry, qType, scaleType, rounding, layout, align))
    return s;
  Plan p;
  if (int32_t s =
          checkOperand(entry, "x", x, actSize(t), -1, -1, Access::Read, p.x))
    return s;
  if (int32_t s = checkRest(entry, q, scale, global, groupSize, qType,
                            scaleType, layout, align, Access::Write, p))
    return s;

  // Compute everything before writing, so inputs aliasing outputs read
  // unmodified values.
  const int64_t M = p.M, K = p.K, G = p.G, group = p.group;
  const bool fp4 = qType == FP8Q_Q_F4E2M1FN;
  std::vector<float> row(K);
  std::vector<uint8_t> codes(M * K);
  // The padded layouts' image is the whole allocation, padding 0; a strided
  // layout's scale is written element by element below.
  const ScaleView &sv = p.scale;
  std::vector<uint8_t> image(sv.padded ? sv.alloc * sv.eltSize : 0, 0);
  std::vector<float> scales(M * G);
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t k = 0; k < K; ++k)
      row[k] = loadAct(p.x.at<char>(m, k), t);
    for (int64_t g = 0; g < G; ++g) {
      const float *grp = row.data() + g * group;
      float amax = 0.0f; // NaN never compares greater: skipped
      for (int64_t i = 0; i < group; ++i) {
        float a = fp8q_absf(grp[i]);
        amax = a > amax ? a : amax;
      }
      float sc = fp8q_group_scale(amax, qType, rounding, p.global);
      float divisor = scaleType == FP8Q_SCALE_F8E4M3FN ? sc * p.global : sc;
      for (int64_t i = 0; i < group; ++i)
        codes[m * K + g * group + i] = fp8q_q_quantize(grp[i], divisor, qType);
      scales[m * G + g] = sc;
      if (sv.padded)
        storeScale(sv, image.data(), scaleType, m, g, sc);
    }
  }
  for (int64_t m = 0; m < M; ++m) {
    const uint8_t *c = codes.data() + m * K;
    if (fp4) {
      for (int64_t j = 0; j < K / 2; ++j)
        *p.q.at<uint8_t>(m, j) = uint8_t(c[2 * j] | (c[2 * j + 1] << 4));
    } else {
      for (int64_t k = 0; k < K; ++k)
        *p.q.at<uint8_t>(m, k) = c[k];
    }
  }
  if (sv.padded) {
    std::memcpy(sv.base, image.data(), image.size());
    return FP8Q_OK;
  }
  for (int64_t m = 0; m < M; ++m)
    for (int64_t g = 0; g < G; ++g)
      storeScale(sv, reinterpret_cast<uint8_t *>(sv.base), scaleType, m, g,
                 scales[m * G + g]);
  return FP8Q_OK;
}

int32_t dequantizeV2Impl(const char *entry, fp8q_memref_2d *q,
                         fp8q_memref_2d *scale, fp8q_memref_0d *global,
                         fp8q_memref_2d *out, int64_t groupSize, int32_t qType,
                         int32_t scaleType, int32_t layout, int64_t align) {
  clearError();
  if (int32_t s = checkScaleFormat(entry, qType, scaleType, -1, layout, align))
    return s;
  Plan p;
  if (int32_t s =
          checkOperand(entry, "out", out, 4, -1, -1, Access::Write, p.x))
    return s;
  if (int32_t s = checkRest(entry, q, scale, global, groupSize, qType,
                            scaleType, layout, align, Access::Read, p))
    return s;
  const int64_t M = p.M, K = p.K;
  const bool fp4 = qType == FP8Q_Q_F4E2M1FN;
  std::vector<float> res(M * K);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t g = 0; g < p.G; ++g) {
      float sc = p.scale.load(scaleType, m, g);
      float divisor = scaleType == FP8Q_SCALE_F8E4M3FN ? sc * p.global : sc;
      for (int64_t k = g * p.group; k < (g + 1) * p.group; ++k) {
        uint8_t b = *p.q.at<uint8_t>(m, fp4 ? k / 2 : k);
        uint8_t c = fp4 ? uint8_t((k & 1) ? b >> 4 : b & 0xF) : b;
        res[m * K + k] = fp8q_q_dequantize(c, divisor, qType);
      }
    }
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k)
      *p.x.at<float>(m, k) = res[m * K + k];
  return FP8Q_OK;
}

} // namespace fp8q::rt
