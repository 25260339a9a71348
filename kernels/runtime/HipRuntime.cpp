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

int32_t fail(const char *entry, int32_t status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int32_t fail(const char *entry, int32_t status, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  lastError = std::string(entry) + ": " + msg;
  fprintf(stderr, "fp8q runtime error (hip): %s\n", lastError.c_str());
  return status;
}

bool uncheckedMode() {
  const char *v = getenv("FP8Q_RT_UNCHECKED");
  return v && strcmp(v, "1") == 0;
}

/// A validated rank-2 operand: element (i, j) at ptr + (i*s0 + j*s1) * esz.
struct Op {
  char *ptr = nullptr;
  int64_t rows = 0, cols = 0, s0 = 0, s1 = 0;
  size_t esz = 0;
  int64_t span() const { // bytes from ptr to the end of the last element
    return ((rows - 1) * s0 + (cols - 1) * s1 + 1) * (int64_t)esz;
  }
};

int32_t checkOp(const char *entry, const char *name, const fp8q_memref_2d *d,
                size_t esz, int64_t rows, int64_t cols, bool written, Op &op) {
  if (!d)
    return fail(entry, FP8Q_ERR_NULL, "operand %s: null descriptor", name);
  if (d->sizes[0] == 0 || d->sizes[1] == 0)
    return fail(entry, FP8Q_ERR_EMPTY, "operand %s is empty (%lld x %lld)",
                name, (long long)d->sizes[0], (long long)d->sizes[1]);
  if (!d->aligned)
    return fail(entry, FP8Q_ERR_NULL, "operand %s: null data pointer", name);
  if (d->sizes[0] < 0 || d->sizes[1] < 0 || d->offset < 0 ||
      d->strides[0] < 0 || d->strides[1] < 0)
    return fail(entry, FP8Q_ERR_LAYOUT,
                "operand %s: negative size, offset or stride", name);
  if ((rows >= 0 && d->sizes[0] != rows) || (cols >= 0 && d->sizes[1] != cols))
    return fail(entry, FP8Q_ERR_SHAPE,
                "operand %s has shape %lld x %lld, expected %lld x %lld", name,
                (long long)d->sizes[0], (long long)d->sizes[1],
                (long long)(rows >= 0 ? rows : d->sizes[0]),
                (long long)(cols >= 0 ? cols : d->sizes[1]));
  op.ptr = (char *)d->aligned + d->offset * (int64_t)esz;
  op.rows = d->sizes[0];
  op.cols = d->sizes[1];
  op.s0 = d->strides[0];
  op.s1 = d->strides[1];
  op.esz = esz;
  if ((uintptr_t)op.ptr % esz)
    return fail(entry, FP8Q_ERR_ALIGN,
                "operand %s: data pointer not aligned to %zu bytes", name, esz);
  if (written) {
    // Distinct elements need distinct addresses: with the extents > 1
    // sorted by stride, each stride must step over the previous extent.
    int64_t st[2] = {op.s0, op.s1}, n[2] = {op.rows, op.cols};
    if (st[0] > st[1]) {
      std::swap(st[0], st[1]);
      std::swap(n[0], n[1]);
    }
    bool ok = true;
    int64_t reach = 1; // elements spanned by the smaller dimensions
    for (int i = 0; i < 2; ++i) {
      if (n[i] == 1)
        continue;
      ok = ok && st[i] >= reach;
      reach = st[i] * n[i];
    }
    if (!ok)
      return fail(entry, FP8Q_ERR_LAYOUT,
                  "operand %s: strides (%lld, %lld) make elements overlap",
                  name, (long long)op.s0, (long long)op.s1);
  }
  return FP8Q_OK;
}

/// Operands the HIP kernels read as dense rows: unit column stride and
/// rows aligned to `align` bytes.
int32_t checkRows(const char *entry, const char *name, const Op &op,
                  size_t align) {
  if ((op.cols > 1 && op.s1 != 1) || (uintptr_t)op.ptr % align ||
      (op.rows > 1 && (op.s0 * (int64_t)op.esz) % (int64_t)align))
    return fail(entry, FP8Q_ERR_LAYOUT,
                "operand %s: the HIP kernels need a unit column stride and "
                "%zu-byte aligned rows (strides (%lld, %lld))",
                name, align, (long long)op.s0, (long long)op.s1);
  return FP8Q_OK;
}

int32_t checkFp8(const char *entry, int32_t t) {
  if (t != FP8Q_F8E4M3FN && t != FP8Q_F8E4M3FNUZ)
    return fail(entry, FP8Q_ERR_ARG,
                "fp8_type %d is not an fp8q_fp8_type (0 = f8E4M3FN, "
                "1 = f8E4M3FNUZ)",
                t);
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
  if (int32_t s = checkOp(entry, "x", x, es, -1, -1, false, xo))
    return s;
  const int64_t M = xo.rows, K = xo.cols;
  if (group <= 0 || K % group)
    return fail(entry, FP8Q_ERR_ARG,
                "group_size %lld must be positive and divide K = %lld",
                (long long)group, (long long)K);
  if (group % 8)
    return fail(entry, FP8Q_ERR_ARG,
                "group_size %lld: the HIP kernels take multiples of 8",
                (long long)group);
  const int64_t G = K / group;
  if (int32_t s = checkFp8(entry, fp8))
    return s;
  if (int32_t s = checkRows(entry, "x", xo, 16))
    return s;
  char *gammaPtr = nullptr;
  if (rms) {
    if (!gamma || !gamma->aligned || gamma->sizes[0] != K ||
        (K > 1 && gamma->strides[0] != 1))
      return fail(entry, FP8Q_ERR_SHAPE,
                  "operand gamma must be a contiguous [%lld] vector",
                  (long long)K);
    gammaPtr = (char *)gamma->aligned + gamma->offset * (int64_t)es;
    if ((uintptr_t)gammaPtr % 16)
      return fail(entry, FP8Q_ERR_ALIGN,
                  "operand gamma: the HIP kernels need 16-byte alignment");
    if (!(eps >= 0.0f) || std::isinf(eps))
      return fail(entry, FP8Q_ERR_ARG,
                  "epsilon %g must be finite and non-negative", double(eps));
    if (keep) {
      if (int32_t s = checkOp(entry, "y", y, es, M, K, true, yo))
        return s;
      if (int32_t s = checkRows(entry, "y", yo, 16))
        return s;
    }
  }
  if (int32_t s = checkOp(entry, "q", q, 1, M, K, true, qo))
    return s;
  if (int32_t s = checkRows(entry, "q", qo, 8))
    return s;
  if (int32_t s = checkOp(entry, "scale", scale, 4, M, G, true, so))
    return s;
  DeviceInfo info;
  if (int32_t s = device(entry, info))
    return s;
  Stager st(entry);
  st.add(xo.ptr, xo.span(), false);
  st.add(qo.ptr, qo.span(), true);
  st.add(so.ptr, so.span(), true);
  if (rms) {
    st.add(gammaPtr, K * (int64_t)es, false);
    if (keep)
      st.add(yo.ptr, yo.span(), true);
  }
  if (int32_t s = st.stageIn())
    return s;
  int kt = (int)t;
  if (!rms) {
    QuantArgs a{st.dev(xo.ptr),
                st.dev((uint8_t *)qo.ptr),
                st.dev((float *)so.ptr),
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
    RmsArgs a{st.dev(xo.ptr),
              st.dev(gammaPtr),
              st.dev((uint8_t *)qo.ptr),
              st.dev((float *)so.ptr),
              keep ? st.dev(yo.ptr) : nullptr,
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
  if (int32_t s = checkOp(entry, "src", src, 4, -1, -1, false, so))
    return s;
  if (int32_t s = checkOp(entry, "dst", dst, 4, so.rows, so.cols, true, d))
    return s;
  const int64_t M = so.rows, G = so.cols;
  // Equal layouts (SPEC): the same bytes for every element, no copy.
  if (so.ptr == d.ptr && (M == 1 || so.s0 == d.s0) && (G == 1 || so.s1 == d.s1))
    return FP8Q_OK;
  DeviceInfo info;
  if (int32_t s = device(entry, info))
    return s;
  Stager st(entry);
  st.add(so.ptr, so.span(), false);
  st.add(d.ptr, d.span(), true);
  if (int32_t s = st.stageIn())
    return s;
  const float *sdev = st.dev((const float *)so.ptr);
  float *ddev = st.dev((float *)d.ptr);
  Dim3 grid, block;
  grid.x = ceilDiv(G, kTransTile);
  grid.y = ceilDiv(M, kTransTile);
  block.x = kTransBlock;
  const bool overlap = so.ptr < d.ptr + d.span() && d.ptr < so.ptr + so.span();
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
  if (int32_t s = checkOp(entry, "src", src, 1, -1, -1, false, so))
    return s;
  const int64_t N = so.rows, K = so.cols;
  if (N % 16 || K % 32)
    return fail(entry, FP8Q_ERR_SHAPE,
                "preshuffle_16x16 needs N %% 16 == 0 and K %% 32 == 0, got "
                "%lld x %lld",
                (long long)N, (long long)K);
  if (int32_t s = checkOp(entry, "dst", dst, 1, N, K, true, d))
    return s;
  const Op &plain = inverse ? d : so, &shuf = inverse ? so : d;
  if (!inverse && (d.s0 != K || d.s1 != 1))
    return fail(entry, FP8Q_ERR_LAYOUT,
                "operand dst must be dense (strides (%lld, 1)), has (%lld, "
                "%lld)",
                (long long)K, (long long)d.s0, (long long)d.s1);
  if (int32_t s = checkRows(entry, inverse ? "dst" : "src", plain, 16))
    return s;
  if ((uintptr_t)shuf.ptr % 16)
    return fail(entry, FP8Q_ERR_ALIGN,
                "the preshuffled buffer must be 16-byte aligned");
  if (so.ptr < d.ptr + d.span() && d.ptr < so.ptr + so.span())
    return fail(entry, FP8Q_ERR_LAYOUT, "src and dst overlap");
  DeviceInfo info;
  if (int32_t s = device(entry, info))
    return s;
  Stager st(entry);
  st.add(plain.ptr, plain.span(), inverse);
  st.add(shuf.ptr, N * K, !inverse);
  if (int32_t s = st.stageIn())
    return s;
  PreshuffleArgs a{st.dev((const uint8_t *)so.ptr), st.dev((uint8_t *)d.ptr), N,
                   K, plain.s0};
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
  if (kernel < 0 || kernel >= FP8Q_KERNEL_COUNT)
    return fail(entry, FP8Q_ERR_ARG, "kernel %d is not an fp8q_kernel (0..%d)",
                kernel, FP8Q_KERNEL_COUNT - 1);
  if (int32_t s = checkFp8(entry, fp8))
    return s;
  if (weightLayout != FP8Q_WEIGHT_LAYOUT_PLAIN &&
      weightLayout != FP8Q_WEIGHT_LAYOUT_PRESHUFFLE_16X16)
    return fail(entry, FP8Q_ERR_ARG,
                "weight_layout %d is not 0 (plain) or 1 (preshuffle_16x16)",
                weightLayout);
  const fp8q_kernel_contract &c = fp8q_kernel_contracts[kernel];
  Op qo, xo, wo, wso, oo;
  if (int32_t s = checkOp(entry, "q", q, 1, -1, -1, false, qo))
    return s;
  const int64_t M = qo.rows, K = qo.cols;
  if (int32_t s = checkOp(entry, "x_scale", xs, 4, M, -1, false, xo))
    return s;
  const int64_t G = xo.cols;
  if (K != G * kGroup)
    return fail(entry, FP8Q_ERR_ARG,
                "the HIP GEMM kernels take 1x128 groups: K = %lld but x_scale "
                "has %lld groups",
                (long long)K, (long long)G);
  if (int32_t s = checkOp(entry, "w", w, 1, -1, K, false, wo))
    return s;
  const int64_t N = wo.rows, NB = (N + 127) / 128;
  if (int32_t s = checkOp(entry, "w_scale", ws, 4, NB, G, false, wso))
    return s;
  if (int32_t s = checkOp(entry, "out", out, 2, M, N, true, oo))
    return s;
  if (int32_t s = checkRows(entry, "q", qo, 16))
    return s;
  if (int32_t s = checkRows(entry, "out", oo, 2))
    return s;

  const bool unchecked = uncheckedMode();
  auto violation = [&](const char *msg) -> int32_t {
    if (!unchecked)
      return fail(entry, FP8Q_ERR_CONTRACT, "%s", msg);
    fprintf(stderr,
            "fp8q runtime warning (hip): %s: %s (FP8Q_RT_UNCHECKED=1)\n", entry,
            msg);
    return FP8Q_OK;
  };
  char msg[256];
  // The activation scale strides the kernel reads, from the contract.
  int64_t xs0 = xo.s0, xs1 = xo.s1;
  if (c.x_scale != FP8Q_SCALE_ANY) {
    int64_t ld = (M + c.x_scale_align - 1) / c.x_scale_align * c.x_scale_align;
    xs0 = c.x_scale == FP8Q_SCALE_ROW_MAJOR ? G : 1;
    xs1 = c.x_scale == FP8Q_SCALE_ROW_MAJOR ? 1 : ld;
    if (!fp8q_scale_strides_ok(fp8q_kernel(kernel), M, G, xo.s0, xo.s1)) {
      snprintf(msg, sizeof(msg),
               "operand x_scale of kernel %s must have strides (%lld, %lld) "
               "but has (%lld, %lld) [M=%lld, G=%lld]",
               c.name, (long long)xs0, (long long)xs1, (long long)xo.s0,
               (long long)xo.s1, (long long)M, (long long)G);
      if (int32_t s = violation(msg))
        return s;
    }
  }
  bool shuf = weightLayout == FP8Q_WEIGHT_LAYOUT_PRESHUFFLE_16X16;
  if ((c.weight == FP8Q_WEIGHT_PRESHUFFLE_16X16) != shuf &&
      c.weight != FP8Q_WEIGHT_ANY) {
    snprintf(msg, sizeof(msg), "operand w of kernel %s must be %s", c.name,
             shuf ? "plain [N, K] but is preshuffle_16x16"
                  : "preshuffle_16x16 but is plain");
    if (int32_t s = violation(msg))
      return s;
    shuf = !shuf;
  }
  if (c.fp8 == FP8Q_FP8_E4M3FN && fp8 != FP8Q_F8E4M3FN) {
    snprintf(msg, sizeof(msg), "kernel %s reads f8E4M3FN, got fp8_type %d",
             c.name, fp8);
    if (int32_t s = violation(msg))
      return s;
  }
  if (shuf && (N % 16 || K % 32))
    return fail(entry, FP8Q_ERR_SHAPE,
                "a preshuffle_16x16 weight needs N %% 16 == 0 (N = %lld)",
                (long long)N);
  if (!shuf)
    if (int32_t s = checkRows(entry, "w", wo, 16))
      return s;
  if (shuf && (uintptr_t)wo.ptr % 16)
    return fail(entry, FP8Q_ERR_ALIGN,
                "operand w: the preshuffled weight must be 16-byte aligned");
  DeviceInfo info;
  if (int32_t s = device(entry, info))
    return s;
  const int64_t xsSpan = ((M - 1) * xs0 + (G - 1) * xs1 + 1) * 4;
  Stager st(entry);
  st.add(qo.ptr, qo.span(), false);
  st.add(xo.ptr, xsSpan, false);
  st.add(wo.ptr, shuf ? N * K : wo.span(), false);
  st.add(wso.ptr, wso.span(), false);
  st.add(oo.ptr, oo.span(), true);
  if (int32_t s = st.stageIn())
    return s;
  GemmArgs a{st.dev((const uint8_t *)qo.ptr),
             st.dev((const float *)xo.ptr),
             st.dev((const uint8_t *)wo.ptr),
             st.dev((const float *)wso.ptr),
             st.dev((uint16_t *)oo.ptr),
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
  int32_t fp8Arg = fp8;
  Dim3 grid, block;
  block.x = 256;
  // The MFMA kernels when the device's matrix unit reads this fp8 flavour.
  if (info.hasMfma && info.mfmaFp8 == fp8 && N % 16 == 0) {
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
const char *fp8q_status_name(int32_t s) {
  switch (s) {
  case FP8Q_OK:
    return "FP8Q_OK";
  case FP8Q_ERR_NULL:
    return "FP8Q_ERR_NULL";
  case FP8Q_ERR_ALIGN:
    return "FP8Q_ERR_ALIGN";
  case FP8Q_ERR_SHAPE:
    return "FP8Q_ERR_SHAPE";
  case FP8Q_ERR_EMPTY:
    return "FP8Q_ERR_EMPTY";
  case FP8Q_ERR_ARG:
    return "FP8Q_ERR_ARG";
  case FP8Q_ERR_LAYOUT:
    return "FP8Q_ERR_LAYOUT";
  case FP8Q_ERR_CONTRACT:
    return "FP8Q_ERR_CONTRACT";
  case kErrDevice:
    return "FP8Q_ERR_DEVICE";
  default:
    return "unknown fp8q status";
  }
}

} // extern "C"
