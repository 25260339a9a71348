//===- CublasLtGemm.cpp - The `cublas` kernel through cuBLASLt ------------===//
//
// libcublasLt.so.13 is opened with dlopen at the first `cublas` GEMM, so
// that a machine without it gets a clear sticky error instead of a loader
// failure, and the runtime links only the CUDA runtime. In cuBLASLt's
// column-major terms the row-major out[M, N] is D = A^T B with A = w
// (K x N, ld = w's row stride, BLK128x128 scales) and B = q (K x M, VEC128
// scales: for each K block the M values are contiguous, which is the
// contract's column-major x_scale with ld = M). Descriptors and the chosen
// algorithm are cached per shape; the workspace is stream-ordered
// (cudaMallocAsync), so a captured graph owns it.
//
//===----------------------------------------------------------------------===//

#include "CublasLtGemm.h"
#include "GpuOps.h"

#include "fp8q_kernels/IndexMath.h"
#include "fp8q_kernels/KernelArgs.h"

#include <cublasLt.h>
#include <dlfcn.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>

namespace fp8q::hiprt {
namespace {

using fp8q::rt::fail;

/// The cuBLASLt functions used, resolved from the library.
struct Lt {
  cublasStatus_t (*create)(cublasLtHandle_t *);
  cublasStatus_t (*descCreate)(cublasLtMatmulDesc_t *, cublasComputeType_t,
                               cudaDataType_t);
  cublasStatus_t (*descSet)(cublasLtMatmulDesc_t,
                            cublasLtMatmulDescAttributes_t, const void *,
                            size_t);
  cublasStatus_t (*layoutCreate)(cublasLtMatrixLayout_t *, cudaDataType,
                                 uint64_t, uint64_t, int64_t);
  cublasStatus_t (*prefCreate)(cublasLtMatmulPreference_t *);
  cublasStatus_t (*prefSet)(cublasLtMatmulPreference_t,
                            cublasLtMatmulPreferenceAttributes_t, const void *,
                            size_t);
  cublasStatus_t (*heuristic)(cublasLtHandle_t, cublasLtMatmulDesc_t,
                              cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
                              cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
                              cublasLtMatmulPreference_t, int,
                              cublasLtMatmulHeuristicResult_t *, int *);
  cublasStatus_t (*matmul)(cublasLtHandle_t, cublasLtMatmulDesc_t, const void *,
                           const void *, cublasLtMatrixLayout_t, const void *,
                           cublasLtMatrixLayout_t, const void *, const void *,
                           cublasLtMatrixLayout_t, void *,
                           cublasLtMatrixLayout_t, const cublasLtMatmulAlgo_t *,
                           void *, size_t, cudaStream_t);
  std::string error;
};

const Lt &lt() {
  static Lt l;
  static std::once_flag once;
  std::call_once(once, [] {
    const char *env = getenv("FP8Q_CUBLASLT_LIBRARY");
    const char *names[] = {env, "libcublasLt.so.13",
                           "/usr/local/cuda/lib64/libcublasLt.so.13"};
    void *h = nullptr;
    std::string why;
    for (const char *n : names)
      if (n && !h) {
        h = dlopen(n, RTLD_NOW | RTLD_LOCAL);
        if (!h && why.empty())
          why = dlerror();
      }
    if (!h) {
      l.error = "the cublas kernel needs libcublasLt.so.13: " + why;
      return;
    }
    bool ok = true;
    auto get = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
          dlsym(h, name));
      if (!fn && ok) {
        ok = false;
        l.error = std::string("libcublasLt.so.13 has no ") + name;
      }
    };
    get(l.create, "cublasLtCreate");
    get(l.descCreate, "cublasLtMatmulDescCreate");
    get(l.descSet, "cublasLtMatmulDescSetAttribute");
    get(l.layoutCreate, "cublasLtMatrixLayoutCreate");
    get(l.prefCreate, "cublasLtMatmulPreferenceCreate");
    get(l.prefSet, "cublasLtMatmulPreferenceSetAttribute");
    get(l.heuristic, "cublasLtMatmulAlgoGetHeuristic");
    get(l.matmul, "cublasLtMatmul");
  });
  return l;
}

