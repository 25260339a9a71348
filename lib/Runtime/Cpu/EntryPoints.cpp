//===- EntryPoints.cpp - Exported ABI of the CPU runtime ------------------===//
//
// The `_mlir_ciface_fp8q_rt_*` entry points called by MLIR-lowered code and
// the plain `fp8q_*` C API. Both share one implementation; they differ only
// in what happens on error: MLIR-lowered code cannot check a status, so the
// _mlir_ciface_ variants exit the process with status 1 (the message is
// already on stderr), while the C API returns the status.
//
//===----------------------------------------------------------------------===//

#include "CpuRuntime.h"
#include "fp8q_scale_checks.h"

#include <cstdlib>

using namespace fp8q::rt;

namespace {
/// Exits with status 1 on error: nothing has been written at this point.
int32_t orExit(int32_t status) {
  if (status != FP8Q_OK)
    std::exit(1);
  return status;
}
} // namespace

extern "C" {

//===-- quantize ----------------------------------------------------------===//

#define FP8Q_DEFINE_QUANTIZE(SUFFIX, ACT)                                      \
  FP8Q_RT_EXPORT int32_t fp8q_quantize_##SUFFIX(                               \
      fp8q_memref_2d *x, fp8q_memref_2d *q, fp8q_memref_2d *scale,             \
      int64_t group_size, int32_t fp8_type) {                                  \
    return quantizeImpl("fp8q_rt_quantize_" #SUFFIX, ACT, x, nullptr, q,       \
                        scale, nullptr, 0.0f, group_size, fp8_type, false,     \
                        false);                                                \
  }                                                                            \
  FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_quantize_##SUFFIX(               \
      fp8q_memref_2d *x, fp8q_memref_2d *q, fp8q_memref_2d *scale,             \
      int64_t group_size, int32_t fp8_type) {                                  \
    return orExit(fp8q_quantize_##SUFFIX(x, q, scale, group_size, fp8_type));  \
  }                                                                            \
  FP8Q_RT_EXPORT int32_t fp8q_rms_norm_quantize_##SUFFIX(                      \
      fp8q_memref_2d *x, fp8q_memref_1d *gamma, fp8q_memref_2d *q,             \
      fp8q_memref_2d *scale, fp8q_memref_2d *y, float epsilon,                 \
      int64_t group_size, int32_t fp8_type, int32_t keep_unquantized) {        \
    return quantizeImpl("fp8q_rt_rms_norm_quantize_" #SUFFIX, ACT, x, gamma,   \
                        q, scale, y, epsilon, group_size, fp8_type, true,      \
                        keep_unquantized != 0);                                \
  }                                                                            \
  FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_rms_norm_quantize_##SUFFIX(      \
      fp8q_memref_2d *x, fp8q_memref_1d *gamma, fp8q_memref_2d *q,             \
      fp8q_memref_2d *scale, fp8q_memref_2d *y, float epsilon,                 \
      int64_t group_size, int32_t fp8_type, int32_t keep_unquantized) {        \
    return orExit(fp8q_rms_norm_quantize_##SUFFIX(                             \
        x, gamma, q, scale, y, epsilon, group_size, fp8_type,                  \
        keep_unquantized));                                                    \
  }

FP8Q_DEFINE_QUANTIZE(bf16, ActType::BF16)
FP8Q_DEFINE_QUANTIZE(f16, ActType::F16)
FP8Q_DEFINE_QUANTIZE(f32, ActType::F32)

#undef FP8Q_DEFINE_QUANTIZE

//===-- fused producers: residual add, SiLU x mul -------------------------===//

