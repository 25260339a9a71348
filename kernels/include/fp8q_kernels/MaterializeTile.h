//===- MaterializeTile.h - The tiled v2 scale layout change -----*- C++ -*-===//
//
// The per-block algorithm of fp8q_kernel_materialize_v2_tiled, in host +
// device code so that unittests/Kernels/MaterializeTileTest.cpp runs it on
// the CPU for every (src, dst) layout pair.
//
// Design. A block of kMatThreads = 64 threads owns one tile of the logical
// [M, G] scale: kMatRows = 128 rows x kMatWords = 8 "canonical words", a
// canonical word being what pack4 and swizzle_32_4_4 store: four
// consecutive groups 4w .. 4w + 3 of one row for 1-byte scales, one f32
// element for f32 scales. 128 rows x 32 groups is a whole number of every
// padded layout's tiles (swizzle_32_4_4: 128 x 4, cdna4_mx: 32 x 8, pack4:
// words of 4 groups, runs of rows), so every layout stores the tile as
// 16-byte units at 16-byte (or at least 4-byte) aligned offsets:
//  - row_major: 2 units per row; pack4 and col_major f32: 32 units down a
//    column run; swizzle_32_4_4: 8 whole 512-byte tiles: each unit holds
//    4 canonical words as they are ("direct" layouts);
//  - col_major 1-byte and cdna4_mx hold a canonical word's 4 bytes in 4
//    different units (4 columns; cdna4_mx's f = 0..3), so a thread takes 4
//    such units and 4x4-transposes their bytes in registers.
// A thread moves one "quad": 4 units = 16 canonical words (slots), loaded
// in the source's storage order (a warp's loads are consecutive 16-byte
// units: coalesced), written to shared memory as words, a barrier, read
// back in the destination's order and stored as 16-byte units. The shared
// tile is 128 x 8 words (4 KiB) under an XOR swizzle (matSmemIndex) that
// makes every layout's access pattern free of bank conflicts.
//
// Bounds. Tiles cover the destination's domain (the padded domain of a
// padded layout, [M, G] of a strided one). A tile inside [M, G] loads
// whole units with no checks, a tile inside the destination's domain
// stores whole units. An edge tile takes a unit at a time: inside the
// bound still one vector access, wholly outside zeros (load) or nothing
// (store), across the bound element by element through the shared index
// map (scaleOffsetV2): a source element outside [M, G] reads as 0, a
// destination element is stored when it lies in the domain, so padding
// is written 0, also in whole padding tiles past M or G, and a strided
// destination's bytes outside [M, G] are left alone.
// The launcher runs this kernel only when every unit offset of both sides
// is 4-byte aligned (matSideVec); others use fp8q_kernel_materialize_v2.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_KERNELS_MATERIALIZETILE_H
#define FP8Q_KERNELS_MATERIALIZETILE_H

#include "fp8q_kernels/Portability.h"
#include "fp8q_kernels/QuantizeV2Common.h"
#include "fp8q_kernels/ScaleLayoutV2.h"

