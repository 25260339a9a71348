//===- hip_kernels_h200.cu - fp8q HIP kernels on an NVIDIA GPU ------------===//
//
// Built by bench/run_h200.sh with nvcc for sm_90 from the same kernel sources
// as the gfx950/gfx942 code objects (through kernels/cuda/hip_on_cuda.h).
//  1. Correctness: the HIP runtime ABI (lib/Runtime/Gpu/HostAbi.cpp on
//     CUDA) against the CPU reference runtime (libfp8q_runtime_cpu.so,
//     loaded with dlopen since both export the same ABI): quantize,
//     materialize, preshuffle bit-exact; rms_norm_quantize and the portable
//     GEMM within tolerance.
//  2. Bandwidth and latency, all in this one process with CUDA events:
//     materialize and quantize against a device-to-device copy of the same
//     bytes and an empty kernel launch, at decode and prefill sizes.
// Arguments: <libfp8q_runtime_cpu.so> [--no-bench | --bench-only | --quant
// (the quantize and rms_norm_quantize checks and rows only) |
// --quant-bench (their rows only)].
//
//===----------------------------------------------------------------------===//

#include "GpuApi.h"

#include "fp8q/Runtime/fp8q_runtime.h"
#include "fp8q_kernels/GemmTile.h"
#include "fp8q_kernels/IndexMath.h"
#include "fp8q_kernels/KernelArgs.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace fp8q::kern;

// The kernels (compiled into LauncherCuda.cu's translation unit).
extern "C" __global__ void fp8q_kernel_quantize_bf16(QuantArgs);
extern "C" __global__ void fp8q_kernel_materialize(MaterializeArgs);
extern "C" __global__ void fp8q_kernel_rms_norm_quantize_bf16(RmsArgs);

__global__ void emptyKernel() {}

namespace {

#define CK(x)                                                                  \
  do {                                                                         \
    hipError_t e_ = (x);                                                       \
    if (e_ != hipSuccess) {                                                    \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,               \
              hipGetErrorString(e_));                                          \
      exit(2);                                                                 \
    }                                                                          \
  } while (0)

// ---------------------------------------------------------------------------
// The CPU reference runtime, through dlopen.
// ---------------------------------------------------------------------------
typedef int32_t (*QuantFn)(fp8q_memref_2d *, fp8q_memref_2d *, fp8q_memref_2d *,
                           int64_t, int32_t);
typedef int32_t (*RmsFn)(fp8q_memref_2d *, fp8q_memref_1d *, fp8q_memref_2d *,
                         fp8q_memref_2d *, fp8q_memref_2d *, float, int64_t,
                         int32_t, int32_t);
typedef int32_t (*MatFn)(fp8q_memref_2d *, fp8q_memref_2d *);
typedef int32_t (*GemmFn)(fp8q_memref_2d *, fp8q_memref_2d *, fp8q_memref_2d *,
                          fp8q_memref_2d *, fp8q_memref_2d *, int32_t, int32_t,
                          int32_t);
typedef const char *(*ErrFn)(void);

struct CpuRuntime {
  QuantFn quantBf16, quantF16, quantF32;
  RmsFn rmsBf16;
  MatFn materialize, preshuffle;
  GemmFn gemm;
  ErrFn lastError;
  bool load(const char *path) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
      return false;
    }
    quantBf16 = (QuantFn)dlsym(h, "fp8q_quantize_bf16");
    quantF16 = (QuantFn)dlsym(h, "fp8q_quantize_f16");
    quantF32 = (QuantFn)dlsym(h, "fp8q_quantize_f32");
    rmsBf16 = (RmsFn)dlsym(h, "fp8q_rms_norm_quantize_bf16");
    materialize = (MatFn)dlsym(h, "fp8q_materialize");
    preshuffle = (MatFn)dlsym(h, "fp8q_preshuffle");
    gemm = (GemmFn)dlsym(h, "fp8q_gemm");
    lastError = (ErrFn)dlsym(h, "fp8q_last_error");
    return quantBf16 && quantF16 && quantF32 && rmsBf16 && materialize &&
           preshuffle && gemm && lastError;
  }
} cpu;

fp8q_memref_2d md(void *p, int64_t r, int64_t c, int64_t s0, int64_t s1) {
  fp8q_memref_2d d;
  d.allocated = d.aligned = p;
  d.offset = 0;
  d.sizes[0] = r;
  d.sizes[1] = c;
  d.strides[0] = s0;
  d.strides[1] = s1;
  return d;
}

