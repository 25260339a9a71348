//===- QuantizeV2Test.cpp - quantize_v2 / dequantize_v2 -------------------===//
//
// One test per format x scale layout x rounding: every q code and every
// scale byte (padding included) against fp8q_mx_numerics.h /
// fp8q_scale_layouts.h (themselves tested against the definitions), and
// the round trip within the format's error bound. Then edge cases and the
// argument checks (precise messages, nothing written on error).
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtil.h"

#include "fp8q/Runtime/fp8q_mx_numerics.h"
#include "fp8q/Runtime/fp8q_scale_layouts.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

using namespace fp8q::test;

namespace {

struct Format {
  const char *name;
  int qType, scaleType, rounding;
  int64_t group;
};

const Format kFormats[] = {
    {"Fp8E4M3Exact", FP8Q_Q_F8E4M3FN, FP8Q_SCALE_F32, FP8Q_ROUND_EXACT, 128},
    {"Fp8FnuzExact", FP8Q_Q_F8E4M3FNUZ, FP8Q_SCALE_F32, FP8Q_ROUND_EXACT, 128},
    {"Fp8E5M2Exact", FP8Q_Q_F8E5M2, FP8Q_SCALE_F32, FP8Q_ROUND_EXACT, 128},
    {"Ue8m0F32", FP8Q_Q_F8E4M3FN, FP8Q_SCALE_F32, FP8Q_ROUND_POW2_CEIL, 128},
    {"Ue8m0Byte", FP8Q_Q_F8E4M3FN, FP8Q_SCALE_F8E8M0FNU, FP8Q_ROUND_POW2_CEIL,
     128},
    {"Mxfp8E4M3Ceil", FP8Q_Q_F8E4M3FN, FP8Q_SCALE_F8E8M0FNU,
     FP8Q_ROUND_POW2_CEIL, 32},
    {"Mxfp8E4M3Floor", FP8Q_Q_F8E4M3FN, FP8Q_SCALE_F8E8M0FNU,
     FP8Q_ROUND_POW2_FLOOR, 32},
    {"Mxfp8E5M2Ceil", FP8Q_Q_F8E5M2, FP8Q_SCALE_F8E8M0FNU, FP8Q_ROUND_POW2_CEIL,
     32},
    {"Mxfp8E5M2Floor", FP8Q_Q_F8E5M2, FP8Q_SCALE_F8E8M0FNU,
     FP8Q_ROUND_POW2_FLOOR, 32},
    {"Mxfp4Ceil", FP8Q_Q_F4E2M1FN, FP8Q_SCALE_F8E8M0FNU, FP8Q_ROUND_POW2_CEIL,
     32},
    {"Mxfp4Floor", FP8Q_Q_F4E2M1FN, FP8Q_SCALE_F8E8M0FNU, FP8Q_ROUND_POW2_FLOOR,
     32},
    {"Nvfp4", FP8Q_Q_F4E2M1FN, FP8Q_SCALE_F8E4M3FN, FP8Q_ROUND_E4M3, 16},
};

struct LayoutCase {
  const char *name;
  int layout;
  int64_t align;
};

const LayoutCase kLayouts[] = {
    {"RowMajor", FP8Q_LAYOUT_ROW_MAJOR, 1},
    {"ColMajor", FP8Q_LAYOUT_COL_MAJOR, 1},
    {"ColMajorAlign4", FP8Q_LAYOUT_COL_MAJOR, 4},
    {"Pack4Align4", FP8Q_LAYOUT_COL_MAJOR_PACK4, 4},
    {"Swizzle32x4x4", FP8Q_LAYOUT_SWIZZLE_32_4_4, 1},
    {"Cdna4Mx", FP8Q_LAYOUT_CDNA4_MX, 1},
};

/// A v2 scale operand of a logical [M, G] scale in `layout`: the layout's
/// whole allocation (pre-filled with 0xAB so that unwritten bytes show,
/// plus 4 guard bytes) behind a descriptor of sizes [M, G] and, padded,
/// strides (0, 0) or, strided, the layout's strides.
struct ScaleBuf {
  std::vector<uint8_t> bytes;
  fp8q_memref_2d desc{};
  int64_t alloc = 0;
  ScaleBuf(int layout, int64_t align, int64_t M, int64_t G, size_t elt)
      : alloc(fp8q_scale_layout_alloc(layout, align, M, G)) {
    bytes.assign(alloc * elt + 4, 0xAB);
    desc.allocated = desc.aligned = bytes.data();
    desc.sizes[0] = M;
    desc.sizes[1] = G;
    int64_t s0 = 0, s1 = 0;
    fp8q_scale_layout_strides(layout, align, M, G, &s0, &s1);
    desc.strides[0] = s0;
    desc.strides[1] = s1;
  }
  fp8q_memref_2d *d() { return &desc; }
};

/// mbits and the smallest normal exponent of a q_type.
void formatBits(int qType, int &mbits, int &emin) {
  const int m[] = {3, 3, 2, 1}, e[] = {-6, -7, -14, 0};
  mbits = m[qType];
  emin = e[qType];
}

/// |decode(q) * divisor - x| allowed for a correctly rounded, saturated q:
/// half an ulp of x / divisor in the format plus what saturation cuts,
/// plus the two fp32 roundings (of the quotient and of the product).
double errorBound(float x, float divisor, int qType) {
  if (divisor == 0)
    return std::fabs(x);
  int mbits, emin;
  formatBits(qType, mbits, emin);
  double v = std::fabs(double(x) / divisor);
  int e = v > 0 ? std::ilogb(v) : emin;
  double halfUlp = std::ldexp(1.0, std::max(e, emin) - mbits - 1);
  double sat = std::max(0.0, v - fp8q_q_max(qType));
  return (halfUlp + sat) * divisor * (1 + 1e-6) + 1e-6 * std::fabs(x) + 1e-37;
}

struct Param {
  Format f;
  LayoutCase l;
};

std::vector<Param> allParams() {
  std::vector<Param> ps;
  for (const Format &f : kFormats)
    for (const LayoutCase &l : kLayouts)
      if (f.scaleType != FP8Q_SCALE_F32 ||
          !fp8q_scale_layout_bytes_only(l.layout))
        ps.push_back({f, l});
  return ps;
}

class QuantizeV2 : public testing::TestWithParam<Param> {};

TEST_P(QuantizeV2, CodesScalesPaddingAndRoundTrip) {
  const Format &f = GetParam().f;
  const LayoutCase &l = GetParam().l;
  const bool fp4 = f.qType == FP8Q_Q_F4E2M1FN;
  const size_t elt = f.scaleType == FP8Q_SCALE_F32 ? 4 : 1;
  const float global = f.scaleType == FP8Q_SCALE_F8E4M3FN ? 0.037f : 1.0f;
  float gbuf = global;
  fp8q_memref_0d gdesc{&gbuf, &gbuf, 0};
  for (int64_t M : {1, 5, 130}) {
    const int64_t G = 5, K = f.group * G;
    Rng rng(uint64_t(M * 31 + f.qType * 7 + l.layout));
    auto x = Buf2<float>::rowMajor(M, K);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t g = 0; g < G; ++g) {
        double mag = std::ldexp(1.0, int(rng.uniform(-12, 12)));
        for (int64_t i = 0; i < f.group; ++i)
          x.at(m, g * f.group + i) = float(rng.uniform(-mag, mag));
      }
    for (int64_t i = 0; i < f.group; ++i) // an all-zero group
      x.at(0, i) = 0.0f;
    auto q = Buf2<uint8_t>::rowMajor(M, fp4 ? K / 2 : K);
    ScaleBuf s(l.layout, l.align, M, G, elt);
    const int64_t alloc = s.alloc;
    ASSERT_EQ(fp8q_quantize_v2_f32(x.d(), q.d(), s.d(), &gdesc, f.group,
                                   f.qType, f.scaleType, f.rounding, l.layout,
                                   l.align),
              FP8Q_OK)
        << fp8q_last_error();
    // A padded layout's padding is written 0; a strided layout's (col_major
    // align > 1: rows M .. ld) is not the scale's and stays untouched.
    const bool padded = fp8q_scale_layout_bytes_only(l.layout);
    std::vector<uint8_t> image(alloc * elt, padded ? 0 : 0xAB);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t g = 0; g < G; ++g) {
        float amax = 0;
        for (int64_t i = 0; i < f.group; ++i)
          amax = std::max(amax, std::fabs(x.at(m, g * f.group + i)));
        float sc = fp8q_group_scale(amax, f.qType, f.rounding, global);
        int64_t o = fp8q_scale_offset(l.layout, l.align, M, G, m, g);
        if (elt == 4)
          std::memcpy(&image[o * 4], &sc, 4);
        else
          image[o] = fp8q_scale_encode_byte(sc, f.scaleType);
        float div = f.scaleType == FP8Q_SCALE_F8E4M3FN ? sc * global : sc;
        for (int64_t i = 0; i < f.group; ++i) {
          int64_t k = g * f.group + i;
          uint8_t want = fp8q_q_quantize(x.at(m, k), div, f.qType);
          uint8_t got = fp4 ? fp8q_fp4_get(&q.at(m, 0), k) : q.at(m, k);
          ASSERT_EQ(got, want) << "m=" << m << " k=" << k;
        }
      }
    // Every scale and every padding byte, nothing past the allocation.
    ASSERT_EQ(0, std::memcmp(s.bytes.data(), image.data(), image.size()));
    EXPECT_EQ(s.bytes[alloc * elt], 0xAB);
    // Round trip.
    auto out = Buf2<float>::rowMajor(M, K, NAN);
    ASSERT_EQ(fp8q_dequantize_v2(q.d(), s.d(), &gdesc, out.d(), f.group,
                                 f.qType, f.scaleType, l.layout, l.align),
              FP8Q_OK)
        << fp8q_last_error();
    for (int64_t m = 0; m < M; ++m)
      for (int64_t g = 0; g < G; ++g) {
        float amax = 0;
        for (int64_t i = 0; i < f.group; ++i)
          amax = std::max(amax, std::fabs(x.at(m, g * f.group + i)));
        float sc = fp8q_group_scale(amax, f.qType, f.rounding, global);
        float div = f.scaleType == FP8Q_SCALE_F8E4M3FN ? sc * global : sc;
        for (int64_t i = 0; i < f.group; ++i) {
          int64_t k = g * f.group + i;
          ASSERT_LE(std::fabs(double(out.at(m, k)) - x.at(m, k)),
                    errorBound(x.at(m, k), div, f.qType))
              << "m=" << m << " k=" << k << " x=" << x.at(m, k);
        }
      }
  }
}

