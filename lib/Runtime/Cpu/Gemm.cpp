//===- Gemm.cpp - Block-scale GEMM, read as each kernel reads -------------===//
//
// out[m, n] = bf16(sum_kb (xs[m, kb] * ws[n / 128, kb]) * partial(m, n, kb))
// with partial(m, n, kb) = sum_{k in kb} q[m, k] * w[n, k], all in fp32 and
// summed in increasing k / kb order (no FMA contraction).
//
// The raw buffers are read exactly as the selected kernel family reads them
// (the contract table, fp8q_contracts.h): a kernel with a fixed x_scale
// order ignores the descriptor's strides, and a preshuffled weight is read
// by flat offset. The contract checks before the read are what keeps a
// wrong layout from being read scrambled; FP8Q_RT_UNCHECKED=1 lets it
// through to reproduce the historical failure.
//
//===----------------------------------------------------------------------===//

#include "CpuRuntime.h"

#include "fp8q/Runtime/fp8q_numerics.h"
#include "fp8q/Runtime/fp8q_preshuffle.h"

#include <cstdio>
#include <memory>
#include <new>
#include <vector>

namespace fp8q::rt {

namespace {

/// Output columns per task; a multiple of 16 dividing 128, so one task
/// stays inside one weight-scale block.
constexpr int64_t kTileN = 64;

/// Largest K (a tile's weight scratch is K x kTileN floats, 256 MiB here).
constexpr int64_t kMaxK = int64_t(1) << 20;

struct GemmCtx {
  int64_t M, N, K, G, group;
  const float *qf;  // [M, K] decoded activations
  const float *xsf; // [M, G] activation scales, as the kernel read them
  const float *wsf; // [ceil(N/128), G] weight scales
  const View2 *w;   // raw weight
  bool preshuffled; // read w by preshuffle_16x16 flat offset
  const float *lut; // fp8 byte -> fp32
  const View2 *out; // bf16 output
};

void gemmTile(int64_t tile, void *p) {
  const GemmCtx &c = *static_cast<const GemmCtx *>(p);
  const int64_t n0 = tile * kTileN;
  const int64_t width = c.N - n0 < kTileN ? c.N - n0 : kTileN;
  const int64_t nb = n0 / FP8Q_SCALE_BLOCK;
  // Decode this tile of the weight once, transposed to [K][kTileN] so the
  // inner loop runs over n (vectorizes without reordering any sum). A
  // preshuffled tile is read in its storage order: each (16 rows, 32 k)
  // block is 512 contiguous bytes.
  std::vector<float> wt(c.K * kTileN, 0.0f);
  if (c.preshuffled) {
    const uint8_t *base = reinterpret_cast<const uint8_t *>(c.w->base);
    for (int64_t j0 = 0; j0 < width; j0 += 16)
      for (int64_t k = 0; k < c.K; k += 16) {
        const uint8_t *run =
            base + fp8q_preshuffle_offset(n0 + j0, k, c.N, c.K);
        for (int64_t n1 = 0; n1 < 16; ++n1)
          for (int64_t k2 = 0; k2 < 16; ++k2)
            wt[(k + k2) * kTileN + j0 + n1] = c.lut[run[n1 * 16 + k2]];
      }
  } else {
    for (int64_t j = 0; j < width; ++j)
      for (int64_t k = 0; k < c.K; ++k)
        wt[k * kTileN + j] = c.lut[*c.w->at<uint8_t>(n0 + j, k)];
  }
  // Two rows of m at a time share each weight load; partial sums live in
  // registers, 16 columns at a time. Every (m, n) still sums its k in
  // increasing order.
  float acc[2][kTileN];
  for (int64_t m = 0; m < c.M; m += 2) {
    const int64_t rows = c.M - m < 2 ? c.M - m : 2;
    const float *q0 = c.qf + m * c.K;
    const float *q1 = rows == 2 ? q0 + c.K : q0;
    for (int64_t j = 0; j < kTileN; ++j)
      acc[0][j] = acc[1][j] = 0.0f;
    for (int64_t kb = 0; kb < c.G; ++kb) {
      const float s0 = c.xsf[m * c.G + kb] * c.wsf[nb * c.G + kb];
      const float s1 = c.xsf[(m + rows - 1) * c.G + kb] * c.wsf[nb * c.G + kb];
      for (int64_t jc = 0; jc < kTileN; jc += 16) {
        float p0[16] = {}, p1[16] = {};
        for (int64_t k = kb * c.group; k < (kb + 1) * c.group; ++k) {
          const float a0 = q0[k], a1 = q1[k];
          const float *wrow = wt.data() + k * kTileN + jc;
          for (int64_t j = 0; j < 16; ++j) {
            p0[j] += a0 * wrow[j];
            p1[j] += a1 * wrow[j];
          }
        }
        for (int64_t j = 0; j < 16; ++j) {
          acc[0][jc + j] += s0 * p0[j];
          acc[1][jc + j] += s1 * p1[j];
        }
      }
    }
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < width; ++j)
        *c.out->at<uint16_t>(m + r, n0 + j) = fp8q_f32_to_bf16(acc[r][j]);
  }
}

} // namespace

