//===- FusedProducersTest.cpp - add_rms_norm_quantize, silu_mul_quantize --===//
//
// The fused producers against their definitions, bit-exact, for every
// element type, M = 1, 3, 16 and K = 128, 384, row- and column-major
// scales: add_rms_norm_quantize is rms_norm_quantize on the sum rounded
// with fp8q_numerics.h's helpers (in place on x or residual too), and
// silu_mul_quantize is quantize_f32 on a computed here in f32 (libm expf,
// this target builds with -ffp-contract=off) from gate and up given as the
// two column halves of one [M, 2K] buffer. Then the checks of the new
// operands: every rejected call returns its status, names the operand and
// writes nothing.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtil.h"

#include "fp8q/Runtime/fp8q_numerics.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <math.h>
#include <string>

using namespace fp8q::test;

namespace {

/// bf16 activations: storage, rounding and the entry points.
struct Bf16Act {
  using E = uint16_t;
  static float load(E v) { return fp8q_bf16_to_f32(v); }
  static E round(float f) { return fp8q_f32_to_bf16(f); }
  static constexpr auto addRms = fp8q_add_rms_norm_quantize_bf16;
  static constexpr auto rms = fp8q_rms_norm_quantize_bf16;
  static constexpr auto silu = fp8q_silu_mul_quantize_bf16;
  static constexpr auto ciAddRms =
      _mlir_ciface_fp8q_rt_add_rms_norm_quantize_bf16;
  static constexpr auto ciSilu = _mlir_ciface_fp8q_rt_silu_mul_quantize_bf16;
  static constexpr const char *name = "bf16";
};

/// f16 activations.
struct F16Act {
  using E = uint16_t;
  static float load(E v) { return fp8q_f16_to_f32(v); }
  static E round(float f) { return fp8q_f32_to_f16(f); }
  static constexpr auto addRms = fp8q_add_rms_norm_quantize_f16;
  static constexpr auto rms = fp8q_rms_norm_quantize_f16;
  static constexpr auto silu = fp8q_silu_mul_quantize_f16;
  static constexpr auto ciAddRms =
      _mlir_ciface_fp8q_rt_add_rms_norm_quantize_f16;
  static constexpr auto ciSilu = _mlir_ciface_fp8q_rt_silu_mul_quantize_f16;
  static constexpr const char *name = "f16";
};

/// f32 activations.
struct F32Act {
  using E = float;
  static float load(E v) { return v; }
  static E round(float f) { return f; }
  static constexpr auto addRms = fp8q_add_rms_norm_quantize_f32;
  static constexpr auto rms = fp8q_rms_norm_quantize_f32;
  static constexpr auto silu = fp8q_silu_mul_quantize_f32;
  static constexpr auto ciAddRms =
      _mlir_ciface_fp8q_rt_add_rms_norm_quantize_f32;
  static constexpr auto ciSilu = _mlir_ciface_fp8q_rt_silu_mul_quantize_f32;
  static constexpr const char *name = "f32";
};

/// True when both buffers hold the same bytes.
template <typename T> bool sameBits(const Buf2<T> &a, const Buf2<T> &b) {
  return a.data.size() == b.data.size() &&
         std::memcmp(a.data.data(), b.data.data(), a.data.size() * sizeof(T)) ==
             0;
}

/// A descriptor of `buf`'s storage with other sizes, strides and offset.
template <typename T>
fp8q_memref_2d view(Buf2<T> &buf, int64_t rows, int64_t cols, int64_t s0,
                    int64_t s1, int64_t offset) {
  fp8q_memref_2d d = buf.desc;
  d.offset = offset;
  d.sizes[0] = rows;
  d.sizes[1] = cols;
  d.strides[0] = s0;
  d.strides[1] = s1;
  return d;
}

/// Fills element (m, k) of every row of `b` with values of magnitude about
/// `mag` * 2^(-4..4), rounded to the activation type.
template <class A> void fillAct(Buf2<typename A::E> &b, Rng &rng, double mag) {
  for (int64_t m = 0; m < b.rows(); ++m) {
    const double rowMag = mag * std::ldexp(1.0, int(rng.uniform(-4, 4)));
    for (int64_t k = 0; k < b.cols(); ++k)
      b.at(m, k) = A::round(float(rng.uniform(-rowMag, rowMag)));
  }
}

/// The unfused program's SiLU x mul, one f32 operation at a time.
float siluMulRef(float g, float u) {
  const float t = ::expf(-g);
  const float d = 1.0f + t;
  const float s = g / d;
  return s * u;
}

template <class A> class FusedProducers : public ::testing::Test {};
using ActTypes = ::testing::Types<Bf16Act, F16Act, F32Act>;
TYPED_TEST_SUITE(FusedProducers, ActTypes);

constexpr int64_t kMs[] = {1, 3, 16};
constexpr int64_t kKs[] = {128, 384};

/// One add_rms_norm_quantize case: x and residual row-major or the two
/// column halves of one [M, 2K] buffer, the scale row- or column-major.
template <class A>
void checkAddRms(int64_t M, int64_t K, bool strided, bool colMajor, bool keep,
                 int32_t fp8, uint64_t seed) {
  using E = typename A::E;
  SCOPED_TRACE(std::string(A::name) + " M=" + std::to_string(M) +
               " K=" + std::to_string(K) + (strided ? " strided" : "") +
               (colMajor ? " col_major" : "") + (keep ? " keep" : ""));
  const int64_t G = K / 128;
  Rng rng(seed);
  Buf2<E> both = Buf2<E>::rowMajor(M, 2 * K);
  Buf2<E> x = Buf2<E>::rowMajor(M, K), r = Buf2<E>::rowMajor(M, K);
  fillAct<A>(x, rng, 1.0);
  fillAct<A>(r, rng, 4.0);
  fp8q_memref_2d xd = x.desc, rd = r.desc;
  if (strided) {
    for (int64_t m = 0; m < M; ++m)
      for (int64_t k = 0; k < K; ++k) {
        both.at(m, k) = x.at(m, k);
        both.at(m, K + k) = r.at(m, k);
      }
    xd = view(both, M, K, 2 * K, 1, 0);
    rd = view(both, M, K, 2 * K, 1, K);
  }
  Buf1<E> gamma(K);
  for (auto &g : gamma.data)
    g = A::round(float(rng.uniform(0.5, 1.5)));
  // The reference: the header's rounding of the f32 sum, then
  // rms_norm_quantize on the materialized sum.
  Buf2<E> sumRef = Buf2<E>::rowMajor(M, K);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k)
      sumRef.at(m, k) = A::round(A::load(x.at(m, k)) + A::load(r.at(m, k)));
  auto scaleBuf = [&] {
    return colMajor ? Buf2<float>::colMajor(M, G, 1, -1.0f)
                    : Buf2<float>::rowMajor(M, G, -1.0f);
  };
  Buf2<uint8_t> qRef = Buf2<uint8_t>::rowMajor(M, K), q = qRef;
  Buf2<float> sRef = scaleBuf(), s = scaleBuf();
  const E sentinel = A::round(-3.0f);
  Buf2<E> yRef = Buf2<E>::rowMajor(M, K, sentinel), y = yRef;
  Buf2<E> sum = Buf2<E>::rowMajor(M, K, sentinel);
  const float eps = 1e-6f;
  ASSERT_EQ(A::rms(sumRef.d(), gamma.d(), qRef.d(), sRef.d(), yRef.d(), eps,
                   128, fp8, keep),
            FP8Q_OK)
      << fp8q_last_error();
  ASSERT_EQ(A::addRms(&xd, &rd, gamma.d(), q.d(), s.d(), y.d(), sum.d(), eps,
                      128, fp8, keep),
            FP8Q_OK)
      << fp8q_last_error();
  EXPECT_TRUE(sameBits(sum, sumRef));
  EXPECT_TRUE(sameBits(q, qRef));
  EXPECT_TRUE(sameBits(s, sRef));
  EXPECT_TRUE(sameBits(y, yRef)); // keep = 0: both still the sentinel
  if (!keep)
    for (E v : y.data)
      ASSERT_EQ(v, sentinel);
}

