//===- MaterializeTileTest.cpp - The tiled materialize_v2 on the CPU ------===//
//
// Runs fp8q_kernel_materialize_v2_tiled's per-block algorithm
// (MaterializeTile.h: load phase of every thread into the shared tile,
// then the store phase) on the CPU for every (src, dst) pair of the v2
// layouts, 1-byte and f32 scales, ragged M and G, and compares the whole
// destination buffer with the definition: dst[fp8q_scale_offset(m, g)] =
// src[fp8q_scale_offset(m, g)] for (m, g) in [M, G], every other byte of a
// padded dst's allocation 0, every other byte of a strided dst untouched.
// Also checks the pieces the fast path relies on: the slots of a tile are
// a bijection onto its 128 x 8 words, each unit's elements are contiguous
// at matUnitOffset (against the index map) and bounded by its first and
// last element (the edge path's unit classification), the shared-memory swizzle
// is free of bank conflicts for every layout's warp access, the byte transpose
// is its own inverse, and which sides matSideVec accepts.
//
//===----------------------------------------------------------------------===//

#include "fp8q_kernels/MaterializeTile.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace fp8q::kern;

namespace {

struct Lay {
  int layout;
  int64_t align;
};

const Lay kLays[] = {
    {FP8Q_LAYOUT_ROW_MAJOR, 1},       {FP8Q_LAYOUT_COL_MAJOR, 1},
    {FP8Q_LAYOUT_COL_MAJOR, 4},       {FP8Q_LAYOUT_COL_MAJOR_PACK4, 1},
    {FP8Q_LAYOUT_COL_MAJOR_PACK4, 4}, {FP8Q_LAYOUT_SWIZZLE_32_4_4, 1},
    {FP8Q_LAYOUT_CDNA4_MX, 1}};

std::string name(const Lay &l) {
  return std::string(fp8q_scale_layout_name(l.layout)) +
         (l.align != 1 ? " align " + std::to_string(l.align) : "");
}

/// One side as the runtime fills it (GpuOpsV2.cpp tileSide).
MatSide side(const Lay &l, int elt, const void *base, int64_t M, int64_t G) {
  MatSide sd{};
  sd.layout = l.layout;
  sd.align = l.align;
  fp8q_scale_layout_strides(l.layout, l.align, M, G, &sd.s0, &sd.s1);
  scalePaddedDomain(l.layout, l.align, M, G, sd.padM, sd.padG);
  sd.vec = matSideVec(l.layout, elt, base, M, G, sd.s0, sd.s1, sd.padM);
  return sd;
}

/// The kernel's grid, block by block and thread by thread on the CPU.
void runTiled(const MaterializeV2TileArgs &p) {
  const int64_t tiles = matTileRows(p.d.layout, p.M, p.d.padM) * p.tilesW;
  std::vector<uint32_t> tile(kMatRows * kMatWords);
  for (int64_t b = 0; b < tiles; ++b) {
    int64_t m0, w0;
    matTileOf(b, p.tilesW, m0, w0);
    std::fill(tile.begin(), tile.end(), 0xdeadbeefu);
    for (int t = 0; t < kMatThreads; ++t)
      matLoadTile(p, p.s.layout, p.elt, p.s.vec, m0, w0, t, tile.data());
    for (uint32_t w : tile)
      ASSERT_NE(w, 0xdeadbeefu) << "a tile word the load phase left";
    for (int t = 0; t < kMatThreads; ++t)
      matStoreTile(p, p.d.layout, p.elt, p.d.vec, m0, w0, t, tile.data());
  }
}

std::mt19937 rng(5);

/// Buffers of 16-byte aligned storage.
std::vector<Bytes16> buffer(int64_t bytes, uint8_t fill, bool random) {
  std::vector<Bytes16> v((bytes + 15) / 16 + 1);
  uint8_t *b = reinterpret_cast<uint8_t *>(v.data());
  for (size_t i = 0; i < v.size() * 16; ++i)
    b[i] = random ? (uint8_t)rng() : fill;
  return v;
}

void checkPair(const Lay &a, const Lay &b, int elt, int64_t M, int64_t G) {
  const int64_t sBytes = fp8q_scale_layout_alloc(a.layout, a.align, M, G) * elt;
  const int64_t dBytes = fp8q_scale_layout_alloc(b.layout, b.align, M, G) * elt;
  std::vector<Bytes16> src = buffer(sBytes, 0, true);
  std::vector<Bytes16> dst = buffer(dBytes, 0xA5, false);
  std::vector<Bytes16> want = dst;
  const uint8_t *s8 = reinterpret_cast<const uint8_t *>(src.data());
  uint8_t *w8 = reinterpret_cast<uint8_t *>(want.data());
  if (fp8q_scale_layout_bytes_only(b.layout))
    memset(w8, 0, dBytes);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t g = 0; g < G; ++g)
      memcpy(w8 + fp8q_scale_offset(b.layout, b.align, M, G, m, g) * elt,
             s8 + fp8q_scale_offset(a.layout, a.align, M, G, m, g) * elt, elt);