namespace fp8q::kern {

/// Rows of a tile: swizzle_32_4_4's tile height, four cdna4_mx row blocks.
constexpr int kMatRows = 128;
/// Canonical words per tile row: 32 groups of 1-byte scales (eight
/// swizzle_32_4_4 tiles, four cdna4_mx blocks of 8 groups) or 8 f32.
constexpr int kMatWords = 8;
/// Threads of a block (one tile): 64 x 16 canonical words = 128 x 8.
constexpr int kMatThreads = 64;
/// Canonical words (slots) a thread moves: 4 units of 4 words.
constexpr int kMatSlots = 16;

/// One side (source or destination) of a tiled materialize.
struct MatSide {
  int32_t layout;
  int32_t vec; ///< 16 or 4: the alignment of every unit (matSideVec)
  int64_t align;
  int64_t s0, s1;     ///< strided layouts: element strides
  int64_t padM, padG; ///< padded domain (scalePaddedDomain)
};

/// fp8q_kernel_materialize_v2_tiled's arguments.
struct MaterializeV2TileArgs {
  const void *src;
  void *dst;
  int64_t M, G;
  int64_t tilesW; ///< tiles along the words of the dst domain
  int32_t elt;    ///< 4 (f32) or 1
  MatSide s, d;
};

/// Groups per canonical word: 4 for 1-byte scales, 1 for f32.
FP8Q_HOSTDEV inline int matGroupsPerWord(int elt) { return elt == 4 ? 1 : 4; }

/// True when the layout keeps a canonical word's bytes in 4 units
/// (col_major and cdna4_mx of 1-byte scales): a quad is transposed.
FP8Q_HOSTDEV inline bool matTransposed(int layout, int elt) {
  return elt == 1 &&
         (layout == FP8Q_LAYOUT_COL_MAJOR || layout == FP8Q_LAYOUT_CDNA4_MX);
}

/// Tile-local (row, word) of slot `s` (0..15) of thread `t` (0..63) in
/// `layout`. Direct layouts: slot 4j + q is word q of unit j. Transposed:
/// slot 4q + k is byte k of word q of the 4 units transposed (byte j of
/// the canonical word comes from unit j). Unit j of a direct layout is
/// unit number 64j + t of the tile, so a warp's loads are consecutive.
FP8Q_HOSTDEV inline void matSlot(int layout, int elt, int t, int s, int &r,
                                 int &c) {
  const int j = s >> 2, q = s & 3, u = 64 * j + t;
  switch (layout) {
  case FP8Q_LAYOUT_ROW_MAJOR: // unit u: row u / 2, words 4 (u % 2) + q
    r = u >> 1;
    c = 4 * (u & 1) + q;
    return;
  case FP8Q_LAYOUT_COL_MAJOR:
    if (elt == 4) { // unit u: column u / 32, rows 4 (u % 32) + q
      r = 4 * (u & 31) + q;
      c = u >> 5;
    } else { // quad t: column word t / 8, rows 16 (t % 8) + s
      r = 16 * (t & 7) + s;
      c = t >> 3;
    }
    return;
  case FP8Q_LAYOUT_COL_MAJOR_PACK4: // as col_major f32: words down a column
    r = 4 * (u & 31) + q;
    c = u >> 5;
    return;
  case FP8Q_LAYOUT_SWIZZLE_32_4_4: // unit u: tile u / 32, m % 32 = u % 32
    r = (u & 31) + 32 * q;
    c = u >> 5;
    return;
  default: { // cdna4_mx quad t: block (a, d) = (t / 16, (t / 4) % 4),
             // c = 4 (t % 4) + q (word q), byte s & 3 = 2e + b
    const int cq = t & 3, dl = (t >> 2) & 3, al = t >> 4;
    const int k = s & 3, qq = s >> 2;
    r = 32 * al + 16 * (k & 1) + 4 * cq + qq;
    c = 2 * dl + (k >> 1);
    return;
  }
  }
}

/// Element offset (in scale elements) of the first element of unit `j` of
/// thread `t` for the tile at (m0, w0) (m0 a multiple of kMatRows, w0 of
/// kMatWords); the unit's 16 bytes follow contiguously.
FP8Q_HOSTDEV inline int64_t matUnitOffset(const MatSide &sd, int layout,
                                          int elt, int64_t m0, int64_t w0,
                                          int t, int j) {
  const int64_t gpw = matGroupsPerWord(elt);
  const int u = 64 * j + t;
  switch (layout) {
  case FP8Q_LAYOUT_ROW_MAJOR:
    return (m0 + (u >> 1)) * sd.s0 + gpw * (w0 + 4 * (u & 1));
  case FP8Q_LAYOUT_COL_MAJOR:
    if (elt == 4)
      return (w0 + (u >> 5)) * sd.s1 + m0 + 4 * (u & 31);
    return (4 * (w0 + (t >> 3)) + j) * sd.s1 + m0 + 16 * (t & 7);
  case FP8Q_LAYOUT_COL_MAJOR_PACK4:
    return ((w0 + (u >> 5)) * sd.padM + m0 + 4 * (u & 31)) * 4;
  case FP8Q_LAYOUT_SWIZZLE_32_4_4:
    return ((m0 / 128) * (sd.padG / 4) + w0 + (u >> 5)) * 512 + (u & 31) * 16;
  default: {
    const int cq = t & 3, dl = (t >> 2) & 3, al = t >> 4;
    return ((m0 / 32 + al) * (sd.padG / 8) + w0 / 2 + dl) * 256 + j * 64 +
           cq * 16;
  }
  }
}

/// Elements of a unit: 16 bytes or 4 f32.
FP8Q_HOSTDEV inline int matUnitElems(int elt) { return 16 / elt; }

/// Tile-local (row, group) of element `e` of unit `j` of thread `t`.
FP8Q_HOSTDEV inline void matUnitElement(int layout, int elt, int t, int j,
                                        int e, int &r, int &g) {
  int c;
  if (elt == 4) { // element e is word e: slot 4j + e
    matSlot(layout, elt, t, 4 * j + e, r, c);
    g = c;
    return;
  }
  const int q = e >> 2, k = e & 3; // byte k of word q of the unit
  if (matTransposed(layout, elt)) {
    matSlot(layout, elt, t, 4 * q + k, r, c);
    g = 4 * c + j;
  } else {
    matSlot(layout, elt, t, 4 * j + q, r, c);
    g = 4 * c + k;
  }
}

/// Shared-memory word of tile-local (r, c): the 128 x 8 word tile with the
/// low three bits of the word XORed with r / 4 and the low two of the row
/// with (r3 ^ r6, r5). Bank bits (c0..c2, r0, r1 after the XOR) are then a
/// bijection of the five lane bits of every layout's warp access (row_major
/// c2 r0..r3; pack4 / col_major f32 r2..r6; swizzle r0..r4; col_major
/// 1-byte r4..r6 c0 c1; cdna4_mx r2 r3 c1 c2 r5): no bank conflicts
/// (MaterializeTileTest checks it).
FP8Q_HOSTDEV inline int matSmemIndex(int r, int c) {
  const int rr = r ^ (((r >> 3) ^ (r >> 6)) & 1) ^ (((r >> 5) & 1) << 1);
  return (rr << 3) | (c ^ ((r >> 2) & 7));
}

/// x[i] byte k <- x[k] byte i (a 4x4 byte transpose; its own inverse).
FP8Q_HOSTDEV inline void matTranspose4x4(uint32_t &a, uint32_t &b, uint32_t &c,
                                         uint32_t &d) {
#if defined(FP8Q_NVPTX)
  const uint32_t t0 = __byte_perm(a, b, 0x5140), t1 = __byte_perm(c, d, 0x5140);
  const uint32_t t2 = __byte_perm(a, b, 0x7362), t3 = __byte_perm(c, d, 0x7362);
  a = __byte_perm(t0, t1, 0x5410);
  b = __byte_perm(t0, t1, 0x7632);
  c = __byte_perm(t2, t3, 0x5410);
  d = __byte_perm(t2, t3, 0x7632);
#else
  // t0 = [a0 b0 a2 b2], t1 = [a1 b1 a3 b3], t2 / t3 the same of c, d.
  const uint32_t t0 = (a & 0x00ff00ffu) | ((b & 0x00ff00ffu) << 8);
  const uint32_t t1 = ((a >> 8) & 0x00ff00ffu) | (b & 0xff00ff00u);
  const uint32_t t2 = (c & 0x00ff00ffu) | ((d & 0x00ff00ffu) << 8);
  const uint32_t t3 = ((c >> 8) & 0x00ff00ffu) | (d & 0xff00ff00u);
  a = (t0 & 0xffffu) | (t2 << 16);
  b = (t1 & 0xffffu) | (t3 << 16);
  c = (t0 >> 16) | (t2 & 0xffff0000u);
  d = (t1 >> 16) | (t3 & 0xffff0000u);
#endif
}

/// Units (4 words each) <-> slots: the identity for direct layouts, the
/// transpose of word q of the 4 units into slots 4q .. 4q + 3 otherwise.
FP8Q_HOSTDEV inline void matUnitsToSlots(bool transposed, uint32_t (&v)[16]) {
  if (!transposed)
    return;
  uint32_t o[16];
  FP8Q_UNROLL
  for (int q = 0; q < 4; ++q) {
    uint32_t a = v[q], b = v[4 + q], c = v[8 + q], d = v[12 + q];
    matTranspose4x4(a, b, c, d);
    o[4 * q] = a;
    o[4 * q + 1] = b;
    o[4 * q + 2] = c;
    o[4 * q + 3] = d;
  }
  FP8Q_UNROLL
  for (int i = 0; i < 16; ++i)
    v[i] = o[i];
}

/// The inverse of matUnitsToSlots.
FP8Q_HOSTDEV inline void matSlotsToUnits(bool transposed, uint32_t (&v)[16]) {
  if (!transposed)
    return;
  uint32_t o[16];
  FP8Q_UNROLL
  for (int q = 0; q < 4; ++q) {
    uint32_t a = v[4 * q], b = v[4 * q + 1], c = v[4 * q + 2], d = v[4 * q + 3];
    matTranspose4x4(a, b, c, d);
    o[q] = a;
    o[4 + q] = b;
    o[8 + q] = c;
    o[12 + q] = d;
  }
  FP8Q_UNROLL
  for (int i = 0; i < 16; ++i)
    v[i] = o[i];
}

/// 16 bytes at `p` (aligned to `vec`: 16, or 4 and then four words).
FP8Q_HOSTDEV inline void matLoad16(const uint8_t *p, int vec, uint32_t *w) {
#if defined(FP8Q_GPU) &&                                                       \
    (defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__))
  if (vec == 16) {
    const Bytes16 b = *reinterpret_cast<const Bytes16 *>(p);
    w[0] = b.w[0];
    w[1] = b.w[1];
    w[2] = b.w[2];
    w[3] = b.w[3];
    return;
  }
  const uint32_t *q = reinterpret_cast<const uint32_t *>(p);
  w[0] = q[0];
  w[1] = q[1];
  w[2] = q[2];
  w[3] = q[3];
#else
  (void)vec;
  memcpy(w, p, 16);
#endif
}

