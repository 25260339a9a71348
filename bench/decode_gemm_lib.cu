//===- decode_gemm_lib.cu - The decode GEMM kernels as a shared library ---===//
//
// For bench/decode_gemm_h200.py: nvcc compiles kernels/src/DecodeGemm.hip
// (the same source the AMD code objects come from) for sm_90 and exports
// one launcher per design that picks the kernel variant by M, as the runtime
// will: fp8q_bench_decode_gemm (the first kernel, DecodeGemm.h) and
// fp8q_bench_decode_gemm_v2 (DecodeGemmV2.h, with its split-K workspace).
//
//===----------------------------------------------------------------------===//

#include "../kernels/cuda/hip_on_cuda.h"

#include "../kernels/src/DecodeGemm.hip"

#include <cstdlib>
#include <utility>

/// Every kernel here (both decode GEMM designs and the read-only kernel) is
/// launched as the CUDA runtime launches fp8q kernels: programmatically
/// (PDL, each starts with gridPrologue), unless FP8Q_PDL=0.
static bool benchPdl() {
  static const bool on = [] {
    const char *e = std::getenv("FP8Q_PDL");
    return !(e && e[0] == '0' && e[1] == 0);
  }();
  return on;
}

/// <<<grid, block, lds, s>>>(args...), programmatic when benchPdl().
template <class... P, class... A>
static void benchLaunch(void (*kernel)(P...), dim3 grid, dim3 block,
                        size_t lds, cudaStream_t s, A &&...args) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = lds;
  cfg.stream = s;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = benchPdl() ? 1 : 0;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  cudaLaunchKernelEx(&cfg, kernel, std::forward<A>(args)...);
}

static int benchSms() {
  static const int sms = [] {
    int n = 0;
    cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, 0);
    return n;
  }();
  return sms;
}

/// An integer from the environment, `dflt` when unset or not a number.
static int benchEnvInt(const char *name, int dflt) {
  const char *e = std::getenv(name);
  if (!e || !*e)
    return dflt;
  char *end = nullptr;
  const long v = std::strtol(e, &end, 10);
  return *end ? dflt : (int)v;
}

/// The first kernel's split-K plan as the runtime makes it
/// (decodeSplitPlan); FP8Q_DECODE_SPLIT=0 turns split-K off and
/// FP8Q_DECODE_SPLIT_BPS=B sets the blocks-per-SM target (A/B runs).
static DecodeSplitPlan benchSplitPlan(int64_t M, int64_t N, int64_t K,
                                      int rows) {
  static const int off = benchEnvInt("FP8Q_DECODE_SPLIT", 1) == 0;
  static const int bps = benchEnvInt("FP8Q_DECODE_SPLIT_BPS", 0);
  return decodeSplitPlan<DecodeMapNv>(M, N, K, rows, off ? 0 : benchSms(), bps);
}

/// Whether an 8-row launch takes fp8q_kernel_decode_gemm_m8_b2: as the
/// runtime picks it (decodeM8TwoBlocks), or forced for A/B runs by
/// FP8Q_DECODE_M8_B2=0 (never) / 1 (always).
static bool benchM8TwoBlocks(int64_t M, int64_t N) {
  static const int force = benchEnvInt("FP8Q_DECODE_M8_B2", -1);
  return force == 0 || force == 1 ? force == 1
                                  : decodeM8TwoBlocks(M, N, benchSms());
}

/// A split-K workspace (DecodeSplitArgs' part and arrive) grown on demand:
/// outside graph capture (the benchmark's warm-up call of each shape grows
/// it), counters zeroed when allocated and reset by the kernels.
struct BenchSplitWorkspace {
  float *part = nullptr;
  uint32_t *arrive = nullptr;
  int64_t partCap = 0, arriveCap = 0;
  /// Room for nPart floats and nArrive counters; false on a CUDA error.
  bool grow(int64_t nPart, int64_t nArrive) {
    if (nPart > partCap) {
      if (part)
        cudaFree(part);
      if (cudaMalloc(&part, nPart * sizeof(float)) != cudaSuccess)
        return false;
      partCap = nPart;
    }
    if (nArrive > arriveCap) {
      if (arrive)
        cudaFree(arrive);
      if (cudaMalloc(&arrive, nArrive * sizeof(uint32_t)) != cudaSuccess ||
          cudaMemset(arrive, 0, nArrive * sizeof(uint32_t)) != cudaSuccess)
        return false;
      arriveCap = nArrive;
    }
    return true;
  }
};

