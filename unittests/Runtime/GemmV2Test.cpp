//===- GemmV2Test.cpp - The v2 block-scaled GEMM against SPEC
//--------------===//
//
// fp8q_gemm_v2 for every format (FP8 1x128 UE8M0, MXFP8 E4M3 / E5M2, MXFP4,
// NVFP4 with the product of the global scales) with x_scale and w_scale in
// every pair of layouts, against a reference written here from SPEC's
// definitions: the element formats decoded from their bit fields, the
// scale layouts from SpecScaleLayouts.h's spelling of the offset formulas,
// fp4 packed two per byte (element 2i in the low nibble), bf16 rounded to
// nearest even. The sums run in the order docs/RuntimeABI.md documents
// (fp32, increasing k in a group, increasing groups, the global product
// last), so results are compared bit for bit. Then NaN / inf / zero
// groups, e8m0 0xFF scales, both fp4 descriptor forms, the preshuffled
// fp4 weight, and the argument and contract checks.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtil.h"
#include "SpecScaleLayouts.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace fp8q::test;

namespace {

//===-- SPEC's element formats, decoded from their fields
//------------------===//

/// f8E5M2: S.EEEEE.MM, bias 15; E = 31 is inf (M = 0) or NaN.
double refE5M2(uint8_t c) {
  int e = (c >> 2) & 31, m = c & 3;
  double mag = e == 31  ? (m ? NAN : INFINITY)
               : e == 0 ? std::ldexp(m / 4.0, -14)
                        : std::ldexp(1.0 + m / 4.0, e - 15);
  return (c & 0x80) ? -mag : mag;
}

/// f4E2M1FN (a nibble): S.EE.M, bias 1, no inf or NaN.
double refE2M1(uint8_t c) {
  int e = (c >> 1) & 3, m = c & 1;
  double mag = e == 0 ? m * 0.5 : std::ldexp(1.0 + m / 2.0, e - 1);
  return (c & 0x8) ? -mag : mag;
}

/// f8E8M0FNU: 2^(e - 127), 0xFF NaN.
double refE8M0(uint8_t e) {
  return e == 0xFF ? NAN : std::ldexp(1.0, int(e) - 127);
}

double refCode(uint8_t c, int qType) {
  switch (qType) {
  case FP8Q_Q_F8E5M2:
    return refE5M2(c);
  case FP8Q_Q_F4E2M1FN:
    return refE2M1(c);
  default:
    return refDecode(c, FP8Q_F8E4M3FN);
  }
}

double refScale(uint8_t b, int scaleType) {
  return scaleType == FP8Q_SCALE_F8E8M0FNU ? refE8M0(b)
                                           : refDecode(b, FP8Q_F8E4M3FN);
}

/// bf16 round to nearest even; a NaN stays a NaN.
uint16_t refBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (std::isnan(f))
    return uint16_t((u >> 16) | 0x40);
  uint32_t lsb = (u >> 16) & 1;
  return uint16_t((u + 0x7FFF + lsb) >> 16);
}

//===-- Formats and operands
//-----------------------------------------------===//

struct Format {
  const char *name;
  int qType, scaleType;
  int64_t group;
  bool blockW; // w_scale per 128x128 block (FP8 1x128 UE8M0)
};

const Format kFormats[] = {
    {"Ue8m0", FP8Q_Q_F8E4M3FN, FP8Q_SCALE_F8E8M0FNU, 128, true},
    {"Mxfp8E4M3", FP8Q_Q_F8E4M3FN, FP8Q_SCALE_F8E8M0FNU, 32, false},
    {"Mxfp8E5M2", FP8Q_Q_F8E5M2, FP8Q_SCALE_F8E8M0FNU, 32, false},
    {"Mxfp4", FP8Q_Q_F4E2M1FN, FP8Q_SCALE_F8E8M0FNU, 32, false},
    {"Nvfp4", FP8Q_Q_F4E2M1FN, FP8Q_SCALE_F8E4M3FN, 16, false},
    // UE8M0 weight scales per weight row ([N, K / 128]: DeepGEMM on sm100,
    // the deepgemm_sm100 contract). Regression: the runtime read them as
    // 128x128 blocks and rejected the shape.
    {"Ue8m0PerRow", FP8Q_Q_F8E4M3FN, FP8Q_SCALE_F8E8M0FNU, 128, false},
};

bool isFp4(const Format &f) { return f.qType == FP8Q_Q_F4E2M1FN; }