INSTANTIATE_TEST_SUITE_P(FormatsLayouts, QuantizeV2,
                         testing::ValuesIn(allParams()),
                         [](const testing::TestParamInfo<Param> &info) {
                           return std::string(info.param.f.name) + "_" +
                                  info.param.l.name;
                         });

TEST(QuantizeV2Edge, NanSkippedInfSaturatesAndHalfInputsMatch) {
  const int64_t K = 64;
  auto x = Buf2<float>::rowMajor(1, K);
  for (int64_t k = 0; k < K; ++k)
    x.at(0, k) = float(k) / 8 - 4;
  x.at(0, 3) = NAN;       // group 0: amax ignores it
  x.at(0, 40) = INFINITY; // group 1: amax inf -> scale 2^127
  auto q = Buf2<uint8_t>::rowMajor(1, K / 2);
  ScaleBuf s(FP8Q_LAYOUT_ROW_MAJOR, 1, 1, 2, 1);
  ASSERT_EQ(fp8q_quantize_v2_f32(x.d(), q.d(), s.d(), nullptr, 32,
                                 FP8Q_Q_F4E2M1FN, FP8Q_SCALE_F8E8M0FNU,
                                 FP8Q_ROUND_POW2_CEIL, FP8Q_LAYOUT_ROW_MAJOR,
                                 1),
            FP8Q_OK);
  // Group 0: amax 4 (k = 0), 4 / 6 -> 2^0.
  EXPECT_EQ(s.bytes[0], 127);
  EXPECT_EQ(fp8q_fp4_get(q.data.data(), 3), 0x7); // NaN -> documented +6
  EXPECT_EQ(fp8q_fp4_get(q.data.data(), 0), fp8q_e2m1_encode(-4.0f));
  EXPECT_EQ(s.bytes[1], 254); // 2^127
  EXPECT_EQ(fp8q_fp4_get(q.data.data(), 40), 0x7);
  EXPECT_EQ(fp8q_fp4_get(q.data.data(), 41), 0x0); // finite / 2^127 -> 0
  // bf16 and f16 inputs quantize as their f32 values.
  auto xb = Buf2<uint16_t>::rowMajor(2, K), xh = Buf2<uint16_t>::rowMajor(2, K);
  auto xf = Buf2<float>::rowMajor(2, K);
  Rng rng(9);
  for (int64_t m = 0; m < 2; ++m)
    for (int64_t k = 0; k < K; ++k) {
      float v = float(rng.uniform(-3, 3));
      xb.at(m, k) = fp8q_f32_to_bf16(v);
      xh.at(m, k) = fp8q_f32_to_f16(v);
    }
  for (auto *xs : {&xb, &xh}) {
    bool bf = xs == &xb;
    for (int64_t m = 0; m < 2; ++m)
      for (int64_t k = 0; k < K; ++k)
        xf.at(m, k) =
            bf ? fp8q_bf16_to_f32(xs->at(m, k)) : fp8q_f16_to_f32(xs->at(m, k));
    auto q1 = Buf2<uint8_t>::rowMajor(2, K), q2 = Buf2<uint8_t>::rowMajor(2, K);
    ScaleBuf s1(FP8Q_LAYOUT_CDNA4_MX, 1, 2, 2, 1),
        s2(FP8Q_LAYOUT_CDNA4_MX, 1, 2, 2, 1);
    auto fn = bf ? fp8q_quantize_v2_bf16 : fp8q_quantize_v2_f16;
    ASSERT_EQ(fn(xs->d(), q1.d(), s1.d(), nullptr, 32, FP8Q_Q_F8E5M2,
                 FP8Q_SCALE_F8E8M0FNU, FP8Q_ROUND_POW2_FLOOR,
                 FP8Q_LAYOUT_CDNA4_MX, 1),
              FP8Q_OK);
    ASSERT_EQ(fp8q_quantize_v2_f32(xf.d(), q2.d(), s2.d(), nullptr, 32,
                                   FP8Q_Q_F8E5M2, FP8Q_SCALE_F8E8M0FNU,
                                   FP8Q_ROUND_POW2_FLOOR, FP8Q_LAYOUT_CDNA4_MX,
                                   1),
              FP8Q_OK);
    EXPECT_EQ(q1.data, q2.data);
    EXPECT_EQ(s1.bytes, s2.bytes);
  }
}

