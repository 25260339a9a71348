//===- HipRuntimeTest.cpp - libfp8q_runtime_hip.so without a GPU ----------===//
//
// The HIP runtime validates operands and kernel contracts before it touches
// the device (same statuses as the CPU runtime), and on a machine without an
// AMD GPU every launch fails with FP8Q_ERR_DEVICE (8) and "no HIP device".
//
//===----------------------------------------------------------------------===//

#include "TestData.h"

#include <hip/hip_runtime_api.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

using namespace fp8q::kern::test;

namespace {

bool haveDevice() {
  int n = 0;
  return hipGetDeviceCount(&n) == hipSuccess && n > 0;
}

TEST(HipRuntime, NoDeviceIsAClearError) {
  if (haveDevice())
    GTEST_SKIP() << "an AMD GPU is present";
  std::vector<uint16_t> x(4 * 256, 0x3f80); // bf16 1.0
  std::vector<uint8_t> q(4 * 256);
  std::vector<float> s(4 * 2);
  fp8q_memref_2d xd = memref2d(x.data(), 4, 256, 256, 1);
  fp8q_memref_2d qd = memref2d(q.data(), 4, 256, 256, 1);
  fp8q_memref_2d sd = memref2d(s.data(), 4, 2, 1, 4); // column-major
  EXPECT_EQ(fp8q_quantize_bf16(&xd, &qd, &sd, 128, FP8Q_F8E4M3FN), 8);
  EXPECT_NE(std::string(fp8q_last_error()).find("no HIP device"),
            std::string::npos)
      << fp8q_last_error();
  EXPECT_STREQ(fp8q_status_name(8), "no usable device");
}

TEST(HipRuntime, OperandErrorsComeBeforeTheDevice) {
  std::vector<uint16_t> x(4 * 256);
  std::vector<uint8_t> q(4 * 256);
  std::vector<float> s(4 * 2);
  fp8q_memref_2d xd = memref2d(x.data(), 4, 256, 256, 1);
  fp8q_memref_2d qd = memref2d(q.data(), 4, 256, 256, 1);
  fp8q_memref_2d sd = memref2d(s.data(), 4, 2, 2, 1);
  EXPECT_EQ(fp8q_quantize_bf16(&xd, &qd, &sd, 96, FP8Q_F8E4M3FN), FP8Q_ERR_ARG);
  EXPECT_EQ(fp8q_quantize_bf16(&xd, &qd, &sd, 128, 7), FP8Q_ERR_ARG);
  fp8q_memref_2d bad = memref2d(s.data(), 4, 2, 1, 1); // overlapping
  EXPECT_EQ(fp8q_quantize_bf16(&xd, &qd, &bad, 128, FP8Q_F8E4M3FN),
            FP8Q_ERR_LAYOUT);
  std::string e = fp8q_last_error();
  EXPECT_NE(e.find("overlap"), std::string::npos) << e;
}

TEST(HipRuntime, FusedProducersCheckOperandsBeforeTheDevice) {
  const int64_t M = 4, K = 256;
  std::vector<uint16_t> xr(M * 2 * K, 0x3f80), gamma(K, 0x3f80),
      y(M * K, 0x2222);
  std::vector<uint8_t> q(M * K, 0xab);
  std::vector<float> s(M * 2, -1.0f);
  fp8q_memref_2d xd = memref2d(xr.data(), M, K, 2 * K, 1);
  fp8q_memref_2d rd = memref2d(xr.data(), M, K, 2 * K, 1, K);
  fp8q_memref_1d gd = {gamma.data(), gamma.data(), 0, {K}, {1}};
  fp8q_memref_2d yd = memref2d(y.data(), M, K, K, 1);
  fp8q_memref_2d qd = memref2d(q.data(), M, K, K, 1);
  fp8q_memref_2d sd = memref2d(s.data(), M, 2, 1, M);
  // A sum of the wrong shape, one half a row into x, one that is y.
  fp8q_memref_2d sumOnR = memref2d(xr.data(), M, K, 2 * K, 1, K + 8);
  sumOnR.sizes[1] = K - 8;
  EXPECT_EQ(fp8q_add_rms_norm_quantize_bf16(&xd, &rd, &gd, &qd, &sd, &yd,
                                            &sumOnR, 1e-6f, 128, 0, 1),
            FP8Q_ERR_SHAPE);
  fp8q_memref_2d sumHalfX = memref2d(xr.data(), M, K, 2 * K, 1, 64);
  EXPECT_EQ(fp8q_add_rms_norm_quantize_bf16(&xd, &rd, &gd, &qd, &sd, &yd,
                                            &sumHalfX, 1e-6f, 128, 0, 1),
            FP8Q_ERR_LAYOUT);
  std::string e = fp8q_last_error();
  EXPECT_NE(e.find("operand sum partially overlaps operand x"),
            std::string::npos)
      << e;
  EXPECT_EQ(fp8q_add_rms_norm_quantize_bf16(&xd, &rd, &gd, &qd, &sd, &yd, &yd,
                                            1e-6f, 128, 0, 1),
            FP8Q_ERR_LAYOUT);
  e = fp8q_last_error();
  EXPECT_NE(e.find("operand sum overlaps operand y"), std::string::npos) << e;
  EXPECT_EQ(fp8q_silu_mul_quantize_bf16(&xd, nullptr, &qd, &sd, 128, 0),
            FP8Q_ERR_NULL);
  e = fp8q_last_error();
  EXPECT_NE(e.find("operand up: descriptor pointer is null"), std::string::npos)
      << e;
  for (uint8_t b : q)
    ASSERT_EQ(b, 0xab);
  for (uint16_t v : y)
    ASSERT_EQ(v, 0x2222);
  if (haveDevice())
    return;
  // Valid (sum in place on x): only the missing device stops it.
  EXPECT_EQ(fp8q_add_rms_norm_quantize_bf16(&xd, &rd, &gd, &qd, &sd, &yd, &xd,
                                            1e-6f, 128, 0, 1),
            8);
  EXPECT_NE(std::string(fp8q_last_error()).find("no HIP device"),
            std::string::npos)
      << fp8q_last_error();
  EXPECT_EQ(fp8q_silu_mul_quantize_f16(&xd, &rd, &qd, &sd, 128, 0), 8);
}

/// GEMM operands of M = 4, N = 128, K = 256 (G = 2), row-major.
struct GemmOperands {
  static constexpr int64_t M = 4, N = 128, K = 256, G = 2;
  std::vector<uint8_t> q = std::vector<uint8_t>(M * K),
                       w = std::vector<uint8_t>(N * K);
  std::vector<float> xs = std::vector<float>(M * G), ws = std::vector<float>(G);
  std::vector<uint16_t> out = std::vector<uint16_t>(M * N);
  fp8q_memref_2d qd = memref2d(q.data(), M, K, K, 1);
  fp8q_memref_2d xd = memref2d(xs.data(), M, G, G, 1);
  fp8q_memref_2d wd = memref2d(w.data(), N, K, K, 1);
  fp8q_memref_2d wsd = memref2d(ws.data(), 1, G, G, 1);
  fp8q_memref_2d od = memref2d(out.data(), M, N, N, 1);
};

TEST(HipRuntime, GemmContractIsCheckedBeforeTheDevice) {
  // ck_bpreshuffle given a row-major scale for M = 4, G = 2.
  GemmOperands o;
  const int64_t M = o.M, G = o.G;
  EXPECT_EQ(fp8q_gemm(&o.qd, &o.xd, &o.wd, &o.wsd, &o.od,
                      FP8Q_KERNEL_CK_BPRESHUFFLE, FP8Q_F8E4M3FN,
                      FP8Q_WEIGHT_LAYOUT_PRESHUFFLE_16X16),
            FP8Q_ERR_CONTRACT);
  std::string e = fp8q_last_error();
  EXPECT_NE(e.find("x_scale of kernel ck_bpreshuffle must be col_major "
                   "(strides (1, 4))"),
            std::string::npos)
      << e;
  // The plain weight is a contract violation too once the scale is right.
  fp8q_memref_2d xc = memref2d(o.xs.data(), M, G, 1, M);
  EXPECT_EQ(fp8q_gemm(&o.qd, &xc, &o.wd, &o.wsd, &o.od,
                      FP8Q_KERNEL_CK_BPRESHUFFLE, FP8Q_F8E4M3FN,
                      FP8Q_WEIGHT_LAYOUT_PLAIN),
            FP8Q_ERR_CONTRACT);
}

TEST(HipRuntime, UncheckedModeNeverReadsOutsideTheOperands) {
  // Unchecked mode lets contract violations through, but the kernel may
  // read only what the descriptors address (the shared GEMM checks).
  GemmOperands o;
  const int64_t M = o.M, N = o.N, K = o.K, G = o.G;
  setenv("FP8Q_RT_UNCHECKED", "1", 1);
  // ck_bpreshuffle reads x_scale column-major with ld = M: a broadcast row
  // (strides (0, 1)) addresses only G values.
  fp8q_memref_2d xb = memref2d(o.xs.data(), M, G, 0, 1);
  EXPECT_EQ(fp8q_gemm(&o.qd, &xb, &o.wd, &o.wsd, &o.od,
                      FP8Q_KERNEL_CK_BPRESHUFFLE, FP8Q_F8E4M3FN,
                      FP8Q_WEIGHT_LAYOUT_PRESHUFFLE_16X16),
            FP8Q_ERR_LAYOUT);
  std::string e = fp8q_last_error();
  EXPECT_NE(e.find("reads x_scale elements up to index 7"), std::string::npos)
      << e;
  // A preshuffled weight is read as N * K dense bytes: a broadcast weight
  // descriptor addresses only K of them.
  fp8q_memref_2d xc = memref2d(o.xs.data(), M, G, 1, M);
  fp8q_memref_2d wb = memref2d(o.w.data(), N, K, 0, 1);
  EXPECT_EQ(fp8q_gemm(&o.qd, &xc, &wb, &o.wsd, &o.od,
                      FP8Q_KERNEL_CK_BPRESHUFFLE, FP8Q_F8E4M3FN,
                      FP8Q_WEIGHT_LAYOUT_PRESHUFFLE_16X16),
            FP8Q_ERR_LAYOUT);
  e = fp8q_last_error();
  EXPECT_NE(e.find("reads 32768 preshuffled weight bytes but operand w "
                   "addresses only 256"),
            std::string::npos)
      << e;
  unsetenv("FP8Q_RT_UNCHECKED");
}

} // namespace
