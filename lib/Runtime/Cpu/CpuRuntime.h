//===- CpuRuntime.h - Internals of the CPU reference runtime ----*- C++ -*-===//
//
// Shared helpers of libfp8q_runtime_cpu.so: error reporting, threads and
// activation element access (descriptor validation is
// lib/Runtime/Common/fp8q_operand_checks.h, shared with the HIP runtime).
// Nothing here is exported.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_LIB_RUNTIME_CPU_CPURUNTIME_H
#define FP8Q_LIB_RUNTIME_CPU_CPURUNTIME_H

#include "fp8q/Runtime/fp8q_runtime.h"
#include "fp8q_collective_checks.h"
#include "fp8q_operand_checks.h"

#include <cstddef>
#include <cstdint>

namespace fp8q::rt {

/// Clears the calling thread's last error.
void clearError();

/// Worker threads for data-parallel loops (FP8Q_RT_THREADS, default the
/// hardware concurrency capped at 8).
unsigned numThreads();

/// Runs body(task) for task in [0, numTasks) over numThreads() threads.
void parallelFor(int64_t numTasks, void (*body)(int64_t, void *), void *ctx);

/// Activation element types of quantize / rms_norm_quantize.
enum class ActType { BF16, F16, F32 };

/// Element size of an activation type.
size_t actSize(ActType t);

/// Reads an activation element as fp32.
float loadAct(const void *p, ActType t);

/// Rounds `v` to the activation type, stores it at `p` and returns the
/// rounded value as fp32.
float storeAct(void *p, ActType t, float v);

/// The validated operands of quantize and rms_norm_quantize (gamma and y
/// only when they are used).
struct QuantizeOperands {
  View2 x, q, scale, y;
  View1 gamma;
  int64_t M = 0, K = 0, G = 0, groupSize = 0;
};

/// Validates the operands of quantize (rmsNorm false) or rms_norm_quantize
/// in the order every runtime checks them; `xName` names the activation in
/// messages ("x", or "gate" for silu_mul_quantize). Fills `o`.
int32_t checkQuantize(const char *entry, ActType t, const char *xName,
                      fp8q_memref_2d *x, fp8q_memref_1d *gamma,
                      fp8q_memref_2d *q, fp8q_memref_2d *scale,
                      fp8q_memref_2d *y, float epsilon, int64_t groupSize,
                      int32_t fp8Type, bool rmsNorm, bool keepUnquantized,
                      QuantizeOperands &o);

/// The computation of quantize / rms_norm_quantize on validated operands:
/// reads o.x (elements of type t), then writes o.q, o.scale and, with
/// rmsNorm and keepUnquantized, o.y. Everything is computed before the
/// first write, so inputs may alias outputs.
void quantizeRows(ActType t, const QuantizeOperands &o, float epsilon,
                  int32_t fp8Type, bool rmsNorm, bool keepUnquantized);

/// Implementations behind the entry points (in Quantize.cpp,
/// FusedProducers.cpp, QuantizeV2.cpp, Layout.cpp, Gemm.cpp, GemmV2.cpp and
/// Collectives.cpp).
/// `entry` names the entry point for messages.
int32_t quantizeImpl(const char *entry, ActType t, fp8q_memref_2d *x,
                     fp8q_memref_1d *gamma, fp8q_memref_2d *q,
                     fp8q_memref_2d *scale, fp8q_memref_2d *y, float epsilon,
                     int64_t groupSize, int32_t fp8Type, bool rmsNorm,
                     bool keepUnquantized);
int32_t addRmsNormQuantizeImpl(const char *entry, ActType t, fp8q_memref_2d *x,
                               fp8q_memref_2d *residual, fp8q_memref_1d *gamma,
                               fp8q_memref_2d *q, fp8q_memref_2d *scale,
                               fp8q_memref_2d *y, fp8q_memref_2d *sum,
                               float epsilon, int64_t groupSize,
                               int32_t fp8Type, bool keepUnquantized);
int32_t siluMulQuantizeImpl(const char *entry, ActType t, fp8q_memref_2d *gate,
                            fp8q_memref_2d *up, fp8q_memref_2d *q,
                            fp8q_memref_2d *scale, int64_t groupSize,
                            int32_t fp8Type);
int32_t quantizeV2Impl(const char *entry, ActType t, fp8q_memref_2d *x,
                       fp8q_memref_2d *q, fp8q_memref_2d *scale,
                       fp8q_memref_0d *global, int64_t groupSize, int32_t qType,
                       int32_t scaleType, int32_t rounding, int32_t layout,
                       int64_t align);
int32_t dequantizeV2Impl(const char *entry, fp8q_memref_2d *q,
                         fp8q_memref_2d *scale, fp8q_memref_0d *global,
                         fp8q_memref_2d *out, int64_t groupSize, int32_t qType,
                         int32_t scaleType, int32_t layout, int64_t align);
int32_t materializeV2Impl(const char *entry, fp8q_memref_2d *src,
                          fp8q_memref_2d *dst, int32_t scaleType,
                          int32_t srcLayout, int64_t srcAlign,
                          int32_t dstLayout, int64_t dstAlign);
int32_t materializeImpl(const char *entry, fp8q_memref_2d *src,
                        fp8q_memref_2d *dst);
int32_t preshuffleImpl(const char *entry, fp8q_memref_2d *src,
                       fp8q_memref_2d *dst, bool inverse);
int32_t gemmImpl(const char *entry, fp8q_memref_2d *q, fp8q_memref_2d *xs,
                 fp8q_memref_2d *w, fp8q_memref_2d *ws, fp8q_memref_2d *out,
                 int32_t kernel, int32_t fp8Type, int32_t weightLayout);
int32_t gemmV2Impl(const char *entry, fp8q_memref_2d *q, fp8q_memref_2d *xs,
                   fp8q_memref_2d *w, fp8q_memref_2d *ws,
                   fp8q_memref_0d *global, fp8q_memref_2d *out,
                   int64_t groupSize, int32_t kernel, int32_t qType,
                   int32_t scaleType, int32_t xLayout, int64_t xAlign,
                   int32_t wLayout, int64_t wAlign, int32_t weightLayout);
/// all_gather or reduce_scatter_bf16 (elemBytes 2) along dim 0 on one rank
/// (Collectives.cpp): the shared checks, then a copy; ranks > 1 is refused.
int32_t collectiveImpl(const char *entry, CollectiveKind kind,
                       fp8q_memref_2d *x, fp8q_memref_2d *out,
                       int64_t elemBytes, int64_t ranks);

} // namespace fp8q::rt

#endif // FP8Q_LIB_RUNTIME_CPU_CPURUNTIME_H
