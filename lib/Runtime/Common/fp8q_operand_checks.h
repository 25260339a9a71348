//===- fp8q_operand_checks.h - Runtime argument checks ------*- C++ -*-===//
//-*-===//
//
// The argument checks every fp8q runtime runs before it touches memory,
// shared by the CPU reference runtime and the HIP runtime so that both
// accept and reject exactly the same descriptors with the same statuses and
// messages. Header-only C++17, no MLIR or LLVM: a runtime includes it and
// defines fp8q::rt::fail (how it records and prints an error).
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_RUNTIME_FP8Q_OPERAND_CHECKS_H
#define FP8Q_RUNTIME_FP8Q_OPERAND_CHECKS_H

#include "fp8q/Runtime/fp8q_runtime.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace fp8q::rt {

/// Records `status` with a printf-style message for entry point `entry`,
/// prints it to stderr and returns `status`. Defined by each runtime.
int32_t fail(const char *entry, int32_t status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/// Prints a warning for entry point `entry` (contract violations let
/// through by FP8Q_RT_UNCHECKED=1). Defined by each runtime.
void warn(const char *entry, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/// True when FP8Q_RT_UNCHECKED=1: contract violations only warn.
inline bool uncheckedMode() {
  const char *v = getenv("FP8Q_RT_UNCHECKED");
  return v && strcmp(v, "1") == 0;
}

/// A validated rank-2 operand: element (i, j) lives at
/// base + (i * s0 + j * s1) * eltSize. Validation guarantees that every
/// such byte offset fits in FP8Q_MAX_SPAN_BYTES, so the arithmetic cannot
/// overflow.
struct View2 {
  char *base = nullptr;
  int64_t rows = 0, cols = 0;
  int64_t s0 = 0, s1 = 0;
  size_t eltSize = 0;

  template <typename T> T *at(int64_t i, int64_t j) const {
    return reinterpret_cast<T *>(base + (i * s0 + j * s1) * eltSize);
  }
  /// Largest element index (relative to base) the descriptor addresses.
  int64_t maxIndex() const { return (rows - 1) * s0 + (cols - 1) * s1; }
  /// Bytes from base to the end of the last addressed element.
  int64_t spanBytes() const { return (maxIndex() + 1) * int64_t(eltSize); }
};

/// Rank-1 counterpart of View2.
struct View1 {
  char *base = nullptr;
  int64_t size = 0, s0 = 0;
  size_t eltSize = 0;
  template <typename T> T *at(int64_t i) const {
    return reinterpret_cast<T *>(base + i * s0 * eltSize);
  }
};

/// How an operand is used: written operands must not overlap themselves.
enum class Access { Read, Write };

namespace detail {

/// offset + sum((size_d - 1) * stride_d) + 1 elements, times `eltSize`, or
/// -1 when it exceeds FP8Q_MAX_SPAN_BYTES (no overflow for any input in
/// [0, FP8Q_MAX_SPAN_BYTES]).
inline int64_t spanBytes(int64_t offset, const int64_t *sizes,
                         const int64_t *strides, int rank, size_t eltSize) {
  int64_t elements = offset + 1;
  for (int d = 0; d < rank; ++d) {
    int64_t step;
    if (__builtin_mul_overflow(sizes[d] - 1, strides[d], &step) ||
        __builtin_add_overflow(elements, step, &elements))
      return -1;
  }
  int64_t bytes;
  if (__builtin_mul_overflow(elements, int64_t(eltSize), &bytes) ||
      bytes > FP8Q_MAX_SPAN_BYTES)
    return -1;
  return bytes;
}

/// Checks shared by every rank: descriptor and data pointer, alignment,
/// offset, and every size and stride within [0, FP8Q_MAX_SPAN_BYTES].
inline int32_t checkCommon(const char *entry, const char *name,
                           const void *desc, const void *aligned,
                           int64_t offset, const int64_t *sizes,
                           const int64_t *strides, int rank, size_t eltSize) {
  if (!desc)
    return fail(entry, FP8Q_ERR_NULL, "operand %s: descriptor pointer is null",
                name);
  if (!aligned)
    return fail(entry, FP8Q_ERR_NULL, "operand %s: data pointer is null", name);
  if (reinterpret_cast<uintptr_t>(aligned) % eltSize != 0)
    return fail(entry, FP8Q_ERR_ALIGN,
                "operand %s: data pointer %p is not aligned to its %zu-byte "
                "elements",
                name, aligned, eltSize);
  if (offset < 0 || offset > FP8Q_MAX_SPAN_BYTES)
    return fail(entry, FP8Q_ERR_LAYOUT, "operand %s: bad offset %lld", name,
                (long long)offset);
  for (int d = 0; d < rank; ++d)
    if (sizes[d] < 0 || sizes[d] > FP8Q_MAX_SPAN_BYTES)
      return fail(entry, FP8Q_ERR_SHAPE, "operand %s: bad size %lld in dim %d",
                  name, (long long)sizes[d], d);
  for (int d = 0; d < rank; ++d)
    if (strides[d] < 0 || strides[d] > FP8Q_MAX_SPAN_BYTES)
      return fail(entry, FP8Q_ERR_LAYOUT,
                  "operand %s: stride %lld in dim %d must be in [0, 2^48]",
                  name, (long long)strides[d], d);
  return FP8Q_OK;
}

} // namespace detail

/// Validates descriptor `d` of operand `name`: non-null, aligned to
/// `eltSize`, non-empty, non-negative offset and strides, a byte span
/// within FP8Q_MAX_SPAN_BYTES, sizes equal to (`rows`, `cols`) where those
/// are >= 0, and for written operands non-overlapping elements. Fills `v`
/// and returns FP8Q_OK or the failure status.
inline int32_t checkOperand(const char *entry, const char *name,
                            const fp8q_memref_2d *d, size_t eltSize,
                            int64_t rows, int64_t cols, Access access,
                            View2 &v) {
  if (int32_t s = detail::checkCommon(entry, name, d, d ? d->aligned : nullptr,
                                      d ? d->offset : 0, d ? d->sizes : nullptr,
                                      d ? d->strides : nullptr, 2, eltSize))
    return s;
  const int64_t r = d->sizes[0], c = d->sizes[1];
  const int64_t s0 = d->strides[0], s1 = d->strides[1];
  if ((rows >= 0 && r != rows) || (cols >= 0 && c != cols))
    return fail(entry, FP8Q_ERR_SHAPE,
                "operand %s has sizes [%lld, %lld], expected [%lld, %lld]",
                name, (long long)r, (long long)c,
                (long long)(rows >= 0 ? rows : r),
                (long long)(cols >= 0 ? cols : c));
  if (r == 0 || c == 0)
    return fail(entry, FP8Q_ERR_EMPTY,
                "operand %s is empty (sizes [%lld, %lld]); M == 0 and empty "
                "extents are not supported",
                name, (long long)r, (long long)c);
  if (detail::spanBytes(d->offset, d->sizes, d->strides, 2, eltSize) < 0)
    return fail(entry, FP8Q_ERR_LAYOUT,
                "operand %s: offset %lld, sizes [%lld, %lld] and strides "
                "(%lld, %lld) span more than 2^48 bytes",
                name, (long long)d->offset, (long long)r, (long long)c,
                (long long)s0, (long long)s1);
  if (access == Access::Write) {
    // Sufficient condition for distinct addresses: one dimension is nested
    // inside the other. Extents of 1 impose nothing.
    bool ok;
    if (r == 1 && c == 1)
      ok = true;
    else if (r == 1)
      ok = s1 >= 1;
    else if (c == 1)
      ok = s0 >= 1;
    else
      ok = (s1 >= 1 && s0 >= s1 * c) || (s0 >= 1 && s1 >= s0 * r);
    if (!ok)
      return fail(entry, FP8Q_ERR_LAYOUT,
                  "output operand %s: strides (%lld, %lld) make elements of "
                  "sizes [%lld, %lld] overlap",
                  name, (long long)s0, (long long)s1, (long long)r,
                  (long long)c);
  }
  v.base = static_cast<char *>(d->aligned) + d->offset * int64_t(eltSize);
  v.rows = r;
  v.cols = c;
  v.s0 = s0;
  v.s1 = s1;
  v.eltSize = eltSize;
  return FP8Q_OK;
}

/// Rank-1 counterpart of checkOperand: the size must equal `size`.
inline int32_t checkOperand(const char *entry, const char *name,
                            const fp8q_memref_1d *d, size_t eltSize,
                            int64_t size, View1 &v) {
  if (int32_t s = detail::checkCommon(entry, name, d, d ? d->aligned : nullptr,
                                      d ? d->offset : 0, d ? d->sizes : nullptr,
                                      d ? d->strides : nullptr, 1, eltSize))
    return s;
  if (d->sizes[0] != size)
    return fail(entry, FP8Q_ERR_SHAPE,
                "operand %s has size [%lld], expected [%lld]", name,
                (long long)d->sizes[0], (long long)size);
  if (size == 0)
    return fail(entry, FP8Q_ERR_EMPTY, "operand %s is empty", name);
  if (detail::spanBytes(d->offset, d->sizes, d->strides, 1, eltSize) < 0)
    return fail(entry, FP8Q_ERR_LAYOUT,
                "operand %s: offset %lld, size [%lld] and stride %lld span "
                "more than 2^48 bytes",
                name, (long long)d->offset, (long long)size,
                (long long)d->strides[0]);
  v.base = static_cast<char *>(d->aligned) + d->offset * int64_t(eltSize);
  v.size = size;
  v.s0 = d->strides[0];
  v.eltSize = eltSize;
  return FP8Q_OK;
}

/// Checks that `fp8Type` names an fp8 flavour.
inline int32_t checkFp8Type(const char *entry, int32_t fp8Type) {
  if (fp8Type != FP8Q_F8E4M3FN && fp8Type != FP8Q_F8E4M3FNUZ)
    return fail(entry, FP8Q_ERR_ARG,
                "fp8_type %d is not an fp8q_fp8_type (0 = f8E4M3FN, "
                "1 = f8E4M3FNUZ)",
                fp8Type);
  return FP8Q_OK;
}

/// Checks a quantization group size against K: positive and dividing K.
inline int32_t checkGroupSize(const char *entry, int64_t groupSize, int64_t k) {
  if (groupSize <= 0 || k % groupSize != 0)
    return fail(entry, FP8Q_ERR_ARG,
                "group_size %lld must be positive and divide K = %lld",
                (long long)groupSize, (long long)k);
  return FP8Q_OK;
}

/// Checks a kernel id (fp8q_kernel) and a weight layout
/// (fp8q_weight_layout) of the GEMM.
inline int32_t checkGemmArgs(const char *entry, int32_t kernel,
                             int32_t weightLayout) {
  if (kernel < 0 || kernel >= FP8Q_KERNEL_COUNT)
    return fail(entry, FP8Q_ERR_ARG, "kernel %d is not an fp8q_kernel (0..%d)",
                kernel, FP8Q_KERNEL_COUNT - 1);
  if (weightLayout != FP8Q_WEIGHT_LAYOUT_PLAIN &&
      weightLayout != FP8Q_WEIGHT_LAYOUT_PRESHUFFLE_16X16)
    return fail(entry, FP8Q_ERR_ARG,
                "weight_layout %d is not 0 (plain) or 1 (preshuffle_16x16)",
                weightLayout);
  return FP8Q_OK;
}

/// What a GEMM call reads, once checkGemm accepted its arguments.
struct GemmPlan {
  View2 q, xScale, w, wScale, out;
  int64_t M = 0, N = 0, K = 0, G = 0, NB = 0;
  /// The x_scale strides the kernel reads: the contract's fixed order, or
  /// the descriptor's for kernels that honour strides.
  int64_t xs0 = 0, xs1 = 0;
  /// The weight is read as SPEC's dense preshuffle_16x16 permutation.
  bool preshuffled = false;
  /// The fp8 flavour the kernel decodes.
  int32_t readType = FP8Q_F8E4M3FN;
};

/// The contract requirement on x_scale as text ("col_major (strides (1,
/// 64))") for messages.
inline void describeScaleReq(const fp8q_kernel_contract &c, int64_t M,
                             int64_t G, char *buf, size_t size) {
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

/// True (with the message in `buf`) when the kernel's contract reads the
/// other weight layout than the one given.
inline bool weightLayoutMismatch(const fp8q_kernel_contract &c,
                                 bool preshuffled, char *buf, size_t size) {
  if (c.weight == FP8Q_WEIGHT_PRESHUFFLE_16X16 && !preshuffled)
    snprintf(buf, size,
             "operand w of kernel %s must be preshuffle_16x16 but is plain",
             c.name);
  else if (c.weight == FP8Q_WEIGHT_PLAIN && preshuffled)
    snprintf(buf, size,
             "operand w of kernel %s must be plain [N, K] but is "
             "preshuffle_16x16",
             c.name);
  else
    return false;
  return true;
}

/// Validates the arguments of fp8q_gemm: scalar arguments, every operand
/// descriptor and their shapes, then the kernel contract (x_scale strides,
/// weight layout, fp8 flavour; with `unchecked` a violation only warns and
/// the kernel reads as it always does), then memory safety, never skipped:
/// what the kernel reads must lie inside what the descriptors address.
/// Fills `plan` and returns FP8Q_OK or the failure status.
inline int32_t checkGemm(const char *entry, const fp8q_memref_2d *q,
                         const fp8q_memref_2d *xs, const fp8q_memref_2d *w,
                         const fp8q_memref_2d *ws, const fp8q_memref_2d *out,
                         int32_t kernel, int32_t fp8Type, int32_t weightLayout,
                         bool unchecked, GemmPlan &plan) {
  if (int32_t s = checkGemmArgs(entry, kernel, weightLayout))
    return s;
  if (int32_t s = checkFp8Type(entry, fp8Type))
    return s;
  const fp8q_kernel_contract &contract = fp8q_kernel_contracts[kernel];
  const char *kname = contract.name;
  GemmPlan &p = plan;
  if (int32_t s = checkOperand(entry, "q", q, 1, -1, -1, Access::Read, p.q))
    return s;
  p.M = p.q.rows;
  p.K = p.q.cols;
  if (int32_t s = checkOperand(entry, "x_scale", xs, 4, p.M, -1, Access::Read,
                               p.xScale))
    return s;
  p.G = p.xScale.cols;
  if (p.K % p.G != 0)
    return fail(entry, FP8Q_ERR_SHAPE,
                "x_scale has %lld groups, which does not divide K = %lld",
                (long long)p.G, (long long)p.K);
  if (int32_t s = checkOperand(entry, "w", w, 1, -1, p.K, Access::Read, p.w))
    return s;
  p.N = p.w.rows;
  p.NB = (p.N + FP8Q_SCALE_BLOCK - 1) / FP8Q_SCALE_BLOCK;
  if (int32_t s = checkOperand(entry, "w_scale", ws, 4, p.NB, p.G, Access::Read,
                               p.wScale))
    return s;
  if (int32_t s =
          checkOperand(entry, "out", out, 2, p.M, p.N, Access::Write, p.out))
    return s;

  char msg[384];
  auto violation = [&]() -> int32_t {
    if (!unchecked)
      return fail(entry, FP8Q_ERR_CONTRACT, "%s", msg);
    warn(entry, "%s (FP8Q_RT_UNCHECKED=1: reading it anyway)", msg);
    return FP8Q_OK;
  };
  const int64_t M = p.M, N = p.N, K = p.K, G = p.G;
  const View2 &xv = p.xScale, &wv = p.w;
  // A SPEC v2 kernel (MX / NVFP4 / UE8M0 scales) is not an FP8 1x128 one:
  // its x_scale requirement is a padded layout, which no strides describe.
  if (!(contract.formats & FP8Q_FORMAT_FP8_1X128)) {
    snprintf(msg, sizeof(msg),
             "kernel %s does not read FP8 1x128 with f32 scales (this "
             "entry's format); its formats go through fp8q_gemm_v2",
             kname);
    return fail(entry, FP8Q_ERR_CONTRACT, "%s", msg);
  }
  if (!fp8q_scale_strides_ok(fp8q_kernel(kernel), M, G, xv.s0, xv.s1)) {
    char req[96];
    describeScaleReq(contract, M, G, req, sizeof(req));
    snprintf(msg, sizeof(msg),
             "operand x_scale of kernel %s must be %s but has strides (%lld, "
             "%lld) [M=%lld, G=%lld]",
             kname, req, (long long)xv.s0, (long long)xv.s1, (long long)M,
             (long long)G);
    if (int32_t s = violation())
      return s;
  }
  p.preshuffled = weightLayout == FP8Q_WEIGHT_LAYOUT_PRESHUFFLE_16X16;
  if (weightLayoutMismatch(contract, p.preshuffled, msg, sizeof(msg))) {
    if (int32_t s = violation())
      return s;
    // Unchecked: read the weight as the kernel does.
    p.preshuffled = !p.preshuffled;
  }
  if (p.preshuffled && ((N > 1 && wv.s0 != K) || wv.s1 != 1)) {
    snprintf(msg, sizeof(msg),
             "operand w of kernel %s: a preshuffle_16x16 weight must be dense "
             "(strides (%lld, 1)) but has strides (%lld, %lld)",
             kname, (long long)K, (long long)wv.s0, (long long)wv.s1);
    if (int32_t s = violation())
      return s;
  }
  p.readType = fp8Type;
  if (contract.fp8 == FP8Q_FP8_E4M3FN && fp8Type != FP8Q_F8E4M3FN) {
    snprintf(msg, sizeof(msg),
             "kernel %s reads f8E4M3FN but fp8_type is f8E4M3FNUZ", kname);
    if (int32_t s = violation())
      return s;
    p.readType = FP8Q_F8E4M3FN;
  }

  // Memory safety, never skipped.
  if (p.preshuffled) {
    if (N % 16 != 0 || K % 32 != 0)
      return fail(entry, FP8Q_ERR_SHAPE,
                  "a preshuffle_16x16 weight needs N %% 16 == 0 and "
                  "K %% 32 == 0, got [%lld, %lld]",
                  (long long)N, (long long)K);
    if (__int128(wv.maxIndex()) + 1 < __int128(N) * K)
      return fail(entry, FP8Q_ERR_LAYOUT,
                  "kernel %s reads %lld preshuffled weight bytes but operand "
                  "w addresses only %lld",
                  kname, (long long)(N * K), (long long)(wv.maxIndex() + 1));
  }
  p.xs0 = xv.s0;
  p.xs1 = xv.s1;
  if (contract.x_scale == FP8Q_SCALE_ROW_MAJOR) {
    p.xs0 = G;
    p.xs1 = 1;
  } else if (contract.x_scale != FP8Q_SCALE_ANY) {
    p.xs0 = 1;
    p.xs1 = (M + contract.x_scale_align - 1) / contract.x_scale_align *
            contract.x_scale_align;
  }
  // 128-bit: broadcast (stride 0) inputs bound no size by their span.
  const __int128 kernelMax = __int128(M - 1) * p.xs0 + __int128(G - 1) * p.xs1;
  if (kernelMax > xv.maxIndex())
    return fail(entry, FP8Q_ERR_LAYOUT,
                "kernel %s reads x_scale elements up to index %lld but the "
                "descriptor (strides (%lld, %lld)) addresses only up to %lld",
                kname,
                (long long)(kernelMax > INT64_MAX ? INT64_MAX : kernelMax),
                (long long)xv.s0, (long long)xv.s1, (long long)xv.maxIndex());
  return FP8Q_OK;
}

/// The short name of a status code (fp8q_status_name of every runtime).
inline const char *statusName(int32_t status) {
  switch (status) {
  case FP8Q_OK:
    return "ok";
  case FP8Q_ERR_NULL:
    return "null pointer";
  case FP8Q_ERR_ALIGN:
    return "misaligned pointer";
  case FP8Q_ERR_SHAPE:
    return "size mismatch";
  case FP8Q_ERR_EMPTY:
    return "empty operand";
  case FP8Q_ERR_ARG:
    return "bad argument";
  case FP8Q_ERR_LAYOUT:
    return "bad layout";
  case FP8Q_ERR_CONTRACT:
    return "kernel contract violated";
  case FP8Q_ERR_DEVICE:
    return "no usable device";
  }
  return "unknown status";
}

/// True when two views address the same bytes for every element.
inline bool sameAddresses(const View2 &a, const View2 &b) {
  if (a.base != b.base || a.rows != b.rows || a.cols != b.cols ||
      a.eltSize != b.eltSize)
    return false;
  return (a.rows == 1 || a.s0 == b.s0) && (a.cols == 1 || a.s1 == b.s1);
}

/// True when the byte ranges spanned by two views intersect.
inline bool rangesOverlap(const View2 &a, const View2 &b) {
  const char *aEnd = a.base + a.spanBytes();
  const char *bEnd = b.base + b.spanBytes();
  return a.base < bEnd && b.base < aEnd;
}

/// False when two views provably share no byte: their byte ranges are
/// disjoint, or both are rows of one row stride S (unit column stride, the
/// same element size) whose column ranges do not meet within S (two column
/// slices of one [M, N] buffer). True otherwise, including every
/// interleaving this does not recognize.
inline bool viewsMayOverlap(const View2 &a, const View2 &b) {
  if (!rangesOverlap(a, b))
    return false;
  const bool unitCols =
      (a.cols == 1 || a.s1 == 1) && (b.cols == 1 || b.s1 == 1);
  if (!unitCols || a.eltSize != b.eltSize ||
      (a.rows > 1 && b.rows > 1 && a.s0 != b.s0))
    return true;
  const int64_t S = a.rows > 1 ? a.s0 : b.s0;
  const int64_t diff = b.base - a.base, elt = int64_t(a.eltSize);
  if (S <= 0 || diff % elt != 0)
    return true;
  // b's rows start r elements after some row of a, modulo S.
  const int64_t r = ((diff / elt) % S + S) % S;
  return !(a.cols <= r && r + b.cols <= S);
}

/// True when the byte range spanned by `b` (a rank-1 view) intersects
/// `a`'s.
inline bool rangesOverlap(const View2 &a, const View1 &b) {
  const char *aEnd = a.base + a.spanBytes();
  const char *bEnd = b.base + ((b.size - 1) * b.s0 + 1) * int64_t(b.eltSize);
  return a.base < bEnd && b.base < aEnd;
}

/// The in-place rules of add_rms_norm_quantize's `sum` output, checked once
/// every operand is valid: sum is exactly x or residual (the same bytes for
/// every element: vLLM's in-place fused_add_rms_norm) or shares no byte
/// with them, and it shares no byte with gamma, q, scale or y (null: y is
/// not written). "Shares no byte" is viewsMayOverlap's proof (disjoint
/// byte ranges, or column slices of one buffer); any other interleaving is
/// refused.
inline int32_t checkSumAliasing(const char *entry, const View2 &sum,
                                const View2 &x, const View2 &residual,
                                const View1 &gamma, const View2 &q,
                                const View2 &scale, const View2 *y) {
  const struct {
    const char *name;
    const View2 &view;
  } inputs[] = {{"x", x}, {"residual", residual}};
  for (const auto &in : inputs)
    if (viewsMayOverlap(sum, in.view) && !sameAddresses(sum, in.view))
      return fail(entry, FP8Q_ERR_LAYOUT,
                  "operand sum partially overlaps operand %s: sum must be "
                  "exactly %s (in place: the same address, sizes and "
                  "strides) or share no byte with it",
                  in.name, in.name);
  if (rangesOverlap(sum, gamma))
    return fail(entry, FP8Q_ERR_LAYOUT,
                "operand sum overlaps operand gamma: sum must share no byte "
                "with gamma, q, scale or y");
  const struct {
    const char *name;
    const View2 *view;
  } outputs[] = {{"q", &q}, {"scale", &scale}, {"y", y}};
  for (const auto &out : outputs)
    if (out.view && viewsMayOverlap(sum, *out.view))
      return fail(entry, FP8Q_ERR_LAYOUT,
                  "operand sum overlaps operand %s: sum must share no byte "
                  "with gamma, q, scale or y",
                  out.name);
  return FP8Q_OK;
}

} // namespace fp8q::rt

#endif // FP8Q_RUNTIME_FP8Q_OPERAND_CHECKS_H
