//===- fp8q_scale_checks.h - Checks of v2 formats and scales ---*- C++ -*-===//
//
// The argument checks of SPEC v2's entry points (quantize_v2,
// dequantize_v2, materialize_v2, and the scale operands and global scale
// of gemm_v2, fp8q_gemm_v2_checks.h), shared by the CPU and the GPU
// runtimes so that both accept and reject the same codes and scale
// descriptors with the same messages. Header-only, no MLIR.
//
// A v2 scale operand is a rank-2 descriptor whose sizes are the logical
// [M, G]. A strided layout (row_major, col_major) has exactly the layout's
// strides; a padded layout (col_major pack = 4, swizzle_32_4_4, cdna4_mx)
// has strides (0, 0) and its data is the layout's whole allocation from
// aligned + offset. So the descriptor itself says whether it is padded,
// and a buffer of one kind is rejected where the other is read, whatever
// its shape (mori 662: [M, G] row-major and [G, M] column-major shapes
// cannot be told apart).
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_RUNTIME_FP8Q_SCALE_CHECKS_H
#define FP8Q_RUNTIME_FP8Q_SCALE_CHECKS_H

#include "fp8q/Runtime/fp8q_mx_numerics.h"
#include "fp8q/Runtime/fp8q_scale_layouts.h"
#include "fp8q_operand_checks.h"

#include <cmath>
#include <cstring>