/// A device buffer mirroring a host vector.
template <class T> struct Dev {
  T *p = nullptr;
  size_t n = 0;
  explicit Dev(size_t n) : n(n) { CK(hipMalloc((void **)&p, n * sizeof(T))); }
  Dev(const std::vector<T> &h) : Dev(h.size()) { up(h); }
  ~Dev() { (void)hipFree(p); }
  void up(const std::vector<T> &h) {
    CK(hipMemcpy(p, h.data(), n * sizeof(T), hipMemcpyHostToDevice));
  }
  std::vector<T> down() const {
    std::vector<T> h(n);
    CK(hipMemcpy(h.data(), p, n * sizeof(T), hipMemcpyDeviceToHost));
    return h;
  }
};

int failures = 0, checks = 0;
void report(bool ok, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void report(bool ok, const char *fmt, ...) {
  ++checks;
  if (!ok)
    ++failures;
  va_list ap;
  va_start(ap, fmt);
  printf("%s ", ok ? "PASS" : "FAIL");
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
}

std::mt19937 rng(12345);

std::vector<uint16_t> randomBf16(size_t n, float sigma) {
  std::normal_distribution<float> nd(0.0f, sigma);
  std::vector<uint16_t> v(n);
  for (size_t i = 0; i < n; ++i) {
    float x = nd(rng);
    if (i % 211 == 0)
      x *= 300.0f; // outliers set group maxima
    if (i % 389 == 0)
      x = 0.0f;
    v[i] = fp8q_f32_to_bf16(x);
  }
  return v;
}

/// Scale strides of the layouts: row_major, col_major, col_major align 4.
struct Layout {
  const char *name;
  int64_t s0, s1, elems;
};
Layout layoutOf(int which, int64_t M, int64_t G) {
  int64_t ld4 = (M + 3) / 4 * 4;
  if (which == 0)
    return {"row_major", G, 1, M * G};
  if (which == 1)
    return {"col_major", 1, M, M * G};
  return {"col_major_align4", 1, ld4, ld4 * G};
}

// ---------------------------------------------------------------------------
// Correctness
// ---------------------------------------------------------------------------
/// Puts special values into x (row-major [M, K], groups of `group`): NaN,
/// infinities, -0, all-zero and all-(-0) groups, bf16 subnormals, values
/// near the bf16 maximum, and a NaN as the largest |x| of a group.
void addSpecials(std::vector<uint16_t> &x, int64_t M, int64_t K,
                 int64_t group) {
  const int64_t G = K / group;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t g = 0; g < G; ++g) {
      uint16_t *p = x.data() + m * K + g * group;
      switch ((m * G + g) % 11) {
      case 0: // one NaN (either sign)
        p[(m + g) % group] = (m & 1) ? 0xffc1 : 0x7fc0;
        break;
      case 1: // +inf: scale inf, every byte through the software path
        p[(3 * m + g) % group] = 0x7f80;
        break;
      case 2: // -inf and a NaN
        p[g % group] = 0xff80;
        p[(g + 5) % group] = 0x7f81;
        break;
      case 3: // all zeros
        for (int64_t i = 0; i < group; ++i)
          p[i] = 0;
        break;
      case 4: // all -0
        for (int64_t i = 0; i < group; ++i)
          p[i] = 0x8000;
        break;
      case 5: // -0 among ordinary values
        for (int64_t i = 0; i < group; i += 3)
          p[i] = 0x8000;
        break;
      case 6: // bf16 subnormals only (amax < 1e-10: the scale floor)
        for (int64_t i = 0; i < group; ++i)
          p[i] = (uint16_t)((i & 1 ? 0x8000 : 0) | (1 + (i * 7) % 127));
        break;
      case 7: // near the bf16 maximum
        for (int64_t i = 0; i < group; ++i)
          p[i] = (uint16_t)((i & 1 ? 0xff00 : 0x7f00) | (i * 5) % 128);
        break;
      case 8: // NaNs only
        for (int64_t i = 0; i < group; ++i)
          p[i] = (uint16_t)(0x7fc0 | (i & 1) << 15);
        break;
      default:
        break;
      }
    }
}

