//===- IndexMathTest.cpp - The kernels' shared index math -----------------===//
//
// Checks the addresses the HIP kernels compute (kernels/include/fp8q_kernels/
// IndexMath.h): the preshuffle formula against the runtime's
// fp8q_preshuffle.h, the MFMA operand and accumulator mappings, and the
// memory access pattern they imply for one wave.
//
//===----------------------------------------------------------------------===//

#include "fp8q_kernels/IndexMath.h"

#include "fp8q/Runtime/fp8q_preshuffle.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

using namespace fp8q::kern;

namespace {

TEST(KernelIndexMath, PreshuffleMatchesRuntimeHeader) {
  const int64_t N = 48, K = 256;
  std::vector<int> seen(N * K, 0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k) {
      int64_t o = preshuffleOffset(n, k, K);
      ASSERT_EQ(o, fp8q_preshuffle_offset(n, k, N, K)) << n << "," << k;
      ++seen[o];
    }
  for (int c : seen)
    ASSERT_EQ(c, 1); // a permutation
}

TEST(KernelIndexMath, PreshuffleRunsAreSixteenContiguousK) {
  const int64_t N = 32, K = 128, ldw = 160; // padded source rows
  for (int64_t c = 0; c < N * K / 16; ++c) {
    int64_t n, k;
    fp8q_preshuffle_unoffset(c * 16, N, K, &n, &k);
    ASSERT_EQ(preshuffleRunSource(c, K, ldw), n * ldw + k);
    ASSERT_EQ(k % 16, 0);
  }
}

TEST(KernelIndexMath, MfmaOperandsCoverOneKBlockOnce) {
  // 64 lanes x 32 bytes cover the 16 x 128 operand tile exactly once.
  std::set<std::pair<int, int>> cells;
  for (int lane = 0; lane < 64; ++lane)
    for (int j = 0; j < kFragBytes; ++j)
      ASSERT_TRUE(cells.insert({fragRow(lane), fragK(lane) + j}).second);
  EXPECT_EQ(cells.size(), 16u * kGroup);
}

TEST(KernelIndexMath, AccumulatorsCoverTheTileOnce) {
  std::set<std::pair<int, int>> cells;
  for (int lane = 0; lane < 64; ++lane)
    for (int i = 0; i < 4; ++i) {
      int r = accRow(lane, i), c = accCol(lane);
      ASSERT_TRUE(cells.insert({r, c}).second);
      EXPECT_EQ(accLane(r, c), lane);
      EXPECT_EQ(accIndex(r), i);
    }
  EXPECT_EQ(cells.size(), 256u);
}

TEST(KernelIndexMath, PreshuffledBFragmentIsOneContiguousRead) {
  // For each 16-column tile and K block, the wave's 64 lanes x 32 bytes read
  // one contiguous 2 KiB run of the preshuffled weight, and lanes 0..15
  // read consecutive 16-byte pieces (fully coalesced).
  const int64_t N = 64, K = 512;
  for (int64_t n0 = 0; n0 < N; n0 += 16)
    for (int64_t kb = 0; kb < K / kGroup; ++kb) {
      std::vector<int> hit(2048, 0);
      const int64_t base = preshuffleOffset(n0, kb * kGroup, K);
      for (int lane = 0; lane < 64; ++lane) {
        BHalves h = bFragOffsets(WLayout::Preshuffle16x16, n0 + fragRow(lane),
                                 kb, lane, K, K);
        for (int64_t o : {h.lo, h.hi}) {
          ASSERT_GE(o, base);
          ASSERT_LT(o + 16, base + 2048 + 1);
          for (int j = 0; j < 16; ++j)
            ++hit[o - base + j];
        }
        if (lane % 16 != 0) {
          BHalves prev =
              bFragOffsets(WLayout::Preshuffle16x16, n0 + fragRow(lane - 1), kb,
                           lane - 1, K, K);
          EXPECT_EQ(h.lo, prev.lo + 16);
        }
      }
      for (int c : hit)
        ASSERT_EQ(c, 1);
    }
}

TEST(KernelIndexMath, PlainAndPreshuffledFragmentsHoldTheSameValues) {
  // The same logical W[n, k] lands in the same lane byte in both layouts.
  const int64_t N = 32, K = 256;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t kb = 0; kb < K / kGroup; ++kb)
      for (int lane = 0; lane < 64; ++lane) {
        if (fragRow(lane) != n % 16)
          continue;
        BHalves p = bFragOffsets(WLayout::Plain, n, kb, lane, K, K);
        BHalves s = bFragOffsets(WLayout::Preshuffle16x16, n, kb, lane, K, K);
        int64_t k = kb * kGroup + fragK(lane);
        EXPECT_EQ(p.lo, n * K + k);
        EXPECT_EQ(s.lo, preshuffleOffset(n, k, K));
        EXPECT_EQ(s.hi, preshuffleOffset(n, k + 16, K));
      }
}

