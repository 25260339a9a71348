//===- Check.cpp - Errors, threads, activation access ---------------------===//
//
// The CPU runtime's error reporting (fp8q::rt::fail, which the shared
// descriptor checks of lib/Runtime/Common/fp8q_operand_checks.h report through),
// its worker threads and activation element access.
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
  return fp8q::rt::statusName(status);
}
