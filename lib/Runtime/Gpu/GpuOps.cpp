//===- GpuOps.cpp - The fp8q operations on a GPU, for both ABIs ----------===//
//
// Validation follows the CPU runtime's messages and statuses (the shared
// checks of lib/Runtime/Common) plus the kernels' own needs (dense rows,
// 16-byte alignment); a missing device is reported as "no HIP device".
// Operands reach the kernels through an Exec (GpuOps.h).
//
//===----------------------------------------------------------------------===//

#include "GpuOps.h"
#include "GpuApi.h"

#include "fp8q/Runtime/fp8q_preshuffle.h"
#include "fp8q_kernels/DecodeGemm.h"
#include "fp8q_kernels/GemmTile.h"
#include "fp8q_kernels/KernelArgs.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <utility>

using namespace fp8q::kern;

namespace fp8q::hiprt {

const char *const kKernelNames[(int)KernelId::Count] = {
    "fp8q_kernel_quantize_bf16",
    "fp8q_kernel_quantize_f16",
    "fp8q_kernel_quantize_f32",
    "fp8q_kernel_rms_norm_quantize_bf16",
    "fp8q_kernel_rms_norm_quantize_f16",
    "fp8q_kernel_rms_norm_quantize_f32",
    "fp8q_kernel_add_rms_norm_quantize_bf16",
    "fp8q_kernel_add_rms_norm_quantize_f16",
    "fp8q_kernel_add_rms_norm_quantize_f32",
    "fp8q_kernel_silu_mul_quantize_bf16",
    "fp8q_kernel_silu_mul_quantize_f16",
    "fp8q_kernel_silu_mul_quantize_f32",
    "fp8q_kernel_materialize",
    "fp8q_kernel_preshuffle",
    "fp8q_kernel_unpreshuffle",
    "fp8q_kernel_gemm_preshuffle",
    "fp8q_kernel_gemm_plain",
    "fp8q_kernel_gemm_portable_preshuffle",
    "fp8q_kernel_gemm_portable_plain",
    "fp8q_kernel_quantize_v2_bf16",
    "fp8q_kernel_quantize_v2_f16",
    "fp8q_kernel_quantize_v2_f32",
    "fp8q_kernel_materialize_v2",
    "fp8q_kernel_materialize_v2_tiled",
    "fp8q_kernel_decode_gemm_m8",
    "fp8q_kernel_decode_gemm_m16",
    "fp8q_kernel_decode_gemm_m32",
    "fp8q_kernel_decode_gemm_m64",
    "fp8q_kernel_decode_gemm_preshuffle_m8",
    "fp8q_kernel_decode_gemm_preshuffle_m16",
    "fp8q_kernel_decode_gemm_preshuffle_m32",
    "fp8q_kernel_decode_gemm_preshuffle_m64",
    "fp8q_kernel_gemm_v2",
    "fp8q_kernel_quantize_v2_words_bf16_e4m3fn",
    "fp8q_kernel_quantize_v2_words_bf16_e4m3fnuz",
    "fp8q_kernel_quantize_v2_words_bf16_e5m2",
    "fp8q_kernel_quantize_v2_words_bf16_e2m1",
    "fp8q_kernel_quantize_v2_words_f16_e4m3fn",
    "fp8q_kernel_quantize_v2_words_f16_e4m3fnuz",
    "fp8q_kernel_quantize_v2_words_f16_e5m2",
    "fp8q_kernel_quantize_v2_words_f16_e2m1",
    "fp8q_kernel_gemm_mx_portable",
    "fp8q_kernel_gemm_mxfp8",
    "fp8q_kernel_gemm_mxfp4",
    "fp8q_kernel_decode_gemm_m8_b2",
    "fp8q_kernel_decode_gemm_preshuffle_m8_b2",
    "fp8q_kernel_quantize_v2_words_padded_bf16_e4m3fn",
    "fp8q_kernel_quantize_v2_words_padded_bf16_e4m3fnuz",
    "fp8q_kernel_quantize_v2_words_padded_bf16_e5m2",
    "fp8q_kernel_quantize_v2_words_padded_bf16_e2m1",
    "fp8q_kernel_quantize_v2_words_padded_f16_e4m3fn",
    "fp8q_kernel_quantize_v2_words_padded_f16_e4m3fnuz",
    "fp8q_kernel_quantize_v2_words_padded_f16_e5m2",
    "fp8q_kernel_quantize_v2_words_padded_f16_e2m1",
};

void traceLaunch(KernelId id, Dim3 grid, Dim3 block) {
  static const bool on = [] {
    const char *v = getenv("FP8Q_RT_TRACE_LAUNCHES");
    return v && v[0] == '1' && v[1] == 0;
  }();
  if (on)
    fprintf(stderr, "fp8q launch %s grid %u,%u,%u block %u,%u,%u\n",
            kKernelNames[(int)id], grid.x, grid.y, grid.z, block.x, block.y,
            block.z);
}

namespace {

/// Status for device and driver failures (not in fp8q_status yet).
constexpr int32_t kErrDevice = FP8Q_ERR_DEVICE;

thread_local std::string lastError;

} // namespace

void clearLastError() { lastError.clear(); }
const char *lastErrorMessage() { return lastError.c_str(); }

} // namespace fp8q::hiprt

