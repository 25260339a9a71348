/*===- fp8q_contracts.h - The kernel-contract table ---------------*- C -*-===*
 *
 * The one table of block-scale GEMM kernel contracts (SPEC.md, "Kernel
 * contracts"). It is plain C so that the compiler (through
 * fp8q/Target/KernelContracts.h) and the runtimes, which know nothing of
 * MLIR, read the same facts.
 *
 *===----------------------------------------------------------------------===*/

#ifndef FP8Q_RUNTIME_FP8Q_CONTRACTS_H
#define FP8Q_RUNTIME_FP8Q_CONTRACTS_H

#include <stdint.h>

/* The scale layout codes (fp8q_scale_layout) the requirements below name;
   fp8q_formats.h includes this header after its enums, so either may come
   first. Offsets and allocations of each layout: fp8q_scale_layouts.h. */
#include "fp8q/Runtime/fp8q_formats.h"

#ifdef __cplusplus
extern "C" {
#endif

/// GEMM kernel families; values match fp8q::Kernel.
typedef enum fp8q_kernel {
  FP8Q_KERNEL_CK_BPRESHUFFLE = 0,
  FP8Q_KERNEL_CK = 1,
  FP8Q_KERNEL_TRITON = 2,
  FP8Q_KERNEL_DEEPGEMM = 3,
  FP8Q_KERNEL_CUBLAS = 4,
  FP8Q_KERNEL_REFERENCE = 5,
  FP8Q_KERNEL_AITER_MXFP4 = 6,    /* SPEC v2: gfx950 MXFP4 (AITER) */
  FP8Q_KERNEL_CUBLAS_MX = 7,      /* SPEC v2: sm100 MXFP8 / NVFP4 (cuBLASLt) */
  FP8Q_KERNEL_DEEPGEMM_SM100 = 8, /* SPEC v2: sm100 FP8 1x128 UE8M0 */
  FP8Q_KERNEL_COUNT = 9
} fp8q_kernel;

/// The v1 spelling of a kernel's x_scale order, for FP8 1x128 f32 scales:
/// what the runtimes' fp8q_gemm checks read (fp8q_scale_strides_ok). It
/// must agree with `x_scale_layout` below (KernelContractsTest checks
/// every row); the compiler reads `x_scale_layout`.
typedef enum fp8q_scale_order_req {
  FP8Q_SCALE_ANY = 0,       /* strides are passed to the kernel */
  FP8Q_SCALE_ROW_MAJOR = 1, /* strides (G, 1) */
  FP8Q_SCALE_COL_MAJOR = 2, /* strides (1, roundup(M, x_scale_align)) */
  FP8Q_SCALE_PADDED = 3     /* a padded layout no strides describe: the v1
                               fp8q_gemm (f32 scales) never satisfies it */
} fp8q_scale_order_req;

/// What a kernel reads for one scale operand (x_scale or w_scale), in the
/// one layout algebra of fp8q_scale_layouts.h.
typedef enum fp8q_scale_req_kind {
  FP8Q_SCALE_REQ_ANY = 0,     /* any layout: the layout travels with it */
  FP8Q_SCALE_REQ_STRIDED = 1, /* any strided layout (row_major, col_major
                                 [align]); not pack = 4 or the swizzles */
  FP8Q_SCALE_REQ_LAYOUT = 2,  /* `layout` with `align`, compared by the
                                 bytes addressed */
} fp8q_scale_req_kind;

/// A scale-operand requirement. A new layout is a new fp8q_scale_layout
/// code (fp8q_formats.h), not a new field here.
typedef struct fp8q_scale_req {
  fp8q_scale_req_kind kind;
  int layout;    /* fp8q_scale_layout, for FP8Q_SCALE_REQ_LAYOUT */
  int64_t align; /* for col_major and col_major pack = 4, else 1 */
} fp8q_scale_req;

/* Shorthands for the table. */
#define FP8Q_REQ_ANY {FP8Q_SCALE_REQ_ANY, FP8Q_LAYOUT_ROW_MAJOR, 1}
#define FP8Q_REQ_STRIDED {FP8Q_SCALE_REQ_STRIDED, FP8Q_LAYOUT_ROW_MAJOR, 1}
#define FP8Q_REQ_LAYOUT(code, align) {FP8Q_SCALE_REQ_LAYOUT, (code), (align)}

/// Weight layout a kernel reads.
typedef enum fp8q_weight_req {
  FP8Q_WEIGHT_ANY = 0,
  FP8Q_WEIGHT_PLAIN = 1,            /* row-major [N, K] */
  FP8Q_WEIGHT_PRESHUFFLE_16X16 = 2, /* SPEC's preshuffle_16x16 */
} fp8q_weight_req;

/// FP8 element type a kernel reads.
typedef enum fp8q_fp8_req {
  FP8Q_FP8_ANY = 0,
  FP8Q_FP8_E4M3FN = 1,     /* OCP fp8, max 448 */
  FP8Q_FP8_PER_TARGET = 2, /* the target's flavour (fp8q_arch_fp8) */
} fp8q_fp8_req;

/// FP8 element types.
typedef enum fp8q_fp8_type {
  FP8Q_F8E4M3FN = 0,   /* max 448 */
  FP8Q_F8E4M3FNUZ = 1, /* max 240 */
} fp8q_fp8_type;

/// Architectures, as a bit set.
enum {
  FP8Q_ARCH_GFX942 = 1u << 0,
  FP8Q_ARCH_GFX950 = 1u << 1,
  FP8Q_ARCH_SM90 = 1u << 2,
  FP8Q_ARCH_CPU = 1u << 3,
  FP8Q_ARCH_SM100 = 1u << 4,
};

/// Block-scaled formats (SPEC v2's format table), as a bit set: what a
/// kernel's q / w and scales may be.
enum {
  FP8Q_FORMAT_FP8_1X128 = 1u << 0,      /* fp8 q, f32 scales */
  FP8Q_FORMAT_FP8_1X128_E8M0 = 1u << 1, /* fp8 q, e8m0 scales, group 128 */
  FP8Q_FORMAT_MXFP8 = 1u << 2,          /* E4M3 / E5M2 q, e8m0, group 32 */
  FP8Q_FORMAT_MXFP4 = 1u << 3,          /* E2M1 q, e8m0, group 32 */
  FP8Q_FORMAT_NVFP4 = 1u << 4,          /* E2M1 q, e4m3, group 16 */
  FP8Q_FORMAT_ALL = (1u << 5) - 1,
};

/// The block-scale block width: activation scales cover 1x128 groups of K
/// and weight scales 128x128 blocks of [N, K], for every kernel (the
/// [ceil(N/128), K/128] weight scale below).
enum { FP8Q_SCALE_BLOCK = 128 };

/// What one kernel family reads.
typedef struct fp8q_kernel_contract {
  const char *name;                   /* SPEC name, e.g. "ck_bpreshuffle" */
  fp8q_scale_order_req x_scale;       /* v1 x_scale order (see above) */
  int64_t x_scale_align;              /* its col_major leading-dim multiple */
  fp8q_weight_req weight;             /* weight layout */
  fp8q_fp8_req fp8;                   /* fp8 element type (FP8 1x128) */
  unsigned archs;                     /* FP8Q_ARCH_* bits it runs on */
  int min_rocm_major, min_rocm_minor; /* 0, 0: no ROCm constraint */
  unsigned formats;                   /* FP8Q_FORMAT_* bits it reads */
  fp8q_scale_req x_scale_layout;      /* activation scale [M, G] layout */
  fp8q_scale_req w_scale_layout;      /* weight scale layout */
  /* 1: one w_scale row per weight row also for FP8 1x128 (w_scale
     [N, K/128], not the 128x128 blocks [ceil(N/128), K/128]); MX and NVFP4
     weight scales are per row in every kernel. */
  int w_scale_per_row;
} fp8q_kernel_contract;

/// The table, indexed by fp8q_kernel (SPEC "Kernel contracts" and SPEC v2
/// "Kernels and targets").
static const fp8q_kernel_contract fp8q_kernel_contracts[FP8Q_KERNEL_COUNT] = {
    /* ROCm 7.0 hipcc miscompiles the bpreshuffle kernel: >= 7.2 only. */
    {"ck_bpreshuffle", FP8Q_SCALE_COL_MAJOR, 1, FP8Q_WEIGHT_PRESHUFFLE_16X16,
     FP8Q_FP8_E4M3FN, FP8Q_ARCH_GFX950, 7, 2, FP8Q_FORMAT_FP8_1X128,
     FP8Q_REQ_LAYOUT(FP8Q_LAYOUT_COL_MAJOR, 1),
     FP8Q_REQ_LAYOUT(FP8Q_LAYOUT_ROW_MAJOR, 1), 0},
    {"ck", FP8Q_SCALE_ROW_MAJOR, 1, FP8Q_WEIGHT_PLAIN, FP8Q_FP8_PER_TARGET,
     FP8Q_ARCH_GFX942 | FP8Q_ARCH_GFX950, 0, 0, FP8Q_FORMAT_FP8_1X128,
     FP8Q_REQ_LAYOUT(FP8Q_LAYOUT_ROW_MAJOR, 1),
     FP8Q_REQ_LAYOUT(FP8Q_LAYOUT_ROW_MAJOR, 1), 0},
    /* SPEC v2: FP8 1x128 and the MX formats, strided scales only (strides
       are passed), on every GPU target. */
    {"triton", FP8Q_SCALE_ANY, 1, FP8Q_WEIGHT_PLAIN, FP8Q_FP8_PER_TARGET,
     FP8Q_ARCH_GFX942 | FP8Q_ARCH_GFX950 | FP8Q_ARCH_SM90 | FP8Q_ARCH_SM100, 0,
     0, FP8Q_FORMAT_FP8_1X128 | FP8Q_FORMAT_MXFP8 | FP8Q_FORMAT_MXFP4,
     FP8Q_REQ_STRIDED, FP8Q_REQ_LAYOUT(FP8Q_LAYOUT_ROW_MAJOR, 1), 0},
    /* DeepGEMM pads M to a multiple of 4 (16-byte TMA rows). */
    {"deepgemm", FP8Q_SCALE_COL_MAJOR, 4, FP8Q_WEIGHT_PLAIN, FP8Q_FP8_E4M3FN,
     FP8Q_ARCH_SM90, 0, 0, FP8Q_FORMAT_FP8_1X128,
     FP8Q_REQ_LAYOUT(FP8Q_LAYOUT_COL_MAJOR, 4),
     FP8Q_REQ_LAYOUT(FP8Q_LAYOUT_ROW_MAJOR, 1), 0},
    {"cublas", FP8Q_SCALE_COL_MAJOR, 1, FP8Q_WEIGHT_PLAIN, FP8Q_FP8_E4M3FN,
     FP8Q_ARCH_SM90, 0, 0, FP8Q_FORMAT_FP8_1X128,
     FP8Q_REQ_LAYOUT(FP8Q_LAYOUT_COL_MAJOR, 1),
     FP8Q_REQ_LAYOUT(FP8Q_LAYOUT_ROW_MAJOR, 1), 0},
    {"reference", FP8Q_SCALE_ANY, 1, FP8Q_WEIGHT_ANY, FP8Q_FP8_ANY,
     FP8Q_ARCH_GFX942 | FP8Q_ARCH_GFX950 | FP8Q_ARCH_SM90 | FP8Q_ARCH_SM100 |
         FP8Q_ARCH_CPU,
     0, 0, FP8Q_FORMAT_ALL, FP8Q_REQ_ANY, FP8Q_REQ_ANY, 0},
    /* AITER's gfx950 MXFP4 GEMM: both scales e8m0_shuffle'd (cdna4_mx),
       the fp4 weight shuffled byte-wise (AITER shuffle_weight). */
    {"aiter_mxfp4", FP8Q_SCALE_PADDED, 1, FP8Q_WEIGHT_PRESHUFFLE_16X16,
     FP8Q_FP8_ANY, FP8Q_ARCH_GFX950, 7, 0, FP8Q_FORMAT_MXFP4,
     FP8Q_REQ_LAYOUT(FP8Q_LAYOUT_CDNA4_MX, 1),
     FP8Q_REQ_LAYOUT(FP8Q_LAYOUT_CDNA4_MX, 1), 0},
    /* cuBLASLt block-scaled MXFP8 / NVFP4 on Blackwell: both operands'
       scales in the 128x4 tiles of its 1D block-scaling-factor layout. */
    {"cublas_mx", FP8Q_SCALE_PADDED, 1, FP8Q_WEIGHT_PLAIN, FP8Q_FP8_ANY,
     FP8Q_ARCH_SM100, 0, 0, FP8Q_FORMAT_MXFP8 | FP8Q_FORMAT_NVFP4,
     FP8Q_REQ_LAYOUT(FP8Q_LAYOUT_SWIZZLE_32_4_4, 1),
     FP8Q_REQ_LAYOUT(FP8Q_LAYOUT_SWIZZLE_32_4_4, 1), 0},
    /* DeepGEMM on sm100 (deep_gemm csrc/apis/layout.hpp,
       transform_sf_into_required_layout): SFA and SFB both packed UE8M0,
       four per int32 along K, MN-major, TMA-aligned (stride(-1) a multiple
       of 4 words); the 128x128 weight-block scales are broadcast to one
       row per weight row first (index_select of arange(N) / 128), so the
       w_scale it reads is [N, K/128]. */
    {"deepgemm_sm100", FP8Q_SCALE_PADDED, 4, FP8Q_WEIGHT_PLAIN, FP8Q_FP8_E4M3FN,
     FP8Q_ARCH_SM100, 0, 0, FP8Q_FORMAT_FP8_1X128_E8M0,
     FP8Q_REQ_LAYOUT(FP8Q_LAYOUT_COL_MAJOR_PACK4, 4),
     FP8Q_REQ_LAYOUT(FP8Q_LAYOUT_COL_MAJOR_PACK4, 4), 1},
};

/// The FP8 flavour an architecture's matrix units read.
static inline fp8q_fp8_type fp8q_arch_fp8(unsigned arch_bit) {
  return arch_bit == FP8Q_ARCH_GFX942 ? FP8Q_F8E4M3FNUZ : FP8Q_F8E4M3FN;
}

/// Returns 1 when a [M, G] scale with element strides (s0, s1) is what
/// `kernel` reads. Extents of 1 make their stride irrelevant.
static inline int fp8q_scale_strides_ok(fp8q_kernel kernel, int64_t m,
                                        int64_t g, int64_t s0, int64_t s1) {
  const fp8q_kernel_contract *c = &fp8q_kernel_contracts[kernel];
  int64_t want0, want1;
  if (c->x_scale == FP8Q_SCALE_ANY)
    return 1;
  if (c->x_scale == FP8Q_SCALE_PADDED)
    return 0;
  if (c->x_scale == FP8Q_SCALE_ROW_MAJOR) {
    want0 = g;
    want1 = 1;
  } else {
    want0 = 1;
    want1 = (m + c->x_scale_align - 1) / c->x_scale_align * c->x_scale_align;
  }
  return (m == 1 || s0 == want0) && (g == 1 || s1 == want1);
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* FP8Q_RUNTIME_FP8Q_CONTRACTS_H */
