//===- GpuDeviceAbiTest.cpp - The device ABI of the GPU runtimes ----------===//
//
// Linked against libfp8q_runtime_hip.so and libfp8q_runtime_cuda.so (one
// executable each, FP8Q_GPU_RUNTIME names it). Runs anywhere: device entry
// points given host buffers report the operand and write nothing (they
// never stage), errors are sticky until cleared, and the mgpu* functions
// survive a module that cannot load and a null function. The on-GPU checks
// (bit-exactness against the CPU runtime, cuBLASLt, graphs) are
// bench/gpu_runtime_check.cpp, built by scripts/build-cuda-runtime.sh.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Runtime/fp8q_runtime.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

template <class T>
fp8q_memref_2d md(T *p, int64_t r, int64_t c, int64_t s0, int64_t s1) {
  return fp8q_memref_2d{p, p, 0, {r, c}, {s0, s1}};
}

struct DeviceAbi : ::testing::Test {
  void SetUp() override { fp8q_device_clear_error(); }
  void TearDown() override { fp8q_device_clear_error(); }
};

TEST_F(DeviceAbi, HostOperandsAreRejectedNotStaged) {
  std::vector<uint16_t> x(4 * 256, 0x3f80);
  std::vector<uint8_t> q(4 * 256, 0xab);
  std::vector<float> s(8, -1.0f);
  fp8q_memref_2d xd = md(x.data(), 4, 256, 256, 1),
                 qd = md(q.data(), 4, 256, 256, 1),
                 sd = md(s.data(), 4, 2, 1, 4);
  int32_t st = _mlir_ciface_fp8q_rt_device_quantize_bf16(
      &xd, &qd, &sd, 128, FP8Q_F8E4M3FN, nullptr);
  EXPECT_EQ(st, FP8Q_ERR_DEVICE);
  EXPECT_EQ(fp8q_device_status(), FP8Q_ERR_DEVICE);
  std::string e = fp8q_device_last_error();
  EXPECT_NE(e.find("fp8q_rt_device_quantize_bf16: operand x is "),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("a device-mode step needs device buffers"),
            std::string::npos)
      << e;
  for (uint8_t b : q)
    ASSERT_EQ(b, 0xab);
  for (float v : s)
    ASSERT_EQ(v, -1.0f);
}

TEST_F(DeviceAbi, OperandChecksComeFirstAndMatchTheHostAbi) {
  std::vector<uint16_t> x(4 * 256);
  std::vector<uint8_t> q(4 * 256);
  std::vector<float> s(8);
  fp8q_memref_2d xd = md(x.data(), 4, 256, 256, 1),
                 qd = md(q.data(), 4, 256, 256, 1),
                 bad = md(s.data(), 4, 2, 1, 1); // overlapping
  EXPECT_EQ(_mlir_ciface_fp8q_rt_device_quantize_bf16(&xd, &qd, &bad, 128,
                                                      FP8Q_F8E4M3FN, nullptr),
            FP8Q_ERR_LAYOUT);
  EXPECT_NE(std::string(fp8q_device_last_error()).find("overlap"),
            std::string::npos);
}

TEST_F(DeviceAbi, ErrorsAreStickyUntilCleared) {
  std::vector<float> a(16 * 4, 1.0f), b(16 * 4, 2.0f);
  fp8q_memref_2d ad = md(a.data(), 16, 4, 4, 1),
                 bd = md(b.data(), 16, 4, 1, 16);
  ASSERT_EQ(_mlir_ciface_fp8q_rt_device_check_arg((int64_t)(intptr_t)a.data(),
                                                  64 * 4, 2, nullptr),
            FP8Q_ERR_DEVICE);
  std::string e = fp8q_device_last_error();
  EXPECT_NE(e.find("fp8q device step: argument #2 is "), std::string::npos)
      << e;
  // While the status is set, nothing runs, and the first message stays.
  EXPECT_EQ(_mlir_ciface_fp8q_rt_device_materialize(&ad, &bd, nullptr),
            FP8Q_ERR_DEVICE);
  EXPECT_EQ(std::string(fp8q_device_last_error()), e);
  for (float v : b)
    ASSERT_EQ(v, 2.0f);
  fp8q_device_clear_error();
  EXPECT_EQ(fp8q_device_status(), FP8Q_OK);
  EXPECT_STREQ(fp8q_device_last_error(), "");
  // An empty operand needs no memory at all.
  EXPECT_EQ(_mlir_ciface_fp8q_rt_device_check_arg(0, 0, 0, nullptr), FP8Q_OK);
}

