//===- OperandChecksTest.cpp - The runtimes' shared descriptor checks -----===//
//
// lib/Runtime/Common/fp8q_operand_checks.h on its own (this test defines the
// error sink), at the edges of FP8Q_MAX_SPAN_BYTES and of int64 overflow, where
// a runtime without these checks would compute wrapped addresses.
//
//===----------------------------------------------------------------------===//

#include "fp8q_operand_checks.h"

#include "gtest/gtest.h"

#include <cstdarg>
#include <cstdio>
#include <set>
#include <string>

namespace {
std::string lastMessage;
} // namespace

int32_t fp8q::rt::fail(const char *entry, int32_t status, const char *fmt,
                       ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  lastMessage = std::string(entry) + ": " + msg;
  return status;
}

namespace {
using namespace fp8q::rt;

/// A descriptor over a dummy aligned address: the checks never dereference.
fp8q_memref_2d desc(int64_t rows, int64_t cols, int64_t s0, int64_t s1,
                    int64_t offset = 0) {
  alignas(16) static char storage[16];
  fp8q_memref_2d d{};
  d.allocated = d.aligned = storage;
  d.offset = offset;
  d.sizes[0] = rows;
  d.sizes[1] = cols;
  d.strides[0] = s0;
  d.strides[1] = s1;
  return d;
}

int32_t check(const fp8q_memref_2d &d, size_t elt,
              Access access = Access::Read) {
  View2 v;
  lastMessage.clear();
  return checkOperand("test", "x", &d, elt, -1, -1, access, v);
}

constexpr int64_t kLimit = FP8Q_MAX_SPAN_BYTES;

TEST(OperandChecksTest, SpanUpToTheLimitIsAccepted) {
  // 2^46 f32 elements: exactly 2^48 bytes.
  EXPECT_EQ(check(desc(1, kLimit / 4, 0, 1), 4), FP8Q_OK);
  // The offset counts: one element more is over.
  EXPECT_EQ(check(desc(1, kLimit / 4, 0, 1, 1), 4), FP8Q_ERR_LAYOUT);
  EXPECT_NE(lastMessage.find("span more than 2^48 bytes"), std::string::npos)
      << lastMessage;
  EXPECT_EQ(check(desc(1, kLimit / 4, 0, 1), 8), FP8Q_ERR_LAYOUT);
  // Two dimensions that each fit but together do not.
  EXPECT_EQ(check(desc(2, kLimit / 2 + 1, kLimit / 2, 1), 1), FP8Q_ERR_LAYOUT);
  EXPECT_EQ(check(desc(2, kLimit / 2, kLimit / 2, 1), 1), FP8Q_OK);
}

TEST(OperandChecksTest, ProductsThatOverflowInt64AreRejected) {
  // (2^40 - 1) * 2^40 overflows no int64 but is far past the limit;
  // 2^48 * 2^48 would overflow int64 itself.
  EXPECT_EQ(check(desc(int64_t(1) << 40, 2, int64_t(1) << 40, 1), 4),
            FP8Q_ERR_LAYOUT);
  EXPECT_EQ(check(desc(kLimit, kLimit, kLimit, kLimit), 8), FP8Q_ERR_LAYOUT);
  EXPECT_EQ(check(desc(kLimit, 1, 1, 0, kLimit), 1), FP8Q_ERR_LAYOUT);
}

TEST(OperandChecksTest, FieldsOutsideTheirRangeAreRejected) {
  EXPECT_EQ(check(desc(-1, 4, 4, 1), 4), FP8Q_ERR_SHAPE);
  EXPECT_EQ(check(desc(kLimit + 1, 1, 1, 1), 1), FP8Q_ERR_SHAPE);
  EXPECT_EQ(check(desc(4, 4, -4, 1), 4), FP8Q_ERR_LAYOUT);
  // A huge stride on an extent of 1 spans nothing but is still rejected:
  // products of strides with element sizes must not overflow either.
  EXPECT_EQ(check(desc(1, 4, INT64_MAX, 1), 4), FP8Q_ERR_LAYOUT);
  EXPECT_NE(lastMessage.find("must be in [0, 2^48]"), std::string::npos)
      << lastMessage;
  EXPECT_EQ(check(desc(4, 4, 4, 1, -1), 4), FP8Q_ERR_LAYOUT);
  EXPECT_EQ(check(desc(4, 4, 4, 1, INT64_MAX), 4), FP8Q_ERR_LAYOUT);
  EXPECT_EQ(check(desc(0, 4, 4, 1), 4), FP8Q_ERR_EMPTY);
  fp8q_memref_2d misaligned = desc(4, 4, 4, 1);
  misaligned.aligned = static_cast<char *>(misaligned.aligned) + 2;
  EXPECT_EQ(check(misaligned, 4), FP8Q_ERR_ALIGN);
  EXPECT_EQ(check(misaligned, 2), FP8Q_OK);
  fp8q_memref_2d null = desc(4, 4, 4, 1);
  null.aligned = nullptr;
  EXPECT_EQ(check(null, 1), FP8Q_ERR_NULL);
  View2 v;
  EXPECT_EQ(checkOperand("test", "x", static_cast<fp8q_memref_2d *>(nullptr), 1,
                         -1, -1, Access::Read, v),
            FP8Q_ERR_NULL);
}

TEST(OperandChecksTest, WrittenOperandsMustNotOverlapThemselves) {
  EXPECT_EQ(check(desc(4, 4, 4, 1), 4, Access::Write), FP8Q_OK);
  EXPECT_EQ(check(desc(4, 4, 1, 4), 4, Access::Write), FP8Q_OK);
  EXPECT_EQ(check(desc(4, 4, 3, 1), 4, Access::Write), FP8Q_ERR_LAYOUT);
  EXPECT_EQ(check(desc(4, 4, 3, 1), 4, Access::Read), FP8Q_OK);
  // Column-major: a leading stride of 3 < 4 rows puts (3, 0) on (0, 1).
  EXPECT_EQ(check(desc(4, 4, 1, 3), 4, Access::Write), FP8Q_ERR_LAYOUT);
  EXPECT_NE(lastMessage.find("strides (1, 3) make elements of sizes [4, 4] "
                             "overlap"),
            std::string::npos)
      << lastMessage;
  EXPECT_EQ(check(desc(4, 4, 1, 3), 4, Access::Read), FP8Q_OK);
  EXPECT_EQ(check(desc(4, 1, 0, 1), 4, Access::Write), FP8Q_ERR_LAYOUT);
  EXPECT_EQ(check(desc(1, 1, 0, 0), 4, Access::Write), FP8Q_OK);
}

TEST(OperandChecksTest, OverlapAndSameAddressesUseTheSpan) {
  View2 a, b;
  fp8q_memref_2d d = desc(4, 2, 2, 1);
  ASSERT_EQ(checkOperand("test", "a", &d, 4, -1, -1, Access::Read, a), FP8Q_OK);
  b = a;
  EXPECT_TRUE(sameAddresses(a, b));
  EXPECT_TRUE(rangesOverlap(a, b));
  b.s0 = 1, b.s1 = 4; // column-major over the same base
  EXPECT_FALSE(sameAddresses(a, b));
  EXPECT_TRUE(rangesOverlap(a, b));
  b.base = a.base + a.spanBytes(); // right after a's last byte
  EXPECT_FALSE(rangesOverlap(a, b));
  b.base -= 1;
  EXPECT_TRUE(rangesOverlap(a, b));
}

/// A View2 of `rows` x `cols` elements of `elt` bytes at byte `offset` of
/// a buffer (never dereferenced).
View2 view(int64_t offset, int64_t rows, int64_t cols, int64_t s0, int64_t s1,
           size_t elt = 2) {
  // Large enough that every offset the tests use stays inside it.
  alignas(16) static char storage[1 << 16];
  View2 v;
  v.base = storage + offset;
  v.rows = rows;
  v.cols = cols;
  v.s0 = s0;
  v.s1 = s1;
  v.eltSize = elt;
  return v;
}

TEST(OperandChecksTest, ColumnSlicesOfOneBufferDoNotOverlap) {
  // The two halves of a [4, 256] buffer of 2-byte elements.
  const View2 left = view(0, 4, 128, 256, 1), right = view(256, 4, 128, 256, 1);
  EXPECT_TRUE(rangesOverlap(left, right));
  EXPECT_FALSE(viewsMayOverlap(left, right));
  EXPECT_FALSE(viewsMayOverlap(right, left));
  // One element too wide, or shifted by one: they meet.
  EXPECT_TRUE(viewsMayOverlap(view(0, 4, 129, 256, 1), right));
  EXPECT_TRUE(viewsMayOverlap(left, view(254, 4, 128, 256, 1)));
  // The right half reaching into the next row's left half.
  EXPECT_TRUE(viewsMayOverlap(left, view(258, 4, 128, 256, 1)));
  // Different row strides, column strides or element sizes: not proven.
  EXPECT_TRUE(viewsMayOverlap(left, view(256, 4, 128, 512, 1)));
  EXPECT_TRUE(viewsMayOverlap(left, view(256, 4, 64, 256, 2)));
  EXPECT_TRUE(viewsMayOverlap(left, view(256, 4, 64, 128, 1, 4)));
  // A single row next to the slices of every row.
  EXPECT_FALSE(viewsMayOverlap(view(512 + 256, 1, 128, 0, 1), left));
  EXPECT_TRUE(viewsMayOverlap(view(512 + 200, 1, 128, 0, 1), left));
  // Disjoint byte ranges never overlap, whatever the strides.
  EXPECT_FALSE(viewsMayOverlap(left, view(4096, 4, 128, 1, 4)));
}

TEST(OperandChecksTest, SumMayBeXOrResidualButNoOtherOperand) {
  const View2 x = view(0, 4, 128, 256, 1), r = view(256, 4, 128, 256, 1);
  const View2 q = view(4096, 4, 128, 128, 1, 1), s = view(8192, 4, 1, 1, 4, 4);
  const View2 y = view(12288, 4, 128, 128, 1);
  View1 gamma;
  gamma.base = x.base + 16384;
  gamma.size = 128;
  gamma.s0 = 1;
  gamma.eltSize = 2;
  EXPECT_EQ(checkSumAliasing("t", x, x, r, gamma, q, s, &y), FP8Q_OK);
  EXPECT_EQ(checkSumAliasing("t", r, x, r, gamma, q, s, &y), FP8Q_OK);
  EXPECT_EQ(
      checkSumAliasing("t", view(20480, 4, 128, 128, 1), x, r, gamma, q, s, &y),
      FP8Q_OK);
  EXPECT_EQ(
      checkSumAliasing("t", view(2, 4, 128, 256, 1), x, r, gamma, q, s, &y),
      FP8Q_ERR_LAYOUT);
  EXPECT_NE(lastMessage.find("operand sum partially overlaps operand x"),
            std::string::npos)
      << lastMessage;
  EXPECT_EQ(checkSumAliasing("t", y, x, r, gamma, q, s, &y), FP8Q_ERR_LAYOUT);
  EXPECT_NE(lastMessage.find("operand sum overlaps operand y"),
            std::string::npos);
  EXPECT_EQ(checkSumAliasing("t", y, x, r, gamma, q, s, nullptr), FP8Q_OK);
  EXPECT_EQ(checkSumAliasing("t", view(16384, 1, 128, 0, 1), x, r, gamma, q, s,
                             nullptr),
            FP8Q_ERR_LAYOUT);
  EXPECT_NE(lastMessage.find("operand sum overlaps operand gamma"),
            std::string::npos);
  EXPECT_EQ(checkSumAliasing("t", view(4096, 4, 64, 64, 1), x, r, gamma, q, s,
                             nullptr),
            FP8Q_ERR_LAYOUT);
  EXPECT_NE(lastMessage.find("operand sum overlaps operand q"),
            std::string::npos);
}

TEST(OperandChecksTest, EveryStatusHasItsOwnName) {
  std::set<std::string> names;
  for (int32_t s = FP8Q_OK; s <= FP8Q_ERR_DEVICE; ++s)
    names.insert(statusName(s));
  EXPECT_EQ(names.size(), size_t(FP8Q_ERR_DEVICE + 1));
  EXPECT_EQ(names.count("unknown status"), 0u);
  EXPECT_STREQ(statusName(99), "unknown status");
}

} // namespace
