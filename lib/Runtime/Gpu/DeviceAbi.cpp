//===- DeviceAbi.cpp - The device-mode ABI: device buffers, one stream ----===//
//
// The entry points device-mode steps call (`_mlir_ciface_fp8q_rt_device_*`):
// the host ABI's operations with a trailing stream. Every operand must be
// device (or managed) memory of the current device; a host pointer is an
// error naming the operand, never a staging copy (the host ABI's Stager is
// not reachable from here). Kernels are enqueued on the caller's stream and
// nothing synchronizes, allocates with cudaMalloc or copies between host
// and device, so a sequence of calls can be captured into a CUDA/HIP graph.
// Errors are sticky per thread (GpuOps.h) and never exit the process.
//
//===----------------------------------------------------------------------===//

#include "DeviceRanges.h"
#include "GpuApi.h"
#include "GpuOps.h"
#include "NcclComm.h"
#include "fp8q_collective_checks.h"
#ifdef FP8Q_HIP_ON_CUDA
#include "CublasLtGemm.h"
#endif

#include <string>
#include <vector>

namespace fp8q::hiprt {
namespace {

using fp8q::rt::fail;

thread_local int32_t sticky = FP8Q_OK;
thread_local std::string stickyMessage;

/// Device operands used in place; kernels enqueued on one stream.
class DeviceExec final : public Exec {
public:
  DeviceExec(const char *entry, void *stream)
      : Exec(entry), stream((hipStream_t)stream) {
    clearLastError();
  }
  void add(const char *name, const void *p, int64_t bytes, bool) override {
    operands.push_back({name, p, bytes});
  }
  int32_t prepare(DeviceInfo &info) override {
    // Operands first: a host buffer is the caller's error even without a
    // device.
    char buf[160];
    const DeviceCheckContext ctx = deviceCheckContext(stream);
    for (const Operand &o : operands)
      if (const char *why = notDeviceMemory(ctx, o.p, o.bytes, buf, sizeof buf))
        return fail(entry, FP8Q_ERR_DEVICE,
                    "operand %s is %s: a device-mode step needs device "
                    "buffers",
                    o.name, why);
    return initDeviceOrFail(entry, info);
  }
  void *dev(const void *p) const override { return const_cast<void *>(p); }
  int32_t launch(KernelId id, Dim3 grid, Dim3 block, void **args) override {
    std::string err;
    if (!launchAsync(id, grid, block, args, stream, err))
      return fail(entry, FP8Q_ERR_DEVICE, "%s", err.c_str());
    return FP8Q_OK;
  }
  int32_t alloc(void **p, int64_t bytes) override {
    // Stream-ordered, so a graph captures it as an allocation node.
    hipError_t e = hipMallocAsync(p, (size_t)bytes, stream);
    if (e != hipSuccess)
      return fail(entry, FP8Q_ERR_DEVICE, "hipMallocAsync of %lld bytes: %s",
                  (long long)bytes, hipGetErrorString(e));
    return FP8Q_OK;
  }
  void release(void *p) override { (void)hipFreeAsync(p, stream); }
  void *splitWorkspace() override { return splitWorkspaceOf(stream); }
  int32_t finish() override { return FP8Q_OK; }
  int32_t vendorGemm(const fp8q::rt::GemmPlan &plan, int32_t kernel) override {
#ifdef FP8Q_HIP_ON_CUDA
    if (kernel == FP8Q_KERNEL_CUBLAS)
      return cublasLtGemm(entry, plan, stream);
#endif
    (void)plan;
    (void)kernel;
    return kNotHandled;
  }

private:
  struct Operand {
    const char *name;
    const void *p;
    int64_t bytes;
  };
  hipStream_t stream;
  std::vector<Operand> operands;
};

/// Runs `op` unless the thread's status is sticky; makes a failure sticky.
template <class F> int32_t guarded(F op) {
  if (sticky != FP8Q_OK)
    return sticky;
  int32_t s = op();
  if (s != FP8Q_OK)
    setSticky(s);
  return s;
}

/// all_gather or reduce_scatter_bf16 on the device: the shared checks
/// (fp8q_collective_checks.h), the communicator's rank count, x and out
/// device memory, then NCCL on the stream, or with ranks == 1 and no
/// communicator a device-to-device copy.
int32_t collectiveOp(const char *entry, fp8q::rt::CollectiveKind kind,
                     fp8q_memref_2d *x, fp8q_memref_2d *out, int64_t elemBytes,
                     int64_t ranks, void *stream) {
  clearLastError();
  fp8q::rt::CollectivePlan plan;
  if (int32_t s = fp8q::rt::checkCollective(entry, kind, x, out, elemBytes,
                                            ranks, plan))
    return s;
  // The communicator, then the operands' memory, then the call.
  const fp8q::nccl::State comm = fp8q::nccl::current();
  if (!comm.comm && ranks != 1)
    return fail(entry, FP8Q_ERR_DEVICE,
                "ranks = %lld but no communicator is set: call "
                "fp8q_rt_device_comm_init (or fp8q_rt_device_comm_set) on "
                "every rank first",
                (long long)ranks);
  if (comm.comm && ranks != comm.ranks)
    return fail(entry, FP8Q_ERR_ARG,
                "ranks = %lld but the communicator has %d ranks (this "
                "process is its rank %d): the step was compiled for another "
                "tensor-parallel size",
                (long long)ranks, comm.ranks, comm.rank);
  char buf[160];
  const DeviceCheckContext ctx = deviceCheckContext((hipStream_t)stream);
  const struct {
    const char *name;
    const void *p;
    int64_t bytes;
  } operands[] = {{"x", plan.x.base, plan.xBytes},
                  {"out", plan.out.base, plan.outBytes}};
  for (const auto &o : operands)
    if (const char *why = notDeviceMemory(ctx, o.p, o.bytes, buf, sizeof buf))
      return fail(entry, FP8Q_ERR_DEVICE,
                  "operand %s is %s: a device-mode step needs device buffers",
                  o.name, why);
  if (!comm.comm) { // ranks == 1: a copy
    hipError_t e =
        hipMemcpyAsync(plan.out.base, plan.x.base, (size_t)plan.xBytes,
                       hipMemcpyDeviceToDevice, (hipStream_t)stream);
    if (e != hipSuccess) {
      (void)hipGetLastError();
      return fail(entry, FP8Q_ERR_DEVICE,
                  "hipMemcpyAsync of %lld bytes (ranks == 1): %s",
                  (long long)plan.xBytes, hipGetErrorString(e));
    }
    return FP8Q_OK;
  }
  const char *why = nullptr;
  const fp8q::nccl::Api *a = fp8q::nccl::api(&why);
  if (!a) // a communicator exists, so the library was loaded
    return fail(entry, FP8Q_ERR_DEVICE, "%s", why);
  fp8q::nccl::Result r;
  if (kind == fp8q::rt::CollectiveKind::AllGather) {
    // A byte copy: every element type gathers as bytes, bit for bit.
    r = a->allGather(plan.x.base, plan.out.base, (size_t)plan.xBytes,
                     fp8q::nccl::kUint8, comm.comm, stream);
  } else {
    r = a->reduceScatter(plan.x.base, plan.out.base,
                         (size_t)(plan.outBytes / 2), fp8q::nccl::kBfloat16,
                         fp8q::nccl::kSum, comm.comm, stream);
  }
  if (r != fp8q::nccl::kSuccess) {
    const char *text = a->getErrorString(r);
    bool gather = kind == fp8q::rt::CollectiveKind::AllGather;
    return fail(entry, FP8Q_ERR_DEVICE, "%s: %s",
                gather ? "ncclAllGather" : "ncclReduceScatter",
                text ? text : "unknown NCCL error");
  }
  return FP8Q_OK;
}

} // namespace

int32_t stickyStatus() { return sticky; }

void setSticky(int32_t status) {
  if (sticky != FP8Q_OK || status == FP8Q_OK)
    return;
  sticky = status;
  stickyMessage = lastErrorMessage();
}

} // namespace fp8q::hiprt