/// A random finite code of the format (NaN / inf codes are the special
/// tests' business).
uint8_t randomCode(Rng &rng, const Format &f) {
  for (;;) {
    uint8_t c = uint8_t(rng.next() >> 24);
    if (isFp4(f))
      return c & 0xF;
    if (std::isfinite(refCode(c, f.qType)))
      return c;
  }
}

/// A random scale byte of moderate magnitude: e8m0 2^-6 .. 2^6, e4m3
/// positive finite codes 0x20 .. 0x5F (2^-3 .. 30).
uint8_t randomScale(Rng &rng, const Format &f) {
  if (f.scaleType == FP8Q_SCALE_F8E8M0FNU)
    return uint8_t(121 + rng.next() % 13);
  return uint8_t(0x20 + rng.next() % 0x40);
}

/// q or w codes [rows, K], packed as the runtime reads them: fp8 one byte
/// per code, fp4 two per byte (element 2i in the low nibble), row-major.
struct Codes {
  int64_t rows, K;
  bool fp4;
  std::vector<uint8_t> code;  // [rows, K]
  std::vector<uint8_t> bytes; // the buffer
  fp8q_memref_2d desc{};

  Codes(int64_t rows, int64_t K, bool fp4)
      : rows(rows), K(K), fp4(fp4), code(rows * K) {}
  /// Packs `code` row-major; `countCodes` gives an f4E2M1FN descriptor
  /// sizes [rows, K] (MLIR's memref of f4E2M1FN) instead of bytes.
  void pack(bool countCodes = false) {
    const int64_t rowBytes = fp4 ? K / 2 : K;
    bytes.assign(rows * rowBytes, 0);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t k = 0; k < K; ++k) {
        uint8_t c = code[r * K + k];
        if (!fp4)
          bytes[r * K + k] = c;
        else
          bytes[r * rowBytes + k / 2] |= uint8_t((c & 0xF) << (4 * (k % 2)));
      }
    describe(countCodes ? K : rowBytes, countCodes ? K : rowBytes);
  }
  /// SPEC's preshuffle_16x16, byte-wise on the [rows, K / 2] bytes of an
  /// fp4 weight: byte (16 n0 + n1, 32 k0 + 16 k1 + k2) at
  /// (((n0 * (Kb / 32) + k0) * 2 + k1) * 16 + n1) * 16 + k2.
  void packPreshuffled() {
    pack();
    std::vector<uint8_t> plain = bytes;
    const int64_t Kb = K / 2;
    for (int64_t n = 0; n < rows; ++n)
      for (int64_t kb = 0; kb < Kb; ++kb) {
        int64_t n0 = n / 16, n1 = n % 16, k0 = kb / 32, k1 = (kb % 32) / 16,
                k2 = kb % 16;
        bytes[(((n0 * (Kb / 32) + k0) * 2 + k1) * 16 + n1) * 16 + k2] =
            plain[n * Kb + kb];
      }
    describe(Kb, Kb);
  }
  void describe(int64_t cols, int64_t rowStride) {
    desc.allocated = desc.aligned = bytes.data();
    desc.offset = 0;
    desc.sizes[0] = rows;
    desc.sizes[1] = cols;
    desc.strides[0] = rowStride;
    desc.strides[1] = 1;
  }
  double value(int64_t r, int64_t k, int qType) const {
    return refCode(code[r * K + k], qType);
  }
  fp8q_memref_2d *d() { return &desc; }
};

/// A scale's bytes [rows, cols] (1-byte e8m0 or e4m3) and its v2 scale
/// descriptor in `layout`.
struct Scales {
  LayoutCase layout;
  int64_t rows, cols;
  std::vector<uint8_t> value; // [rows, cols]
  ScaleBuf buf;
  Scales(const LayoutCase &l, int64_t rows, int64_t cols)
      : layout(l), rows(rows), cols(cols), value(rows * cols),
        buf(l, rows, cols, 1, 0) {}
  void store() {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        buf.bytes[specOffset(layout, rows, cols, r, c)] = value[r * cols + c];
  }
  fp8q_memref_2d *d() { return buf.d(); }
};

/// The problem of one call, its operands and the reference result.
struct Problem {
  Format f;
  int64_t M, N, K, G, wRows, wCols;
  Codes q, w;
  Scales xs, ws;
  float global = 1.0f; // NVFP4: the product of the two global scales
  fp8q_memref_0d globalDesc{};

  Problem(const Format &f, int64_t M, int64_t N, int64_t K,
          const LayoutCase &xl, const LayoutCase &wl)
      : f(f), M(M), N(N), K(K), G(K / f.group),
        wRows(f.blockW ? (N + 127) / 128 : N),
        wCols(f.blockW ? K / 128 : K / f.group), q(M, K, isFp4(f)),
        w(N, K, isFp4(f)), xs(xl, M, K / f.group), ws(wl, wRows, wCols) {
    globalDesc.allocated = globalDesc.aligned = &global;
  }

