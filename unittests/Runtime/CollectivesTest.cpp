//===- CollectivesTest.cpp - all_gather and reduce_scatter on one rank ----===//
//
// The CPU runtime is one rank: ranks == 1 copies x into out (every element
// size, bit for bit), and every refusal of the shared checks
// (lib/Runtime/Common/fp8q_collective_checks.h) comes with its status and
// message and writes nothing; ranks > 1 is refused after them.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtil.h"

#include "gtest/gtest.h"

#include <cstring>
#include <string>

using namespace fp8q::test;

namespace {

/// x [rows, cols] row-major of elements of T filled with distinct bit
/// patterns (NaN payloads included for the 2- and 4-byte types).
template <typename T> Buf2<T> pattern(int64_t rows, int64_t cols) {
  auto b = Buf2<T>::rowMajor(rows, cols);
  for (size_t i = 0; i < b.data.size(); ++i) {
    uint32_t v = uint32_t(i * 2654435761u) ^ 0x7fc1u;
    std::memcpy(&b.data[i], &v, sizeof(T));
  }
  return b;
}

template <typename T> bool sameBytes(Buf2<T> &a, Buf2<T> &b) {
  for (int64_t i = 0; i < a.rows(); ++i)
    for (int64_t j = 0; j < a.cols(); ++j)
      if (std::memcmp(&a.at(i, j), &b.at(i, j), sizeof(T)) != 0)
        return false;
  return true;
}

template <typename T> void expectAllGatherCopies(int64_t rows, int64_t cols) {
  auto x = pattern<T>(rows, cols);
  auto before = x.data;
  auto out = Buf2<T>::rowMajor(rows, cols, T(0x5a));
  ASSERT_EQ(fp8q_all_gather(x.d(), out.d(), sizeof(T), 1), FP8Q_OK)
      << fp8q_last_error();
  EXPECT_TRUE(sameBytes(x, out))
      << sizeof(T) << "-byte " << rows << "x" << cols;
  EXPECT_EQ(x.data, before); // the input is read only
  EXPECT_STREQ(fp8q_last_error(), "");
}

TEST(Collectives, AllGatherOfOneRankCopiesEveryElementSize) {
  for (auto [r, c] : {std::pair<int64_t, int64_t>{1, 1},
                      {1, 7},
                      {5, 1},
                      {4, 256},
                      {13, 56}}) {
    expectAllGatherCopies<uint8_t>(r, c);
    expectAllGatherCopies<uint16_t>(r, c);
    expectAllGatherCopies<uint32_t>(r, c);
  }
}

TEST(Collectives, ReduceScatterOfOneRankCopiesBf16BitForBit) {
  auto x = pattern<uint16_t>(6, 40);
  x.at(0, 0) = 0x7fc1; // NaN payloads and signs are kept: a sum of one
  x.at(0, 1) = 0xffa0; // value is the value
  x.at(1, 0) = 0x8000; // -0
  auto out = Buf2<uint16_t>::rowMajor(6, 40, 0x1234);
  ASSERT_EQ(fp8q_reduce_scatter_bf16(x.d(), out.d(), 1), FP8Q_OK)
      << fp8q_last_error();
  EXPECT_TRUE(sameBytes(x, out));
  ASSERT_EQ(_mlir_ciface_fp8q_rt_reduce_scatter_bf16(x.d(), out.d(), 1),
            FP8Q_OK);
  EXPECT_TRUE(sameBytes(x, out));
}

TEST(Collectives, OffsetsAndIrrelevantStridesAreHonoured) {
  // x and out at an offset into their buffers (dense rows from there).
  Buf2<uint16_t> x(3, 8, 8, 1, /*offset=*/5, 0x1111);
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 8; ++j)
      x.at(i, j) = uint16_t(i * 100 + j);
  Buf2<uint16_t> out(3, 8, 8, 1, /*offset=*/3, 0x2222);
  ASSERT_EQ(fp8q_all_gather(x.d(), out.d(), 2, 1), FP8Q_OK)
      << fp8q_last_error();
  EXPECT_TRUE(sameBytes(x, out));
  for (int64_t i = 0; i < 3; ++i) // the bytes before the offset: untouched
    EXPECT_EQ(out.data[i], 0x2222);
  // An extent of 1 makes its stride irrelevant: [1, K] with any row stride,
  // [M, 1] with any column stride (a [M, 1] col_major scale is row-major).
  Buf2<float> row(1, 6, 999, 1), rowOut(1, 6, 0, 1);
  Buf2<float> col(5, 1, 1, 77), colOut(5, 1, 1, 5);
  for (int j = 0; j < 6; ++j)
    row.at(0, j) = float(j) + 0.5f;
  for (int i = 0; i < 5; ++i)
    col.at(i, 0) = float(i) - 0.25f;
  ASSERT_EQ(fp8q_all_gather(row.d(), rowOut.d(), 4, 1), FP8Q_OK)
      << fp8q_last_error();
  ASSERT_EQ(fp8q_all_gather(col.d(), colOut.d(), 4, 1), FP8Q_OK)
      << fp8q_last_error();
  EXPECT_TRUE(sameBytes(row, rowOut));
  EXPECT_TRUE(sameBytes(col, colOut));
  EXPECT_EQ(_mlir_ciface_fp8q_rt_all_gather(col.d(), colOut.d(), 4, 1),
            FP8Q_OK);
}

