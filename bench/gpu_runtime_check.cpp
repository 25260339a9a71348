//===- gpu_runtime_check.cpp - libfp8q_runtime_cuda.so's device ABI -------===//
//
// Built and run on the GPU machine by scripts/build-cuda-runtime.sh
// (CHECK=1): every device entry point on device buffers on a non-default
// stream against the CPU runtime (dlopen'ed: both export the plain API),
// bit-exact for quantize / materialize / preshuffle, within the documented
// tolerance for rms_norm_quantize / add_rms_norm_quantize /
// silu_mul_quantize (sum bit-exact, q within one code) and within a measured
// tolerance for the cuBLASLt GEMM; the mgpu* functions on
// nvcc-built PTX and cubins; a captured graph of device calls; the sticky
// errors. Prints one PASS/FAIL line per check and the GEMM timings.
// Arguments: OUTDIR of the build script (libfp8q_runtime_cpu.so, fill.*).
//
//===----------------------------------------------------------------------===//

#include "fp8q/Runtime/fp8q_runtime.h"

#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

int failures = 0;
void report(bool ok, const std::string &what) {
  printf("%s %s\n", ok ? "PASS" : "FAIL", what.c_str());
  fflush(stdout);
  failures += !ok;
}

#define SOFT(x)                                                                \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #x,                    \
             cudaGetErrorString(e_));                                          \
      (void)cudaGetLastError();                                                \
      ++failures;                                                              \
      return;                                                                  \
    }                                                                          \
  } while (0)

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #x,                    \
             cudaGetErrorString(e_));                                          \
      exit(2);                                                                 \
    }                                                                          \
  } while (0)

fp8q_memref_2d md(void *p, int64_t r, int64_t c, int64_t s0, int64_t s1) {
  return fp8q_memref_2d{p, p, 0, {r, c}, {s0, s1}};
}
fp8q_memref_1d md1(void *p, int64_t n) {
  return fp8q_memref_1d{p, p, 0, {n}, {1}};
}

struct Cpu {
  void *h = nullptr;
  template <class F> F get(const char *n) { return (F)dlsym(h, n); }
};
Cpu cpu;

typedef int32_t (*QuantFn)(fp8q_memref_2d *, fp8q_memref_2d *, fp8q_memref_2d *,
                           int64_t, int32_t);
typedef int32_t (*RmsFn)(fp8q_memref_2d *, fp8q_memref_1d *, fp8q_memref_2d *,
                         fp8q_memref_2d *, fp8q_memref_2d *, float, int64_t,
                         int32_t, int32_t);
typedef int32_t (*AddRmsFn)(fp8q_memref_2d *, fp8q_memref_2d *,
                            fp8q_memref_1d *, fp8q_memref_2d *,
                            fp8q_memref_2d *, fp8q_memref_2d *,
                            fp8q_memref_2d *, float, int64_t, int32_t, int32_t);
typedef int32_t (*SiluFn)(fp8q_memref_2d *, fp8q_memref_2d *, fp8q_memref_2d *,
                          fp8q_memref_2d *, int64_t, int32_t);
typedef int32_t (*MatFn)(fp8q_memref_2d *, fp8q_memref_2d *);
typedef int32_t (*GemmFn)(fp8q_memref_2d *, fp8q_memref_2d *, fp8q_memref_2d *,
                          fp8q_memref_2d *, fp8q_memref_2d *, int32_t, int32_t,
                          int32_t);