/// The first kernel (DecodeGemm.h) as the runtime launches it: the variant
/// by M, split-K by decodeSplitPlan with a BenchSplitWorkspace. `plan`
/// (optional, 2 ints): splits, blocks. Returns 0, 1 for bad operands, 2 on
/// a CUDA error.
extern "C" int fp8q_bench_decode_gemm(const void *q, const void *xs,
                                      const void *w, const void *ws, void *out,
                                      int64_t M, int64_t N, int64_t K,
                                      int64_t ldq, int64_t xs0, int64_t xs1,
                                      int64_t ldw, int64_t ws0, int64_t ws1,
                                      int64_t ldo, int preshuffled,
                                      void *stream, int *plan) {
  if (M < 1 || N < 1 || K < 16 || K % 16 || ldq % 16 || ldw % 16 ||
      (preshuffled && (N % 16 || K % 32)))
    return 1;
  const int rows = decodeKernelRows<DecodeMapNv>(M);
  const DecodeSplitPlan pl = benchSplitPlan(M, N, K, rows);
  static BenchSplitWorkspace wsp;
  if (!wsp.grow(decodePartFloats(pl, M, N), pl.splits > 1 ? pl.tiles : 0))
    return 2;
  float *part = wsp.part;
  uint32_t *arrive = wsp.arrive;
  const int64_t tilesN = (N + kDecodeTileN - 1) / kDecodeTileN;
  DecodeSplitArgs a{{(const uint8_t *)q, (const float *)xs, (const uint8_t *)w,
                     (const float *)ws, (uint16_t *)out, M, N, K, ldq, xs0, xs1,
                     ldw, ws0, ws1, ldo},
                    part,
                    arrive,
                    tilesN,
                    pl.kbPer,
                    pl.kBlocks,
                    pl.splits};
  dim3 grid((unsigned)tilesN, (unsigned)((M + rows - 1) / rows),
            (unsigned)pl.splits);
  if (plan) {
    plan[0] = pl.splits;
    plan[1] = (int)(grid.x * grid.y * grid.z);
  }
  cudaStream_t s = (cudaStream_t)stream;
#define FP8Q_LAUNCH(r)                                                         \
  case r:                                                                      \
    benchLaunch(preshuffled ? fp8q_kernel_decode_gemm_preshuffle_m##r          \
                            : fp8q_kernel_decode_gemm_m##r,                    \
                grid, dim3(kDecodeThreads), 0, s, a);                          \
    break;
  if (rows == 8 && benchM8TwoBlocks(M, N)) {
    benchLaunch(preshuffled ? fp8q_kernel_decode_gemm_preshuffle_m8_b2
                            : fp8q_kernel_decode_gemm_m8_b2,
                grid, dim3(kDecodeThreads), 0, s, a);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
  }
  switch (rows) {
    FP8Q_LAUNCH(8)
    FP8Q_LAUNCH(16)
    FP8Q_LAUNCH(32)
    FP8Q_LAUNCH(64)
  }
#undef FP8Q_LAUNCH
  return cudaGetLastError() == cudaSuccess ? 0 : 2;
}

