//===- gpu_v2_check.cu - The v2 device entry points on an NVIDIA GPU ------===//
//
// Built and run by bench/v2_kernels_h200.sh. Without flags: every
// _mlir_ciface_fp8q_rt_device_quantize_v2_T (bf16 / f16 / f32 x every
// format x every scale layout x ragged M) and
// _mlir_ciface_fp8q_rt_device_materialize_v2 (every pair of layouts) on
// device buffers and a non-default stream, compared byte for byte with the
// CPU runtime (libfp8q_runtime_cpu.so, dlopen'ed) on the same inputs:
// NaN, inf, zero and subnormal groups included, every buffer prefilled with
// the same garbage so that padding zeroed and bytes left alone are both
// checked; plus the descriptor convention (a padded buffer passed as
// row_major is rejected). Prints FAIL lines, then "v2 check: N PASS, M
// FAIL". `--bench`: GB/s of each format x layout at M = 16384, K = 7168
// against a device-to-device copy of the same bytes in the same run, the
// time per call at M = 1, 16, 64 against an empty kernel, and
// materialize_v2 of every pair of layouts against a copy (one line each,
// then the worst pair).
// `--bench-only FORMAT/LAYOUT` (e.g. mxfp8-e4m3-ceil/row_major): only that
// row of the large-M table (for Nsight Compute: bench/v2_quant_ncu.sh).
// Arguments: DIR (with libfp8q_runtime_cpu.so) [--bench | --bench-only F/L].
//
//===----------------------------------------------------------------------===//

#include "fp8q/Runtime/fp8q_formats.h"
#include "fp8q/Runtime/fp8q_numerics.h"
#include "fp8q/Runtime/fp8q_runtime.h"
#include "fp8q/Runtime/fp8q_scale_layouts.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #x,                    \
             cudaGetErrorString(e_));                                          \
      exit(2);                                                                 \
    }                                                                          \
  } while (0)

int passes = 0, failures = 0;
void report(bool ok, const std::string &what) {
  if (ok) {
    ++passes;
    return;
  }
  ++failures;
  if (failures <= 60)
    printf("FAIL %s\n", what.c_str());
}

typedef int32_t (*QuantV2Fn)(fp8q_memref_2d *, fp8q_memref_2d *,
                             fp8q_memref_2d *, fp8q_memref_0d *, int64_t,
                             int32_t, int32_t, int32_t, int32_t, int64_t);
typedef int32_t (*DevQuantV2Fn)(fp8q_memref_2d *, fp8q_memref_2d *,
                                fp8q_memref_2d *, fp8q_memref_0d *, int64_t,
                                int32_t, int32_t, int32_t, int32_t, int64_t,
                                void *);
typedef int32_t (*MatV2Fn)(fp8q_memref_2d *, fp8q_memref_2d *, int32_t, int32_t,
                           int64_t, int32_t, int64_t);
typedef int32_t (*GemmV2Fn)(fp8q_memref_2d *, fp8q_memref_2d *,
                            fp8q_memref_2d *, fp8q_memref_2d *,
                            fp8q_memref_0d *, fp8q_memref_2d *, int64_t,
                            int32_t, int32_t, int32_t, int32_t, int64_t,
                            int32_t, int64_t, int32_t);
typedef int32_t (*PreshuffleV2Fn)(fp8q_memref_2d *, fp8q_memref_2d *, int32_t,
                                  int64_t);

QuantV2Fn cpuQuant[3];
MatV2Fn cpuMat;
GemmV2Fn cpuGemm;
PreshuffleV2Fn cpuPreshuffle;
const DevQuantV2Fn devQuant[3] = {_mlir_ciface_fp8q_rt_device_quantize_v2_bf16,
                                  _mlir_ciface_fp8q_rt_device_quantize_v2_f16,
                                  _mlir_ciface_fp8q_rt_device_quantize_v2_f32};
const char *const actName[3] = {"bf16", "f16", "f32"};
cudaStream_t stream;

/// A v2 format: q type, scale type, rounding, group.
struct Format {
  const char *name;
  int32_t q, s, r;
  int64_t group;
};
const Format kFormats[] = {
    {"fp8-1x128-exact", FP8Q_Q_F8E4M3FN, FP8Q_SCALE_F32, FP8Q_ROUND_EXACT, 128},
    {"fp8fnuz-1x128-exact", FP8Q_Q_F8E4M3FNUZ, FP8Q_SCALE_F32, FP8Q_ROUND_EXACT,
     128},
    {"fp8-1x128-pow2-f32", FP8Q_Q_F8E4M3FN, FP8Q_SCALE_F32,
     FP8Q_ROUND_POW2_CEIL, 128},
    {"fp8-1x128-ue8m0", FP8Q_Q_F8E4M3FN, FP8Q_SCALE_F8E8M0FNU,
     FP8Q_ROUND_POW2_CEIL, 128},
    {"fp8-1x24-exact", FP8Q_Q_F8E4M3FN, FP8Q_SCALE_F32, FP8Q_ROUND_EXACT, 24},
    {"mxfp8-e4m3-ceil", FP8Q_Q_F8E4M3FN, FP8Q_SCALE_F8E8M0FNU,
     FP8Q_ROUND_POW2_CEIL, 32},
    {"mxfp8-e4m3-floor", FP8Q_Q_F8E4M3FN, FP8Q_SCALE_F8E8M0FNU,
     FP8Q_ROUND_POW2_FLOOR, 32},
    {"mxfp8-e5m2-ceil", FP8Q_Q_F8E5M2, FP8Q_SCALE_F8E8M0FNU,
     FP8Q_ROUND_POW2_CEIL, 32},
    {"mxfp8-e5m2-floor", FP8Q_Q_F8E5M2, FP8Q_SCALE_F8E8M0FNU,
     FP8Q_ROUND_POW2_FLOOR, 32},
    {"mxfp4-ceil", FP8Q_Q_F4E2M1FN, FP8Q_SCALE_F8E8M0FNU, FP8Q_ROUND_POW2_CEIL,
     32},
    {"mxfp4-floor", FP8Q_Q_F4E2M1FN, FP8Q_SCALE_F8E8M0FNU,
     FP8Q_ROUND_POW2_FLOOR, 32},
    {"nvfp4", FP8Q_Q_F4E2M1FN, FP8Q_SCALE_F8E4M3FN, FP8Q_ROUND_E4M3, 16},
    {"e5m2-1x64-exact", FP8Q_Q_F8E5M2, FP8Q_SCALE_F32, FP8Q_ROUND_EXACT, 64},
};