TEST(QuantizeV2Edge, StridedQAndLegacyEquivalence) {
  // exact / f32 / col_major align 4 is the v1 quantize, byte for byte.
  const int64_t M = 6, K = 256, G = 2;
  Rng rng(4);
  auto x = Buf2<float>::rowMajor(M, K);
  for (auto &v : x.data)
    v = float(rng.uniform(-10, 10));
  auto q1 = Buf2<uint8_t>(M, K, 1, M + 3); // column-major q through strides
  auto q2 = Buf2<uint8_t>::rowMajor(M, K);
  auto s1 = Buf2<float>::colMajor(M, G, 4);
  ScaleBuf s2(FP8Q_LAYOUT_COL_MAJOR, 4, M, G, 4);
  ASSERT_EQ(fp8q_quantize_f32(x.d(), q2.d(), s1.d(), 128, FP8Q_F8E4M3FN),
            FP8Q_OK);
  ASSERT_EQ(fp8q_quantize_v2_f32(x.d(), q1.d(), s2.d(), nullptr, 128,
                                 FP8Q_Q_F8E4M3FN, FP8Q_SCALE_F32,
                                 FP8Q_ROUND_EXACT, FP8Q_LAYOUT_COL_MAJOR, 4),
            FP8Q_OK);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k)
      ASSERT_EQ(q1.at(m, k), q2.at(m, k));
  for (int64_t m = 0; m < M; ++m)
    for (int64_t g = 0; g < G; ++g) {
      float v;
      std::memcpy(&v, &s2.bytes[(g * 8 + m) * 4], 4);
      EXPECT_EQ(v, s1.at(m, g));
    }
  // Rows M..7 of each column are not the scale's: untouched.
  for (int64_t b = 0; b < 4; ++b)
    EXPECT_EQ(s2.bytes[(7 * 4) + b], 0xAB);
}