TEST(KernelIndexMath, QuantizeGroupOrderMakesScaleWritesContiguous) {
  // Consecutive group indices write consecutive scale addresses in the
  // layout they were ordered for: the fused transposed write is coalesced.
  const int64_t M = 19, G = 7;
  for (bool colMajor : {false, true}) {
    const int64_t s0 = colMajor ? 1 : G, s1 = colMajor ? M : 1;
    std::vector<int> hit(M * G, 0);
    for (int64_t gid = 0; gid < M * G; ++gid) {
      GroupCoord c = groupOfIndex(gid, M, G, colMajor);
      ASSERT_EQ(scaleOffset(c.m, c.g, s0, s1), gid);
      ++hit[gid];
    }
    for (int h : hit)
      ASSERT_EQ(h, 1);
  }
}

/// groupOfIndexChunked and nextGroupChunked in index type I: every group
/// once, the successor function agreeing with the closed form, rows walked
/// m-fastest within chunks of 2^lgR rows.
template <class I> void checkChunkedOrder(int64_t M, int64_t G, int lgR) {
  std::vector<int> hit(M * G, 0);
  const int64_t R = int64_t(1) << lgR;
  GroupCoordT<I> prev{};
  for (int64_t gid = 0; gid < M * G; ++gid) {
    GroupCoordT<I> c = groupOfIndexChunked<I>((I)gid, (I)M, (I)G, lgR);
    ASSERT_LT((int64_t)c.m, M);
    ASSERT_LT((int64_t)c.g, G);
    ++hit[c.m * G + c.g];
    if (gid > 0) {
      GroupCoordT<I> n = nextGroupChunked<I>(prev, (I)M, (I)G, lgR);
      ASSERT_EQ(n.m, c.m) << "M=" << M << " G=" << G << " gid=" << gid;
      ASSERT_EQ(n.g, c.g) << "M=" << M << " G=" << G << " gid=" << gid;
      // Within a chunk the row advances first, then the group.
      if (c.m / R == prev.m / R && c.g == prev.g)
        ASSERT_EQ(c.m, prev.m + 1);
    }
    prev = c;
  }
  for (int h : hit)
    ASSERT_EQ(h, 1) << "M=" << M << " G=" << G << " lgR=" << lgR;
  if (lgR == 0) // row-major order
    for (int64_t gid = 0; gid < M * G; ++gid) {
      GroupCoordT<I> c = groupOfIndexChunked<I>((I)gid, (I)M, (I)G, 0);
      ASSERT_EQ((int64_t)c.m, gid / G);
      ASSERT_EQ((int64_t)c.g, gid % G);
    }
}

TEST(KernelIndexMath, ChunkedQuantizeOrderVisitsEveryGroupOnce) {
  for (int64_t M : {1, 2, 7, 8, 9, 16, 17, 33, 100})
    for (int64_t G : {1, 2, 3, 56})
      for (int lgR : {0, 1, kQuantColChunkLog2}) {
        checkChunkedOrder<int64_t>(M, G, lgR);
        checkChunkedOrder<uint32_t>(M, G, lgR);
      }
}

TEST(KernelIndexMath, QuantizeGridCoversEveryGroupOnce) {
  // The launch of HipRuntime.cpp: ceil(M * G / kQuantGroupsPerBlock) blocks
  // of kQuantBlock threads; team t of block b takes kQuantGroupsPerTeam
  // consecutive group indices from (b * teams + t) * kQuantGroupsPerTeam.
  for (int64_t total : {1, 55, 56, 64, 65, 127, 128, 129, 16384 * 56 / 64}) {
    const int64_t blocks =
        (total + kQuantGroupsPerBlock - 1) / kQuantGroupsPerBlock;
    std::vector<int> hit(total, 0);
    for (int64_t b = 0; b < blocks; ++b)
      for (int tid = 0; tid < kQuantBlock; tid += kQuantLanesPerGroup)
        for (int j = 0; j < kQuantGroupsPerTeam; ++j) {
          int64_t gid = (b * kQuantTeamsPerBlock + tid / kQuantLanesPerGroup) *
                            kQuantGroupsPerTeam +
                        j;
          if (gid < total)
            ++hit[gid];
        }
    for (int h : hit)
      ASSERT_EQ(h, 1) << total;
  }
}

TEST(KernelIndexMath, GemmBlockNIsOneWeightScaleRow) {
  // Each wave's 64 columns sit inside one 128-row weight-scale block.
  for (int64_t bn = 0; bn < 4; ++bn)
    for (int wave = 0; wave < kGemmWaves; ++wave) {
      int64_t c0 = waveCol0(bn, wave);
      EXPECT_EQ(c0 / kGroup, (c0 + kWaveTilesN * kMfmaN - 1) / kGroup);
      EXPECT_EQ(c0 / kGroup, bn);
    }
}

} // namespace