FP8Q_HOSTDEV inline void matStore16(uint8_t *p, int vec, const uint32_t *w) {
#if defined(FP8Q_GPU) &&                                                       \
    (defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__))
  if (vec == 16) {
    *reinterpret_cast<Bytes16 *>(p) = Bytes16{{w[0], w[1], w[2], w[3]}};
    return;
  }
  uint32_t *q = reinterpret_cast<uint32_t *>(p);
  q[0] = w[0];
  q[1] = w[1];
  q[2] = w[2];
  q[3] = w[3];
#else
  (void)vec;
  memcpy(p, w, 16);
#endif
}

/// Element offset of (m, g) on a side, through the shared index map.
FP8Q_HOSTDEV inline int64_t matElemOffset(const MatSide &sd, int layout,
                                          int64_t M, int64_t G, int64_t m,
                                          int64_t g) {
  return scaleOffsetV2(fp8q_scale_layout_bytes_only(layout) != 0, layout,
                       sd.align, M, G, sd.s0, sd.s1, m, g);
}

/// Slots -> the shared tile (after the load phase).
FP8Q_HOSTDEV FP8Q_V2_INLINE void matSlotsToShared(uint32_t *tile, int layout,
                                                  int elt, int t,
                                                  const uint32_t (&v)[16]) {
  FP8Q_UNROLL
  for (int s = 0; s < kMatSlots; ++s) {
    int r, c;
    matSlot(layout, elt, t, s, r, c);
    tile[matSmemIndex(r, c)] = v[s];
  }
}

