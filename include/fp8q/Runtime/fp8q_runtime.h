/*===- fp8q_runtime.h - The fp8q runtime C ABI --------------------*- C -*-===*
 *
 * The one ABI shared by every fp8q runtime (the CPU reference runtime
 * libfp8q_runtime_cpu.so and the HIP runtime). `--fp8q-lower-to-runtime`
 * emits calls to the `fp8q_rt_*` entry points below; docs/RuntimeABI.md
 * explains the conventions. Plain C: no MLIR, no LLVM.
 *
 * Calling convention. A declaration in MLIR
 *   func.func private @fp8q_rt_X(memref<...>, ..., i64, i32) -> i32
 *       attributes {llvm.emit_c_interface}
 * is lowered by MLIR to a call of
 *   int32_t _mlir_ciface_fp8q_rt_X(fp8q_memref_2d *, ..., int64_t, int32_t);
 * memref arguments arrive as pointers to MLIR's strided memref descriptor.
 * The descriptor layout does not depend on the element type, so one struct
 * per rank serves every element type.
 *
 * Errors. The `_mlir_ciface_*` entry points print the error to stderr and
 * exit the process with status 1 (MLIR-called code usually ignores a
 * result). The plain `fp8q_*` C functions print the same message and return
 * the fp8q_status instead. Either way nothing is written when an error is
 * detected. FP8Q_RT_UNCHECKED=1 in the environment turns the GEMM
 * x_scale/weight *contract* checks into warnings (the kernel then reads the
 * buffer as it always does, scrambled): it exists only to reproduce the
 * historical failure. Memory-safety checks are never skipped.
 *
 *===----------------------------------------------------------------------===*/

#ifndef FP8Q_RUNTIME_FP8Q_RUNTIME_H
#define FP8Q_RUNTIME_FP8Q_RUNTIME_H

#include "fp8q/Runtime/fp8q_contracts.h"
#include "fp8q/Runtime/fp8q_formats.h"

#include <stddef.h>
#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define FP8Q_RT_EXPORT __declspec(dllexport)
#else
#define FP8Q_RT_EXPORT __attribute__((visibility("default")))
#endif

/// MLIR's strided memref descriptor of rank 1 (any element type).
/// Element address: (char *)aligned + (offset + i * strides[0]) * elt_size.
typedef struct fp8q_memref_1d {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[1];
  int64_t strides[1];
} fp8q_memref_1d;

/// MLIR's strided memref descriptor of rank 2 (any element type).
/// Element (i, j) lives at aligned + offset + i * strides[0] + j * strides[1]
/// (in elements).
typedef struct fp8q_memref_2d {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
} fp8q_memref_2d;

/// MLIR's memref descriptor of rank 0 (memref<f32>: one element at
/// (char *)aligned + offset * elt_size).
typedef struct fp8q_memref_0d {
  void *allocated;
  void *aligned;
  int64_t offset;
} fp8q_memref_0d;

/// Result of every entry point.
typedef enum fp8q_status {
  FP8Q_OK = 0,
  FP8Q_ERR_NULL = 1,     /* null data pointer for a non-empty operand */
  FP8Q_ERR_ALIGN = 2,    /* data pointer not aligned to the element size */
  FP8Q_ERR_SHAPE = 3,    /* operand sizes disagree */
  FP8Q_ERR_EMPTY = 4,    /* M == 0 (or another empty extent) */
  FP8Q_ERR_ARG = 5,      /* bad scalar argument (kernel id, fp8 type, ...) */
  FP8Q_ERR_LAYOUT = 6,   /* strides negative, overlapping or out of buffer */
  FP8Q_ERR_CONTRACT = 7, /* operand layout violates the kernel contract */
  FP8Q_ERR_DEVICE = 8,   /* no usable device (GPU runtimes only) */
} fp8q_status;

/// The most bytes one descriptor may span, from its data pointer to the end
/// of the last element it addresses: (offset + sum((size - 1) * stride) + 1)
/// * element size. 2^48 is more than any machine maps; every offset, size
/// and stride must lie in [0, 2^48] too. Larger or overflowing values are
/// rejected (FP8Q_ERR_SHAPE / FP8Q_ERR_LAYOUT) before any memory access,
/// so the runtimes' index arithmetic cannot overflow.
#define FP8Q_MAX_SPAN_BYTES ((int64_t)1 << 48)

/// The fp8 flavour codes of every `fp8_type` argument are fp8q_fp8_type's
/// (fp8q_contracts.h); their values are part of the ABI.
#ifdef __cplusplus
static_assert(FP8Q_F8E4M3FN == 0 && FP8Q_F8E4M3FNUZ == 1,
              "fp8_type codes are ABI");
#else
_Static_assert(FP8Q_F8E4M3FN == 0 && FP8Q_F8E4M3FNUZ == 1,
               "fp8_type codes are ABI");
#endif

/// Weight layouts (the gemm's `weight_layout` argument).
typedef enum fp8q_weight_layout {
  FP8Q_WEIGHT_LAYOUT_PLAIN = 0, /* row-major [N, K] through strides */
  FP8Q_WEIGHT_LAYOUT_PRESHUFFLE_16X16 = 1, /* SPEC's permutation, dense */
} fp8q_weight_layout;