/// Calls quantize_v2 on a small valid MXFP4 / swizzle setup with one thing
/// changed by `mutate`, and expects `status`, a message containing `msg`
/// and untouched outputs.
struct BadCall {
  int64_t M = 4, K = 64, group = 32;
  int qType = FP8Q_Q_F4E2M1FN, scaleType = FP8Q_SCALE_F8E8M0FNU;
  int rounding = FP8Q_ROUND_POW2_CEIL, layout = FP8Q_LAYOUT_SWIZZLE_32_4_4;
  int64_t align = 1, scaleRows = 4, scaleCols = 2, qCols = 32;
  bool stridedScale = false; // a row-major descriptor, not strides (0, 0)
  float global = 1.0f;
  bool nullGlobal = false;
};

void expectRejected(const BadCall &c, int32_t status, const char *msg) {
  auto x = Buf2<float>::rowMajor(c.M, c.K, 1.0f);
  auto q = Buf2<uint8_t>::rowMajor(c.M, c.qCols, 0xCD);
  ScaleBuf s(FP8Q_LAYOUT_SWIZZLE_32_4_4, 1, std::max<int64_t>(c.scaleRows, 1),
             std::max<int64_t>(c.scaleCols, 1), 4);
  s.desc.sizes[0] = c.scaleRows;
  s.desc.sizes[1] = c.scaleCols;
  if (c.stridedScale) {
    s.desc.strides[0] = c.scaleCols;
    s.desc.strides[1] = 1;
  }
  float g = c.global;
  fp8q_memref_0d gd{&g, &g, 0};
  auto sBefore = s.bytes;
  int32_t got = fp8q_quantize_v2_f32(
      x.d(), q.d(), s.d(), c.nullGlobal ? nullptr : &gd, c.group, c.qType,
      c.scaleType, c.rounding, c.layout, c.align);
  EXPECT_EQ(got, status) << fp8q_last_error();
  EXPECT_NE(std::string(fp8q_last_error()).find(msg), std::string::npos)
      << fp8q_last_error();
  EXPECT_EQ(s.bytes, sBefore);
  for (uint8_t b : q.data)
    ASSERT_EQ(b, 0xCD);
}