/// The shared tile -> slots (before the store phase).
FP8Q_HOSTDEV FP8Q_V2_INLINE void matSlotsFromShared(const uint32_t *tile,
                                                    int layout, int elt, int t,
                                                    uint32_t (&v)[16]) {
  FP8Q_UNROLL
  for (int s = 0; s < kMatSlots; ++s) {
    int r, c;
    matSlot(layout, elt, t, s, r, c);
    v[s] = tile[matSmemIndex(r, c)];
  }
}

/// Tile (m0, w0) of block `b`: tiles row-major over (rows, words).
FP8Q_HOSTDEV inline void matTileOf(int64_t b, int64_t tilesW, int64_t &m0,
                                   int64_t &w0) {
  m0 = (b / tilesW) * kMatRows;
  w0 = (b % tilesW) * kMatWords;
}

/// Slot `s` and byte `b` (0 for f32) of element `e` of unit `j`: where
/// matUnitElement's element lives among the thread's slots.
FP8Q_HOSTDEV inline void matUnitElementSlot(int layout, int elt, int j, int e,
                                            int &s, int &b) {
  if (elt == 4) {
    s = 4 * j + e;
    b = 0;
  } else if (matTransposed(layout, elt)) {
    s = 4 * (e >> 2) + (e & 3);
    b = j;
  } else {
    s = 4 * j + (e >> 2);
    b = e & 3;
  }
}