TYPED_TEST(FusedProducers, AddRmsNormIsRmsNormOfTheRoundedSum) {
  uint64_t seed = 1;
  for (int64_t M : kMs)
    for (int64_t K : kKs)
      for (int variant = 0; variant < 4; ++variant)
        checkAddRms<TypeParam>(M, K, /*strided=*/variant & 1,
                               /*colMajor=*/variant & 2,
                               /*keep=*/variant != 1,
                               variant == 3 ? FP8Q_F8E4M3FNUZ : FP8Q_F8E4M3FN,
                               ++seed);
}

/// Element (m, k) of descriptor `d` of E elements.
template <typename E>
E elementAt(const fp8q_memref_2d &d, int64_t m, int64_t k) {
  return static_cast<const E *>(
      d.aligned)[d.offset + m * d.strides[0] + k * d.strides[1]];
}

TYPED_TEST(FusedProducers, AddRmsNormInPlaceOnXOrResidual) {
  using A = TypeParam;
  using E = typename A::E;
  const int64_t M = 3, K = 384, G = 3;
  for (int variant = 0; variant < 4; ++variant) {
    // sum is x or residual; x and residual in two buffers, or the two
    // column halves of one [M, 2K] buffer (byte ranges that interleave).
    const bool onX = variant % 2 == 0, halves = variant >= 2;
    SCOPED_TRACE(std::string(onX ? "sum is x" : "sum is residual") +
                 (halves ? ", halves of one buffer" : ""));
    Rng rng(71 + variant);
    Buf2<E> bx = Buf2<E>::rowMajor(M, 2 * K), br = Buf2<E>::rowMajor(M, 2 * K);
    fillAct<A>(bx, rng, 2.0);
    fillAct<A>(br, rng, 0.5);
    fp8q_memref_2d xd = view(bx, M, K, 2 * K, 1, 0);
    fp8q_memref_2d rd =
        halves ? view(bx, M, K, 2 * K, 1, K) : view(br, M, K, 2 * K, 1, 0);
    Buf1<E> gamma(K);
    for (auto &g : gamma.data)
      g = A::round(float(rng.uniform(0.5, 1.5)));
    Buf2<E> sumRef = Buf2<E>::rowMajor(M, K);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t k = 0; k < K; ++k)
        sumRef.at(m, k) = A::round(A::load(elementAt<E>(xd, m, k)) +
                                   A::load(elementAt<E>(rd, m, k)));
    Buf2<uint8_t> qRef = Buf2<uint8_t>::rowMajor(M, K), q = qRef;
    Buf2<float> sRef = Buf2<float>::colMajor(M, G), s = sRef;
    Buf2<E> yRef = Buf2<E>::rowMajor(M, K), y = yRef;
    ASSERT_EQ(A::rms(sumRef.d(), gamma.d(), qRef.d(), sRef.d(), yRef.d(), 1e-5f,
                     128, FP8Q_F8E4M3FN, 1),
              FP8Q_OK);
    fp8q_memref_2d sumDesc = onX ? xd : rd;
    ASSERT_EQ(A::addRms(&xd, &rd, gamma.d(), q.d(), s.d(), y.d(), &sumDesc,
                        1e-5f, 128, FP8Q_F8E4M3FN, 1),
              FP8Q_OK)
        << fp8q_last_error();
    Buf2<E> got = Buf2<E>::rowMajor(M, K);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t k = 0; k < K; ++k)
        got.at(m, k) = elementAt<E>(sumDesc, m, k);
    EXPECT_TRUE(sameBits(got, sumRef));
    EXPECT_TRUE(sameBits(q, qRef));
    EXPECT_TRUE(sameBits(s, sRef));
    EXPECT_TRUE(sameBits(y, yRef));
  }
}