  void randomize(uint64_t seed) {
    Rng rng(seed);
    for (uint8_t &c : q.code)
      c = randomCode(rng, f);
    for (uint8_t &c : w.code)
      c = randomCode(rng, f);
    for (uint8_t &b : xs.value)
      b = randomScale(rng, f);
    for (uint8_t &b : ws.value)
      b = randomScale(rng, f);
    if (f.scaleType == FP8Q_SCALE_F8E4M3FN)
      global = 0.375f; // e.g. 1.5 (activations) * 0.25 (weights)
  }

  /// SPEC's sum in the documented order, fp32, then bf16.
  std::vector<uint16_t> reference() const {
    std::vector<uint16_t> out(M * N);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        float acc = 0.0f;
        for (int64_t g = 0; g < G; ++g) {
          float part = 0.0f;
          for (int64_t k = g * f.group; k < (g + 1) * f.group; ++k)
            part +=
                float(q.value(m, k, f.qType)) * float(w.value(n, k, f.qType));
          int64_t wr = f.blockW ? n / 128 : n;
          int64_t wg = f.blockW ? g * f.group / 128 : g;
          float sx = float(refScale(xs.value[m * G + g], f.scaleType));
          float sw = float(refScale(ws.value[wr * wCols + wg], f.scaleType));
          acc += (sx * sw) * part;
        }
        out[m * N + n] =
            refBf16(f.scaleType == FP8Q_SCALE_F8E4M3FN ? global * acc : acc);
      }
    return out;
  }

  int32_t run(Buf2<uint16_t> &out, int32_t weightLayout = 0,
              int32_t kernel = FP8Q_KERNEL_REFERENCE) {
    // Descriptors point at this problem's storage, wherever it moved.
    q.desc.allocated = q.desc.aligned = q.bytes.data();
    w.desc.allocated = w.desc.aligned = w.bytes.data();
    xs.buf.desc.allocated = xs.buf.desc.aligned = xs.buf.bytes.data();
    ws.buf.desc.allocated = ws.buf.desc.aligned = ws.buf.bytes.data();
    globalDesc.allocated = globalDesc.aligned = &global;
    return fp8q_gemm_v2(q.d(), xs.d(), w.d(), ws.d(), &globalDesc, out.d(),
                        f.group, kernel, f.qType, f.scaleType, xs.layout.layout,
                        xs.layout.align, ws.layout.layout, ws.layout.align,
                        weightLayout);
  }
};

/// Output bits equal the reference's (any NaN equals any NaN).
void expectOutput(Buf2<uint16_t> &out, const std::vector<uint16_t> &want,
                  int64_t M, int64_t N) {
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      uint16_t got = out.at(m, n), ref = want[m * N + n];
      bool gotNan = std::isnan(bf16ToFloat(got));
      bool refNan = std::isnan(bf16ToFloat(ref));
      if (gotNan || refNan)
        ASSERT_EQ(gotNan, refNan) << "m=" << m << " n=" << n;
      else
        ASSERT_EQ(got, ref) << "m=" << m << " n=" << n << " got "
                            << bf16ToFloat(got) << " want " << bf16ToFloat(ref);
    }
}

//===-- Every format x every pair of scale layouts
//-------------------------===//

struct Case {
  Format f;
  LayoutCase xl, wl;
};

std::vector<Case> allCases() {
  std::vector<Case> cs;
  for (const Format &f : kFormats)
    for (const LayoutCase &x : kLayouts)
      for (const LayoutCase &w : kLayouts)
        cs.push_back({f, x, w});
  return cs;
}

class GemmV2 : public testing::TestWithParam<Case> {};

TEST_P(GemmV2, MatchesSpecReference) {
  const Case &c = GetParam();
  // M crosses the 32-row tiles of the swizzled layouts; N the runtime's
  // 64-column tiles (and, for UE8M0, a weight-scale block).
  const int64_t M = 37, N = c.f.blockW ? 136 : 72,
                K = c.f.blockW ? 256 : 4 * c.f.group + 2 * c.f.group;
  Problem p(c.f, M, N, K, c.xl, c.wl);
  p.randomize(uint64_t(M * 131 + N * 7 + K));
  p.q.pack();
  p.w.pack();
  p.xs.store();
  p.ws.store();
  Buf2<uint16_t> out = Buf2<uint16_t>::rowMajor(M, N, 0xDEAD);
  ASSERT_EQ(p.run(out), FP8Q_OK) << fp8q_last_error();
  expectOutput(out, p.reference(), M, N);
}