/// A unit's tile-local bounding box: its first element has the smallest
/// row and group, its last the largest (true of every layout's units,
/// MaterializeTileTest checks it), so two corners classify a unit
/// against a bound.
FP8Q_HOSTDEV inline void matUnitBox(int layout, int elt, int t, int j, int &r0,
                                    int &g0, int &r1, int &g1) {
  matUnitElement(layout, elt, t, j, 0, r0, g0);
  matUnitElement(layout, elt, t, j, matUnitElems(elt) - 1, r1, g1);
}

/// Element `e` of unit `j` in the shared tile: the word of an f32 tile,
/// the byte of a 1-byte one (the tile viewed as little-endian bytes).
FP8Q_HOSTDEV inline int matSharedElem(int layout, int elt, int t, int j,
                                      int e) {
  int s, b, r, c;
  matUnitElementSlot(layout, elt, j, e, s, b);
  matSlot(layout, elt, t, s, r, c);
  return elt == 4 ? matSmemIndex(r, c) : 4 * matSmemIndex(r, c) + b;
}

/// Load phase of thread `t` for the tile at (m0, w0): its 16 slots
/// (matSlot of the src layout) into the shared tile, 0 outside [M, G]. A
/// tile inside [M, G] loads whole units (16 or 4 bytes at a time),
/// transposes them in registers and writes words. An edge tile takes one
/// unit at a time (few registers): a unit inside [M, G] is still one
/// vector load, one wholly outside is zeros, one across the bound is
/// gathered element by element through the index map; its elements go to
/// the shared tile one by one (bytes of 1-byte scales).
/// `layout`, `elt` and `vec` are p.s.layout, p.elt and p.s.vec, passed
/// apart so that the kernel instantiates the phase with constants (a
/// runtime `vec` lets the compiler merge the 16-byte and the 4-byte
/// accesses into the 4-byte ones).
FP8Q_HOSTDEV FP8Q_V2_INLINE void matLoadTile(const MaterializeV2TileArgs &p,
                                             int layout, int elt, int vec,
                                             int64_t m0, int64_t w0, int t,
                                             uint32_t *tile) {
  const MatSide &sd = p.s;
  const int gpw = matGroupsPerWord(elt), ne = matUnitElems(elt);
  const uint8_t *src = static_cast<const uint8_t *>(p.src);
  if (m0 + kMatRows <= p.M && (w0 + kMatWords) * gpw <= p.G) {
    uint32_t v[kMatSlots];
    FP8Q_UNROLL
    for (int j = 0; j < 4; ++j)
      matLoad16(src + matUnitOffset(sd, layout, elt, m0, w0, t, j) * elt, vec,
                &v[4 * j]);
    matUnitsToSlots(matTransposed(layout, elt), v);
    matSlotsToShared(tile, layout, elt, t, v);
    return;
  }
  uint8_t *bytes = reinterpret_cast<uint8_t *>(tile);
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#pragma unroll 1
#endif
  for (int j = 0; j < 4; ++j) {
    int r0, g0, r1, g1;
    matUnitBox(layout, elt, t, j, r0, g0, r1, g1);
    const int64_t gb = w0 * gpw;
    if (m0 + r1 < p.M && gb + g1 < p.G) { // inside: one vector load
      uint32_t w[4];
      matLoad16(src + matUnitOffset(sd, layout, elt, m0, w0, t, j) * elt, vec,
                w);
      FP8Q_UNROLL
      for (int e = 0; e < ne; ++e) {
        const int at = matSharedElem(layout, elt, t, j, e);
        if (elt == 4)
          tile[at] = w[e & 3];
        else
          bytes[at] = (uint8_t)(w[e >> 2] >> (8 * (e & 3)));
      }
      continue;
    }
    const bool outside = m0 + r0 >= p.M || gb + g0 >= p.G;
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#pragma unroll 1
#endif
    for (int e = 0; e < ne; ++e) {
      int r, g;
      matUnitElement(layout, elt, t, j, e, r, g);
      const int64_t m = m0 + r, gg = gb + g;
      uint32_t val = 0;
      if (!outside && m < p.M && gg < p.G) {
        const int64_t off = matElemOffset(sd, layout, p.M, p.G, m, gg);
        val =
            elt == 4 ? reinterpret_cast<const uint32_t *>(src)[off] : src[off];
      }
      const int at = matSharedElem(layout, elt, t, j, e);
      if (elt == 4)
        tile[at] = val;
      else
        bytes[at] = (uint8_t)val;
    }
  }
}