TYPED_TEST(FusedProducers, AddRmsNormSpecialValuesFollowTheHeaderRounding) {
  // inf + -inf, a NaN with a sign and payload, a sum that overflows in f16
  // (and rounds in bf16): the sum holds the helper's bits, and the norm of
  // the rows they poison matches rms_norm_quantize on the same sums.
  using A = TypeParam;
  using E = typename A::E;
  const int64_t M = 3, K = 128;
  Rng rng(5);
  Buf2<E> x = Buf2<E>::rowMajor(M, K), r = Buf2<E>::rowMajor(M, K);
  fillAct<A>(x, rng, 1.0);
  fillAct<A>(r, rng, 1.0);
  x.at(0, 3) = A::round(INFINITY);
  r.at(0, 3) = A::round(-INFINITY);
  x.at(1, 4) = A::round(-NAN);
  x.at(2, 5) = A::round(60000.0f);
  r.at(2, 5) = A::round(10000.0f);
  Buf1<E> gamma(K);
  for (auto &g : gamma.data)
    g = A::round(1.0f);
  Buf2<E> sumRef = Buf2<E>::rowMajor(M, K);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k)
      sumRef.at(m, k) = A::round(A::load(x.at(m, k)) + A::load(r.at(m, k)));
  Buf2<uint8_t> qRef = Buf2<uint8_t>::rowMajor(M, K), q = qRef;
  Buf2<float> sRef = Buf2<float>::rowMajor(M, 1), s = sRef;
  Buf2<E> yRef = Buf2<E>::rowMajor(M, K), y = yRef, sum = yRef;
  ASSERT_EQ(A::rms(sumRef.d(), gamma.d(), qRef.d(), sRef.d(), yRef.d(), 1e-6f,
                   128, FP8Q_F8E4M3FN, 1),
            FP8Q_OK);
  ASSERT_EQ(A::addRms(x.d(), r.d(), gamma.d(), q.d(), s.d(), y.d(), sum.d(),
                      1e-6f, 128, FP8Q_F8E4M3FN, 1),
            FP8Q_OK);
  EXPECT_TRUE(std::isnan(A::load(sum.at(0, 3))));
  EXPECT_TRUE(std::signbit(A::load(sum.at(1, 4))));
  EXPECT_TRUE(sameBits(sum, sumRef));
  EXPECT_TRUE(sameBits(q, qRef));
  EXPECT_TRUE(sameBits(s, sRef));
  EXPECT_TRUE(sameBits(y, yRef));
}

