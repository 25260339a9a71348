//===- ScaleLayoutsTest.cpp - Index math of every scale layout ------------===//
//
// fp8q_scale_layouts.h against its properties (offsets in range, injective,
// padding exactly the complement) and against independent formulations
// from the sources: PyTorch's to_blocked view/permute for swizzle_32_4_4,
// AITER's e8m0_shuffle view/permute for cdna4_mx and DeepGEMM's int32 words
// for pack4, each run through a generic N-d view/permute written here.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Runtime/fp8q_scale_layouts.h"

#include "gtest/gtest.h"

#include <cstring>
#include <string>
#include <vector>

namespace {

struct Layout {
  int layout;
  int64_t align;
};

const Layout kLayouts[] = {
    {FP8Q_LAYOUT_ROW_MAJOR, 1},       {FP8Q_LAYOUT_COL_MAJOR, 1},
    {FP8Q_LAYOUT_COL_MAJOR, 4},       {FP8Q_LAYOUT_COL_MAJOR, 16},
    {FP8Q_LAYOUT_COL_MAJOR_PACK4, 1}, {FP8Q_LAYOUT_COL_MAJOR_PACK4, 4},
    {FP8Q_LAYOUT_COL_MAJOR_PACK4, 8}, {FP8Q_LAYOUT_SWIZZLE_32_4_4, 1},
    {FP8Q_LAYOUT_CDNA4_MX, 1},
};

const int64_t kSizes[] = {1,   2,   3,   4,   5,   7,   8,   9,
                          15,  16,  17,  31,  32,  33,  63,  64,
                          100, 127, 128, 129, 255, 256, 257, 300};

/// Contiguous tensor `shape` (row-major) permuted by `perm` and made
/// contiguous again, as torch's x.view(shape).permute(perm).contiguous():
/// the flat position that element `flat` of the input lands at.
int64_t viewPermute(int64_t flat, const std::vector<int64_t> &shape,
                    const std::vector<int> &perm) {
  const size_t n = shape.size();
  std::vector<int64_t> idx(n);
  for (size_t d = n; d-- > 0;) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  int64_t out = 0;
  for (size_t i = 0; i < n; ++i)
    out = out * shape[perm[i]] + idx[perm[i]];
  return out;
}

TEST(ScaleLayouts, OffsetsInRangeInjectivePaddingIsTheComplement) {
  int64_t shapes = 0;
  for (const Layout &l : kLayouts)
    for (int64_t M : kSizes)
      for (int64_t G : kSizes) {
        if (G > 40 && M > 40 && (M + G) % 3)
          continue; // keep the run short; still hundreds of shapes
        const int64_t alloc = fp8q_scale_layout_alloc(l.layout, l.align, M, G);
        std::vector<char> seen(alloc, 0);
        for (int64_t m = 0; m < M; ++m)
          for (int64_t g = 0; g < G; ++g) {
            int64_t o = fp8q_scale_offset(l.layout, l.align, M, G, m, g);
            ASSERT_GE(o, 0);
            ASSERT_LT(o, alloc)
                << fp8q_scale_layout_name(l.layout) << " M=" << M << " G=" << G
                << " m=" << m << " g=" << g;
            ASSERT_EQ(seen[o], 0) << "not injective";
            seen[o] = 1;
          }
        int64_t padding = 0;
        for (char s : seen)
          padding += s == 0;
        ASSERT_EQ(padding, alloc - M * G);
        ++shapes;
      }
  EXPECT_GT(shapes, 1000);
}

TEST(ScaleLayouts, AllocationsAreSpecsFormulas) {
  EXPECT_EQ(fp8q_scale_layout_alloc(FP8Q_LAYOUT_ROW_MAJOR, 1, 5, 3), 15);
  EXPECT_EQ(fp8q_scale_layout_alloc(FP8Q_LAYOUT_COL_MAJOR, 4, 5, 3), 24);
  EXPECT_EQ(fp8q_scale_layout_alloc(FP8Q_LAYOUT_COL_MAJOR_PACK4, 4, 5, 5), 64);
  EXPECT_EQ(fp8q_scale_layout_alloc(FP8Q_LAYOUT_SWIZZLE_32_4_4, 1, 129, 5),
            256 * 8);
  EXPECT_EQ(fp8q_scale_layout_alloc(FP8Q_LAYOUT_CDNA4_MX, 1, 257, 9), 512 * 16);
  EXPECT_TRUE(fp8q_scale_layout_bytes_only(FP8Q_LAYOUT_CDNA4_MX));
  EXPECT_FALSE(fp8q_scale_layout_bytes_only(FP8Q_LAYOUT_COL_MAJOR));
}

TEST(ScaleLayouts, StridedLayoutsAreTheirStrides) {
  for (int64_t M : kSizes)
    for (int64_t G : {int64_t(1), int64_t(3), int64_t(8)})
      for (const Layout &l : kLayouts) {
        int64_t s0, s1;
        if (!fp8q_scale_layout_strides(l.layout, l.align, M, G, &s0, &s1))
          continue;
        for (int64_t m = 0; m < M; ++m)
          for (int64_t g = 0; g < G; ++g)
            ASSERT_EQ(fp8q_scale_offset(l.layout, l.align, M, G, m, g),
                      m * s0 + g * s1);
      }
}

// cuBLASLt / PyTorch to_blocked: pad to (128, 4) multiples, view
// (Mp/128, 128, Gp/4, 4), permute (0, 2, 1, 3), then reshape (-1, 4, 32, 4)
// and transpose (1, 2).
TEST(ScaleLayouts, Swizzle32x4x4IsPyTorchsToBlocked) {
  for (int64_t M : kSizes)
    for (int64_t G : {1, 3, 4, 5, 8, 9, 17}) {
      const int64_t Mp = fp8q_roundup(M, 128), Gp = fp8q_roundup(G, 4);
      for (int64_t m = 0; m < M; ++m)
        for (int64_t g = 0; g < G; ++g) {
          int64_t o =
              viewPermute(m * Gp + g, {Mp / 128, 128, Gp / 4, 4}, {0, 2, 1, 3});
          o = viewPermute(o, {Mp * Gp / 512, 4, 32, 4}, {0, 2, 1, 3});
          ASSERT_EQ(fp8q_offset_swizzle_32_4_4(m, g, G), o)
              << M << " " << G << " " << m << " " << g;
        }
    }
  // Spot values of the in-tile formula (r % 32) * 16 + (r / 32) * 4 + c.
  EXPECT_EQ(fp8q_offset_swizzle_32_4_4(1, 0, 8), 16);
  EXPECT_EQ(fp8q_offset_swizzle_32_4_4(32, 0, 8), 4);
  EXPECT_EQ(fp8q_offset_swizzle_32_4_4(0, 3, 8), 3);
  EXPECT_EQ(fp8q_offset_swizzle_32_4_4(0, 4, 8), 512);    // next tile along G
  EXPECT_EQ(fp8q_offset_swizzle_32_4_4(128, 0, 8), 1024); // next tile row
}

// AITER e8m0_shuffle: pad to (256, 8) multiples, view (Mp/32, 2, 16, Gp/8,
// 2, 4), permute (0, 3, 5, 2, 4, 1).
TEST(ScaleLayouts, Cdna4MxIsAitersE8m0Shuffle) {
  for (int64_t M : kSizes)
    for (int64_t G : {1, 4, 7, 8, 9, 16, 17, 24}) {
      const int64_t Mp = fp8q_roundup(M, 256), Gp = fp8q_roundup(G, 8);
      for (int64_t m = 0; m < M; ++m)
        for (int64_t g = 0; g < G; ++g)
          ASSERT_EQ(fp8q_offset_cdna4_mx(m, g, G),
                    viewPermute(m * Gp + g, {Mp / 32, 2, 16, Gp / 8, 2, 4},
                                {0, 3, 5, 2, 4, 1}))
              << M << " " << G << " " << m << " " << g;
    }
  EXPECT_EQ(fp8q_offset_cdna4_mx(16, 0, 8), 1);   // b
  EXPECT_EQ(fp8q_offset_cdna4_mx(0, 4, 8), 2);    // e
  EXPECT_EQ(fp8q_offset_cdna4_mx(1, 0, 8), 4);    // c
  EXPECT_EQ(fp8q_offset_cdna4_mx(0, 1, 8), 64);   // f
  EXPECT_EQ(fp8q_offset_cdna4_mx(0, 8, 16), 256); // d
  EXPECT_EQ(fp8q_offset_cdna4_mx(32, 0, 8), 256); // a
}

// DeepGEMM sm100: an int32 tensor [ceil(G/4) words, ld = roundup(M, a)]
// stored MN-major, word (w, m) = scales 4w..4w+3 of row m, the j-th in bits
// 8j..8j+7; as bytes of a little-endian host, and as a view/permute.
TEST(ScaleLayouts, Pack4IsDeepGemmsPackedWords) {
  for (int64_t a : {1, 4, 16})
    for (int64_t M : {1, 3, 4, 5, 33, 128})
      for (int64_t G : {1, 2, 4, 5, 9, 16}) {
        const int64_t ld = fp8q_roundup(M, a), W = (G + 3) / 4;
        std::vector<uint32_t> words(W * ld, 0);
        for (int64_t m = 0; m < M; ++m)
          for (int64_t g = 0; g < G; ++g)
            words[(g / 4) * ld + m] |= uint32_t(m * 7 + g + 1 & 0xFF)
                                       << (8 * (g % 4));
        std::vector<uint8_t> bytes(W * ld * 4);
        std::memcpy(bytes.data(), words.data(), bytes.size());
        for (int64_t m = 0; m < M; ++m)
          for (int64_t g = 0; g < G; ++g) {
            int64_t o = fp8q_offset_pack4(m, g, M, a);
            ASSERT_EQ(bytes[o], uint8_t(m * 7 + g + 1 & 0xFF));
            ASSERT_EQ(o, viewPermute(m * (4 * W) + g, {ld, W, 4}, {1, 0, 2}));
          }
      }
}

/// Every layout with the aligns the equality has to tell apart: {1, 2, 4,
/// 8} for the two that take one, and pack4 with 128 / 512, whose leading
/// dimension at M == 1 makes it address swizzle_32_4_4's / cdna4_mx's bytes.
const Layout kEqualityLayouts[] = {
    {FP8Q_LAYOUT_ROW_MAJOR, 1},         {FP8Q_LAYOUT_COL_MAJOR, 1},
    {FP8Q_LAYOUT_COL_MAJOR, 2},         {FP8Q_LAYOUT_COL_MAJOR, 4},
    {FP8Q_LAYOUT_COL_MAJOR, 8},         {FP8Q_LAYOUT_COL_MAJOR_PACK4, 1},
    {FP8Q_LAYOUT_COL_MAJOR_PACK4, 2},   {FP8Q_LAYOUT_COL_MAJOR_PACK4, 4},
    {FP8Q_LAYOUT_COL_MAJOR_PACK4, 8},   {FP8Q_LAYOUT_COL_MAJOR_PACK4, 128},
    {FP8Q_LAYOUT_COL_MAJOR_PACK4, 512}, {FP8Q_LAYOUT_SWIZZLE_32_4_4, 1},
    {FP8Q_LAYOUT_CDNA4_MX, 1},
};

/// The brute-force oracle of SPEC v2's equality, from the offset and
/// allocation formulas alone: every (m, g) at the same offset and, when a
/// padded layout is involved, the same allocation (a strided memref views
/// its buffer and owns none).
bool oracleEqual(const Layout &a, const Layout &b, int64_t M, int64_t G) {
  for (int64_t m = 0; m < M; ++m)
    for (int64_t g = 0; g < G; ++g)
      if (fp8q_scale_offset(a.layout, a.align, M, G, m, g) !=
          fp8q_scale_offset(b.layout, b.align, M, G, m, g))
        return false;
  if (!fp8q_scale_layout_bytes_only(a.layout) &&
      !fp8q_scale_layout_bytes_only(b.layout))
    return true;
  return fp8q_scale_layout_alloc(a.layout, a.align, M, G) ==
         fp8q_scale_layout_alloc(b.layout, b.align, M, G);
}

std::string describe(const Layout &l) {
  return std::string(fp8q_scale_layout_name(l.layout)) + " align " +
         std::to_string(l.align);
}

TEST(ScaleLayouts, LayoutsEqualIsTheBruteForceOracle) {
  std::vector<int64_t> ms;
  for (int64_t m = 1; m <= 9; ++m)
    ms.push_back(m);
  // Past the tiles' row blocks too (swizzle 128, cdna4_mx 16 / 32 / 256).
  for (int64_t m : {16, 17, 32, 128, 129, 256})
    ms.push_back(m);
  int distinctEqual = 0, unequal = 0;
  for (const Layout &a : kEqualityLayouts)
    for (const Layout &b : kEqualityLayouts)
      for (int64_t M : ms)
        for (int64_t G = 1; G <= 9; ++G) {
          const bool want = oracleEqual(a, b, M, G);
          ASSERT_EQ(fp8q_scale_layouts_equal(a.layout, a.align, b.layout,
                                             b.align, M, G),
                    int(want))
              << describe(a) << " vs " << describe(b) << " on [" << M << ", "
              << G << "]";
          distinctEqual += want && (a.layout != b.layout || a.align != b.align);
          unequal += !want;
        }
  // The sweep reaches both answers, distinct layouts that are equal included.
  EXPECT_GT(distinctEqual, 100);
  EXPECT_GT(unequal, 1000);
}

// The cases SPEC v2 names, spelled out (each also in the sweep above).
TEST(ScaleLayouts, LayoutsEqualSpecialCases) {
  const int row = FP8Q_LAYOUT_ROW_MAJOR, col = FP8Q_LAYOUT_COL_MAJOR,
            pack4 = FP8Q_LAYOUT_COL_MAJOR_PACK4,
            swz = FP8Q_LAYOUT_SWIZZLE_32_4_4, cdna = FP8Q_LAYOUT_CDNA4_MX;
  // M == 1 or G == 1: row_major and col_major are one strided layout.
  EXPECT_TRUE(fp8q_scale_layouts_equal(row, 1, col, 1, 1, 7));
  EXPECT_TRUE(fp8q_scale_layouts_equal(row, 1, col, 4, 7, 1));
  EXPECT_FALSE(fp8q_scale_layouts_equal(row, 1, col, 1, 2, 2));
  // col_major align a is col_major when M % a == 0 (no allocation rule).
  EXPECT_TRUE(fp8q_scale_layouts_equal(col, 4, col, 1, 8, 3));
  EXPECT_FALSE(fp8q_scale_layouts_equal(col, 4, col, 1, 6, 3));
  EXPECT_TRUE(fp8q_scale_layouts_equal(col, 4, col, 2, 8, 3));
  // pack4: one leading dimension, one layout.
  EXPECT_TRUE(fp8q_scale_layouts_equal(pack4, 4, pack4, 1, 8, 5));
  EXPECT_FALSE(fp8q_scale_layouts_equal(pack4, 4, pack4, 1, 6, 5));
  // One 32-bit word per row: pack4 is row_major's bytes, when the
  // allocation is too.
  EXPECT_TRUE(fp8q_scale_layouts_equal(row, 1, pack4, 4, 8, 4));
  EXPECT_FALSE(fp8q_scale_layouts_equal(row, 1, pack4, 4, 6, 4));
  EXPECT_FALSE(fp8q_scale_layouts_equal(row, 1, pack4, 1, 1, 3));
  // A single row with a 128-word leading dimension is the swizzle's tile row.
  EXPECT_TRUE(fp8q_scale_layouts_equal(pack4, 128, swz, 1, 1, 9));
  EXPECT_FALSE(fp8q_scale_layouts_equal(pack4, 128, swz, 1, 2, 9));
  // One byte lands at 0 everywhere, but the tiles pad differently.
  EXPECT_FALSE(fp8q_scale_layouts_equal(swz, 1, cdna, 1, 1, 1));
  EXPECT_FALSE(fp8q_scale_layouts_equal(row, 1, swz, 1, 1, 1));
  // The align of a layout without one is ignored.
  EXPECT_TRUE(fp8q_scale_layouts_equal(swz, 1, swz, 8, 130, 5));
  // Strides: an extent of 1 makes its stride moot.
  EXPECT_TRUE(fp8q_scale_strides_equal(1, 5, 9, 1, 5, 1));
  EXPECT_TRUE(fp8q_scale_strides_equal(5, 1, 1, 9, 1, 5));
  EXPECT_FALSE(fp8q_scale_strides_equal(2, 2, 2, 1, 1, 2));
}

} // namespace