/* Conventions shared by the entry points below.
 *  - fp8 flavours have one convention: the `fp8_type` argument, an
 *    fp8q_fp8_type (FP8Q_F8E4M3FN = 0, FP8Q_F8E4M3FNUZ = 1), is the only
 *    place a flavour crosses the ABI. It is not an fp8q_fp8_req (the
 *    contract table's requirement, where FP8Q_FP8_E4M3FN is 1). fp8 operands
 *    (q, w) are byte buffers: `--fp8q-lower-to-runtime` declares them
 *    memref<?x?xi8, ...> whatever their flavour (a hand-written declaration
 *    may type them memref<?x?xf8E4M3FN> or memref<?x?xf8E4M3FNUZ>: the
 *    descriptor is the same).
 *  - bf16 / f16 operands are 2-byte buffers (memref<?x?xbf16> / xf16).
 *  - Scales are f32, memref<?x?xf32, strided<[?, ?], offset: ?>>: the real
 *    strides travel and decide where each value is read or written.
 *  - Every entry point honours the offset and strides of every operand,
 *    except the GEMM operands whose physical layout the selected kernel
 *    fixes (x_scale for ck/ck_bpreshuffle/deepgemm/cublas, a preshuffled
 *    weight): those are checked against the contract table first.
 *  - Declare memrefs fully dynamic (memref.cast to ?x? with strided<[?, ?],
 *    offset: ?>) so that one declaration serves every call site.
 *  - Return value: fp8q_status as i32 (MLIR may declare the result or not).
 */

/// Per-group quantization of x [M, K] into q [M, K] (fp8 bytes) and
/// scale [M, K/group_size] (f32, written through its strides: row-major,
/// column-major or aligned column-major is the fused transposed write).
/// scale = max(amax, 1e-10) / fp8_max; q = RNE(x / scale) saturated.
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_quantize_bf16(fp8q_memref_2d *x,
                                                          fp8q_memref_2d *q,
                                                          fp8q_memref_2d *scale,
                                                          int64_t group_size,
                                                          int32_t fp8_type);
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_quantize_f16(fp8q_memref_2d *x,
                                                         fp8q_memref_2d *q,
                                                         fp8q_memref_2d *scale,
                                                         int64_t group_size,
                                                         int32_t fp8_type);
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_quantize_f32(fp8q_memref_2d *x,
                                                         fp8q_memref_2d *q,
                                                         fp8q_memref_2d *scale,
                                                         int64_t group_size,
                                                         int32_t fp8_type);

/// Fused RMSNorm + quantize: y = x / sqrt(mean(x^2) + epsilon) * gamma per
/// row (fp32), rounded to x's element type, then quantized like
/// fp8q_rt_quantize. gamma is [K] of x's element type. When
/// keep_unquantized != 0 the rounded y is also written to `y` [M, K] (x's
/// element type); when it is 0, `y` is not touched (pass any descriptor,
/// e.g. x's).
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_rms_norm_quantize_bf16(
    fp8q_memref_2d *x, fp8q_memref_1d *gamma, fp8q_memref_2d *q,
    fp8q_memref_2d *scale, fp8q_memref_2d *y, float epsilon, int64_t group_size,
    int32_t fp8_type, int32_t keep_unquantized);
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_rms_norm_quantize_f16(
    fp8q_memref_2d *x, fp8q_memref_1d *gamma, fp8q_memref_2d *q,
    fp8q_memref_2d *scale, fp8q_memref_2d *y, float epsilon, int64_t group_size,
    int32_t fp8_type, int32_t keep_unquantized);
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_rms_norm_quantize_f32(
    fp8q_memref_2d *x, fp8q_memref_1d *gamma, fp8q_memref_2d *q,
    fp8q_memref_2d *scale, fp8q_memref_2d *y, float epsilon, int64_t group_size,
    int32_t fp8_type, int32_t keep_unquantized);

/// Fused residual add + RMSNorm + quantize (vLLM's fused_add_rms_norm):
/// sum[m, k] = round_T((float)x[m, k] + (float)residual[m, k]) is written
/// to `sum` [M, K] (T = x's element type; round-to-nearest-even, a NaN sum
/// stays a quiet NaN with its sign, as LLVM's bf16 / f16 fadd gives), then
/// everything proceeds exactly as fp8q_rt_rms_norm_quantize_T on `sum` (q,
/// scale, and y when keep_unquantized != 0): the norm reads the rounded sum.
/// residual and sum are [M, K] of T. `sum` may be exactly x or exactly
/// residual (the same address, sizes and strides: in place, as vLLM does);
/// otherwise it shares no byte with x or residual (disjoint byte ranges, or
/// column slices of one buffer), and never one with gamma, q, scale or y
/// (docs/RuntimeABI.md, "Fused producers").
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_add_rms_norm_quantize_bf16(
    fp8q_memref_2d *x, fp8q_memref_2d *residual, fp8q_memref_1d *gamma,
    fp8q_memref_2d *q, fp8q_memref_2d *scale, fp8q_memref_2d *y,
    fp8q_memref_2d *sum, float epsilon, int64_t group_size, int32_t fp8_type,
    int32_t keep_unquantized);
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_add_rms_norm_quantize_f16(
    fp8q_memref_2d *x, fp8q_memref_2d *residual, fp8q_memref_1d *gamma,
    fp8q_memref_2d *q, fp8q_memref_2d *scale, fp8q_memref_2d *y,
    fp8q_memref_2d *sum, float epsilon, int64_t group_size, int32_t fp8_type,
    int32_t keep_unquantized);
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_add_rms_norm_quantize_f32(
    fp8q_memref_2d *x, fp8q_memref_2d *residual, fp8q_memref_1d *gamma,
    fp8q_memref_2d *q, fp8q_memref_2d *scale, fp8q_memref_2d *y,
    fp8q_memref_2d *sum, float epsilon, int64_t group_size, int32_t fp8_type,
    int32_t keep_unquantized);