  MaterializeV2TileArgs p{};
  p.src = src.data();
  p.dst = dst.data();
  p.M = M;
  p.G = G;
  p.elt = elt;
  p.s = side(a, elt, p.src, M, G);
  p.d = side(b, elt, p.dst, M, G);
  p.tilesW = matTilesW(b.layout, elt, G, p.d.padG);
  runTiled(p);
  const uint8_t *d8 = reinterpret_cast<const uint8_t *>(dst.data());
  for (size_t i = 0; i < dst.size() * 16; ++i)
    ASSERT_EQ(d8[i], w8[i])
        << (elt == 4 ? "f32 " : "e8m0 ") << name(a) << " -> " << name(b)
        << " M=" << M << " G=" << G << " byte " << i << " of " << dBytes;
}

TEST(MaterializeTile, EveryLayoutPairMatchesTheIndexMap) {
  for (int elt : {1, 4})
    for (const Lay &a : kLays)
      for (const Lay &b : kLays) {
        if (elt == 4 && (fp8q_scale_layout_bytes_only(a.layout) ||
                         fp8q_scale_layout_bytes_only(b.layout)))
          continue;
        for (int64_t M : {1, 31, 128, 129, 300})
          for (int64_t G : {1, 3, 7, 8, 9, 224})
            checkPair(a, b, elt, M, G);
        checkPair(a, b, elt, 513, 67); // several edge tiles both ways
      }
}

/// Every (layout, elt) the tiled kernel has.
std::vector<std::pair<int, int>> kinds() {
  return {{FP8Q_LAYOUT_ROW_MAJOR, 1},       {FP8Q_LAYOUT_COL_MAJOR, 1},
          {FP8Q_LAYOUT_COL_MAJOR_PACK4, 1}, {FP8Q_LAYOUT_SWIZZLE_32_4_4, 1},
          {FP8Q_LAYOUT_CDNA4_MX, 1},        {FP8Q_LAYOUT_ROW_MAJOR, 4},
          {FP8Q_LAYOUT_COL_MAJOR, 4}};
}

TEST(MaterializeTile, SlotsCoverTheTileOnce) {
  for (auto [layout, elt] : kinds()) {
    std::vector<int> hits(kMatRows * kMatWords, 0);
    std::vector<int> elems(kMatRows * kMatWords * 4, 0);
    for (int t = 0; t < kMatThreads; ++t) {
      for (int s = 0; s < kMatSlots; ++s) {
        int r, c;
        matSlot(layout, elt, t, s, r, c);
        ASSERT_TRUE(r >= 0 && r < kMatRows && c >= 0 && c < kMatWords);
        ++hits[r * kMatWords + c];
      }
      for (int j = 0; j < 4; ++j)
        for (int e = 0; e < matUnitElems(elt); ++e) {
          int r, g;
          matUnitElement(layout, elt, t, j, e, r, g);
          ASSERT_TRUE(r >= 0 && r < kMatRows && g >= 0 &&
                      g < kMatWords * matGroupsPerWord(elt));
          ++elems[r * kMatWords * 4 + g];
        }
    }
    for (int i = 0; i < kMatRows * kMatWords; ++i)
      ASSERT_EQ(hits[i], 1) << fp8q_scale_layout_name(layout) << " elt " << elt;
    for (int i = 0; i < kMatRows * kMatWords * matGroupsPerWord(elt); ++i) {
      const int r = i / (kMatWords * matGroupsPerWord(elt)),
                g = i % (kMatWords * matGroupsPerWord(elt));
      ASSERT_EQ(elems[r * kMatWords * 4 + g], 1)
          << fp8q_scale_layout_name(layout) << " elt " << elt;
    }
  }
}