/// A device buffer with a host mirror.
template <class T> struct Buf {
  std::vector<T> h;
  T *d = nullptr;
  explicit Buf(size_t n, cudaStream_t s) : h(n) {
    CK(cudaMallocAsync((void **)&d, n * sizeof(T) + 16, s));
    CK(cudaMemsetAsync(d, 0, n * sizeof(T), s));
  }
  void up(cudaStream_t s) {
    CK(cudaMemcpyAsync(d, h.data(), h.size() * sizeof(T),
                       cudaMemcpyHostToDevice, s));
  }
  std::vector<T> down(cudaStream_t s) const {
    std::vector<T> r(h.size());
    CK(cudaMemcpyAsync(r.data(), d, h.size() * sizeof(T),
                       cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    return r;
  }
  size_t bytes() const { return h.size() * sizeof(T); }
};

template <class T> bool same(const std::vector<T> &a, const std::vector<T> &b) {
  return a.size() == b.size() &&
         !memcmp(a.data(), b.data(), a.size() * sizeof(T));
}

std::mt19937 rng(7);
float gauss() { return std::normal_distribution<float>(0.f, 1.f)(rng); }
uint16_t toBf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}
float fromBf16(uint16_t b) {
  uint32_t u = (uint32_t)b << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/// Fills an activation buffer of element size es (2 = bf16 or f16, 4 = f32).
void fillAct(std::vector<uint8_t> &v, int t) {
  size_t es = t == 2 ? 4 : 2, n = v.size() / es;
  for (size_t i = 0; i < n; ++i) {
    float f = gauss() * (i % 97 == 0 ? 30.f : 1.f);
    if (t == 0) {
      uint16_t b = toBf16(f);
      memcpy(&v[i * 2], &b, 2);
    } else if (t == 1) {
      __half h = __float2half_rn(f);
      memcpy(&v[i * 2], &h, 2);
    } else {
      memcpy(&v[i * 4], &f, 4);
    }
  }
}

/// Position of fp8 E4M3 code c on the number line (sign-magnitude to an
/// ordinal): adjacent codes are 1 apart.
int codeOrdinal(uint8_t c) { return c & 0x80 ? -(c & 0x7f) : c & 0x7f; }

/// The same for activation elements of size es (2: bf16 / f16, 4: f32).
int64_t actOrdinal(const uint8_t *p, int64_t es) {
  if (es == 2) {
    uint16_t v;
    memcpy(&v, p, 2);
    return v & 0x8000 ? -(int64_t)(v & 0x7fff) : (int64_t)v;
  }
  uint32_t v;
  memcpy(&v, p, 4);
  return v & 0x80000000u ? -(int64_t)(v & 0x7fffffffu) : (int64_t)v;
}

/// How far the GPU's q, scale (and y) are from the CPU's: differing q
/// bytes, the largest code distance, the largest relative scale
/// difference, the largest y distance in ulps of T.
struct Drift {
  size_t qDiff = 0;
  int maxCode = 0;
  double maxScaleRel = 0;
  int64_t maxYUlp = 0;
  void q(const std::vector<uint8_t> &a, const std::vector<uint8_t> &b) {
    for (size_t i = 0; i < a.size(); ++i) {
      qDiff += a[i] != b[i];
      maxCode =
          std::max(maxCode, std::abs(codeOrdinal(a[i]) - codeOrdinal(b[i])));
    }
  }
  void scale(const std::vector<float> &a, const std::vector<float> &b) {
    for (size_t i = 0; i < a.size(); ++i)
      maxScaleRel = std::max(maxScaleRel, (double)std::fabs(a[i] - b[i]) /
                                              std::fabs((double)b[i]));
  }
  void act(const std::vector<uint8_t> &a, const std::vector<uint8_t> &b,
           int64_t es) {
    hasY = true;
    for (size_t i = 0; i < a.size(); i += es)
      maxYUlp = std::max<int64_t>(
          maxYUlp, std::llabs(actOrdinal(&a[i], es) - actOrdinal(&b[i], es)));
  }
  bool hasY = false;
  /// The tolerance of the RMSNorm kernels for activations of es bytes
  /// (docs/RuntimeABI.md): q within one code; scale within one ulp of T
  /// relative (2^-7 bf16, 2^-10 f16) or 2^-16 (f32); y within one ulp of
  /// T, or 128 ulp (f32, 2^-16 relative: the CPU sums squares one by one).
  bool withinNorm(int64_t es, bool bf16) const {
    const double scaleTol = es == 4 ? 0x1p-16 : bf16 ? 0x1p-7 : 0x1p-10;
    return maxCode <= 1 && maxScaleRel <= scaleTol &&
           maxYUlp <= (es == 4 ? 128 : 1);
  }
  bool exact() const { return qDiff == 0 && maxScaleRel == 0 && maxYUlp == 0; }
  std::string text() const {
    if (exact())
      return hasY ? "bit-exact (q, scale, y)" : "bit-exact (q, scale)";
    char buf[160];
    snprintf(buf, sizeof buf,
             "%zu q bytes differ (max %d code), max scale rel diff %.3g", qDiff,
             maxCode, maxScaleRel);
    std::string r = buf;
    if (hasY)
      r += ", max y diff " + std::to_string(maxYUlp) + " ulp";
    return r;
  }
};

void checkQuantize(cudaStream_t s) {
  const char *names[] = {"bf16", "f16", "f32"};
  QuantFn cq[] = {cpu.get<QuantFn>("fp8q_quantize_bf16"),
                  cpu.get<QuantFn>("fp8q_quantize_f16"),
                  cpu.get<QuantFn>("fp8q_quantize_f32")};
  RmsFn cr[] = {cpu.get<RmsFn>("fp8q_rms_norm_quantize_bf16"),
                cpu.get<RmsFn>("fp8q_rms_norm_quantize_f16"),
                cpu.get<RmsFn>("fp8q_rms_norm_quantize_f32")};
  decltype(&_mlir_ciface_fp8q_rt_device_quantize_bf16) dq[] = {
      _mlir_ciface_fp8q_rt_device_quantize_bf16,
      _mlir_ciface_fp8q_rt_device_quantize_f16,
      _mlir_ciface_fp8q_rt_device_quantize_f32};
  decltype(&_mlir_ciface_fp8q_rt_device_rms_norm_quantize_bf16) dr[] = {
      _mlir_ciface_fp8q_rt_device_rms_norm_quantize_bf16,
      _mlir_ciface_fp8q_rt_device_rms_norm_quantize_f16,
      _mlir_ciface_fp8q_rt_device_rms_norm_quantize_f32};
  const int64_t shapes[][2] = {{16, 7168}, {5, 256}, {64, 2048}};
  for (int t = 0; t < 3; ++t)
    for (auto &sh : shapes)
      for (int col = 0; col < 2; ++col) {
        const int64_t M = sh[0], K = sh[1], G = K / 128, es = t == 2 ? 4 : 2;
        Buf<uint8_t> x(M * K * es, s), g(K * es, s), q(M * K, s),
            y(M * K * es, s);
        Buf<float> sc(M * G, s);
        fillAct(x.h, t);
        fillAct(g.h, t);
        x.up(s);
        g.up(s);
        const int64_t s0 = col ? 1 : G, s1 = col ? M : 1;
        fp8q_memref_2d xd = md(x.d, M, K, K, 1), qd = md(q.d, M, K, K, 1),
                       sd = md(sc.d, M, G, s0, s1), yd = md(y.d, M, K, K, 1);
        fp8q_memref_1d gd = md1(g.d, K);
        std::vector<uint8_t> cq8(M * K), cy(M * K * es);
        std::vector<float> cs(M * G);
        fp8q_memref_2d xh = md(x.h.data(), M, K, K, 1),
                       qh = md(cq8.data(), M, K, K, 1),
                       sh2 = md(cs.data(), M, G, s0, s1),
                       yh = md(cy.data(), M, K, K, 1);
        fp8q_memref_1d gh = md1(g.h.data(), K);
        std::string tag = std::string(names[t]) + " M=" + std::to_string(M) +
                          " K=" + std::to_string(K) +
                          (col ? " col_major" : " row_major");
        int32_t st = dq[t](&xd, &qd, &sd, 128, FP8Q_F8E4M3FN, s);
        int32_t ct = cq[t](&xh, &qh, &sh2, 128, FP8Q_F8E4M3FN);
        report(st == 0 && ct == 0 && same(q.down(s), cq8) &&
                   same(sc.down(s), cs),
               "device quantize " + tag + " bit-exact vs CPU");
        // The block sums squares in another order than the CPU: an rms
        // that differs in the last place moves y by one ulp of T at most.
        st = dr[t](&xd, &gd, &qd, &sd, &yd, 1e-6f, 128, FP8Q_F8E4M3FN, 1, s);
        ct = cr[t](&xh, &gh, &qh, &sh2, &yh, 1e-6f, 128, FP8Q_F8E4M3FN, 1);
        Drift d;
        d.q(q.down(s), cq8);
        d.scale(sc.down(s), cs);
        d.act(y.down(s), cy, es);
        report(st == 0 && ct == 0 && d.withinNorm(es, t == 0),
               "device rms_norm_quantize " + tag + " vs CPU: " + d.text());
      }
}

/// The fused producers on the device against the CPU runtime, within the
/// tolerance docs/RuntimeABI.md states: add_rms_norm_quantize's sum
/// bit-exact and q, scale, y as Drift::withinNorm (the rms differs in the
/// last places: another order of the sum of squares); silu_mul_quantize's
/// q within one fp8 code and scale within 2^-20 relative (CUDA's expf is
/// within 2 ulp, libm's within 1). x and residual (gate and up) are the two
/// column halves of one [M, 2K] buffer; the scale is row- or column-major;
/// one add_rms_norm_quantize case runs in place (sum is x); K = 16384 takes
/// the bf16 kernel's two-pass path, group 64 the general group path.
void checkFused(cudaStream_t s) {
  const char *names[] = {"bf16", "f16", "f32"};
  AddRmsFn ca[] = {cpu.get<AddRmsFn>("fp8q_add_rms_norm_quantize_bf16"),
                   cpu.get<AddRmsFn>("fp8q_add_rms_norm_quantize_f16"),
                   cpu.get<AddRmsFn>("fp8q_add_rms_norm_quantize_f32")};
  SiluFn cs[] = {cpu.get<SiluFn>("fp8q_silu_mul_quantize_bf16"),
                 cpu.get<SiluFn>("fp8q_silu_mul_quantize_f16"),
                 cpu.get<SiluFn>("fp8q_silu_mul_quantize_f32")};
  decltype(&_mlir_ciface_fp8q_rt_device_add_rms_norm_quantize_bf16) da[] = {
      _mlir_ciface_fp8q_rt_device_add_rms_norm_quantize_bf16,
      _mlir_ciface_fp8q_rt_device_add_rms_norm_quantize_f16,
      _mlir_ciface_fp8q_rt_device_add_rms_norm_quantize_f32};
  decltype(&_mlir_ciface_fp8q_rt_device_silu_mul_quantize_bf16) ds[] = {
      _mlir_ciface_fp8q_rt_device_silu_mul_quantize_bf16,
      _mlir_ciface_fp8q_rt_device_silu_mul_quantize_f16,
      _mlir_ciface_fp8q_rt_device_silu_mul_quantize_f32};
  const int64_t shapes[][3] = {{1, 128, 128},   {3, 384, 128}, {16, 128, 128},
                               {16, 7168, 128}, {5, 256, 64},  {64, 2048, 128},
                               {4, 16384, 128}};
  for (int t = 0; t < 3; ++t)
    for (auto &sh : shapes)
      for (int variant = 0; variant < 3; ++variant) {
        const int64_t M = sh[0], K = sh[1], group = sh[2], G = K / group,
                      es = t == 2 ? 4 : 2;
        const bool col = variant == 1, inPlace = variant == 2;
        Buf<uint8_t> xr(M * 2 * K * es, s), g(K * es, s), q(M * K, s),
            y(M * K * es, s), sum(M * K * es, s);
        Buf<float> sc(M * G, s);
        fillAct(xr.h, t);
        fillAct(g.h, t);
        xr.up(s);
        g.up(s);
        const int64_t s0 = col ? 1 : G, s1 = col ? M : 1;
        auto half = [&](void *p, int64_t h) {
          return fp8q_memref_2d{p, p, h * K, {M, K}, {2 * K, 1}};
        };
        fp8q_memref_2d xd = half(xr.d, 0), rd = half(xr.d, 1),
                       qd = md(q.d, M, K, K, 1), sd = md(sc.d, M, G, s0, s1),
                       yd = md(y.d, M, K, K, 1), sumd = md(sum.d, M, K, K, 1);
        fp8q_memref_1d gd = md1(g.d, K);
        std::vector<uint8_t> hxr = xr.h, cq(M * K), cy(M * K * es),
                             csum(M * K * es);
        std::vector<float> csc(M * G);
        fp8q_memref_2d xh = half(hxr.data(), 0), rh = half(hxr.data(), 1),
                       qh = md(cq.data(), M, K, K, 1),
                       sh2 = md(csc.data(), M, G, s0, s1),
                       yh = md(cy.data(), M, K, K, 1),
                       sumh = md(csum.data(), M, K, K, 1);
        fp8q_memref_1d gh = md1(g.h.data(), K);
        std::string tag =
            std::string(names[t]) + " M=" + std::to_string(M) +
            " K=" + std::to_string(K) + " group=" + std::to_string(group) +
            (col ? " col_major" : " row_major") + (inPlace ? " in place" : "");
        int32_t st = da[t](&xd, &rd, &gd, &qd, &sd, &yd, inPlace ? &xd : &sumd,
                           1e-6f, group, FP8Q_F8E4M3FN, 1, s);
        int32_t ct = ca[t](&xh, &rh, &gh, &qh, &sh2, &yh, inPlace ? &xh : &sumh,
                           1e-6f, group, FP8Q_F8E4M3FN, 1);
        Drift d;
        d.q(q.down(s), cq);
        d.scale(sc.down(s), csc);
        d.act(y.down(s), cy, es);
        const bool sumOk =
            inPlace ? same(xr.down(s), hxr) : same(sum.down(s), csum);
        report(st == 0 && ct == 0 && sumOk && d.withinNorm(es, t == 0),
               "device add_rms_norm_quantize " + tag + ": sum " +
                   (sumOk ? "bit-exact" : "DIFFERS") + ", " + d.text());
        if (inPlace)
          continue;
        // silu_mul_quantize on the same [M, 2K] buffer as gate | up.
        st = ds[t](&xd, &rd, &qd, &sd, group, FP8Q_F8E4M3FN, s);
        ct = cs[t](&xh, &rh, &qh, &sh2, group, FP8Q_F8E4M3FN);
        Drift e;
        e.q(q.down(s), cq);
        e.scale(sc.down(s), csc);
        report(st == 0 && ct == 0 && e.maxCode <= 1 &&
                   e.maxScaleRel <= 1.0 / (1 << 20),
               "device silu_mul_quantize " + tag + ": " + e.text());
      }
}

/// The host ABI of the fused producers (host buffers, staged by the GPU
/// runtime, the call waits) against the CPU runtime: what a host-mode
/// program compiled for a GPU calls. bf16, x and residual the halves of one
/// [M, 2K] buffer, the sum in place on x; then silu_mul_quantize on them.
void checkFusedHostAbi() {
  const int64_t M = 16, K = 7168, G = K / 128;
  std::vector<uint8_t> xr(M * 2 * K * 2), g(K * 2);
  fillAct(xr, 0);
  fillAct(g, 0);
  std::vector<uint8_t> cxr = xr, q(M * K), cq(M * K), y(M * K * 2),
                       cy(M * K * 2);
  std::vector<float> sc(M * G), csc(M * G);
  auto half = [&](void *p, int64_t h) {
    return fp8q_memref_2d{p, p, h * K, {M, K}, {2 * K, 1}};
  };
  fp8q_memref_2d xd = half(xr.data(), 0), rd = half(xr.data(), 1),
                 cxd = half(cxr.data(), 0), crd = half(cxr.data(), 1),
                 qd = md(q.data(), M, K, K, 1), cqd = md(cq.data(), M, K, K, 1),
                 sd = md(sc.data(), M, G, 1, M),
                 csd = md(csc.data(), M, G, 1, M),
                 yd = md(y.data(), M, K, K, 1), cyd = md(cy.data(), M, K, K, 1);
  fp8q_memref_1d gd = md1(g.data(), K);
  int32_t st = fp8q_add_rms_norm_quantize_bf16(&xd, &rd, &gd, &qd, &sd, &yd,
                                               &xd, 1e-6f, 128, 0, 1);
  int32_t ct = cpu.get<AddRmsFn>("fp8q_add_rms_norm_quantize_bf16")(
      &cxd, &crd, &gd, &cqd, &csd, &cyd, &cxd, 1e-6f, 128, 0, 1);
  Drift d;
  d.q(q, cq);
  d.scale(sc, csc);
  d.act(y, cy, 2);
  report(st == 0 && ct == 0 && same(xr, cxr) && d.withinNorm(2, true),
         std::string("host ABI add_rms_norm_quantize bf16 M=16 K=7168 in "
                     "place (staged): sum ") +
             (same(xr, cxr) ? "bit-exact" : "DIFFERS") + ", " + d.text());
  st = fp8q_silu_mul_quantize_bf16(&xd, &rd, &qd, &sd, 128, 0);
  ct = cpu.get<SiluFn>("fp8q_silu_mul_quantize_bf16")(&cxd, &crd, &cqd, &csd,
                                                      128, 0);
  Drift e;
  e.q(q, cq);
  e.scale(sc, csc);
  report(st == 0 && ct == 0 && e.maxCode <= 1 &&
             e.maxScaleRel <= 1.0 / (1 << 20),
         "host ABI silu_mul_quantize bf16 M=16 K=7168 (staged): " + e.text());
}

void checkMaterializePreshuffle(cudaStream_t s) {
  const int64_t M = 16, G = 56;
  Buf<float> a(M * G, s), b(M * G, s);
  for (auto &v : a.h)
    v = gauss();
  a.up(s);
  fp8q_memref_2d ad = md(a.d, M, G, G, 1), bd = md(b.d, M, G, 1, M);
  std::vector<float> cb(M * G);
  fp8q_memref_2d ah = md(a.h.data(), M, G, G, 1),
                 bh = md(cb.data(), M, G, 1, M);
  int32_t st = _mlir_ciface_fp8q_rt_device_materialize(&ad, &bd, s);
  int32_t ct = cpu.get<MatFn>("fp8q_materialize")(&ah, &bh);
  report(st == 0 && ct == 0 && same(b.down(s), cb),
         "device materialize row_major -> col_major bit-exact vs CPU");
  const int64_t N = 256, K = 512;
  Buf<uint8_t> w(N * K, s), p(N * K, s);
  for (auto &v : w.h)
    v = (uint8_t)rng();
  w.up(s);
  fp8q_memref_2d wd = md(w.d, N, K, K, 1), pd = md(p.d, N, K, K, 1);
  std::vector<uint8_t> cp(N * K);
  fp8q_memref_2d wh = md(w.h.data(), N, K, K, 1),
                 ph = md(cp.data(), N, K, K, 1);
  st = _mlir_ciface_fp8q_rt_device_preshuffle(&wd, &pd, s);
  ct = cpu.get<MatFn>("fp8q_preshuffle")(&wh, &ph);
  report(st == 0 && ct == 0 && same(p.down(s), cp),
         "device preshuffle bit-exact vs CPU");
}

/// fp8 e4m3 bytes of modest values (no NaN).
uint8_t randFp8() {
  uint8_t b = (uint8_t)(rng() & 0xff);
  if ((b & 0x7f) == 0x7f)
    b &= 0xfe;
  if ((b & 0x78) > 0x48)
    b = (b & 0x87) | 0x40;
  return b;
}

struct GemmCase {
  int64_t M, N, K;
};

void checkGemm(cudaStream_t s, int64_t M, int64_t N, int64_t K) {
  const int64_t G = K / 128, NB = (N + 127) / 128;
  Buf<uint8_t> q(M * K, s), w(N * K, s);
  Buf<float> xs(M * G, s), ws(NB * G, s);
  Buf<uint16_t> out(M * N, s), out2(M * N, s);
  for (auto &v : q.h)
    v = randFp8();
  for (auto &v : w.h)
    v = randFp8();
  for (auto &v : xs.h)
    v = 0.01f * (1.f + (rng() % 100) / 100.f);
  for (auto &v : ws.h)
    v = 0.02f * (1.f + (rng() % 100) / 100.f);
  q.up(s), w.up(s), xs.up(s), ws.up(s);
  fp8q_memref_2d qd = md(q.d, M, K, K, 1), xd = md(xs.d, M, G, 1, M),
                 wd = md(w.d, N, K, K, 1), wsd = md(ws.d, NB, G, G, 1),
                 od = md(out.d, M, N, N, 1), od2 = md(out2.d, M, N, N, 1);
  std::vector<uint16_t> ref(M * N);
  fp8q_memref_2d qh = md(q.h.data(), M, K, K, 1),
                 xh = md(xs.h.data(), M, G, 1, M),
                 wh = md(w.h.data(), N, K, K, 1),
                 wsh = md(ws.h.data(), NB, G, G, 1),
                 oh = md(ref.data(), M, N, N, 1);
  int32_t ct =
      cpu.get<GemmFn>("fp8q_gemm")(&qh, &xh, &wh, &wsh, &oh, FP8Q_KERNEL_CUBLAS,
                                   FP8Q_F8E4M3FN, FP8Q_WEIGHT_LAYOUT_PLAIN);
  int32_t st = _mlir_ciface_fp8q_rt_device_gemm(
      &qd, &xd, &wd, &wsd, &od, FP8Q_KERNEL_CUBLAS, FP8Q_F8E4M3FN,
      FP8Q_WEIGHT_LAYOUT_PLAIN, s);
  int32_t st2 = _mlir_ciface_fp8q_rt_device_gemm(
      &qd, &xd, &wd, &wsd, &od2, FP8Q_KERNEL_REFERENCE, FP8Q_F8E4M3FN,
      FP8Q_WEIGHT_LAYOUT_PLAIN, s);
  std::vector<uint16_t> o = out.down(s), o2 = out2.down(s);
  auto err = [&](const std::vector<uint16_t> &v, double &maxRel, size_t &diff) {
    double num = 0, den = 0;
    maxRel = 0;
    diff = 0;
    for (size_t i = 0; i < v.size(); ++i) {
      double a = fromBf16(v[i]), r = fromBf16(ref[i]);
      num += (a - r) * (a - r);
      den += r * r;
      diff += v[i] != ref[i];
      maxRel = std::max(maxRel, std::fabs(a - r) / (std::fabs(r) + 1e-3));
    }
    return std::sqrt(num / (den + 1e-30));
  };
  double m1, m2;
  size_t d1, d2;
  double e1 = err(o, m1, d1), e2 = err(o2, m2, d2);
  char tag[96];
  snprintf(tag, sizeof tag, "M=%lld N=%lld K=%lld", (long long)M, (long long)N,
           (long long)K);
  printf("  gemm %s: cublas rel L2 err %.3g (max rel %.3g, %zu of %zu bf16 "
         "differ); portable rel L2 err %.3g (%zu differ) [status %d %d %d]\n",
         tag, e1, m1, d1, o.size(), e2, d2, st, st2, ct);
  if (e1 >= 1e-2 && M * N * K <= 16 * 7168 * 2048) {
    // Which scale layout did cuBLASLt read? The CPU GEMM on reinterpreted
    // scale buffers (w_scale N-block fastest; x_scale group fastest).
    std::vector<float> wsT(NB * G), xsT(M * G);
    for (int64_t nb = 0; nb < NB; ++nb)
      for (int64_t g = 0; g < G; ++g)
        wsT[nb * G + g] = ws.h[g * NB + nb];
    for (int64_t m = 0; m < M; ++m)
      for (int64_t g = 0; g < G; ++g)
        xsT[m + g * M] = xs.h[m * G + g];
    const char *alt[] = {"w_scale nb-fastest", "x_scale g-fastest", "both"};
    std::vector<uint16_t> keep = ref;
    for (int a = 0; a < 3; ++a) {
      fp8q_memref_2d wa = md(a != 1 ? wsT.data() : ws.h.data(), NB, G, G, 1),
                     xa = md(a != 0 ? xsT.data() : xs.h.data(), M, G, 1, M);
      cpu.get<GemmFn>("fp8q_gemm")(&qh, &xa, &wh, &wa, &oh, FP8Q_KERNEL_CUBLAS,
                                   FP8Q_F8E4M3FN, 0);
      double mr;
      size_t dd;
      printf("  layout probe (%s): cublas rel L2 err %.3g\n", alt[a],
             err(o, mr, dd));
      ref = keep;
    }
  }
  report(st == 0 && ct == 0 && e1 < 1e-2,
         std::string("device gemm cublas ") + tag + " vs CPU (rel L2 < 1e-2)");
  report(st2 == 0 && e2 < 1e-2, std::string("device gemm portable ") + tag +
                                    " vs CPU (rel L2 < 1e-2)");
  // Timing with device events, back to back on the stream.
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int kernel : {FP8Q_KERNEL_CUBLAS, FP8Q_KERNEL_REFERENCE}) {
    for (int i = 0; i < 5; ++i)
      _mlir_ciface_fp8q_rt_device_gemm(&qd, &xd, &wd, &wsd, &od, kernel,
                                       FP8Q_F8E4M3FN, 0, s);
    const int iters = 50;
    CK(cudaEventRecord(a, s));
    for (int i = 0; i < iters; ++i)
      _mlir_ciface_fp8q_rt_device_gemm(&qd, &xd, &wd, &wsd, &od, kernel,
                                       FP8Q_F8E4M3FN, 0, s);
    CK(cudaEventRecord(b, s));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    printf("  TIME gemm %s %s: %.2f us per call (eager, %d calls)\n", tag,
           kernel == FP8Q_KERNEL_CUBLAS ? "cublas" : "portable",
           1000.0 * ms / iters, iters);
  }
  // The same 50 cublas calls captured in one graph.
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  SOFT(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < 50; ++i)
    _mlir_ciface_fp8q_rt_device_gemm(&qd, &xd, &wd, &wsd, &od,
                                     FP8Q_KERNEL_CUBLAS, FP8Q_F8E4M3FN, 0, s);
  SOFT(cudaStreamEndCapture(s, &graph));
  SOFT(cudaGraphInstantiate(&exec, graph, 0));
  SOFT(cudaGraphLaunch(exec, s));
  SOFT(cudaEventRecord(a, s));
  SOFT(cudaGraphLaunch(exec, s));
  SOFT(cudaEventRecord(b, s));
  SOFT(cudaEventSynchronize(b));
  float ms = 0;
  SOFT(cudaEventElapsedTime(&ms, a, b));
  printf("  TIME gemm %s cublas: %.2f us per call (one graph of 50)\n", tag,
         1000.0 * ms / 50);
  report(fp8q_device_status() == 0 && same(out.down(s), o),
         std::string("graph of 50 cublas gemms ") + tag + " same bytes");
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
}

/// rms_norm_quantize -> materialize -> gemm, eager and as a graph.
void checkGraph(cudaStream_t s) {
  const int64_t M = 16, K = 2048, N = 1024, G = K / 128, NB = N / 128;
  Buf<uint16_t> x(M * K, s), g(K, s), out(M * N, s);
  Buf<uint8_t> q(M * K, s), w(N * K, s);
  Buf<float> sr(M * G, s), sc(M * G, s), ws(NB * G, s);
  for (auto &v : x.h)
    v = toBf16(gauss());
  for (auto &v : g.h)
    v = toBf16(1.f + 0.1f * gauss());
  for (auto &v : w.h)
    v = randFp8();
  for (auto &v : ws.h)
    v = 0.01f;
  x.up(s), g.up(s), w.up(s), ws.up(s);
  fp8q_memref_2d xd = md(x.d, M, K, K, 1), qd = md(q.d, M, K, K, 1),
                 srd = md(sr.d, M, G, G, 1), scd = md(sc.d, M, G, 1, M),
                 wd = md(w.d, N, K, K, 1), wsd = md(ws.d, NB, G, G, 1),
                 od = md(out.d, M, N, N, 1);
  fp8q_memref_1d gd = md1(g.d, K);
  auto step = [&] {
    int32_t r = _mlir_ciface_fp8q_rt_device_rms_norm_quantize_bf16(
        &xd, &gd, &qd, &srd, &xd, 1e-6f, 128, FP8Q_F8E4M3FN, 0, s);
    r |= _mlir_ciface_fp8q_rt_device_materialize(&srd, &scd, s);
    r |= _mlir_ciface_fp8q_rt_device_gemm(
        &qd, &scd, &wd, &wsd, &od, FP8Q_KERNEL_CUBLAS, FP8Q_F8E4M3FN, 0, s);
    return r;
  };
  int32_t st = step();
  std::vector<uint16_t> eager = out.down(s);
  std::vector<uint8_t> eq = q.down(s);
  CK(cudaMemsetAsync(out.d, 0, out.bytes(), s));
  CK(cudaMemsetAsync(q.d, 0, q.bytes(), s));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  SOFT(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  int32_t st2 = step();
  SOFT(cudaStreamEndCapture(s, &graph));
  SOFT(cudaGraphInstantiate(&exec, graph, 0));
  SOFT(cudaGraphLaunch(exec, s));
  report(st == 0 && st2 == 0 && same(out.down(s), eager) && same(q.down(s), eq),
         "graph capture of rms_norm_quantize + materialize + cublas gemm: "
         "same bytes as eager");
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
}

std::string readFile(const std::string &p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void checkMgpu(cudaStream_t s, const std::string &dir) {
  std::string ptx = readFile(dir + "/fill.ptx"),
              cubin = readFile(dir + "/fill_sm90.cubin"),
              old = readFile(dir + "/fill_sm80.cubin");
  for (int jit = 0; jit < 2; ++jit) {
    void *m = jit ? mgpuModuleLoadJIT((void *)ptx.c_str(), 2)
                  : mgpuModuleLoad((void *)cubin.data(), cubin.size());
    void *f = mgpuModuleGetFunction(m, "fp8q_test_fill");
    const int n = 1000;
    int *d = (int *)mgpuMemAlloc(n * 4, s, false);
    mgpuMemset32(d, 0xdeadbeef, n, s);
    int nn = n;
    void *params[] = {&d, &nn};
    mgpuLaunchKernel(f, (n + 255) / 256, 1, 1, 256, 1, 1, 0, s, params, nullptr,
                     2);
    std::vector<int> h(n + 8, 7);
    mgpuMemcpy(h.data(), d, n * 4, s);
    mgpuStreamSynchronize(s);
    bool ok = m && f && fp8q_device_status() == 0;
    for (int i = 0; i < n; ++i)
      ok &= h[i] == 3 * i + 1;
    // memset16 on the first 10 halves, then read back.
    mgpuMemset16(d, 0xabcd, 10, s);
    mgpuMemcpy(h.data(), d, 20, s);
    mgpuStreamSynchronize(s);
    ok &= ((uint16_t *)h.data())[9] == 0xabcd && h[5] == 3 * 5 + 1;
    mgpuMemFree(d, s);
    mgpuModuleUnload(m);
    report(
        ok,
        jit ? "mgpuModuleLoadJIT (PTX) + launch + MemAlloc/Memset/Memcpy/Free"
            : "mgpuModuleLoad (sm_90 cubin) + launch + "
              "MemAlloc/Memset32/16/Memcpy/Free");
    if (!ok)
      printf("  status %d: %s\n", fp8q_device_status(),
             fp8q_device_last_error());
    fp8q_device_clear_error();
  }
  void *e = mgpuEventCreate();
  void *s2 = mgpuStreamCreate();
  mgpuEventRecord(e, s);
  mgpuStreamWaitEvent(s2, e);
  mgpuEventSynchronize(e);
  mgpuStreamSynchronize(s2);
  mgpuStreamDestroy(s2);
  mgpuEventDestroy(e);
  report(fp8q_device_status() == 0, "mgpu stream/event functions");
  // An image for another architecture: null, a sticky error, no crash.
  void *m = mgpuModuleLoad((void *)old.data(), old.size());
  void *f = mgpuModuleGetFunction(m, "fp8q_test_fill");
  mgpuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, nullptr, nullptr, 0);
  std::string msg = fp8q_device_last_error();
  printf("  sm_80 cubin: %s\n", msg.c_str());
  printf("  sm_80 cubin: module %s\n", m ? "non-null" : "null");
  report(!f && fp8q_device_status() != 0 &&
             msg.find("no kernel image") != std::string::npos,
         "mgpuModuleLoad of an sm_80 cubin: null, sticky error, null launch "
         "does not crash");
  fp8q_device_clear_error();
}

void checkErrors(cudaStream_t s) {
  std::vector<uint16_t> hx(4 * 256, 0x3f80);
  int32_t st = _mlir_ciface_fp8q_rt_device_check_arg(
      (int64_t)(intptr_t)hx.data(), hx.size() * 2, 2, s);
  std::string msg = fp8q_device_last_error();
  report(st != 0 && fp8q_device_status() == st &&
             msg.find("argument #2 is host memory") != std::string::npos,
         "check_arg on a host pointer: " + msg);
  fp8q_device_clear_error();
  Buf<uint16_t> x(4 * 256, s);
  Buf<uint8_t> q(4 * 256, s);
  Buf<float> sc(8, s);
  std::vector<uint8_t> hq(4 * 256, 0xab);
  CK(cudaMemsetAsync(q.d, 0x5a, q.bytes(), s));
  report(_mlir_ciface_fp8q_rt_device_check_arg((int64_t)(intptr_t)x.d,
                                               x.bytes(), 0, s) == 0 &&
             _mlir_ciface_fp8q_rt_device_check_arg(0, 0, 1, s) == 0,
         "check_arg on device memory and on an empty operand");
  fp8q_memref_2d xd = md(x.d, 4, 256, 256, 1),
                 qh = md(hq.data(), 4, 256, 256, 1),
                 qd = md(q.d, 4, 256, 256, 1), sd = md(sc.d, 4, 2, 1, 4);
  st = _mlir_ciface_fp8q_rt_device_quantize_bf16(&xd, &qh, &sd, 128, 0, s);
  msg = fp8q_device_last_error();
  CK(cudaStreamSynchronize(s));
  bool untouched = true;
  for (uint8_t b : hq)
    untouched &= b == 0xab;
  report(st != 0 && untouched && msg.find("operand q") != std::string::npos,
         "device quantize with a host q: " + msg);
  // Sticky: a valid call now enqueues nothing.
  st = _mlir_ciface_fp8q_rt_device_quantize_bf16(&xd, &qd, &sd, 128, 0, s);
  std::vector<uint8_t> qq = q.down(s);
  bool kept = true;
  for (uint8_t b : qq)
    kept &= b == 0x5a;
  report(st != 0 && kept, "sticky status: the next valid call writes nothing");
  fp8q_device_clear_error();
  st = _mlir_ciface_fp8q_rt_device_quantize_bf16(&xd, &qd, &sd, 128, 0, s);
  report(st == 0 && q.down(s)[0] != 0x5a,
         "after fp8q_device_clear_error it runs");
  mgpuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, s, nullptr, nullptr, 0);
  report(fp8q_device_status() != 0,
         std::string("null-function launch: ") + fp8q_device_last_error());
  fp8q_device_clear_error();
}

} // namespace