void checkQuantize(int64_t M, int64_t K, int layout, int fp8, bool staged,
                   int64_t group = 128, bool specials = false) {
  const int64_t G = K / group;
  Layout L = layoutOf(layout, M, G);
  std::vector<uint16_t> x = randomBf16(M * K, 2.0f);
  if (specials)
    addSpecials(x, M, K, group);
  std::vector<uint8_t> qc(M * K);
  std::vector<float> sc(L.elems, -1.0f);
  fp8q_memref_2d xd = md(x.data(), M, K, K, 1), qd = md(qc.data(), M, K, K, 1),
                 sd = md(sc.data(), M, G, L.s0, L.s1);
  if (cpu.quantBf16(&xd, &qd, &sd, group, fp8)) {
    report(false, "cpu quantize: %s", cpu.lastError());
    return;
  }
  std::vector<uint8_t> qg;
  std::vector<float> sg(L.elems, -1.0f);
  int32_t st;
  if (staged) { // host pointers: the runtime stages them
    qg.assign(M * K, 0);
    fp8q_memref_2d q2 = md(qg.data(), M, K, K, 1),
                   s2 = md(sg.data(), M, G, L.s0, L.s1);
    st = fp8q_quantize_bf16(&xd, &q2, &s2, group, fp8);
  } else {
    Dev<uint16_t> dx(x);
    Dev<uint8_t> dq(M * K);
    Dev<float> ds(sg);
    fp8q_memref_2d x2 = md(dx.p, M, K, K, 1), q2 = md(dq.p, M, K, K, 1),
                   s2 = md(ds.p, M, G, L.s0, L.s1);
    st = fp8q_quantize_bf16(&x2, &q2, &s2, group, fp8);
    qg = dq.down();
    sg = ds.down();
  }
  int64_t qdiff = 0, sdiff = 0;
  for (int64_t i = 0; i < M * K; ++i)
    qdiff += qg[i] != qc[i];
  for (int64_t i = 0; i < L.elems; ++i)
    sdiff += memcmp(&sg[i], &sc[i], 4) != 0;
  report(st == 0 && qdiff == 0 && sdiff == 0,
         "quantize bf16 M=%lld K=%lld group=%lld %s %s%s%s: q bytes differing "
         "%lld, scale words differing %lld (bit-exact vs CPU runtime)",
         (long long)M, (long long)K, (long long)group, L.name,
         fp8 ? "e4m3fnuz" : "e4m3fn", staged ? " (host memory, staged)" : "",
         specials ? " (NaN, inf, -0, subnormals)" : "", (long long)qdiff,
         (long long)sdiff);
}

void checkQuantizeOther(int64_t M, int64_t K, bool f32) {
  const int64_t G = K / 128;
  std::normal_distribution<float> nd(0.0f, 1.5f);
  std::vector<uint32_t> x(M * K);
  for (auto &v : x) {
    float f = nd(rng);
    if (f32)
      memcpy(&v, &f, 4);
    else
      v = fp8q_f32_to_f16(f);
  }
  size_t es = f32 ? 4 : 2;
  std::vector<uint8_t> xb(M * K * es);
  for (int64_t i = 0; i < M * K; ++i)
    memcpy(&xb[i * es], &x[i], es);
  std::vector<uint8_t> qc(M * K), qg(M * K);
  std::vector<float> sc(M * G), sg(M * G);
  fp8q_memref_2d xd = md(xb.data(), M, K, K, 1), qd = md(qc.data(), M, K, K, 1),
                 sd = md(sc.data(), M, G, 1, M);
  (f32 ? cpu.quantF32 : cpu.quantF16)(&xd, &qd, &sd, 128, 0);
  fp8q_memref_2d q2 = md(qg.data(), M, K, K, 1), s2 = md(sg.data(), M, G, 1, M);
  int32_t st =
      (f32 ? fp8q_quantize_f32 : fp8q_quantize_f16)(&xd, &q2, &s2, 128, 0);
  report(st == 0 && qg == qc && memcmp(sg.data(), sc.data(), 4 * M * G) == 0,
         "quantize %s M=%lld K=%lld col_major: bit-exact vs CPU runtime",
         f32 ? "f32" : "f16", (long long)M, (long long)K);
}