TEST(QuantizeV2Checks, EveryBadArgumentIsRejectedAndNothingWritten) {
  BadCall ok;
  {
    auto x = Buf2<float>::rowMajor(4, 64, 1.0f);
    auto q = Buf2<uint8_t>::rowMajor(4, 32);
    ScaleBuf s(FP8Q_LAYOUT_SWIZZLE_32_4_4, 1, 4, 2, 1);
    ASSERT_EQ(
        fp8q_quantize_v2_f32(x.d(), q.d(), s.d(), nullptr, 32, 3, 1, 1, 3, 1),
        FP8Q_OK)
        << fp8q_last_error();
  }
  BadCall c = ok;
  c.qType = 4;
  expectRejected(c, FP8Q_ERR_ARG, "q_type 4 is not an fp8q_q_type");
  c = ok, c.scaleType = -1;
  expectRejected(c, FP8Q_ERR_ARG, "scale_type -1 is not");
  c = ok, c.rounding = 9;
  expectRejected(c, FP8Q_ERR_ARG, "scale_rounding 9 is not");
  c = ok, c.layout = 5;
  expectRejected(c, FP8Q_ERR_ARG, "scale_layout 5 is not");
  c = ok, c.align = 4;
  expectRejected(c, FP8Q_ERR_ARG,
                 "scale_layout swizzle_32_4_4 has no align: its align must "
                 "be 1, got 4");
  c = ok, c.layout = FP8Q_LAYOUT_COL_MAJOR_PACK4, c.align = 0;
  expectRejected(c, FP8Q_ERR_ARG,
                 "the align 0 of scale_layout col_major pack = 4 must be in");
  c = ok, c.scaleType = FP8Q_SCALE_F32;
  expectRejected(c, FP8Q_ERR_ARG, "scale_layout swizzle_32_4_4 holds 1-byte");
  c = ok, c.rounding = FP8Q_ROUND_EXACT;
  expectRejected(c, FP8Q_ERR_ARG,
                 "scale_rounding exact cannot be stored as "
                 "f8E8M0FNU");
  c = ok, c.scaleType = FP8Q_SCALE_F8E4M3FN, c.qType = FP8Q_Q_F8E4M3FN,
  c.qCols = 64;
  expectRejected(c, FP8Q_ERR_ARG, "f8E4M3FN scales (NVFP4) need q_type");
  c = ok, c.scaleType = FP8Q_SCALE_F8E4M3FN;
  expectRejected(c, FP8Q_ERR_ARG, "scale_rounding pow2_ceil cannot be stored");
  c = ok, c.scaleType = FP8Q_SCALE_F8E4M3FN, c.rounding = FP8Q_ROUND_E4M3,
  c.nullGlobal = true;
  expectRejected(c, FP8Q_ERR_NULL, "global_scale: descriptor pointer is null");
  c.nullGlobal = false, c.global = 0.0f;
  expectRejected(c, FP8Q_ERR_ARG, "global_scale 0 must be finite and positive");
  c.global = INFINITY;
  expectRejected(c, FP8Q_ERR_ARG, "global_scale inf must be finite");
  c = ok, c.group = 48;
  expectRejected(c, FP8Q_ERR_ARG, "group_size 48 must be positive and divide");
  // Neither K / 2 bytes nor K codes per row (K = 64 codes is accepted:
  // MLIR's descriptor of a memref of f4E2M1FN, GemmV2Test).
  c = ok, c.qCols = 40;
  expectRejected(c, FP8Q_ERR_SHAPE,
                 "operand q has sizes [4, 40], expected "
                 "[4, 32]");
  c = ok, c.scaleCols = 1;
  expectRejected(c, FP8Q_ERR_SHAPE,
                 "operand scale has sizes [4, 1], expected [4, 2]");
  // A row-major buffer where a swizzled one is declared, same shape.
  c = ok, c.stridedScale = true;
  expectRejected(c, FP8Q_ERR_LAYOUT,
                 "operand scale is declared swizzle_32_4_4, a padded layout: "
                 "its descriptor must have strides (0, 0)");
  c = ok, c.K = 63, c.group = 63, c.qCols = 31;
  expectRejected(c, FP8Q_ERR_SHAPE, "K = 63 must be even");
}