/// A scale layout and its align.
struct Layout {
  int32_t layout;
  int64_t align;
};
const Layout kLayouts[] = {
    {FP8Q_LAYOUT_ROW_MAJOR, 1},       {FP8Q_LAYOUT_COL_MAJOR, 1},
    {FP8Q_LAYOUT_COL_MAJOR, 4},       {FP8Q_LAYOUT_COL_MAJOR_PACK4, 1},
    {FP8Q_LAYOUT_COL_MAJOR_PACK4, 4}, {FP8Q_LAYOUT_SWIZZLE_32_4_4, 1},
    {FP8Q_LAYOUT_CDNA4_MX, 1}};

std::string layoutName(const Layout &l) {
  std::string n = fp8q_scale_layout_name(l.layout);
  if (fp8q_scale_layout_has_align(l.layout) && l.align != 1)
    n += " align " + std::to_string(l.align);
  return n;
}

/// Elements a scale buffer needs (strided: the layout's allocation, which
/// covers its span; padded: the allocation).
int64_t scaleElems(const Layout &l, int64_t M, int64_t G) {
  return fp8q_scale_layout_alloc(l.layout, l.align, M, G);
}

/// The v2 scale descriptor of a buffer in layout l.
fp8q_memref_2d scaleDesc(void *p, const Layout &l, int64_t M, int64_t G) {
  int64_t s0 = 0, s1 = 0;
  fp8q_scale_layout_strides(l.layout, l.align, M, G, &s0, &s1);
  return fp8q_memref_2d{p, p, 0, {M, G}, {s0, s1}};
}

fp8q_memref_2d md(void *p, int64_t r, int64_t c, int64_t s0) {
  return fp8q_memref_2d{p, p, 0, {r, c}, {s0, 1}};
}

float bitsF(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

std::mt19937 rng(11);

/// x [M, K] as fp32, with the special groups: NaN, inf, all-zero, tiny
/// (subnormal after scaling), huge, negative zero.
/// N(0, 1) values with every 53rd element 40x larger (outliers) and, when
/// `specials`, one group per row of each kind the numerics must get right
/// (NaN, +-0, +-inf, subnormal, overflow). The bandwidth bench times
/// activations without specials: NaN / inf groups take the software
/// encode, and a decode step's activations have none.
std::vector<float> makeInput(int64_t M, int64_t K, int64_t group,
                             bool specials = true) {
  std::normal_distribution<float> n(0.f, 1.f);
  std::vector<float> x(M * K);
  for (int64_t i = 0; i < M * K; ++i)
    x[i] = n(rng) * (i % 53 == 0 ? 40.f : 1.f);
  const int64_t G = K / group;
  for (int64_t m = 0; specials && m < M; ++m) {
    float *row = x.data() + m * K;
    const int64_t g = m % G;
    float *grp = row + g * group;
    switch (m % 8) {
    case 1:
      grp[group / 3] = bitsF(m & 8 ? 0xffc00000u : 0x7fc00000u); // NaN
      break;
    case 2:
      for (int64_t i = 0; i < group; ++i)
        grp[i] = (i & 1) ? -0.0f : 0.0f;
      break;
    case 3:
      grp[1] = bitsF(m & 8 ? 0xff800000u : 0x7f800000u); // +-inf
      break;
    case 4:
      for (int64_t i = 0; i < group; ++i)
        grp[i] *= 1e-38f; // subnormal f32 (f16 / bf16: zero or tiny)
      break;
    case 5:
      for (int64_t i = 0; i < group; ++i)
        grp[i] *= 6e4f;
      grp[0] = bitsF(0x7fc00000u);
      grp[2] = bitsF(0xff800000u);
      break;
    default:
      break;
    }
  }
  return x;
}

/// x as bytes of activation type t (0 bf16, 1 f16, 2 f32).
std::vector<uint8_t> toAct(const std::vector<float> &x, int t) {
  const size_t es = t == 2 ? 4 : 2;
  std::vector<uint8_t> b(x.size() * es);
  for (size_t i = 0; i < x.size(); ++i) {
    if (t == 2) {
      memcpy(&b[i * 4], &x[i], 4);
    } else {
      uint16_t h = t == 0 ? fp8q_f32_to_bf16(x[i]) : fp8q_f32_to_f16(x[i]);
      memcpy(&b[i * 2], &h, 2);
    }
  }
  return b;
}

void *devAlloc(size_t bytes) {
  void *p = nullptr;
  CK(cudaMalloc(&p, bytes + 64));
  return p;
}

void up(void *d, const std::vector<uint8_t> &h) {
  CK(cudaMemcpyAsync(d, h.data(), h.size(), cudaMemcpyHostToDevice, stream));
}
std::vector<uint8_t> down(const void *d, size_t n) {
  std::vector<uint8_t> h(n);
  CK(cudaMemcpyAsync(h.data(), d, n, cudaMemcpyDeviceToHost, stream));
  CK(cudaStreamSynchronize(stream));
  return h;
}

std::string firstDiff(const std::vector<uint8_t> &a,
                      const std::vector<uint8_t> &b) {
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) {
      char buf[96];
      snprintf(buf, sizeof buf,
               " (first difference at byte %zu: gpu %02x cpu "
               "%02x)",
               i, a[i], b[i]);
      return buf;
    }
  return "";
}