/// SiLU-and-mul + quantize: a[m, k] = (g / (1.0f + expf(-g))) * u with
/// g = (float)gate[m, k], u = (float)up[m, k], computed in f32 in exactly
/// this order (libm expf on the CPU), then quantized as fp8q_rt_quantize_f32
/// quantizes a [M, K] into q [M, K] and scale [M, K/group_size]. gate and
/// up are [M, K] of T; each honours its own strides (they are often two
/// column slices of one [M, 2K] buffer).
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_silu_mul_quantize_bf16(
    fp8q_memref_2d *gate, fp8q_memref_2d *up, fp8q_memref_2d *q,
    fp8q_memref_2d *scale, int64_t group_size, int32_t fp8_type);
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_silu_mul_quantize_f16(
    fp8q_memref_2d *gate, fp8q_memref_2d *up, fp8q_memref_2d *q,
    fp8q_memref_2d *scale, int64_t group_size, int32_t fp8_type);
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_silu_mul_quantize_f32(
    fp8q_memref_2d *gate, fp8q_memref_2d *up, fp8q_memref_2d *q,
    fp8q_memref_2d *scale, int64_t group_size, int32_t fp8_type);

/// Copies the f32 scale src [M, G] to dst [M, G], each through its own
/// strides (any layout to any layout). When both descriptors address the
/// same bytes for every element (equal layouts, SPEC) nothing is copied
/// (zero-copy). Overlapping but different layouts go through a temporary.
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_materialize(fp8q_memref_2d *src,
                                                        fp8q_memref_2d *dst);

/// Writes SPEC's preshuffle_16x16 permutation of the plain fp8 weight
/// w [N, K] (read through its strides) into dst, a dense [N, K] buffer
/// (strides (K, 1) required): W[16*n0+n1, 32*k0+16*k1+k2] goes to flat
/// offset (((n0*(K/32)+k0)*2+k1)*16+n1)*16+k2. N % 16 == 0, K % 32 == 0.
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_preshuffle(fp8q_memref_2d *w,
                                                       fp8q_memref_2d *dst);

/// Block-scale GEMM: out[m, n] = bf16(sum_kb xs[m, kb] * ws[n/128, kb] *
/// sum_{k in kb} q[m, k] * w[n, k]), fp32 accumulation.
///   q [M, K] fp8, x_scale [M, G] f32 (group = K / G), w [N, K] fp8,
///   w_scale [ceil(N/128), G] f32 row-major by value (through strides),
///   out [M, N] bf16.
/// `kernel` (fp8q_kernel) selects how raw buffers are read, exactly as that
/// kernel does: ck_bpreshuffle and cublas read x_scale column-major with
/// ld = M, deepgemm column-major with ld = roundup(M, 4), ck row-major with
/// ld = G, all ignoring the descriptor's strides; triton and reference
/// honour the strides. A weight with weight_layout PRESHUFFLE_16X16 is read
/// as a dense permuted buffer from its base address. Before reading, the
/// x_scale strides (fp8q_scale_strides_ok), the weight layout and the fp8
/// type are checked against the kernel's contract.
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_gemm(
    fp8q_memref_2d *q, fp8q_memref_2d *x_scale, fp8q_memref_2d *w,
    fp8q_memref_2d *w_scale, fp8q_memref_2d *out, int32_t kernel,
    int32_t fp8_type, int32_t weight_layout);

/* Block-scaled formats (v2): docs/RuntimeABI.md, "Block-scaled formats
 * (v2)". Quantize x [M, K] into any SPEC v2 format and scale layout:
 *  - q [M, K] bytes (fp8 q_types) or [M, K/2] bytes (f4E2M1FN, two per
 *    byte, element 2i in the low nibble), written through its strides;
 *  - scale: a v2 scale descriptor of the logical [M, K / group_size]
 *    scale, f32 or 1-byte (scale_type). A strided layout (row_major,
 *    col_major) has exactly that layout's strides; a padded layout (col_major
 *    pack = 4, swizzle_32_4_4, cdna4_mx) has strides (0, 0) and points at
 *    the layout's whole allocation, fp8q_scale_layout_alloc(layout, align,
 *    M, G) elements, element (m, g) at fp8q_scale_offset(...), every
 *    padding element written 0. The strides say which kind a buffer is,
 *    so one kind passed where the other is declared is rejected whatever
 *    its shape;
 *  - global_scale: rank-0 f32, read only when scale_type is f8E4M3FN
 *    (NVFP4: q = RNE(x / (scale * global))); otherwise not touched (null
 *    or any descriptor);
 *  - q_type fp8q_q_type, scale_type fp8q_scale_type, scale_rounding
 *    fp8q_scale_rounding, scale_layout fp8q_scale_layout, layout_align the
 *    col_major / pack4 leading-dimension multiple (1 for the others).
 * Every argument is validated before anything is written. */
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_quantize_v2_bf16(
    fp8q_memref_2d *x, fp8q_memref_2d *q, fp8q_memref_2d *scale,
    fp8q_memref_0d *global_scale, int64_t group_size, int32_t q_type,
    int32_t scale_type, int32_t scale_rounding, int32_t scale_layout,
    int64_t layout_align);
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_quantize_v2_f16(
    fp8q_memref_2d *x, fp8q_memref_2d *q, fp8q_memref_2d *scale,
    fp8q_memref_0d *global_scale, int64_t group_size, int32_t q_type,
    int32_t scale_type, int32_t scale_rounding, int32_t scale_layout,
    int64_t layout_align);
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_quantize_v2_f32(
    fp8q_memref_2d *x, fp8q_memref_2d *q, fp8q_memref_2d *scale,
    fp8q_memref_0d *global_scale, int64_t group_size, int32_t q_type,
    int32_t scale_type, int32_t scale_rounding, int32_t scale_layout,
    int64_t layout_align);
/// The inverse: out [M, K] f32 = decode(q) * scale (NVFP4: * global, as
/// decode(q) * (scale * global)), q and scale as for quantize_v2. The
/// scale rounding is not needed: the stored scale is the value.
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_dequantize_v2(
    fp8q_memref_2d *q, fp8q_memref_2d *scale, fp8q_memref_0d *global_scale,
    fp8q_memref_2d *out, int64_t group_size, int32_t q_type, int32_t scale_type,
    int32_t scale_layout, int64_t layout_align);