/// Calls `call`, expects `status` with `what` in the message, and that
/// nothing was written to `out`.
template <typename T, typename F>
void expectRefused(F call, Buf2<T> &out, int32_t status, const char *what) {
  auto before = out.data;
  EXPECT_EQ(call(), status) << fp8q_last_error();
  std::string e = fp8q_last_error();
  EXPECT_NE(e.find(what), std::string::npos) << e;
  EXPECT_EQ(out.data, before) << e;
}

TEST(Collectives, ScalarArgumentsAreChecked) {
  auto x = pattern<uint32_t>(4, 8);
  auto out = Buf2<uint32_t>::rowMajor(4, 8, 7);
  for (int64_t ranks : {int64_t(0), int64_t(-1), (int64_t(1) << 14) + 1})
    expectRefused([&] { return fp8q_all_gather(x.d(), out.d(), 4, ranks); },
                  out, FP8Q_ERR_ARG,
                  ("fp8q_rt_all_gather: ranks " + std::to_string(ranks) +
                   " must be in [1, 16384]")
                      .c_str());
  expectRefused([&] { return fp8q_reduce_scatter_bf16(x.d(), out.d(), 0); },
                out, FP8Q_ERR_ARG,
                "fp8q_rt_reduce_scatter_bf16: ranks 0 must be in [1, 16384]");
  for (int64_t eb : {0, 3, 8, -4})
    expectRefused(
        [&] { return fp8q_all_gather(x.d(), out.d(), eb, 1); }, out,
        FP8Q_ERR_ARG,
        ("elem_bytes " + std::to_string(eb) + " must be 1, 2 or 4").c_str());
}

TEST(Collectives, PointersAndDescriptorsAreChecked) {
  auto x = pattern<uint32_t>(4, 8);
  auto out = Buf2<uint32_t>::rowMajor(4, 8, 7);
  expectRefused([&] { return fp8q_all_gather(nullptr, out.d(), 4, 1); }, out,
                FP8Q_ERR_NULL, "operand x: descriptor pointer is null");
  expectRefused([&] { return fp8q_all_gather(x.d(), nullptr, 4, 1); }, out,
                FP8Q_ERR_NULL, "operand out: descriptor pointer is null");
  fp8q_memref_2d nullData = x.desc;
  nullData.aligned = nullptr;
  expectRefused([&] { return fp8q_all_gather(&nullData, out.d(), 4, 1); }, out,
                FP8Q_ERR_NULL, "operand x: data pointer is null");
  fp8q_memref_2d misaligned = x.desc;
  misaligned.aligned = reinterpret_cast<char *>(x.data.data()) + 2;
  misaligned.sizes[1] = 7;
  auto out7 = Buf2<uint32_t>::rowMajor(4, 7, 7);
  expectRefused([&] { return fp8q_all_gather(&misaligned, out7.d(), 4, 1); },
                out7, FP8Q_ERR_ALIGN, "is not aligned to its 4-byte elements");
  // The element size is elem_bytes: the same buffer is fine as bytes.
  fp8q_memref_2d bytes = misaligned;
  auto outBytes = Buf2<uint8_t>::rowMajor(4, 7, 9);
  bytes.strides[0] = 7;
  EXPECT_EQ(fp8q_all_gather(&bytes, outBytes.d(), 1, 1), FP8Q_OK)
      << fp8q_last_error();
  fp8q_memref_2d negative = x.desc;
  negative.strides[1] = -1;
  expectRefused([&] { return fp8q_all_gather(&negative, out.d(), 4, 1); }, out,
                FP8Q_ERR_LAYOUT, "operand x: stride -1 in dim 1");
  fp8q_memref_2d empty = x.desc;
  empty.sizes[0] = 0;
  expectRefused([&] { return fp8q_all_gather(&empty, out.d(), 4, 1); }, out,
                FP8Q_ERR_EMPTY, "operand x is empty");
}