/// One quantize_v2 case on both runtimes (`global`: NVFP4's global scale).
void checkQuant(int t, const Format &f, const Layout &l, int64_t M, int64_t K,
                float global = 0.0371f) {
  const int64_t G = K / f.group;
  const bool fp4 = f.q == FP8Q_Q_F4E2M1FN;
  const int64_t qCols = fp4 ? K / 2 : K;
  const size_t sElt = f.s == FP8Q_SCALE_F32 ? 4 : 1;
  const size_t sBytes = scaleElems(l, M, G) * sElt;
  std::vector<uint8_t> x = toAct(makeInput(M, K, f.group), t);
  std::vector<uint8_t> qc(M * qCols, 0xA5), sc(sBytes, 0x5B);
  void *dx = devAlloc(x.size()), *dq = devAlloc(qc.size()),
       *ds = devAlloc(sc.size()), *dg = devAlloc(4);
  up(dx, x);
  up(dq, qc);
  up(ds, sc);
  CK(cudaMemcpyAsync(dg, &global, 4, cudaMemcpyHostToDevice, stream));
  const int64_t es = t == 2 ? 4 : 2;
  fp8q_memref_2d xh = md(x.data(), M, K, K),
                 qh = md(qc.data(), M, qCols, qCols);
  fp8q_memref_2d sh = scaleDesc(sc.data(), l, M, G);
  fp8q_memref_0d gh{&global, &global, 0};
  fp8q_memref_2d xd = md(dx, M, K, K), qd = md(dq, M, qCols, qCols);
  fp8q_memref_2d sd = scaleDesc(ds, l, M, G);
  fp8q_memref_0d gd{dg, dg, 0};
  (void)es;
  char what[200];
  snprintf(what, sizeof what, "quantize_v2_%s %s %s M=%lld K=%lld%s%.3g",
           actName[t], f.name, layoutName(l).c_str(), (long long)M,
           (long long)K, global != 0.0371f ? " global=" : "",
           global != 0.0371f ? global : 0.0);
  int32_t cs = cpuQuant[t](&xh, &qh, &sh, &gh, f.group, f.q, f.s, f.r, l.layout,
                           l.align);
  int32_t gs = devQuant[t](&xd, &qd, &sd, &gd, f.group, f.q, f.s, f.r, l.layout,
                           l.align, stream);
  if (cs != 0 || gs != 0) {
    report(false, std::string(what) + ": status cpu " + std::to_string(cs) +
                      " gpu " + std::to_string(gs));
    fp8q_device_clear_error();
  } else {
    std::vector<uint8_t> qg = down(dq, qc.size()), sg = down(ds, sc.size());
    report(qg == qc, std::string(what) + ": q" + firstDiff(qg, qc));
    report(sg == sc, std::string(what) + ": scale" + firstDiff(sg, sc));
  }
  CK(cudaFree(dx));
  CK(cudaFree(dq));
  CK(cudaFree(ds));
  CK(cudaFree(dg));
}

/// Random scale bytes of scale type s in layout l (NaN e8m0 bytes too).
std::vector<uint8_t> randomScale(int32_t s, size_t bytes) {
  std::vector<uint8_t> b(bytes);
  for (auto &v : b)
    v = (uint8_t)rng();
  (void)s;
  return b;
}

/// materialize_v2 from a in b on the device against the CPU runtime. `skew`
/// moves both device buffers by that many bytes (the tiled kernel needs
/// 4-byte aligned units: 1 sends every pair to the word-walking kernel, 4
/// makes the tiled one use 4-byte accesses).
void checkMaterialize(int32_t st, const Layout &a, const Layout &b, int64_t M,
                      int64_t G, bool inPlace, size_t skew = 0) {
  const size_t elt = st == FP8Q_SCALE_F32 ? 4 : 1;
  const size_t sb = scaleElems(a, M, G) * elt, db = scaleElems(b, M, G) * elt;
  const size_t big = sb > db ? sb : db;
  std::vector<uint8_t> hs = randomScale(st, inPlace ? big : sb);
  std::vector<uint8_t> hd(inPlace ? 0 : db, 0x3C);
  void *ds0 = devAlloc(hs.size()), *dd0 = inPlace ? ds0 : devAlloc(hd.size());
  void *ds = (char *)ds0 + skew, *dd = (char *)dd0 + skew;
  up(ds, hs);
  if (!inPlace)
    up(dd, hd);
  std::vector<uint8_t> cpuSrc = hs;
  fp8q_memref_2d sh = scaleDesc(cpuSrc.data(), a, M, G);
  fp8q_memref_2d dh = scaleDesc(inPlace ? cpuSrc.data() : hd.data(), b, M, G);
  fp8q_memref_2d sd = scaleDesc(ds, a, M, G), ddsc = scaleDesc(dd, b, M, G);
  char what[200];
  snprintf(what, sizeof what,
           "materialize_v2 %s %s -> %s M=%lld G=%lld%s skew %zu",
           st == FP8Q_SCALE_F32 ? "f32" : "e8m0", layoutName(a).c_str(),
           layoutName(b).c_str(), (long long)M, (long long)G,
           inPlace ? " in place" : "", skew);
  int32_t cs = cpuMat(&sh, &dh, st, a.layout, a.align, b.layout, b.align);
  int32_t gs = _mlir_ciface_fp8q_rt_device_materialize_v2(
      &sd, &ddsc, st, a.layout, a.align, b.layout, b.align, stream);
  if (cs != 0 || gs != 0) {
    report(false, std::string(what) + ": status cpu " + std::to_string(cs) +
                      " gpu " + std::to_string(gs));
    fp8q_device_clear_error();
  } else {
    const std::vector<uint8_t> &want = inPlace ? cpuSrc : hd;
    std::vector<uint8_t> got = down(dd, want.size());
    report(got == want, std::string(what) + firstDiff(got, want));
  }
  CK(cudaFree(ds0));
  if (!inPlace)
    CK(cudaFree(dd0));
}