void checkRms(int64_t M, int64_t K) {
  const int64_t G = K / 128;
  std::vector<uint16_t> x = randomBf16(M * K, 1.0f),
                        gamma = randomBf16(K, 1.0f);
  std::vector<uint8_t> qc(M * K), qg(M * K);
  std::vector<float> sc(M * G), sg(M * G);
  std::vector<uint16_t> yc(M * K), yg(M * K);
  fp8q_memref_1d gd;
  gd.allocated = gd.aligned = gamma.data();
  gd.offset = 0;
  gd.sizes[0] = K;
  gd.strides[0] = 1;
  fp8q_memref_2d xd = md(x.data(), M, K, K, 1);
  fp8q_memref_2d qd = md(qc.data(), M, K, K, 1), sd = md(sc.data(), M, G, 1, M),
                 yd = md(yc.data(), M, K, K, 1);
  cpu.rmsBf16(&xd, &gd, &qd, &sd, &yd, 1e-6f, 128, 0, 1);
  fp8q_memref_2d q2 = md(qg.data(), M, K, K, 1), s2 = md(sg.data(), M, G, 1, M),
                 y2 = md(yg.data(), M, K, K, 1);
  int32_t st =
      fp8q_rms_norm_quantize_bf16(&xd, &gd, &q2, &s2, &y2, 1e-6f, 128, 0, 1);
  int64_t ydiff = 0, yulp = 0, qdiff = 0, qstep = 0;
  double srel = 0;
  for (int64_t i = 0; i < M * K; ++i) {
    int d = std::abs((int)yg[i] - (int)yc[i]);
    ydiff += d != 0;
    yulp = std::max<int64_t>(yulp, d);
    qdiff += qg[i] != qc[i];
    qstep = std::max<int64_t>(
        qstep, std::abs((int)(qg[i] & 0x7f) - (int)(qc[i] & 0x7f)));
  }
  for (int64_t i = 0; i < M * G; ++i)
    srel = std::max(srel, std::fabs((double)sg[i] / sc[i] - 1.0));
  // The row sum of squares is reduced in a different order than the CPU
  // runtime's sequential loop: y may differ by one bf16 ulp, which moves a
  // group maximum (scale) by at most one bf16 ulp (2^-7 relative) and a
  // code by one step.
  report(st == 0 && yulp <= 1 && qstep <= 1 && srel <= 1.0 / 128,
         "rms_norm_quantize bf16 M=%lld K=%lld (sum order differs): y %lld of "
         "%lld differ (max %lld bf16 ulp), q %lld differ (max %lld code), "
         "scale max rel diff %.2g (bound 2^-7)",
         (long long)M, (long long)K, (long long)ydiff, (long long)(M * K),
         (long long)yulp, (long long)qdiff, (long long)qstep, srel);
}

void checkMaterialize(int64_t M, int64_t G, int from, int to) {
  Layout A = layoutOf(from, M, G), B = layoutOf(to, M, G);
  std::uniform_real_distribution<float> ud(0.0f, 1.0f);
  std::vector<float> src(A.elems);
  for (auto &v : src)
    v = ud(rng);
  std::vector<float> dc(B.elems, 0.0f);
  fp8q_memref_2d sd = md(src.data(), M, G, A.s0, A.s1),
                 dd = md(dc.data(), M, G, B.s0, B.s1);
  cpu.materialize(&sd, &dd);
  Dev<float> ds(src), dg(std::vector<float>(B.elems, 0.0f));
  fp8q_memref_2d s2 = md(ds.p, M, G, A.s0, A.s1),
                 d2 = md(dg.p, M, G, B.s0, B.s1);
  int32_t st = fp8q_materialize(&s2, &d2);
  std::vector<float> out = dg.down();
  report(st == 0 && memcmp(out.data(), dc.data(), 4 * B.elems) == 0,
         "materialize M=%lld G=%lld %s -> %s: bit-exact vs CPU runtime",
         (long long)M, (long long)G, A.name, B.name);
}

void checkPreshuffle(int64_t N, int64_t K) {
  std::vector<uint8_t> w(N * K), pc(N * K);
  for (auto &b : w)
    b = (uint8_t)rng();
  fp8q_memref_2d wd = md(w.data(), N, K, K, 1), pd = md(pc.data(), N, K, K, 1);
  cpu.preshuffle(&wd, &pd);
  Dev<uint8_t> dw(w), dp(N * K), dback(N * K);
  fp8q_memref_2d w2 = md(dw.p, N, K, K, 1), p2 = md(dp.p, N, K, K, 1),
                 b2 = md(dback.p, N, K, K, 1);
  int32_t st = fp8q_preshuffle(&w2, &p2);
  int32_t st2 = fp8q_unpreshuffle(&p2, &b2);
  report(st == 0 && st2 == 0 && dp.down() == pc && dback.down() == w,
         "preshuffle N=%lld K=%lld: bit-exact vs CPU runtime, unpreshuffle "
         "restores the weight",
         (long long)N, (long long)K);
}