/// Copies the logical [M, G] scale src (v2 scale descriptor in
/// src_layout / src_align) into dst (dst_layout / dst_align, same sizes),
/// element bytes unchanged, a padded destination's padding written 0.
/// scale_type decides the element size (f32: 4, else 1).
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_materialize_v2(
    fp8q_memref_2d *src, fp8q_memref_2d *dst, int32_t scale_type,
    int32_t src_layout, int64_t src_align, int32_t dst_layout,
    int64_t dst_align);
/// preshuffle_16x16 of a weight of any q_type (fp8q_q_type) with K codes
/// per row: fp8 as _mlir_ciface_fp8q_rt_preshuffle; f4E2M1FN byte-wise,
/// its [N, K / 2] packed bytes permuted as an [N, K / 2] fp8 weight's
/// (AITER's shuffle_weight for fp4; N % 16 == 0, K % 64 == 0). An
/// f4E2M1FN descriptor counts codes ([N, K], the compiler's) or bytes
/// ([N, K / 2]); dst is dense.
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_preshuffle_v2(fp8q_memref_2d *w,
                                                          fp8q_memref_2d *dst,
                                                          int32_t q_type,
                                                          int64_t k);
/// Block-scaled GEMM of SPEC v2's formats (docs/RuntimeABI.md, "v2
/// GEMM"): out[m, n] = bf16(global * sum_g xs[m, g] * ws[n / b, g'] *
/// sum_{k in group g} q[m, k] * w[n, k]), fp32 accumulation.
///  - the format is (q_type, scale_type, group_size): FP8 1x128 UE8M0
///    (f8E4M3FN, f8E8M0FNU, 128; w_scale [ceil(N/128), K/128], b = 128),
///    MXFP8 (f8E4M3FN or f8E5M2, f8E8M0FNU, 32), MXFP4 (f4E2M1FN,
///    f8E8M0FNU, 32) or NVFP4 (f4E2M1FN, f8E4M3FN, 16) (w_scale [N, G],
///    b = 1);
///  - x_scale [M, G] and w_scale: v2 scale descriptors in x_scale_layout /
///    x_scale_align and w_scale_layout / w_scale_align (fp8q_scale_layout);
///    K = G * group_size;
///  - q [M, K] and w [N, K]: fp8 bytes, or f4E2M1FN two per byte (element
///    2i in the low nibble) whose descriptor counts bytes ([rows, K/2]) or
///    codes ([rows, K], unit column stride, even offset and row stride);
///    weight_layout 1 (preshuffle_16x16) is f4E2M1FN's byte-wise shuffle
///    of the dense [N, K/2] bytes;
///  - global_scale: rank-0 f32, NVFP4 only (read, finite and positive):
///    the PRODUCT of the activation's and the weight's global scales;
///    otherwise not touched (null or any descriptor);
///  - kernel: fp8q_kernel; its contract must read the format.
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_gemm_v2(
    fp8q_memref_2d *q, fp8q_memref_2d *x_scale, fp8q_memref_2d *w,
    fp8q_memref_2d *w_scale, fp8q_memref_0d *global_scale, fp8q_memref_2d *out,
    int64_t group_size, int32_t kernel, int32_t q_type, int32_t scale_type,
    int32_t x_scale_layout, int64_t x_scale_align, int32_t w_scale_layout,
    int64_t w_scale_align, int32_t weight_layout);

/* Collectives (docs/RuntimeABI.md, "Collectives"), along dim 0, for tensor
 * parallelism. x and out are dense row-major (strides (cols, 1); an extent
 * of 1 makes its stride irrelevant) and share no byte: a column-major or
 * strided operand (e.g. a col_major scale, strides (1, M)) is refused with
 * FP8Q_ERR_LAYOUT, because a dim-0 collective moves each rank's rows as one
 * block and would interleave the ranks' blocks wrongly; the compiler
 * materializes such an operand row-major first. `ranks` is the number of
 * ranks of the collective, in [1, 2^14].
 *  - all_gather: x [rows, cols] of any element type of elem_bytes (1, 2 or
 *    4) bytes; out [ranks * rows, cols] of the same type; rank r's x lands
 *    in rows [r * rows, (r + 1) * rows) of out.
 *  - reduce_scatter_bf16: x [rows, cols] bf16 with rows % ranks == 0; out
 *    [rows / ranks, cols] bf16 is rank r's block r of the sum over ranks.
 * These host entry points are one rank (the CPU runtime, and the GPU
 * runtimes' host ABI): ranks == 1 copies x into out, ranks > 1 is
 * FP8Q_ERR_ARG (after the operand checks); multi-rank collectives are the
 * device entry points below, on a communicator. */
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_all_gather(fp8q_memref_2d *x,
                                                       fp8q_memref_2d *out,
                                                       int64_t elem_bytes,
                                                       int64_t ranks);
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_reduce_scatter_bf16(
    fp8q_memref_2d *x, fp8q_memref_2d *out, int64_t ranks);

/* Plain C API: the same operations, returning fp8q_status instead of
 * exiting on error (for C/C++/Python-ctypes users and tests). The argument
 * lists are those of the _mlir_ciface_ entry points above. */
FP8Q_RT_EXPORT int32_t fp8q_quantize_bf16(fp8q_memref_2d *x, fp8q_memref_2d *q,
                                          fp8q_memref_2d *scale,
                                          int64_t group_size, int32_t fp8_type);
FP8Q_RT_EXPORT int32_t fp8q_quantize_f16(fp8q_memref_2d *x, fp8q_memref_2d *q,
                                         fp8q_memref_2d *scale,
                                         int64_t group_size, int32_t fp8_type);
FP8Q_RT_EXPORT int32_t fp8q_quantize_f32(fp8q_memref_2d *x, fp8q_memref_2d *q,
                                         fp8q_memref_2d *scale,
                                         int64_t group_size, int32_t fp8_type);