/// A v2 GEMM format: q and scale types, group, 128x128 weight-scale blocks.
struct GemmFormat {
  const char *name;
  int32_t q, s;
  int64_t group;
  bool blockW;
};
const GemmFormat kGemmFormats[] = {
    {"ue8m0-1x128", FP8Q_Q_F8E4M3FN, FP8Q_SCALE_F8E8M0FNU, 128, true},
    {"ue8m0-per-row", FP8Q_Q_F8E4M3FN, FP8Q_SCALE_F8E8M0FNU, 128, false},
    {"mxfp8-e4m3", FP8Q_Q_F8E4M3FN, FP8Q_SCALE_F8E8M0FNU, 32, false},
    {"mxfp8-e5m2", FP8Q_Q_F8E5M2, FP8Q_SCALE_F8E8M0FNU, 32, false},
    {"mxfp4", FP8Q_Q_F4E2M1FN, FP8Q_SCALE_F8E8M0FNU, 32, false},
    {"nvfp4", FP8Q_Q_F4E2M1FN, FP8Q_SCALE_F8E4M3FN, 16, false},
};

/// Random scale bytes: e8m0 2^-6 .. 2^6 with a rare NaN (0xFF), or e4m3
/// codes 0x20 .. 0x5F (2^-3 .. 30) with a rare zero.
std::vector<uint8_t> gemmScales(int32_t s, size_t n) {
  std::vector<uint8_t> b(n);
  for (auto &v : b) {
    const uint32_t r = rng();
    if (s == FP8Q_SCALE_F8E8M0FNU)
      v = r % 97 == 0 ? 0xFF : (uint8_t)(121 + r % 13);
    else
      v = r % 89 == 0 ? 0 : (uint8_t)(0x20 + r % 64);
  }
  return b;
}

/// Random codes: fp8 bytes (a rare NaN or inf code of the format among
/// them) or packed fp4 pairs.
std::vector<uint8_t> gemmCodes(int32_t q, size_t n) {
  std::vector<uint8_t> b(n);
  for (auto &v : b) {
    v = (uint8_t)rng();
    if (q != FP8Q_Q_F4E2M1FN && (v & 0x7f) >= 0x78 && rng() % 41 != 0)
      v &= 0xb7; // keep most codes finite
  }
  return b;
}

/// bf16 outputs equal, any NaN equal to any NaN (x86 and GPU NaN payloads
/// differ); the first difference spelled.
std::string bf16Diff(const std::vector<uint8_t> &g,
                     const std::vector<uint8_t> &c, int64_t N) {
  for (size_t i = 0; i + 1 < g.size(); i += 2) {
    const uint16_t a = g[i] | g[i + 1] << 8, b = c[i] | c[i + 1] << 8;
    const bool an = (a & 0x7fff) > 0x7f80, bn = (b & 0x7fff) > 0x7f80;
    if (an && bn)
      continue;
    if (a != b) {
      char buf[120];
      snprintf(buf, sizeof buf,
               " (first difference at m=%lld n=%lld: gpu "
               "%04x cpu %04x)",
               (long long)(i / 2 / N), (long long)(i / 2 % N), a, b);
      return buf;
    }
  }
  return "";
}

/// gemm_v2 cases whose operands meet the MX GEMM kernels' preconditions
/// (GemmMx.hip, MxGemm.h: MXFP8 E4M3 or MXFP4, cdna4_mx scales on both
/// sides, K % 128 == 0, N % 16 == 0; the runtime's mxGemmEligible). With
/// FP8Q_MX_GEMM=portable each of them must launch
/// fp8q_kernel_gemm_mx_portable once, which bench/v2_kernels_h200.sh
/// counts in the runtime's launch trace.
int mxEligibleGemms = 0;

/// One gemm_v2 case on both runtimes: the same operand bytes, the GPU on
/// device copies, the output compared bit for bit (NaN as NaN).
void checkGemm(const GemmFormat &f, const Layout &xl, const Layout &wl,
               int64_t M, int64_t N, int64_t K, bool preshuffled,
               int32_t kernel) {
  const bool fp4 = f.q == FP8Q_Q_F4E2M1FN;
  const int64_t G = K / f.group, kb = fp4 ? K / 2 : K;
  if ((f.q == FP8Q_Q_F8E4M3FN || fp4) && f.s == FP8Q_SCALE_F8E8M0FNU &&
      f.group == 32 && xl.layout == FP8Q_LAYOUT_CDNA4_MX &&
      wl.layout == FP8Q_LAYOUT_CDNA4_MX && K % 128 == 0 && N % 16 == 0)
    ++mxEligibleGemms;
  const int64_t wRows = f.blockW ? (N + 127) / 128 : N,
                wCols = f.blockW ? K / 128 : G;
  std::vector<uint8_t> q = gemmCodes(f.q, M * kb), w = gemmCodes(f.q, N * kb);
  if (preshuffled) {
    std::vector<uint8_t> plain = w;
    fp8q_memref_2d src = md(plain.data(), N, kb, kb),
                   dst = md(w.data(), N, kb, kb);
    if (cpuPreshuffle(&src, &dst, f.q, K) != 0) {
      report(false, "preshuffle_v2 of the gemm weight failed");
      return;
    }
  }
  std::vector<uint8_t> xs =
      gemmScales(f.s, fp8q_scale_layout_alloc(xl.layout, xl.align, M, G));
  std::vector<uint8_t> ws = gemmScales(
      f.s, fp8q_scale_layout_alloc(wl.layout, wl.align, wRows, wCols));
  float global = 0.0625f * 1.3f;
  std::vector<uint8_t> oc(M * N * 2, 0x77);
  void *dq = devAlloc(q.size()), *dw = devAlloc(w.size()),
       *dxs = devAlloc(xs.size()), *dws = devAlloc(ws.size()),
       *dout = devAlloc(oc.size()), *dg = devAlloc(4);
  up(dq, q);
  up(dw, w);
  up(dxs, xs);
  up(dws, ws);
  up(dout, oc);
  CK(cudaMemcpyAsync(dg, &global, 4, cudaMemcpyHostToDevice, stream));
  fp8q_memref_2d qh = md(q.data(), M, kb, kb), wh = md(w.data(), N, kb, kb),
                 xsh = scaleDesc(xs.data(), xl, M, G),
                 wsh = scaleDesc(ws.data(), wl, wRows, wCols),
                 oh = md(oc.data(), M, N, N);
  fp8q_memref_2d qd = md(dq, M, kb, kb), wd = md(dw, N, kb, kb),
                 xsd = scaleDesc(dxs, xl, M, G),
                 wsd = scaleDesc(dws, wl, wRows, wCols), od = md(dout, M, N, N);
  fp8q_memref_0d gh{&global, &global, 0}, gd{dg, dg, 0};
  const int32_t wlay = preshuffled ? FP8Q_WEIGHT_LAYOUT_PRESHUFFLE_16X16 : 0;
  char what[240];
  snprintf(what, sizeof what,
           "gemm_v2 %s kernel %d x_scale %s w_scale %s%s M=%lld N=%lld "
           "K=%lld",
           f.name, kernel, layoutName(xl).c_str(), layoutName(wl).c_str(),
           preshuffled ? " preshuffled" : "", (long long)M, (long long)N,
           (long long)K);
  int32_t cs = cpuGemm(&qh, &xsh, &wh, &wsh, &gh, &oh, f.group, kernel, f.q,
                       f.s, xl.layout, xl.align, wl.layout, wl.align, wlay);
  int32_t gs = _mlir_ciface_fp8q_rt_device_gemm_v2(
      &qd, &xsd, &wd, &wsd, &gd, &od, f.group, kernel, f.q, f.s, xl.layout,
      xl.align, wl.layout, wl.align, wlay, stream);
  if (cs != 0 || gs != 0) {
    report(false, std::string(what) + ": status cpu " + std::to_string(cs) +
                      " gpu " + std::to_string(gs) + " " +
                      fp8q_device_last_error());
    fp8q_device_clear_error();
  } else {
    std::vector<uint8_t> og = down(dout, oc.size());
    report(bf16Diff(og, oc, N).empty(),
           std::string(what) + bf16Diff(og, oc, N));
  }
  for (void *p : {dq, dw, dxs, dws, dout, dg})
    CK(cudaFree(p));
}