void checkGemm(int64_t M, int64_t N, int64_t K, int32_t kernel) {
  const int64_t G = K / 128, NB = (N + 127) / 128;
  const bool shuf = kernel == FP8Q_KERNEL_CK_BPRESHUFFLE;
  const bool col =
      kernel == FP8Q_KERNEL_CK_BPRESHUFFLE || kernel == FP8Q_KERNEL_CUBLAS;
  std::vector<uint8_t> q(M * K), w(N * K), ws8(N * K);
  for (auto &b : q)
    do
      b = (uint8_t)rng();
    while ((b & 0x7f) == 0x7f);
  for (auto &b : w)
    do
      b = (uint8_t)rng();
    while ((b & 0x7f) == 0x7f);
  if (shuf) // preshuffle_16x16 needs N % 16 == 0
    for (int64_t n = 0; n < N; ++n)
      for (int64_t k = 0; k < K; ++k)
        ws8[preshuffleOffset(n, k, K)] = w[n * K + k];
  std::uniform_real_distribution<float> ud(0.001f, 0.01f);
  std::vector<float> xs(M * G), wsc(NB * G);
  for (auto &v : xs)
    v = ud(rng);
  for (auto &v : wsc)
    v = ud(rng);
  std::vector<uint16_t> oc(M * N), og(M * N);
  fp8q_memref_2d qd = md(q.data(), M, K, K, 1),
                 xd = col ? md(xs.data(), M, G, 1, M)
                          : md(xs.data(), M, G, G, 1),
                 wd = md(shuf ? ws8.data() : w.data(), N, K, K, 1),
                 wsd = md(wsc.data(), NB, G, G, 1),
                 od = md(oc.data(), M, N, N, 1);
  int32_t wl = shuf ? 1 : 0;
  if (cpu.gemm(&qd, &xd, &wd, &wsd, &od, kernel, 0, wl)) {
    report(false, "cpu gemm: %s", cpu.lastError());
    return;
  }
  Dev<uint8_t> dq(q), dw(shuf ? ws8 : w);
  Dev<float> dx(xs), dws(wsc);
  Dev<uint16_t> dout(M * N);
  fp8q_memref_2d q2 = md(dq.p, M, K, K, 1),
                 x2 = col ? md(dx.p, M, G, 1, M) : md(dx.p, M, G, G, 1),
                 w2 = md(dw.p, N, K, K, 1), ws2 = md(dws.p, NB, G, G, 1),
                 o2 = md(dout.p, M, N, N, 1);
  int32_t st = fp8q_gemm(&q2, &x2, &w2, &ws2, &o2, kernel, 0, wl);
  og = dout.down();
  double maxRel = 0, num = 0, den = 0;
  for (int64_t i = 0; i < M * N; ++i) {
    double a = fp8q_bf16_to_f32(og[i]), b = fp8q_bf16_to_f32(oc[i]);
    num += (a - b) * (a - b);
    den += b * b;
    maxRel = std::max(maxRel, std::fabs(a - b) / (std::fabs(b) + 1e-3));
  }
  double rel = std::sqrt(num / den);
  report(st == 0 && rel < 4e-3,
         "portable gemm (%s contract) M=%lld N=%lld K=%lld: relative L2 diff "
         "%.2e vs CPU runtime (max elementwise %.2e)",
         fp8q_kernel_contracts[kernel].name, (long long)M, (long long)N,
         (long long)K, rel, maxRel);
}

// ---------------------------------------------------------------------------
// Benchmarks
// ---------------------------------------------------------------------------
hipEvent_t ev0, ev1;

/// Average device time per call (us) of `body` over `iters` back-to-back
/// calls, after warm-up.
template <class F> double timeUs(F body, int iters) {
  for (int i = 0; i < 5; ++i)
    body();
  CK(hipDeviceSynchronize());
  CK(hipEventRecord(ev0, nullptr));
  for (int i = 0; i < iters; ++i)
    body();
  CK(hipEventRecord(ev1, nullptr));
  CK(hipEventSynchronize(ev1));
  float ms = 0;
  CK(hipEventElapsedTime(&ms, ev0, ev1));
  CK(hipGetLastError());
  return ms * 1000.0 / iters;
}