/// One silu_mul_quantize case: gate and up the two column halves of one
/// [M, 2K] buffer (or two row-major buffers), the scale row- or
/// column-major.
template <class A>
void checkSilu(int64_t M, int64_t K, bool halves, bool colMajor, int32_t fp8,
               uint64_t seed) {
  using E = typename A::E;
  SCOPED_TRACE(std::string(A::name) + " M=" + std::to_string(M) +
               " K=" + std::to_string(K) + (halves ? " halves" : "") +
               (colMajor ? " col_major" : ""));
  const int64_t G = K / 128;
  Rng rng(seed);
  Buf2<E> gu = Buf2<E>::rowMajor(M, 2 * K);
  fillAct<A>(gu, rng, 2.0);
  // Gates whose exp overflows or underflows, and infinities.
  gu.at(0, 1) = A::round(-100.0f);
  gu.at(0, 2) = A::round(100.0f);
  gu.at(M - 1, K - 1) = A::round(-INFINITY);
  fp8q_memref_2d gd = view(gu, M, K, 2 * K, 1, 0);
  fp8q_memref_2d ud = view(gu, M, K, 2 * K, 1, K);
  Buf2<E> g = Buf2<E>::rowMajor(M, K), u = Buf2<E>::rowMajor(M, K);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k) {
      g.at(m, k) = gu.at(m, k);
      u.at(m, k) = gu.at(m, K + k);
    }
  if (!halves) {
    gd = g.desc;
    ud = u.desc;
  }
  Buf2<float> a = Buf2<float>::rowMajor(M, K);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k)
      a.at(m, k) = siluMulRef(A::load(g.at(m, k)), A::load(u.at(m, k)));
  auto scaleBuf = [&] {
    return colMajor ? Buf2<float>::colMajor(M, G, 1, -1.0f)
                    : Buf2<float>::rowMajor(M, G, -1.0f);
  };
  Buf2<uint8_t> qRef = Buf2<uint8_t>::rowMajor(M, K), q = qRef;
  Buf2<float> sRef = scaleBuf(), s = scaleBuf();
  ASSERT_EQ(fp8q_quantize_f32(a.d(), qRef.d(), sRef.d(), 128, fp8), FP8Q_OK);
  ASSERT_EQ(A::silu(&gd, &ud, q.d(), s.d(), 128, fp8), FP8Q_OK)
      << fp8q_last_error();
  EXPECT_TRUE(sameBits(q, qRef));
  EXPECT_TRUE(sameBits(s, sRef));
}

