//===- MaterializeV2.cpp - Copy a v2 scale between any two layouts --------===//
//
// SPEC v2's fp8q.materialize on the CPU: the logical [M, G] scale of src,
// in its layout, rewritten into dst's layout (a padded destination's
// padding written 0). Scale elements are copied as bytes, so every value
// (NaN e8m0 bytes included) arrives unchanged.
//
//===----------------------------------------------------------------------===//

#include "CpuRuntime.h"

#include "fp8q_scale_checks.h"

#include <cstring>
#include <vector>

namespace fp8q::rt {

int32_t materializeV2Impl(const char *entry, fp8q_memref_2d *src,
                          fp8q_memref_2d *dst, int32_t scaleType,
                          int32_t srcLayout, int64_t srcAlign,
                          int32_t dstLayout, int64_t dstAlign) {
  clearError();
  if (scaleType < 0 || scaleType >= FP8Q_SCALE_TYPE_COUNT)
    return fail(entry, FP8Q_ERR_ARG,
                "scale_type %d is not an fp8q_scale_type (0 = f32, 1 = "
                "f8E8M0FNU, 2 = f8E4M3FN)",
                scaleType);
  if (int32_t s =
          checkScaleLayout(entry, "src_layout", scaleType, srcLayout, srcAlign))
    return s;
  if (int32_t s =
          checkScaleLayout(entry, "dst_layout", scaleType, dstLayout, dstAlign))
    return s;
  if (!src)
    return fail(entry, FP8Q_ERR_NULL,
                "operand src: descriptor pointer is null");
  const int64_t M = src->sizes[0], G = src->sizes[1];
  ScaleView s, d;
  if (int32_t st = checkScaleOperand(entry, "src", src, scaleType, srcLayout,
                                     srcAlign, M, G, Access::Read, s))
    return st;
  if (int32_t st = checkScaleOperand(entry, "dst", dst, scaleType, dstLayout,
                                     dstAlign, M, G, Access::Write, d))
    return st;

  // Read everything first: src and dst may share bytes.
  const size_t elt = s.eltSize;
  std::vector<uint8_t> values(size_t(M * G) * elt);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t g = 0; g < G; ++g)
      std::memcpy(values.data() + (m * G + g) * elt,
                  s.base + s.offset(m, g) * int64_t(elt), elt);
  if (d.padded)
    std::memset(d.base, 0, size_t(d.alloc) * elt);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t g = 0; g < G; ++g)
      std::memcpy(d.base + d.offset(m, g) * int64_t(elt),
                  values.data() + (m * G + g) * elt, elt);
  return FP8Q_OK;
}

} // namespace fp8q::rt