void checkGemms() {
  const Layout row = kLayouts[0], col = kLayouts[1], col4 = kLayouts[2],
               pack4 = kLayouts[3], swz = kLayouts[5], cdna = kLayouts[6];
  const std::pair<Layout, Layout> pairs[] = {
      {row, row}, {col, row},   {col4, col}, {pack4, pack4},
      {swz, swz}, {cdna, cdna}, {row, swz},  {cdna, row}};
  for (const GemmFormat &f : kGemmFormats)
    for (const auto &pr : pairs)
      for (int64_t M : {1, 3, 37, 130}) {
        const int64_t N = f.blockW ? 136 : 72, K = f.blockW ? 384 : 6 * f.group;
        checkGemm(f, pr.first, pr.second, M, N, K, false,
                  FP8Q_KERNEL_REFERENCE);
      }
  // The preshuffled fp4 weight (K % 64 == 0) and the v2 kernels' own
  // contracts.
  for (int64_t M : {1, 5, 64})
    checkGemm(kGemmFormats[4], kLayouts[6], kLayouts[6], M, 96, 256, true,
              FP8Q_KERNEL_AITER_MXFP4);
  for (int f : {2, 5})
    checkGemm(kGemmFormats[f], kLayouts[5], kLayouts[5], 33, 200, 512, false,
              FP8Q_KERNEL_CUBLAS_MX);
  checkGemm(kGemmFormats[1], Layout{FP8Q_LAYOUT_COL_MAJOR_PACK4, 4},
            Layout{FP8Q_LAYOUT_COL_MAJOR_PACK4, 4}, 20, 256, 1024, false,
            FP8Q_KERNEL_DEEPGEMM_SM100);
  // A wider problem: several N blocks, M row groups and a long K.
  checkGemm(kGemmFormats[2], kLayouts[1], kLayouts[0], 67, 1000, 2048, false,
            FP8Q_KERNEL_REFERENCE);
  // The MX GEMM kernels' operands (cdna4_mx both sides, K % 128, N % 16):
  // ragged M, several 64 x 128 blocks, K steps past one 256-K scale word;
  // E5M2 is the near miss that stays on the v2 kernel.
  for (int64_t M : {1, 33, 130})
    checkGemm(kGemmFormats[2], cdna, cdna, M, 208, 512, false,
              FP8Q_KERNEL_REFERENCE);
  checkGemm(kGemmFormats[3], cdna, cdna, 33, 208, 512, false,
            FP8Q_KERNEL_REFERENCE);
  for (int64_t M : {7, 64, 65})
    checkGemm(kGemmFormats[4], cdna, cdna, M, 144, 384, false,
              FP8Q_KERNEL_REFERENCE);
  checkGemm(kGemmFormats[4], cdna, cdna, 100, 256, 1024, true,
            FP8Q_KERNEL_AITER_MXFP4);
  printf("gemm_v2 MX-eligible cases: %d\n", mxEligibleGemms);
}