TEST(Collectives, ColumnMajorAndStridedOperandsAreRefused) {
  // A col_major scale [M, G] (strides (1, M)): gathering it along dim 0
  // would interleave the ranks' blocks (vLLM 42118): the compiler must
  // materialize it row-major first.
  auto scale = Buf2<float>::colMajor(8, 4, 1, 1.0f);
  auto out = Buf2<float>::rowMajor(8, 4, -1.0f);
  expectRefused(
      [&] { return fp8q_all_gather(scale.d(), out.d(), 4, 1); }, out,
      FP8Q_ERR_LAYOUT,
      "fp8q_rt_all_gather: operand x must be dense row-major (strides (4, 1)) "
      "but has strides (1, 8) [sizes 8 x 4]");
  expectRefused([&] { return fp8q_all_gather(scale.d(), out.d(), 4, 1); }, out,
                FP8Q_ERR_LAYOUT,
                "would interleave the ranks' blocks wrongly; materialize it "
                "row-major first");
  // An aligned column-major one, padded rows, a column slice.
  auto aligned = Buf2<float>::colMajor(6, 4, 4, 1.0f);
  auto out6 = Buf2<float>::rowMajor(6, 4, -1.0f);
  expectRefused([&] { return fp8q_all_gather(aligned.d(), out6.d(), 4, 1); },
                out6, FP8Q_ERR_LAYOUT, "but has strides (1, 8)");
  Buf2<uint16_t> padded(4, 8, 11, 1, 0, 0x3f80);
  auto out16 = Buf2<uint16_t>::rowMajor(4, 8, 0x1111);
  expectRefused(
      [&] { return fp8q_reduce_scatter_bf16(padded.d(), out16.d(), 1); }, out16,
      FP8Q_ERR_LAYOUT,
      "operand x must be dense row-major (strides (8, 1)) but has strides "
      "(11, 1)");
  // The output too.
  auto x = pattern<float>(8, 4);
  auto colOut = Buf2<float>::colMajor(8, 4, 1, -1.0f);
  expectRefused([&] { return fp8q_all_gather(x.d(), colOut.d(), 4, 1); },
                colOut, FP8Q_ERR_LAYOUT,
                "operand out must be dense row-major (strides (4, 1)) but has "
                "strides (1, 8)");
  // Overlapping output columns are caught as a written operand first.
  Buf2<float> overlapping(8, 4, 1, 3, 0, -1.0f);
  expectRefused([&] { return fp8q_all_gather(x.d(), overlapping.d(), 4, 1); },
                overlapping, FP8Q_ERR_LAYOUT,
                "output operand out: strides (1, 3) make elements");
}