TEST(QuantizeV2Checks, PaddedScaleWhereRowMajorIsDeclaredIsRejected) {
  // The other direction (mori 662): a swizzled buffer (strides (0, 0))
  // passed as row_major, with the row-major shape; and dequantize checks
  // its scale the same way.
  auto x = Buf2<float>::rowMajor(2, 64, 1.0f);
  auto q = Buf2<uint8_t>::rowMajor(2, 64, 0xCD);
  ScaleBuf s(FP8Q_LAYOUT_SWIZZLE_32_4_4, 1, 2, 2, 1);
  EXPECT_EQ(fp8q_quantize_v2_f32(x.d(), q.d(), s.d(), nullptr, 32, 0, 1, 1,
                                 FP8Q_LAYOUT_ROW_MAJOR, 1),
            FP8Q_ERR_LAYOUT);
  EXPECT_NE(std::string(fp8q_last_error())
                .find("operand scale is declared row_major (align 1): its "
                      "strides must be (2, 1), got (0, 0) (strides (0, 0) "
                      "mark a padded or swizzled buffer)"),
            std::string::npos)
      << fp8q_last_error();
  for (uint8_t b : s.bytes)
    ASSERT_EQ(b, 0xAB);
  for (uint8_t b : q.data)
    ASSERT_EQ(b, 0xCD);
  auto out = Buf2<float>::rowMajor(2, 64, 5.0f);
  EXPECT_EQ(fp8q_dequantize_v2(q.d(), s.d(), nullptr, out.d(), 32, 0,
                               FP8Q_SCALE_F32, FP8Q_LAYOUT_CDNA4_MX, 1),
            FP8Q_ERR_ARG);
  EXPECT_NE(std::string(fp8q_last_error()).find("holds 1-byte scales"),
            std::string::npos);
  for (float v : out.data)
    ASSERT_EQ(v, 5.0f);
}

TEST(QuantizeV2Checks, Fp4QMayCountCodes) {
  // MLIR passes a memref<MxKxf4E2M1FN> as a descriptor of K codes per row
  // (strides in codes) over the packed bytes: the same bytes are written.
  Rng rng(5);
  auto x = Buf2<float>::rowMajor(3, 64);
  for (float &v : x.data)
    v = float(rng.uniform(-8, 8));
  std::vector<uint8_t> want, got;
  for (bool codes : {false, true}) {
    auto q = Buf2<uint8_t>::rowMajor(3, 32, 0xCD);
    if (codes) {
      q.desc.sizes[1] = 64;
      q.desc.strides[0] = 64;
    }
    ScaleBuf s(FP8Q_LAYOUT_ROW_MAJOR, 1, 3, 2, 1);
    ASSERT_EQ(fp8q_quantize_v2_f32(x.d(), q.d(), s.d(), nullptr, 32,
                                   FP8Q_Q_F4E2M1FN, FP8Q_SCALE_F8E8M0FNU,
                                   FP8Q_ROUND_POW2_CEIL, FP8Q_LAYOUT_ROW_MAJOR,
                                   1),
              FP8Q_OK)
        << fp8q_last_error();
    (codes ? got : want) = q.data;
  }
  EXPECT_EQ(got, want);
}

} // namespace
