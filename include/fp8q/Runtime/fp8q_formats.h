/*===- fp8q_formats.h - Codes of the v2 block-scaled formats ------*- C -*-===*
 *
 * The codes that name SPEC v2's block-scaled formats ("Block-scaled formats
 * beyond FP8 1x128 (v2)") across the runtime ABI: the quantized element
 * type, the scale element type, the scale rounding rule and the scale
 * layout. One plain-C definition so that the compiler (when it lowers the
 * v2 attributes), the runtimes and the kernels agree on every value; the
 * values are ABI (docs/RuntimeABI.md, "Block-scaled formats (v2)").
 *
 *===----------------------------------------------------------------------===*/

#ifndef FP8Q_RUNTIME_FP8Q_FORMATS_H
#define FP8Q_RUNTIME_FP8Q_FORMATS_H

#ifdef __cplusplus
extern "C" {
#endif

/// Quantized element types (the `q_type` argument). The first two equal
/// fp8q_fp8_type's codes, so an fp8_type is a valid q_type.
typedef enum fp8q_q_type {
  FP8Q_Q_F8E4M3FN = 0,   /* max 448, q is 1 byte per element */
  FP8Q_Q_F8E4M3FNUZ = 1, /* max 240 */
  FP8Q_Q_F8E5M2 = 2,     /* max 57344, has infinities (never produced) */
  FP8Q_Q_F4E2M1FN = 3,   /* max 6, two per byte, element 2i low nibble */
  FP8Q_Q_TYPE_COUNT = 4
} fp8q_q_type;

/// Scale element types (the `scale_type` argument).
typedef enum fp8q_scale_type {
  FP8Q_SCALE_F32 = 0,       /* 4 bytes */
  FP8Q_SCALE_F8E8M0FNU = 1, /* byte e means 2^(e - 127); 0xFF is NaN */
  FP8Q_SCALE_F8E4M3FN = 2,  /* NVFP4's block scale */
  FP8Q_SCALE_TYPE_COUNT = 3
} fp8q_scale_type;

/// How a group's scale is derived from its amax (SPEC v2,
/// `#fp8q.scale_rounding<...>`; the `scale_rounding` argument).
typedef enum fp8q_scale_rounding {
  FP8Q_ROUND_EXACT = 0,      /* max(amax, 1e-10) / qmax */
  FP8Q_ROUND_POW2_CEIL = 1,  /* 2^ceil(log2(max(amax, 1e-10) / qmax)) */
  FP8Q_ROUND_POW2_FLOOR = 2, /* 2^(floor(log2(amax)) - emax) */
  FP8Q_ROUND_E4M3 = 3,       /* RNE_e4m3(amax / (6 * global)) */
  FP8Q_ROUND_COUNT = 4
} fp8q_scale_rounding;

/// Physical layouts of a logical [M, G] scale (the `scale_layout`
/// argument, with `align` where the layout has one). The first two are
/// SPEC's strided layouts (any element size); the last three are SPEC v2's
/// padded layouts of 1-byte scales. Offsets and allocations:
/// fp8q_scale_layouts.h.
typedef enum fp8q_scale_layout {
  FP8Q_LAYOUT_ROW_MAJOR = 0,       /* strides (G, 1) */
  FP8Q_LAYOUT_COL_MAJOR = 1,       /* strides (1, roundup(M, align)) */
  FP8Q_LAYOUT_COL_MAJOR_PACK4 = 2, /* col_major, align = a, pack = 4 */
  FP8Q_LAYOUT_SWIZZLE_32_4_4 = 3,  /* NVIDIA Blackwell 128x4 tiles */
  FP8Q_LAYOUT_CDNA4_MX = 4,        /* AMD gfx950 e8m0_shuffle */
  FP8Q_LAYOUT_COUNT = 5
} fp8q_scale_layout;

#ifdef __cplusplus
} /* extern "C" */
#endif

/* After the enums: fp8q_contracts.h names the layout codes above, and
   includes this header itself (either may be included first). */
#include "fp8q/Runtime/fp8q_contracts.h"

#endif /* FP8Q_RUNTIME_FP8Q_FORMATS_H */