TYPED_TEST(FusedProducers, SiluMulIsQuantizeF32OfTheF32Product) {
  uint64_t seed = 100;
  for (int64_t M : kMs)
    for (int64_t K : kKs)
      for (int variant = 0; variant < 3; ++variant)
        checkSilu<TypeParam>(M, K, /*halves=*/variant != 2,
                             /*colMajor=*/variant == 1,
                             variant == 2 ? FP8Q_F8E4M3FNUZ : FP8Q_F8E4M3FN,
                             ++seed);
}

/// Operands of an add_rms_norm_quantize call whose buffers have room for
/// misplaced descriptors, every byte recorded to prove nothing is written.
template <class A> struct AddRmsCall {
  using E = typename A::E;
  static constexpr int64_t M = 4, K = 256, G = 2;
  Buf2<E> x = Buf2<E>(M, K, K, 1, 0, A::round(1.0f));
  Buf2<E> r = Buf2<E>(M, K, K, 1, 0, A::round(0.5f));
  Buf1<E> gamma = Buf1<E>(K);
  Buf2<uint8_t> q = Buf2<uint8_t>::rowMajor(M, K, 0xAA);
  Buf2<float> s = Buf2<float>::rowMajor(M, G, -7.0f);
  Buf2<E> y = Buf2<E>::rowMajor(M, K, A::round(-2.0f));
  Buf2<E> sum = Buf2<E>::rowMajor(M, K, A::round(-3.0f));
  AddRmsCall() {
    // Room for descriptors that reach past the [M, K] of x and residual.
    x.data.resize(x.data.size() + K, A::round(1.0f));
    x.rebase();
    r.data.resize(r.data.size() + K, A::round(0.5f));
    r.rebase();
  }
  int32_t run(fp8q_memref_2d *xd, fp8q_memref_2d *rd, fp8q_memref_2d *yd,
              fp8q_memref_2d *sd, int32_t keep = 1) {
    return A::addRms(xd, rd, gamma.d(), q.d(), s.d(), yd, sd, 1e-6f, 128,
                     FP8Q_F8E4M3FN, keep);
  }
  int32_t run(fp8q_memref_2d *sd) { return run(x.d(), r.d(), y.d(), sd); }
};

template <class A> class FusedProducerChecks : public ::testing::Test {};
TYPED_TEST_SUITE(FusedProducerChecks, ActTypes);

