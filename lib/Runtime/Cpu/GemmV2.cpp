//===- GemmV2.cpp - Block-scaled GEMM of the SPEC v2 formats --------------===//
//
// out[m, n] = bf16(global * sum_g (xs[m, g] * ws[n / b, g']) * partial(g))
// with partial(g) = sum_{k in group g} q[m, k] * w[n, k], for FP8 1x128
// with e8m0 scales (b = 128, g' = k / 128), MXFP8, MXFP4 and NVFP4 (b = 1,
// g' = g; global is NVFP4's product of the two global scales, 1 else).
// Every code and scale is decoded to fp32 first (fp8q_mx_numerics.h; e8m0
// 0xFF is NaN, E5M2 keeps its infinities), then the sums run in fp32 in
// increasing k inside a group and increasing g across groups, with no FMA
// contraction, and the product with global comes last. Results do not
// depend on the thread count.
//
// The scales are read through the one layout algebra
// (fp8q_scale_layouts.h, through ScaleView); the checks before are
// fp8q_gemm_v2_checks.h's.
//
//===----------------------------------------------------------------------===//

#include "CpuRuntime.h"

#include "fp8q/Runtime/fp8q_mx_numerics.h"
#include "fp8q/Runtime/fp8q_numerics.h"
#include "fp8q/Runtime/fp8q_preshuffle.h"
#include "fp8q_gemm_v2_checks.h"

#include <memory>
#include <new>
#include <vector>