/// Host wall time per call (us) including synchronization: what one
/// isolated launch costs a caller.
template <class F> double wallUs(F body, int iters) {
  for (int i = 0; i < 5; ++i) {
    body();
    CK(hipDeviceSynchronize());
  }
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) {
    body();
    CK(hipDeviceSynchronize());
  }
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(t1 - t0).count() / iters;
}

/// quantOnly: the quantize and rms_norm_quantize rows at M >= 16 only
/// (kernel variants).
void bench(bool quantOnly) {
  CK(hipEventCreate(&ev0));
  CK(hipEventCreate(&ev1));
  const int64_t K = 7168, G = K / 128;
  const int64_t maxM = 16384;
  Dev<uint16_t> x(randomBf16(maxM * K, 1.0f));
  Dev<uint8_t> q(maxM * K);
  Dev<float> s(maxM * G + 64), s2(maxM * G + 64);
  Dev<uint8_t> cpySrc(maxM * K * 2), cpyDst(maxM * K * 2);
  Dev<uint16_t> gamma(randomBf16(K, 1.0f)), y(maxM * K);

  double empty = timeUs([] { emptyKernel<<<1, 1>>>(); }, 2000);
  double emptyWall = wallUs([] { emptyKernel<<<1, 1>>>(); }, 500);
  printf("\nBENCH empty kernel: %.2f us per launch back-to-back (device "
         "events), %.2f us launch+sync wall\n",
         empty, emptyWall);
  printf("BENCH columns: M | bytes moved | copy us (GB/s) | kernel us (GB/s) "
         "| %% of copy BW | x empty launch\n");

  const int64_t Ms[] = {1, 16, 64, 256, 1024, 4096, 16384};
  auto line = [&](const char *what, int64_t M, double bytes, double copyUs,
                  double us) {
    printf("BENCH %-34s M=%-6lld %10.0f B | copy %8.2f us (%7.1f GB/s) | "
           "%8.2f us (%7.1f GB/s) | %5.1f%% | %.2fx\n",
           what, (long long)M, bytes, copyUs, bytes / copyUs / 1e3, us,
           bytes / us / 1e3, 100.0 * copyUs / us, us / empty);
  };
  for (int64_t M : Ms) {
    if (quantOnly && M < 16)
      continue;
    // materialize row_major -> col_major of the [M, 56] scale.
    MaterializeArgs ma{s.p, s2.p, M, G, G, 1, 1, M};
    dim3 mg((unsigned)((G + 31) / 32), (unsigned)((M + 31) / 32));
    double mat =
        timeUs([&] { fp8q_kernel_materialize<<<mg, kTransBlock>>>(ma); }, 500);
    double matBytes = 2.0 * M * G * 4;
    double matCopy = timeUs(
        [&] {
          CK(hipMemcpyAsync(s2.p, s.p, M * G * 4, hipMemcpyDeviceToDevice,
                            nullptr));
        },
        500);
    if (!quantOnly)
      line("materialize row->col", M, matBytes, matCopy, mat);

    // quantize bf16 [M, 7168], scale row-major and column-major (fused).
    double qBytes = M * K * 2.0 + M * K + M * G * 4.0;
    double qCopy = timeUs(
        [&] {
          CK(hipMemcpyAsync(cpyDst.p, cpySrc.p, (size_t)(qBytes / 2),
                            hipMemcpyDeviceToDevice, nullptr));
        },
        300);
    unsigned qg =
        (unsigned)((M * G + kQuantGroupsPerBlock - 1) / kQuantGroupsPerBlock);
    QuantArgs row{x.p, q.p, s.p, M, K, 128, K, K, G, 1, 0, 0};
    QuantArgs col{x.p, q.p, s.p, M, K, 128, K, K, 1, M, 0, 1};
    double qr = timeUs(
        [&] { fp8q_kernel_quantize_bf16<<<qg, kQuantBlock>>>(row); }, 300);
    double qc = timeUs(
        [&] { fp8q_kernel_quantize_bf16<<<qg, kQuantBlock>>>(col); }, 300);
    MaterializeArgs ma2{s.p, s2.p, M, G, G, 1, 1, M};
    double qm = timeUs(
        [&] {
          fp8q_kernel_quantize_bf16<<<qg, kQuantBlock>>>(row);
          fp8q_kernel_materialize<<<mg, kTransBlock>>>(ma2);
        },
        300);
    line("quantize (row-major scale)", M, qBytes, qCopy, qr);
    line("quantize (fused col-major scale)", M, qBytes, qCopy, qc);
    if (!quantOnly)
      line("quantize + materialize", M, qBytes, qCopy, qm);

    RmsArgs ra{x.p, gamma.p, q.p, s.p, y.p, M,     K, 128,
               K,   K,       K,   1,   M,   1e-6f, 0, 1};
    double rBytes = M * K * 2.0 * 2 + M * K + M * G * 4.0 + K * 2.0;
    double rq = timeUs(
        [&] {
          fp8q_kernel_rms_norm_quantize_bf16<<<(unsigned)M, kQuantBlock>>>(ra);
        },
        200);
    line("rms_norm_quantize (+y, col-major)", M, rBytes,
         qCopy * rBytes / qBytes, rq);
    if (M == 16 && !quantOnly) {
      double w1 = wallUs(
          [&] { fp8q_kernel_quantize_bf16<<<qg, kQuantBlock>>>(col); }, 300);
      double w2 = wallUs(
          [&] { fp8q_kernel_materialize<<<mg, kTransBlock>>>(ma); }, 300);
      printf("BENCH M=16 launch+sync wall: quantize %.2f us, materialize "
             "%.2f us, empty kernel %.2f us\n",
             w1, w2, emptyWall);
    }
  }
}

} // namespace

