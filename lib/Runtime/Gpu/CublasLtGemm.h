//===- CublasLtGemm.h - The `cublas` kernel through cuBLASLt ----*- C++ -*-===//

#ifndef FP8Q_RUNTIME_GPU_CUBLASLTGEMM_H
#define FP8Q_RUNTIME_GPU_CUBLASLTGEMM_H

#include "GpuApi.h"

#include "fp8q_operand_checks.h"

namespace fp8q::hiprt {

/// Enqueues out = q x w^T with cuBLASLt's blockwise FP8 GEMM (1x128
/// activation scales read column-major with ld = M, 128x128 weight scales)
/// on `stream`, operands already validated and in device memory. Returns
/// Exec::kNotHandled when cuBLASLt has no algorithm for the shape (the
/// portable kernel runs instead), or a status.
int32_t cublasLtGemm(const char *entry, const fp8q::rt::GemmPlan &plan,
                     hipStream_t stream);

} // namespace fp8q::hiprt

#endif // FP8Q_RUNTIME_GPU_CUBLASLTGEMM_H