namespace fp8q::rt {

namespace {

/// Output columns per task.
constexpr int64_t kTileN = 64;

/// Largest K (a tile's weight scratch is K x kTileN floats).
constexpr int64_t kMaxK = int64_t(1) << 20;

struct GemmV2Ctx {
  const GemmV2Plan *p;
  const float *qf;  // [M, K] decoded activation codes
  const float *xsf; // [M, G] activation scales
  const float *wsf; // [wRows, wCols] weight scales
  const float *lut; // code -> fp32 (fp4: the low nibble)
};

/// Code k of weight row n (a byte, or a nibble of a packed f4E2M1FN row).
uint8_t weightCode(const GemmV2Plan &p, int64_t n, int64_t k) {
  if (!p.fp4)
    return *p.w.at<uint8_t>(n, k);
  uint8_t byte;
  if (p.preshuffled)
    byte = reinterpret_cast<const uint8_t *>(
        p.w.base)[fp8q_preshuffle_offset(n, k / 2, p.N, p.K / 2)];
  else
    byte = *p.w.at<uint8_t>(n, k / 2);
  return (k & 1) ? uint8_t(byte >> 4) : uint8_t(byte & 0xF);
}

void gemmV2Tile(int64_t tile, void *arg) {
  const GemmV2Ctx &c = *static_cast<const GemmV2Ctx *>(arg);
  const GemmV2Plan &p = *c.p;
  const int64_t n0 = tile * kTileN;
  const int64_t width = p.N - n0 < kTileN ? p.N - n0 : kTileN;
  // This tile of the weight, decoded and transposed to [K][kTileN] so the
  // inner loop runs over n without reordering any sum; columns past N are 0.
  std::vector<float> wt(p.K * kTileN, 0.0f);
  for (int64_t j = 0; j < width; ++j)
    for (int64_t k = 0; k < p.K; ++k)
      wt[k * kTileN + j] = c.lut[weightCode(p, n0 + j, k)];
  // The weight-scale row of each column.
  int64_t wsRow[kTileN];
  for (int64_t j = 0; j < kTileN; ++j)
    wsRow[j] = (n0 + (j < width ? j : 0)) / p.wRowBlock;
  // FP8 1x128 UE8M0 has one weight-scale column per 128 of K, the group.
  const int64_t groupsPerWCol = p.G / p.wCols;
  float acc[kTileN], part[kTileN];
  for (int64_t m = 0; m < p.M; ++m) {
    const float *qrow = c.qf + m * p.K;
    for (int64_t j = 0; j < kTileN; ++j)
      acc[j] = 0.0f;
    for (int64_t g = 0; g < p.G; ++g) {
      for (int64_t j = 0; j < kTileN; ++j)
        part[j] = 0.0f;
      for (int64_t k = g * p.group; k < (g + 1) * p.group; ++k) {
        const float a = qrow[k];
        const float *wrow = wt.data() + k * kTileN;
        for (int64_t j = 0; j < kTileN; ++j)
          part[j] += a * wrow[j];
      }
      const float xs = c.xsf[m * p.G + g];
      const int64_t wg = g / groupsPerWCol;
      for (int64_t j = 0; j < width; ++j)
        acc[j] += (xs * c.wsf[wsRow[j] * p.wCols + wg]) * part[j];
    }
    for (int64_t j = 0; j < width; ++j) {
      const float v =
          p.format == FP8Q_FORMAT_NVFP4 ? p.global * acc[j] : acc[j];
      *p.out.at<uint16_t>(m, n0 + j) = fp8q_f32_to_bf16(v);
    }
  }
}

} // namespace

int32_t gemmV2Impl(const char *entry, fp8q_memref_2d *q, fp8q_memref_2d *xs,
                   fp8q_memref_2d *w, fp8q_memref_2d *ws,
                   fp8q_memref_0d *global, fp8q_memref_2d *out,
                   int64_t groupSize, int32_t kernel, int32_t qType,
                   int32_t scaleType, int32_t xLayout, int64_t xAlign,
                   int32_t wLayout, int64_t wAlign, int32_t weightLayout) {
  clearError();
  GemmV2Plan p;
  if (int32_t s = checkGemmV2(
          entry, q, xs, w, ws, global, out, groupSize, kernel, qType, scaleType,
          xLayout, xAlign, wLayout, wAlign, weightLayout, uncheckedMode(), p))
    return s;
  const int64_t M = p.M, K = p.K, G = p.G;
  // Broadcast (stride-0) q or w can describe more elements than memory
  // holds: bound the scratch and allocate without aborting.
  if (K > kMaxK)
    return fail(entry, FP8Q_ERR_SHAPE,
                "K = %lld: the CPU reference runtime takes K up to %lld",
                (long long)K, (long long)kMaxK);
  std::unique_ptr<float[]> qf(new (std::nothrow) float[M * K]);
  std::unique_ptr<float[]> xsf(new (std::nothrow) float[M * G]);
  std::unique_ptr<float[]> wsf(new (std::nothrow) float[p.wRows * p.wCols]);
  if (!qf || !xsf || !wsf)
    return fail(entry, FP8Q_ERR_SHAPE,
                "out of memory for the temporaries of M = %lld, N = %lld, "
                "K = %lld",
                (long long)M, (long long)p.N, (long long)K);

  float lut[256];
  for (int i = 0; i < 256; ++i)
    lut[i] = fp8q_q_decode(uint8_t(i), qType);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k) {
      uint8_t code = *p.q.at<uint8_t>(m, p.fp4 ? k / 2 : k);
      if (p.fp4)
        code = (k & 1) ? uint8_t(code >> 4) : uint8_t(code & 0xF);
      qf[m * K + k] = lut[code];
    }
  for (int64_t m = 0; m < M; ++m)
    for (int64_t g = 0; g < G; ++g)
      xsf[m * G + g] = p.xScale.load(scaleType, m, g);
  for (int64_t r = 0; r < p.wRows; ++r)
    for (int64_t g = 0; g < p.wCols; ++g)
      wsf[r * p.wCols + g] = p.wScale.load(scaleType, r, g);

  GemmV2Ctx ctx{&p, qf.get(), xsf.get(), wsf.get(), lut};
  parallelFor((p.N + kTileN - 1) / kTileN, gemmV2Tile, &ctx);
  return FP8Q_OK;
}

} // namespace fp8q::rt
