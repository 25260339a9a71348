//===- HostAbi.cpp - The fp8q runtime's host ABI on a GPU -----------------===//
//
// Every entry point of fp8q/Runtime/fp8q_runtime.h's host ABI, running the
// kernels of kernels/src on the GPU. Operands in device (or managed) memory
// are used in place; operands in host memory (what mlir-runner's
// memref.alloc returns) are staged: the byte ranges they span are merged,
// copied to the device, and the written ones copied back. Every call waits
// for its kernels. The device ABI (DeviceAbi.cpp) never stages.
//
//===----------------------------------------------------------------------===//

#include "GpuApi.h"
#include "GpuOps.h"
#include "fp8q_collective_checks.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace fp8q::hiprt {
namespace {

using fp8q::rt::fail;

/// Maps host operands to device copies (device operands pass through).
class Stager {
public:
  explicit Stager(const char *entry) : entry(entry) {}
  ~Stager() {
    for (Region &r : regions)
      if (r.dev)
        (void)hipFree(r.dev);
  }
  /// Registers `bytes` at `p`; `written` ranges are copied back.
  void add(const void *p, int64_t bytes, bool written) {
    const char *c = static_cast<const char *>(p);
    ranges.push_back({c, c + bytes, written});
  }
  /// Allocates and copies in. Returns FP8Q_OK or the failure status.
  int32_t stageIn() {
    std::vector<Range> host;
    for (const Range &r : ranges) {
      hipPointerAttribute_t attr;
      hipError_t e = hipPointerGetAttributes(&attr, r.lo);
      (void)hipGetLastError(); // unregistered host memory is an error on 5.x
      bool device = e == hipSuccess && FP8Q_HIP_IS_DEVICE_MEMORY(attr);
      if (!device)
        host.push_back(r);
    }
    std::sort(host.begin(), host.end(),
              [](const Range &a, const Range &b) { return a.lo < b.lo; });
    for (const Range &r : host) {
      if (!regions.empty() && r.lo < regions.back().hi) {
        regions.back().hi = std::max(regions.back().hi, r.hi);
        regions.back().written |= r.written;
      } else {
        regions.push_back({r.lo, r.hi, r.written, nullptr});
      }
    }
    for (Region &r : regions) {
      hipError_t e = hipMalloc((void **)&r.dev, r.hi - r.lo);
      if (e == hipSuccess)
        e = hipMemcpy(r.dev, r.lo, r.hi - r.lo, hipMemcpyHostToDevice);
      if (e != hipSuccess)
        return fail(entry, FP8Q_ERR_DEVICE, "staging %lld bytes: %s",
                    (long long)(r.hi - r.lo), hipGetErrorString(e));
    }
    return FP8Q_OK;
  }
  /// The device address of host address p.
  template <class T> T *dev(T *p) const {
    const char *c = reinterpret_cast<const char *>(p);
    for (const Region &r : regions)
      if (c >= r.lo && c < r.hi)
        return reinterpret_cast<T *>(r.dev + (c - r.lo));
    return p;
  }
  int32_t stageOut() {
    for (Region &r : regions)
      if (r.written) {
        hipError_t e = hipMemcpy(const_cast<char *>(r.lo), r.dev, r.hi - r.lo,
                                 hipMemcpyDeviceToHost);
        if (e != hipSuccess)
          return fail(entry, FP8Q_ERR_DEVICE, "copying results back: %s",
                      hipGetErrorString(e));
      }
    return FP8Q_OK;
  }

private:
  struct Range {
    const char *lo, *hi;
    bool written;
  };
  struct Region {
    const char *lo, *hi;
    bool written;
    char *dev;
  };
  const char *entry;
  std::vector<Range> ranges;
  std::vector<Region> regions;
};

/// Staged operands, synchronous launches on the legacy default stream.
class HostExec final : public Exec {
public:
  explicit HostExec(const char *entry) : Exec(entry), st(entry) {
    clearLastError();
  }
  void add(const char *, const void *p, int64_t bytes, bool written) override {
    st.add(p, bytes, written);
  }
  int32_t prepare(DeviceInfo &info) override {
    if (int32_t s = initDeviceOrFail(entry, info))
      return s;
    return st.stageIn();
  }
  void *dev(const void *p) const override {
    return st.dev(const_cast<void *>(p));
  }
  int32_t launch(KernelId id, Dim3 grid, Dim3 block, void **args) override {
    std::string err;
    hipError_t e = hipSuccess;
    if (!launchAsync(id, grid, block, args, nullptr, err) ||
        (e = hipStreamSynchronize(nullptr)) != hipSuccess)
      return fail(entry, FP8Q_ERR_DEVICE, "%s",
                  err.empty() ? hipGetErrorString(e) : err.c_str());
    return FP8Q_OK;
  }
  int32_t alloc(void **p, int64_t bytes) override {
    hipError_t e = hipMalloc(p, (size_t)bytes);
    if (e != hipSuccess)
      return fail(entry, FP8Q_ERR_DEVICE, "hipMalloc: %s",
                  hipGetErrorString(e));
    return FP8Q_OK;
  }
  void release(void *p) override { (void)hipFree(p); }
  void *splitWorkspace() override { return splitWorkspaceOf(nullptr); }
  int32_t finish() override { return st.stageOut(); }

private:
  Stager st;
};

int32_t hostQuantize(const char *entry, Act t, fp8q_memref_2d *x,
                     fp8q_memref_1d *gamma, fp8q_memref_2d *q,
                     fp8q_memref_2d *scale, fp8q_memref_2d *y, float eps,
                     int64_t group, int32_t fp8, bool rms, bool keep) {
  HostExec ex(entry);
  return quantizeOp(ex, t, x, gamma, q, scale, y, eps, group, fp8, rms, keep);
}
int32_t hostAddRmsNormQuantize(const char *entry, Act t, fp8q_memref_2d *x,
                               fp8q_memref_2d *residual, fp8q_memref_1d *gamma,
                               fp8q_memref_2d *q, fp8q_memref_2d *scale,
                               fp8q_memref_2d *y, fp8q_memref_2d *sum,
                               float eps, int64_t group, int32_t fp8,
                               bool keep) {
  HostExec ex(entry);
  return addRmsNormQuantizeOp(ex, t, x, residual, gamma, q, scale, y, sum, eps,
                              group, fp8, keep);
}
int32_t hostSiluMulQuantize(const char *entry, Act t, fp8q_memref_2d *gate,
                            fp8q_memref_2d *up, fp8q_memref_2d *q,
                            fp8q_memref_2d *scale, int64_t group, int32_t fp8) {
  HostExec ex(entry);
  return siluMulQuantizeOp(ex, t, gate, up, q, scale, group, fp8);
}
int32_t hostMaterialize(const char *entry, fp8q_memref_2d *src,
                        fp8q_memref_2d *dst) {
  HostExec ex(entry);
  return materializeOp(ex, src, dst);
}
int32_t hostPreshuffle(const char *entry, fp8q_memref_2d *src,
                       fp8q_memref_2d *dst, bool inverse) {
  HostExec ex(entry);
  return preshuffleOp(ex, src, dst, inverse);
}
int32_t hostGemm(const char *entry, fp8q_memref_2d *q, fp8q_memref_2d *xs,
                 fp8q_memref_2d *w, fp8q_memref_2d *ws, fp8q_memref_2d *out,
                 int32_t kernel, int32_t fp8, int32_t weightLayout) {
  HostExec ex(entry);
  return gemmOp(ex, q, xs, w, ws, out, kernel, fp8, weightLayout);
}

/// _mlir_ciface_ entry points exit on error (MLIR ignores results).
/// all_gather / reduce_scatter_bf16 of the host ABI: one rank, as in the
/// CPU runtime (the shared checks, then one copy; ranks > 1 refused). The
/// multi-rank collectives are the device entry points, on a communicator.
int32_t hostCollective(const char *entry, fp8q::rt::CollectiveKind kind,
                       fp8q_memref_2d *x, fp8q_memref_2d *out,
                       int64_t elemBytes, int64_t ranks) {
  clearLastError();
  fp8q::rt::CollectivePlan plan;
  if (int32_t s = fp8q::rt::checkCollective(entry, kind, x, out, elemBytes,
                                            ranks, plan))
    return s;
  if (ranks != 1)
    return fail(entry, FP8Q_ERR_ARG,
                "ranks = %lld, but the host ABI is one rank (ranks must be "
                "1); multi-rank collectives are the device entry points "
                "(fp8q_rt_device_all_gather, fp8q_rt_device_comm_init)",
                (long long)ranks);
  // Host or device memory on either side: the driver picks the direction.
  hipError_t e = hipMemcpy(plan.out.base, plan.x.base, (size_t)plan.xBytes,
                           hipMemcpyDefault);
  if (e != hipSuccess) {
    (void)hipGetLastError();
    return fail(entry, FP8Q_ERR_DEVICE, "hipMemcpy of %lld bytes: %s",
                (long long)plan.xBytes, hipGetErrorString(e));
  }
  return FP8Q_OK;
}

int32_t orExit(int32_t s) {
  if (s != FP8Q_OK)
    exit(1);
  return s;
}

} // namespace
} // namespace fp8q::hiprt