FP8Q_RT_EXPORT int32_t fp8q_rms_norm_quantize_bf16(
    fp8q_memref_2d *x, fp8q_memref_1d *gamma, fp8q_memref_2d *q,
    fp8q_memref_2d *scale, fp8q_memref_2d *y, float epsilon, int64_t group_size,
    int32_t fp8_type, int32_t keep_unquantized);
FP8Q_RT_EXPORT int32_t fp8q_rms_norm_quantize_f16(
    fp8q_memref_2d *x, fp8q_memref_1d *gamma, fp8q_memref_2d *q,
    fp8q_memref_2d *scale, fp8q_memref_2d *y, float epsilon, int64_t group_size,
    int32_t fp8_type, int32_t keep_unquantized);
FP8Q_RT_EXPORT int32_t fp8q_rms_norm_quantize_f32(
    fp8q_memref_2d *x, fp8q_memref_1d *gamma, fp8q_memref_2d *q,
    fp8q_memref_2d *scale, fp8q_memref_2d *y, float epsilon, int64_t group_size,
    int32_t fp8_type, int32_t keep_unquantized);
FP8Q_RT_EXPORT int32_t fp8q_add_rms_norm_quantize_bf16(
    fp8q_memref_2d *x, fp8q_memref_2d *residual, fp8q_memref_1d *gamma,
    fp8q_memref_2d *q, fp8q_memref_2d *scale, fp8q_memref_2d *y,
    fp8q_memref_2d *sum, float epsilon, int64_t group_size, int32_t fp8_type,
    int32_t keep_unquantized);
FP8Q_RT_EXPORT int32_t fp8q_add_rms_norm_quantize_f16(
    fp8q_memref_2d *x, fp8q_memref_2d *residual, fp8q_memref_1d *gamma,
    fp8q_memref_2d *q, fp8q_memref_2d *scale, fp8q_memref_2d *y,
    fp8q_memref_2d *sum, float epsilon, int64_t group_size, int32_t fp8_type,
    int32_t keep_unquantized);
FP8Q_RT_EXPORT int32_t fp8q_add_rms_norm_quantize_f32(
    fp8q_memref_2d *x, fp8q_memref_2d *residual, fp8q_memref_1d *gamma,
    fp8q_memref_2d *q, fp8q_memref_2d *scale, fp8q_memref_2d *y,
    fp8q_memref_2d *sum, float epsilon, int64_t group_size, int32_t fp8_type,
    int32_t keep_unquantized);
FP8Q_RT_EXPORT int32_t fp8q_silu_mul_quantize_bf16(
    fp8q_memref_2d *gate, fp8q_memref_2d *up, fp8q_memref_2d *q,
    fp8q_memref_2d *scale, int64_t group_size, int32_t fp8_type);
FP8Q_RT_EXPORT int32_t fp8q_silu_mul_quantize_f16(
    fp8q_memref_2d *gate, fp8q_memref_2d *up, fp8q_memref_2d *q,
    fp8q_memref_2d *scale, int64_t group_size, int32_t fp8_type);
FP8Q_RT_EXPORT int32_t fp8q_silu_mul_quantize_f32(
    fp8q_memref_2d *gate, fp8q_memref_2d *up, fp8q_memref_2d *q,
    fp8q_memref_2d *scale, int64_t group_size, int32_t fp8_type);
FP8Q_RT_EXPORT int32_t fp8q_materialize(fp8q_memref_2d *src,
                                        fp8q_memref_2d *dst);
FP8Q_RT_EXPORT int32_t fp8q_preshuffle(fp8q_memref_2d *w, fp8q_memref_2d *dst);
/// Inverse of fp8q_preshuffle: dense permuted src [N, K] -> plain dst
/// (through dst's strides).
FP8Q_RT_EXPORT int32_t fp8q_unpreshuffle(fp8q_memref_2d *src,
                                         fp8q_memref_2d *dst);
FP8Q_RT_EXPORT int32_t fp8q_gemm(fp8q_memref_2d *q, fp8q_memref_2d *x_scale,
                                 fp8q_memref_2d *w, fp8q_memref_2d *w_scale,
                                 fp8q_memref_2d *out, int32_t kernel,
                                 int32_t fp8_type, int32_t weight_layout);

FP8Q_RT_EXPORT int32_t fp8q_quantize_v2_bf16(
    fp8q_memref_2d *x, fp8q_memref_2d *q, fp8q_memref_2d *scale,
    fp8q_memref_0d *global_scale, int64_t group_size, int32_t q_type,
    int32_t scale_type, int32_t scale_rounding, int32_t scale_layout,
    int64_t layout_align);
FP8Q_RT_EXPORT int32_t fp8q_quantize_v2_f16(
    fp8q_memref_2d *x, fp8q_memref_2d *q, fp8q_memref_2d *scale,
    fp8q_memref_0d *global_scale, int64_t group_size, int32_t q_type,
    int32_t scale_type, int32_t scale_rounding, int32_t scale_layout,
    int64_t layout_align);
FP8Q_RT_EXPORT int32_t fp8q_quantize_v2_f32(
    fp8q_memref_2d *x, fp8q_memref_2d *q, fp8q_memref_2d *scale,
    fp8q_memref_0d *global_scale, int64_t group_size, int32_t q_type,
    int32_t scale_type, int32_t scale_rounding, int32_t scale_layout,
    int64_t layout_align);
FP8Q_RT_EXPORT int32_t fp8q_dequantize_v2(
    fp8q_memref_2d *q, fp8q_memref_2d *scale, fp8q_memref_0d *global_scale,
    fp8q_memref_2d *out, int64_t group_size, int32_t q_type, int32_t scale_type,
    int32_t scale_layout, int64_t layout_align);
FP8Q_RT_EXPORT int32_t fp8q_materialize_v2(fp8q_memref_2d *src,
                                           fp8q_memref_2d *dst,
                                           int32_t scale_type,
                                           int32_t src_layout, int64_t src_align,
                                           int32_t dst_layout,
                                           int64_t dst_align);