/// The descriptor convention: a padded buffer where row_major is declared
/// (and the reverse) is rejected, sticky, and nothing is written.
void checkRejections() {
  const int64_t M = 16, K = 256, G = K / 32;
  void *dx = devAlloc(M * K * 2), *dq = devAlloc(M * K),
       *ds = devAlloc(fp8q_scale_layout_alloc(FP8Q_LAYOUT_CDNA4_MX, 1, M, G));
  CK(cudaMemsetAsync(dx, 0, M * K * 2, stream));
  fp8q_memref_2d x = md(dx, M, K, K), q = md(dq, M, K, K);
  fp8q_memref_2d padded{ds, ds, 0, {M, G}, {0, 0}};
  fp8q_memref_2d rowMajor{ds, ds, 0, {M, G}, {G, 1}};
  int32_t s1 = _mlir_ciface_fp8q_rt_device_quantize_v2_bf16(
      &x, &q, &padded, nullptr, 32, FP8Q_Q_F8E4M3FN, FP8Q_SCALE_F8E8M0FNU,
      FP8Q_ROUND_POW2_CEIL, FP8Q_LAYOUT_ROW_MAJOR, 1, stream);
  report(s1 == FP8Q_ERR_LAYOUT && fp8q_device_status() == FP8Q_ERR_LAYOUT,
         "padded buffer declared row_major is rejected (status " +
             std::to_string(s1) + ")");
  fp8q_device_clear_error();
  int32_t s2 = _mlir_ciface_fp8q_rt_device_quantize_v2_bf16(
      &x, &q, &rowMajor, nullptr, 32, FP8Q_Q_F8E4M3FN, FP8Q_SCALE_F8E8M0FNU,
      FP8Q_ROUND_POW2_CEIL, FP8Q_LAYOUT_CDNA4_MX, 1, stream);
  report(s2 == FP8Q_ERR_LAYOUT, "row-major buffer declared cdna4_mx is "
                                "rejected (status " +
                                    std::to_string(s2) + ")");
  fp8q_device_clear_error();
  std::vector<uint8_t> hx(M * K * 2);
  fp8q_memref_2d hostX = md(hx.data(), M, K, K);
  int32_t s3 = _mlir_ciface_fp8q_rt_device_quantize_v2_bf16(
      &hostX, &q, &padded, nullptr, 32, FP8Q_Q_F8E4M3FN, FP8Q_SCALE_F8E8M0FNU,
      FP8Q_ROUND_POW2_CEIL, FP8Q_LAYOUT_CDNA4_MX, 1, stream);
  report(s3 == FP8Q_ERR_DEVICE, "host x is rejected by the device ABI "
                                "(status " +
                                    std::to_string(s3) + ")");
  fp8q_device_clear_error();
  CK(cudaFree(dx));
  CK(cudaFree(dq));
  CK(cudaFree(ds));
}

int runChecks() {
  const int64_t Ms[] = {1, 3, 16, 129, 300};
  for (int t = 0; t < 3; ++t)
    for (const Format &f : kFormats)
      for (const Layout &l : kLayouts) {
        if (f.s == FP8Q_SCALE_F32 && fp8q_scale_layout_bytes_only(l.layout))
          continue;
        for (int64_t M : Ms) {
          // G = 3 (ragged for every padded layout) and a wider row.
          checkQuant(t, f, l, M, 3 * f.group);
          checkQuant(t, f, l, M, f.group * (f.group <= 32 ? 56 : 9));
        }
      }
  // NVFP4 under extreme global scales: the kernels' corrected quotient
  // gives way to the division where the divisor (e4m3 scale x global)
  // leaves [2^-64, 2^120] or the scale saturates at 448 so far that
  // amax / divisor could exceed 2^64 (1e-30, 1e-25), keeps it with
  // saturated scales inside that bound (2^-40), and meets zero scales
  // (1e30) and large globals (3e5).
  for (int t = 0; t < 3; ++t)
    for (const Format &f : kFormats) {
      if (f.s != FP8Q_SCALE_F8E4M3FN)
        continue;
      for (float global : {1e-30f, 1e-25f, 0x1p-40f, 1e30f, 3e5f})
        for (int64_t M : {3, 129}) {
          checkQuant(t, f, kLayouts[0], M, 3 * f.group, global);
          checkQuant(t, f, kLayouts[0], M, f.group * 56, global);
        }
    }
  for (int32_t st : {FP8Q_SCALE_F32, FP8Q_SCALE_F8E8M0FNU})
    for (const Layout &a : kLayouts)
      for (const Layout &b : kLayouts) {
        if (st == FP8Q_SCALE_F32 && (fp8q_scale_layout_bytes_only(a.layout) ||
                                     fp8q_scale_layout_bytes_only(b.layout)))
          continue;
        for (int64_t M : {1, 3, 129, 300})
          for (int64_t G : {1, 7, 56})
            checkMaterialize(st, a, b, M, G, false);
        checkMaterialize(st, a, b, 33, 9, true);
        // The tiled kernel: whole tiles, edge tiles both ways, the bench's
        // shape, 4-byte and unaligned (word-walking kernel) buffers.
        const int64_t bigG = st == FP8Q_SCALE_F32 ? 56 : 224;
        checkMaterialize(st, a, b, 1000, bigG, false);
        checkMaterialize(st, a, b, 16384, bigG, false);
        checkMaterialize(st, a, b, 513, 92, false);
        checkMaterialize(st, a, b, 300, bigG, false, 4);
        if (st != FP8Q_SCALE_F32)
          checkMaterialize(st, a, b, 300, bigG, false, 1);
      }
  checkGemms();
  checkRejections();
  printf("v2 check: %d PASS, %d FAIL\n", passes, failures);
  return failures ? 1 : 0;
}

__global__ void emptyKernel() {}

/// Median-free timing: average of `iters` back-to-back calls after a
/// warm-up, in microseconds.
template <class F> float timeUs(F call, int iters) {
  for (int i = 0; i < 3; ++i)
    call();
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  CK(cudaEventRecord(a, stream));
  for (int i = 0; i < iters; ++i)
    call();
  CK(cudaEventRecord(b, stream));
  CK(cudaEventSynchronize(b));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, a, b));
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return ms * 1000.f / iters;
}

/// Device time per call of `call` with no host cost in it: `iters` calls
/// captured into one CUDA graph (as a serving stack replays a decode step),
/// the graph replayed 5 times after one warm-up replay, the median replay
/// / iters. The runtime's launches in capture are the same kernels and
/// programmatic launches as outside it.
template <class F> float graphUs(F call, int iters) {
  for (int i = 0; i < 3; ++i)
    call();
  CK(cudaStreamSynchronize(stream));
  cudaGraph_t g;
  cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < iters; ++i)
    call();
  CK(cudaStreamEndCapture(stream, &g));
  CK(cudaGraphInstantiate(&ge, g, 0));
  CK(cudaGraphLaunch(ge, stream));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int r = 0; r < 5; ++r) {
    CK(cudaEventRecord(a, stream));
    CK(cudaGraphLaunch(ge, stream));
    CK(cudaEventRecord(b, stream));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  CK(cudaGraphExecDestroy(ge));
  CK(cudaGraphDestroy(g));
  std::sort(t.begin(), t.end());
  return t[2] * 1000.f / iters;
}

