//===- ScaleLayoutV2.h - Walking the v2 scale layouts by word ---*- C++ -*-===//
//
// The v2 kernels write a padded scale layout (col_major pack = 4,
// swizzle_32_4_4, cdna4_mx) in 32-bit words of its allocation, so a warp
// stores consecutive words. This header gives the inverse of the shared
// index map (fp8q_scale_layouts.h, the one definition of where (m, g)
// lives) for whole words: which four (m, g) of the padded domain word W
// holds, byte k of the word being (m_k, g_k). Every map here is checked
// against fp8q_scale_offset by unittests/Kernels/ScaleLayoutV2Test.cpp
// (4 * W + k == fp8q_scale_offset(m_k, g_k) for every word of the
// allocation), so it adds no second definition of a layout.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_KERNELS_SCALELAYOUTV2_H
#define FP8Q_KERNELS_SCALELAYOUTV2_H

#include "fp8q_kernels/Portability.h"

#include "fp8q/Runtime/fp8q_scale_layouts.h"

namespace fp8q::kern {

/// The padded domain [padM, padG] of a padded layout: every (m, g) in it
/// has an offset below the allocation and every byte of the allocation is
/// one such (m, g) (those with m >= M or g >= G are padding). pack4:
/// (roundup(M, align), roundup(G, 4)); swizzle_32_4_4: (roundup(M, 128),
/// roundup(G, 4)); cdna4_mx: (roundup(M, 256), roundup(G, 8)). A strided
/// layout's domain is [M, G] (its padding is not its own).
FP8Q_HOSTDEV inline void scalePaddedDomain(int layout, int64_t align, int64_t M,
                                           int64_t G, int64_t &padM,
                                           int64_t &padG) {
  switch (layout) {
  case FP8Q_LAYOUT_COL_MAJOR_PACK4:
    padM = fp8q_roundup(M, align);
    padG = fp8q_roundup(G, 4);
    return;
  case FP8Q_LAYOUT_SWIZZLE_32_4_4:
    padM = fp8q_roundup(M, 128);
    padG = fp8q_roundup(G, 4);
    return;
  case FP8Q_LAYOUT_CDNA4_MX:
    padM = fp8q_roundup(M, 256);
    padG = fp8q_roundup(G, 8);
    return;
  default:
    padM = M;
    padG = G;
  }
}

/// Padding elements of an [M, G] scale in its padded domain [padM, padG].
FP8Q_HOSTDEV inline int64_t scalePaddingCount(int64_t M, int64_t G,
                                              int64_t padM, int64_t padG) {
  return padM * padG - M * G;
}

/// The four (m, g) of 32-bit word `w` of a padded layout's allocation:
/// byte k is (m + dm[k], g + dg[k]). pack4 and swizzle_32_4_4 put four
/// consecutive g of one row in a word (dm = 0, dg = k); cdna4_mx puts
/// (m, g), (m + 16, g), (m, g + 4), (m + 16, g + 4) there (byte k = 2e + b
/// of m = 32a + 16b + c, g = 8d + 4e + f). `padM` is the padded domain's
/// row count (pack4's leading dimension). Words past alloc / 4 are not
/// words of the layout.
template <class I> struct ScaleWordT {
  I m, g;
  int dm[4], dg[4];
};
using ScaleWord = ScaleWordT<int64_t>;

/// scaleWordOf in index type I (uint32_t when padM * padG fits).
template <class I>
FP8Q_HOSTDEV inline ScaleWordT<I> scaleWordOfT(int layout, I padM, I padG,
                                               I w) {
  ScaleWordT<I> r;
  for (int k = 0; k < 4; ++k) {
    r.dm[k] = 0;
    r.dg[k] = k;
  }
  switch (layout) {
  case FP8Q_LAYOUT_COL_MAJOR_PACK4:
    // word = (g / 4) * padM + m
    r.m = w % padM;
    r.g = (w / padM) * 4;
    break;
  case FP8Q_LAYOUT_SWIZZLE_32_4_4: {
    // word = tile * 128 + (m % 32) * 4 + (m % 128) / 32,
    // tile = (m / 128) * (padG / 4) + g / 4
    const I tiles = padG / 4, tile = w / 128, i = w % 128;
    r.m = (tile / tiles) * 128 + (i % 4) * 32 + i / 4;
    r.g = (tile % tiles) * 4;
    break;
  }
  default: {
    // cdna4_mx: word = ((a * (padG / 8) + d) * 4 + f) * 16 + c
    const I c = w % 16, f = (w / 16) % 4, t = w / 64;
    const I d = t % (padG / 8), a = t / (padG / 8);
    r.m = 32 * a + c;
    r.g = 8 * d + f;
    for (int k = 0; k < 4; ++k) {
      r.dm[k] = 16 * (k % 2);
      r.dg[k] = 4 * (k / 2);
    }
  }
  }
  return r;
}

FP8Q_HOSTDEV inline ScaleWord scaleWordOf(int layout, int64_t padM,
                                          int64_t padG, int64_t w) {
  return scaleWordOfT<int64_t>(layout, padM, padG, w);
}

/// Bytes of one step of the padding walk (the fp32-value quantize kernel's
/// padding blocks): a thread per 16-byte chunk of the allocation, one
/// 16-byte store where the chunk is all padding.
constexpr int kPadChunkBytes = 16;

/// The padding bytes of chunk c of a padded layout's allocation (its bytes
/// [16c, 16c + 16) below padM * padG): bit k set when byte 16c + k holds an
/// (m, g) past [M, G]. One decode per 32-bit word (scaleWordOfT), so the
/// walk costs four index decodes per 16 bytes rather than a 64-bit
/// division chain per byte. I as for scaleByteCoord.
template <class I>
FP8Q_HOSTDEV inline uint32_t scalePaddingMask(int layout, I M, I G, I padM,
                                              I padG, I c) {
  const I words = padM * padG / 4; // padG is a multiple of 4
  uint32_t mask = 0;
  for (int k = 0; k < kPadChunkBytes / 4; ++k) {
    const I w = c * (kPadChunkBytes / 4) + k;
    if (w >= words)
      break;
    const ScaleWordT<I> sw = scaleWordOfT<I>(layout, padM, padG, w);
    for (int b = 0; b < 4; ++b)
      if (sw.m + sw.dm[b] >= M || sw.g + sw.dg[b] >= G)
        mask |= 1u << (4 * k + b);
  }
  return mask;
}

/// (m, g) of byte `b` of a padded layout's allocation (padded domain
/// [padM, padG], scalePaddedDomain): the inverse of fp8q_scale_offset,
/// with (m, g) past [M, G] for padding bytes. The quantize kernels walk a
/// padded scale in this order so that consecutive groups write consecutive
/// scale bytes. I: uint32_t when padM * padG fits, else int64_t.
template <class I>
FP8Q_HOSTDEV inline void scaleByteCoord(int layout, I padM, I padG, I b, I &m,
                                        I &g) {
  const I w = b / 4, k = b % 4;
  switch (layout) {
  case FP8Q_LAYOUT_COL_MAJOR_PACK4:
    // byte = ((g / 4) * padM + m) * 4 + g % 4
    m = w % padM;
    g = (w / padM) * 4 + k;
    return;
  case FP8Q_LAYOUT_SWIZZLE_32_4_4: {
    // byte = (tile * 128 + (m % 32) * 4 + (m % 128) / 32) * 4 + g % 4
    const I tiles = padG / 4, tile = w / 128, i = w % 128;
    m = (tile / tiles) * 128 + (i % 4) * 32 + i / 4;
    g = (tile % tiles) * 4 + k;
    return;
  }
  default: {
    // cdna4_mx: byte = (((a * (padG / 8) + d) * 4 + f) * 16 + c) * 4 +
    // e * 2 + b', m = 32a + 16b' + c, g = 8d + 4e + f
    const I c = w % 16, f = (w / 16) % 4, t = w / 64;
    const I d = t % (padG / 8), a = t / (padG / 8);
    m = 32 * a + 16 * (k % 2) + c;
    g = 8 * d + 4 * (k / 2) + f;
    return;
  }
  }
}

/// Rows of one band of the pack4 walk (scaleWalkCoord): a warp of the
/// MX raw-word kernels (16 teams of two groups) covers one band's word
/// column, 32 contiguous scale bytes.
constexpr int kPack4WalkRows = 8;

/// Position i (< padM * padG) of the quantize kernels' walk over a padded
/// scale: its (m, g), and the byte of the allocation that holds it, which
/// is returned. swizzle_32_4_4 and cdna4_mx are walked in storage order
/// (byte i): their storage keeps a band of rows together across all of G.
/// pack4's storage is column strips (all padM rows of four groups, then the
/// next four), so its storage order reads x in 256-byte strips down the
/// whole matrix, which cost MXFP8 9% over row_major on the H100
/// (bench/RESULTS.md); it is walked in bands of kPack4WalkRows rows (rows
/// past the last whole band form one shorter band), a band word column by
/// word column, so x is read band by band and the scale is still written
/// in runs of kPack4WalkRows words. Positions 2t and 2t + 1 are adjacent
/// bytes of one word in every layout. I: uint32_t when padM * padG fits,
/// else int64_t.
template <class I>
FP8Q_HOSTDEV inline I scaleWalkCoord(int layout, I padM, I padG, I i, I &m,
                                     I &g) {
  if (layout != FP8Q_LAYOUT_COL_MAJOR_PACK4) {
    scaleByteCoord<I>(layout, padM, padG, i, m, g);
    return i;
  }
  const I R = kPack4WalkRows;
  const I whole = padM - padM % R;
  const bool inWhole = i < whole * padG;
  const I bandStart = inWhole ? i / (R * padG) * R : whole;
  const I rows = inWhole ? R : padM - whole;
  const I t = i - bandStart * padG;
  m = bandStart + t % (rows * 4) / 4;
  g = t / (rows * 4) * 4 + t % 4;
  // byte = ((g / 4) * padM + m) * 4 + g % 4, as scaleByteCoord inverts.
  return (g / 4 * padM + m) * 4 + g % 4;
}

/// (m, g) of walk position 2t + 1 from that of 2t (scaleWalkCoord): the
/// next byte of the same word, so one index decode serves a team's two
/// groups. pack4 and swizzle_32_4_4 hold four consecutive g of one row in
/// a word (g + 1); cdna4_mx's byte 2e + 1 is row m + 16 of the same g.
template <class I>
FP8Q_HOSTDEV inline void scaleWalkPairSecond(int layout, I m, I g, I &m1,
                                             I &g1) {
  const bool cdna4 = layout == FP8Q_LAYOUT_CDNA4_MX;
  m1 = cdna4 ? m + 16 : m;
  g1 = cdna4 ? g : g + 1;
}

/// Offset of (m, g) in a scale of either kind: a padded layout through the
/// shared index map, a strided one through its descriptor strides.
FP8Q_HOSTDEV inline int64_t scaleOffsetV2(bool padded, int layout,
                                          int64_t align, int64_t M, int64_t G,
                                          int64_t s0, int64_t s1, int64_t m,
                                          int64_t g) {
  return padded ? fp8q_scale_offset(layout, align, M, G, m, g)
                : m * s0 + g * s1;
}

} // namespace fp8q::kern

#endif // FP8Q_KERNELS_SCALELAYOUTV2_H
