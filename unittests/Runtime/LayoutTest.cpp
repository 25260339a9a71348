//===- LayoutTest.cpp - materialize and preshuffle ------------------------===//

#include "RuntimeTestUtil.h"

#include "gtest/gtest.h"

#include <string>
#include <sys/mman.h>
#include <unistd.h>

using namespace fp8q::test;

namespace {

/// The scale layouts of SPEC plus views with an offset and padding.
enum class L { Row, Col, ColAlign4, RowPadded, ColOffset };
const L kLayouts[] = {L::Row, L::Col, L::ColAlign4, L::RowPadded, L::ColOffset};

Buf2<float> makeScale(L l, int64_t M, int64_t G) {
  switch (l) {
  case L::Row:
    return Buf2<float>::rowMajor(M, G, -1.0f);
  case L::Col:
    return Buf2<float>::colMajor(M, G, 1, -1.0f);
  case L::ColAlign4:
    return Buf2<float>::colMajor(M, G, 4, -1.0f);
  case L::RowPadded:
    return Buf2<float>(M, G, G + 3, 1, 0, -1.0f);
  case L::ColOffset:
    return Buf2<float>(M, G, 1, M, 5, -1.0f);
  }
  return Buf2<float>::rowMajor(M, G);
}

TEST(Materialize, AllLayoutPairsKeepLogicalValues) {
  for (auto [M, G] : {std::pair<int64_t, int64_t>{1, 1},
                      {1, 7},
                      {6, 1},
                      {5, 3},
                      {8, 4},
                      {13, 56}})
    for (L from : kLayouts)
      for (L to : kLayouts) {
        auto src = makeScale(from, M, G);
        auto dst = makeScale(to, M, G);
        for (int64_t m = 0; m < M; ++m)
          for (int64_t g = 0; g < G; ++g)
            src.at(m, g) = float(m * 1000 + g);
        auto before = src.data;
        ASSERT_EQ(fp8q_materialize(src.d(), dst.d()), FP8Q_OK)
            << fp8q_last_error();
        for (int64_t m = 0; m < M; ++m)
          for (int64_t g = 0; g < G; ++g)
            ASSERT_EQ(dst.at(m, g), float(m * 1000 + g))
                << int(from) << "->" << int(to) << " M=" << M << " G=" << G;
        EXPECT_EQ(src.data, before); // the source is never modified
      }
}

/// A page-backed read-only scale: any write to it faults.
struct ReadOnlyScale {
  float *p;
  size_t bytes;
  ReadOnlyScale(int64_t n) {
    bytes = size_t(sysconf(_SC_PAGESIZE));
    p = static_cast<float *>(mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    for (int64_t i = 0; i < n; ++i)
      p[i] = float(i);
    mprotect(p, bytes, PROT_READ);
  }
  ~ReadOnlyScale() { munmap(p, bytes); }
  fp8q_memref_2d desc(int64_t M, int64_t G, int64_t s0, int64_t s1) {
    fp8q_memref_2d d{};
    d.allocated = d.aligned = p;
    d.sizes[0] = M;
    d.sizes[1] = G;
    d.strides[0] = s0;
    d.strides[1] = s1;
    return d;
  }
};

TEST(Materialize, EqualLayoutsAreZeroCopy) {
  ReadOnlyScale buf(64);
  // Same layout, same buffer.
  auto a = buf.desc(4, 8, 8, 1);
  auto b = a;
  EXPECT_EQ(fp8q_materialize(&a, &b), FP8Q_OK);
  // SPEC's equal layouts: M == 1 row vs col, G == 1 row vs col, and
  // col_major vs col_major align 4 when M is a multiple of 4.
  auto r1 = buf.desc(1, 8, 8, 1), c1 = buf.desc(1, 8, 1, 1);
  EXPECT_EQ(fp8q_materialize(&r1, &c1), FP8Q_OK);
  auto rg = buf.desc(6, 1, 1, 1), cg = buf.desc(6, 1, 1, 6);
  EXPECT_EQ(fp8q_materialize(&rg, &cg), FP8Q_OK);
  auto c8 = buf.desc(8, 4, 1, 8), a8 = buf.desc(8, 4, 1, 8);
  EXPECT_EQ(fp8q_materialize(&c8, &a8), FP8Q_OK);
  // Had anything been written, the read-only page would have faulted.
  EXPECT_EQ(buf.p[9], 9.0f);
}

TEST(Materialize, InPlaceTransposeGoesThroughATemporary) {
  const int64_t M = 3, G = 5;
  auto row = Buf2<float>::rowMajor(M, G);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t g = 0; g < G; ++g)
      row.at(m, g) = float(10 * m + g);
  fp8q_memref_2d col = row.desc;
  col.strides[0] = 1;
  col.strides[1] = M;
  ASSERT_EQ(fp8q_materialize(row.d(), &col), FP8Q_OK);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t g = 0; g < G; ++g)
      EXPECT_EQ(row.data[g * M + m], float(10 * m + g));
}

