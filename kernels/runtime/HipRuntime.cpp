//===- HipRuntime.cpp - The fp8q runtime ABI on a GPU ---------------------===//
//
// libfp8q_runtime_hip.so: every entry point of fp8q/Runtime/fp8q_runtime.h,
// running the kernels of kernels/src on the GPU. Operands in device (or
// managed) memory are used in place; operands in host memory (what
// mlir-runner's memref.alloc returns) are staged: the byte ranges they span
// are merged, copied to the device, and the written ones copied back.
// Validation and contract checks follow the CPU runtime's messages and
// statuses; a missing device is reported as "no HIP device".
//
//===----------------------------------------------------------------------===//

#include "HipApi.h"
#include "Launcher.h"

#include "fp8q_operand_checks.h"
#include "fp8q/Runtime/fp8q_preshuffle.h"
#include "fp8q/Runtime/fp8q_runtime.h"
#include "fp8q_kernels/GemmTile.h"
#include "fp8q_kernels/KernelArgs.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace fp8q::kern;

namespace fp8q::hiprt {

const char *const kKernelNames[(int)KernelId::Count] = {
    "fp8q_kernel_quantize_bf16",
    "fp8q_kernel_quantize_f16",
    "fp8q_kernel_quantize_f32",
    "fp8q_kernel_rms_norm_quantize_bf16",
    "fp8q_kernel_rms_norm_quantize_f16",
    "fp8q_kernel_rms_norm_quantize_f32",
    "fp8q_kernel_materialize",
    "fp8q_kernel_preshuffle",
    "fp8q_kernel_unpreshuffle",
    "fp8q_kernel_gemm_preshuffle",
    "fp8q_kernel_gemm_plain",
    "fp8q_kernel_gemm_portable_preshuffle",
    "fp8q_kernel_gemm_portable_plain",
};

namespace {

/// Status for device and driver failures (not in fp8q_status yet).
constexpr int32_t kErrDevice = FP8Q_ERR_DEVICE;

thread_local std::string lastError;

} // namespace
} // namespace fp8q::hiprt

/// The error sink of the shared checks (lib/Runtime/Common/fp8q_operand_checks.h)
/// and of everything else in this runtime.
int32_t fp8q::rt::fail(const char *entry, int32_t status, const char *fmt,
                       ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  fp8q::hiprt::lastError = std::string(entry) + ": " + msg;
  fprintf(stderr, "fp8q runtime error (hip): %s\n",
          fp8q::hiprt::lastError.c_str());
  return status;
}

