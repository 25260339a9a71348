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
  FP8Q_KERNEL_COUNT = 6
} fp8q_kernel;

/// Physical order a kernel reads the [M, G] activation scale in.
typedef enum fp8q_scale_order_req {
  FP8Q_SCALE_ANY = 0,       /* strides are passed to the kernel */
  FP8Q_SCALE_ROW_MAJOR = 1, /* strides (G, 1) */
  FP8Q_SCALE_COL_MAJOR = 2  /* strides (1, roundup(M, x_scale_align)) */
} fp8q_scale_order_req;

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
  fp8q_scale_order_req x_scale;       /* activation scale order */
  int64_t x_scale_align;              /* col_major leading-dim multiple */
  fp8q_weight_req weight;             /* weight layout */
  fp8q_fp8_req fp8;                   /* fp8 element type */
  unsigned archs;                     /* FP8Q_ARCH_* bits it runs on */
  int min_rocm_major, min_rocm_minor; /* 0, 0: no ROCm constraint */
  unsigned formats;                   /* FP8Q_FORMAT_* bits it reads */
} fp8q_kernel_contract;

/// The table, indexed by fp8q_kernel. Weight scales are row-major
/// [ceil(N/128), K/128] for every kernel.
static const fp8q_kernel_contract fp8q_kernel_contracts[FP8Q_KERNEL_COUNT] = {
    /* ROCm 7.0 hipcc miscompiles the bpreshuffle kernel: >= 7.2 only. */
    {"ck_bpreshuffle", FP8Q_SCALE_COL_MAJOR, 1, FP8Q_WEIGHT_PRESHUFFLE_16X16,
     FP8Q_FP8_E4M3FN, FP8Q_ARCH_GFX950, 7, 2, FP8Q_FORMAT_FP8_1X128},
    {"ck", FP8Q_SCALE_ROW_MAJOR, 1, FP8Q_WEIGHT_PLAIN, FP8Q_FP8_PER_TARGET,
     FP8Q_ARCH_GFX942 | FP8Q_ARCH_GFX950, 0, 0, FP8Q_FORMAT_FP8_1X128},
    /* SPEC v2 widens triton to the MX formats with strided scales only;
       until the table can say "strided only" it reads FP8 1x128. */
    {"triton", FP8Q_SCALE_ANY, 1, FP8Q_WEIGHT_PLAIN, FP8Q_FP8_PER_TARGET,
     FP8Q_ARCH_GFX942 | FP8Q_ARCH_GFX950, 0, 0, FP8Q_FORMAT_FP8_1X128},
    /* DeepGEMM pads M to a multiple of 4 (16-byte TMA rows). */
    {"deepgemm", FP8Q_SCALE_COL_MAJOR, 4, FP8Q_WEIGHT_PLAIN, FP8Q_FP8_E4M3FN,
     FP8Q_ARCH_SM90, 0, 0, FP8Q_FORMAT_FP8_1X128},
    {"cublas", FP8Q_SCALE_COL_MAJOR, 1, FP8Q_WEIGHT_PLAIN, FP8Q_FP8_E4M3FN,
     FP8Q_ARCH_SM90, 0, 0, FP8Q_FORMAT_FP8_1X128},
    {"reference", FP8Q_SCALE_ANY, 1, FP8Q_WEIGHT_ANY, FP8Q_FP8_ANY,
     FP8Q_ARCH_GFX942 | FP8Q_ARCH_GFX950 | FP8Q_ARCH_SM90 | FP8Q_ARCH_SM100 |
         FP8Q_ARCH_CPU,
     0, 0, FP8Q_FORMAT_ALL},
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