TEST(Materialize, RejectsBadDescriptors) {
  auto src = Buf2<float>::rowMajor(4, 2);
  auto dst = Buf2<float>::colMajor(4, 3, 1, -1.0f);
  EXPECT_EQ(fp8q_materialize(src.d(), dst.d()), FP8Q_ERR_SHAPE);
  EXPECT_EQ(fp8q_materialize(src.d(), nullptr), FP8Q_ERR_NULL);
  fp8q_memref_2d neg = src.desc;
  neg.strides[0] = -2;
  auto dst2 = Buf2<float>::colMajor(4, 2, 1, -1.0f);
  EXPECT_EQ(fp8q_materialize(&neg, dst2.d()), FP8Q_ERR_LAYOUT);
  fp8q_memref_2d empty = src.desc, emptyDst = dst2.desc;
  empty.sizes[0] = emptyDst.sizes[0] = 0;
  EXPECT_EQ(fp8q_materialize(&empty, &emptyDst), FP8Q_ERR_EMPTY);
  for (float v : dst2.data)
    EXPECT_EQ(v, -1.0f);
  // A column-major destination whose columns overlap (strides (1, 3) for 4
  // rows) would have two elements written to one address.
  auto src4 = Buf2<float>::rowMajor(4, 4, 1.0f);
  Buf2<float> overlapping(4, 4, 1, 3, 0, -1.0f);
  EXPECT_EQ(fp8q_materialize(src4.d(), overlapping.d()), FP8Q_ERR_LAYOUT);
  EXPECT_EQ(overlapping.data,
            std::vector<float>(overlapping.data.size(), -1.0f));
  EXPECT_EXIT(_mlir_ciface_fp8q_rt_materialize(src.d(), dst.d()),
              testing::ExitedWithCode(1),
              "fp8q_rt_materialize: operand dst has sizes");
}

/// SPEC's preshuffle as a 5-D view loop: view W as [N/16, 16, K/32, 2, 16]
/// and emit it permuted to [N/16, K/32, 2, 16(n), 16(k)] in order.
std::vector<uint8_t> naivePreshuffle(Buf2<uint8_t> &w) {
  int64_t N = w.rows(), K = w.cols();
  std::vector<uint8_t> out;
  for (int64_t n0 = 0; n0 < N / 16; ++n0)
    for (int64_t k0 = 0; k0 < K / 32; ++k0)
      for (int64_t k1 = 0; k1 < 2; ++k1)
        for (int64_t n1 = 0; n1 < 16; ++n1)
          for (int64_t k2 = 0; k2 < 16; ++k2)
            out.push_back(w.at(16 * n0 + n1, 32 * k0 + 16 * k1 + k2));
  return out;
}