int main(int argc, char **argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  const char *cpuLib = argc > 1 ? argv[1] : "./libfp8q_runtime_cpu.so";
  if (!cpu.load(cpuLib))
    return 2;
  const bool benchOnly = argc > 2 && strcmp(argv[2], "--bench-only") == 0;
  if (argc > 2 && strcmp(argv[2], "--quant-bench") == 0) {
    bench(true);
    return 0;
  }
  if (benchOnly) {
    bench(false);
    return 0;
  }
  const bool quantOnly = argc > 2 && strcmp(argv[2], "--quant") == 0;
  printf("== correctness: HIP kernels (nvcc sm_90) vs CPU runtime ==\n");
  for (int fp8 : {0, 1})
    for (int layout = 0; layout < 3; ++layout)
      for (int64_t M : {1, 16, 33, 4096})
        checkQuantize(M, M == 33 ? 512 : 7168, layout, fp8, false);
  checkQuantize(5, 1024, 1, 0, true);
  checkQuantizeOther(24, 1024, false);
  checkQuantizeOther(24, 1024, true);
  // Special values, other group sizes (the kernel's general 16-bit path)
  // and ragged shapes (partial row chunks of the column-major order).
  for (int fp8 : {0, 1})
    for (int layout = 0; layout < 3; ++layout)
      checkQuantize(67, 7168, layout, fp8, false, 128, true);
  checkQuantize(33, 7168, 0, 0, false, 64, true);
  checkQuantize(33, 7168, 1, 0, false, 256, true);
  checkQuantize(13, 7168, 2, 1, false, 896, true);
  checkQuantize(1001, 384, 1, 0, false);
  checkQuantize(3, 128, 1, 0, false);
  checkRms(16, 7168);
  checkRms(300, 6144);
  checkRms(33, 896);  // 7 groups: most teams idle
  checkRms(5, 16384); // 128 groups: the kernel's general path
  if (quantOnly) {
    printf("== %d checks, %d failed ==\n", checks, failures);
    bench(true);
    return failures ? 1 : 0;
  }
  for (int64_t M : {1, 16, 1000, 16384})
    for (auto [a, b] : {std::pair{0, 1}, {1, 0}, {0, 2}, {2, 0}})
      checkMaterialize(M, 56, a, b);
  checkPreshuffle(512, 7168);
  checkPreshuffle(48, 96);
  checkGemm(16, 512, 7168, FP8Q_KERNEL_CK_BPRESHUFFLE);
  checkGemm(45, 272, 384, FP8Q_KERNEL_CK_BPRESHUFFLE);
  checkGemm(256, 1024, 1024, FP8Q_KERNEL_TRITON);
  checkGemm(33, 200, 512, FP8Q_KERNEL_CUBLAS);
  printf("== %d checks, %d failed ==\n", checks, failures);
  if (argc <= 2 || strcmp(argv[2], "--no-bench") != 0)
    bench(false);
  return failures ? 1 : 0;
}