FP8Q_RT_EXPORT int32_t fp8q_preshuffle_v2(fp8q_memref_2d *w,
                                          fp8q_memref_2d *dst, int32_t q_type,
                                          int64_t k);
/// Inverse of fp8q_preshuffle_v2: dense permuted src -> plain dst.
FP8Q_RT_EXPORT int32_t fp8q_unpreshuffle_v2(fp8q_memref_2d *src,
                                            fp8q_memref_2d *dst,
                                            int32_t q_type, int64_t k);
FP8Q_RT_EXPORT int32_t fp8q_gemm_v2(
    fp8q_memref_2d *q, fp8q_memref_2d *x_scale, fp8q_memref_2d *w,
    fp8q_memref_2d *w_scale, fp8q_memref_0d *global_scale, fp8q_memref_2d *out,
    int64_t group_size, int32_t kernel, int32_t q_type, int32_t scale_type,
    int32_t x_scale_layout, int64_t x_scale_align, int32_t w_scale_layout,
    int64_t w_scale_align, int32_t weight_layout);
FP8Q_RT_EXPORT int32_t fp8q_all_gather(fp8q_memref_2d *x, fp8q_memref_2d *out,
                                       int64_t elem_bytes, int64_t ranks);
FP8Q_RT_EXPORT int32_t fp8q_reduce_scatter_bf16(fp8q_memref_2d *x,
                                                fp8q_memref_2d *out,
                                                int64_t ranks);

/// Checks, without touching data, that a [m, g] scale operand (`operand`
/// 0: x_scale, 1: w_scale) stored in `layout` (fp8q_scale_layout) with
/// `align` and, for the strided layouts, element strides (s0, s1) is what
/// `kernel` reads (the contract table's x_scale_layout / w_scale_layout,
/// fp8q_contracts.h). FP8Q_OK when it is; FP8Q_ERR_CONTRACT with what the
/// kernel reads in fp8q_last_error(); FP8Q_ERR_ARG / FP8Q_ERR_SHAPE for
/// bad codes or sizes. Prints nothing (a query, e.g. for the Python
/// package's fp8q.check).
FP8Q_RT_EXPORT int32_t fp8q_check_scale(int32_t kernel, int32_t operand,
                                        int32_t layout, int64_t align,
                                        int64_t m, int64_t g, int64_t s0,
                                        int64_t s1);

/// The message of the last error on the calling thread ("" if none).
FP8Q_RT_EXPORT const char *fp8q_last_error(void);
/// A short name for a status code.
FP8Q_RT_EXPORT const char *fp8q_status_name(int32_t status);

/* Device execution (docs/RuntimeABI.md, "Device execution").
 *
 * Device-mode steps keep every buffer in device memory and take the stream
 * as their last argument. Their fp8q ops call the entry points below: the
 * host ABI's arguments plus `stream` (a cudaStream_t / hipStream_t; null is
 * the legacy default stream). Every pointer in every descriptor must be
 * device (or managed) memory of the current device. Calls enqueue on
 * `stream` and return without synchronizing; they never allocate with
 * cudaMalloc, copy between host and device or stage, so a sequence of them
 * can be captured into a CUDA/HIP graph. Only libfp8q_runtime_cuda.so and
 * libfp8q_runtime_hip.so export them.
 *
 * Errors are sticky per thread and never exit: a rejected operand or a
 * driver failure prints one line to stderr ("fp8q runtime error
 * (cuda|hip): <entry>: <message>"), returns its fp8q_status and sets the
 * thread's device status; while it is set, every device entry point and
 * mgpuLaunchKernel / mgpuMemcpy / mgpuMemset* of that thread enqueues
 * nothing (so nothing is written) and returns the status. */
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_device_quantize_bf16(
    fp8q_memref_2d *x, fp8q_memref_2d *q, fp8q_memref_2d *scale,
    int64_t group_size, int32_t fp8_type, void *stream);
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_device_quantize_f16(
    fp8q_memref_2d *x, fp8q_memref_2d *q, fp8q_memref_2d *scale,
    int64_t group_size, int32_t fp8_type, void *stream);
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_device_quantize_f32(
    fp8q_memref_2d *x, fp8q_memref_2d *q, fp8q_memref_2d *scale,
    int64_t group_size, int32_t fp8_type, void *stream);
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_device_rms_norm_quantize_bf16(
    fp8q_memref_2d *x, fp8q_memref_1d *gamma, fp8q_memref_2d *q,
    fp8q_memref_2d *scale, fp8q_memref_2d *y, float epsilon, int64_t group_size,
    int32_t fp8_type, int32_t keep_unquantized, void *stream);
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_device_rms_norm_quantize_f16(
    fp8q_memref_2d *x, fp8q_memref_1d *gamma, fp8q_memref_2d *q,
    fp8q_memref_2d *scale, fp8q_memref_2d *y, float epsilon, int64_t group_size,
    int32_t fp8_type, int32_t keep_unquantized, void *stream);
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_device_rms_norm_quantize_f32(
    fp8q_memref_2d *x, fp8q_memref_1d *gamma, fp8q_memref_2d *q,
    fp8q_memref_2d *scale, fp8q_memref_2d *y, float epsilon, int64_t group_size,
    int32_t fp8_type, int32_t keep_unquantized, void *stream);
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_device_add_rms_norm_quantize_bf16(
    fp8q_memref_2d *x, fp8q_memref_2d *residual, fp8q_memref_1d *gamma,
    fp8q_memref_2d *q, fp8q_memref_2d *scale, fp8q_memref_2d *y,
    fp8q_memref_2d *sum, float epsilon, int64_t group_size, int32_t fp8_type,
    int32_t keep_unquantized, void *stream);
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_device_add_rms_norm_quantize_f16(
    fp8q_memref_2d *x, fp8q_memref_2d *residual, fp8q_memref_1d *gamma,
    fp8q_memref_2d *q, fp8q_memref_2d *scale, fp8q_memref_2d *y,
    fp8q_memref_2d *sum, float epsilon, int64_t group_size, int32_t fp8_type,
    int32_t keep_unquantized, void *stream);
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_device_add_rms_norm_quantize_f32(
    fp8q_memref_2d *x, fp8q_memref_2d *residual, fp8q_memref_1d *gamma,
    fp8q_memref_2d *q, fp8q_memref_2d *scale, fp8q_memref_2d *y,
    fp8q_memref_2d *sum, float epsilon, int64_t group_size, int32_t fp8_type,
    int32_t keep_unquantized, void *stream);
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_device_silu_mul_quantize_bf16(
    fp8q_memref_2d *gate, fp8q_memref_2d *up, fp8q_memref_2d *q,
    fp8q_memref_2d *scale, int64_t group_size, int32_t fp8_type, void *stream);
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_device_silu_mul_quantize_f16(
    fp8q_memref_2d *gate, fp8q_memref_2d *up, fp8q_memref_2d *q,
    fp8q_memref_2d *scale, int64_t group_size, int32_t fp8_type, void *stream);
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_device_silu_mul_quantize_f32(
    fp8q_memref_2d *gate, fp8q_memref_2d *up, fp8q_memref_2d *q,
    fp8q_memref_2d *scale, int64_t group_size, int32_t fp8_type, void *stream);
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_device_materialize(
    fp8q_memref_2d *src, fp8q_memref_2d *dst, void *stream);
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_device_preshuffle(
    fp8q_memref_2d *w, fp8q_memref_2d *dst, void *stream);