using namespace fp8q::hiprt;

extern "C" {

#define FP8Q_QUANT_ENTRIES(SUFFIX, ACT)                                        \
  int32_t fp8q_quantize_##SUFFIX(fp8q_memref_2d *x, fp8q_memref_2d *q,         \
                                 fp8q_memref_2d *scale, int64_t group,         \
                                 int32_t fp8) {                                \
    return hostQuantize("fp8q_quantize_" #SUFFIX, ACT, x, nullptr, q, scale,   \
                        nullptr, 0.0f, group, fp8, false, false);              \
  }                                                                            \
  int32_t _mlir_ciface_fp8q_rt_quantize_##SUFFIX(                              \
      fp8q_memref_2d *x, fp8q_memref_2d *q, fp8q_memref_2d *scale,             \
      int64_t group, int32_t fp8) {                                            \
    return orExit(hostQuantize("fp8q_rt_quantize_" #SUFFIX, ACT, x, nullptr,   \
                               q, scale, nullptr, 0.0f, group, fp8, false,     \
                               false));                                        \
  }                                                                            \
  int32_t fp8q_rms_norm_quantize_##SUFFIX(                                     \
      fp8q_memref_2d *x, fp8q_memref_1d *gamma, fp8q_memref_2d *q,             \
      fp8q_memref_2d *scale, fp8q_memref_2d *y, float eps, int64_t group,      \
      int32_t fp8, int32_t keep) {                                             \
    return hostQuantize("fp8q_rms_norm_quantize_" #SUFFIX, ACT, x, gamma, q,   \
                        scale, y, eps, group, fp8, true, keep != 0);           \
  }                                                                            \
  int32_t _mlir_ciface_fp8q_rt_rms_norm_quantize_##SUFFIX(                     \
      fp8q_memref_2d *x, fp8q_memref_1d *gamma, fp8q_memref_2d *q,             \
      fp8q_memref_2d *scale, fp8q_memref_2d *y, float eps, int64_t group,      \
      int32_t fp8, int32_t keep) {                                             \
    return orExit(hostQuantize("fp8q_rt_rms_norm_quantize_" #SUFFIX, ACT, x,   \
                               gamma, q, scale, y, eps, group, fp8, true,      \
                               keep != 0));                                    \
  }

