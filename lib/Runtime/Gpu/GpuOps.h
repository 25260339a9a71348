//===- GpuOps.h - The fp8q operations on a GPU, for both ABIs ---*- C++ -*-===//
//
// Operand validation, kernel-contract checks and kernel arguments of every
// fp8q operation, written once for the two ABIs of a GPU runtime: the host
// ABI (HostAbi.cpp: host operands are staged, every call waits) and the
// device ABI (DeviceAbi.cpp: device operands only, stream-ordered). What
// differs between them is an Exec: how operands become device addresses
// and how kernels are enqueued.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_RUNTIME_GPU_GPUOPS_H
#define FP8Q_RUNTIME_GPU_GPUOPS_H

#include "Launcher.h"

#include "fp8q/Runtime/fp8q_runtime.h"
#include "fp8q_operand_checks.h"

#include <stdint.h>

namespace fp8q::hiprt {

/// Activation element types (the symbol suffixes bf16, f16, f32).
enum class Act { BF16, F16, F32 };

/// Where an operation's operands live and how its kernels run. Calls come
/// in order: add() for every operand, prepare(), then dev() / launch() /
/// alloc() / release(), then finish().
class Exec {
public:
  explicit Exec(const char *entry) : entry(entry) {}
  virtual ~Exec() = default;
  /// Registers operand `name`: the `bytes` at `p` the kernels read, and
  /// whether they write them.
  virtual void add(const char *name, const void *p, int64_t bytes,
                   bool written) = 0;
  /// Initializes the device (`info`) and makes every registered operand
  /// addressable by the kernels (staging, or checking that it is device
  /// memory); on failure reports it and returns the status.
  virtual int32_t prepare(DeviceInfo &info) = 0;
  /// The device address the kernels use for host-visible address `p`.
  virtual void *dev(const void *p) const = 0;
  /// Enqueues kernel `id`; the host ABI also waits for it.
  virtual int32_t launch(KernelId id, Dim3 grid, Dim3 block, void **args) = 0;
  /// A device temporary of `bytes`, released by release() in stream order.
  virtual int32_t alloc(void **p, int64_t bytes) = 0;
  virtual void release(void *p) = 0;
  /// Copies written operands back (host ABI); nothing for the device ABI.
  virtual int32_t finish() = 0;
  /// Runs a GEMM whose kernel is a vendor library (the `cublas` kernel on
  /// CUDA) on prepared operands. Returns kNotHandled where there is none:
  /// the portable kernel runs instead.
  virtual int32_t vendorGemm(const fp8q::rt::GemmPlan &plan, int32_t kernel) {
    (void)plan;
    (void)kernel;
    return kNotHandled;
  }
  /// The split-K workspace of this Exec's stream (splitWorkspaceOf), or
  /// null where there is none: the decode GEMM then runs unsplit.
  virtual void *splitWorkspace() { return nullptr; }
  static constexpr int32_t kNotHandled = -1;
  const char *const entry;
};

/// Bytes of a split-K workspace: kSplitCounterBytes of per-tile arrival
/// counters (zero between kernels: the kernels reset them), then fp32
/// partial tiles.
constexpr int64_t kSplitWorkspaceBytes = 4 << 20;
constexpr int64_t kSplitCounterBytes = 16 << 10;

/// What a per-stream device buffer (streamBufferOf) is for.
enum class StreamBuffer { CublasLtWorkspace, DecodeSplit };

/// One `bytes`-byte device buffer per stream (null: the legacy default
/// stream) and purpose, as PyTorch keeps one cuBLASLt workspace per handle
/// and stream: consecutive kernels of a step share it in stream order, and
/// a captured step holds no allocation node for it. Made on first use
/// outside a graph capture (hipMalloc / hipMemset are not allowed inside
/// one), its first `zeroBytes` zeroed synchronously; null during a capture
/// before that, or when the device is out of memory. Never freed. A
/// purpose's `bytes` must be the same on every call.
void *streamBufferOf(void *stream, StreamBuffer purpose, int64_t bytes,
                     int64_t zeroBytes);

/// The decode GEMM's split-K workspace of `stream` (kSplitWorkspaceBytes,
/// its counters zero).
inline void *splitWorkspaceOf(void *stream) {
  return streamBufferOf(stream, StreamBuffer::DecodeSplit, kSplitWorkspaceBytes,
                        kSplitCounterBytes);
}

/// quantize (rms == false) or rms_norm_quantize: the ABI's arguments.
int32_t quantizeOp(Exec &ex, Act t, fp8q_memref_2d *x, fp8q_memref_1d *gamma,
                   fp8q_memref_2d *q, fp8q_memref_2d *scale, fp8q_memref_2d *y,
                   float eps, int64_t group, int32_t fp8, bool rms, bool keep);
/// add_rms_norm_quantize: rms_norm_quantize on sum = round_T(x + residual),
/// which is written too (it may be exactly x or residual).
int32_t addRmsNormQuantizeOp(Exec &ex, Act t, fp8q_memref_2d *x,
                             fp8q_memref_2d *residual, fp8q_memref_1d *gamma,
                             fp8q_memref_2d *q, fp8q_memref_2d *scale,
                             fp8q_memref_2d *y, fp8q_memref_2d *sum, float eps,
                             int64_t group, int32_t fp8, bool keep);
/// silu_mul_quantize: the f32 quantize of (gate / (1 + exp(-gate))) * up.
int32_t siluMulQuantizeOp(Exec &ex, Act t, fp8q_memref_2d *gate,
                          fp8q_memref_2d *up, fp8q_memref_2d *q,
                          fp8q_memref_2d *scale, int64_t group, int32_t fp8);
int32_t materializeOp(Exec &ex, fp8q_memref_2d *src, fp8q_memref_2d *dst);
/// preshuffle, or its inverse (unpreshuffle) when `inverse`.
int32_t preshuffleOp(Exec &ex, fp8q_memref_2d *src, fp8q_memref_2d *dst,
                     bool inverse);
int32_t gemmOp(Exec &ex, fp8q_memref_2d *q, fp8q_memref_2d *xs,
               fp8q_memref_2d *w, fp8q_memref_2d *ws, fp8q_memref_2d *out,
               int32_t kernel, int32_t fp8, int32_t weightLayout);

/// quantize_v2 (SPEC v2 formats, lib/Runtime/Gpu/GpuOpsV2.cpp): the CPU
/// runtime's arguments and checks plus the kernels' needs.
int32_t quantizeV2Op(Exec &ex, Act t, fp8q_memref_2d *x, fp8q_memref_2d *q,
                     fp8q_memref_2d *scale, fp8q_memref_0d *global,
                     int64_t group, int32_t qType, int32_t scaleType,
                     int32_t rounding, int32_t layout, int64_t align);
/// materialize_v2: a v2 scale from any layout into any layout.
int32_t materializeV2Op(Exec &ex, fp8q_memref_2d *src, fp8q_memref_2d *dst,
                        int32_t scaleType, int32_t srcLayout, int64_t srcAlign,
                        int32_t dstLayout, int64_t dstAlign);
/// gemm_v2: the CPU runtime's checks (fp8q_gemm_v2_checks.h), then the
/// portable kernel, bit-exact with the CPU runtime.
int32_t gemmV2Op(Exec &ex, fp8q_memref_2d *q, fp8q_memref_2d *xs,
                 fp8q_memref_2d *w, fp8q_memref_2d *ws, fp8q_memref_0d *global,
                 fp8q_memref_2d *out, int64_t group, int32_t kernel,
                 int32_t qType, int32_t scaleType, int32_t xLayout,
                 int64_t xAlign, int32_t wLayout, int64_t wAlign,
                 int32_t weightLayout);
/// preshuffle_v2: fp8 as preshuffleOp, f4E2M1FN byte-wise over its packed
/// [N, K / 2] rows (fp8q_scale_checks.h preshuffleBytes).
int32_t preshuffleV2Op(Exec &ex, fp8q_memref_2d *src, fp8q_memref_2d *dst,
                       int32_t qType, int64_t k, bool inverse);

/// The calling thread's sticky device-mode status (0 when clear): once a
/// device entry point or an mgpu* wrapper fails, later ones in the thread
/// enqueue nothing until fp8q_device_clear_error(). DeviceAbi.cpp.
int32_t stickyStatus();
/// Makes `status` (and the last error message) sticky unless one is.
void setSticky(int32_t status);

/// Operand `name` as the GPU kernels read it: dense rows (a unit column
/// stride) at `align`-byte aligned addresses, or FP8Q_ERR_LAYOUT.
int32_t checkRows(const char *entry, const char *name,
                  const fp8q::rt::View2 &op, size_t align);

/// initDevice() with its failure reported for `entry`.
int32_t initDeviceOrFail(const char *entry, DeviceInfo &info);

/// Clears the calling thread's last error (each call of the host ABI).
void clearLastError();
/// The calling thread's last error message.
const char *lastErrorMessage();

} // namespace fp8q::hiprt

#endif // FP8Q_RUNTIME_GPU_GPUOPS_H
