//===- Check.cpp - Errors, descriptor checks, threads ---------------------===//
//
// Everything that guards the kernels of the CPU runtime: no entry point
// touches memory before its operands passed these checks.
//
//===----------------------------------------------------------------------===//

#include "CpuRuntime.h"

#include "fp8q/Runtime/fp8q_numerics.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace fp8q::rt {

namespace {
thread_local char lastError[512];

/// Sizes and strides beyond this are rejected so that index arithmetic
/// cannot overflow int64.
constexpr int64_t kMaxExtent = int64_t(1) << 40;
} // namespace

int32_t fail(const char *entry, int32_t status, const char *fmt, ...) {
  char msg[448];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  snprintf(lastError, sizeof(lastError), "%s: %s", entry, msg);
  fprintf(stderr, "fp8q runtime error: %s\n", lastError);
  fflush(stderr);
  return status;
}

void warn(const char *entry, const char *fmt, ...) {
  char msg[448];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  fprintf(stderr, "fp8q runtime warning: %s: %s\n", entry, msg);
  fflush(stderr);
}

void clearError() { lastError[0] = '\0'; }

bool uncheckedMode() {
  const char *v = getenv("FP8Q_RT_UNCHECKED");
  return v && strcmp(v, "1") == 0;
}

unsigned numThreads() {
  if (const char *v = getenv("FP8Q_RT_THREADS")) {
    long n = strtol(v, nullptr, 10);
    if (n >= 1 && n <= 256)
      return unsigned(n);
  }
  unsigned n = std::thread::hardware_concurrency();
  if (n == 0)
    n = 1;
  return n > 8 ? 8 : n;
}

void parallelFor(int64_t numTasks, void (*body)(int64_t, void *), void *ctx) {
  int64_t n = numThreads();
  if (n > numTasks)
    n = numTasks;
  if (n <= 1) {
    for (int64_t t = 0; t < numTasks; ++t)
      body(t, ctx);
    return;
  }
  // Static interleaved split: the result does not depend on the schedule
  // because every task writes disjoint outputs.
  auto worker = [=](int64_t first) {
    for (int64_t t = first; t < numTasks; t += n)
      body(t, ctx);
  };
  std::vector<std::thread> threads;
  threads.reserve(n - 1);
  for (int64_t i = 1; i < n; ++i)
    threads.emplace_back(worker, i);
  worker(0);
  for (std::thread &t : threads)
    t.join();
}

static int32_t checkCommon(const char *entry, const char *name,
                           const void *desc, void *aligned, int64_t offset,
                           size_t eltSize) {
  if (!desc)
    return fail(entry, FP8Q_ERR_NULL, "operand %s: descriptor pointer is null",
                name);
  if (!aligned)
    return fail(entry, FP8Q_ERR_NULL, "operand %s: data pointer is null", name);
  if (reinterpret_cast<uintptr_t>(aligned) % eltSize != 0)
    return fail(entry, FP8Q_ERR_ALIGN,
                "operand %s: data pointer %p is not aligned to its %zu-byte "
                "elements",
                name, aligned, eltSize);
  if (offset < 0 || offset > kMaxExtent)
    return fail(entry, FP8Q_ERR_LAYOUT, "operand %s: bad offset %lld", name,
                (long long)offset);
  return FP8Q_OK;
}

int32_t checkOperand(const char *entry, const char *name,
                     const fp8q_memref_2d *d, size_t eltSize, int64_t rows,
                     int64_t cols, Access access, View2 &v) {
  if (int32_t s = checkCommon(entry, name, d, d ? d->aligned : nullptr,
                              d ? d->offset : 0, eltSize))
    return s;
  int64_t r = d->sizes[0], c = d->sizes[1];
  int64_t s0 = d->strides[0], s1 = d->strides[1];
  if (r < 0 || c < 0 || r > kMaxExtent || c > kMaxExtent)
    return fail(entry, FP8Q_ERR_SHAPE, "operand %s: bad sizes [%lld, %lld]",
                name, (long long)r, (long long)c);
  if ((rows >= 0 && r != rows) || (cols >= 0 && c != cols))
    return fail(entry, FP8Q_ERR_SHAPE,
                "operand %s has sizes [%lld, %lld], expected [%lld, %lld]",
                name, (long long)r, (long long)c, (long long)rows,
                (long long)cols);
  if (r == 0 || c == 0)
    return fail(entry, FP8Q_ERR_EMPTY,
                "operand %s is empty (sizes [%lld, %lld]); M == 0 and empty "
                "extents are not supported",
                name, (long long)r, (long long)c);
  if (s0 < 0 || s1 < 0 || s0 > kMaxExtent || s1 > kMaxExtent)
    return fail(entry, FP8Q_ERR_LAYOUT,
                "operand %s: strides (%lld, %lld) must be non-negative", name,
                (long long)s0, (long long)s1);
  if (access == Access::Write) {
    // Sufficient condition for distinct addresses: one dimension is nested
    // inside the other. Extents of 1 impose nothing.
    bool ok;
    if (r == 1 && c == 1)
      ok = true;
    else if (r == 1)
      ok = s1 >= 1;
    else if (c == 1)
      ok = s0 >= 1;
    else
      ok = (s1 >= 1 && s0 >= s1 * c) || (s0 >= 1 && s1 >= s0 * r);
    if (!ok)
      return fail(entry, FP8Q_ERR_LAYOUT,
                  "output operand %s: strides (%lld, %lld) make elements of "
                  "sizes [%lld, %lld] overlap",
                  name, (long long)s0, (long long)s1, (long long)r,
                  (long long)c);
  }
  v.base = static_cast<char *>(d->aligned) + d->offset * int64_t(eltSize);
  v.rows = r;
  v.cols = c;
  v.s0 = s0;
  v.s1 = s1;
  v.eltSize = eltSize;
  return FP8Q_OK;
}