int32_t gemmImpl(const char *entry, fp8q_memref_2d *q, fp8q_memref_2d *xs,
                 fp8q_memref_2d *w, fp8q_memref_2d *ws, fp8q_memref_2d *out,
                 int32_t kernel, int32_t fp8Type, int32_t weightLayout) {
  clearError();
  // Arguments, contract and memory safety (shared with the HIP runtime).
  GemmPlan plan;
  if (int32_t s = checkGemm(entry, q, xs, w, ws, out, kernel, fp8Type,
                            weightLayout, uncheckedMode(), plan))
    return s;
  const int64_t M = plan.M, N = plan.N, K = plan.K, G = plan.G, NB = plan.NB;
  const View2 &qv = plan.q, &xv = plan.xScale, &wsv = plan.wScale;

  // Broadcast (stride-0) inputs can describe more elements than any memory
  // holds: bound the per-tile weight scratch (K x kTileN floats per thread,
  // allocated in gemmTile) and allocate the fp32 copies without aborting.
  if (K > kMaxK)
    return fail(entry, FP8Q_ERR_SHAPE,
                "K = %lld: the CPU reference runtime takes K up to %lld",
                (long long)K, (long long)kMaxK);
  std::unique_ptr<float[]> qf(new (std::nothrow) float[M * K]);
  std::unique_ptr<float[]> xsf(new (std::nothrow) float[M * G]);
  std::unique_ptr<float[]> wsf(new (std::nothrow) float[NB * G]);
  if (!qf || !xsf || !wsf)
    return fail(entry, FP8Q_ERR_SHAPE,
                "out of memory for the temporaries of M = %lld, N = %lld, "
                "K = %lld",
                (long long)M, (long long)N, (long long)K);

  // Decode the operands the way the kernel reads them: x_scale through the
  // strides the kernel reads (fixed by its contract or the descriptor's).
  float lut[256];
  for (int i = 0; i < 256; ++i)
    lut[i] = fp8q_fp8_decode(uint8_t(i), plan.readType);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k)
      qf[m * K + k] = lut[*qv.at<uint8_t>(m, k)];
  const float *xbase = reinterpret_cast<const float *>(xv.base);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t g = 0; g < G; ++g)
      xsf[m * G + g] = xbase[m * plan.xs0 + g * plan.xs1];
  for (int64_t b = 0; b < NB; ++b)
    for (int64_t g = 0; g < G; ++g)
      wsf[b * G + g] = *wsv.at<float>(b, g);

  GemmCtx ctx{M,        N,         K,         G,       K / G,
              qf.get(), xsf.get(), wsf.get(), &plan.w, plan.preshuffled,
              lut,      &plan.out};
  parallelFor((N + kTileN - 1) / kTileN, gemmTile, &ctx);
  return FP8Q_OK;
}

} // namespace fp8q::rt
