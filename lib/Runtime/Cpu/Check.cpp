//===- Check.cpp - Errors, threads, activation access ---------------------===//
//
// The CPU runtime's error reporting (fp8q::rt::fail, which the shared
// descriptor checks of lib/Runtime/Common/fp8q_operand_checks.h report
// through), its worker threads, activation element access, and fp8q_check_scale
// (the contract table's scale requirements, queried without running a kernel).
//
//===----------------------------------------------------------------------===//

#include "CpuRuntime.h"

#include "fp8q/Runtime/fp8q_numerics.h"
#include "fp8q/Runtime/fp8q_scale_layouts.h"

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

namespace {
/// "col_major (strides (1, 64))", "cdna4_mx": a layout as messages name it.
void describeLayout(int layout, int64_t align, int64_t m, int64_t g, char *buf,
                    size_t size) {
  int64_t s0 = 0, s1 = 0;
  const char *name = fp8q_scale_layout_name(layout);
  if (!fp8q_scale_layout_strides(layout, align, m, g, &s0, &s1)) {
    if (fp8q_scale_layout_has_align(layout) && align > 1)
      snprintf(buf, size, "%s align %lld", name, (long long)align);
    else
      snprintf(buf, size, "%s", name);
    return;
  }
  if (layout == FP8Q_LAYOUT_COL_MAJOR && align > 1)
    snprintf(buf, size, "col_major align %lld (strides (%lld, %lld))",
             (long long)align, (long long)s0, (long long)s1);
  else
    snprintf(buf, size, "%s (strides (%lld, %lld))", name, (long long)s0,
             (long long)s1);
}

/// Records `entry: msg` as the last error without printing: a query's
/// rejection is an answer, not a failure of the process.
int32_t answer(int32_t status, const char *fmt, ...) {
  char msg[448];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  snprintf(fp8q::rt::lastError, sizeof(fp8q::rt::lastError),
           "fp8q_check_scale: %s", msg);
  return status;
}
} // namespace

extern "C" FP8Q_RT_EXPORT int32_t
fp8q_check_scale(int32_t kernel, int32_t operand, int32_t layout, int64_t align,
                 int64_t m, int64_t g, int64_t s0, int64_t s1) {
  fp8q::rt::clearError();
  if (kernel < 0 || kernel >= FP8Q_KERNEL_COUNT)
    return answer(FP8Q_ERR_ARG, "kernel %d is not a fp8q_kernel (0..%d)",
                  kernel, FP8Q_KERNEL_COUNT - 1);
  if (operand != 0 && operand != 1)
    return answer(FP8Q_ERR_ARG, "operand %d is not 0 (x_scale) or 1 (w_scale)",
                  operand);
  if (layout < 0 || layout >= FP8Q_LAYOUT_COUNT)
    return answer(FP8Q_ERR_ARG, "layout %d is not a fp8q_scale_layout (0..%d)",
                  layout, FP8Q_LAYOUT_COUNT - 1);
  if (align < 1 || align > (1 << 20) ||
      (align != 1 && !fp8q_scale_layout_has_align(layout)))
    return answer(FP8Q_ERR_ARG,
                  "align %lld is not valid for layout %s (1 <= align <= "
                  "2^20, and 1 unless col_major or pack = 4)",
                  (long long)align, fp8q_scale_layout_name(layout));
  if (m < 1 || g < 1 || m > FP8Q_MAX_SPAN_BYTES || g > FP8Q_MAX_SPAN_BYTES)
    return answer(FP8Q_ERR_SHAPE,
                  "scale sizes [%lld, %lld] must be in [1, "
                  "2^48]",
                  (long long)m, (long long)g);
  const fp8q_kernel_contract &c = fp8q_kernel_contracts[kernel];
  const fp8q_scale_req &req =
      operand == 0 ? c.x_scale_layout : c.w_scale_layout;
  const char *opName = operand == 0 ? "x_scale" : "w_scale";
  const bool padded = fp8q_scale_layout_bytes_only(layout);
  char have[128];
  if (padded)
    describeLayout(layout, align, m, g, have, sizeof(have));
  else
    snprintf(have, sizeof(have), "strides (%lld, %lld)", (long long)s0,
             (long long)s1);
  if (req.kind == FP8Q_SCALE_REQ_ANY)
    return FP8Q_OK;
  if (req.kind == FP8Q_SCALE_REQ_STRIDED) {
    if (!padded)
      return FP8Q_OK;
    return answer(FP8Q_ERR_CONTRACT,
                  "kernel %s reads %s in a strided layout (row_major or "
                  "col_major, its strides passed) but this one is %s "
                  "[M=%lld, G=%lld]",
                  c.name, opName, have, (long long)m, (long long)g);
  }
  // The descriptor's kind first (a padded buffer never meets a strided
  // requirement, or the reverse), then the one equality by bytes addressed
  // of fp8q_scale_layouts.h, as fp8q_gemm_v2 (scaleMeetsReq) compares.
  bool ok;
  int64_t w0 = 0, w1 = 0;
  if (fp8q_scale_layout_strides(req.layout, req.align, m, g, &w0, &w1)) {
    ok = !padded && fp8q_scale_strides_equal(m, g, s0, s1, w0, w1);
  } else if (!padded) {
    ok = false;
  } else {
    // Both allocations are bounded before they are computed in int64, as
    // fp8q_gemm_v2 bounds its padded operands (at most (M + max(align,
    // 256)) * (G + 8) elements).
    const int64_t widest = align > req.align ? align : req.align;
    const __int128 bound =
        __int128(m + (widest > 256 ? widest : 256)) * (g + 8);
    if (bound > __int128(FP8Q_MAX_SPAN_BYTES))
      return answer(FP8Q_ERR_SHAPE,
                    "a [%lld, %lld] scale in layout %s would span more than "
                    "2^48 bytes",
                    (long long)m, (long long)g, fp8q_scale_layout_name(layout));
    ok = fp8q_scale_layouts_equal(req.layout, req.align, layout, align, m, g);
  }
  if (ok)
    return FP8Q_OK;
  char want[128];
  describeLayout(req.layout, req.align, m, g, want, sizeof(want));
  return answer(FP8Q_ERR_CONTRACT,
                "kernel %s reads %s %s but this one has %s [M=%lld, G=%lld]",
                c.name, opName, want, have, (long long)m, (long long)g);
}