FP8Q_QUANT_ENTRIES(bf16, Act::BF16)
FP8Q_QUANT_ENTRIES(f16, Act::F16)
FP8Q_QUANT_ENTRIES(f32, Act::F32)

#define FP8Q_FUSED_ENTRIES(SUFFIX, ACT)                                        \
  int32_t fp8q_add_rms_norm_quantize_##SUFFIX(                                 \
      fp8q_memref_2d *x, fp8q_memref_2d *residual, fp8q_memref_1d *gamma,      \
      fp8q_memref_2d *q, fp8q_memref_2d *scale, fp8q_memref_2d *y,             \
      fp8q_memref_2d *sum, float eps, int64_t group, int32_t fp8,              \
      int32_t keep) {                                                          \
    return hostAddRmsNormQuantize("fp8q_add_rms_norm_quantize_" #SUFFIX, ACT,  \
                                  x, residual, gamma, q, scale, y, sum, eps,   \
                                  group, fp8, keep != 0);                      \
  }                                                                            \
  int32_t _mlir_ciface_fp8q_rt_add_rms_norm_quantize_##SUFFIX(                 \
      fp8q_memref_2d *x, fp8q_memref_2d *residual, fp8q_memref_1d *gamma,      \
      fp8q_memref_2d *q, fp8q_memref_2d *scale, fp8q_memref_2d *y,             \
      fp8q_memref_2d *sum, float eps, int64_t group, int32_t fp8,              \
      int32_t keep) {                                                          \
    return orExit(hostAddRmsNormQuantize(                                      \
        "fp8q_rt_add_rms_norm_quantize_" #SUFFIX, ACT, x, residual, gamma, q,  \
        scale, y, sum, eps, group, fp8, keep != 0));                           \
  }                                                                            \
  int32_t fp8q_silu_mul_quantize_##SUFFIX(                                     \
      fp8q_memref_2d *gate, fp8q_memref_2d *up, fp8q_memref_2d *q,             \
      fp8q_memref_2d *scale, int64_t group, int32_t fp8) {                     \
    return hostSiluMulQuantize("fp8q_silu_mul_quantize_" #SUFFIX, ACT, gate,   \
                               up, q, scale, group, fp8);                      \
  }                                                                            \
  int32_t _mlir_ciface_fp8q_rt_silu_mul_quantize_##SUFFIX(                     \
      fp8q_memref_2d *gate, fp8q_memref_2d *up, fp8q_memref_2d *q,             \
      fp8q_memref_2d *scale, int64_t group, int32_t fp8) {                     \
    return orExit(hostSiluMulQuantize("fp8q_rt_silu_mul_quantize_" #SUFFIX,    \
                                      ACT, gate, up, q, scale, group, fp8));   \
  }