TEST(Preshuffle, MatchesNaive5DViewAndInverts) {
  Rng rng(21);
  for (auto [N, K] :
       {std::pair<int64_t, int64_t>{16, 32}, {48, 96}, {208, 384}})
    for (bool transposedSrc : {false, true}) {
      // The plain source may be any strided view (here also a transposed
      // one, strides (1, N)).
      Buf2<uint8_t> w = transposedSrc ? Buf2<uint8_t>(N, K, 1, N)
                                      : Buf2<uint8_t>::rowMajor(N, K);
      for (auto &b : w.data)
        b = uint8_t(rng.next());
      auto out = Buf2<uint8_t>::rowMajor(N, K);
      ASSERT_EQ(fp8q_preshuffle(w.d(), out.d()), FP8Q_OK) << fp8q_last_error();
      EXPECT_EQ(out.data, naivePreshuffle(w)) << N << "x" << K;
      auto back = Buf2<uint8_t>::rowMajor(N, K);
      ASSERT_EQ(fp8q_unpreshuffle(out.d(), back.d()), FP8Q_OK);
      for (int64_t n = 0; n < N; ++n)
        for (int64_t k = 0; k < K; ++k)
          ASSERT_EQ(back.at(n, k), w.at(n, k));
    }
}

TEST(Preshuffle, UnpreshuffleNeedsADenseSourceAndTakesAnyDestination) {
  // The preshuffled side of fp8q_unpreshuffle is its source: a padded one
  // is rejected and nothing is written; a padded plain destination is fine.
  Rng rng(5);
  auto w = Buf2<uint8_t>::rowMajor(16, 64);
  for (auto &b : w.data)
    b = uint8_t(rng.next());
  auto shuffled = Buf2<uint8_t>::rowMajor(16, 64);
  ASSERT_EQ(fp8q_preshuffle(w.d(), shuffled.d()), FP8Q_OK) << fp8q_last_error();
  Buf2<uint8_t> paddedSrc(16, 64, 80, 1);
  for (int64_t n = 0; n < 16; ++n)
    for (int64_t k = 0; k < 64; ++k)
      paddedSrc.at(n, k) = shuffled.at(n, k);
  auto dense = Buf2<uint8_t>(16, 64, 64, 1, 0, 0xAA);
  EXPECT_EQ(fp8q_unpreshuffle(paddedSrc.d(), dense.d()), FP8Q_ERR_LAYOUT);
  EXPECT_NE(std::string(fp8q_last_error())
                .find("preshuffled operand w must be dense (strides (64, 1)) "
                      "but has strides (80, 1)"),
            std::string::npos)
      << fp8q_last_error();
  EXPECT_EQ(dense.data, std::vector<uint8_t>(dense.data.size(), 0xAA));
  Buf2<uint8_t> paddedDst(16, 64, 80, 1);
  ASSERT_EQ(fp8q_unpreshuffle(shuffled.d(), paddedDst.d()), FP8Q_OK)
      << fp8q_last_error();
  for (int64_t n = 0; n < 16; ++n)
    for (int64_t k = 0; k < 64; ++k)
      ASSERT_EQ(paddedDst.at(n, k), w.at(n, k)) << n << ", " << k;
}

TEST(Preshuffle, RejectsShapesAndNonDenseOutputs) {
  auto w = Buf2<uint8_t>::rowMajor(24, 64);
  auto out = Buf2<uint8_t>::rowMajor(24, 64);
  EXPECT_EQ(fp8q_preshuffle(w.d(), out.d()), FP8Q_ERR_SHAPE);
  EXPECT_NE(std::string(fp8q_last_error()).find("N % 16 == 0"),
            std::string::npos);
  auto w2 = Buf2<uint8_t>::rowMajor(16, 64);
  Buf2<uint8_t> padded(16, 64, 80, 1);
  EXPECT_EQ(fp8q_preshuffle(w2.d(), padded.d()), FP8Q_ERR_LAYOUT);
}

} // namespace