/// `cublas` runs cuBLASLt's blockwise FP8 GEMM on CUDA (libcublasLt.so.13,
/// opened at first use); every other kernel id, and shapes cuBLASLt
/// refuses, run the portable GEMM kernel (AMD: the MFMA kernels where the
/// device has them).
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_device_gemm(
    fp8q_memref_2d *q, fp8q_memref_2d *x_scale, fp8q_memref_2d *w,
    fp8q_memref_2d *w_scale, fp8q_memref_2d *out, int32_t kernel,
    int32_t fp8_type, int32_t weight_layout, void *stream);
/// quantize_v2 on the device: the host entry point's arguments (SPEC v2
/// formats, v2 scale descriptors, docs/RuntimeABI.md "Block-scaled formats
/// (v2)") plus the stream. global_scale is device memory, read by the
/// kernel (the host does not wait to check its value). x, q and scale
/// must not share bytes; group_size is a multiple of 8.
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_device_quantize_v2_bf16(
    fp8q_memref_2d *x, fp8q_memref_2d *q, fp8q_memref_2d *scale,
    fp8q_memref_0d *global_scale, int64_t group_size, int32_t q_type,
    int32_t scale_type, int32_t scale_rounding, int32_t scale_layout,
    int64_t layout_align, void *stream);
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_device_quantize_v2_f16(
    fp8q_memref_2d *x, fp8q_memref_2d *q, fp8q_memref_2d *scale,
    fp8q_memref_0d *global_scale, int64_t group_size, int32_t q_type,
    int32_t scale_type, int32_t scale_rounding, int32_t scale_layout,
    int64_t layout_align, void *stream);
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_device_quantize_v2_f32(
    fp8q_memref_2d *x, fp8q_memref_2d *q, fp8q_memref_2d *scale,
    fp8q_memref_0d *global_scale, int64_t group_size, int32_t q_type,
    int32_t scale_type, int32_t scale_rounding, int32_t scale_layout,
    int64_t layout_align, void *stream);
/// materialize_v2 on the device: any v2 layout into any v2 layout, a padded
/// destination's padding written 0; overlapping src and dst go through a
/// stream-ordered temporary.
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_device_materialize_v2(
    fp8q_memref_2d *src, fp8q_memref_2d *dst, int32_t scale_type,
    int32_t src_layout, int64_t src_align, int32_t dst_layout,
    int64_t dst_align, void *stream);
/// gemm_v2 on the device: the CPU runtime's checks and numerics (bit for
/// bit, the same order, no FMA contraction) in a portable kernel; NVFP4's
/// global_scale is device memory, read by the kernel.
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_device_gemm_v2(
    fp8q_memref_2d *q, fp8q_memref_2d *x_scale, fp8q_memref_2d *w,
    fp8q_memref_2d *w_scale, fp8q_memref_0d *global_scale, fp8q_memref_2d *out,
    int64_t group_size, int32_t kernel, int32_t q_type, int32_t scale_type,
    int32_t x_layout, int64_t x_align, int32_t w_layout, int64_t w_align,
    int32_t weight_layout, void *stream);
/// preshuffle_v2 on the device (f4E2M1FN byte-wise, as on the host).
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_device_preshuffle_v2(
    fp8q_memref_2d *w, fp8q_memref_2d *dst, int32_t q_type, int64_t k,
    void *stream);
/// The check a device-mode step makes at its entry for memref argument
/// #arg_index: the `span_bytes` at `aligned_ptr` (0: an empty operand, any
/// pointer) are device memory of the current device, and `stream` is a
/// valid stream.
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_device_check_arg(
    int64_t aligned_ptr, int64_t span_bytes, int32_t arg_index, void *stream);