/// The error sink of the shared checks
/// (lib/Runtime/Common/fp8q_operand_checks.h) and of everything else in this
/// runtime.
int32_t fp8q::rt::fail(const char *entry, int32_t status, const char *fmt,
                       ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  fp8q::hiprt::lastError = std::string(entry) + ": " + msg;
  fprintf(stderr, "fp8q runtime error (" FP8Q_GPU_BACKEND "): %s\n",
          fp8q::hiprt::lastError.c_str());
  return status;
}

void fp8q::rt::warn(const char *entry, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  fprintf(stderr, "fp8q runtime warning (" FP8Q_GPU_BACKEND "): %s: %s\n",
          entry, msg);
}

namespace fp8q::hiprt {
namespace {

/// A validated rank-2 operand (lib/Runtime/Common/fp8q_operand_checks.h).
using Op = fp8q::rt::View2;
using fp8q::rt::Access;
using fp8q::rt::checkFp8Type;
using fp8q::rt::checkGroupSize;
using fp8q::rt::checkOperand;
using fp8q::rt::fail;
using fp8q::rt::uncheckedMode;

} // namespace

int32_t checkRows(const char *entry, const char *name, const Op &op,
                  size_t align) {
  if ((op.cols > 1 && op.s1 != 1) || (uintptr_t)op.base % align ||
      (op.rows > 1 && (op.s0 * (int64_t)op.eltSize) % (int64_t)align))
    return fail(entry, FP8Q_ERR_LAYOUT,
                "operand %s: the HIP kernels need a unit column stride and "
                "%zu-byte aligned rows (strides (%lld, %lld))",
                name, align, (long long)op.s0, (long long)op.s1);
  return FP8Q_OK;
}

int32_t initDeviceOrFail(const char *entry, DeviceInfo &info) {
  std::string err;
  if (!initDevice(info, err))
    return fail(entry, kErrDevice, "%s", err.c_str());
  return FP8Q_OK;
}

namespace {

unsigned ceilDiv(int64_t a, int64_t b) { return (unsigned)((a + b - 1) / b); }

size_t actSize(Act t) { return t == Act::F32 ? 4 : 2; }

} // namespace

namespace {

/// The validated operands of quantize / rms_norm_quantize and of the fused
/// producers built on them (gamma and y only when used).
struct QuantOperands {
  Op x, q, scale, y;
  fp8q::rt::View1 gamma;
  int64_t M = 0, K = 0, G = 0;
};

/// The checks of quantize (rms false) or rms_norm_quantize, in the CPU
/// runtime's order plus the kernels' needs; `xName` names the activation
/// ("x", or "gate" for silu_mul_quantize).
int32_t checkQuant(const char *entry, Act t, const char *xName,
                   fp8q_memref_2d *x, fp8q_memref_1d *gamma, fp8q_memref_2d *q,
                   fp8q_memref_2d *scale, fp8q_memref_2d *y, float eps,
                   int64_t group, int32_t fp8, bool rms, bool keep,
                   QuantOperands &o) {
  const size_t es = actSize(t);
  if (int32_t s = checkOperand(entry, xName, x, es, -1, -1, Access::Read, o.x))
    return s;
  const int64_t M = o.x.rows, K = o.x.cols;
  if (int32_t s = checkGroupSize(entry, group, K))
    return s;
  if (group % 8)
    return fail(entry, FP8Q_ERR_ARG,
                "group_size %lld: the HIP kernels take multiples of 8",
                (long long)group);
  const int64_t G = K / group;
  if (int32_t s = checkFp8Type(entry, fp8))
    return s;
  if (int32_t s = checkRows(entry, xName, o.x, 16))
    return s;
  if (rms) {
    fp8q::rt::View1 &gv = o.gamma;
    if (int32_t s = checkOperand(entry, "gamma", gamma, es, K, gv))
      return s;
    if (K > 1 && gv.s0 != 1)
      return fail(entry, FP8Q_ERR_LAYOUT,
                  "operand gamma: the HIP kernels need a contiguous vector "
                  "(stride 1), got stride %lld",
                  (long long)gv.s0);
    if ((uintptr_t)gv.base % 16)
      return fail(entry, FP8Q_ERR_ALIGN,
                  "operand gamma: the HIP kernels need 16-byte alignment");
    if (!(eps >= 0.0f) || std::isinf(eps))
      return fail(entry, FP8Q_ERR_ARG,
                  "epsilon %g must be finite and non-negative", double(eps));
    if (keep) {
      if (int32_t s = checkOperand(entry, "y", y, es, M, K, Access::Write, o.y))
        return s;
      if (int32_t s = checkRows(entry, "y", o.y, 16))
        return s;
    }
  }
  if (int32_t s = checkOperand(entry, "q", q, 1, M, K, Access::Write, o.q))
    return s;
  if (int32_t s = checkRows(entry, "q", o.q, 8))
    return s;
  if (int32_t s =
          checkOperand(entry, "scale", scale, 4, M, G, Access::Write, o.scale))
    return s;
  o.M = M;
  o.K = K;
  o.G = G;
  return FP8Q_OK;
}

/// Registers the operands checkQuant validated with `ex`.
void addQuantOperands(Exec &ex, const char *xName, const QuantOperands &o,
                      bool rms, bool keep) {
  ex.add(xName, o.x.base, o.x.spanBytes(), false);
  ex.add("q", o.q.base, o.q.spanBytes(), true);
  ex.add("scale", o.scale.base, o.scale.spanBytes(), true);
  if (rms) {
    ex.add("gamma", o.gamma.base, o.K * (int64_t)o.gamma.eltSize, false);
    if (keep)
      ex.add("y", o.y.base, o.y.spanBytes(), true);
  }
}

/// The quantize kernels' arguments for prepared operands.
QuantArgs quantArgs(Exec &ex, const QuantOperands &o, int64_t group,
                    int32_t fp8) {
  const Op &so = o.scale;
  return QuantArgs{ex.dev(o.x.base),
                   (uint8_t *)ex.dev(o.q.base),
                   (float *)ex.dev(so.base),
                   o.M,
                   o.K,
                   group,
                   o.x.s0,
                   o.q.s0,
                   so.s0,
                   so.s1,
                   fp8,
                   (o.M > 1 && so.s0 == 1) ? 1 : 0};
}

/// The RMSNorm kernels' arguments for prepared operands.
RmsArgs rmsArgs(Exec &ex, const QuantOperands &o, float eps, int64_t group,
                int32_t fp8, bool keep) {
  return RmsArgs{ex.dev(o.x.base),
                 ex.dev(o.gamma.base),
                 (uint8_t *)ex.dev(o.q.base),
                 (float *)ex.dev(o.scale.base),
                 keep ? ex.dev(o.y.base) : nullptr,
                 o.M,
                 o.K,
                 group,
                 o.x.s0,
                 o.q.s0,
                 keep ? o.y.s0 : 0,
                 o.scale.s0,
                 o.scale.s1,
                 eps,
                 fp8,
                 keep ? 1 : 0};
}

/// The kernel of family `first` (its bf16 member) for element type t.
KernelId kernelFor(KernelId first, Act t) {
  return (KernelId)((int)first + (int)t);
}

/// Grid of the quantize kernels (groups in teams) and of the RMSNorm
/// kernels (one block per row).
Dim3 quantGrid(const QuantOperands &o) {
  Dim3 grid;
  grid.x = ceilDiv(o.M * o.G, kQuantGroupsPerBlock);
  return grid;
}
Dim3 rowGrid(const QuantOperands &o) {
  Dim3 grid;
  grid.x = (unsigned)o.M;
  return grid;
}
Dim3 quantBlock() {
  Dim3 block;
  block.x = kQuantBlock;
  return block;
}

} // namespace

int32_t quantizeOp(Exec &ex, Act t, fp8q_memref_2d *x, fp8q_memref_1d *gamma,
                   fp8q_memref_2d *q, fp8q_memref_2d *scale, fp8q_memref_2d *y,
                   float eps, int64_t group, int32_t fp8, bool rms, bool keep) {
  QuantOperands o;
  if (int32_t s = checkQuant(ex.entry, t, "x", x, gamma, q, scale, y, eps,
                             group, fp8, rms, keep, o))
    return s;
  DeviceInfo info;
  addQuantOperands(ex, "x", o, rms, keep);
  if (int32_t s = ex.prepare(info))
    return s;
  if (!rms) {
    QuantArgs a = quantArgs(ex, o, group, fp8);
    void *args[] = {&a};
    if (int32_t s = ex.launch(kernelFor(KernelId::QuantizeBf16, t),
                              quantGrid(o), quantBlock(), args))
      return s;
  } else {
    RmsArgs a = rmsArgs(ex, o, eps, group, fp8, keep);
    void *args[] = {&a};
    if (int32_t s = ex.launch(kernelFor(KernelId::RmsBf16, t), rowGrid(o),
                              quantBlock(), args))
      return s;
  }
  return ex.finish();
}

int32_t addRmsNormQuantizeOp(Exec &ex, Act t, fp8q_memref_2d *x,
                             fp8q_memref_2d *residual, fp8q_memref_1d *gamma,
                             fp8q_memref_2d *q, fp8q_memref_2d *scale,
                             fp8q_memref_2d *y, fp8q_memref_2d *sum, float eps,
                             int64_t group, int32_t fp8, bool keep) {
  const char *entry = ex.entry;
  QuantOperands o;
  if (int32_t s = checkQuant(entry, t, "x", x, gamma, q, scale, y, eps, group,
                             fp8, /*rms=*/true, keep, o))
    return s;
  const size_t es = actSize(t);
  Op ro, so;
  if (int32_t s = checkOperand(entry, "residual", residual, es, o.M, o.K,
                               Access::Read, ro))
    return s;
  if (int32_t s = checkRows(entry, "residual", ro, 16))
    return s;
  if (int32_t s =
          checkOperand(entry, "sum", sum, es, o.M, o.K, Access::Write, so))
    return s;
  if (int32_t s = checkRows(entry, "sum", so, 16))
    return s;
  if (int32_t s = fp8q::rt::checkSumAliasing(entry, so, o.x, ro, o.gamma, o.q,
                                             o.scale, keep ? &o.y : nullptr))
    return s;
  DeviceInfo info;
  addQuantOperands(ex, "x", o, /*rms=*/true, keep);
  ex.add("residual", ro.base, ro.spanBytes(), false);
  ex.add("sum", so.base, so.spanBytes(), true);
  if (int32_t s = ex.prepare(info))
    return s;
  AddRmsArgs a{rmsArgs(ex, o, eps, group, fp8, keep), ex.dev(ro.base),
               ex.dev(so.base), ro.s0, so.s0};
  void *args[] = {&a};
  if (int32_t s = ex.launch(kernelFor(KernelId::AddRmsBf16, t), rowGrid(o),
                            quantBlock(), args))
    return s;
  return ex.finish();
}

int32_t siluMulQuantizeOp(Exec &ex, Act t, fp8q_memref_2d *gate,
                          fp8q_memref_2d *up, fp8q_memref_2d *q,
                          fp8q_memref_2d *scale, int64_t group, int32_t fp8) {
  const char *entry = ex.entry;
  QuantOperands o;
  if (int32_t s = checkQuant(entry, t, "gate", gate, nullptr, q, scale, nullptr,
                             0.0f, group, fp8, false, false, o))
    return s;
  Op uo;
  if (int32_t s =
          checkOperand(entry, "up", up, actSize(t), o.M, o.K, Access::Read, uo))
    return s;
  if (int32_t s = checkRows(entry, "up", uo, 16))
    return s;
  DeviceInfo info;
  addQuantOperands(ex, "gate", o, false, false);
  ex.add("up", uo.base, uo.spanBytes(), false);
  if (int32_t s = ex.prepare(info))
    return s;
  SiluArgs a{quantArgs(ex, o, group, fp8), ex.dev(uo.base), uo.s0};
  void *args[] = {&a};
  if (int32_t s = ex.launch(kernelFor(KernelId::SiluMulBf16, t), quantGrid(o),
                            quantBlock(), args))
    return s;
  return ex.finish();
}

int32_t materializeOp(Exec &ex, fp8q_memref_2d *src, fp8q_memref_2d *dst) {
  const char *entry = ex.entry;
  Op so, d;
  if (int32_t s = checkOperand(entry, "src", src, 4, -1, -1, Access::Read, so))
    return s;
  if (int32_t s = checkOperand(entry, "dst", dst, 4, so.rows, so.cols,
                               Access::Write, d))
    return s;
  const int64_t M = so.rows, G = so.cols;
  // Equal layouts (SPEC): the same bytes for every element, no copy.
  if (fp8q::rt::sameAddresses(so, d))
    return FP8Q_OK;
  DeviceInfo info;
  ex.add("src", so.base, so.spanBytes(), false);
  ex.add("dst", d.base, d.spanBytes(), true);
  if (int32_t s = ex.prepare(info))
    return s;
  const float *sdev = (const float *)ex.dev(so.base);
  float *ddev = (float *)ex.dev(d.base);
  Dim3 grid, block;
  grid.x = ceilDiv(G, kTransTile);
  grid.y = ceilDiv(M, kTransTile);
  block.x = kTransBlock;
  const bool overlap = fp8q::rt::rangesOverlap(so, d);
  if (!overlap) {
    MaterializeArgs a{sdev, ddev, M, G, so.s0, so.s1, d.s0, d.s1};
    void *args[] = {&a};
    if (int32_t s = ex.launch(KernelId::Materialize, grid, block, args))
      return s;
  } else {
    // Different layouts over the same bytes: through a temporary.
    float *tmp = nullptr;
    if (int32_t s = ex.alloc((void **)&tmp, M * G * 4))
      return s;
    MaterializeArgs a{sdev, tmp, M, G, so.s0, so.s1, G, 1};
    MaterializeArgs b{tmp, ddev, M, G, G, 1, d.s0, d.s1};
    void *aa[] = {&a}, *ba[] = {&b};
    int32_t s = ex.launch(KernelId::Materialize, grid, block, aa);
    if (!s)
      s = ex.launch(KernelId::Materialize, grid, block, ba);
    ex.release(tmp);
    if (s)
      return s;
  }
  return ex.finish();
}

int32_t preshuffleOp(Exec &ex, fp8q_memref_2d *src, fp8q_memref_2d *dst,
                     bool inverse) {
  const char *entry = ex.entry;
  Op so, d;
  if (int32_t s = checkOperand(entry, "src", src, 1, -1, -1, Access::Read, so))
    return s;
  const int64_t N = so.rows, K = so.cols;
  if (!fp8q_preshuffle_tiles_ok(N, K))
    return fail(entry, FP8Q_ERR_SHAPE,
                "preshuffle_16x16 needs N %% 16 == 0 and K %% 32 == 0, got "
                "%lld x %lld",
                (long long)N, (long long)K);
  if (int32_t s = checkOperand(entry, "dst", dst, 1, N, K, Access::Write, d))
    return s;
  const Op &plain = inverse ? d : so, &shuf = inverse ? so : d;
  if (!inverse && (d.s0 != K || d.s1 != 1))
    return fail(entry, FP8Q_ERR_LAYOUT,
                "operand dst must be dense (strides (%lld, 1)), has (%lld, "
                "%lld)",
                (long long)K, (long long)d.s0, (long long)d.s1);
  if (int32_t s = checkRows(entry, inverse ? "dst" : "src", plain, 16))
    return s;
  if ((uintptr_t)shuf.base % 16)
    return fail(entry, FP8Q_ERR_ALIGN,
                "the preshuffled buffer must be 16-byte aligned");
  if (fp8q::rt::rangesOverlap(so, d))
    return fail(entry, FP8Q_ERR_LAYOUT, "src and dst overlap");
  DeviceInfo info;
  ex.add(inverse ? "dst" : "w", plain.base, plain.spanBytes(), inverse);
  ex.add(inverse ? "src" : "dst", shuf.base, N * K, !inverse);
  if (int32_t s = ex.prepare(info))
    return s;
  PreshuffleArgs a{(const uint8_t *)ex.dev(so.base), (uint8_t *)ex.dev(d.base),
                   N, K, plain.s0};
  void *args[] = {&a};
  Dim3 grid, block;
  grid.x = ceilDiv(N * K / 16, 256);
  block.x = 256;
  if (int32_t s =
          ex.launch(inverse ? KernelId::Unpreshuffle : KernelId::Preshuffle,
                    grid, block, args))
    return s;
  return ex.finish();
}

void *streamBufferOf(void *streamHandle, StreamBuffer purpose, int64_t bytes,
                     int64_t zeroBytes) {
  static std::mutex m;
  static std::map<std::pair<hipStream_t, StreamBuffer>, void *> buffers;
  const auto key = std::make_pair((hipStream_t)streamHandle, purpose);
  std::lock_guard<std::mutex> lock(m);
  auto it = buffers.find(key);
  if (it != buffers.end())
    return it->second;
  hipStreamCaptureStatus capture = hipStreamCaptureStatusNone;
  if (hipStreamIsCapturing(key.first, &capture) != hipSuccess ||
      capture != hipStreamCaptureStatusNone) {
    (void)hipGetLastError();
    return nullptr;
  }
  void *w = nullptr;
  if (hipMalloc(&w, (size_t)bytes) != hipSuccess) {
    (void)hipGetLastError();
    return nullptr;
  }
  // Synchronous: zero before any kernel of any stream reads it.
  if (zeroBytes > 0 && hipMemset(w, 0, (size_t)zeroBytes) != hipSuccess) {
    (void)hipGetLastError();
    (void)hipFree(w);
    return nullptr;
  }
  buffers[key] = w;
  return w;
}

namespace {

/// False when FP8Q_DECODE_GEMM=0 (A/B runs against the vendor GEMM).
bool decodeGemmEnabled() {
  static const bool on = !fp8q::gpu::envSwitchedOff("FP8Q_DECODE_GEMM");
  return on;
}

/// False when FP8Q_DECODE_SPLIT=0 (A/B runs of the decode GEMM's split-K).
bool decodeSplitEnabled() {
  static const bool on = !fp8q::gpu::envSwitchedOff("FP8Q_DECODE_SPLIT");
  return on;
}

/// Runs the decode GEMM (kernels/src/DecodeGemm.hip) where it is routed:
/// devices that have it (DeviceInfo::decodeGemm), the fp8 flavour its
/// matrix step reads; for `cublas` where it was measured faster than
/// cuBLASLt (decodeGemmBeatsCublas: M <= 8, and M <= 16 on N <= 6144,
/// K >= 2048), for the kernels that would otherwise run the portable GEMM
/// at M <= 64. It reads the activation scale through its strides and the
/// plain or preshuffled weight, so it meets every kernel's contract. K is
/// split across blocks where decodeSplitPlan says so and the stream's
/// split-K workspace (splitWorkspaceOf) holds the plan.
/// Exec::kNotHandled where it is not routed.
int32_t decodeGemm(Exec &ex, const DeviceInfo &info,
                   const fp8q::rt::GemmPlan &plan, const GemmArgs &g,
                   int32_t kernel) {
  const int64_t M = plan.M, N = plan.N, K = plan.K;
  const bool routed =
      kernel == FP8Q_KERNEL_CUBLAS ? decodeGemmBeatsCublas(M, N, K) : M <= 64;
  if (!info.decodeGemm || !decodeGemmEnabled() || !routed ||
      plan.readType != (info.decodeNv ? FP8Q_F8E4M3FN : info.mfmaFp8) ||
      (plan.preshuffled && (N % 16 || K % 32)))
    return Exec::kNotHandled;
  const int rows = info.decodeNv ? decodeKernelRows<DecodeMapNv>(M)
                                 : decodeKernelRows<DecodeMapAmd>(M);
  DecodeSplitPlan pl =
      info.decodeNv ? decodeSplitPlan<DecodeMapNv>(M, N, K, rows, info.sms)
                    : decodeSplitPlan<DecodeMapAmd>(M, N, K, rows, info.sms);
  DecodeSplitArgs d{{g.q, g.xs, g.w, g.ws, g.out, M, N, K, g.ldq, g.xs0, g.xs1,
                     g.ldw, g.ws0, g.ws1, g.ldo},
                    nullptr,
                    nullptr,
                    ceilDiv(N, kDecodeTileN),
                    pl.kBlocks,
                    pl.kBlocks,
                    1};
  // Split-K where the tiles do not fill the GPU and the stream's workspace
  // holds the plan's partials and counters; unsplit otherwise.
  if (pl.splits > 1 && decodeSplitEnabled() &&
      decodePartFloats(pl, M, N) * 4 <=
          kSplitWorkspaceBytes - kSplitCounterBytes &&
      pl.tiles * 4 <= kSplitCounterBytes)
    if (uint8_t *w = (uint8_t *)ex.splitWorkspace()) {
      d.arrive = (uint32_t *)w;
      d.part = (float *)(w + kSplitCounterBytes);
      d.kbPer = pl.kbPer;
      d.splits = pl.splits;
    }
  const int variant = rows == 8 ? 0 : rows == 16 ? 1 : rows == 32 ? 2 : 3;
  KernelId id =
      (KernelId)((int)(plan.preshuffled ? KernelId::DecodeGemmPreshuffle8
                                        : KernelId::DecodeGemm8) +
                 variant);
  if (rows == 8 && decodeM8TwoBlocks(M, N, info.sms))
    id = plan.preshuffled ? KernelId::DecodeGemmPreshuffle8B2
                          : KernelId::DecodeGemm8B2;
  Dim3 grid, block;
  grid.x = (unsigned)ceilDiv(N, kDecodeTileN);
  grid.y = (unsigned)ceilDiv(M, rows);
  grid.z = (unsigned)d.splits;
  block.x = kDecodeThreads;
  void *args[] = {&d};
  return ex.launch(id, grid, block, args);
}

} // namespace

int32_t gemmOp(Exec &ex, fp8q_memref_2d *q, fp8q_memref_2d *xs,
               fp8q_memref_2d *w, fp8q_memref_2d *ws, fp8q_memref_2d *out,
               int32_t kernel, int32_t fp8, int32_t weightLayout) {
  const char *entry = ex.entry;
  // Arguments, contract and memory safety (shared with the CPU runtime).
  fp8q::rt::GemmPlan plan;
  if (int32_t s = fp8q::rt::checkGemm(entry, q, xs, w, ws, out, kernel, fp8,
                                      weightLayout, uncheckedMode(), plan))
    return s;
  const Op &qo = plan.q, &xo = plan.xScale, &wo = plan.w, &wso = plan.wScale,
           &oo = plan.out;
  const int64_t M = plan.M, N = plan.N, K = plan.K, G = plan.G;
  const int64_t xs0 = plan.xs0, xs1 = plan.xs1;
  const bool shuf = plan.preshuffled;
  // What the HIP kernels add: 1x128 groups and dense, aligned rows.
  if (K != G * kGroup)
    return fail(entry, FP8Q_ERR_ARG,
                "the HIP GEMM kernels take 1x128 groups: K = %lld but x_scale "
                "has %lld groups",
                (long long)K, (long long)G);
  if (int32_t s = checkRows(entry, "q", qo, 16))
    return s;
  if (int32_t s = checkRows(entry, "out", oo, 2))
    return s;
  if (!shuf)
    if (int32_t s = checkRows(entry, "w", wo, 16))
      return s;
  if (shuf && (uintptr_t)wo.base % 16)
    return fail(entry, FP8Q_ERR_ALIGN,
                "operand w: the preshuffled weight must be 16-byte aligned");
  DeviceInfo info;
  const int64_t xsSpan = ((M - 1) * xs0 + (G - 1) * xs1 + 1) * 4;
  ex.add("q", qo.base, qo.spanBytes(), false);
  ex.add("x_scale", xo.base, xsSpan, false);
  ex.add("w", wo.base, shuf ? N * K : wo.spanBytes(), false);
  ex.add("w_scale", wso.base, wso.spanBytes(), false);
  ex.add("out", oo.base, oo.spanBytes(), true);
  if (int32_t s = ex.prepare(info))
    return s;
  GemmArgs a{(const uint8_t *)ex.dev(qo.base),
             (const float *)ex.dev(xo.base),
             (const uint8_t *)ex.dev(wo.base),
             (const float *)ex.dev(wso.base),
             (uint16_t *)ex.dev(oo.base),
             M,
             N,
             K,
             qo.s0,
             xs0,
             xs1,
             shuf ? K : wo.s0,
             wso.s0,
             wso.s1,
             oo.s0};
  // fp8q's decode GEMM for small M, where it is routed.
  int32_t d = decodeGemm(ex, info, plan, a, kernel);
  if (d != Exec::kNotHandled)
    return d ? d : ex.finish();
  // A vendor library where the kernel is one (cuBLASLt for `cublas`).
  int32_t v = ex.vendorGemm(plan, kernel);
  if (v != Exec::kNotHandled)
    return v ? v : ex.finish();
  int32_t fp8Arg = plan.readType;
  Dim3 grid, block;
  block.x = 256;
  // The MFMA kernels when the device's matrix unit reads this fp8 flavour.
  if (info.hasMfma && info.mfmaFp8 == plan.readType && N % 16 == 0) {
    void *args[] = {&a};
    grid.x = (unsigned)gemmBlocksN(N);
    grid.y = (unsigned)gemmBlocksM(M);
    if (int32_t s =
            ex.launch(shuf ? KernelId::GemmPreshuffle : KernelId::GemmPlain,
                      grid, block, args))
      return s;
  } else {
    void *args[] = {&a, &fp8Arg};
    grid.x = ceilDiv(N, 16);
    grid.y = ceilDiv(M, 16);
    if (int32_t s = ex.launch(shuf ? KernelId::GemmPortablePreshuffle
                                   : KernelId::GemmPortablePlain,
                              grid, block, args))
      return s;
  }
  return ex.finish();
}

} // namespace fp8q::hiprt