INSTANTIATE_TEST_SUITE_P(AllFormatsAndLayouts, GemmV2,
                         testing::ValuesIn(allCases()),
                         [](const testing::TestParamInfo<Case> &i) {
                           return std::string(i.param.f.name) + "_x" +
                                  i.param.xl.name + "_w" + i.param.wl.name;
                         });

//===-- fp4 descriptors, preshuffled weights, special values
//---------------===//

Problem smallProblem(int format, const LayoutCase &l = kLayouts[0]) {
  const Format &f = kFormats[format];
  int64_t K = f.blockW ? 256 : 4 * f.group;
  Problem p(f, 5, f.blockW ? 130 : 48, K, l, l);
  p.randomize(7 + format);
  return p;
}

TEST(GemmV2Operands, Fp4DescriptorsMayCountCodes) {
  for (int format : {3, 4}) {
    Problem p = smallProblem(format);
    p.q.pack(/*countCodes=*/true);
    p.w.pack(/*countCodes=*/true);
    p.xs.store();
    p.ws.store();
    Buf2<uint16_t> out = Buf2<uint16_t>::rowMajor(p.M, p.N);
    ASSERT_EQ(p.run(out), FP8Q_OK) << fp8q_last_error();
    expectOutput(out, p.reference(), p.M, p.N);
  }
}

TEST(GemmV2Operands, PreshuffledFp4Weight) {
  const Format &f = kFormats[3];
  Problem p(f, 3, 32, 128, kLayouts[0], kLayouts[5]);
  p.randomize(11);
  p.q.pack();
  p.w.packPreshuffled();
  p.xs.store();
  p.ws.store();
  Buf2<uint16_t> out = Buf2<uint16_t>::rowMajor(p.M, p.N);
  ASSERT_EQ(p.run(out, FP8Q_WEIGHT_LAYOUT_PRESHUFFLE_16X16), FP8Q_OK)
      << fp8q_last_error();
  expectOutput(out, p.reference(), p.M, p.N);
  // The same bytes read as a plain weight give another result.
  Buf2<uint16_t> plain = Buf2<uint16_t>::rowMajor(p.M, p.N);
  ASSERT_EQ(p.run(plain), FP8Q_OK) << fp8q_last_error();
  EXPECT_NE(plain.data, out.data);
}

/// fp8q_preshuffle_v2 permutes an fp4 weight's packed bytes as the test's
/// own spelling of AITER's shuffle_weight (Codes::packPreshuffled) does,
/// from a descriptor counting codes (the compiler's) or bytes (the C
/// API's), and fp8q_unpreshuffle_v2 undoes it.
TEST(PreshuffleV2, Fp4IsByteWise) {
  Rng rng(5);
  Codes plain(32, 128, /*fp4=*/true), want(32, 128, true);
  for (uint8_t &c : plain.code)
    c = uint8_t(rng.next() >> 28);
  want.code = plain.code;
  want.packPreshuffled();
  for (bool countCodes : {true, false}) {
    plain.pack(countCodes);
    Codes dst(32, 128, true);
    dst.pack(countCodes); // zero codes, the same descriptor kind
    std::fill(dst.bytes.begin(), dst.bytes.end(), 0xA5);
    ASSERT_EQ(fp8q_preshuffle_v2(plain.d(), dst.d(), FP8Q_Q_F4E2M1FN, 128),
              FP8Q_OK)
        << fp8q_last_error();
    EXPECT_EQ(dst.bytes, want.bytes) << "countCodes " << countCodes;
    Codes back(32, 128, true);
    back.pack(countCodes);
    ASSERT_EQ(fp8q_unpreshuffle_v2(dst.d(), back.d(), FP8Q_Q_F4E2M1FN, 128),
              FP8Q_OK)
        << fp8q_last_error();
    EXPECT_EQ(back.bytes, plain.bytes);
  }
}

/// fp8 codes take the v1 permutation.
TEST(PreshuffleV2, Fp8IsThePerCodePermutation) {
  Rng rng(6);
  Codes w(16, 64, /*fp4=*/false), a(16, 64, false), b(16, 64, false);
  for (uint8_t &c : w.code)
    c = uint8_t(rng.next() >> 24);
  w.pack();
  a.pack();
  b.pack();
  ASSERT_EQ(fp8q_preshuffle_v2(w.d(), a.d(), FP8Q_Q_F8E5M2, 64), FP8Q_OK)
      << fp8q_last_error();
  ASSERT_EQ(fp8q_preshuffle(w.d(), b.d()), FP8Q_OK) << fp8q_last_error();
  EXPECT_EQ(a.bytes, b.bytes);
  EXPECT_NE(a.bytes, w.bytes);
}