TEST(Collectives, OutputShapesAreChecked) {
  auto x = pattern<uint16_t>(6, 8);
  // all_gather: out is [ranks * rows, cols].
  auto out = Buf2<uint16_t>::rowMajor(6, 8, 0x1111);
  expectRefused([&] { return fp8q_all_gather(x.d(), out.d(), 2, 2); }, out,
                FP8Q_ERR_SHAPE,
                "operand out has sizes [6, 8], expected [12, 8]");
  auto wide = Buf2<uint16_t>::rowMajor(6, 9, 0x1111);
  expectRefused([&] { return fp8q_all_gather(x.d(), wide.d(), 2, 1); }, wide,
                FP8Q_ERR_SHAPE,
                "operand out has sizes [6, 9], expected [6, 8]");
  // reduce_scatter: rows % ranks == 0, out [rows / ranks, cols].
  expectRefused(
      [&] { return fp8q_reduce_scatter_bf16(x.d(), out.d(), 4); }, out,
      FP8Q_ERR_SHAPE,
      "fp8q_rt_reduce_scatter_bf16: operand x has 6 rows, which ranks = 4 "
      "does not divide");
  expectRefused([&] { return fp8q_reduce_scatter_bf16(x.d(), out.d(), 3); },
                out, FP8Q_ERR_SHAPE,
                "operand out has sizes [6, 8], expected [2, 8]");
  auto half = Buf2<uint16_t>::rowMajor(3, 8, 0x1111);
  expectRefused([&] { return fp8q_reduce_scatter_bf16(x.d(), half.d(), 1); },
                half, FP8Q_ERR_SHAPE,
                "operand out has sizes [3, 8], expected [6, 8]");
}

TEST(Collectives, OutputMustNotShareBytesWithTheInput) {
  auto buf = Buf2<uint8_t>::rowMajor(8, 16, 0x42);
  fp8q_memref_2d x = buf.desc, out = buf.desc;
  x.sizes[0] = out.sizes[0] = 4;
  out.offset = 2 * 16; // rows 2..5 against rows 0..3
  expectRefused([&] { return fp8q_all_gather(&x, &out, 1, 1); }, buf,
                FP8Q_ERR_LAYOUT,
                "operand out overlaps operand x: a collective's output must "
                "share no byte with its input");
  // In place (the same bytes) is refused too.
  expectRefused([&] { return fp8q_all_gather(&x, &x, 1, 1); }, buf,
                FP8Q_ERR_LAYOUT, "operand out overlaps operand x");
  // Adjacent, disjoint halves of one buffer are fine.
  out.offset = 4 * 16;
  for (int64_t j = 0; j < 16; ++j)
    buf.at(0, j) = uint8_t(j);
  ASSERT_EQ(fp8q_all_gather(&x, &out, 1, 1), FP8Q_OK) << fp8q_last_error();
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 16; ++j)
      ASSERT_EQ(buf.at(4 + i, j), buf.at(i, j));
}

TEST(Collectives, TheCpuRuntimeIsOneRank) {
  // Valid operands for 2 ranks: refused after every check, nothing written.
  auto x = pattern<uint8_t>(4, 32);
  auto gathered = Buf2<uint8_t>::rowMajor(8, 32, 0x77);
  expectRefused([&] { return fp8q_all_gather(x.d(), gathered.d(), 1, 2); },
                gathered, FP8Q_ERR_ARG,
                "fp8q_rt_all_gather: ranks = 2, but the CPU runtime is one "
                "rank (ranks must be 1)");
  auto xb = pattern<uint16_t>(4, 32);
  auto scattered = Buf2<uint16_t>::rowMajor(2, 32, 0x7777);
  expectRefused(
      [&] { return fp8q_reduce_scatter_bf16(xb.d(), scattered.d(), 2); },
      scattered, FP8Q_ERR_ARG, "the CPU runtime is one rank");
  EXPECT_EXIT(_mlir_ciface_fp8q_rt_all_gather(x.d(), gathered.d(), 1, 2),
              testing::ExitedWithCode(1),
              "fp8q runtime error: fp8q_rt_all_gather: ranks = 2, but the CPU "
              "runtime is one rank");
  EXPECT_EXIT(
      _mlir_ciface_fp8q_rt_reduce_scatter_bf16(xb.d(), scattered.d(), 2),
      testing::ExitedWithCode(1), "the CPU runtime is one rank");
}

} // namespace