int main(int argc, char **argv) {
  std::string dir = argc > 1 ? argv[1] : ".";
  cpu.h =
      dlopen((dir + "/libfp8q_runtime_cpu.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!cpu.h) {
    printf("FAIL dlopen CPU runtime: %s\n", dlerror());
    return 2;
  }
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    printf("SKIP: no CUDA device\n");
    return 0;
  }
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  checkErrors(s);
  checkQuantize(s);
  checkFused(s);
  checkFusedHostAbi();
  checkMaterializePreshuffle(s);
  checkGemm(s, 16, 7168, 2048);
  checkGemm(s, 16, 2112, 7168);
  // The decode GEMM's split-K (tiles below the SM count): 576 x 7168 at
  // M = 1 (7 splits on an H100 / H200), and ragged N with M = 3; eager and
  // replayed from a graph (the workspace's counters reset by each launch).
  checkGemm(s, 1, 576, 7168);
  checkGemm(s, 3, 40, 4096);
  checkGemm(s, 64, 1536, 7168);
  checkGemm(s, 128, 7168, 2304); // K/128 = 18: w_scale repacked to ld 20
  checkMgpu(s, dir);
  checkGraph(s);
  printf("gpu_runtime_check: %d failures\n", failures);
  return failures ? 1 : 0;
}