TEST(PreshuffleV2, Rejections) {
  Codes w(16, 96, /*fp4=*/true), dst(16, 96, true);
  w.pack(true);
  dst.pack(true);
  EXPECT_EQ(fp8q_preshuffle_v2(w.d(), dst.d(), FP8Q_Q_F4E2M1FN, 96),
            FP8Q_ERR_SHAPE);
  EXPECT_NE(
      std::string(fp8q_last_error()).find("needs K % 64 == 0, got K = 96"),
      std::string::npos)
      << fp8q_last_error();
  EXPECT_EQ(fp8q_preshuffle_v2(w.d(), dst.d(), 7, 96), FP8Q_ERR_ARG);
  Codes v(16, 128, true), out(16, 128, true);
  v.pack(true);
  out.pack(true);
  // 128 columns are neither K = 192 codes nor their 96 bytes.
  EXPECT_EQ(fp8q_preshuffle_v2(v.d(), out.d(), FP8Q_Q_F4E2M1FN, 192),
            FP8Q_ERR_SHAPE);
  EXPECT_NE(std::string(fp8q_last_error())
                .find("operand w has 128 columns: an f4E2M1FN row of K = 192 "
                      "codes is 96 bytes (a descriptor counting bytes) or 192 "
                      "codes"),
            std::string::npos)
      << fp8q_last_error();
  EXPECT_EQ(fp8q_preshuffle_v2(nullptr, out.d(), FP8Q_Q_F4E2M1FN, 128),
            FP8Q_ERR_NULL);
}

TEST(GemmV2Operands, GlobalScaleProductScalesNvfp4Only) {
  Problem p = smallProblem(4);
  p.q.pack();
  p.w.pack();
  p.xs.store();
  p.ws.store();
  p.global = 1.0f;
  Buf2<uint16_t> one = Buf2<uint16_t>::rowMajor(p.M, p.N);
  ASSERT_EQ(p.run(one), FP8Q_OK) << fp8q_last_error();
  p.global = 0.125f; // a power of two: exactly one eighth of every output
  Buf2<uint16_t> eighth = Buf2<uint16_t>::rowMajor(p.M, p.N);
  ASSERT_EQ(p.run(eighth), FP8Q_OK) << fp8q_last_error();
  expectOutput(eighth, p.reference(), p.M, p.N);
  for (int64_t i = 0; i < p.M * p.N; ++i)
    if (bf16ToFloat(one.data[i]) != 0.0f)
      ASSERT_EQ(bf16ToFloat(eighth.data[i]), bf16ToFloat(one.data[i]) / 8);
  // MXFP4 never reads it: a null descriptor is fine.
  Problem mx = smallProblem(3);
  mx.q.pack();
  mx.w.pack();
  mx.xs.store();
  mx.ws.store();
  Buf2<uint16_t> out = Buf2<uint16_t>::rowMajor(mx.M, mx.N);
  ASSERT_EQ(fp8q_gemm_v2(mx.q.d(), mx.xs.d(), mx.w.d(), mx.ws.d(), nullptr,
                         out.d(), 32, FP8Q_KERNEL_REFERENCE, FP8Q_Q_F4E2M1FN,
                         FP8Q_SCALE_F8E8M0FNU, 0, 1, 0, 1, 0),
            FP8Q_OK)
      << fp8q_last_error();
  expectOutput(out, mx.reference(), mx.M, mx.N);
}