TEST(MaterializeTile, UnitElementsAreTheirSlotsAndInTheirBox) {
  // The edge path's view of a unit (element -> slot and byte, the two
  // corners bounding the unit) agrees with the slot map.
  for (auto [layout, elt] : kinds())
    for (int t = 0; t < kMatThreads; ++t)
      for (int j = 0; j < 4; ++j) {
        int r0, g0, r1, g1;
        matUnitBox(layout, elt, t, j, r0, g0, r1, g1);
        for (int e = 0; e < matUnitElems(elt); ++e) {
          int r, g, s, b, rs, cs;
          matUnitElement(layout, elt, t, j, e, r, g);
          matUnitElementSlot(layout, elt, j, e, s, b);
          matSlot(layout, elt, t, s, rs, cs);
          ASSERT_EQ(r, rs) << fp8q_scale_layout_name(layout) << " elt " << elt;
          ASSERT_EQ(g, cs * matGroupsPerWord(elt) + b)
              << fp8q_scale_layout_name(layout) << " elt " << elt;
          ASSERT_TRUE(r0 <= r && r <= r1 && g0 <= g && g <= g1)
              << fp8q_scale_layout_name(layout) << " elt " << elt << " t " << t
              << " unit " << j << " element " << e;
        }
      }
}

TEST(MaterializeTile, UnitsAreContiguousInTheIndexMap) {
  // An interior tile of a large scale (and an align that pads M): element
  // e of unit j sits at matUnitOffset + e.
  for (auto [layout, elt] : kinds())
    for (int64_t align : {1, 4})
      for (auto [M, G] :
           {std::pair<int64_t, int64_t>{1000, 224}, {1024, 90}, {1002, 92}}) {
        if (align != 1 && !fp8q_scale_layout_has_align(layout))
          continue;
        Lay l{layout, align};
        MatSide sd = side(l, elt, nullptr, M, G);
        for (int64_t m0 : {(int64_t)0, (int64_t)256, (int64_t)640})
          for (int64_t w0 : {(int64_t)0, (int64_t)kMatWords}) {
            for (int t = 0; t < kMatThreads; ++t)
              for (int j = 0; j < 4; ++j) {
                const int64_t base =
                    matUnitOffset(sd, layout, elt, m0, w0, t, j);
                if (sd.vec) // the unit alignment matSideVec promises
                  EXPECT_EQ(base * elt % sd.vec, 0)
                      << fp8q_scale_layout_name(layout) << " M=" << M
                      << " G=" << G;
                for (int e = 0; e < matUnitElems(elt); ++e) {
                  int r, g;
                  matUnitElement(layout, elt, t, j, e, r, g);
                  ASSERT_EQ(fp8q_scale_offset(layout, align, M, G, m0 + r,
                                              w0 * matGroupsPerWord(elt) + g),
                            base + e)
                      << fp8q_scale_layout_name(layout) << " elt " << elt
                      << " t " << t << " unit " << j << " element " << e;
                }
              }
          }
      }
}

