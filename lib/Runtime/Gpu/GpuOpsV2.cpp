//===- GpuOpsV2.cpp - The SPEC v2 operations on a GPU ---------------------===//
//
// The SPEC v2 operations of the GPU runtime: the CPU runtime's checks
// (lib/Runtime/Common/fp8q_scale_checks.h and fp8q_gemm_v2_checks.h: codes,
// their combination, the v2 scale descriptors and the kernel contracts, in
// the same order and with the same messages) plus the kernels' own needs,
// then one launch of fp8q_kernel_quantize_v2_T (the scale written in its
// layout, padding zeroed by the same launch), fp8q_kernel_materialize_v2
// or fp8q_kernel_gemm_v2.
//
//===----------------------------------------------------------------------===//

#include "GpuOps.h"

#include "fp8q_gemm_v2_checks.h"
#include "fp8q_kernels/GemmV2Args.h"
#include "fp8q_kernels/MaterializeTile.h"
#include "fp8q_kernels/MxGemm.h"
#include "fp8q_kernels/QuantizeV2Common.h"
#include "fp8q_kernels/ScaleLayoutV2.h"
#include "fp8q_scale_checks.h"

#include <cstdlib>
#include <cstring>

using namespace fp8q::kern;

namespace fp8q::hiprt {
namespace {

using fp8q::rt::Access;
using fp8q::rt::fail;
using fp8q::rt::ScaleView;
using Op = fp8q::rt::View2;

unsigned blocksFor(int64_t items, int64_t perBlock) {
  return (unsigned)((items + perBlock - 1) / perBlock);
}

size_t actBytes(Act t) { return t == Act::F32 ? 4 : 2; }

/// Bytes of a validated v2 scale the kernels address: a padded layout's
/// whole allocation, a strided one's span.
int64_t scaleBytes(const ScaleView &v) {
  if (v.padded)
    return v.alloc * (int64_t)v.eltSize;
  return ((v.M - 1) * v.s0 + (v.G - 1) * v.s1 + 1) * (int64_t)v.eltSize;
}

bool bytesOverlap(const char *a, int64_t an, const char *b, int64_t bn) {
  return a < b + bn && b < a + an;
}

} // namespace

/// Elements from which a quantize_v2 launch takes the raw-word kernels
/// (8 MiB of bf16 and up: a launch that streams from DRAM).
constexpr int64_t kQuantV2WordsMinElements = int64_t(1) << 22;

/// Whether a quantize of `elements` elements takes the raw-word kernels
/// where they apply. They keep four 16-byte loads in flight per lane, what
/// a DRAM-bound launch needs; a small launch has too few teams for that and
/// is bound by one lane's chain instead, which the fp32-value kernel keeps
/// shorter (half the elements per lane). FP8Q_V2_QUANT_WORDS=0 / =1 forces
/// either (A/B runs of bench/gpu_v2_check.cu).
static bool quantV2UseWords(int64_t elements) {
  static const int forced = [] {
    const char *v = std::getenv("FP8Q_V2_QUANT_WORDS");
    return v && (v[0] == '0' || v[0] == '1') && v[1] == 0 ? v[0] - '0' : -1;
  }();
  if (forced >= 0)
    return forced == 1;
  return elements >= kQuantV2WordsMinElements;
}

int32_t quantizeV2Op(Exec &ex, Act t, fp8q_memref_2d *x, fp8q_memref_2d *q,
                     fp8q_memref_2d *scale, fp8q_memref_0d *global,
                     int64_t group, int32_t qType, int32_t scaleType,
                     int32_t rounding, int32_t layout, int64_t align) {
  const char *entry = ex.entry;
  if (int32_t s = fp8q::rt::checkScaleFormat(entry, qType, scaleType, rounding,
                                             layout, align))
    return s;
  Op xo, qo;
  if (int32_t s = fp8q::rt::checkOperand(entry, "x", x, actBytes(t), -1, -1,
                                         Access::Read, xo))
    return s;
  const int64_t M = xo.rows, K = xo.cols;
  if (int32_t s = fp8q::rt::checkGroupSize(entry, group, K))
    return s;
  const int64_t G = K / group;
  const bool fp4 = qType == FP8Q_Q_F4E2M1FN;
  if (fp4 && K % 2 != 0)
    return fail(entry, FP8Q_ERR_SHAPE,
                "f4E2M1FN packs two values per byte: K = %lld must be even",
                (long long)K);
  if (int32_t s = fp8q::rt::checkCodesOperand(entry, "q", q, qType, M, K,
                                              Access::Write, qo))
    return s;
  ScaleView sv;
  if (int32_t s =
          fp8q::rt::checkScaleOperand(entry, "scale", scale, scaleType, layout,
                                      align, M, G, Access::Write, sv))
    return s;
  const float *globalAt = nullptr;
  if (scaleType == FP8Q_SCALE_F8E4M3FN)
    if (int32_t s = fp8q::rt::checkGlobalScale(entry, global, globalAt))
      return s;
  // What the kernels add: whole 8-element chunks per lane, 16-byte loads,
  // 8-byte (fp8) or 4-byte (fp4) stores of q.
  if (group % kV2Vec)
    return fail(entry, FP8Q_ERR_ARG,
                "group_size %lld: the HIP kernels take multiples of 8",
                (long long)group);
  if (int32_t s = checkRows(entry, "x", xo, 16))
    return s;
  if (int32_t s = checkRows(entry, "q", qo, fp4 ? 4 : 8))
    return s;
  const int64_t sBytes = scaleBytes(sv);
  const int64_t qBytes = qo.spanBytes(), xBytes = xo.spanBytes();
  if (bytesOverlap(sv.base, sBytes, qo.base, qBytes) ||
      bytesOverlap(sv.base, sBytes, xo.base, xBytes) ||
      bytesOverlap(qo.base, qBytes, xo.base, xBytes))
    return fail(entry, FP8Q_ERR_LAYOUT,
                "operands x, q and scale must not share bytes on the GPU "
                "(one launch reads x while it writes q and scale)");
  DeviceInfo info;
  ex.add("x", xo.base, xBytes, false);
  ex.add("q", qo.base, qBytes, true);
  ex.add("scale", sv.base, sBytes, true);
  if (globalAt)
    ex.add("global_scale", globalAt, 4, false);
  if (int32_t s = ex.prepare(info))
    return s;

  QuantV2Args a{};
  a.x = ex.dev(xo.base);
  a.q = (uint8_t *)ex.dev(qo.base);
  a.scale = ex.dev(sv.base);
  a.global = globalAt ? (const float *)ex.dev(globalAt) : nullptr;
  a.M = M;
  a.K = K;
  a.G = G;
  a.group = group;
  a.ldx = xo.s0;
  a.ldq = qo.s0;
  a.s0 = sv.s0;
  a.s1 = sv.s1;
  a.align = align;
  a.qType = qType;
  a.scaleType = scaleType;
  a.rounding = rounding;
  a.layout = layout;
  a.padded = sv.padded ? 1 : 0;
  scalePaddedDomain(layout, align, M, G, a.padM, a.padG);
  const int wordLanes = quantV2WordLanes(group, (int)actBytes(t));
  a.words = wordLanes != 0 && quantV2UseWords(M * K) ? 1 : 0;
  a.lanes = a.words ? wordLanes : quantV2Lanes(group);
  a.groupsPerTeam = a.words ? 2 : quantV2GroupsPerTeam(group);
  a.mFastest = M > 1 && (layout == FP8Q_LAYOUT_COL_MAJOR ||
                         layout == FP8Q_LAYOUT_COL_MAJOR_PACK4);
  const int64_t groupsPerBlock =
      (int64_t)(kV2Block / a.lanes) * a.groupsPerTeam;
  // The raw-word kernels walk a padded scale in storage order and write its
  // padding themselves; the fp32-value kernel has padding blocks after its
  // quantizing ones.
  const bool storageWalk = a.words && sv.padded;
  a.quantBlocks =
      blocksFor(storageWalk ? a.padM * a.padG : M * G, groupsPerBlock);
  const int64_t padding = scalePaddingCount(M, G, a.padM, a.padG);
  // A thread per 16-byte chunk of the allocation (zeroPaddingV2).
  const int64_t padBlocks =
      sv.padded && !storageWalk && padding > 0
          ? blocksFor(a.padM * a.padG, (int64_t)kV2Block * kPadChunkBytes)
          : 0;
  Dim3 grid, block;
  grid.x = (unsigned)(a.quantBlocks + padBlocks);
  block.x = kV2Block;
  void *args[] = {&a};
  const KernelId kernel =
      a.words ? quantizeV2WordsKernel((int)t, qType, sv.padded)
              : (KernelId)((int)KernelId::QuantizeV2Bf16 + (int)t);
  if (int32_t s = ex.launch(kernel, grid, block, args))
    return s;
  return ex.finish();
}

namespace {

/// One side of the tiled kernel; false when its units are not 4-byte
/// aligned (matSideVec).
bool tileSide(const ScaleView &v, const void *base, MatSide &sd) {
  sd.layout = v.layout;
  sd.align = v.align;
  sd.s0 = v.s0;
  sd.s1 = v.s1;
  scalePaddedDomain(v.layout, v.align, v.M, v.G, sd.padM, sd.padG);
  sd.vec =
      matSideVec(v.layout, (int)v.eltSize, base, v.M, v.G, v.s0, v.s1, sd.padM);
  return sd.vec != 0;
}

/// One materialize_v2 launch from `src` to `dst` (validated views; either
/// may be a device temporary): the tiled kernel when both sides' units are
/// 4-byte aligned, the word-walking kernel otherwise.
int32_t launchMaterializeV2(Exec &ex, const ScaleView &s, const void *src,
                            const ScaleView &d, void *dst) {
  MaterializeV2TileArgs ta{};
  if (s.M > 0 && s.G > 0 && tileSide(s, src, ta.s) && tileSide(d, dst, ta.d)) {
    ta.src = src;
    ta.dst = dst;
    ta.M = s.M;
    ta.G = s.G;
    ta.elt = (int32_t)s.eltSize;
    // Tiles cover the dst domain: its padded domain, or [M, G].
    ta.tilesW = matTilesW(d.layout, ta.elt, d.G, ta.d.padG);
    const int64_t tiles = matTileRows(d.layout, d.M, ta.d.padM) * ta.tilesW;
    Dim3 grid, block;
    grid.x = (unsigned)tiles;
    block.x = kMatThreads;
    void *args[] = {&ta};
    return ex.launch(KernelId::MaterializeV2Tiled, grid, block, args);
  }
  MaterializeV2Args a{};
  a.src = src;
  a.dst = dst;
  a.M = s.M;
  a.G = s.G;
  a.ss0 = s.s0;
  a.ss1 = s.s1;
  a.ds0 = d.s0;
  a.ds1 = d.s1;
  a.srcAlign = s.align;
  a.dstAlign = d.align;
  a.srcLayout = s.layout;
  a.dstLayout = d.layout;
  a.srcPadded = s.padded;
  a.dstPadded = d.padded;
  a.elt = (int32_t)s.eltSize;
  scalePaddedDomain(d.layout, d.align, d.M, d.G, a.dstPadM, a.dstPadG);
  const uintptr_t da = (uintptr_t)dst;
  a.dstVec = da % 16 == 0 ? 16 : (da % 4 == 0 ? 4 : 1);
  if (d.padded) {
    a.units =
        (a.dstPadM * a.dstPadG / 4 + kV2WordsPerThread - 1) / kV2WordsPerThread;
  } else if (d.layout == FP8Q_LAYOUT_ROW_MAJOR) {
    a.units = d.M * ((d.G + 3) / 4);
  } else {
    a.units = d.G * ((d.M + 3) / 4);
  }
  Dim3 grid, block;
  grid.x = blocksFor(a.units, kV2Block);
  block.x = kV2Block;
  void *args[] = {&a};
  return ex.launch(KernelId::MaterializeV2, grid, block, args);
}

} // namespace

int32_t preshuffleV2Op(Exec &ex, fp8q_memref_2d *src, fp8q_memref_2d *dst,
                       int32_t qType, int64_t k, bool inverse) {
  fp8q_memref_2d srcBytes, dstBytes;
  if (int32_t s = fp8q::rt::preshuffleBytes(ex.entry, src, dst, qType, k,
                                            srcBytes, dstBytes))
    return s;
  return preshuffleOp(ex, &srcBytes, &dstBytes, inverse);
}

int32_t materializeV2Op(Exec &ex, fp8q_memref_2d *src, fp8q_memref_2d *dst,
                        int32_t scaleType, int32_t srcLayout, int64_t srcAlign,
                        int32_t dstLayout, int64_t dstAlign) {
  const char *entry = ex.entry;
  if (scaleType < 0 || scaleType >= FP8Q_SCALE_TYPE_COUNT)
    return fail(entry, FP8Q_ERR_ARG,
                "scale_type %d is not an fp8q_scale_type (0 = f32, 1 = "
                "f8E8M0FNU, 2 = f8E4M3FN)",
                scaleType);
  if (int32_t s = fp8q::rt::checkScaleLayout(entry, "src_layout", scaleType,
                                             srcLayout, srcAlign))
    return s;
  if (int32_t s = fp8q::rt::checkScaleLayout(entry, "dst_layout", scaleType,
                                             dstLayout, dstAlign))
    return s;
  if (!src)
    return fail(entry, FP8Q_ERR_NULL,
                "operand src: descriptor pointer is null");
  const int64_t M = src->sizes[0], G = src->sizes[1];
  ScaleView s, d;
  if (int32_t st =
          fp8q::rt::checkScaleOperand(entry, "src", src, scaleType, srcLayout,
                                      srcAlign, M, G, Access::Read, s))
    return st;
  if (int32_t st =
          fp8q::rt::checkScaleOperand(entry, "dst", dst, scaleType, dstLayout,
                                      dstAlign, M, G, Access::Write, d))
    return st;
  const int64_t sBytes = scaleBytes(s), dBytes = scaleBytes(d);
  DeviceInfo info;
  ex.add("src", s.base, sBytes, false);
  ex.add("dst", d.base, dBytes, true);
  if (int32_t st = ex.prepare(info))
    return st;
  const void *sdev = ex.dev(s.base);
  void *ddev = ex.dev(d.base);
  if (!bytesOverlap(s.base, sBytes, d.base, dBytes)) {
    if (int32_t st = launchMaterializeV2(ex, s, sdev, d, ddev))
      return st;
    return ex.finish();
  }
  // src and dst share bytes (an in-place layout change): through a dense
  // row-major temporary, as the CPU runtime reads everything first.
  ScaleView tv = s;
  tv.layout = FP8Q_LAYOUT_ROW_MAJOR;
  tv.align = 1;
  tv.padded = false;
  tv.s0 = G;
  tv.s1 = 1;
  tv.alloc = M * G;
  void *tmp = nullptr;
  if (int32_t st = ex.alloc(&tmp, M * G * (int64_t)s.eltSize))
    return st;
  int32_t st = launchMaterializeV2(ex, s, sdev, tv, tmp);
  if (!st)
    st = launchMaterializeV2(ex, tv, tmp, d, ddev);
  ex.release(tmp);
  if (st)
    return st;
  return ex.finish();
}

namespace {

/// The kernel's view of a validated scale on the device.
GemmV2Scale deviceScale(Exec &ex, const ScaleView &v) {
  GemmV2Scale s{};
  s.base = (const uint8_t *)ex.dev(v.base);
  s.rows = v.M;
  s.cols = v.G;
  s.s0 = v.s0;
  s.s1 = v.s1;
  s.align = v.align;
  s.layout = v.layout;
  s.padded = v.padded ? 1 : 0;
  return s;
}

} // namespace

/// FP8Q_MX_GEMM: "0" keeps every MX GEMM on the v2 kernel, "portable"
/// sends the eligible ones (mxGemmEligible) to fp8q_kernel_gemm_mx_portable
/// on any device, so that a GPU without the scaled MFMA (the H200) checks
/// the MX kernels' index math bit for bit against the CPU runtime. Unset:
/// the scaled-MFMA kernels where they exist (gfx950), the v2 kernel
/// elsewhere.
enum class MxGemmMode { Off, Auto, Portable };
static MxGemmMode mxGemmMode() {
  static const MxGemmMode mode = [] {
    const char *v = std::getenv("FP8Q_MX_GEMM");
    if (!v)
      return MxGemmMode::Auto;
    if (std::strcmp(v, "0") == 0)
      return MxGemmMode::Off;
    if (std::strcmp(v, "portable") == 0)
      return MxGemmMode::Portable;
    return MxGemmMode::Auto;
  }();
  return mode;
}

/// Whether plan `p` meets MxGemmArgs' preconditions (MxGemm.h): MXFP8 with
/// E4M3 codes or MXFP4, e8m0 scales per 1x32 stored cdna4_mx on both sides,
/// a weight scale per weight row, K % 128 == 0, N % 16 == 0, K contiguous
/// in q and w, their rows and bases 16-byte aligned (16-byte fragment
/// loads) and the scales 4-byte aligned (one 32-bit word per lane). The MX
/// kernels follow fp8q_gemm_v2's semantics for these operands exactly
/// (SPEC v2); anything else stays on the v2 kernel.
static bool mxGemmEligible(const fp8q::rt::GemmV2Plan &p) {
  auto aligned = [](const void *at, int64_t n) {
    return reinterpret_cast<uintptr_t>(at) % n == 0;
  };
  const bool fmt = (p.qType == FP8Q_Q_F8E4M3FN || p.qType == FP8Q_Q_F4E2M1FN) &&
                   p.scaleType == FP8Q_SCALE_F8E8M0FNU && p.group == 32;
  const bool scales = p.xScale.padded && p.wScale.padded &&
                      p.xScale.layout == FP8Q_LAYOUT_CDNA4_MX &&
                      p.wScale.layout == FP8Q_LAYOUT_CDNA4_MX &&
                      p.wRowBlock == 1 && aligned(p.xScale.base, 4) &&
                      aligned(p.wScale.base, 4);
  const bool operands =
      p.K % 128 == 0 && p.N % 16 == 0 && p.q.s1 == 1 &&
      (p.M == 1 || p.q.s0 % 16 == 0) &&
      aligned(p.q.base, 16) && aligned(p.w.base, 16) &&
      (p.preshuffled || (p.w.s1 == 1 && p.w.s0 % 16 == 0));
  return fmt && scales && operands && !p.globalAt;
}

/// Launches the MX GEMM `id` (GemmMxPortable or a scaled-MFMA kernel) on
/// the operands gemmV2Op registered.
static int32_t launchMxGemm(Exec &ex, KernelId id,
                            const fp8q::rt::GemmV2Plan &p) {
  MxGemmArgs a{};
  a.q = (const uint8_t *)ex.dev(p.q.base);
  a.xs = (const uint8_t *)ex.dev(p.xScale.base);
  a.w = (const uint8_t *)ex.dev(p.w.base);
  a.ws = (const uint8_t *)ex.dev(p.wScale.base);
  a.out = (uint16_t *)ex.dev(p.out.base);
  a.M = p.M;
  a.N = p.N;
  a.K = p.K;
  a.ldq = p.q.s0;
  a.ldw = p.w.s0;
  a.os0 = p.out.s0;
  a.os1 = p.out.s1;
  a.preshuffled = p.preshuffled ? 1 : 0;
  int32_t fmt = (int32_t)(p.fp4 ? MxFmt::E2M1 : MxFmt::E4M3);
  Dim3 grid, block;
  if (id == KernelId::GemmMxPortable) {
    grid.x = blocksFor(p.N, kMxPortableTile);
    grid.y = blocksFor(p.M, kMxPortableTile);
    block.x = kMxPortableTile * kMxPortableTile;
    void *args[] = {&a, &fmt};
    return ex.launch(id, grid, block, args);
  }
  grid.x = (unsigned)mxBlocksN(p.N);
  grid.y = (unsigned)mxBlocksM(p.M);
  block.x = kMxThreads;
  void *args[] = {&a};
  return ex.launch(id, grid, block, args);
}

int32_t gemmV2Op(Exec &ex, fp8q_memref_2d *q, fp8q_memref_2d *xs,
                 fp8q_memref_2d *w, fp8q_memref_2d *ws, fp8q_memref_0d *global,
                 fp8q_memref_2d *out, int64_t group, int32_t kernel,
                 int32_t qType, int32_t scaleType, int32_t xLayout,
                 int64_t xAlign, int32_t wLayout, int64_t wAlign,
                 int32_t weightLayout) {
  const char *entry = ex.entry;
  fp8q::rt::GemmV2Plan p;
  if (int32_t s = fp8q::rt::checkGemmV2(
          entry, q, xs, w, ws, global, out, group, kernel, qType, scaleType,
          xLayout, xAlign, wLayout, wAlign, weightLayout,
          fp8q::rt::uncheckedMode(), p, /*globalOnHost=*/false))
    return s;
  const int64_t outBytes = p.out.spanBytes();
  const int64_t wBytes = p.preshuffled ? p.N * (p.K / 2) : p.w.spanBytes();
  if (bytesOverlap(p.out.base, outBytes, p.q.base, p.q.spanBytes()) ||
      bytesOverlap(p.out.base, outBytes, p.w.base, wBytes) ||
      bytesOverlap(p.out.base, outBytes, p.xScale.base, scaleBytes(p.xScale)) ||
      bytesOverlap(p.out.base, outBytes, p.wScale.base, scaleBytes(p.wScale)))
    return fail(entry, FP8Q_ERR_LAYOUT,
                "operand out must not share bytes with q, w or the scales on "
                "the GPU (one launch reads them while it writes out)");
  DeviceInfo info;
  ex.add("q", p.q.base, p.q.spanBytes(), false);
  ex.add("x_scale", p.xScale.base, scaleBytes(p.xScale), false);
  ex.add("w", p.w.base, wBytes, false);
  ex.add("w_scale", p.wScale.base, scaleBytes(p.wScale), false);
  if (p.globalAt)
    ex.add("global_scale", p.globalAt, 4, false);
  ex.add("out", p.out.base, outBytes, true);
  if (int32_t s = ex.prepare(info))
    return s;

  const MxGemmMode mx = mxGemmMode();
  if (mx != MxGemmMode::Off && mxGemmEligible(p)) {
    if (mx == MxGemmMode::Portable) {
      if (int32_t s = launchMxGemm(ex, KernelId::GemmMxPortable, p))
        return s;
      return ex.finish();
    }
    if (info.mxMfma) {
      if (int32_t s = launchMxGemm(
              ex, p.fp4 ? KernelId::GemmMxfp4 : KernelId::GemmMxfp8, p))
        return s;
      return ex.finish();
    }
  }

  GemmV2Args a{};
  a.q = (const uint8_t *)ex.dev(p.q.base);
  a.w = (const uint8_t *)ex.dev(p.w.base);
  a.xs = deviceScale(ex, p.xScale);
  a.ws = deviceScale(ex, p.wScale);
  a.out = (uint16_t *)ex.dev(p.out.base);
  a.global = p.globalAt ? (const float *)ex.dev(p.globalAt) : nullptr;
  a.M = p.M;
  a.N = p.N;
  a.K = p.K;
  a.G = p.G;
  a.group = p.group;
  a.ldq = p.q.s0;
  a.ldw = p.w.s0;
  a.os0 = p.out.s0;
  a.os1 = p.out.s1;
  a.wRowBlock = p.wRowBlock;
  a.groupsPerWCol = p.G / p.wCols;
  a.qType = p.qType;
  a.scaleType = p.scaleType;
  a.preshuffled = p.preshuffled ? 1 : 0;
  Dim3 grid, block;
  grid.x = blocksFor(p.N, kGemmV2BlockN);
  grid.y = blocksFor(p.M, kGemmV2RowsPerThread);
  block.x = kGemmV2BlockN;
  void *args[] = {&a};
  if (int32_t s = ex.launch(KernelId::GemmV2, grid, block, args))
    return s;
  return ex.finish();
}

} // namespace fp8q::hiprt