void fp8q::rt::warn(const char *entry, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  fprintf(stderr, "fp8q runtime warning (hip): %s: %s\n", entry, msg);
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

/// Operands the HIP kernels read as dense rows: unit column stride and
/// rows aligned to `align` bytes.
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
        return fail(entry, kErrDevice, "staging %lld bytes: %s",
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
          return fail(entry, kErrDevice, "copying results back: %s",
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

int32_t device(const char *entry, DeviceInfo &info) {
  std::string err;
  if (!initDevice(info, err))
    return fail(entry, kErrDevice, "%s", err.c_str());
  return FP8Q_OK;
}

int32_t launch(const char *entry, KernelId id, Dim3 grid, Dim3 block,
               void **args) {
  std::string err;
  if (!launchAndWait(id, grid, block, args, err))
    return fail(entry, kErrDevice, "%s", err.c_str());
  return FP8Q_OK;
}

unsigned ceilDiv(int64_t a, int64_t b) { return (unsigned)((a + b - 1) / b); }

enum class Act { BF16, F16, F32 };
size_t actSize(Act t) { return t == Act::F32 ? 4 : 2; }

int32_t quantizeImpl(const char *entry, Act t, fp8q_memref_2d *x,
                     fp8q_memref_1d *gamma, fp8q_memref_2d *q,
                     fp8q_memref_2d *scale, fp8q_memref_2d *y, float eps,
                     int64_t group, int32_t fp8, bool rms, bool keep) {
  lastError.clear();
  const size_t es = actSize(t);
  Op xo, qo, so, yo;
  if (int32_t s = checkOperand(entry, "x", x, es, -1, -1, Access::Read, xo))
    return s;
  const int64_t M = xo.rows, K = xo.cols;
  if (int32_t s = checkGroupSize(entry, group, K))
    return s;
  if (group % 8)
    return fail(entry, FP8Q_ERR_ARG,
                "group_size %lld: the HIP kernels take multiples of 8",
                (long long)group);
  const int64_t G = K / group;
  if (int32_t s = checkFp8Type(entry, fp8))
    return s;
  if (int32_t s = checkRows(entry, "x", xo, 16))
    return s;
  char *gammaPtr = nullptr;
  if (rms) {
    fp8q::rt::View1 gv;
    if (int32_t s = checkOperand(entry, "gamma", gamma, es, K, gv))
      return s;
    if (K > 1 && gv.s0 != 1)
      return fail(entry, FP8Q_ERR_LAYOUT,
                  "operand gamma: the HIP kernels need a contiguous vector "
                  "(stride 1), got stride %lld",
                  (long long)gv.s0);
    gammaPtr = gv.base;
    if ((uintptr_t)gammaPtr % 16)
      return fail(entry, FP8Q_ERR_ALIGN,
                  "operand gamma: the HIP kernels need 16-byte alignment");
    if (!(eps >= 0.0f) || std::isinf(eps))
      return fail(entry, FP8Q_ERR_ARG,
                  "epsilon %g must be finite and non-negative", double(eps));
    if (keep) {
      if (int32_t s = checkOperand(entry, "y", y, es, M, K, Access::Write, yo))
        return s;
      if (int32_t s = checkRows(entry, "y", yo, 16))
        return s;
    }
  }
  if (int32_t s = checkOperand(entry, "q", q, 1, M, K, Access::Write, qo))
    return s;
  if (int32_t s = checkRows(entry, "q", qo, 8))
    return s;
  if (int32_t s =
          checkOperand(entry, "scale", scale, 4, M, G, Access::Write, so))
    return s;
  DeviceInfo info;
  if (int32_t s = device(entry, info))
    return s;
  Stager st(entry);
  st.add(xo.base, xo.spanBytes(), false);
  st.add(qo.base, qo.spanBytes(), true);
  st.add(so.base, so.spanBytes(), true);
  if (rms) {
    st.add(gammaPtr, K * (int64_t)es, false);
    if (keep)
      st.add(yo.base, yo.spanBytes(), true);
  }
  if (int32_t s = st.stageIn())
    return s;
  int kt = (int)t;
  if (!rms) {
    QuantArgs a{st.dev(xo.base),
                st.dev((uint8_t *)qo.base),
                st.dev((float *)so.base),
                M,
                K,
                group,
                xo.s0,
                qo.s0,
                so.s0,
                so.s1,
                fp8,
                (M > 1 && so.s0 == 1) ? 1 : 0};
    void *args[] = {&a};
    Dim3 grid, block;
    grid.x = ceilDiv(M * G, kQuantGroupsPerBlock);
    block.x = kQuantBlock;
    if (int32_t s = launch(entry, (KernelId)((int)KernelId::QuantizeBf16 + kt),
                           grid, block, args))
      return s;
  } else {
    RmsArgs a{st.dev(xo.base),
              st.dev(gammaPtr),
              st.dev((uint8_t *)qo.base),
              st.dev((float *)so.base),
              keep ? st.dev(yo.base) : nullptr,
              M,
              K,
              group,
              xo.s0,
              qo.s0,
              keep ? yo.s0 : 0,
              so.s0,
              so.s1,
              eps,
              fp8,
              keep ? 1 : 0};
    void *args[] = {&a};
    Dim3 grid, block;
    grid.x = (unsigned)M;
    block.x = kQuantBlock;
    if (int32_t s = launch(entry, (KernelId)((int)KernelId::RmsBf16 + kt), grid,
                           block, args))
      return s;
  }
  return st.stageOut();
}

int32_t materializeImpl(const char *entry, fp8q_memref_2d *src,
                        fp8q_memref_2d *dst) {
  lastError.clear();
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
  if (int32_t s = device(entry, info))
    return s;
  Stager st(entry);
  st.add(so.base, so.spanBytes(), false);
  st.add(d.base, d.spanBytes(), true);
  if (int32_t s = st.stageIn())
    return s;
  const float *sdev = st.dev((const float *)so.base);
  float *ddev = st.dev((float *)d.base);
  Dim3 grid, block;
  grid.x = ceilDiv(G, kTransTile);
  grid.y = ceilDiv(M, kTransTile);
  block.x = kTransBlock;
  const bool overlap = fp8q::rt::rangesOverlap(so, d);
  if (!overlap) {
    MaterializeArgs a{sdev, ddev, M, G, so.s0, so.s1, d.s0, d.s1};
    void *args[] = {&a};
    if (int32_t s = launch(entry, KernelId::Materialize, grid, block, args))
      return s;
  } else {
    // Different layouts over the same bytes: through a temporary.
    float *tmp = nullptr;
    hipError_t e = hipMalloc((void **)&tmp, M * G * 4);
    if (e != hipSuccess)
      return fail(entry, kErrDevice, "hipMalloc: %s", hipGetErrorString(e));
    MaterializeArgs a{sdev, tmp, M, G, so.s0, so.s1, G, 1};
    MaterializeArgs b{tmp, ddev, M, G, G, 1, d.s0, d.s1};
    void *aa[] = {&a}, *ba[] = {&b};
    int32_t s = launch(entry, KernelId::Materialize, grid, block, aa);
    if (!s)
      s = launch(entry, KernelId::Materialize, grid, block, ba);
    (void)hipFree(tmp);
    if (s)
      return s;
  }
  return st.stageOut();
}

int32_t preshuffleImpl(const char *entry, fp8q_memref_2d *src,
                       fp8q_memref_2d *dst, bool inverse) {
  lastError.clear();
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
  if (int32_t s = device(entry, info))
    return s;
  Stager st(entry);
  st.add(plain.base, plain.spanBytes(), inverse);
  st.add(shuf.base, N * K, !inverse);
  if (int32_t s = st.stageIn())
    return s;
  PreshuffleArgs a{st.dev((const uint8_t *)so.base), st.dev((uint8_t *)d.base),
                   N, K, plain.s0};
  void *args[] = {&a};
  Dim3 grid, block;
  grid.x = ceilDiv(N * K / 16, 256);
  block.x = 256;
  if (int32_t s =
          launch(entry, inverse ? KernelId::Unpreshuffle : KernelId::Preshuffle,
                 grid, block, args))
    return s;
  return st.stageOut();
}

int32_t gemmImpl(const char *entry, fp8q_memref_2d *q, fp8q_memref_2d *xs,
                 fp8q_memref_2d *w, fp8q_memref_2d *ws, fp8q_memref_2d *out,
                 int32_t kernel, int32_t fp8, int32_t weightLayout) {
  lastError.clear();
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
  if (int32_t s = device(entry, info))
    return s;
  const int64_t xsSpan = ((M - 1) * xs0 + (G - 1) * xs1 + 1) * 4;
  Stager st(entry);
  st.add(qo.base, qo.spanBytes(), false);
  st.add(xo.base, xsSpan, false);
  st.add(wo.base, shuf ? N * K : wo.spanBytes(), false);
  st.add(wso.base, wso.spanBytes(), false);
  st.add(oo.base, oo.spanBytes(), true);
  if (int32_t s = st.stageIn())
    return s;
  GemmArgs a{st.dev((const uint8_t *)qo.base),
             st.dev((const float *)xo.base),
             st.dev((const uint8_t *)wo.base),
             st.dev((const float *)wso.base),
             st.dev((uint16_t *)oo.base),
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
  int32_t fp8Arg = plan.readType;
  Dim3 grid, block;
  block.x = 256;
  // The MFMA kernels when the device's matrix unit reads this fp8 flavour.
  if (info.hasMfma && info.mfmaFp8 == plan.readType && N % 16 == 0) {
    void *args[] = {&a};
    grid.x = (unsigned)gemmBlocksN(N);
    grid.y = (unsigned)gemmBlocksM(M);
    if (int32_t s =
            launch(entry, shuf ? KernelId::GemmPreshuffle : KernelId::GemmPlain,
                   grid, block, args))
      return s;
  } else {
    void *args[] = {&a, &fp8Arg};
    grid.x = ceilDiv(N, 16);
    grid.y = ceilDiv(M, 16);
    if (int32_t s = launch(entry,
                           shuf ? KernelId::GemmPortablePreshuffle
                                : KernelId::GemmPortablePlain,
                           grid, block, args))
      return s;
  }
  return st.stageOut();
}

/// _mlir_ciface_ entry points exit on error (MLIR ignores results).
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
    return quantizeImpl("fp8q_quantize_" #SUFFIX, ACT, x, nullptr, q, scale,   \
                        nullptr, 0.0f, group, fp8, false, false);              \
  }                                                                            \
  int32_t _mlir_ciface_fp8q_rt_quantize_##SUFFIX(                              \
      fp8q_memref_2d *x, fp8q_memref_2d *q, fp8q_memref_2d *scale,             \
      int64_t group, int32_t fp8) {                                            \
    return orExit(quantizeImpl("fp8q_rt_quantize_" #SUFFIX, ACT, x, nullptr,   \
                               q, scale, nullptr, 0.0f, group, fp8, false,     \
                               false));                                        \
  }                                                                            \
  int32_t fp8q_rms_norm_quantize_##SUFFIX(                                     \
      fp8q_memref_2d *x, fp8q_memref_1d *gamma, fp8q_memref_2d *q,             \
      fp8q_memref_2d *scale, fp8q_memref_2d *y, float eps, int64_t group,      \
      int32_t fp8, int32_t keep) {                                             \
    return quantizeImpl("fp8q_rms_norm_quantize_" #SUFFIX, ACT, x, gamma, q,   \
                        scale, y, eps, group, fp8, true, keep != 0);           \
  }                                                                            \
  int32_t _mlir_ciface_fp8q_rt_rms_norm_quantize_##SUFFIX(                     \
      fp8q_memref_2d *x, fp8q_memref_1d *gamma, fp8q_memref_2d *q,             \
      fp8q_memref_2d *scale, fp8q_memref_2d *y, float eps, int64_t group,      \
      int32_t fp8, int32_t keep) {                                             \
    return orExit(quantizeImpl("fp8q_rt_rms_norm_quantize_" #SUFFIX, ACT, x,   \
                               gamma, q, scale, y, eps, group, fp8, true,      \
                               keep != 0));                                    \
  }