TEST(MaterializeTile, SharedTileHasNoBankConflicts) {
  std::set<int> all;
  for (int r = 0; r < kMatRows; ++r)
    for (int c = 0; c < kMatWords; ++c)
      all.insert(matSmemIndex(r, c));
  ASSERT_EQ(all.size(), (size_t)kMatRows * kMatWords);
  ASSERT_EQ(*all.rbegin(), kMatRows * kMatWords - 1);
  for (auto [layout, elt] : kinds())
    for (int warp = 0; warp < kMatThreads / 32; ++warp)
      for (int s = 0; s < kMatSlots; ++s) {
        std::set<int> banks;
        for (int lane = 0; lane < 32; ++lane) {
          int r, c;
          matSlot(layout, elt, 32 * warp + lane, s, r, c);
          banks.insert(matSmemIndex(r, c) % 32);
        }
        EXPECT_EQ(banks.size(), 32u) << fp8q_scale_layout_name(layout)
                                     << " elt " << elt << " slot " << s;
      }
}

TEST(MaterializeTile, TransposeIsAnInvolution) {
  uint32_t v[16], w[16];
  for (int i = 0; i < 16; ++i)
    v[i] = w[i] = (uint32_t)rng();
  matUnitsToSlots(true, v);
  // Slot 4q + k byte j is unit j word q byte k.
  for (int q = 0; q < 4; ++q)
    for (int k = 0; k < 4; ++k)
      for (int j = 0; j < 4; ++j)
        ASSERT_EQ((v[4 * q + k] >> (8 * j)) & 0xff,
                  (w[4 * j + q] >> (8 * k)) & 0xff);
  matSlotsToUnits(true, v);
  for (int i = 0; i < 16; ++i)
    ASSERT_EQ(v[i], w[i]);
}

TEST(MaterializeTile, SideAlignment) {
  alignas(16) static uint8_t buf[64];
  // row_major 1-byte: rows of G bytes; G % 4 != 0 is left to the old kernel.
  EXPECT_EQ(matSideVec(FP8Q_LAYOUT_ROW_MAJOR, 1, buf, 8, 224, 224, 1, 8), 16);
  EXPECT_EQ(matSideVec(FP8Q_LAYOUT_ROW_MAJOR, 1, buf, 8, 56, 56, 1, 8), 4);
  EXPECT_EQ(matSideVec(FP8Q_LAYOUT_ROW_MAJOR, 1, buf, 8, 7, 7, 1, 8), 0);
  EXPECT_EQ(matSideVec(FP8Q_LAYOUT_ROW_MAJOR, 1, buf, 1, 7, 99, 1, 1), 16);
  EXPECT_EQ(matSideVec(FP8Q_LAYOUT_ROW_MAJOR, 1, buf + 4, 8, 224, 224, 1, 8),
            4);
  EXPECT_EQ(matSideVec(FP8Q_LAYOUT_ROW_MAJOR, 1, buf + 1, 8, 224, 224, 1, 8),
            0);
  // col_major: the leading dimension; f32 any.
  EXPECT_EQ(matSideVec(FP8Q_LAYOUT_COL_MAJOR, 1, buf, 300, 9, 1, 300, 300), 4);
  EXPECT_EQ(matSideVec(FP8Q_LAYOUT_COL_MAJOR, 1, buf, 129, 9, 1, 129, 129), 0);
  EXPECT_EQ(matSideVec(FP8Q_LAYOUT_COL_MAJOR, 4, buf, 129, 9, 1, 129, 129), 4);
  // pack4: roundup(M, align) words per column.
  EXPECT_EQ(matSideVec(FP8Q_LAYOUT_COL_MAJOR_PACK4, 1, buf, 129, 9, 0, 0, 129),
            4);
  EXPECT_EQ(matSideVec(FP8Q_LAYOUT_COL_MAJOR_PACK4, 1, buf, 129, 9, 0, 0, 132),
            16);
  EXPECT_EQ(matSideVec(FP8Q_LAYOUT_SWIZZLE_32_4_4, 1, buf, 129, 9, 0, 0, 256),
            16);
  EXPECT_EQ(matSideVec(FP8Q_LAYOUT_CDNA4_MX, 1, buf + 8, 1, 1, 0, 0, 256), 4);
}

} // namespace