TEST(GemmV2Special, NanInfAndZeroGroups) {
  for (int format : {0, 1, 2, 3}) {
    Problem p = smallProblem(format, kLayouts[5]); // swizzle_32_4_4
    const Format &f = p.f;
    // Row 0: an e8m0 0xFF (NaN) activation scale in group 1.
    p.xs.value[0 * p.G + 1] = 0xFF;
    // Row 1: group 0 all zero codes under a huge scale 2^100: contributes
    // exactly 0.
    for (int64_t k = 0; k < f.group; ++k)
      p.q.code[1 * p.K + k] = 0;
    p.xs.value[1 * p.G + 0] = 227;
    // Row 2: all zero codes: every output is +0.
    for (int64_t k = 0; k < p.K; ++k)
      p.q.code[2 * p.K + k] = 0;
    // Row 3: an infinite code (E5M2 has them).
    if (f.qType == FP8Q_Q_F8E5M2)
      p.q.code[3 * p.K + 2] = 0x7C;
    // Weight row 4 (or its block): a NaN weight scale.
    p.ws.value[(f.blockW ? 0 : 4) * p.wCols + 0] = 0xFF;
    p.q.pack();
    p.w.pack();
    p.xs.store();
    p.ws.store();
    Buf2<uint16_t> out = Buf2<uint16_t>::rowMajor(p.M, p.N);
    ASSERT_EQ(p.run(out), FP8Q_OK) << fp8q_last_error();
    std::vector<uint16_t> want = p.reference();
    expectOutput(out, want, p.M, p.N);
    for (int64_t n = 0; n < p.N; ++n)
      EXPECT_TRUE(std::isnan(bf16ToFloat(out.at(0, n)))) << f.name << n;
    if (!f.blockW) {
      for (int64_t n = 0; n < p.N; ++n)
        if (n != 4)
          EXPECT_FALSE(std::isnan(bf16ToFloat(out.at(1, n)))) << f.name << n;
      for (int64_t m = 0; m < p.M; ++m)
        EXPECT_TRUE(std::isnan(bf16ToFloat(out.at(m, 4)))) << f.name << m;
      EXPECT_EQ(out.at(2, 0), 0u) << f.name;
    }
    if (f.qType == FP8Q_Q_F8E5M2) {
      bool sawInfOrNan = false;
      for (int64_t n = 0; n < p.N; ++n)
        sawInfOrNan |= !std::isfinite(bf16ToFloat(out.at(3, n)));
      EXPECT_TRUE(sawInfOrNan);
    }
  }
}

TEST(GemmV2Special, ResultsDoNotDependOnThreads) {
  Problem p = smallProblem(1, kLayouts[6]);
  p.q.pack();
  p.w.pack();
  p.xs.store();
  p.ws.store();
  Buf2<uint16_t> a = Buf2<uint16_t>::rowMajor(p.M, p.N);
  setenv("FP8Q_RT_THREADS", "1", 1);
  ASSERT_EQ(p.run(a), FP8Q_OK) << fp8q_last_error();
  unsetenv("FP8Q_RT_THREADS");
  Buf2<uint16_t> b = Buf2<uint16_t>::rowMajor(p.M, p.N);
  ASSERT_EQ(p.run(b), FP8Q_OK) << fp8q_last_error();
  EXPECT_EQ(a.data, b.data);
}

//===-- Checks: nothing written, precise messages
//--------------------------===//

void expectRejected(Problem &p, int32_t status, const std::string &msg,
                    int32_t weightLayout = 0,
                    int32_t kernel = FP8Q_KERNEL_REFERENCE) {
  Buf2<uint16_t> out = Buf2<uint16_t>::rowMajor(p.M, p.N, 0xBEEF);
  EXPECT_EQ(p.run(out, weightLayout, kernel), status);
  EXPECT_NE(std::string(fp8q_last_error()).find(msg), std::string::npos)
      << fp8q_last_error();
  for (uint16_t v : out.data)
    ASSERT_EQ(v, 0xBEEF);
}

Problem packedProblem(int format, const LayoutCase &xl, const LayoutCase &wl) {
  const Format &f = kFormats[format];
  Problem p(f, 4, 64, f.blockW ? 256 : 4 * f.group, xl, wl);
  p.randomize(3);
  p.q.pack();
  p.w.pack();
  p.xs.store();
  p.ws.store();
  return p;
}

TEST(GemmV2Checks, ScaleDescriptorKindMustMatchTheDeclaredLayout) {
  const LayoutCase &row = kLayouts[0], &swz = kLayouts[5];
  // A swizzled buffer (strides (0, 0)) declared row_major.
  Problem a = packedProblem(1, swz, row);
  a.xs.layout = row;
  expectRejected(a, FP8Q_ERR_LAYOUT,
                 "operand x_scale is declared row_major (align 1): its "
                 "strides must be (4, 1), got (0, 0) (strides (0, 0) mark a "
                 "padded or swizzled buffer)");
  // A row-major buffer declared swizzle_32_4_4, on either operand.
  Problem b = packedProblem(1, row, row);
  b.ws.layout = swz;
  expectRejected(b, FP8Q_ERR_LAYOUT,
                 "operand w_scale is declared swizzle_32_4_4, a padded "
                 "layout: its descriptor must have strides (0, 0)");
  Problem c = packedProblem(3, row, swz);
  c.xs.layout = swz;
  expectRejected(c, FP8Q_ERR_LAYOUT,
                 "operand x_scale is declared swizzle_32_4_4, a padded "
                 "layout");
}