TYPED_TEST(FusedProducerChecks, AddRmsNormRejectsBadOperandsWithoutWriting) {
  using A = TypeParam;
  AddRmsCall<A> c;
  const AddRmsCall<A> before = c;
  const int64_t M = c.M, K = c.K;
  auto expectRejected = [&](int32_t status, int32_t want, const char *msg) {
    EXPECT_EQ(status, want) << fp8q_last_error();
    EXPECT_NE(std::string(fp8q_last_error()).find(msg), std::string::npos)
        << fp8q_last_error();
    EXPECT_TRUE(sameBits(c.x, before.x) && sameBits(c.r, before.r) &&
                sameBits(c.q, before.q) && sameBits(c.s, before.s) &&
                sameBits(c.y, before.y) && sameBits(c.sum, before.sum))
        << "a rejected call wrote: " << msg;
  };
  // Shapes: residual and sum are [M, K] like x.
  fp8q_memref_2d rShort = view(c.r, M - 1, K, K, 1, 0);
  expectRejected(c.run(c.x.d(), &rShort, c.y.d(), c.sum.d()), FP8Q_ERR_SHAPE,
                 "operand residual has sizes [3, 256], expected [4, 256]");
  fp8q_memref_2d sumNarrow = view(c.sum, M, K - 128, K, 1, 0);
  expectRejected(c.run(&sumNarrow), FP8Q_ERR_SHAPE,
                 "operand sum has sizes [4, 128], expected [4, 256]");
  // Null descriptors and data pointers, misalignment.
  expectRejected(c.run(c.x.d(), nullptr, c.y.d(), c.sum.d()), FP8Q_ERR_NULL,
                 "operand residual: descriptor pointer is null");
  fp8q_memref_2d sumNull = c.sum.desc;
  sumNull.aligned = nullptr;
  expectRejected(c.run(&sumNull), FP8Q_ERR_NULL,
                 "operand sum: data pointer is null");
  fp8q_memref_2d sumOdd = c.sum.desc;
  sumOdd.aligned = reinterpret_cast<char *>(c.sum.data.data()) + 1;
  expectRejected(c.run(&sumOdd), FP8Q_ERR_ALIGN, "operand sum: data pointer");
  // Strides: negative, self-overlapping.
  fp8q_memref_2d sumNeg = view(c.sum, M, K, K, -1, K - 1);
  expectRejected(c.run(&sumNeg), FP8Q_ERR_LAYOUT, "operand sum: stride -1");
  fp8q_memref_2d sumSelf = view(c.sum, M, K, 1, 1, 0);
  expectRejected(c.run(&sumSelf), FP8Q_ERR_LAYOUT,
                 "output operand sum: strides (1, 1)");
  // Partial overlaps with x and residual (half a row on), with y and gamma.
  fp8q_memref_2d sumOnX = view(c.x, M, K, K, 1, K / 2);
  expectRejected(c.run(&sumOnX), FP8Q_ERR_LAYOUT,
                 "operand sum partially overlaps operand x");
  fp8q_memref_2d sumOnR = view(c.r, M, K, K, 1, 1);
  expectRejected(c.run(&sumOnR), FP8Q_ERR_LAYOUT,
                 "operand sum partially overlaps operand residual");
  fp8q_memref_2d sumIsY = c.y.desc;
  expectRejected(c.run(&sumIsY), FP8Q_ERR_LAYOUT,
                 "operand sum overlaps operand y");
  fp8q_memref_1d gammaInSum = c.gamma.desc;
  gammaInSum.allocated = gammaInSum.aligned = c.sum.data.data() + K;
  expectRejected(A::addRms(c.x.d(), c.r.d(), &gammaInSum, c.q.d(), c.s.d(),
                           c.y.d(), c.sum.d(), 1e-6f, 128, FP8Q_F8E4M3FN, 1),
                 FP8Q_ERR_LAYOUT, "operand sum overlaps operand gamma");
  // With keep_unquantized = 0, y is not an operand: sum may be y's memory.
  fp8q_memref_2d sumOnYMemory = c.y.desc;
  EXPECT_EQ(c.run(c.x.d(), c.r.d(), c.x.d(), &sumOnYMemory, /*keep=*/0),
            FP8Q_OK)
      << fp8q_last_error();
}

