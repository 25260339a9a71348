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

} // namespace