TEST(GemmV2Checks, FormatsCodesAndShapes) {
  const LayoutCase &row = kLayouts[0];
  Problem p = packedProblem(1, row, row);
  p.f.group = 64;
  expectRejected(p, FP8Q_ERR_ARG,
                 "q_type f8E4M3FN, scale_type f8E8M0FNU and group_size 64 are "
                 "not a SPEC v2 GEMM format");
  Problem f32 = packedProblem(1, row, row);
  f32.f.scaleType = FP8Q_SCALE_F32;
  expectRejected(f32, FP8Q_ERR_ARG, "f32 scales are fp8q_rt_gemm's");
  Problem k = packedProblem(1, row, row);
  expectRejected(k, FP8Q_ERR_ARG, "kernel 99 is not an fp8q_kernel", 0, 99);
  Problem ws = packedProblem(3, row, row);
  ws.ws.buf.desc.sizes[0] = 1;
  expectRejected(ws, FP8Q_ERR_SHAPE,
                 "operand w_scale has sizes [1, 4], expected [64, 4]");
  Problem q = packedProblem(3, row, row);
  q.q.desc.sizes[1] = 63;
  expectRejected(q, FP8Q_ERR_SHAPE,
                 "operand q has sizes [4, 63], expected [4, 64]");
  Problem odd = packedProblem(4, row, row);
  odd.q.desc.sizes[1] = odd.K; // counts codes, but from an odd offset
  odd.q.desc.offset = 1;
  odd.q.desc.strides[0] = odd.K;
  expectRejected(odd, FP8Q_ERR_LAYOUT,
                 "needs a unit column stride, an even offset and an even row "
                 "stride");
  Problem pre = packedProblem(1, row, row);
  expectRejected(pre, FP8Q_ERR_ARG,
                 "weight_layout preshuffle_16x16 of gemm_v2 is f4E2M1FN's",
                 FP8Q_WEIGHT_LAYOUT_PRESHUFFLE_16X16);
}

TEST(GemmV2Checks, Nvfp4GlobalScale) {
  const LayoutCase &row = kLayouts[0];
  Problem p = packedProblem(4, row, row);
  Buf2<uint16_t> out = Buf2<uint16_t>::rowMajor(p.M, p.N, 0xBEEF);
  EXPECT_EQ(fp8q_gemm_v2(p.q.d(), p.xs.d(), p.w.d(), p.ws.d(), nullptr, out.d(),
                         16, FP8Q_KERNEL_REFERENCE, FP8Q_Q_F4E2M1FN,
                         FP8Q_SCALE_F8E4M3FN, 0, 1, 0, 1, 0),
            FP8Q_ERR_NULL);
  EXPECT_NE(std::string(fp8q_last_error()).find("operand global_scale"),
            std::string::npos);
  for (float bad : {0.0f, -1.0f, INFINITY, NAN}) {
    p.global = bad;
    expectRejected(p, FP8Q_ERR_ARG, "must be finite and positive");
  }
}

TEST(GemmV2Checks, KernelContract) {
  const LayoutCase &row = kLayouts[0];
  Problem p = packedProblem(1, row, row);
  expectRejected(p, FP8Q_ERR_CONTRACT, "kernel ck does not read MXFP8 operands",
                 0, FP8Q_KERNEL_CK);
  Problem u = packedProblem(0, row, row);
  expectRejected(u, FP8Q_ERR_CONTRACT,
                 "kernel deepgemm does not read FP8 1x128 UE8M0 operands", 0,
                 FP8Q_KERNEL_DEEPGEMM);
}