TEST_F(DeviceAbi, GemmOnHostBuffersNamesTheOperand) {
  const int64_t M = 4, N = 128, K = 256, G = 2;
  std::vector<uint8_t> q(M * K), w(N * K);
  std::vector<float> xs(M * G), ws(G);
  std::vector<uint16_t> out(M * N, 0x1234);
  fp8q_memref_2d qd = md(q.data(), M, K, K, 1), xd = md(xs.data(), M, G, 1, M),
                 wd = md(w.data(), N, K, K, 1), wsd = md(ws.data(), 1, G, G, 1),
                 od = md(out.data(), M, N, N, 1);
  EXPECT_EQ(_mlir_ciface_fp8q_rt_device_gemm(&qd, &xd, &wd, &wsd, &od,
                                             FP8Q_KERNEL_CUBLAS, FP8Q_F8E4M3FN,
                                             FP8Q_WEIGHT_LAYOUT_PLAIN, nullptr),
            FP8Q_ERR_DEVICE);
  EXPECT_NE(std::string(fp8q_device_last_error()).find("operand q is"),
            std::string::npos)
      << fp8q_device_last_error();
  for (uint16_t v : out)
    ASSERT_EQ(v, 0x1234);
}

/// add_rms_norm_quantize / silu_mul_quantize operands of M = 4, K = 256 in
/// host memory: x and residual (gate and up) the two halves of one
/// [M, 2K] buffer.
struct FusedOperands {
  static constexpr int64_t M = 4, K = 256;
  std::vector<uint16_t> xr = std::vector<uint16_t>(M * 2 * K, 0x3f80),
                        gamma = std::vector<uint16_t>(K, 0x3f80),
                        y = std::vector<uint16_t>(M * K, 0x1111),
                        sum = std::vector<uint16_t>(M * K, 0x2222);
  std::vector<uint8_t> q = std::vector<uint8_t>(M * K, 0xab);
  std::vector<float> s = std::vector<float>(M * 2, -1.0f);
  fp8q_memref_2d xd = md(xr.data(), M, K, 2 * K, 1);
  fp8q_memref_2d rd = {xr.data(), xr.data(), K, {M, K}, {2 * K, 1}};
  fp8q_memref_1d gd = {gamma.data(), gamma.data(), 0, {K}, {1}};
  fp8q_memref_2d yd = md(y.data(), M, K, K, 1),
                 sd2 = md(sum.data(), M, K, K, 1),
                 qd = md(q.data(), M, K, K, 1), sd = md(s.data(), M, 2, 1, M);
  int32_t addRms(fp8q_memref_2d *sumDesc) {
    return _mlir_ciface_fp8q_rt_device_add_rms_norm_quantize_bf16(
        &xd, &rd, &gd, &qd, &sd, &yd, sumDesc, 1e-6f, 128, FP8Q_F8E4M3FN, 1,
        nullptr);
  }
  int32_t silu(fp8q_memref_2d *up) {
    return _mlir_ciface_fp8q_rt_device_silu_mul_quantize_bf16(
        &xd, up, &qd, &sd, 128, FP8Q_F8E4M3FN, nullptr);
  }
  bool untouched() const {
    for (uint8_t b : q)
      if (b != 0xab)
        return false;
    for (float v : s)
      if (v != -1.0f)
        return false;
    for (size_t i = 0; i < y.size(); ++i)
      if (y[i] != 0x1111 || sum[i] != 0x2222)
        return false;
    return true;
  }
};

TEST_F(DeviceAbi, FusedProducersOnHostBuffersNameTheOperand) {
  FusedOperands o;
  EXPECT_EQ(o.addRms(&o.sd2), FP8Q_ERR_DEVICE);
  std::string e = fp8q_device_last_error();
  EXPECT_NE(e.find("fp8q_rt_device_add_rms_norm_quantize_bf16: operand x is "),
            std::string::npos)
      << e;
  fp8q_device_clear_error();
  EXPECT_EQ(o.silu(&o.rd), FP8Q_ERR_DEVICE);
  e = fp8q_device_last_error();
  EXPECT_NE(e.find("fp8q_rt_device_silu_mul_quantize_bf16: operand gate is "),
            std::string::npos)
      << e;
  EXPECT_TRUE(o.untouched());
}