/// Store phase of thread `t`: its 16 slots (matSlot of the dst layout)
/// from the shared tile to the destination, every element of the dst's
/// domain in the tile written (padding: 0 from the load phase), nothing
/// outside it. A tile inside the domain stores whole 16-byte (or 4-byte)
/// units; an edge tile takes one unit at a time: inside the domain one
/// vector store, wholly outside nothing, across it element by element
/// through the index map. `layout`, `elt`, `vec`: p.d.layout, p.elt,
/// p.d.vec.
FP8Q_HOSTDEV FP8Q_V2_INLINE void matStoreTile(const MaterializeV2TileArgs &p,
                                              int layout, int elt, int vec,
                                              int64_t m0, int64_t w0, int t,
                                              const uint32_t *tile) {
  const MatSide &sd = p.d;
  const int gpw = matGroupsPerWord(elt), ne = matUnitElems(elt);
  uint8_t *dst = static_cast<uint8_t *>(p.dst);
  const bool padded = fp8q_scale_layout_bytes_only(layout) != 0;
  const int64_t domM = padded ? sd.padM : p.M;
  const int64_t domG = padded ? sd.padG : p.G;
  if (m0 + kMatRows <= domM && (w0 + kMatWords) * gpw <= domG) {
    uint32_t v[kMatSlots];
    matSlotsFromShared(tile, layout, elt, t, v);
    matSlotsToUnits(matTransposed(layout, elt), v);
    FP8Q_UNROLL
    for (int j = 0; j < 4; ++j)
      matStore16(dst + matUnitOffset(sd, layout, elt, m0, w0, t, j) * elt, vec,
                 &v[4 * j]);
    return;
  }
  const uint8_t *bytes = reinterpret_cast<const uint8_t *>(tile);
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#pragma unroll 1
#endif
  for (int j = 0; j < 4; ++j) {
    int r0, g0, r1, g1;
    matUnitBox(layout, elt, t, j, r0, g0, r1, g1);
    const int64_t gb = w0 * gpw;
    if (m0 + r0 >= domM || gb + g0 >= domG)
      continue;                             // wholly outside the domain
    if (m0 + r1 < domM && gb + g1 < domG) { // inside: one vector store
      uint32_t w[4] = {0, 0, 0, 0};
      FP8Q_UNROLL
      for (int e = 0; e < ne; ++e) {
        const int at = matSharedElem(layout, elt, t, j, e);
        if (elt == 4)
          w[e & 3] = tile[at];
        else
          w[e >> 2] |= (uint32_t)bytes[at] << (8 * (e & 3));
      }
      matStore16(dst + matUnitOffset(sd, layout, elt, m0, w0, t, j) * elt, vec,
                 w);
      continue;
    }
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#pragma unroll 1
#endif
    for (int e = 0; e < ne; ++e) {
      int r, g;
      matUnitElement(layout, elt, t, j, e, r, g);
      const int64_t m = m0 + r, gg = gb + g;
      if (m >= domM || gg >= domG)
        continue;
      const int64_t off = matElemOffset(sd, layout, p.M, p.G, m, gg);
      const int at = matSharedElem(layout, elt, t, j, e);
      if (elt == 4)
        reinterpret_cast<uint32_t *>(dst)[off] = tile[at];
      else
        dst[off] = bytes[at];
    }
  }
}