/// FORMAT/LAYOUT of --bench-only, empty for the whole bench.
std::string benchOnly;

int runBench() {
  const int64_t M = 16384, K = 7168;
  const size_t xBytes = M * K * 2;
  void *dx = devAlloc(xBytes), *dq = devAlloc(M * K),
       *ds = devAlloc(
           fp8q_scale_layout_alloc(FP8Q_LAYOUT_CDNA4_MX, 1, M, K / 16) * 4),
       *dg = devAlloc(4), *dcopy = devAlloc(xBytes * 2);
  std::vector<uint8_t> hx = toAct(makeInput(64, K, 128, false), 0);
  for (int64_t r = 0; r < M; r += 64)
    CK(cudaMemcpyAsync((char *)dx + r * K * 2, hx.data(), hx.size(),
                       cudaMemcpyHostToDevice, stream));
  const float global = 0.0371f;
  CK(cudaMemcpyAsync(dg, &global, 4, cudaMemcpyHostToDevice, stream));
  fp8q_memref_0d gd{dg, dg, 0};
  printf("quantize_v2 bf16, M = %lld, K = %lld, N(0, 1) activations with "
         "outliers, no NaN / inf (GB/s = (x + q + scale allocation bytes) / "
         "time; copy = cudaMemcpyAsync D2D of half those bytes, read + "
         "written)\n",
         (long long)M, (long long)K);
  printf("%-20s %-22s %9s %9s %9s %7s\n", "format", "layout", "us", "GB/s",
         "copy GB/s", "ratio");
  for (const Format &f : kFormats) {
    if (f.group == 24)
      continue;
    for (const Layout &l : kLayouts) {
      if (f.s == FP8Q_SCALE_F32 && fp8q_scale_layout_bytes_only(l.layout))
        continue;
      if (l.align != 1)
        continue;
      if (!benchOnly.empty() &&
          benchOnly != std::string(f.name) + "/" + layoutName(l))
        continue;
      const int64_t G = K / f.group;
      const bool fp4 = f.q == FP8Q_Q_F4E2M1FN;
      const int64_t qCols = fp4 ? K / 2 : K;
      const size_t sBytes =
          scaleElems(l, M, G) * (f.s == FP8Q_SCALE_F32 ? 4 : 1);
      fp8q_memref_2d x = md(dx, M, K, K), q = md(dq, M, qCols, qCols);
      fp8q_memref_2d s = scaleDesc(ds, l, M, G);
      const float us = timeUs(
          [&] {
            _mlir_ciface_fp8q_rt_device_quantize_v2_bf16(
                &x, &q, &s, &gd, f.group, f.q, f.s, f.r, l.layout, l.align,
                stream);
          },
          20);
      const size_t total = xBytes + M * qCols + sBytes;
      const size_t half = total / 2;
      const float cus = timeUs(
          [&] {
            CK(cudaMemcpyAsync(dcopy, (char *)dcopy + half, half,
                               cudaMemcpyDeviceToDevice, stream));
          },
          20);
      const double gbs = total / (us * 1e3), cgbs = 2.0 * half / (cus * 1e3);
      printf("%-20s %-22s %9.1f %9.0f %9.0f %6.0f%%\n", f.name,
             layoutName(l).c_str(), us, gbs, cgbs, 100.0 * gbs / cgbs);
    }
  }
  if (fp8q_device_status()) {
    printf("FAIL bench: sticky error %s\n", fp8q_device_last_error());
    return 1;
  }
  if (!benchOnly.empty())
    return 0;
  printf("\nquantize_v2 bf16 at small M: time per call against an empty "
         "kernel, launched (200 calls back to back from the host, host cost "
         "included) | replayed (200 calls in one CUDA graph: device time)\n");
  const float empty = timeUs([&] { emptyKernel<<<1, 32, 0, stream>>>(); }, 200);
  const float emptyGraph =
      graphUs([&] { emptyKernel<<<1, 32, 0, stream>>>(); }, 200);
  printf("empty kernel: %.2f us launched, %.2f us replayed\n", empty,
         emptyGraph);
  printf("%-20s %-22s %8s %8s %8s | %8s %8s %8s\n", "format", "layout",
         "M=1", "M=16", "M=64", "M=1", "M=16", "M=64");
  for (const Format &f : kFormats) {
    if (f.group == 24)
      continue;
    for (const Layout &l : kLayouts) {
      if ((f.s == FP8Q_SCALE_F32 && fp8q_scale_layout_bytes_only(l.layout)) ||
          l.align != 1)
        continue;
      printf("%-20s %-22s", f.name, layoutName(l).c_str());
      for (bool graph : {false, true}) {
        if (graph)
          printf(" |");
        for (int64_t m : {1, 16, 64}) {
          const int64_t G = K / f.group;
          const int64_t qCols = f.q == FP8Q_Q_F4E2M1FN ? K / 2 : K;
          fp8q_memref_2d x = md(dx, m, K, K), q = md(dq, m, qCols, qCols);
          fp8q_memref_2d s = scaleDesc(ds, l, m, G);
          auto call = [&] {
            _mlir_ciface_fp8q_rt_device_quantize_v2_bf16(
                &x, &q, &s, &gd, f.group, f.q, f.s, f.r, l.layout, l.align,
                stream);
          };
          printf(" %8.2f", graph ? graphUs(call, 200) : timeUs(call, 200));
        }
      }
      printf("\n");
    }
  }
  printf("\ngemm_v2 (the portable kernel, kernel reference): time per "
         "call against a D2D copy of the weight bytes\n");
  printf("%-12s %5s %6s %6s %9s %9s %7s\n", "format", "M", "N", "K", "us",
         "copy us", "ratio");
  for (int fi : {2, 4})
    for (int64_t gm : {1, 16, 64}) {
      const GemmFormat &f = kGemmFormats[fi];
      const int64_t N = 4096, GK = 7168, G = GK / f.group,
                    kb = f.q == FP8Q_Q_F4E2M1FN ? GK / 2 : GK;
      fp8q_memref_2d q = md(dx, gm, kb, kb), w = md(dcopy, N, kb, kb);
      fp8q_memref_2d xs = scaleDesc(ds, kLayouts[0], gm, G),
                     ws = scaleDesc(dq, kLayouts[0], N, G);
      fp8q_memref_2d o = md((char *)dx + 64 * GK, gm, N, N);
      CK(cudaMemsetAsync(ds, 127, gm * G, stream));
      CK(cudaMemsetAsync(dq, 127, N * G, stream));
      const float us = timeUs(
          [&] {
            _mlir_ciface_fp8q_rt_device_gemm_v2(
                &q, &xs, &w, &ws, &gd, &o, f.group, FP8Q_KERNEL_REFERENCE, f.q,
                f.s, FP8Q_LAYOUT_ROW_MAJOR, 1, FP8Q_LAYOUT_ROW_MAJOR, 1, 0,
                stream);
          },
          20);
      const float cus = timeUs(
          [&] {
            CK(cudaMemcpyAsync((char *)dcopy + xBytes, dcopy, N * kb,
                               cudaMemcpyDeviceToDevice, stream));
          },
          20);
      printf("%-12s %5lld %6lld %6lld %9.1f %9.1f %6.1fx\n", f.name,
             (long long)gm, (long long)N, (long long)GK, us, cus, us / cus);
    }
  if (fp8q_device_status()) {
    printf("FAIL bench: sticky error %s\n", fp8q_device_last_error());
    return 1;
  }
  printf("\nmaterialize_v2, every pair of layouts: e8m0 [16384, 224] (1x32 "
         "groups of K = 7168), f32 [16384, 56]; GB/s = (src + dst allocation "
         "bytes) / time, copy = D2D of the dst bytes (read + written)\n");
  printf("%-4s %-18s    %-18s %8s %6s %6s %5s\n", "type", "src", "dst", "us",
         "GB/s", "copy", "ratio");
  void *dsrc =
      devAlloc(fp8q_scale_layout_alloc(FP8Q_LAYOUT_CDNA4_MX, 1, M, 224) * 4);
  CK(cudaMemsetAsync(dsrc, 0x41, M * 224 * 4, stream));
  double worst = 1e9;
  std::string worstPair;
  for (int32_t st : {FP8Q_SCALE_F8E8M0FNU, FP8Q_SCALE_F32})
    for (const Layout &a : kLayouts)
      for (const Layout &b : kLayouts) {
        const int64_t G = st == FP8Q_SCALE_F32 ? 56 : 224;
        const size_t elt = st == FP8Q_SCALE_F32 ? 4 : 1;
        if (a.align != 1 || b.align != 1 || a.layout == b.layout)
          continue;
        if (st == FP8Q_SCALE_F32 && (fp8q_scale_layout_bytes_only(a.layout) ||
                                     fp8q_scale_layout_bytes_only(b.layout)))
          continue;
        fp8q_memref_2d s = scaleDesc(dsrc, a, M, G), d = scaleDesc(ds, b, M, G);
        const float us = timeUs(
            [&] {
              _mlir_ciface_fp8q_rt_device_materialize_v2(
                  &s, &d, st, a.layout, a.align, b.layout, b.align, stream);
            },
            50);
        const size_t sb = scaleElems(a, M, G) * elt,
                     db = scaleElems(b, M, G) * elt;
        const float cus = timeUs(
            [&] {
              CK(cudaMemcpyAsync(dcopy, dsrc, db, cudaMemcpyDeviceToDevice,
                                 stream));
            },
            50);
        const double gbs = (sb + db) / (us * 1e3),
                     cgbs = 2.0 * db / (cus * 1e3), ratio = gbs / cgbs;
        const std::string sn = layoutName(a), dn = layoutName(b);
        printf("%-4s %-18s -> %-18s %8.2f %6.0f %6.0f %4.0f%%\n",
               st == FP8Q_SCALE_F32 ? "f32" : "e8m0", sn.c_str(), dn.c_str(),
               us, gbs, cgbs, 100.0 * ratio);
        if (ratio < worst) {
          worst = ratio;
          worstPair = std::string(st == FP8Q_SCALE_F32 ? "f32 " : "e8m0 ") +
                      sn + " -> " + dn;
        }
      }
  printf("materialize_v2 worst pair: %.0f%% of copy (%s)\n", 100.0 * worst,
         worstPair.c_str());
  if (fp8q_device_status()) {
    printf("FAIL bench: sticky error %s\n", fp8q_device_last_error());
    return 1;
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: gpu_v2_check DIR [--bench]\n");
    return 2;
  }
  const std::string dir = argv[1];
  const std::string mode = argc > 2 ? argv[2] : "";
  if (mode == "--bench-only") {
    if (argc < 4) {
      fprintf(stderr, "usage: gpu_v2_check DIR --bench-only FORMAT/LAYOUT\n");
      return 2;
    }
    benchOnly = argv[3];
  }
  void *h =
      dlopen((dir + "/libfp8q_runtime_cpu.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    printf("FAIL dlopen CPU runtime: %s\n", dlerror());
    return 2;
  }
  const char *qn[3] = {"fp8q_quantize_v2_bf16", "fp8q_quantize_v2_f16",
                       "fp8q_quantize_v2_f32"};
  for (int t = 0; t < 3; ++t)
    cpuQuant[t] = (QuantV2Fn)dlsym(h, qn[t]);
  cpuMat = (MatV2Fn)dlsym(h, "fp8q_materialize_v2");
  cpuGemm = (GemmV2Fn)dlsym(h, "fp8q_gemm_v2");
  cpuPreshuffle = (PreshuffleV2Fn)dlsym(h, "fp8q_preshuffle_v2");
  if (!cpuQuant[0] || !cpuQuant[1] || !cpuQuant[2] || !cpuMat || !cpuGemm ||
      !cpuPreshuffle) {
    printf("FAIL the CPU runtime lacks the v2 entry points\n");
    return 2;
  }
  CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const bool bench = mode == "--bench" || !benchOnly.empty();
  return bench ? runBench() : runChecks();
}