constexpr size_t kWorkspace = 32u << 20;

/// One shape's descriptors and algorithm (never destroyed: the set of
/// shapes of a model is small and fixed).
struct Plan {
  std::mutex m; ///< the scale pointers live in `desc`
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
  cublasLtMatmulAlgo_t algo{};
  size_t workspace = 0;
  bool usable = false;
  bool warned = false; ///< the portable-GEMM fallback was reported
};

/// The rows a refused small-M GEMM is padded to.
constexpr int64_t kPadRows = 16;

using Key =
    std::tuple<int, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t>;

std::mutex cacheMutex;
std::map<int, cublasLtHandle_t> handles;
std::map<Key, std::unique_ptr<Plan>> plans;

/// The cuBLASLt workspace of `stream` (streamBufferOf: kWorkspace bytes);
/// null while capturing before its first use (the caller then allocates
/// stream-ordered).
void *streamWorkspace(hipStream_t stream) {
  return streamBufferOf(stream, StreamBuffer::CublasLtWorkspace, kWorkspace, 0);
}

/// Builds the plan; false (with `why`) when cuBLASLt refuses the shape.
/// The scale pointers are set before the heuristic query: with block
/// scaling, cuBLASLt rejects a descriptor whose scale pointers are null
/// (CUBLAS_STATUS_INVALID_VALUE), as PyTorch's scaled_gemm never hits.
bool build(const Lt &l, cublasLtHandle_t h, Plan &p, int64_t M, int64_t N,
           int64_t K, int64_t ldq, int64_t ldw, int64_t ldo, const void *wScale,
           const void *xScale, std::string &why) {
  cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  int32_t modeA = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F,
          modeB = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
  int8_t fastAccum = 0; // block scaling has no fast-accumulation mode
  cublasStatus_t s;
  if ((s = l.descCreate(&p.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F)) ||
      (s = l.descSet(p.desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta)) ||
      (s = l.descSet(p.desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb)) ||
      (s = l.descSet(p.desc, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &modeA,
                     sizeof modeA)) ||
      (s = l.descSet(p.desc, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &modeB,
                     sizeof modeB)) ||
      (s = l.descSet(p.desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fastAccum,
                     sizeof fastAccum)) ||
      (s = l.descSet(p.desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &wScale,
                     sizeof wScale)) ||
      (s = l.descSet(p.desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &xScale,
                     sizeof xScale)) ||
      (s = l.layoutCreate(&p.a, CUDA_R_8F_E4M3, K, N, ldw)) ||
      (s = l.layoutCreate(&p.b, CUDA_R_8F_E4M3, K, M, ldq)) ||
      (s = l.layoutCreate(&p.d, CUDA_R_16BF, N, M, ldo))) {
    why = "descriptor setup failed (cublasStatus " + std::to_string(s) + ")";
    return false;
  }
  cublasLtMatmulPreference_t pref = nullptr;
  size_t ws = kWorkspace;
  cublasLtMatmulHeuristicResult_t r{};
  int found = 0;
  if ((s = l.prefCreate(&pref)) ||
      (s = l.prefSet(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                     sizeof ws)) ||
      (s = l.heuristic(h, p.desc, p.a, p.b, p.d, p.d, pref, 1, &r, &found)) ||
      found == 0) {
    why = std::string(s ? "cublasLtMatmulAlgoGetHeuristic" : "no algorithm") +
          " (cublasStatus " + std::to_string(s) + ")";
    return false;
  }
  p.algo = r.algo;
  p.workspace = r.workspaceSize;
  p.usable = true;
  return true;
}

/// The plan for `key` (built on first use; `why` says why it is unusable).
/// The caller holds cacheMutex.
Plan *cachedPlan(const Lt &l, cublasLtHandle_t h, const Key &key,
                 const fp8q::rt::GemmPlan &plan, std::string &why) {
  std::unique_ptr<Plan> &slot = plans[key];
  if (!slot) {
    slot = std::make_unique<Plan>();
    slot->handle = h;
    auto [dev, M, N, K, ldq, ldw, ldo] = key;
    (void)dev;
    build(l, h, *slot, M, N, K, ldq, ldw, ldo, plan.wScale.base,
          plan.xScale.base, why);
  }
  return slot.get();
}