namespace fp8q::rt {

inline const char *qTypeName(int32_t t) {
  static const char *names[] = {"f8E4M3FN", "f8E4M3FNUZ", "f8E5M2", "f4E2M1FN"};
  return t >= 0 && t < FP8Q_Q_TYPE_COUNT ? names[t] : "?";
}

inline const char *scaleTypeName(int32_t t) {
  static const char *names[] = {"f32", "f8E8M0FNU", "f8E4M3FN"};
  return t >= 0 && t < FP8Q_SCALE_TYPE_COUNT ? names[t] : "?";
}

inline const char *roundingName(int32_t r) {
  static const char *names[] = {"exact", "pow2_ceil", "pow2_floor", "e4m3"};
  return r >= 0 && r < FP8Q_ROUND_COUNT ? names[r] : "?";
}

/// The largest layout_align accepted: far beyond any kernel's (16 bytes of
/// TMA alignment), small enough that roundup(M, align) cannot overflow.
constexpr int64_t kMaxScaleAlign = int64_t(1) << 20;

/// Bytes of one scale element of `scaleType` (a valid code).
inline size_t scaleEltSize(int32_t scaleType) {
  return scaleType == FP8Q_SCALE_F32 ? 4 : 1;
}

/// Checks a scale layout code, its align and that it can hold `scaleType`
/// (a valid code).
inline int32_t checkScaleLayout(const char *entry, const char *name,
                                int32_t scaleType, int32_t layout,
                                int64_t align) {
  if (layout < 0 || layout >= FP8Q_LAYOUT_COUNT)
    return fail(entry, FP8Q_ERR_ARG,
                "%s %d is not an fp8q_scale_layout (0 = row_major, 1 = "
                "col_major, 2 = col_major pack = 4, 3 = swizzle_32_4_4, 4 = "
                "cdna4_mx)",
                name, layout);
  if (fp8q_scale_layout_has_align(layout)) {
    if (align < 1 || align > kMaxScaleAlign)
      return fail(entry, FP8Q_ERR_ARG,
                  "the align %lld of %s %s must be in [1, 2^20]",
                  (long long)align, name, fp8q_scale_layout_name(layout));
  } else if (align != 1) {
    return fail(entry, FP8Q_ERR_ARG,
                "%s %s has no align: its align must be 1, got %lld", name,
                fp8q_scale_layout_name(layout), (long long)align);
  }
  if (fp8q_scale_layout_bytes_only(layout) && scaleType == FP8Q_SCALE_F32)
    return fail(entry, FP8Q_ERR_ARG,
                "%s %s holds 1-byte scales (f8E8M0FNU or f8E4M3FN), not f32",
                name, fp8q_scale_layout_name(layout));
  return FP8Q_OK;
}

/// Checks that q_type and scale_type are codes of fp8q_q_type and
/// fp8q_scale_type.
inline int32_t checkTypeCodes(const char *entry, int32_t qType,
                              int32_t scaleType) {
  if (qType < 0 || qType >= FP8Q_Q_TYPE_COUNT)
    return fail(entry, FP8Q_ERR_ARG,
                "q_type %d is not an fp8q_q_type (0 = f8E4M3FN, 1 = "
                "f8E4M3FNUZ, 2 = f8E5M2, 3 = f4E2M1FN)",
                qType);
  if (scaleType < 0 || scaleType >= FP8Q_SCALE_TYPE_COUNT)
    return fail(entry, FP8Q_ERR_ARG,
                "scale_type %d is not an fp8q_scale_type (0 = f32, 1 = "
                "f8E8M0FNU, 2 = f8E4M3FN)",
                scaleType);
  return FP8Q_OK;
}

/// Checks the codes and their combination (SPEC v2's table): q_type,
/// scale_type, the layout and its align, and, when `rounding` >= 0, the
/// scale rounding.
inline int32_t checkScaleFormat(const char *entry, int32_t qType,
                                int32_t scaleType, int32_t rounding,
                                int32_t layout, int64_t align) {
  if (int32_t s = checkTypeCodes(entry, qType, scaleType))
    return s;
  if (int32_t s =
          checkScaleLayout(entry, "scale_layout", scaleType, layout, align))
    return s;
  if (scaleType == FP8Q_SCALE_F8E4M3FN && qType != FP8Q_Q_F4E2M1FN)
    return fail(entry, FP8Q_ERR_ARG,
                "f8E4M3FN scales (NVFP4) need q_type f4E2M1FN, got %s",
                qTypeName(qType));
  if (rounding < 0)
    return FP8Q_OK;
  if (rounding >= FP8Q_ROUND_COUNT)
    return fail(entry, FP8Q_ERR_ARG,
                "scale_rounding %d is not an fp8q_scale_rounding (0 = exact, "
                "1 = pow2_ceil, 2 = pow2_floor, 3 = e4m3)",
                rounding);
  bool ok;
  switch (rounding) {
  case FP8Q_ROUND_EXACT:
    ok = scaleType == FP8Q_SCALE_F32;
    break;
  case FP8Q_ROUND_E4M3:
    ok = scaleType == FP8Q_SCALE_F8E4M3FN;
    break;
  default:
    ok = scaleType == FP8Q_SCALE_F32 || scaleType == FP8Q_SCALE_F8E8M0FNU;
  }
  if (!ok)
    return fail(entry, FP8Q_ERR_ARG,
                "scale_rounding %s cannot be stored as %s scales (exact: f32; "
                "pow2_ceil, pow2_floor: f32 or f8E8M0FNU; e4m3: f8E4M3FN)",
                roundingName(rounding), scaleTypeName(scaleType));
  return FP8Q_OK;
}

/// A validated v2 scale operand: the logical [M, G] scale in `layout`.
/// Element (m, g) is at base + offset(m, g) * eltSize; for a padded layout
/// the `alloc` elements from base are the whole allocation (padding
/// included), for a strided one only the addressed elements are its own.
struct ScaleView {
  char *base = nullptr;
  int64_t M = 0, G = 0, s0 = 0, s1 = 0, align = 1, alloc = 0;
  int32_t layout = FP8Q_LAYOUT_ROW_MAJOR;
  size_t eltSize = 1;
  bool padded = false;

