//===- CpuRuntime.h - Internals of the CPU reference runtime ----*- C++ -*-===//
//
// Shared helpers of libfp8q_runtime_cpu.so: error reporting, descriptor
// validation and strided element access. Nothing here is exported.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_LIB_RUNTIME_CPU_CPURUNTIME_H
#define FP8Q_LIB_RUNTIME_CPU_CPURUNTIME_H

#include "fp8q/Runtime/fp8q_runtime.h"

#include <cstddef>
#include <cstdint>

namespace fp8q::rt {

/// Records `status` with a printf-style message for entry point `entry`,
/// prints "fp8q runtime error: <entry>: <message>" to stderr and returns
/// `status`.
int32_t fail(const char *entry, int32_t status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/// Prints a warning (unchecked mode) to stderr.
void warn(const char *entry, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/// Clears the calling thread's last error.
void clearError();

/// True when FP8Q_RT_UNCHECKED=1: contract violations only warn.
bool uncheckedMode();

/// Worker threads for data-parallel loops (FP8Q_RT_THREADS, default the
/// hardware concurrency capped at 8).
unsigned numThreads();

/// Runs body(task) for task in [0, numTasks) over numThreads() threads.
void parallelFor(int64_t numTasks, void (*body)(int64_t, void *), void *ctx);

/// A validated rank-2 operand: element (i, j) lives at
/// base + (i * s0 + j * s1) * eltSize.
struct View2 {
  char *base = nullptr;
  int64_t rows = 0, cols = 0;
  int64_t s0 = 0, s1 = 0;
  size_t eltSize = 0;

  template <typename T> T *at(int64_t i, int64_t j) const {
    return reinterpret_cast<T *>(base + (i * s0 + j * s1) * eltSize);
  }
  /// Largest element index (relative to base) the descriptor addresses.
  int64_t maxIndex() const { return (rows - 1) * s0 + (cols - 1) * s1; }
};

/// Rank-1 counterpart of View2.
struct View1 {
  char *base = nullptr;
  int64_t size = 0, s0 = 0;
  size_t eltSize = 0;
  template <typename T> T *at(int64_t i) const {
    return reinterpret_cast<T *>(base + i * s0 * eltSize);
  }
};

/// How an operand is used: written operands must not overlap themselves.
enum class Access { Read, Write };

/// Validates descriptor `d` of operand `name`: non-null, aligned to
/// `eltSize`, non-empty, non-negative offset and strides, sizes equal to
/// (`rows`, `cols`) where those are >= 0, and for written operands
/// non-overlapping. Fills `v` and returns FP8Q_OK or the failure status.
int32_t checkOperand(const char *entry, const char *name,
                     const fp8q_memref_2d *d, size_t eltSize, int64_t rows,
                     int64_t cols, Access access, View2 &v);
int32_t checkOperand(const char *entry, const char *name,
                     const fp8q_memref_1d *d, size_t eltSize, int64_t size,
                     View1 &v);

/// Checks that `fp8Type` names an fp8 flavour.
int32_t checkFp8Type(const char *entry, int32_t fp8Type);

/// True when two views address the same bytes for every element.
bool sameAddresses(const View2 &a, const View2 &b);

/// True when the byte ranges spanned by two views intersect.
bool rangesOverlap(const View2 &a, const View2 &b);

/// Activation element types of quantize / rms_norm_quantize.
enum class ActType { BF16, F16, F32 };

/// Element size of an activation type.
size_t actSize(ActType t);

/// Reads an activation element as fp32.
float loadAct(const void *p, ActType t);

/// Rounds `v` to the activation type, stores it at `p` and returns the
/// rounded value as fp32.
float storeAct(void *p, ActType t, float v);

/// Implementations behind the entry points (in Quantize.cpp, Layout.cpp and
/// Gemm.cpp). `entry` names the entry point for messages.
int32_t quantizeImpl(const char *entry, ActType t, fp8q_memref_2d *x,
                     fp8q_memref_1d *gamma, fp8q_memref_2d *q,
                     fp8q_memref_2d *scale, fp8q_memref_2d *y, float epsilon,
                     int64_t groupSize, int32_t fp8Type, bool rmsNorm,
                     bool keepUnquantized);
int32_t materializeImpl(const char *entry, fp8q_memref_2d *src,
                        fp8q_memref_2d *dst);
int32_t preshuffleImpl(const char *entry, fp8q_memref_2d *src,
                       fp8q_memref_2d *dst, bool inverse);
int32_t gemmImpl(const char *entry, fp8q_memref_2d *q, fp8q_memref_2d *xs,
                 fp8q_memref_2d *w, fp8q_memref_2d *ws, fp8q_memref_2d *out,
                 int32_t kernel, int32_t fp8Type, int32_t weightLayout);

} // namespace fp8q::rt

#endif // FP8Q_LIB_RUNTIME_CPU_CPURUNTIME_H
