//===- QuantizeV2.cpp - quantize / dequantize in the v2 formats -----------===//
//
// SPEC v2 block-scaled formats on the CPU: x [M, K] -> q (fp8 bytes or
// packed fp4) and a scale in any layout, stored as the layout's whole
// allocation (a dense rank-1 buffer, padding written 0); and back to f32.
// The numerics are fp8q_mx_numerics.h's, the index math
// fp8q_scale_layouts.h's: this file validates and moves bytes.
//
//===----------------------------------------------------------------------===//

#include "CpuRuntime.h"

#include "fp8q/Runtime/fp8q_mx_numerics.h"
#include "fp8q/Runtime/fp8q_scale_layouts.h"

#include <cmath>
#include <cstring>
#include <vector>

namespace fp8q::rt {

namespace {

const char *qTypeName(int32_t t) {
  static const char *names[] = {"f8E4M3FN", "f8E4M3FNUZ", "f8E5M2", "f4E2M1FN"};
  return t >= 0 && t < FP8Q_Q_TYPE_COUNT ? names[t] : "?";
}

const char *scaleTypeName(int32_t t) {
  static const char *names[] = {"f32", "f8E8M0FNU", "f8E4M3FN"};
  return t >= 0 && t < FP8Q_SCALE_TYPE_COUNT ? names[t] : "?";
}

const char *roundingName(int32_t r) {
  static const char *names[] = {"exact", "pow2_ceil", "pow2_floor", "e4m3"};
  return r >= 0 && r < FP8Q_ROUND_COUNT ? names[r] : "?";
}

/// The largest layout_align accepted: far beyond any kernel's (16 bytes of
/// TMA alignment), small enough that roundup(M, align) cannot overflow.
constexpr int64_t kMaxAlign = int64_t(1) << 20;

/// Checks the codes and their combination (SPEC v2's table): q_type,
/// scale_type, the layout and its align, and, when `rounding` >= 0, the
/// scale rounding.
int32_t checkFormat(const char *entry, int32_t qType, int32_t scaleType,
                    int32_t rounding, int32_t layout, int64_t align) {
  if (qType < 0 || qType >= FP8Q_Q_TYPE_COUNT)
    return fail(entry, FP8Q_ERR_ARG,
                "q_type %d is not an fp8q_q_type (0 = f8E4M3FN, 1 = "
                "f8E4M3FNUZ, 2 = f8E5M2, 3 = f4E2M1FN)",
                qType);
  if (scaleType < 0 || scaleType >= FP8Q_SCALE_TYPE_COUNT)
    return fail(entry, FP8Q_ERR_ARG,
                "scale_type %d is not an fp8q_scale_type (0 = f32, 1 = "
                "f8E8M0FNU, 2 = f8E4M3FN)",
                scaleType);
  if (layout < 0 || layout >= FP8Q_LAYOUT_COUNT)
    return fail(entry, FP8Q_ERR_ARG,
                "scale_layout %d is not an fp8q_scale_layout (0 = row_major, "
                "1 = col_major, 2 = col_major pack = 4, 3 = swizzle_32_4_4, "
                "4 = cdna4_mx)",
                layout);
  if (fp8q_scale_layout_has_align(layout)) {
    if (align < 1 || align > kMaxAlign)
      return fail(entry, FP8Q_ERR_ARG,
                  "layout_align %lld of layout %s must be in [1, 2^20]",
                  (long long)align, fp8q_scale_layout_name(layout));
  } else if (align != 1) {
    return fail(entry, FP8Q_ERR_ARG,
                "layout %s has no align: layout_align must be 1, got %lld",
                fp8q_scale_layout_name(layout), (long long)align);
  }
  if (fp8q_scale_layout_bytes_only(layout) && scaleType == FP8Q_SCALE_F32)
    return fail(entry, FP8Q_ERR_ARG,
                "layout %s holds 1-byte scales (f8E8M0FNU or f8E4M3FN), not "
                "f32",
                fp8q_scale_layout_name(layout));
  if (scaleType == FP8Q_SCALE_F8E4M3FN && qType != FP8Q_Q_F4E2M1FN)
    return fail(entry, FP8Q_ERR_ARG,
                "f8E4M3FN scales (NVFP4) need q_type f4E2M1FN, got %s",
                qTypeName(qType));
  if (rounding < 0)
    return FP8Q_OK;
  if (rounding >= FP8Q_ROUND_COUNT)
    return fail(entry, FP8Q_ERR_ARG,
                "scale_rounding %d is not an fp8q_scale_rounding (0 = exact, "
                "1 = pow2_ceil, 2 = pow2_floor, 3 = e4m3)",
                rounding);
  bool ok;
  switch (rounding) {
  case FP8Q_ROUND_EXACT:
    ok = scaleType == FP8Q_SCALE_F32;
    break;
  case FP8Q_ROUND_E4M3:
    ok = scaleType == FP8Q_SCALE_F8E4M3FN;
    break;
  default:
    ok = scaleType == FP8Q_SCALE_F32 || scaleType == FP8Q_SCALE_F8E8M0FNU;
  }
  if (!ok)
    return fail(entry, FP8Q_ERR_ARG,
                "scale_rounding %s cannot be stored as %s scales (exact: f32; "
                "pow2_ceil, pow2_floor: f32 or f8E8M0FNU; e4m3: f8E4M3FN)",
                roundingName(rounding), scaleTypeName(scaleType));
  return FP8Q_OK;
}

/// What both directions agree on once the operands are validated.
struct Plan {
  View2 x; // quantize: x; dequantize: out
  View2 q; // bytes
  char *scale = nullptr;
  int64_t M = 0, K = 0, G = 0, group = 0, alloc = 0;
  size_t scaleElt = 1;
  float global = 1.0f;
};

/// Validates the operands shared by quantize_v2 and dequantize_v2 after
/// `x` (the activation or the output, [M, K]) was checked: group size,
/// q, the scale allocation and the global scale.
int32_t checkRest(const char *entry, fp8q_memref_2d *q, fp8q_memref_1d *scale,
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
  if (int32_t s = checkOperand(entry, "q", q, 1, p.M, fp4 ? p.K / 2 : p.K,
                               qAccess, p.q))
    return s;
  // Bound the allocation before computing it in int64: roundup(M, 256 or
  // align) * roundup(G, 8) elements must fit in FP8Q_MAX_SPAN_BYTES.
  p.scaleElt = scaleType == FP8Q_SCALE_F32 ? 4 : 1;
  const __int128 bound = __int128(p.M + (align > 256 ? align : 256)) *
                         (p.G + 8) * __int128(p.scaleElt);
  if (bound > __int128(FP8Q_MAX_SPAN_BYTES))
    return fail(entry, FP8Q_ERR_SHAPE,
                "a [%lld, %lld] scale in layout %s would span more than 2^48 "
                "bytes",
                (long long)p.M, (long long)p.G, fp8q_scale_layout_name(layout));
  p.alloc = fp8q_scale_layout_alloc(layout, align, p.M, p.G);
  if (scale && scale->aligned && scale->sizes[0] != p.alloc)
    return fail(entry, FP8Q_ERR_SHAPE,
                "operand scale has %lld elements, but a [%lld, %lld] %s "
                "scale in layout %s allocates %lld (padding included)",
                (long long)scale->sizes[0], (long long)p.M, (long long)p.G,
                scaleTypeName(scaleType), fp8q_scale_layout_name(layout),
                (long long)p.alloc);
  View1 sv;
  if (int32_t s = checkOperand(entry, "scale", scale, p.scaleElt, p.alloc, sv))
    return s;
  if (p.alloc > 1 && sv.s0 != 1)
    return fail(entry, FP8Q_ERR_LAYOUT,
                "operand scale must be a dense buffer (stride 1): layout %s "
                "places elements by its own index map, got stride %lld",
                fp8q_scale_layout_name(layout), (long long)sv.s0);
  p.scale = sv.base;
  if (scaleType != FP8Q_SCALE_F8E4M3FN)
    return FP8Q_OK;
  if (!global)
    return fail(entry, FP8Q_ERR_NULL,
                "operand global_scale: descriptor pointer is null (f8E4M3FN "
                "scales need the NVFP4 global scale)");
  if (!global->aligned)
    return fail(entry, FP8Q_ERR_NULL,
                "operand global_scale: data pointer is null");
  if (reinterpret_cast<uintptr_t>(global->aligned) % 4 != 0)
    return fail(entry, FP8Q_ERR_ALIGN,
                "operand global_scale: data pointer %p is not aligned to its "
                "4-byte element",
                global->aligned);
  if (global->offset < 0 || global->offset > FP8Q_MAX_SPAN_BYTES / 4)
    return fail(entry, FP8Q_ERR_LAYOUT, "operand global_scale: bad offset %lld",
                (long long)global->offset);
  p.global = static_cast<const float *>(global->aligned)[global->offset];
  if (!(p.global > 0.0f) || std::isinf(p.global))
    return fail(entry, FP8Q_ERR_ARG,
                "global_scale %g must be finite and positive",
                double(p.global));
  return FP8Q_OK;
}

/// Reads the scale value of (m, g) from the allocation.
float loadScale(const Plan &p, int32_t scaleType, int32_t layout, int64_t align,
                int64_t m, int64_t g) {
  int64_t o = fp8q_scale_offset(layout, align, p.M, p.G, m, g);
  if (scaleType == FP8Q_SCALE_F32) {
    float v;
    std::memcpy(&v, p.scale + o * 4, 4);
    return v;
  }
  return fp8q_scale_decode_byte(uint8_t(p.scale[o]), scaleType);
}

} // namespace

int32_t quantizeV2Impl(const char *entry, ActType t, fp8q_memref_2d *x,
                       fp8q_memref_2d *q, fp8q_memref_1d *scale,
                       fp8q_memref_0d *global, int64_t groupSize, int32_t qType,
                       int32_t scaleType, int32_t rounding, int32_t layout,
                       int64_t align) {
  clearError();
  if (int32_t s = checkFormat(entry, qType, scaleType, rounding, layout, align))
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
  std::vector<uint8_t> image(p.alloc * p.scaleElt, 0); // padding stays 0
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
      int64_t o = fp8q_scale_offset(layout, align, M, G, m, g);
      if (scaleType == FP8Q_SCALE_F32)
        std::memcpy(image.data() + o * 4, &sc, 4);
      else
        image[o] = fp8q_scale_encode_byte(sc, scaleType);
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
  std::memcpy(p.scale, image.data(), image.size());
  return FP8Q_OK;
}

int32_t dequantizeV2Impl(const char *entry, fp8q_memref_2d *q,
                         fp8q_memref_1d *scale, fp8q_memref_0d *global,
                         fp8q_memref_2d *out, int64_t groupSize, int32_t qType,
                         int32_t scaleType, int32_t layout, int64_t align) {
  clearError();
  if (int32_t s = checkFormat(entry, qType, scaleType, -1, layout, align))
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
      float sc = loadScale(p, scaleType, layout, align, m, g);
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