using namespace fp8q::hiprt;

extern "C" {

#define FP8Q_DEVICE_QUANT_ENTRIES(SUFFIX, ACT)                                 \
  int32_t _mlir_ciface_fp8q_rt_device_quantize_##SUFFIX(                       \
      fp8q_memref_2d *x, fp8q_memref_2d *q, fp8q_memref_2d *scale,             \
      int64_t group, int32_t fp8, void *stream) {                              \
    return guarded([&] {                                                       \
      DeviceExec ex("fp8q_rt_device_quantize_" #SUFFIX, stream);               \
      return quantizeOp(ex, ACT, x, nullptr, q, scale, nullptr, 0.0f, group,   \
                        fp8, false, false);                                    \
    });                                                                        \
  }                                                                            \
  int32_t _mlir_ciface_fp8q_rt_device_rms_norm_quantize_##SUFFIX(              \
      fp8q_memref_2d *x, fp8q_memref_1d *gamma, fp8q_memref_2d *q,             \
      fp8q_memref_2d *scale, fp8q_memref_2d *y, float eps, int64_t group,      \
      int32_t fp8, int32_t keep, void *stream) {                               \
    return guarded([&] {                                                       \
      DeviceExec ex("fp8q_rt_device_rms_norm_quantize_" #SUFFIX, stream);      \
      return quantizeOp(ex, ACT, x, gamma, q, scale, y, eps, group, fp8, true, \
                        keep != 0);                                            \
    });                                                                        \
  }                                                                            \
  int32_t _mlir_ciface_fp8q_rt_device_add_rms_norm_quantize_##SUFFIX(          \
      fp8q_memref_2d *x, fp8q_memref_2d *residual, fp8q_memref_1d *gamma,      \
      fp8q_memref_2d *q, fp8q_memref_2d *scale, fp8q_memref_2d *y,             \
      fp8q_memref_2d *sum, float eps, int64_t group, int32_t fp8,              \
      int32_t keep, void *stream) {                                            \
    return guarded([&] {                                                       \
      DeviceExec ex("fp8q_rt_device_add_rms_norm_quantize_" #SUFFIX, stream);  \
      return addRmsNormQuantizeOp(ex, ACT, x, residual, gamma, q, scale, y,    \
                                  sum, eps, group, fp8, keep != 0);            \
    });                                                                        \
  }                                                                            \
  int32_t _mlir_ciface_fp8q_rt_device_silu_mul_quantize_##SUFFIX(              \
      fp8q_memref_2d *gate, fp8q_memref_2d *up, fp8q_memref_2d *q,             \
      fp8q_memref_2d *scale, int64_t group, int32_t fp8, void *stream) {       \
    return guarded([&] {                                                       \
      DeviceExec ex("fp8q_rt_device_silu_mul_quantize_" #SUFFIX, stream);      \
      return siluMulQuantizeOp(ex, ACT, gate, up, q, scale, group, fp8);       \
    });                                                                        \
  }

#define FP8Q_DEVICE_QUANT_V2_ENTRY(SUFFIX, ACT)                                \
  int32_t _mlir_ciface_fp8q_rt_device_quantize_v2_##SUFFIX(                    \
      fp8q_memref_2d *x, fp8q_memref_2d *q, fp8q_memref_2d *scale,             \
      fp8q_memref_0d *global, int64_t group, int32_t qType, int32_t scaleType, \
      int32_t rounding, int32_t layout, int64_t align, void *stream) {         \
    return guarded([&] {                                                       \
      DeviceExec ex("fp8q_rt_device_quantize_v2_" #SUFFIX, stream);            \
      return quantizeV2Op(ex, ACT, x, q, scale, global, group, qType,          \
                          scaleType, rounding, layout, align);                 \
    });                                                                        \
  }

FP8Q_DEVICE_QUANT_V2_ENTRY(bf16, Act::BF16)
FP8Q_DEVICE_QUANT_V2_ENTRY(f16, Act::F16)
FP8Q_DEVICE_QUANT_V2_ENTRY(f32, Act::F32)

int32_t _mlir_ciface_fp8q_rt_device_materialize_v2(
    fp8q_memref_2d *src, fp8q_memref_2d *dst, int32_t scaleType,
    int32_t srcLayout, int64_t srcAlign, int32_t dstLayout, int64_t dstAlign,
    void *stream) {
  return guarded([&] {
    DeviceExec ex("fp8q_rt_device_materialize_v2", stream);
    return materializeV2Op(ex, src, dst, scaleType, srcLayout, srcAlign,
                           dstLayout, dstAlign);
  });
}

FP8Q_DEVICE_QUANT_ENTRIES(bf16, Act::BF16)
FP8Q_DEVICE_QUANT_ENTRIES(f16, Act::F16)
FP8Q_DEVICE_QUANT_ENTRIES(f32, Act::F32)

int32_t _mlir_ciface_fp8q_rt_device_materialize(fp8q_memref_2d *src,
                                                fp8q_memref_2d *dst,
                                                void *stream) {
  return guarded([&] {
    DeviceExec ex("fp8q_rt_device_materialize", stream);
    return materializeOp(ex, src, dst);
  });
}

int32_t _mlir_ciface_fp8q_rt_device_preshuffle(fp8q_memref_2d *w,
                                               fp8q_memref_2d *dst,
                                               void *stream) {
  return guarded([&] {
    DeviceExec ex("fp8q_rt_device_preshuffle", stream);
    return preshuffleOp(ex, w, dst, false);
  });
}

int32_t _mlir_ciface_fp8q_rt_device_preshuffle_v2(fp8q_memref_2d *w,
                                                  fp8q_memref_2d *dst,
                                                  int32_t qType, int64_t k,
                                                  void *stream) {
  return guarded([&] {
    DeviceExec ex("fp8q_rt_device_preshuffle_v2", stream);
    return preshuffleV2Op(ex, w, dst, qType, k, false);
  });
}

int32_t _mlir_ciface_fp8q_rt_device_gemm_v2(
    fp8q_memref_2d *q, fp8q_memref_2d *xs, fp8q_memref_2d *w,
    fp8q_memref_2d *ws, fp8q_memref_0d *global, fp8q_memref_2d *out,
    int64_t group, int32_t kernel, int32_t qType, int32_t scaleType,
    int32_t xLayout, int64_t xAlign, int32_t wLayout, int64_t wAlign,
    int32_t weightLayout, void *stream) {
  return guarded([&] {
    DeviceExec ex("fp8q_rt_device_gemm_v2", stream);
    return gemmV2Op(ex, q, xs, w, ws, global, out, group, kernel, qType,
                    scaleType, xLayout, xAlign, wLayout, wAlign, weightLayout);
  });
}

int32_t _mlir_ciface_fp8q_rt_device_gemm(fp8q_memref_2d *q, fp8q_memref_2d *xs,
                                         fp8q_memref_2d *w, fp8q_memref_2d *ws,
                                         fp8q_memref_2d *out, int32_t kernel,
                                         int32_t fp8, int32_t weightLayout,
                                         void *stream) {
  return guarded([&] {
    DeviceExec ex("fp8q_rt_device_gemm", stream);
    return gemmOp(ex, q, xs, w, ws, out, kernel, fp8, weightLayout);
  });
}

int32_t _mlir_ciface_fp8q_rt_device_all_gather(fp8q_memref_2d *x,
                                               fp8q_memref_2d *out,
                                               int64_t elemBytes, int64_t ranks,
                                               void *stream) {
  return guarded([&] {
    return collectiveOp("fp8q_rt_device_all_gather",
                        fp8q::rt::CollectiveKind::AllGather, x, out, elemBytes,
                        ranks, stream);
  });
}

int32_t _mlir_ciface_fp8q_rt_device_reduce_scatter_bf16(fp8q_memref_2d *x,
                                                        fp8q_memref_2d *out,
                                                        int64_t ranks,
                                                        void *stream) {
  return guarded([&] {
    return collectiveOp("fp8q_rt_device_reduce_scatter_bf16",
                        fp8q::rt::CollectiveKind::ReduceScatter, x, out, 2,
                        ranks, stream);
  });
}

int32_t _mlir_ciface_fp8q_rt_device_check_arg(int64_t alignedPtr,
                                              int64_t spanBytes,
                                              int32_t argIndex, void *stream) {
  return guarded([&]() -> int32_t {
    clearLastError();
    const char *entry = "fp8q device step";
    if (spanBytes < 0)
      return fail(entry, FP8Q_ERR_SHAPE, "argument #%d spans %lld bytes",
                  (int)argIndex, (long long)spanBytes);
    char buf[160];
    if (const char *why = notDeviceMemory(deviceCheckContext(nullptr),
                                          (const void *)(intptr_t)alignedPtr,
                                          spanBytes, buf, sizeof buf))
      return fail(entry, FP8Q_ERR_DEVICE,
                  "argument #%d is %s, a device-mode step needs device "
                  "buffers",
                  (int)argIndex, why);
    // A stream being captured must not be queried (that would invalidate
    // the capture); asking whether it captures validates the handle too.
    hipStreamCaptureStatus cs = hipStreamCaptureStatusNone;
    hipError_t e = hipStreamIsCapturing((hipStream_t)stream, &cs);
    if (e == hipSuccess && cs == hipStreamCaptureStatusNone)
      e = hipStreamQuery((hipStream_t)stream);
    (void)hipGetLastError();
    if (e == hipErrorInvalidResourceHandle || e == hipErrorContextIsDestroyed)
      return fail(entry, FP8Q_ERR_DEVICE,
                  "argument #%d: the step's stream %p is not a valid stream "
                  "(%s)",
                  (int)argIndex, stream, hipGetErrorString(e));
    return FP8Q_OK;
  });
}

int32_t fp8q_device_status(void) { return stickyStatus(); }

const char *fp8q_device_last_error(void) {
  return sticky != FP8Q_OK ? stickyMessage.c_str() : "";
}

void fp8q_device_clear_error(void) {
  sticky = FP8Q_OK;
  stickyMessage.clear();
  clearLastError();
}

void *fp8q_device_alloc(int64_t bytes, void *stream) {
  if (bytes <= 0)
    return nullptr;
  void *p = nullptr;
  hipError_t e = hipMallocAsync(&p, (size_t)bytes, (hipStream_t)stream);
  if (e != hipSuccess) {
    (void)hipGetLastError();
    setSticky(fail("fp8q_device_alloc", FP8Q_ERR_DEVICE,
                   "hipMallocAsync of %lld bytes: %s", (long long)bytes,
                   hipGetErrorString(e)));
    return nullptr;
  }
  return p;
}

void fp8q_device_free(void *ptr, void *stream) {
  if (ptr)
    (void)hipFreeAsync(ptr, (hipStream_t)stream);
}

} // extern "C"