/* Collectives on the device (docs/RuntimeABI.md, "Collectives"): the host
 * entry points' arguments and checks, then the stream. NCCL (CUDA) or RCCL
 * (HIP) is opened with dlopen at the first fp8q_rt_device_comm_* call that
 * needs it: $FP8Q_NCCL_LIBRARY, else libnccl.so.2 / librccl.so.1; a missing
 * library is FP8Q_ERR_DEVICE naming the library and the variable. With a
 * communicator (comm_init or comm_set) `ranks` must equal its rank count
 * and the call is ncclAllGather / ncclReduceScatter (ncclSum, ncclBfloat16)
 * on `stream`. Without one, ranks == 1 is a device-to-device
 * cudaMemcpyAsync / hipMemcpyAsync of x into out on `stream` (captured by a
 * graph like any other call) and ranks > 1 is FP8Q_ERR_DEVICE asking for
 * fp8q_rt_device_comm_init. Errors are sticky, as for every device entry. */
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_device_all_gather(
    fp8q_memref_2d *x, fp8q_memref_2d *out, int64_t elem_bytes, int64_t ranks,
    void *stream);
FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_device_reduce_scatter_bf16(
    fp8q_memref_2d *x, fp8q_memref_2d *out, int64_t ranks, void *stream);
/// Creates the process's communicator: ncclCommInitRank(ranks, unique_id,
/// rank) on the current device (blocking: every rank calls it). unique_id
/// points at the 128-byte ncclUniqueId that rank 0 got from
/// fp8q_rt_device_comm_unique_id and handed to every rank; it may be null
/// when ranks == 1 (the runtime then makes the id). A communicator already
/// set is FP8Q_ERR_ARG (destroy it first).
FP8Q_RT_EXPORT int32_t fp8q_rt_device_comm_init(int32_t ranks, int32_t rank,
                                                const void *unique_id);
/// Fills the 128 bytes at out128 with a new ncclUniqueId (rank 0 calls it
/// and sends the bytes to the other ranks).
FP8Q_RT_EXPORT int32_t fp8q_rt_device_comm_unique_id(void *out128);
/// Uses `nccl_comm`, an ncclComm_t the caller (a serving stack) created
/// with the same NCCL library (the one it loaded: dlopen of the same
/// soname finds it), of `ranks` ranks in which this process is `rank`. The
/// runtime never destroys it: comm_destroy only forgets it.
FP8Q_RT_EXPORT int32_t fp8q_rt_device_comm_set(void *nccl_comm, int32_t ranks,
                                               int32_t rank);
/// Destroys the communicator comm_init made (ncclCommDestroy) or forgets
/// the one comm_set gave; FP8Q_OK when there is none. Runs while the
/// thread's status is sticky.
FP8Q_RT_EXPORT int32_t fp8q_rt_device_comm_destroy(void);
/// The NCCL_VERSION_CODE of the loaded NCCL / RCCL (ncclGetVersion, e.g.
/// 22809 for 2.28.9), loading it if needed; -FP8Q_ERR_DEVICE when it cannot
/// be loaded (a query: the status is not made sticky).
FP8Q_RT_EXPORT int32_t fp8q_rt_device_comm_nccl_version(void);

/// The calling thread's sticky device status (FP8Q_OK when clear).
FP8Q_RT_EXPORT int32_t fp8q_device_status(void);
/// The message of the sticky error ("" when clear).
FP8Q_RT_EXPORT const char *fp8q_device_last_error(void);
/// Clears the sticky status: later device calls enqueue again.
FP8Q_RT_EXPORT void fp8q_device_clear_error(void);
/// Stream-ordered device memory (cudaMallocAsync / hipMallocAsync), the
/// allocator of mgpuMemAlloc: results a step returns were made by it and
/// are released with fp8q_device_free on a stream ordered after their use.
FP8Q_RT_EXPORT void *fp8q_device_alloc(int64_t bytes, void *stream);
FP8Q_RT_EXPORT void fp8q_device_free(void *ptr, void *stream);

/* MLIR's GPU runtime calls (what `gpu-to-llvm` output calls; the
 * signatures of upstream mlir/lib/ExecutionEngine/CudaRuntimeWrappers.cpp
 * and RocmRuntimeWrappers.cpp), with the error model above: a module that
 * fails to load (no device, no image for this architecture) gives null and
 * a sticky error naming the reason, never an abort. */
FP8Q_RT_EXPORT void *mgpuModuleLoad(void *data, size_t gpuBlobSize);
FP8Q_RT_EXPORT void *mgpuModuleLoadJIT(void *data, int optLevel);
FP8Q_RT_EXPORT void mgpuModuleUnload(void *module);
FP8Q_RT_EXPORT void *mgpuModuleGetFunction(void *module, const char *name);
FP8Q_RT_EXPORT void mgpuLaunchKernel(void *function, intptr_t gridX,
                                     intptr_t gridY, intptr_t gridZ,
                                     intptr_t blockX, intptr_t blockY,
                                     intptr_t blockZ, int32_t smem,
                                     void *stream, void **params, void **extra,
                                     size_t paramsCount);
FP8Q_RT_EXPORT void *mgpuStreamCreate(void);
FP8Q_RT_EXPORT void mgpuStreamDestroy(void *stream);
FP8Q_RT_EXPORT void mgpuStreamSynchronize(void *stream);
FP8Q_RT_EXPORT void mgpuStreamWaitEvent(void *stream, void *event);
FP8Q_RT_EXPORT void *mgpuEventCreate(void);
FP8Q_RT_EXPORT void mgpuEventDestroy(void *event);
FP8Q_RT_EXPORT void mgpuEventSynchronize(void *event);
FP8Q_RT_EXPORT void mgpuEventRecord(void *event, void *stream);
FP8Q_RT_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, void *stream,
                                  bool isHostShared);
FP8Q_RT_EXPORT void mgpuMemFree(void *ptr, void *stream);
FP8Q_RT_EXPORT void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                               void *stream);
FP8Q_RT_EXPORT void mgpuMemset32(void *dst, unsigned value, size_t count,
                                 void *stream);
FP8Q_RT_EXPORT void mgpuMemset16(void *dst, unsigned short value, size_t count,
                                 void *stream);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* FP8Q_RUNTIME_FP8Q_RUNTIME_H */