/// The v2 kernel (DecodeGemmV2.h): same operands, its own
/// BenchSplitWorkspace. Returns 0, or 1 for bad operands, 2 on a CUDA error.
/// `plan` (optional, 4 ints): rows, splits, tilesN * tilesM, kbPer.
extern "C" int
fp8q_bench_decode_gemm_v2(const void *q, const void *xs, const void *w,
                          const void *ws, void *out, int64_t M, int64_t N,
                          int64_t K, int64_t ldq, int64_t xs0, int64_t xs1,
                          int64_t ldw, int64_t ws0, int64_t ws1, int64_t ldo,
                          int preshuffled, void *stream, int *plan) {
  if (M < 1 || N < 1 || K < 16 || K % 16 || ldq % 16 || ldw % 16 ||
      (preshuffled && (N % 16 || K % 32)))
    return 1;
  const int rows = decode2KernelRows<DecodeMapNv>(M);
  const Decode2Plan pl = decode2Plan(M, N, K, rows, benchSms());
  static BenchSplitWorkspace wsp;
  if (!wsp.grow(decode2PartFloats(pl, M, N), decode2Counters(pl)))
    return 2;
  float *part = wsp.part;
  uint32_t *arrive = wsp.arrive;
  if (plan) {
    plan[0] = rows;
    plan[1] = pl.splits;
    plan[2] = (int)(pl.tilesN * pl.tilesM);
    plan[3] = (int)pl.kbPer;
  }
  Decode2Args a{{(const uint8_t *)q, (const float *)xs, (const uint8_t *)w,
                 (const float *)ws, (uint16_t *)out, M, N, K, ldq, xs0, xs1,
                 ldw, ws0, ws1, ldo},
                part,
                arrive,
                pl.tilesN,
                pl.kbPer,
                pl.kBlocks,
                pl.splits};
  dim3 grid((unsigned)pl.tilesN, (unsigned)pl.tilesM, (unsigned)pl.splits);
  constexpr int T = Decode2Shape<DecodeMapNv>::kThreads;
  cudaStream_t s = (cudaStream_t)stream;
  static bool attrSet = false;
#define FP8Q_EACH2(X) X(8) X(16) X(32) X(64)
  if (!attrSet) {
#define FP8Q_ATTR(r)                                                           \
  cudaFuncSetAttribute(fp8q_kernel_decode2_gemm_m##r,                          \
                       cudaFuncAttributeMaxDynamicSharedMemorySize,            \
                       decode2LdsBytes<DecodeMapNv, r>());                     \
  cudaFuncSetAttribute(fp8q_kernel_decode2_gemm_preshuffle_m##r,               \
                       cudaFuncAttributeMaxDynamicSharedMemorySize,            \
                       decode2LdsBytes<DecodeMapNv, r>());
    FP8Q_EACH2(FP8Q_ATTR)
#undef FP8Q_ATTR
    attrSet = true;
  }
#define FP8Q_LAUNCH2(r)                                                        \
  case r:                                                                      \
    benchLaunch(preshuffled ? fp8q_kernel_decode2_gemm_preshuffle_m##r         \
                            : fp8q_kernel_decode2_gemm_m##r,                   \
                grid, dim3(T), decode2LdsBytes<DecodeMapNv, r>(), s, a);       \
    break;
  switch (rows) { FP8Q_EACH2(FP8Q_LAUNCH2) }
#undef FP8Q_LAUNCH2
#undef FP8Q_EACH2
  return cudaGetLastError() == cudaSuccess ? 0 : 2;
}

/// The read-streaming limit: every byte of [p, p + bytes) read once with
/// 16-byte loads (bytes a multiple of 16 * 256 * blocks), xor-reduced so the
/// loads cannot be removed; one word per block written.
__global__ void fp8q_bench_read_kernel(const Bytes16 *p, int64_t n,
                                       uint32_t *sink) {
  gridPrologue();
  uint32_t acc = 0;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    Bytes16 b = loadStream16(p + i);
    acc ^= b.w[0] ^ b.w[1] ^ b.w[2] ^ b.w[3];
  }
  if (acc == 0x9e3779b9u)
    sink[blockIdx.x] = acc;
}

extern "C" int fp8q_bench_read(const void *p, int64_t bytes, void *sink,
                               void *stream) {
  benchLaunch(fp8q_bench_read_kernel, dim3(benchSms() * 8), dim3(256), 0,
              (cudaStream_t)stream, (const Bytes16 *)p, bytes / 16,
              (uint32_t *)sink);
  return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