TEST_F(DeviceAbi, FusedProducerOperandChecksMatchTheHostAbi) {
  FusedOperands o;
  // sum half a row into x: a partial overlap, refused before any device
  // access, and sticky like every device error.
  fp8q_memref_2d sumOnX = o.xd;
  sumOnX.offset = 128;
  sumOnX.sizes[1] = 128;
  sumOnX.sizes[0] = 4;
  EXPECT_EQ(o.addRms(&sumOnX), FP8Q_ERR_SHAPE);
  fp8q_device_clear_error();
  sumOnX.sizes[1] = 256;
  EXPECT_EQ(o.addRms(&sumOnX), FP8Q_ERR_LAYOUT);
  EXPECT_NE(std::string(fp8q_device_last_error())
                .find("operand sum partially overlaps operand x"),
            std::string::npos)
      << fp8q_device_last_error();
  EXPECT_EQ(o.addRms(&o.sd2), FP8Q_ERR_LAYOUT); // sticky
  fp8q_device_clear_error();
  EXPECT_EQ(o.addRms(nullptr), FP8Q_ERR_NULL);
  fp8q_device_clear_error();
  fp8q_memref_2d upShort = o.rd;
  upShort.sizes[0] = 3;
  EXPECT_EQ(o.silu(&upShort), FP8Q_ERR_SHAPE);
  EXPECT_NE(std::string(fp8q_device_last_error())
                .find("operand up has sizes [3, 256], expected [4, 256]"),
            std::string::npos)
      << fp8q_device_last_error();
  fp8q_device_clear_error();
  // The kernels read up as dense 16-byte aligned rows.
  fp8q_memref_2d upOdd = o.rd;
  upOdd.offset = 1;
  EXPECT_EQ(o.silu(&upOdd), FP8Q_ERR_LAYOUT);
  EXPECT_NE(std::string(fp8q_device_last_error())
                .find("operand up: the HIP kernels need a unit column stride"),
            std::string::npos)
      << fp8q_device_last_error();
  EXPECT_TRUE(o.untouched());
}

TEST_F(DeviceAbi, ModulesThatCannotLoadDoNotCrash) {
  const char junk[] = "not a code object";
  void *m = mgpuModuleLoad((void *)junk, sizeof junk);
  EXPECT_EQ(m, nullptr);
  EXPECT_NE(fp8q_device_status(), FP8Q_OK);
  std::string e = fp8q_device_last_error();
  EXPECT_NE(e.find("mgpuModuleLoad: "), std::string::npos) << e;
  EXPECT_EQ(mgpuModuleGetFunction(m, "k"), nullptr);
  fp8q_device_clear_error();
  // A null function: an error naming the module's failure, no launch.
  mgpuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr, 0);
  e = fp8q_device_last_error();
  EXPECT_NE(e.find("mgpuLaunchKernel: the kernel function is null"),
            std::string::npos)
      << e;
  EXPECT_EQ(mgpuMemAlloc(0, nullptr, false), nullptr);
  EXPECT_EQ(fp8q_device_alloc(0, nullptr), nullptr);
  mgpuMemFree(nullptr, nullptr);
  fp8q_device_free(nullptr, nullptr);
}