/// Stream-ordered padded copies of a small-M GEMM's q [M, K], x_scale
/// (column-major, ld = M) and out [M, N], at Mp rows: q and x_scale are
/// copied in (the extra rows zeroed), out is copied back by finish().
struct PaddedOperands {
  hipStream_t stream;
  void *q = nullptr, *xs = nullptr, *out = nullptr;

  /// Allocates and fills the inputs; a message on failure.
  std::string init(const fp8q::rt::GemmPlan &plan, int64_t Mp) {
    const int64_t M = plan.M, N = plan.N, K = plan.K, G = plan.G;
    cudaError_t e;
    if ((e = cudaMallocAsync(&q, Mp * K, stream)) ||
        (e = cudaMallocAsync(&xs, G * Mp * 4, stream)) ||
        (e = cudaMallocAsync(&out, Mp * N * 2, stream)) ||
        (e = cudaMemsetAsync(q, 0, Mp * K, stream)) ||
        (e = cudaMemsetAsync(xs, 0, G * Mp * 4, stream)) ||
        (e = cudaMemcpy2DAsync(q, K, plan.q.base, plan.q.s0, K, M,
                               cudaMemcpyDeviceToDevice, stream)) ||
        (e = cudaMemcpy2DAsync(xs, Mp * 4, plan.xScale.base, plan.xs1 * 4,
                               M * 4, G, cudaMemcpyDeviceToDevice, stream)))
      return std::string("padding a small-M GEMM: ") + cudaGetErrorString(e);
    return "";
  }
  /// Copies the M real rows of the result out.
  std::string finish(const fp8q::rt::GemmPlan &plan) {
    cudaError_t e =
        cudaMemcpy2DAsync(plan.out.base, plan.out.s0 * 2, out, plan.N * 2,
                          plan.N * 2, plan.M, cudaMemcpyDeviceToDevice, stream);
    return e ? std::string("padding a small-M GEMM: ") + cudaGetErrorString(e)
             : "";
  }
  ~PaddedOperands() {
    for (void *p : {q, xs, out})
      if (p)
        (void)cudaFreeAsync(p, stream);
  }
};

} // namespace