/// The SPEC v2 kernels accept their own scale layouts and reject every
/// other, by the descriptor's kind and the declared layout, not by shape.
/// Regression: gemm_v2 read the v1 x_scale order, which no padded layout
/// meets, so aiter_mxfp4, cublas_mx and deepgemm_sm100 rejected the very
/// layouts they read, and w_scale was never checked.
TEST(GemmV2Checks, V2KernelsReadTheirOwnLayouts) {
  const LayoutCase &row = kLayouts[0], &col = kLayouts[1], &pack4 = kLayouts[3],
                   &swz = kLayouts[5], &cdna = kLayouts[6];
  // aiter_mxfp4: MXFP4, both cdna4_mx, the fp4 weight preshuffled.
  auto aiter = [&](const LayoutCase &xl, const LayoutCase &wl) {
    Problem p(kFormats[3], 3, 32, 128, xl, wl);
    p.randomize(21);
    p.q.pack();
    p.w.packPreshuffled();
    p.xs.store();
    p.ws.store();
    return p;
  };
  Problem ok = aiter(cdna, cdna);
  Buf2<uint16_t> out = Buf2<uint16_t>::rowMajor(ok.M, ok.N);
  ASSERT_EQ(
      ok.run(out, FP8Q_WEIGHT_LAYOUT_PRESHUFFLE_16X16, FP8Q_KERNEL_AITER_MXFP4),
      FP8Q_OK)
      << fp8q_last_error();
  expectOutput(out, ok.reference(), ok.M, ok.N);
  Problem rowX = aiter(row, cdna);
  expectRejected(rowX, FP8Q_ERR_CONTRACT,
                 "operand x_scale of kernel aiter_mxfp4 must be cdna4_mx (a "
                 "padded descriptor, strides (0, 0)) but is declared "
                 "row_major with strides (4, 1)",
                 FP8Q_WEIGHT_LAYOUT_PRESHUFFLE_16X16, FP8Q_KERNEL_AITER_MXFP4);
  Problem swzW = aiter(cdna, swz);
  expectRejected(swzW, FP8Q_ERR_CONTRACT,
                 "operand w_scale of kernel aiter_mxfp4 must be cdna4_mx (a "
                 "padded descriptor, strides (0, 0)) but is declared "
                 "swizzle_32_4_4 (a padded descriptor)",
                 FP8Q_WEIGHT_LAYOUT_PRESHUFFLE_16X16, FP8Q_KERNEL_AITER_MXFP4);
  Problem plainW = aiter(cdna, cdna);
  plainW.w.pack();
  expectRejected(plainW, FP8Q_ERR_CONTRACT, "kernel aiter_mxfp4", 0,
                 FP8Q_KERNEL_AITER_MXFP4);

  // cublas_mx: MXFP8 and NVFP4, both swizzle_32_4_4.
  for (int format : {1, 4}) {
    Problem p = packedProblem(format, swz, swz);
    Buf2<uint16_t> o = Buf2<uint16_t>::rowMajor(p.M, p.N);
    ASSERT_EQ(p.run(o, 0, FP8Q_KERNEL_CUBLAS_MX), FP8Q_OK)
        << kFormats[format].name << ": " << fp8q_last_error();
    expectOutput(o, p.reference(), p.M, p.N);
    Problem bad = packedProblem(format, swz, row);
    expectRejected(bad, FP8Q_ERR_CONTRACT,
                   "operand w_scale of kernel cublas_mx must be "
                   "swizzle_32_4_4 (a padded descriptor, strides (0, 0)) but "
                   "is declared row_major with strides (4, 1)",
                   0, FP8Q_KERNEL_CUBLAS_MX);
  }

  // deepgemm_sm100: UE8M0 per weight row, both col_major align 4 pack 4.
  auto deepgemm = [&](const LayoutCase &xl) {
    Problem p(kFormats[5], 4, 64, 256, xl, pack4);
    p.randomize(22);
    p.q.pack();
    p.w.pack();
    p.xs.store();
    p.ws.store();
    return p;
  };
  Problem dg = deepgemm(pack4);
  Buf2<uint16_t> dgo = Buf2<uint16_t>::rowMajor(dg.M, dg.N);
  ASSERT_EQ(dg.run(dgo, 0, FP8Q_KERNEL_DEEPGEMM_SM100), FP8Q_OK)
      << fp8q_last_error();
  expectOutput(dgo, dg.reference(), dg.M, dg.N);
  Problem dgCol = deepgemm(col);
  expectRejected(dgCol, FP8Q_ERR_CONTRACT,
                 "operand x_scale of kernel deepgemm_sm100 must be "
                 "col_major pack = 4 align 4 (a padded descriptor, strides "
                 "(0, 0)) but is declared col_major with strides (1, 4)",
                 0, FP8Q_KERNEL_DEEPGEMM_SM100);

  // triton reads strided scales only: a padded x_scale of the same [M, G]
  // shape is refused (mori 662: shape cannot tell them apart).
  Problem t = packedProblem(1, col, row);
  Buf2<uint16_t> to = Buf2<uint16_t>::rowMajor(t.M, t.N);
  ASSERT_EQ(t.run(to, 0, FP8Q_KERNEL_TRITON), FP8Q_OK) << fp8q_last_error();
  Problem tp = packedProblem(1, swz, row);
  expectRejected(tp, FP8Q_ERR_CONTRACT,
                 "operand x_scale of kernel triton must be a strided layout "
                 "(row_major or col_major) but is declared swizzle_32_4_4 (a "
                 "padded descriptor)",
                 0, FP8Q_KERNEL_TRITON);
}

} // namespace
