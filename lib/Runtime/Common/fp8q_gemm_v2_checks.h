//===- fp8q_gemm_v2_checks.h - Checks of the v2 block-scaled GEMM -*- C++ -*-=//
//
// The argument checks of gemm_v2 (SPEC v2's block-scaled GEMM: FP8 1x128
// with e8m0 scales, MXFP8, MXFP4, NVFP4), header-only and free of MLIR so
// that every runtime that implements the entry point accepts and rejects
// the same calls with the same statuses and messages. The scale operands
// are v2 scale descriptors (fp8q_scale_checks.h): a descriptor whose kind
// (strided or padded) differs from its declared layout is FP8Q_ERR_LAYOUT
// whatever its shape.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_RUNTIME_FP8Q_GEMM_V2_CHECKS_H
#define FP8Q_RUNTIME_FP8Q_GEMM_V2_CHECKS_H

#include "fp8q/Runtime/fp8q_preshuffle.h"
#include "fp8q_scale_checks.h"

namespace fp8q::rt {

/// The SPEC v2 GEMM format of (q_type, scale_type, group_size), as the
/// contract table's FP8Q_FORMAT_* bit; 0 when it is none of them. FP8
/// 1x128 with f32 scales is fp8q_rt_gemm's.
inline unsigned gemmV2Format(int32_t qType, int32_t scaleType, int64_t group) {
  if (scaleType == FP8Q_SCALE_F8E8M0FNU) {
    if (qType == FP8Q_Q_F8E4M3FN && group == 128)
      return FP8Q_FORMAT_FP8_1X128_E8M0;
    if ((qType == FP8Q_Q_F8E4M3FN || qType == FP8Q_Q_F8E5M2) && group == 32)
      return FP8Q_FORMAT_MXFP8;
    if (qType == FP8Q_Q_F4E2M1FN && group == 32)
      return FP8Q_FORMAT_MXFP4;
  }
  if (scaleType == FP8Q_SCALE_F8E4M3FN && qType == FP8Q_Q_F4E2M1FN &&
      group == 16)
    return FP8Q_FORMAT_NVFP4;
  return 0;
}

/// SPEC name of an FP8Q_FORMAT_* bit, for messages.
inline const char *gemmFormatName(unsigned format) {
  switch (format) {
  case FP8Q_FORMAT_FP8_1X128:
    return "FP8 1x128";
  case FP8Q_FORMAT_FP8_1X128_E8M0:
    return "FP8 1x128 UE8M0";
  case FP8Q_FORMAT_MXFP8:
    return "MXFP8";
  case FP8Q_FORMAT_MXFP4:
    return "MXFP4";
  case FP8Q_FORMAT_NVFP4:
    return "NVFP4";
  }
  return "?";
}

/// What a gemm_v2 call reads, once checkGemmV2 accepted its arguments.
struct GemmV2Plan {
  View2 q, w, out; // q and w as bytes (f4E2M1FN: two codes per byte)
  ScaleView xScale, wScale;
  int64_t M = 0, N = 0, K = 0, G = 0, group = 0;
  /// w_scale is [wRows, wCols]: [ceil(N / 128), K / 128] (FP8 1x128
  /// UE8M0: 128x128 blocks), [N, K / 128] (UE8M0 per weight row, DeepGEMM
  /// sm100) or [N, G] (MX, NVFP4: one scale per 1 x group of each weight
  /// row); weight row n reads row n / wRowBlock.
  int64_t wRows = 0, wCols = 0, wRowBlock = 1;
  unsigned format = 0;
  int32_t qType = FP8Q_Q_F8E4M3FN, scaleType = FP8Q_SCALE_F8E8M0FNU;
  bool fp4 = false;
  /// w is read as preshuffle_16x16 bytes of the dense [N, K / 2] buffer.
  bool preshuffled = false;
  /// NVFP4's product of the activation and weight global scales (1 else).
  float global = 1.0f;
  /// Where that product is (NVFP4 only; checkGemmV2 with globalOnHost
  /// false leaves the value unread).
  const float *globalAt = nullptr;
};

/// 1 when scale view `v` addresses, for every (m, g), the bytes that
/// requirement `req` names, and allocates as much (SPEC v2's equality by
/// bytes addressed). The descriptor's kind decides first: a strided
/// requirement is met only by a strided descriptor and a padded one only by
/// a padded descriptor, whatever the bytes (mori 662). A strided descriptor
/// is then compared by its own strides (a col_major one may state any
/// leading dimension the align allows), a padded one by its declared layout
/// through fp8q_scale_layouts_equal, the compiler's equality.
inline bool scaleMeetsReq(const fp8q_scale_req &req, const ScaleView &v) {
  if (req.kind == FP8Q_SCALE_REQ_ANY)
    return true;
  if (req.kind == FP8Q_SCALE_REQ_STRIDED)
    return !v.padded;
  int64_t s0, s1;
  if (fp8q_scale_layout_strides(req.layout, req.align, v.M, v.G, &s0, &s1))
    return !v.padded && fp8q_scale_strides_equal(v.M, v.G, v.s0, v.s1, s0, s1);
  return v.padded && fp8q_scale_layouts_equal(req.layout, req.align, v.layout,
                                              v.align, v.M, v.G);
}

/// Spells requirement `req` of an [M, G] scale for messages.
inline void describeScaleReq(const fp8q_scale_req &req, int64_t M, int64_t G,
                             char *buf, size_t size) {
  if (req.kind == FP8Q_SCALE_REQ_ANY) {
    snprintf(buf, size, "any layout");
    return;
  }
  if (req.kind == FP8Q_SCALE_REQ_STRIDED) {
    snprintf(buf, size, "a strided layout (row_major or col_major)");
    return;
  }
  char name[48];
  if (fp8q_scale_layout_has_align(req.layout) && req.align > 1)
    snprintf(name, sizeof(name), "%s align %lld",
             fp8q_scale_layout_name(req.layout), (long long)req.align);
  else
    snprintf(name, sizeof(name), "%s", fp8q_scale_layout_name(req.layout));
  int64_t s0, s1;
  if (fp8q_scale_layout_strides(req.layout, req.align, M, G, &s0, &s1))
    snprintf(buf, size, "%s (strides (%lld, %lld))", name, (long long)s0,
             (long long)s1);
  else
    snprintf(buf, size, "%s (a padded descriptor, strides (0, 0))", name);
}

/// Spells what scale view `v` is, for messages.
inline void describeScaleView(const ScaleView &v, char *buf, size_t size) {
  if (!v.padded)
    snprintf(buf, size, "declared %s with strides (%lld, %lld)",
             fp8q_scale_layout_name(v.layout), (long long)v.s0,
             (long long)v.s1);
  else if (fp8q_scale_layout_has_align(v.layout) && v.align > 1)
    snprintf(buf, size, "declared %s align %lld (a padded descriptor)",
             fp8q_scale_layout_name(v.layout), (long long)v.align);
  else
    snprintf(buf, size, "declared %s (a padded descriptor)",
             fp8q_scale_layout_name(v.layout));
}

/// Validates the arguments of gemm_v2 in this order: the codes (kernel,
/// weight layout, q_type, scale_type, the format they make with
/// group_size, both scale layouts and aligns); x_scale, whose sizes are
/// [M, G] (K = G * group_size); q [M, K]; w [N, K]; w_scale; out [M, N]
/// bf16; the global scale (NVFP4 only, finite and positive); then the
/// kernel contract (the format it reads, its x_scale order, its weight
/// layout; with `unchecked` a violation only warns) and the preshuffled
/// weight's shape. Fills `p`.
inline int32_t checkGemmV2(const char *entry, const fp8q_memref_2d *q,
                           const fp8q_memref_2d *xs, const fp8q_memref_2d *w,
                           const fp8q_memref_2d *ws,
                           const fp8q_memref_0d *global,
                           const fp8q_memref_2d *out, int64_t group,
                           int32_t kernel, int32_t qType, int32_t scaleType,
                           int32_t xLayout, int64_t xAlign, int32_t wLayout,
                           int64_t wAlign, int32_t weightLayout, bool unchecked,
                           GemmV2Plan &p, bool globalOnHost = true) {
  if (int32_t s = checkGemmArgs(entry, kernel, weightLayout))
    return s;
  if (int32_t s = checkTypeCodes(entry, qType, scaleType))
    return s;
  p.format = gemmV2Format(qType, scaleType, group);
  if (!p.format)
    return fail(entry, FP8Q_ERR_ARG,
                "q_type %s, scale_type %s and group_size %lld are not a SPEC "
                "v2 GEMM format (FP8 1x128 UE8M0: f8E4M3FN, f8E8M0FNU, 128; "
                "MXFP8: f8E4M3FN or f8E5M2, f8E8M0FNU, 32; MXFP4: f4E2M1FN, "
                "f8E8M0FNU, 32; NVFP4: f4E2M1FN, f8E4M3FN, 16); f32 scales "
                "are fp8q_rt_gemm's",
                qTypeName(qType), scaleTypeName(scaleType), (long long)group);
  if (int32_t s =
          checkScaleLayout(entry, "x_scale_layout", scaleType, xLayout, xAlign))
    return s;
  if (int32_t s =
          checkScaleLayout(entry, "w_scale_layout", scaleType, wLayout, wAlign))
    return s;
  p.qType = qType;
  p.scaleType = scaleType;
  p.group = group;
  p.fp4 = qType == FP8Q_Q_F4E2M1FN;

  // x_scale gives M and G, so that K = G * group_size is known before q,
  // whose f4E2M1FN descriptor may count codes or bytes.
  if (!xs)
    return fail(entry, FP8Q_ERR_NULL,
                "operand x_scale: descriptor pointer is null");
  if (int32_t s =
          checkScaleOperand(entry, "x_scale", xs, scaleType, xLayout, xAlign,
                            xs->sizes[0], xs->sizes[1], Access::Read, p.xScale))
    return s;
  p.M = p.xScale.M;
  p.G = p.xScale.G;
  if (__int128(p.G) * group > __int128(FP8Q_MAX_SPAN_BYTES))
    return fail(entry, FP8Q_ERR_SHAPE,
                "x_scale has %lld groups of %lld: K would exceed 2^48",
                (long long)p.G, (long long)group);
  p.K = p.G * group;
  if (int32_t s =
          checkCodesOperand(entry, "q", q, qType, p.M, p.K, Access::Read, p.q))
    return s;
  if (int32_t s =
          checkCodesOperand(entry, "w", w, qType, -1, p.K, Access::Read, p.w))
    return s;
  p.N = p.w.rows;
  // UE8M0 weight scales are per 128x128 block, or one row per weight row
  // (DeepGEMM on sm100, the deepgemm_sm100 contract): the descriptor's rows
  // say which (they agree when N == 1).
  if (p.format == FP8Q_FORMAT_FP8_1X128_E8M0 && ws && ws->sizes[0] == p.N &&
      p.N != 1) {
    p.wRowBlock = 1;
    p.wRows = p.N;
    p.wCols = p.K / FP8Q_SCALE_BLOCK;
  } else if (p.format == FP8Q_FORMAT_FP8_1X128_E8M0) {
    p.wRowBlock = FP8Q_SCALE_BLOCK;
    p.wRows = (p.N + FP8Q_SCALE_BLOCK - 1) / FP8Q_SCALE_BLOCK;
    p.wCols = p.K / FP8Q_SCALE_BLOCK;
  } else {
    p.wRowBlock = 1;
    p.wRows = p.N;
    p.wCols = p.G;
  }
  if (int32_t s =
          checkScaleOperand(entry, "w_scale", ws, scaleType, wLayout, wAlign,
                            p.wRows, p.wCols, Access::Read, p.wScale))
    return s;
  if (int32_t s =
          checkOperand(entry, "out", out, 2, p.M, p.N, Access::Write, p.out))
    return s;
  // A device runtime's global scale is device memory: its descriptor is
  // checked here and the kernel reads the value.
  if (p.format == FP8Q_FORMAT_NVFP4) {
    if (int32_t s = globalOnHost ? readGlobalScale(entry, global, p.global)
                                 : checkGlobalScale(entry, global, p.globalAt))
      return s;
  }

  // The kernel contract.
  const fp8q_kernel_contract &contract = fp8q_kernel_contracts[kernel];
  char msg[384];
  auto violation = [&]() -> int32_t {
    if (!unchecked)
      return fail(entry, FP8Q_ERR_CONTRACT, "%s", msg);
    warn(entry, "%s (FP8Q_RT_UNCHECKED=1: reading it anyway)", msg);
    return FP8Q_OK;
  };
  if (!(contract.formats & p.format)) {
    snprintf(msg, sizeof(msg), "kernel %s does not read %s operands",
             contract.name, gemmFormatName(p.format));
    if (int32_t s = violation())
      return s;
  }
  // Each scale against the kernel's requirement in the one layout algebra
  // (x_scale_layout / w_scale_layout), by the bytes addressed: a padded
  // buffer is never accepted where a strided one is read, or the reverse,
  // whatever its shape (mori 662).
  const char *names[2] = {"x_scale", "w_scale"};
  const fp8q_scale_req *reqs[2] = {&contract.x_scale_layout,
                                   &contract.w_scale_layout};
  const ScaleView *views[2] = {&p.xScale, &p.wScale};
  for (int i = 0; i < 2; ++i) {
    if (scaleMeetsReq(*reqs[i], *views[i]))
      continue;
    const ScaleView &v = *views[i];
    char want[96], got[96];
    describeScaleReq(*reqs[i], v.M, v.G, want, sizeof(want));
    describeScaleView(v, got, sizeof(got));
    snprintf(msg, sizeof(msg),
             "operand %s of kernel %s must be %s but is %s; materialize it to "
             "the kernel's layout (fp8q_rt_materialize_v2)",
             names[i], contract.name, want, got);
    if (int32_t s = violation())
      return s;
  }
  p.preshuffled = weightLayout == FP8Q_WEIGHT_LAYOUT_PRESHUFFLE_16X16;
  if (weightLayoutMismatch(contract, p.preshuffled, msg, sizeof(msg)))
    if (int32_t s = violation())
      return s;

  // A preshuffled weight is read by flat offset: memory safety, never
  // skipped.
  if (p.preshuffled) {
    const View2 &wv = p.w;
    if (!p.fp4)
      return fail(entry, FP8Q_ERR_ARG,
                  "weight_layout preshuffle_16x16 of gemm_v2 is f4E2M1FN's "
                  "(byte-wise, AITER shuffle_weight); got q_type %s",
                  qTypeName(qType));
    if (p.N % 16 != 0 || p.K % 64 != 0)
      return fail(entry, FP8Q_ERR_SHAPE,
                  "a preshuffle_16x16 f4E2M1FN weight needs N %% 16 == 0 and "
                  "K %% 64 == 0, got [%lld, %lld]",
                  (long long)p.N, (long long)p.K);
    if ((p.N > 1 && wv.s0 != p.K / 2) || wv.s1 != 1)
      return fail(entry, FP8Q_ERR_LAYOUT,
                  "operand w: a preshuffle_16x16 weight must be dense bytes "
                  "(strides (%lld, 1)) but has strides (%lld, %lld)",
                  (long long)(p.K / 2), (long long)wv.s0, (long long)wv.s1);
  }
  return FP8Q_OK;
}

} // namespace fp8q::rt

#endif // FP8Q_RUNTIME_FP8Q_GEMM_V2_CHECKS_H
