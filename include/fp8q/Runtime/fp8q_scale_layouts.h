/*===- fp8q_scale_layouts.h - Scale layout index math -------------*- C -*-===*
 *
 * Where element (m, g) of a logical [M, G] scale lives, and how many
 * elements a layout allocates, for every fp8q_scale_layout (SPEC
 * "Attributes" and SPEC v2 "Scale layouts"). One definition for the
 * compiler (the index map of the flat byte buffers the padded layouts
 * lower to), the runtimes and the kernels.
 *
 * Offsets are in elements of the scale type: bytes for the 1-byte scales
 * (e8m0, e4m3) that the padded layouts (pack4, swizzle_32_4_4, cdna4_mx)
 * require, elements of any size for row_major and col_major. Every offset
 * of an in-range (m, g) is below fp8q_scale_layout_alloc, the map is
 * injective, and the bytes no (m, g) reaches are padding (written 0).
 *
 * Callers keep M, G and the allocation within int64 (the runtimes bound
 * them by FP8Q_MAX_SPAN_BYTES before calling). C99 / C++ / HIP / CUDA.
 *
 *===----------------------------------------------------------------------===*/

#ifndef FP8Q_RUNTIME_FP8Q_SCALE_LAYOUTS_H
#define FP8Q_RUNTIME_FP8Q_SCALE_LAYOUTS_H

#include "fp8q/Runtime/fp8q_formats.h"
#include "fp8q/Runtime/fp8q_numerics.h" /* FP8Q_HD */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// roundup(x, a) for x >= 0, a >= 1.
static inline FP8Q_HD int64_t fp8q_roundup(int64_t x, int64_t a) {
  return (x + a - 1) / a * a;
}

/// 1 when `layout` only holds 1-byte scales (SPEC v2: pack, swizzle and
/// cdna4_mx are defined on bytes), 0 for the strided layouts.
static inline FP8Q_HD int fp8q_scale_layout_bytes_only(int layout) {
  return layout == FP8Q_LAYOUT_COL_MAJOR_PACK4 ||
         layout == FP8Q_LAYOUT_SWIZZLE_32_4_4 || layout == FP8Q_LAYOUT_CDNA4_MX;
}

/// 1 when `layout` takes an `align` (col_major and col_major pack4: the
/// leading dimension roundup(M, align)); the others need align == 1.
static inline FP8Q_HD int fp8q_scale_layout_has_align(int layout) {
  return layout == FP8Q_LAYOUT_COL_MAJOR ||
         layout == FP8Q_LAYOUT_COL_MAJOR_PACK4;
}

/// col_major, align = a, pack = 4 (DeepGEMM sm100 packed UE8M0): four
/// scales per 32-bit word along G, words MN-major with leading dimension
/// roundup(M, a): ((g / 4) * roundup(M, a) + m) * 4 + g % 4. Byte g % 4 of
/// a little-endian word is its g % 4-th scale (DeepGEMM smxx_layout.cuh
/// packs values[j] >> (23 - 8j)).
static inline FP8Q_HD int64_t fp8q_offset_pack4(int64_t m, int64_t g, int64_t M,
                                                int64_t a) {
  return ((g / 4) * fp8q_roundup(M, a) + m) * 4 + g % 4;
}

/// swizzle_32_4_4 (cuBLASLt's 1D block-scaling-factor layout, CUTLASS
/// sm100_blockscaled_layout.hpp SfKMajorAtom, PyTorch to_blocked): tiles of
/// 128 rows x 4 columns, 512 bytes each, tile grid row-major over
/// (M / 128, Gp / 4); inside a tile (m % 32) * 16 + ((m % 128) / 32) * 4 +
/// g % 4.
static inline FP8Q_HD int64_t fp8q_offset_swizzle_32_4_4(int64_t m, int64_t g,
                                                         int64_t G) {
  int64_t tile = (m / 128) * (fp8q_roundup(G, 4) / 4) + g / 4;
  return tile * 512 + (m % 32) * 16 + ((m % 128) / 32) * 4 + g % 4;
}

/// cdna4_mx (AITER e8m0_shuffle, rocm-libraries PreSwizzle): with
/// m = 32a + 16b + c and g = 8d + 4e + f, the byte at
/// ((((a * (Gp / 8) + d) * 4 + f) * 16 + c) * 2 + e) * 2 + b, Gp =
/// roundup(G, 8): the [Mp, Gp] padded scale viewed as (Mp/32, 2, 16, Gp/8,
/// 2, 4) and permuted (0, 3, 5, 2, 4, 1).
static inline FP8Q_HD int64_t fp8q_offset_cdna4_mx(int64_t m, int64_t g,
                                                   int64_t G) {
  int64_t a = m / 32, b = (m / 16) % 2, c = m % 16;
  int64_t d = g / 8, e = (g / 4) % 2, f = g % 4;
  return ((((a * (fp8q_roundup(G, 8) / 8) + d) * 4 + f) * 16 + c) * 2 + e) * 2 +
         b;
}

/// Offset (in scale elements) of (m, g) of an [M, G] scale in `layout`
/// (`align` for col_major / pack4, else ignored).
static inline FP8Q_HD int64_t fp8q_scale_offset(int layout, int64_t align,
                                                int64_t M, int64_t G, int64_t m,
                                                int64_t g) {
  switch (layout) {
  case FP8Q_LAYOUT_COL_MAJOR:
    return g * fp8q_roundup(M, align) + m;
  case FP8Q_LAYOUT_COL_MAJOR_PACK4:
    return fp8q_offset_pack4(m, g, M, align);
  case FP8Q_LAYOUT_SWIZZLE_32_4_4:
    return fp8q_offset_swizzle_32_4_4(m, g, G);
  case FP8Q_LAYOUT_CDNA4_MX:
    return fp8q_offset_cdna4_mx(m, g, G);
  default:
    return m * G + g;
  }
}