#define FP8Q_DEFINE_FUSED(SUFFIX, ACT)                                         \
  FP8Q_RT_EXPORT int32_t fp8q_add_rms_norm_quantize_##SUFFIX(                  \
      fp8q_memref_2d *x, fp8q_memref_2d *residual, fp8q_memref_1d *gamma,      \
      fp8q_memref_2d *q, fp8q_memref_2d *scale, fp8q_memref_2d *y,             \
      fp8q_memref_2d *sum, float epsilon, int64_t group_size,                  \
      int32_t fp8_type, int32_t keep_unquantized) {                            \
    return addRmsNormQuantizeImpl(                                             \
        "fp8q_rt_add_rms_norm_quantize_" #SUFFIX, ACT, x, residual, gamma, q,  \
        scale, y, sum, epsilon, group_size, fp8_type, keep_unquantized != 0);  \
  }                                                                            \
  FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_add_rms_norm_quantize_##SUFFIX(  \
      fp8q_memref_2d *x, fp8q_memref_2d *residual, fp8q_memref_1d *gamma,      \
      fp8q_memref_2d *q, fp8q_memref_2d *scale, fp8q_memref_2d *y,             \
      fp8q_memref_2d *sum, float epsilon, int64_t group_size,                  \
      int32_t fp8_type, int32_t keep_unquantized) {                            \
    return orExit(fp8q_add_rms_norm_quantize_##SUFFIX(                         \
        x, residual, gamma, q, scale, y, sum, epsilon, group_size, fp8_type,   \
        keep_unquantized));                                                    \
  }                                                                            \
  FP8Q_RT_EXPORT int32_t fp8q_silu_mul_quantize_##SUFFIX(                      \
      fp8q_memref_2d *gate, fp8q_memref_2d *up, fp8q_memref_2d *q,             \
      fp8q_memref_2d *scale, int64_t group_size, int32_t fp8_type) {           \
    return siluMulQuantizeImpl("fp8q_rt_silu_mul_quantize_" #SUFFIX, ACT,      \
                               gate, up, q, scale, group_size, fp8_type);      \
  }                                                                            \
  FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_silu_mul_quantize_##SUFFIX(      \
      fp8q_memref_2d *gate, fp8q_memref_2d *up, fp8q_memref_2d *q,             \
      fp8q_memref_2d *scale, int64_t group_size, int32_t fp8_type) {           \
    return orExit(fp8q_silu_mul_quantize_##SUFFIX(gate, up, q, scale,          \
                                                  group_size, fp8_type));      \
  }

FP8Q_DEFINE_FUSED(bf16, ActType::BF16)
FP8Q_DEFINE_FUSED(f16, ActType::F16)
FP8Q_DEFINE_FUSED(f32, ActType::F32)

#undef FP8Q_DEFINE_FUSED

//===-- block-scaled formats (v2) -----------------------------------------===//

#define FP8Q_DEFINE_QUANTIZE_V2(SUFFIX, ACT)                                   \
  FP8Q_RT_EXPORT int32_t fp8q_quantize_v2_##SUFFIX(                            \
      fp8q_memref_2d *x, fp8q_memref_2d *q, fp8q_memref_2d *scale,             \
      fp8q_memref_0d *global_scale, int64_t group_size, int32_t q_type,        \
      int32_t scale_type, int32_t scale_rounding, int32_t scale_layout,        \
      int64_t layout_align) {                                                  \
    return quantizeV2Impl("fp8q_rt_quantize_v2_" #SUFFIX, ACT, x, q, scale,    \
                          global_scale, group_size, q_type, scale_type,        \
                          scale_rounding, scale_layout, layout_align);         \
  }                                                                            \
  FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_quantize_v2_##SUFFIX(            \
      fp8q_memref_2d *x, fp8q_memref_2d *q, fp8q_memref_2d *scale,             \
      fp8q_memref_0d *global_scale, int64_t group_size, int32_t q_type,        \
      int32_t scale_type, int32_t scale_rounding, int32_t scale_layout,        \
      int64_t layout_align) {                                                  \
    return orExit(fp8q_quantize_v2_##SUFFIX(                                   \
        x, q, scale, global_scale, group_size, q_type, scale_type,             \
        scale_rounding, scale_layout, layout_align));                          \
  }

FP8Q_DEFINE_QUANTIZE_V2(bf16, ActType::BF16)
FP8Q_DEFINE_QUANTIZE_V2(f16, ActType::F16)
FP8Q_DEFINE_QUANTIZE_V2(f32, ActType::F32)

#undef FP8Q_DEFINE_QUANTIZE_V2