/// The device collectives run the host ABI's checks (the same messages,
/// fp8q_collective_checks.h) before anything else, then ask for a
/// communicator when ranks > 1, then refuse host buffers; each refusal is
/// sticky and writes nothing.
TEST_F(DeviceAbi, CollectivesCheckOperandsLikeTheHostAbi) {
  std::vector<float> scale(8 * 4, 1.0f), out(8 * 4, -1.0f);
  // A col_major scale gathered along dim 0 would interleave the ranks'
  // blocks (vLLM 42118): refused, the compiler materializes it first.
  fp8q_memref_2d colMajor = md(scale.data(), 8, 4, 1, 8),
                 od = md(out.data(), 8, 4, 4, 1);
  EXPECT_EQ(
      _mlir_ciface_fp8q_rt_device_all_gather(&colMajor, &od, 4, 1, nullptr),
      FP8Q_ERR_LAYOUT);
  std::string e = fp8q_device_last_error();
  EXPECT_NE(e.find("fp8q_rt_device_all_gather: operand x must be dense "
                   "row-major (strides (4, 1)) but has strides (1, 8)"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("interleave the ranks' blocks wrongly"), std::string::npos)
      << e;
  // Sticky: a valid call does nothing until cleared.
  fp8q_memref_2d xd = md(scale.data(), 8, 4, 4, 1);
  EXPECT_EQ(_mlir_ciface_fp8q_rt_device_all_gather(&xd, &od, 4, 1, nullptr),
            FP8Q_ERR_LAYOUT);
  fp8q_device_clear_error();
  // elem_bytes, ranks and shapes.
  EXPECT_EQ(_mlir_ciface_fp8q_rt_device_all_gather(&xd, &od, 3, 1, nullptr),
            FP8Q_ERR_ARG);
  EXPECT_NE(std::string(fp8q_device_last_error())
                .find("elem_bytes 3 must be 1, 2 or 4"),
            std::string::npos);
  fp8q_device_clear_error();
  EXPECT_EQ(_mlir_ciface_fp8q_rt_device_all_gather(&xd, &od, 4, 0, nullptr),
            FP8Q_ERR_ARG);
  fp8q_device_clear_error();
  EXPECT_EQ(_mlir_ciface_fp8q_rt_device_all_gather(&xd, &od, 4, 2, nullptr),
            FP8Q_ERR_SHAPE);
  EXPECT_NE(std::string(fp8q_device_last_error())
                .find("operand out has sizes [8, 4], expected [16, 4]"),
            std::string::npos)
      << fp8q_device_last_error();
  fp8q_device_clear_error();
  std::vector<uint16_t> xb(6 * 8, 0x3f80), ob(2 * 8, 0x1234);
  fp8q_memref_2d xbd = md(xb.data(), 6, 8, 8, 1),
                 obd = md(ob.data(), 2, 8, 8, 1);
  EXPECT_EQ(
      _mlir_ciface_fp8q_rt_device_reduce_scatter_bf16(&xbd, &obd, 4, nullptr),
      FP8Q_ERR_SHAPE);
  EXPECT_NE(std::string(fp8q_device_last_error())
                .find("fp8q_rt_device_reduce_scatter_bf16: operand x has 6 "
                      "rows, which ranks = 4 does not divide"),
            std::string::npos)
      << fp8q_device_last_error();
  fp8q_device_clear_error();
  // Valid shapes for 3 ranks but no communicator.
  EXPECT_EQ(
      _mlir_ciface_fp8q_rt_device_reduce_scatter_bf16(&xbd, &obd, 3, nullptr),
      FP8Q_ERR_DEVICE);
  e = fp8q_device_last_error();
  EXPECT_NE(e.find("ranks = 3 but no communicator is set: call "
                   "fp8q_rt_device_comm_init"),
            std::string::npos)
      << e;
  fp8q_device_clear_error();
  // One rank on host buffers: refused, never staged.
  EXPECT_EQ(_mlir_ciface_fp8q_rt_device_all_gather(&xd, &od, 4, 1, nullptr),
            FP8Q_ERR_DEVICE);
  e = fp8q_device_last_error();
  EXPECT_NE(e.find("fp8q_rt_device_all_gather: operand x is "),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("a device-mode step needs device buffers"),
            std::string::npos)
      << e;
  for (float v : out)
    ASSERT_EQ(v, -1.0f);
  for (uint16_t v : ob)
    ASSERT_EQ(v, 0x1234);
}

/// The GPU runtimes' host ABI has the collectives too, one rank like the
/// CPU runtime (same checks and messages).
TEST_F(DeviceAbi, HostAbiCollectivesAreOneRank) {
  std::vector<uint8_t> x(4 * 16, 1), out(8 * 16, 0xee);
  fp8q_memref_2d xd = md(x.data(), 4, 16, 16, 1),
                 od = md(out.data(), 8, 16, 16, 1),
                 colMajor = md(x.data(), 4, 16, 1, 4);
  EXPECT_EQ(fp8q_all_gather(&xd, &od, 1, 2), FP8Q_ERR_ARG);
  EXPECT_NE(std::string(fp8q_last_error())
                .find("fp8q_all_gather: ranks = 2, but the host ABI is one "
                      "rank"),
            std::string::npos)
      << fp8q_last_error();
  EXPECT_EQ(fp8q_all_gather(&colMajor, &od, 1, 2), FP8Q_ERR_LAYOUT);
  EXPECT_NE(std::string(fp8q_last_error())
                .find("operand x must be dense row-major (strides (16, 1)) "
                      "but has strides (1, 4)"),
            std::string::npos)
      << fp8q_last_error();
  for (uint8_t v : out)
    ASSERT_EQ(v, 0xee);
  // Host ABI errors are not sticky.
  EXPECT_EQ(fp8q_device_status(), FP8Q_OK);
}

/// The communicator calls: argument checks first, then the library, which
/// is opened once per process; here FP8Q_NCCL_LIBRARY names a file that
/// does not exist, so every call that needs it fails with a message naming
/// the library and the variable, never a crash.
TEST_F(DeviceAbi, CommunicatorWithoutTheLibraryIsAClearError) {
  setenv("FP8Q_NCCL_LIBRARY", "/nonexistent/libnccl-fp8q-test.so.2", 1);
  EXPECT_EQ(fp8q_rt_device_comm_init(0, 0, nullptr), FP8Q_ERR_ARG);
  EXPECT_NE(std::string(fp8q_device_last_error())
                .find("fp8q_rt_device_comm_init: ranks 0 must be in"),
            std::string::npos)
      << fp8q_device_last_error();
  fp8q_device_clear_error();
  EXPECT_EQ(fp8q_rt_device_comm_init(2, 2, nullptr), FP8Q_ERR_ARG);
  EXPECT_NE(std::string(fp8q_device_last_error())
                .find("rank 2 must be in [0, ranks = 2)"),
            std::string::npos);
  fp8q_device_clear_error();
  EXPECT_EQ(fp8q_rt_device_comm_init(2, 1, nullptr), FP8Q_ERR_ARG);
  EXPECT_NE(std::string(fp8q_device_last_error())
                .find("unique_id is null but ranks = 2"),
            std::string::npos);
  fp8q_device_clear_error();
  EXPECT_EQ(fp8q_rt_device_comm_set(nullptr, 1, 0), FP8Q_ERR_NULL);
  fp8q_device_clear_error();
  EXPECT_EQ(fp8q_rt_device_comm_unique_id(nullptr), FP8Q_ERR_NULL);
  fp8q_device_clear_error();

  EXPECT_EQ(fp8q_rt_device_comm_init(1, 0, nullptr), FP8Q_ERR_DEVICE);
  std::string e = fp8q_device_last_error();
  EXPECT_NE(e.find("fp8q_rt_device_comm_init: cannot open the "),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("library /nonexistent/libnccl-fp8q-test.so.2"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("set FP8Q_NCCL_LIBRARY to its path"), std::string::npos)
      << e;
  fp8q_device_clear_error();
  char id[128];
  memset(id, 0x5a, sizeof id);
  EXPECT_EQ(fp8q_rt_device_comm_unique_id(id), FP8Q_ERR_DEVICE);
  for (char c : id)
    ASSERT_EQ(c, 0x5a);
  fp8q_device_clear_error();
  // The version is a query: negative, not sticky.
  EXPECT_EQ(fp8q_rt_device_comm_nccl_version(), -FP8Q_ERR_DEVICE);
  EXPECT_EQ(fp8q_device_status(), FP8Q_OK);
  // Nothing to destroy; destroying runs even while an error is sticky.
  EXPECT_EQ(fp8q_rt_device_comm_destroy(), FP8Q_OK);
  EXPECT_EQ(fp8q_rt_device_comm_init(1, 0, nullptr), FP8Q_ERR_DEVICE);
  EXPECT_EQ(fp8q_rt_device_comm_destroy(), FP8Q_OK);
  unsetenv("FP8Q_NCCL_LIBRARY");
}

/// With a real NCCL (FP8Q_TEST_NCCL_LIBRARY, or the CUDA toolkit's), the
/// library loads and reports its version without a GPU. The library is
/// opened once per process, so this runs in a fresh one (threadsafe death
/// test style: the test binary re-executed for this test only).
TEST_F(DeviceAbi, RealNcclLibraryLoadsWithoutAGpu) {
  const char *env = getenv("FP8Q_TEST_NCCL_LIBRARY");
  const char *candidates[] = {env, "/usr/local/cuda/lib64/libnccl.so.2",
                              "/usr/local/cuda/lib/libnccl.so.2",
                              "/usr/local/cuda-13.0/lib/libnccl.so.2"};
  const char *lib = nullptr;
  for (const char *c : candidates)
    if (c && !lib && access(c, R_OK) == 0)
      lib = c;
  if (!lib)
    GTEST_SKIP() << "no libnccl.so.2 (set FP8Q_TEST_NCCL_LIBRARY)";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("FP8Q_NCCL_LIBRARY", lib, 1);
        int32_t v = fp8q_rt_device_comm_nccl_version();
        fprintf(stderr, "nccl version %d\n", (int)v);
        exit(v > 0 && fp8q_device_status() == FP8Q_OK ? 0 : 1);
      },
      testing::ExitedWithCode(0), "nccl version [1-9][0-9]*");
}

TEST_F(DeviceAbi, DeviceBuffersOnAGpu) {
  void *p = fp8q_device_alloc(256, nullptr);
  if (!p) {
    GTEST_SKIP() << "no usable GPU (" << fp8q_device_last_error()
                 << "): the device-buffer checks run in "
                    "bench/gpu_runtime_check.cpp on a GPU machine";
  }
  EXPECT_EQ(_mlir_ciface_fp8q_rt_device_check_arg((int64_t)(intptr_t)p, 256, 0,
                                                  nullptr),
            FP8Q_OK)
      << fp8q_device_last_error();
  fp8q_device_free(p, nullptr);
  mgpuStreamSynchronize(nullptr);
}

} // namespace