FP8Q_FUSED_ENTRIES(bf16, Act::BF16)
FP8Q_FUSED_ENTRIES(f16, Act::F16)
FP8Q_FUSED_ENTRIES(f32, Act::F32)

int32_t fp8q_materialize(fp8q_memref_2d *src, fp8q_memref_2d *dst) {
  return hostMaterialize("fp8q_kernel_materialize", src, dst);
}
int32_t _mlir_ciface_fp8q_rt_materialize(fp8q_memref_2d *src,
                                         fp8q_memref_2d *dst) {
  return orExit(hostMaterialize("fp8q_rt_materialize", src, dst));
}
int32_t fp8q_preshuffle(fp8q_memref_2d *w, fp8q_memref_2d *dst) {
  return hostPreshuffle("fp8q_kernel_preshuffle", w, dst, false);
}
int32_t _mlir_ciface_fp8q_rt_preshuffle(fp8q_memref_2d *w,
                                        fp8q_memref_2d *dst) {
  return orExit(hostPreshuffle("fp8q_rt_preshuffle", w, dst, false));
}
int32_t fp8q_unpreshuffle(fp8q_memref_2d *src, fp8q_memref_2d *dst) {
  return hostPreshuffle("fp8q_kernel_unpreshuffle", src, dst, true);
}
int32_t fp8q_gemm(fp8q_memref_2d *q, fp8q_memref_2d *xs, fp8q_memref_2d *w,
                  fp8q_memref_2d *ws, fp8q_memref_2d *out, int32_t kernel,
                  int32_t fp8, int32_t weightLayout) {
  return hostGemm("fp8q_gemm", q, xs, w, ws, out, kernel, fp8, weightLayout);
}
int32_t _mlir_ciface_fp8q_rt_gemm(fp8q_memref_2d *q, fp8q_memref_2d *xs,
                                  fp8q_memref_2d *w, fp8q_memref_2d *ws,
                                  fp8q_memref_2d *out, int32_t kernel,
                                  int32_t fp8, int32_t weightLayout) {
  return orExit(
      hostGemm("fp8q_rt_gemm", q, xs, w, ws, out, kernel, fp8, weightLayout));
}
const char *fp8q_last_error(void) { return lastErrorMessage(); }
const char *fp8q_status_name(int32_t s) { return fp8q::rt::statusName(s); }

int32_t fp8q_all_gather(fp8q_memref_2d *x, fp8q_memref_2d *out,
                        int64_t elemBytes, int64_t ranks) {
  return hostCollective("fp8q_all_gather", fp8q::rt::CollectiveKind::AllGather,
                        x, out, elemBytes, ranks);
}

int32_t _mlir_ciface_fp8q_rt_all_gather(fp8q_memref_2d *x, fp8q_memref_2d *out,
                                        int64_t elemBytes, int64_t ranks) {
  return orExit(hostCollective("fp8q_rt_all_gather",
                               fp8q::rt::CollectiveKind::AllGather, x, out,
                               elemBytes, ranks));
}

int32_t fp8q_reduce_scatter_bf16(fp8q_memref_2d *x, fp8q_memref_2d *out,
                                 int64_t ranks) {
  return hostCollective("fp8q_reduce_scatter_bf16",
                        fp8q::rt::CollectiveKind::ReduceScatter, x, out, 2,
                        ranks);
}

int32_t _mlir_ciface_fp8q_rt_reduce_scatter_bf16(fp8q_memref_2d *x,
                                                 fp8q_memref_2d *out,
                                                 int64_t ranks) {
  return orExit(hostCollective("fp8q_rt_reduce_scatter_bf16",
                               fp8q::rt::CollectiveKind::ReduceScatter, x, out,
                               2, ranks));
}

} // extern "C"