TYPED_TEST(FusedProducerChecks, SiluMulRejectsBadOperandsWithoutWriting) {
  using A = TypeParam;
  using E = typename A::E;
  const int64_t M = 4, K = 256;
  Buf2<E> gu = Buf2<E>::rowMajor(M, 2 * K, A::round(1.0f));
  fp8q_memref_2d gd = view(gu, M, K, 2 * K, 1, 0);
  fp8q_memref_2d ud = view(gu, M, K, 2 * K, 1, K);
  Buf2<uint8_t> q = Buf2<uint8_t>::rowMajor(M, K, 0xAA);
  Buf2<float> s = Buf2<float>::rowMajor(M, 2, -7.0f);
  const Buf2<uint8_t> q0 = q;
  const Buf2<float> s0 = s;
  auto expectRejected = [&](int32_t status, int32_t want, const char *msg) {
    EXPECT_EQ(status, want) << fp8q_last_error();
    EXPECT_NE(std::string(fp8q_last_error()).find(msg), std::string::npos)
        << fp8q_last_error();
    EXPECT_TRUE(sameBits(q, q0) && sameBits(s, s0))
        << "a rejected call wrote: " << msg;
  };
  fp8q_memref_2d upNarrow = view(gu, M, K - 128, 2 * K, 1, K);
  expectRejected(A::silu(&gd, &upNarrow, q.d(), s.d(), 128, FP8Q_F8E4M3FN),
                 FP8Q_ERR_SHAPE,
                 "operand up has sizes [4, 128], expected [4, 256]");
  fp8q_memref_2d qShort = view(q, M - 1, K, K, 1, 0);
  expectRejected(A::silu(&gd, &ud, &qShort, s.d(), 128, FP8Q_F8E4M3FN),
                 FP8Q_ERR_SHAPE, "operand q has sizes");
  expectRejected(A::silu(&gd, nullptr, q.d(), s.d(), 128, FP8Q_F8E4M3FN),
                 FP8Q_ERR_NULL, "operand up: descriptor pointer is null");
  fp8q_memref_2d gateNull = gd;
  gateNull.aligned = nullptr;
  expectRejected(A::silu(&gateNull, &ud, q.d(), s.d(), 128, FP8Q_F8E4M3FN),
                 FP8Q_ERR_NULL, "operand gate: data pointer is null");
  fp8q_memref_2d upNeg = view(gu, M, K, -2 * K, 1, (M - 1) * 2 * K + K);
  expectRejected(A::silu(&gd, &upNeg, q.d(), s.d(), 128, FP8Q_F8E4M3FN),
                 FP8Q_ERR_LAYOUT, "operand up: stride");
  expectRejected(A::silu(&gd, &ud, q.d(), s.d(), 100, FP8Q_F8E4M3FN),
                 FP8Q_ERR_ARG, "group_size 100");
  expectRejected(A::silu(&gd, &ud, q.d(), s.d(), 128, 9), FP8Q_ERR_ARG,
                 "fp8_type 9");
}

TYPED_TEST(FusedProducerChecks, MlirEntryPointsExitOnError) {
  using A = TypeParam;
  AddRmsCall<A> c;
  fp8q_memref_2d sumOnX = view(c.x, c.M, c.K, c.K, 1, 3);
  const std::string rt = std::string("fp8q runtime error: fp8q_rt_");
  EXPECT_EXIT(A::ciAddRms(c.x.d(), c.r.d(), c.gamma.d(), c.q.d(), c.s.d(),
                          c.y.d(), &sumOnX, 1e-6f, 128, FP8Q_F8E4M3FN, 1),
              testing::ExitedWithCode(1),
              rt + "add_rms_norm_quantize_" + A::name +
                  ": operand sum partially overlaps operand x");
  fp8q_memref_2d upShort = view(c.r, c.M - 1, c.K, c.K, 1, 0);
  EXPECT_EXIT(
      A::ciSilu(c.x.d(), &upShort, c.q.d(), c.s.d(), 128, FP8Q_F8E4M3FN),
      testing::ExitedWithCode(1),
      rt + "silu_mul_quantize_" + A::name +
          ": operand up has sizes \\[3, 256\\], expected \\[4, 256\\]");
}

} // namespace