/// Tiles along the words of the destination's domain (its padded domain
/// [padM, padG], or [M, G] of a strided dst); the grid is
/// matTileRows(...) x this, row-major (matTileOf).
FP8Q_HOSTDEV inline int64_t matTilesW(int dstLayout, int elt, int64_t G,
                                      int64_t dstPadG) {
  const int64_t gpw = matGroupsPerWord(elt);
  const int64_t words = fp8q_scale_layout_bytes_only(dstLayout)
                            ? dstPadG / 4
                            : (G + gpw - 1) / gpw;
  return (words + kMatWords - 1) / kMatWords;
}

/// Tile rows of the destination's domain.
FP8Q_HOSTDEV inline int64_t matTileRows(int dstLayout, int64_t M,
                                        int64_t dstPadM) {
  const int64_t rows = fp8q_scale_layout_bytes_only(dstLayout) ? dstPadM : M;
  return (rows + kMatRows - 1) / kMatRows;
}

/// The unit alignment of one side for the tiled kernel: 16 when the base
/// and every unit offset are 16-byte aligned, 4 when 4-byte aligned, 0
/// when not (the launcher then runs fp8q_kernel_materialize_v2). Unit
/// offsets are multiples of 16 bytes plus a multiple of the leading
/// dimension: pack4's padM words, a strided layout's row (row_major s0)
/// or column (col_major s1) stride; an extent of 1 never multiplies its
/// stride.
FP8Q_HOSTDEV inline int matSideVec(int layout, int elt, const void *base,
                                   int64_t M, int64_t G, int64_t s0, int64_t s1,
                                   int64_t padM) {
  int64_t ld = 0; // bytes
  switch (layout) {
  case FP8Q_LAYOUT_ROW_MAJOR:
    ld = M > 1 ? s0 * elt : 0;
    if (G > 1 && s1 != 1)
      return 0;
    break;
  case FP8Q_LAYOUT_COL_MAJOR:
    ld = G > 1 ? s1 * elt : 0;
    if (M > 1 && s0 != 1)
      return 0;
    break;
  case FP8Q_LAYOUT_COL_MAJOR_PACK4:
    ld = padM * 4;
    break;
  default:
    break;
  }
  const uintptr_t b = (uintptr_t)base;
  if (b % 16 == 0 && ld % 16 == 0)
    return 16;
  if (b % 4 == 0 && ld % 4 == 0)
    return 4;
  return 0;
}

} // namespace fp8q::kern

#endif // FP8Q_KERNELS_MATERIALIZETILE_H