  int64_t offset(int64_t m, int64_t g) const {
    return padded ? fp8q_scale_offset(layout, align, M, G, m, g)
                  : m * s0 + g * s1;
  }
  /// The value of (m, g) as fp32 (`scaleType` the view's: f32, or a 1-byte
  /// e8m0 / e4m3 scale decoded; e8m0 0xFF is NaN).
  float load(int32_t scaleType, int64_t m, int64_t g) const {
    const char *at = base + offset(m, g) * int64_t(eltSize);
    if (scaleType == FP8Q_SCALE_F32) {
      float f;
      std::memcpy(&f, at, 4);
      return f;
    }
    return fp8q_scale_decode_byte(uint8_t(*at), scaleType);
  }
};

/// Validates scale operand `name` as a logical [M, G] scale of `scaleType`
/// in `layout` / `align` (codes already checked by checkScaleLayout):
/// sizes [M, G]; a padded layout has strides (0, 0) and its allocation
/// within FP8Q_MAX_SPAN_BYTES; a strided layout has the layout's strides
/// (row_major exactly; col_major any leading dimension >= M that is a
/// multiple of align; an extent of 1 makes its stride irrelevant). Fills
/// `v`.
inline int32_t checkScaleOperand(const char *entry, const char *name,
                                 const fp8q_memref_2d *d, int32_t scaleType,
                                 int32_t layout, int64_t align, int64_t M,
                                 int64_t G, Access access, ScaleView &v) {
  const size_t elt = scaleEltSize(scaleType);
  v = ScaleView();
  v.M = M;
  v.G = G;
  v.layout = layout;
  v.align = align;
  v.eltSize = elt;
  v.padded = fp8q_scale_layout_bytes_only(layout);
  if (!v.padded) {
    int64_t e0 = 0, e1 = 0;
    fp8q_scale_layout_strides(layout, align, M, G, &e0, &e1);
    // The layout mismatch first: a padded buffer's strides (0, 0) would
    // otherwise be reported as overlapping output elements.
    auto wrongStrides = [&](int64_t s0, int64_t s1) {
      return fail(entry, FP8Q_ERR_LAYOUT,
                  "operand %s is declared %s (align %lld): its strides must "
                  "be (%lld, %lld)%s, got (%lld, %lld)%s",
                  name, fp8q_scale_layout_name(layout), (long long)align,
                  (long long)e0, (long long)e1,
                  layout == FP8Q_LAYOUT_COL_MAJOR ? " or (1, ld >= M), ld a "
                                                    "multiple of the align"
                                                  : "",
                  (long long)s0, (long long)s1,
                  s0 == 0 && s1 == 0
                      ? " (strides (0, 0) mark a padded or swizzled buffer)"
                      : "");
    };
    if (d && d->aligned && d->strides[0] == 0 && d->strides[1] == 0 &&
        d->sizes[0] == M && d->sizes[1] == G && (M > 1 || G > 1))
      return wrongStrides(0, 0);
    View2 sv;
    if (int32_t s = checkOperand(entry, name, d, elt, M, G, access, sv))
      return s;
    // row_major: exactly (G, 1). col_major: (1, ld) with any ld >= M that
    // is a multiple of align (a memref of dynamic M states ld but not the
    // align it was rounded to; the elements are read through the strides).
    bool ok = layout == FP8Q_LAYOUT_ROW_MAJOR
                  ? (M <= 1 || sv.s0 == e0) && (G <= 1 || sv.s1 == e1)
                  : (M <= 1 || sv.s0 == 1) &&
                        (G <= 1 || (sv.s1 >= M && sv.s1 % align == 0));
    if (!ok)
      return wrongStrides(sv.s0, sv.s1);
    v.base = sv.base;
    v.s0 = sv.s0;
    v.s1 = sv.s1;
    v.alloc = fp8q_scale_layout_alloc(layout, align, M, G);
    return FP8Q_OK;
  }
  if (int32_t s = detail::checkCommon(entry, name, d, d ? d->aligned : nullptr,
                                      d ? d->offset : 0, d ? d->sizes : nullptr,
                                      d ? d->strides : nullptr, 2, elt))
    return s;
  if (d->sizes[0] != M || d->sizes[1] != G)
    return fail(entry, FP8Q_ERR_SHAPE,
                "operand %s has sizes [%lld, %lld], expected [%lld, %lld]",
                name, (long long)d->sizes[0], (long long)d->sizes[1],
                (long long)M, (long long)G);
  if (M == 0 || G == 0)
    return fail(entry, FP8Q_ERR_EMPTY,
                "operand %s is empty (sizes [%lld, %lld]); M == 0 and empty "
                "extents are not supported",
                name, (long long)M, (long long)G);
  if (d->strides[0] != 0 || d->strides[1] != 0)
    return fail(entry, FP8Q_ERR_LAYOUT,
                "operand %s is declared %s, a padded layout: its descriptor "
                "must have strides (0, 0) and point at the layout's whole "
                "allocation, got strides (%lld, %lld) (a strided row_major "
                "or col_major buffer)",
                name, fp8q_scale_layout_name(layout), (long long)d->strides[0],
                (long long)d->strides[1]);
  // Bound the allocation before computing it in int64: it is below
  // (M + max(align, 256)) * (G + 8) elements.
  const __int128 bound =
      __int128(M + (align > 256 ? align : 256)) * (G + 8) * __int128(elt);
  if (bound + d->offset * __int128(elt) > __int128(FP8Q_MAX_SPAN_BYTES))
    return fail(entry, FP8Q_ERR_SHAPE,
                "operand %s: a [%lld, %lld] scale in layout %s would span "
                "more than 2^48 bytes",
                name, (long long)M, (long long)G,
                fp8q_scale_layout_name(layout));
  v.alloc = fp8q_scale_layout_alloc(layout, align, M, G);
  v.base = static_cast<char *>(d->aligned) + d->offset * int64_t(elt);
  return FP8Q_OK;
}

/// Rewrites the descriptor of `rows` x `K` codes of `qType` as a descriptor
/// of its bytes into `bytes`. fp8 is one byte per code, sizes [rows, K], and
/// is copied as is. f4E2M1FN packs two codes per byte (element 2i in the
/// low nibble) and its descriptor counts either bytes, sizes [rows, K / 2]
/// and strides in bytes (the C API), or codes, sizes [rows, K] with a unit
/// column stride and an even offset and row stride (MLIR's memref of
/// f4E2M1FN, lowered by the compiler as a code-counted i8 descriptor), which
/// is halved. Only what the halving needs is checked here; the byte view is
/// checked by checkOperand.
inline int32_t codesAsBytes(const char *entry, const char *name,
                            const fp8q_memref_2d *d, int32_t qType, int64_t K,
                            fp8q_memref_2d &bytes) {
  if (!d)
    return fail(entry, FP8Q_ERR_NULL, "operand %s: descriptor pointer is null",
                name);
  bytes = *d;
  if (qType != FP8Q_Q_F4E2M1FN || d->sizes[1] != K)
    return FP8Q_OK;
  const bool multiRow = d->sizes[0] > 1;
  if (d->strides[1] != 1 || d->offset % 2 != 0 ||
      (multiRow && d->strides[0] % 2 != 0))
    return fail(entry, FP8Q_ERR_LAYOUT,
                "operand %s: an f4E2M1FN descriptor that counts codes ([%lld, "
                "%lld]) needs a unit column stride, an even offset and an even "
                "row stride (whole bytes), got offset %lld, strides (%lld, "
                "%lld)",
                name, (long long)d->sizes[0], (long long)d->sizes[1],
                (long long)d->offset, (long long)d->strides[0],
                (long long)d->strides[1]);
  bytes.offset = d->offset / 2;
  bytes.sizes[1] = K / 2;
  bytes.strides[0] = d->strides[0] / 2;
  return FP8Q_OK;
}

/// Validates a quantized operand (quantize_v2's q, gemm_v2's q and w):
/// `rows` x `K` codes of `qType` (rows < 0: any), counted as codesAsBytes
/// says. Fills `v` with the byte view either way.
inline int32_t checkCodesOperand(const char *entry, const char *name,
                                 const fp8q_memref_2d *d, int32_t qType,
                                 int64_t rows, int64_t K, Access access,
                                 View2 &v) {
  fp8q_memref_2d bytes;
  if (int32_t s = codesAsBytes(entry, name, d, qType, K, bytes))
    return s;
  return checkOperand(entry, name, &bytes, 1, rows,
                      qType == FP8Q_Q_F4E2M1FN ? K / 2 : K, access, v);
}

/// Checks the codes of preshuffle_v2 / unpreshuffle_v2 (q_type, K) and
/// rewrites `src` and `dst` as byte descriptors for the byte-wise
/// preshuffle_16x16: fp8 is shuffled per code, f4E2M1FN per byte of its
/// [N, K / 2] packed rows (AITER's shuffle_weight), so K % 64 == 0.
inline int32_t preshuffleBytes(const char *entry, const fp8q_memref_2d *src,
                               const fp8q_memref_2d *dst, int32_t qType,
                               int64_t K, fp8q_memref_2d &srcBytes,
                               fp8q_memref_2d &dstBytes) {
  if (qType < 0 || qType >= FP8Q_Q_TYPE_COUNT)
    return fail(entry, FP8Q_ERR_ARG,
                "q_type %d is not an fp8q_q_type (0 = f8E4M3FN, 1 = "
                "f8E4M3FNUZ, 2 = f8E5M2, 3 = f4E2M1FN)",
                qType);
  if (qType == FP8Q_Q_F4E2M1FN && (K <= 0 || K % 64 != 0))
    return fail(entry, FP8Q_ERR_SHAPE,
                "preshuffle_16x16 of an f4E2M1FN weight shuffles its [N, K / "
                "2] bytes and needs K %% 64 == 0, got K = %lld",
                (long long)K);
  if (int32_t s = codesAsBytes(entry, "w", src, qType, K, srcBytes))
    return s;
  if (int32_t s = codesAsBytes(entry, "dst", dst, qType, K, dstBytes))
    return s;
  const int64_t kBytes = qType == FP8Q_Q_F4E2M1FN ? K / 2 : K;
  const char *names[2] = {"w", "dst"};
  const fp8q_memref_2d *views[2] = {&srcBytes, &dstBytes};
  for (int i = 0; i < 2; ++i) {
    if (views[i]->sizes[1] == kBytes)
      continue;
    if (qType == FP8Q_Q_F4E2M1FN)
      return fail(entry, FP8Q_ERR_SHAPE,
                  "operand %s has %lld columns: an f4E2M1FN row of K = %lld "
                  "codes is %lld bytes (a descriptor counting bytes) or %lld "
                  "codes",
                  names[i], (long long)views[i]->sizes[1], (long long)K,
                  (long long)kBytes, (long long)K);
    return fail(entry, FP8Q_ERR_SHAPE,
                "operand %s has %lld columns, expected K = %lld", names[i],
                (long long)views[i]->sizes[1], (long long)K);
  }
  return FP8Q_OK;
}

/// Validates the descriptor of the NVFP4 global scale (rank-0 f32):
/// non-null, a non-null data pointer aligned to 4 bytes, an offset in
/// range. `at` points at the value, which is not read: the GPU runtimes
/// read it on the device (the host would have to wait for the stream).
inline int32_t checkGlobalScale(const char *entry, const fp8q_memref_0d *global,
                                const float *&at) {
  if (!global)
    return fail(entry, FP8Q_ERR_NULL,
                "operand global_scale: descriptor pointer is null (f8E4M3FN "
                "scales need the NVFP4 global scale)");
  if (!global->aligned)
    return fail(entry, FP8Q_ERR_NULL,
                "operand global_scale: data pointer is null");
  if (reinterpret_cast<uintptr_t>(global->aligned) % 4 != 0)
    return fail(entry, FP8Q_ERR_ALIGN,
                "operand global_scale: data pointer %p is not aligned to its "
                "4-byte element",
                global->aligned);
  if (global->offset < 0 || global->offset > FP8Q_MAX_SPAN_BYTES / 4)
    return fail(entry, FP8Q_ERR_LAYOUT, "operand global_scale: bad offset %lld",
                (long long)global->offset);
  at = static_cast<const float *>(global->aligned) + global->offset;
  return FP8Q_OK;
}

/// checkGlobalScale, then the value on the host: finite and positive.
inline int32_t readGlobalScale(const char *entry, const fp8q_memref_0d *global,
                               float &value) {
  const float *at = nullptr;
  if (int32_t s = checkGlobalScale(entry, global, at))
    return s;
  value = *at;
  if (!(value > 0.0f) || value == INFINITY)
    return fail(entry, FP8Q_ERR_ARG,
                "global_scale %g must be finite and positive", double(value));
  return FP8Q_OK;
}

} // namespace fp8q::rt

#endif // FP8Q_RUNTIME_FP8Q_SCALE_CHECKS_H