/// Elements an [M, G] scale in `layout` allocates (padding included):
/// row_major M * G; col_major roundup(M, a) * G; pack4
/// 4 * ceil(G / 4) * roundup(M, a); swizzle_32_4_4 roundup(M, 128) *
/// roundup(G, 4); cdna4_mx roundup(M, 256) * roundup(G, 8).
static inline FP8Q_HD int64_t fp8q_scale_layout_alloc(int layout, int64_t align,
                                                      int64_t M, int64_t G) {
  switch (layout) {
  case FP8Q_LAYOUT_COL_MAJOR:
    return fp8q_roundup(M, align) * G;
  case FP8Q_LAYOUT_COL_MAJOR_PACK4:
    return fp8q_roundup(G, 4) * fp8q_roundup(M, align);
  case FP8Q_LAYOUT_SWIZZLE_32_4_4:
    return fp8q_roundup(M, 128) * fp8q_roundup(G, 4);
  case FP8Q_LAYOUT_CDNA4_MX:
    return fp8q_roundup(M, 256) * fp8q_roundup(G, 8);
  default:
    return M * G;
  }
}

/// The strides (in elements) of a strided layout (row_major, col_major),
/// as a memref would carry them; 0 for the padded layouts, which a strided
/// memref cannot express.
static inline FP8Q_HD int fp8q_scale_layout_strides(int layout, int64_t align,
                                                    int64_t M, int64_t G,
                                                    int64_t *s0, int64_t *s1) {
  if (layout == FP8Q_LAYOUT_ROW_MAJOR) {
    *s0 = G;
    *s1 = 1;
    return 1;
  }
  if (layout == FP8Q_LAYOUT_COL_MAJOR) {
    *s0 = 1;
    *s1 = fp8q_roundup(M, align);
    return 1;
  }
  return 0;
}

/// 1 when element strides (a0, a1) and (b0, b1) address the same element
/// for every (m, g) of an [M, G] scale: an extent of 1 is only indexed at
/// 0, so its stride is moot (M == 1 or G == 1 makes row_major and
/// col_major one layout).
static inline FP8Q_HD int fp8q_scale_strides_equal(int64_t M, int64_t G,
                                                   int64_t a0, int64_t a1,
                                                   int64_t b0, int64_t b1) {
  return (M <= 1 || a0 == b0) && (G <= 1 || a1 == b1);
}

/// SPEC v2's layout equality by bytes addressed, for a static [M, G] scale
/// (M, G >= 1): 1 when layouts (`layout_a`, `align_a`) and (`layout_b`,
/// `align_b`) put every (m, g) at the same offset, and, when either is a
/// padded layout (pack4, swizzle_32_4_4, cdna4_mx), also allocate the same
/// number of elements. Two strided layouts (row_major, col_major [align])
/// compare their strides only (a strided memref views its buffer, it owns
/// no allocation), so col_major align a equals col_major when M % a == 0.
/// A layout equals itself under any align giving the same leading dimension
/// roundup(M, align) (the only way its formulas read the align), and two
/// strided layouts compare in O(1); otherwise the offsets of all M * G
/// elements are compared, stopping at the first that differs (callers bound
/// M * G). The one equality of the compiler (fp8q::areEquivalentLayouts)
/// and of the runtimes' contract checks (scaleMeetsReq, fp8q_check_scale);
/// the align of a layout without one is ignored.
static inline FP8Q_HD int
fp8q_scale_layouts_equal(int layout_a, int64_t align_a, int layout_b,
                         int64_t align_b, int64_t M, int64_t G) {
  int64_t a0, a1, b0, b1, m, g;
  if (layout_a == layout_b &&
      (!fp8q_scale_layout_has_align(layout_a) ||
       fp8q_roundup(M, align_a) == fp8q_roundup(M, align_b)))
    return 1;
  if (fp8q_scale_layout_strides(layout_a, align_a, M, G, &a0, &a1) &&
      fp8q_scale_layout_strides(layout_b, align_b, M, G, &b0, &b1))
    return fp8q_scale_strides_equal(M, G, a0, a1, b0, b1);
  if (fp8q_scale_layout_alloc(layout_a, align_a, M, G) !=
      fp8q_scale_layout_alloc(layout_b, align_b, M, G))
    return 0;
  for (m = 0; m < M; ++m)
    for (g = 0; g < G; ++g)
      if (fp8q_scale_offset(layout_a, align_a, M, G, m, g) !=
          fp8q_scale_offset(layout_b, align_b, M, G, m, g))
        return 0;
  return 1;
}

/// The SPEC name of a layout, for messages.
static inline const char *fp8q_scale_layout_name(int layout) {
  switch (layout) {
  case FP8Q_LAYOUT_ROW_MAJOR:
    return "row_major";
  case FP8Q_LAYOUT_COL_MAJOR:
    return "col_major";
  case FP8Q_LAYOUT_COL_MAJOR_PACK4:
    return "col_major pack = 4";
  case FP8Q_LAYOUT_SWIZZLE_32_4_4:
    return "swizzle_32_4_4";
  case FP8Q_LAYOUT_CDNA4_MX:
    return "cdna4_mx";
  }
  return "unknown";
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* FP8Q_RUNTIME_FP8Q_SCALE_LAYOUTS_H */