int32_t cublasLtGemm(const char *entry, const fp8q::rt::GemmPlan &plan,
                     hipStream_t stream) {
  const Lt &l = lt();
  if (!l.error.empty())
    return fail(entry, FP8Q_ERR_DEVICE, "%s", l.error.c_str());
  const int64_t M = plan.M, N = plan.N, K = plan.K, G = plan.G;
  const int64_t ldq = plan.q.s0, ldw = plan.w.s0, ldo = plan.out.s0;
  int dev = 0;
  if (hipGetDevice(&dev) != hipSuccess)
    return fail(entry, FP8Q_ERR_DEVICE, "no CUDA device");
  if (plan.preshuffled || K != G * 128 || K % 16 || N % 8)
    return Exec::kNotHandled;
  // cuBLASLt's block-scaled FP8 kernels refuse some small M (M = 1 on the
  // H200): those run at M rounded up to kPadRows on padded copies of q,
  // x_scale and out (below).
  const int64_t Mp = (M + kPadRows - 1) / kPadRows * kPadRows;
  Plan *p = nullptr;
  bool padded = false;
  {
    std::lock_guard<std::mutex> lock(cacheMutex);
    cublasLtHandle_t &h = handles[dev];
    if (!h && l.create(&h) != CUBLAS_STATUS_SUCCESS) {
      h = nullptr;
      return fail(entry, FP8Q_ERR_DEVICE, "cublasLtCreate failed");
    }
    std::string why;
    p = cachedPlan(l, h, Key{dev, M, N, K, ldq, ldw, ldo}, plan, why);
    if (!p->usable && Mp != M) {
      std::string paddedWhy;
      p = cachedPlan(l, h, Key{dev, Mp, N, K, K, ldw, N}, plan, paddedWhy);
      padded = p->usable;
    }
    if (!p->usable) {
      if (!p->warned)
        fp8q::rt::warn(entry,
                       "cuBLASLt refuses M=%lld N=%lld K=%lld (%s): the "
                       "portable GEMM runs instead",
                       (long long)M, (long long)N, (long long)K, why.c_str());
      p->warned = true;
      return Exec::kNotHandled;
    }
  }
  // The weight scale as cuBLASLt reads BLK128x128 for A (K x N): the K
  // blocks of each N block contiguous, ld a multiple of 4. A row-major
  // [ceil(N/128), G] scale with G % 4 == 0 is that already; any other is
  // repacked on the stream.
  const int64_t NB = plan.NB, ld = (G + 3) / 4 * 4;
  const float *ws = (const float *)plan.wScale.base;
  float *packed = nullptr;
  const bool repack = plan.wScale.s1 != 1 || (NB > 1 && plan.wScale.s0 != ld);
  std::string err;
  if (repack) {
    hipError_t e = hipMallocAsync((void **)&packed, NB * ld * 4, stream);
    if (e != hipSuccess)
      return fail(entry, FP8Q_ERR_DEVICE, "hipMallocAsync: %s",
                  hipGetErrorString(e));
    fp8q::kern::MaterializeArgs a{
        ws, packed, NB, G, plan.wScale.s0, plan.wScale.s1, ld, 1};
    void *args[] = {&a};
    Dim3 grid, block;
    grid.x =
        (unsigned)((G + fp8q::kern::kTransTile - 1) / fp8q::kern::kTransTile);
    grid.y =
        (unsigned)((NB + fp8q::kern::kTransTile - 1) / fp8q::kern::kTransTile);
    block.x = fp8q::kern::kTransBlock;
    if (!launchAsync(KernelId::Materialize, grid, block, args, stream, err)) {
      (void)hipFreeAsync(packed, stream);
      return fail(entry, FP8Q_ERR_DEVICE, "%s", err.c_str());
    }
    ws = packed;
  }
  void *workspace = nullptr;
  bool ownWorkspace = false;
  int32_t status = FP8Q_OK;
  if (p->workspace) {
    workspace = streamWorkspace(stream);
    ownWorkspace = !workspace;
    if (ownWorkspace &&
        hipMallocAsync(&workspace, p->workspace, stream) != hipSuccess)
      status = fail(entry, FP8Q_ERR_DEVICE, "cuBLASLt workspace of %zu bytes",
                    p->workspace);
  }
  PaddedOperands pad{stream};
  const void *q = plan.q.base, *xs = plan.xScale.base;
  void *out = plan.out.base;
  if (status == FP8Q_OK && padded) {
    if (std::string e = pad.init(plan, Mp); !e.empty())
      status = fail(entry, FP8Q_ERR_DEVICE, "%s", e.c_str());
    q = pad.q;
    xs = pad.xs;
    out = pad.out;
  }
  if (status == FP8Q_OK) {
    std::lock_guard<std::mutex> lock(p->m);
    const float alpha = 1.0f, beta = 0.0f;
    cublasStatus_t s;
    if ((s = l.descSet(p->desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &ws,
                       sizeof ws)) ||
        (s = l.descSet(p->desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &xs,
                       sizeof xs)) ||
        (s = l.matmul(p->handle, p->desc, &alpha, plan.w.base, p->a, q, p->b,
                      &beta, out, p->d, out, p->d, &p->algo, workspace,
                      p->workspace, stream)))
      status =
          fail(entry, FP8Q_ERR_DEVICE, "cublasLtMatmul failed (%d)", (int)s);
  }
  if (status == FP8Q_OK && padded)
    if (std::string e = pad.finish(plan); !e.empty())
      status = fail(entry, FP8Q_ERR_DEVICE, "%s", e.c_str());
  if (workspace && ownWorkspace)
    (void)hipFreeAsync(workspace, stream);
  if (packed)
    (void)hipFreeAsync(packed, stream);
  return status;
}

} // namespace fp8q::hiprt
