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
#include <vector>

namespace fp8q::rt {

namespace {

/// Output columns per task; a multiple of 16 dividing 128, so one task
/// stays inside one weight-scale block.
constexpr int64_t kTileN = 64;

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
  const int64_t nb = n0 / 128;
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

/// "col_major (strides (1, 64))" etc. for messages.
void describeScaleReq(const fp8q_kernel_contract &c, int64_t M, int64_t G,
                      char *buf, size_t size) {
  if (c.x_scale == FP8Q_SCALE_ROW_MAJOR) {
    snprintf(buf, size, "row_major (strides (%lld, 1))", (long long)G);
    return;
  }
  int64_t ld = (M + c.x_scale_align - 1) / c.x_scale_align * c.x_scale_align;
  if (c.x_scale_align > 1)
    snprintf(buf, size, "col_major align %lld (strides (1, %lld))",
             (long long)c.x_scale_align, (long long)ld);
  else
    snprintf(buf, size, "col_major (strides (1, %lld))", (long long)ld);
}

} // namespace

int32_t gemmImpl(const char *entry, fp8q_memref_2d *q, fp8q_memref_2d *xs,
                 fp8q_memref_2d *w, fp8q_memref_2d *ws, fp8q_memref_2d *out,
                 int32_t kernel, int32_t fp8Type, int32_t weightLayout) {
  clearError();
  if (int32_t s = checkGemmArgs(entry, kernel, weightLayout))
    return s;
  if (int32_t s = checkFp8Type(entry, fp8Type))
    return s;
  const fp8q_kernel_contract &contract = fp8q_kernel_contracts[kernel];
  const char *kname = contract.name;

  View2 qv, xv, wv, wsv, ov;
  if (int32_t s = checkOperand(entry, "q", q, 1, -1, -1, Access::Read, qv))
    return s;
  const int64_t M = qv.rows, K = qv.cols;
  if (int32_t s =
          checkOperand(entry, "x_scale", xs, 4, M, -1, Access::Read, xv))
    return s;
  const int64_t G = xv.cols;
  if (K % G != 0)
    return fail(entry, FP8Q_ERR_SHAPE,
                "x_scale has %lld groups, which does not divide K = %lld",
                (long long)G, (long long)K);
  if (int32_t s = checkOperand(entry, "w", w, 1, -1, K, Access::Read, wv))
    return s;
  const int64_t N = wv.rows;
  const int64_t NB = (N + 127) / 128;
  if (int32_t s =
          checkOperand(entry, "w_scale", ws, 4, NB, G, Access::Read, wsv))
    return s;
  if (int32_t s = checkOperand(entry, "out", out, 2, M, N, Access::Write, ov))
    return s;

  // Contract checks, before anything is read. Unchecked mode turns them
  // into warnings and reads as the kernel does.
  const bool unchecked = uncheckedMode();
  auto violation = [&](const char *fmt, auto... args) -> int32_t {
    char msg[384];
    snprintf(msg, sizeof(msg), fmt, args...);
    if (!unchecked)
      return fail(entry, FP8Q_ERR_CONTRACT, "%s", msg);
    warn(entry, "%s (FP8Q_RT_UNCHECKED=1: reading it anyway)", msg);
    return FP8Q_OK;
  };
  if (!fp8q_scale_strides_ok(fp8q_kernel(kernel), M, G, xv.s0, xv.s1)) {
    char req[96];
    describeScaleReq(contract, M, G, req, sizeof(req));
    if (int32_t s = violation("operand x_scale of kernel %s must be %s but "
                              "has strides (%lld, %lld) [M=%lld, G=%lld]",
                              kname, req, (long long)xv.s0, (long long)xv.s1,
                              (long long)M, (long long)G))
      return s;
  }
  bool preshuffled = weightLayout == FP8Q_WEIGHT_LAYOUT_PRESHUFFLE_16X16;
  if (contract.weight == FP8Q_WEIGHT_PRESHUFFLE_16X16 && !preshuffled) {
    if (int32_t s = violation("operand w of kernel %s must be "
                              "preshuffle_16x16 but is plain",
                              kname))
      return s;
    preshuffled = true;
  } else if (contract.weight == FP8Q_WEIGHT_PLAIN && preshuffled) {
    if (int32_t s = violation("operand w of kernel %s must be plain [N, K] "
                              "but is preshuffle_16x16",
                              kname))
      return s;
    preshuffled = false;
  }
  if (preshuffled && ((N > 1 && wv.s0 != K) || wv.s1 != 1)) {
    if (int32_t s =
            violation("operand w of kernel %s: a preshuffle_16x16 "
                      "weight must be dense (strides (%lld, 1)) but "
                      "has strides (%lld, %lld)",
                      kname, (long long)K, (long long)wv.s0, (long long)wv.s1))
      return s;
  }
  int32_t readType = fp8Type;
  if (contract.fp8 == FP8Q_FP8_E4M3FN && fp8Type != FP8Q_F8E4M3FN) {
    if (int32_t s = violation("kernel %s reads f8E4M3FN but fp8_type is "
                              "f8E4M3FNUZ",
                              kname))
      return s;
    readType = FP8Q_F8E4M3FN;
  }

  // Memory safety, never skipped: what the kernel reads must lie inside
  // what the descriptors address.
  if (preshuffled) {
    if (N % 16 != 0 || K % 32 != 0)
      return fail(entry, FP8Q_ERR_SHAPE,
                  "a preshuffle_16x16 weight needs N %% 16 == 0 and "
                  "K %% 32 == 0, got [%lld, %lld]",
                  (long long)N, (long long)K);
    if (wv.maxIndex() < N * K - 1)
      return fail(entry, FP8Q_ERR_LAYOUT,
                  "kernel %s reads %lld preshuffled weight bytes but operand "
                  "w addresses only %lld",
                  kname, (long long)(N * K), (long long)(wv.maxIndex() + 1));
  }
  int64_t ld = 0;
  if (contract.x_scale != FP8Q_SCALE_ANY) {
    int64_t kernelMax;
    if (contract.x_scale == FP8Q_SCALE_ROW_MAJOR) {
      kernelMax = M * G - 1;
    } else {
      ld = (M + contract.x_scale_align - 1) / contract.x_scale_align *
           contract.x_scale_align;
      kernelMax = (G - 1) * ld + M - 1;
    }
    if (kernelMax > xv.maxIndex())
      return fail(entry, FP8Q_ERR_LAYOUT,
                  "kernel %s reads x_scale elements up to index %lld but the "
                  "descriptor (strides (%lld, %lld)) addresses only up to "
                  "%lld",
                  kname, (long long)kernelMax, (long long)xv.s0,
                  (long long)xv.s1, (long long)xv.maxIndex());
  }

  // Decode the operands the way the kernel reads them.
  float lut[256];
  for (int i = 0; i < 256; ++i)
    lut[i] = fp8q_fp8_decode(uint8_t(i), readType);
  std::vector<float> qf(M * K), xsf(M * G), wsf(NB * G);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k)
      qf[m * K + k] = lut[*qv.at<uint8_t>(m, k)];
  const float *xbase = reinterpret_cast<const float *>(xv.base);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t g = 0; g < G; ++g) {
      float v;
      if (contract.x_scale == FP8Q_SCALE_ROW_MAJOR)
        v = xbase[m * G + g];
      else if (contract.x_scale == FP8Q_SCALE_COL_MAJOR)
        v = xbase[m + g * ld];
      else
        v = *xv.at<float>(m, g);
      xsf[m * G + g] = v;
    }
  for (int64_t b = 0; b < NB; ++b)
    for (int64_t g = 0; g < G; ++g)
      wsf[b * G + g] = *wsv.at<float>(b, g);

  GemmCtx ctx{M,          N,          K,   G,           K / G, qf.data(),
              xsf.data(), wsf.data(), &wv, preshuffled, lut,   &ov};
  parallelFor((N + kTileN - 1) / kTileN, gemmTile, &ctx);
  return FP8Q_OK;
}

} // namespace fp8q::rt