FP8Q_QUANT_ENTRIES(bf16, Act::BF16)
FP8Q_QUANT_ENTRIES(f16, Act::F16)
FP8Q_QUANT_ENTRIES(f32, Act::F32)

int32_t fp8q_materialize(fp8q_memref_2d *src, fp8q_memref_2d *dst) {
  return materializeImpl("fp8q_kernel_materialize", src, dst);
}
int32_t _mlir_ciface_fp8q_rt_materialize(fp8q_memref_2d *src,
                                         fp8q_memref_2d *dst) {
  return orExit(materializeImpl("fp8q_rt_materialize", src, dst));
}
int32_t fp8q_preshuffle(fp8q_memref_2d *w, fp8q_memref_2d *dst) {
  return preshuffleImpl("fp8q_kernel_preshuffle", w, dst, false);
}
int32_t _mlir_ciface_fp8q_rt_preshuffle(fp8q_memref_2d *w,
                                        fp8q_memref_2d *dst) {
  return orExit(preshuffleImpl("fp8q_rt_preshuffle", w, dst, false));
}
int32_t fp8q_unpreshuffle(fp8q_memref_2d *src, fp8q_memref_2d *dst) {
  return preshuffleImpl("fp8q_kernel_unpreshuffle", src, dst, true);
}
int32_t fp8q_gemm(fp8q_memref_2d *q, fp8q_memref_2d *xs, fp8q_memref_2d *w,
                  fp8q_memref_2d *ws, fp8q_memref_2d *out, int32_t kernel,
                  int32_t fp8, int32_t weightLayout) {
  return gemmImpl("fp8q_gemm", q, xs, w, ws, out, kernel, fp8, weightLayout);
}
int32_t _mlir_ciface_fp8q_rt_gemm(fp8q_memref_2d *q, fp8q_memref_2d *xs,
                                  fp8q_memref_2d *w, fp8q_memref_2d *ws,
                                  fp8q_memref_2d *out, int32_t kernel,
                                  int32_t fp8, int32_t weightLayout) {
  return orExit(
      gemmImpl("fp8q_rt_gemm", q, xs, w, ws, out, kernel, fp8, weightLayout));
}
const char *fp8q_last_error(void) { return lastError.c_str(); }
const char *fp8q_status_name(int32_t s) { return fp8q::rt::statusName(s); }

} // extern "C"