FP8Q_RT_EXPORT int32_t fp8q_dequantize_v2(
    fp8q_memref_2d *q, fp8q_memref_2d *scale, fp8q_memref_0d *global_scale,
    fp8q_memref_2d *out, int64_t group_size, int32_t q_type, int32_t scale_type,
    int32_t scale_layout, int64_t layout_align) {
  return dequantizeV2Impl("fp8q_rt_dequantize_v2", q, scale, global_scale, out,
                          group_size, q_type, scale_type, scale_layout,
                          layout_align);
}

FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_dequantize_v2(
    fp8q_memref_2d *q, fp8q_memref_2d *scale, fp8q_memref_0d *global_scale,
    fp8q_memref_2d *out, int64_t group_size, int32_t q_type, int32_t scale_type,
    int32_t scale_layout, int64_t layout_align) {
  return orExit(fp8q_dequantize_v2(q, scale, global_scale, out, group_size,
                                   q_type, scale_type, scale_layout,
                                   layout_align));
}

FP8Q_RT_EXPORT int32_t
fp8q_materialize_v2(fp8q_memref_2d *src, fp8q_memref_2d *dst,
                    int32_t scale_type, int32_t src_layout, int64_t src_align,
                    int32_t dst_layout, int64_t dst_align) {
  return materializeV2Impl("fp8q_rt_materialize_v2", src, dst, scale_type,
                           src_layout, src_align, dst_layout, dst_align);
}

FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_materialize_v2(
    fp8q_memref_2d *src, fp8q_memref_2d *dst, int32_t scale_type,
    int32_t src_layout, int64_t src_align, int32_t dst_layout,
    int64_t dst_align) {
  return orExit(fp8q_materialize_v2(src, dst, scale_type, src_layout, src_align,
                                    dst_layout, dst_align));
}

//===-- materialize, preshuffle -------------------------------------------===//

FP8Q_RT_EXPORT int32_t fp8q_materialize(fp8q_memref_2d *src,
                                        fp8q_memref_2d *dst) {
  return materializeImpl("fp8q_rt_materialize", src, dst);
}

FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_materialize(fp8q_memref_2d *src,
                                                        fp8q_memref_2d *dst) {
  return orExit(fp8q_materialize(src, dst));
}

FP8Q_RT_EXPORT int32_t fp8q_preshuffle(fp8q_memref_2d *w, fp8q_memref_2d *dst) {
  return preshuffleImpl("fp8q_rt_preshuffle", w, dst, /*inverse=*/false);
}

FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_preshuffle(fp8q_memref_2d *w,
                                                       fp8q_memref_2d *dst) {
  return orExit(fp8q_preshuffle(w, dst));
}

FP8Q_RT_EXPORT int32_t fp8q_unpreshuffle(fp8q_memref_2d *src,
                                         fp8q_memref_2d *dst) {
  return preshuffleImpl("fp8q_unpreshuffle", src, dst, /*inverse=*/true);
}

/// preshuffle_v2: the codes checked and the descriptors rewritten as bytes,
/// then the byte-wise permutation of fp8q_preshuffle.
static int32_t preshuffleV2(const char *entry, fp8q_memref_2d *src,
                            fp8q_memref_2d *dst, int32_t qType, int64_t k,
                            bool inverse) {
  clearError();
  fp8q_memref_2d srcBytes, dstBytes;
  if (int32_t s =
          preshuffleBytes(entry, src, dst, qType, k, srcBytes, dstBytes))
    return s;
  return preshuffleImpl(entry, &srcBytes, &dstBytes, inverse);
}

FP8Q_RT_EXPORT int32_t fp8q_preshuffle_v2(fp8q_memref_2d *w,
                                          fp8q_memref_2d *dst, int32_t q_type,
                                          int64_t k) {
  return preshuffleV2("fp8q_rt_preshuffle_v2", w, dst, q_type, k, false);
}

FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_preshuffle_v2(fp8q_memref_2d *w,
                                                          fp8q_memref_2d *dst,
                                                          int32_t q_type,
                                                          int64_t k) {
  return orExit(fp8q_preshuffle_v2(w, dst, q_type, k));
}