int32_t checkOperand(const char *entry, const char *name,
                     const fp8q_memref_1d *d, size_t eltSize, int64_t size,
                     View1 &v) {
  if (int32_t s = checkCommon(entry, name, d, d ? d->aligned : nullptr,
                              d ? d->offset : 0, eltSize))
    return s;
  if (d->sizes[0] != size)
    return fail(entry, FP8Q_ERR_SHAPE,
                "operand %s has size [%lld], expected [%lld]", name,
                (long long)d->sizes[0], (long long)size);
  if (d->strides[0] < 0 || d->strides[0] > kMaxExtent)
    return fail(entry, FP8Q_ERR_LAYOUT, "operand %s: bad stride %lld", name,
                (long long)d->strides[0]);
  v.base = static_cast<char *>(d->aligned) + d->offset * int64_t(eltSize);
  v.size = size;
  v.s0 = d->strides[0];
  v.eltSize = eltSize;
  return FP8Q_OK;
}

int32_t checkFp8Type(const char *entry, int32_t fp8Type) {
  if (fp8Type != FP8Q_F8E4M3FN && fp8Type != FP8Q_F8E4M3FNUZ)
    return fail(entry, FP8Q_ERR_ARG,
                "fp8_type %d is not an fp8q_fp8_type (0 = f8E4M3FN, "
                "1 = f8E4M3FNUZ)",
                fp8Type);
  return FP8Q_OK;
}

bool sameAddresses(const View2 &a, const View2 &b) {
  if (a.base != b.base || a.rows != b.rows || a.cols != b.cols ||
      a.eltSize != b.eltSize)
    return false;
  return (a.rows == 1 || a.s0 == b.s0) && (a.cols == 1 || a.s1 == b.s1);
}

bool rangesOverlap(const View2 &a, const View2 &b) {
  const char *aEnd = a.base + (a.maxIndex() + 1) * int64_t(a.eltSize);
  const char *bEnd = b.base + (b.maxIndex() + 1) * int64_t(b.eltSize);
  return a.base < bEnd && b.base < aEnd;
}

size_t actSize(ActType t) { return t == ActType::F32 ? 4 : 2; }

float loadAct(const void *p, ActType t) {
  switch (t) {
  case ActType::BF16:
    return fp8q_bf16_to_f32(*static_cast<const uint16_t *>(p));
  case ActType::F16:
    return fp8q_f16_to_f32(*static_cast<const uint16_t *>(p));
  case ActType::F32:
    return *static_cast<const float *>(p);
  }
  return 0.0f;
}

float storeAct(void *p, ActType t, float v) {
  switch (t) {
  case ActType::BF16: {
    uint16_t h = fp8q_f32_to_bf16(v);
    *static_cast<uint16_t *>(p) = h;
    return fp8q_bf16_to_f32(h);
  }
  case ActType::F16: {
    uint16_t h = fp8q_f32_to_f16(v);
    *static_cast<uint16_t *>(p) = h;
    return fp8q_f16_to_f32(h);
  }
  case ActType::F32:
    *static_cast<float *>(p) = v;
    return v;
  }
  return v;
}

} // namespace fp8q::rt

extern "C" FP8Q_RT_EXPORT const char *fp8q_last_error(void) {
  return fp8q::rt::lastError;
}

extern "C" FP8Q_RT_EXPORT const char *fp8q_status_name(int32_t status) {
  switch (status) {
  case FP8Q_OK:
    return "ok";
  case FP8Q_ERR_NULL:
    return "null pointer";
  case FP8Q_ERR_ALIGN:
    return "misaligned pointer";
  case FP8Q_ERR_SHAPE:
    return "size mismatch";
  case FP8Q_ERR_EMPTY:
    return "empty operand";
  case FP8Q_ERR_ARG:
    return "bad argument";
  case FP8Q_ERR_LAYOUT:
    return "bad layout";
  case FP8Q_ERR_CONTRACT:
    return "kernel contract violated";
  }
  return "unknown status";
}