FP8Q_RT_EXPORT int32_t fp8q_unpreshuffle_v2(fp8q_memref_2d *src,
                                            fp8q_memref_2d *dst, int32_t q_type,
                                            int64_t k) {
  return preshuffleV2("fp8q_unpreshuffle_v2", src, dst, q_type, k, true);
}

//===-- gemm --------------------------------------------------------------===//

FP8Q_RT_EXPORT int32_t fp8q_gemm(fp8q_memref_2d *q, fp8q_memref_2d *x_scale,
                                 fp8q_memref_2d *w, fp8q_memref_2d *w_scale,
                                 fp8q_memref_2d *out, int32_t kernel,
                                 int32_t fp8_type, int32_t weight_layout) {
  return gemmImpl("fp8q_rt_gemm", q, x_scale, w, w_scale, out, kernel, fp8_type,
                  weight_layout);
}

FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_gemm(
    fp8q_memref_2d *q, fp8q_memref_2d *x_scale, fp8q_memref_2d *w,
    fp8q_memref_2d *w_scale, fp8q_memref_2d *out, int32_t kernel,
    int32_t fp8_type, int32_t weight_layout) {
  return orExit(
      fp8q_gemm(q, x_scale, w, w_scale, out, kernel, fp8_type, weight_layout));
}

FP8Q_RT_EXPORT int32_t fp8q_gemm_v2(
    fp8q_memref_2d *q, fp8q_memref_2d *x_scale, fp8q_memref_2d *w,
    fp8q_memref_2d *w_scale, fp8q_memref_0d *global_scale, fp8q_memref_2d *out,
    int64_t group_size, int32_t kernel, int32_t q_type, int32_t scale_type,
    int32_t x_scale_layout, int64_t x_scale_align, int32_t w_scale_layout,
    int64_t w_scale_align, int32_t weight_layout) {
  return gemmV2Impl("fp8q_rt_gemm_v2", q, x_scale, w, w_scale, global_scale,
                    out, group_size, kernel, q_type, scale_type, x_scale_layout,
                    x_scale_align, w_scale_layout, w_scale_align,
                    weight_layout);
}

FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_gemm_v2(
    fp8q_memref_2d *q, fp8q_memref_2d *x_scale, fp8q_memref_2d *w,
    fp8q_memref_2d *w_scale, fp8q_memref_0d *global_scale, fp8q_memref_2d *out,
    int64_t group_size, int32_t kernel, int32_t q_type, int32_t scale_type,
    int32_t x_scale_layout, int64_t x_scale_align, int32_t w_scale_layout,
    int64_t w_scale_align, int32_t weight_layout) {
  return orExit(fp8q_gemm_v2(q, x_scale, w, w_scale, global_scale, out,
                             group_size, kernel, q_type, scale_type,
                             x_scale_layout, x_scale_align, w_scale_layout,
                             w_scale_align, weight_layout));
}

//===-- collectives (one rank) --------------------------------------------===//

FP8Q_RT_EXPORT int32_t fp8q_all_gather(fp8q_memref_2d *x, fp8q_memref_2d *out,
                                       int64_t elem_bytes, int64_t ranks) {
  return collectiveImpl("fp8q_rt_all_gather", CollectiveKind::AllGather, x, out,
                        elem_bytes, ranks);
}

FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_all_gather(fp8q_memref_2d *x,
                                                       fp8q_memref_2d *out,
                                                       int64_t elem_bytes,
                                                       int64_t ranks) {
  return orExit(fp8q_all_gather(x, out, elem_bytes, ranks));
}

FP8Q_RT_EXPORT int32_t fp8q_reduce_scatter_bf16(fp8q_memref_2d *x,
                                                fp8q_memref_2d *out,
                                                int64_t ranks) {
  return collectiveImpl("fp8q_rt_reduce_scatter_bf16",
                        CollectiveKind::ReduceScatter, x, out, /*elemBytes=*/2,
                        ranks);
}

FP8Q_RT_EXPORT int32_t _mlir_ciface_fp8q_rt_reduce_scatter_bf16(
    fp8q_memref_2d *x, fp8q_memref_2d *out, int64_t ranks) {
  return orExit(fp8q_reduce_scatter_bf16(x, out, ranks));
}

} // extern "C"
