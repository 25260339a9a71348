//===- host_overhead.cpp - Host cost of each GPU runtime call -------------===//
//
// What one device-mode call of libfp8q_runtime_cuda.so costs the host
// (issue 16, item 3). The runtime checks every operand's descriptor, the
// kernel contract and that every operand is device memory at each call;
// this measures, on valid device buffers of GLM-5 TP 8 decode shapes
// (M = 16 unless --m), in one run:
//   - host time per call: --calls back-to-back calls of one device entry
//     point on one stream, no synchronization between them
//     (std::chrono::steady_clock, the minimum over --repeats), and the same
//     calls in bursts of --burst from an idle stream (so that a full launch
//     queue cannot make the host wait for the GPU);
//   - the GPU time of each call's kernels: CUDA events around replays of a
//     captured graph of --graph-calls calls (no host in the way), and the
//     events around the back-to-back loop (the GPU's pace when the host
//     feeds it: when the host's own time per call is below it, the launch
//     queue fills and the back-to-back host time is that pace, not the
//     host's cost);
//   - the host-side validation alone, with no GPU call: the checks of
//     lib/Runtime/Common/fp8q_operand_checks.h that the runtime runs on
//     the same descriptors (--checks-only runs only this, on any machine,
//     with descriptors that point nowhere: the checks never read data).
// Two reference rows: an empty kernel launched with <<<>>> (the floor of
// any launch) and fp8q_rt_device_check_arg (the device-memory check a step
// makes per argument at its entry, no kernel).
//
// Built by bench/build-host-overhead.sh: with nvcc against the runtime (all
// modes), and with c++ alone (--checks-only only).
//
//===----------------------------------------------------------------------===//

#include "fp8q/Runtime/fp8q_runtime.h"
#include "fp8q_operand_checks.h"

#ifdef __CUDACC__
#include <cuda_runtime_api.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

/// The error sink of the shared checks: every descriptor here is valid, so
/// a call means the benchmark itself is wrong.
int32_t fp8q::rt::fail(const char *entry, int32_t status, const char *fmt,
                       ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  fprintf(stderr, "host_overhead: a check rejected a descriptor: %s: %s\n",
          entry, msg);
  return status;
}

void fp8q::rt::warn(const char *entry, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  fprintf(stderr, "host_overhead: warning: %s: %s\n", entry, msg);
}

namespace {

using Clock = std::chrono::steady_clock;
using fp8q::rt::Access;
using fp8q::rt::View1;
using fp8q::rt::View2;

/// The command line (kUsage).
struct Options {
  int64_t m = 16;
  long calls = 20000, repeats = 3, burst = 200, graphCalls = 100;
  bool checksOnly = false;
  std::string csv;
};

const char *kUsage =
    "usage: host_overhead [--checks-only] [--m 16] [--calls 20000]\n"
    "         [--repeats 3] [--burst 200] [--graph-calls 100] [--csv FILE]\n"
    "Host time per call of libfp8q_runtime_cuda.so's device entry points on\n"
    "GLM-5 TP 8 decode shapes, beside each call's GPU time and the cost of\n"
    "its operand checks alone (--checks-only: only those, no GPU).\n";

/// Parses "--name value" and "--name=value"; exits with a message on a bad
/// command line.
Options parseOptions(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    if (arg == "--help" || arg == "-h") {
      fputs(kUsage, stdout);
      exit(0);
    }
    if (arg == "--checks-only") {
      o.checksOnly = true;
      continue;
    }
    size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      fprintf(stderr, "host_overhead: option %s needs a value\n%s", arg.c_str(),
              kUsage);
      exit(2);
    }
    if (arg == "--csv") {
      o.csv = value;
      continue;
    }
    char *end;
    long long n = strtoll(value.c_str(), &end, 10);
    long *target = arg == "--calls"         ? &o.calls
                   : arg == "--repeats"     ? &o.repeats
                   : arg == "--burst"       ? &o.burst
                   : arg == "--graph-calls" ? &o.graphCalls
                                            : nullptr;
    if (!target && arg != "--m") {
      fprintf(stderr, "host_overhead: unknown option %s\n%s", arg.c_str(),
              kUsage);
      exit(2);
    }
    if (value.empty() || *end || n < 1 || n > 100000000) {
      fprintf(stderr,
              "host_overhead: %s=%s: expected an integer in [1, 10^8]\n",
              arg.c_str(), value.c_str());
      exit(2);
    }
    if (target)
      *target = long(n);
    else
      o.m = n;
  }
  if (o.burst > o.calls)
    o.burst = o.calls;
  return o;
}

/// What a case calls.
enum class Kind {
  EmptyKernel,
  CheckArg,
  Quantize,
  RmsQuantize,
  Materialize,
  Gemm
};

/// One measured call: an entry point and its operands.
struct Case {
  std::string op, shape;
  Kind kind;
  /// Operands, by kind: quantize x, q, scale; rms_norm_quantize x, q,
  /// scale (and gamma); materialize src, dst; gemm q, x_scale, w, w_scale,
  /// out; check_arg x.
  fp8q_memref_2d d[5] = {};
  fp8q_memref_1d gamma = {};
  int64_t spanBytes = 0; ///< check_arg's span
  /// The descriptors' buffers (device mode), freed at the end.
  std::vector<void *> owned;
  bool hasChecks() const {
    return kind != Kind::EmptyKernel && kind != Kind::CheckArg;
  }
  bool hasKernel() const { return kind != Kind::CheckArg; }
};

/// Where descriptors point: device buffers filled with 0x3A (fp8 1.25, bf16
/// and f32 about 7e-4: finite everywhere) or, for --checks-only, distinct
/// 1 MiB-aligned addresses that are never dereferenced.
class Memory {
public:
  explicit Memory(bool device) : device(device) {}
  void *get(int64_t bytes, Case &owner) {
#ifdef __CUDACC__
    if (device) {
      void *p = nullptr;
      cudaError_t e = cudaMalloc(&p, size_t(bytes));
      if (e == cudaSuccess)
        e = cudaMemset(p, 0x3A, size_t(bytes));
      if (e != cudaSuccess) {
        fprintf(stderr, "host_overhead: cudaMalloc of %lld bytes: %s\n",
                (long long)bytes, cudaGetErrorString(e));
        exit(1);
      }
      owner.owned.push_back(p);
      return p;
    }
#else
    (void)owner;
#endif
    void *p = reinterpret_cast<void *>(next);
    next += (uintptr_t(bytes) + (1u << 20)) & ~uintptr_t((1u << 20) - 1);
    return p;
  }

private:
  bool device;
  uintptr_t next = uintptr_t(1) << 40;
};

fp8q_memref_2d rowMajor(void *p, int64_t rows, int64_t cols) {
  return fp8q_memref_2d{p, p, 0, {rows, cols}, {cols, 1}};
}
/// Column-major with leading dimension `rows` (the cublas contract).
fp8q_memref_2d colMajor(void *p, int64_t rows, int64_t cols) {
  return fp8q_memref_2d{p, p, 0, {rows, cols}, {1, rows}};
}
std::string dims(int64_t a, int64_t b) {
  return "[" + std::to_string(a) + "," + std::to_string(b) + "]";
}

/// The cases at M tokens: GLM-5 at TP 8 (hidden 6144, q_lora_rank 2048,
/// 128-wide groups; fp8q-model-gen examples/glm5/config.json --tp=8
/// --target=sm90), scales as fusion leaves them for cuBLASLt (column-major,
/// ld = M), every GEMM kernel=cublas.
std::vector<Case> makeCases(int64_t M, bool withGpuRows, Memory &mem) {
  std::vector<Case> cases;
  if (withGpuRows) {
    Case c;
    c.op = "empty_kernel";
    c.shape = "<<<1,32>>>, no runtime";
    c.kind = Kind::EmptyKernel;
    cases.push_back(c);
    Case a;
    a.op = "device_check_arg";
    a.shape = "x " + dims(M, 6144) + " bf16";
    a.kind = Kind::CheckArg;
    a.spanBytes = M * 6144 * 2;
    a.d[0] = rowMajor(mem.get(a.spanBytes, a), M, 6144);
    cases.push_back(a);
  }
  for (int64_t K : {2048, 6144}) {
    Case c;
    c.op = "quantize_bf16";
    c.shape = "x " + dims(M, K) + " -> scale " + dims(M, K / 128) + " col";
    c.kind = Kind::Quantize;
    c.d[0] = rowMajor(mem.get(M * K * 2, c), M, K);
    c.d[1] = rowMajor(mem.get(M * K, c), M, K);
    c.d[2] = colMajor(mem.get(M * (K / 128) * 4, c), M, K / 128);
    cases.push_back(c);
  }
  {
    const int64_t K = 6144;
    Case c;
    c.op = "rms_norm_quantize_bf16";
    c.shape = "x " + dims(M, K) + " -> scale " + dims(M, K / 128) + " col";
    c.kind = Kind::RmsQuantize;
    c.d[0] = rowMajor(mem.get(M * K * 2, c), M, K);
    c.d[1] = rowMajor(mem.get(M * K, c), M, K);
    c.d[2] = colMajor(mem.get(M * (K / 128) * 4, c), M, K / 128);
    void *g = mem.get(K * 2, c);
    c.gamma = fp8q_memref_1d{g, g, 0, {K}, {1}};
    cases.push_back(c);
  }
  {
    Case c;
    c.op = "materialize";
    c.shape = "scale " + dims(M, 48) + " row -> col";
    c.kind = Kind::Materialize;
    c.d[0] = rowMajor(mem.get(M * 48 * 4, c), M, 48);
    c.d[1] = colMajor(mem.get(M * 48 * 4, c), M, 48);
    cases.push_back(c);
  }
  // (N, K): q_a + kv_a projections (the first GEMM of every layer), a
  // 6144 x 2048 output projection (the most frequent shape), and the
  // smallest, 128 x 6144.
  const int64_t gemms[][2] = {{2624, 6144}, {6144, 2048}, {128, 6144}};
  for (const auto &nk : gemms) {
    const int64_t N = nk[0], K = nk[1], G = K / 128, NB = (N + 127) / 128;
    Case c;
    c.op = "gemm_cublas";
    c.shape = "q " + dims(M, K) + " w " + dims(N, K);
    c.kind = Kind::Gemm;
    c.d[0] = rowMajor(mem.get(M * K, c), M, K);
    c.d[1] = colMajor(mem.get(M * G * 4, c), M, G);
    c.d[2] = rowMajor(mem.get(N * K, c), N, K);
    c.d[3] = rowMajor(mem.get(NB * G * 4, c), NB, G);
    c.d[4] = rowMajor(mem.get(M * N * 2, c), M, N);
    cases.push_back(c);
  }
  return cases;
}

/// Keeps the compiler from assuming anything about `p`'s memory across
/// iterations: every iteration reads the descriptors again.
inline void clobber(const void *p) { asm volatile("" : : "g"(p) : "memory"); }

/// The shared checks the GPU runtime runs for one call of `c`
/// (lib/Runtime/Gpu/GpuOps.cpp, in its order; the GPU-only row checks are
/// not in the shared header and not counted). FP8Q_OK when all pass.
int32_t checkOnce(Case &c) {
  using namespace fp8q::rt;
  clobber(&c);
  switch (c.kind) {
  case Kind::Quantize:
  case Kind::RmsQuantize: {
    const bool rms = c.kind == Kind::RmsQuantize;
    const char *entry = rms ? "fp8q_rt_device_rms_norm_quantize_bf16"
                            : "fp8q_rt_device_quantize_bf16";
    View2 x, q, s;
    if (int32_t st =
            checkOperand(entry, "x", &c.d[0], 2, -1, -1, Access::Read, x))
      return st;
    if (int32_t st = checkGroupSize(entry, 128, x.cols))
      return st;
    if (int32_t st = checkFp8Type(entry, FP8Q_F8E4M3FN))
      return st;
    if (rms) {
      View1 g;
      if (int32_t st = checkOperand(entry, "gamma", &c.gamma, 2, x.cols, g))
        return st;
    }
    if (int32_t st = checkOperand(entry, "q", &c.d[1], 1, x.rows, x.cols,
                                  Access::Write, q))
      return st;
    return checkOperand(entry, "scale", &c.d[2], 4, x.rows, x.cols / 128,
                        Access::Write, s);
  }
  case Kind::Materialize: {
    const char *entry = "fp8q_rt_device_materialize";
    View2 src, dst;
    if (int32_t st =
            checkOperand(entry, "src", &c.d[0], 4, -1, -1, Access::Read, src))
      return st;
    if (int32_t st = checkOperand(entry, "dst", &c.d[1], 4, src.rows, src.cols,
                                  Access::Write, dst))
      return st;
    // Both layouts differ and do not overlap: a copy kernel, no temporary.
    return sameAddresses(src, dst) || rangesOverlap(src, dst) ? FP8Q_ERR_LAYOUT
                                                              : FP8Q_OK;
  }
  case Kind::Gemm: {
    GemmPlan plan;
    return checkGemm("fp8q_rt_device_gemm", &c.d[0], &c.d[1], &c.d[2], &c.d[3],
                     &c.d[4], FP8Q_KERNEL_CUBLAS, FP8Q_F8E4M3FN,
                     FP8Q_WEIGHT_LAYOUT_PLAIN, uncheckedMode(), plan);
  }
  case Kind::EmptyKernel:
  case Kind::CheckArg:
    break;
  }
  return FP8Q_OK;
}

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// One row of the table; negative = not measured.
struct Row {
  double hostUs = -1, hostBurstUs = -1, eagerGpuUs = -1, kernelUs = -1,
         checksNs = -1;
  std::string error;
};

/// The shared checks of `c`, `calls` times per repeat: ns per call
/// (minimum over repeats), or a message.
void measureChecks(Case &c, const Options &o, Row &row) {
  double best = 1e30;
  for (long r = 0; r < o.repeats; ++r) {
    int32_t bad = 0;
    Clock::time_point start = Clock::now();
    for (long i = 0; i < o.calls; ++i)
      bad |= checkOnce(c);
    double s = secondsSince(start);
    if (bad) {
      row.error = "the shared checks rejected a descriptor (status " +
                  std::to_string(bad) + ")";
      return;
    }
    best = std::min(best, s * 1e9 / double(o.calls));
  }
  row.checksNs = best;
}

#ifdef __CUDACC__
__global__ void fp8qHostOverheadEmpty() {}

/// Enqueues one call of `c` on `stream`; the entry point's status.
int32_t callOnce(Case &c, cudaStream_t stream) {
  void *s = stream;
  switch (c.kind) {
  case Kind::EmptyKernel:
    fp8qHostOverheadEmpty<<<1, 32, 0, stream>>>();
    return cudaPeekAtLastError() == cudaSuccess ? FP8Q_OK : FP8Q_ERR_DEVICE;
  case Kind::CheckArg:
    return _mlir_ciface_fp8q_rt_device_check_arg(
        int64_t(reinterpret_cast<intptr_t>(c.d[0].aligned)), c.spanBytes, 0, s);
  case Kind::Quantize:
    return _mlir_ciface_fp8q_rt_device_quantize_bf16(&c.d[0], &c.d[1], &c.d[2],
                                                     128, FP8Q_F8E4M3FN, s);
  case Kind::RmsQuantize:
    return _mlir_ciface_fp8q_rt_device_rms_norm_quantize_bf16(
        &c.d[0], &c.gamma, &c.d[1], &c.d[2], &c.d[0], 1e-5f, 128, FP8Q_F8E4M3FN,
        0, s);
  case Kind::Materialize:
    return _mlir_ciface_fp8q_rt_device_materialize(&c.d[0], &c.d[1], s);
  case Kind::Gemm:
    return _mlir_ciface_fp8q_rt_device_gemm(
        &c.d[0], &c.d[1], &c.d[2], &c.d[3], &c.d[4], FP8Q_KERNEL_CUBLAS,
        FP8Q_F8E4M3FN, FP8Q_WEIGHT_LAYOUT_PLAIN, s);
  }
  return FP8Q_ERR_ARG;
}

/// A CUDA call that must succeed; false (with `row.error`) otherwise.
bool cudaOk(cudaError_t e, const char *what, Row &row) {
  if (e == cudaSuccess)
    return true;
  row.error = std::string(what) + ": " + cudaGetErrorString(e);
  (void)cudaGetLastError();
  return false;
}

/// False (with `row.error`) after a failed call: a sticky runtime error
/// would make every later call return at once and look free.
bool callsOk(int32_t bad, Row &row) {
  if (!bad && fp8q_device_status() == FP8Q_OK)
    return true;
  const char *why = fp8q_device_last_error();
  row.error = std::string("a call failed: ") +
              (why && *why ? why : fp8q_status_name(bad));
  fp8q_device_clear_error();
  (void)cudaGetLastError();
  return false;
}

/// Host and GPU time of `c` on `stream` (see the file comment).
void measureGpu(Case &c, const Options &o, cudaStream_t stream, Row &row) {
  // Warm-up: cuBLASLt's plan and per-stream workspace are made on first
  // use, outside any capture.
  int32_t bad = 0;
  for (int i = 0; i < 20; ++i)
    bad |= callOnce(c, stream);
  if (!cudaOk(cudaStreamSynchronize(stream), "warm-up", row) ||
      !callsOk(bad, row))
    return;
  cudaEvent_t begin, end;
  if (!cudaOk(cudaEventCreate(&begin), "cudaEventCreate", row) ||
      !cudaOk(cudaEventCreate(&end), "cudaEventCreate", row))
    return;
  auto elapsedUs = [&](double &us) {
    float ms = 0;
    if (!cudaOk(cudaEventSynchronize(end), "cudaEventSynchronize", row) ||
        !cudaOk(cudaEventElapsedTime(&ms, begin, end), "cudaEventElapsedTime",
                row))
      return false;
    us = double(ms) * 1e3;
    return true;
  };
  double hostBest = 1e30, eagerBest = 1e30, burstBest = 1e30, kernelBest = 1e30;
  bool good = true;
  // Back-to-back, one stream, no synchronization between calls.
  for (long r = 0; good && r < o.repeats; ++r) {
    good = cudaOk(cudaStreamSynchronize(stream), "sync", row) &&
           cudaOk(cudaEventRecord(begin, stream), "cudaEventRecord", row);
    Clock::time_point start = Clock::now();
    for (long i = 0; good && i < o.calls; ++i)
      bad |= callOnce(c, stream);
    double host = secondsSince(start);
    double gpuUs = 0;
    good = good &&
           cudaOk(cudaEventRecord(end, stream), "cudaEventRecord", row) &&
           elapsedUs(gpuUs) && callsOk(bad, row);
    hostBest = std::min(hostBest, host * 1e6 / double(o.calls));
    eagerBest = std::min(eagerBest, gpuUs / double(o.calls));
  }
  // Bursts from an idle stream: the host never waits on a full queue.
  for (long r = 0; good && r < o.repeats; ++r) {
    double host = 0;
    long done = 0;
    while (good && done < o.calls) {
      long n = std::min(o.burst, o.calls - done);
      good = cudaOk(cudaStreamSynchronize(stream), "sync", row);
      Clock::time_point start = Clock::now();
      for (long i = 0; i < n; ++i)
        bad |= callOnce(c, stream);
      host += secondsSince(start);
      done += n;
    }
    good = good && cudaOk(cudaStreamSynchronize(stream), "sync", row) &&
           callsOk(bad, row);
    burstBest = std::min(burstBest, host * 1e6 / double(o.calls));
  }
  // The GPU alone: replays of a captured graph of graphCalls calls.
  cudaGraphExec_t exec = nullptr;
  if (good && c.hasKernel()) {
    cudaGraph_t graph = nullptr;
    good = cudaOk(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal),
                  "cudaStreamBeginCapture", row);
    for (long i = 0; good && i < o.graphCalls; ++i)
      bad |= callOnce(c, stream);
    if (good) {
      // End the capture whatever happened inside it.
      Row ended;
      bool endOk = cudaOk(cudaStreamEndCapture(stream, &graph),
                          "cudaStreamEndCapture", ended);
      good = callsOk(bad, row) && endOk;
      if (!endOk && row.error.empty())
        row.error = ended.error;
    }
    good = good && cudaOk(cudaGraphInstantiateWithFlags(&exec, graph, 0),
                          "cudaGraphInstantiate", row);
    if (graph)
      (void)cudaGraphDestroy(graph);
    // Enough replays for about 2000 calls per repeat.
    const long replays = std::max(1L, 2000 / o.graphCalls);
    good = good &&
           cudaOk(cudaGraphLaunch(exec, stream), "cudaGraphLaunch", row) &&
           cudaOk(cudaStreamSynchronize(stream), "sync", row);
    for (long r = 0; good && r < o.repeats; ++r) {
      good = cudaOk(cudaEventRecord(begin, stream), "cudaEventRecord", row);
      for (long i = 0; good && i < replays; ++i)
        good = cudaOk(cudaGraphLaunch(exec, stream), "cudaGraphLaunch", row);
      double us = 0;
      good = good &&
             cudaOk(cudaEventRecord(end, stream), "cudaEventRecord", row) &&
             elapsedUs(us);
      kernelBest = std::min(kernelBest, us / double(replays * o.graphCalls));
    }
    if (exec)
      (void)cudaGraphExecDestroy(exec);
  }
  (void)cudaEventDestroy(begin);
  (void)cudaEventDestroy(end);
  if (!good)
    return;
  row.hostUs = hostBest;
  row.eagerGpuUs = eagerBest;
  row.hostBurstUs = burstBest;
  if (c.hasKernel())
    row.kernelUs = kernelBest;
}
#endif

/// "%.2f" of `v`, or "-" when not measured.
std::string num(double v, const char *fmt = "%.2f") {
  if (v < 0)
    return "-";
  char buf[32];
  snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

/// Which side limits back-to-back calls: "device" when the host's own time
/// per call (bursts, never waiting on a full launch queue) is below 90% of
/// the GPU's time per call in the back-to-back loop (the GPU is behind, the
/// queue fills and the back-to-back host time is the GPU's pace), else
/// "host" (the GPU waits for the launches).
std::string bound(const Row &r) {
  if (r.kernelUs < 0 || r.eagerGpuUs <= 0 || r.hostBurstUs < 0)
    return "-";
  return r.hostBurstUs < 0.9 * r.eagerGpuUs ? "device" : "host";
}

void printTable(const std::vector<Case> &cases, const std::vector<Row> &rows,
                const Options &o, bool gpu) {
  printf("\nhost overhead per call, M = %lld (GLM-5 TP 8 shapes, kernel "
         "cublas), %ld calls x %ld repeats (min)%s\n",
         (long long)o.m, o.calls, o.repeats,
         gpu ? ", one stream, no synchronization between calls" : "");
  if (gpu)
    printf("%-22s %-34s %9s %9s %9s %9s %9s %9s %7s %6s\n", "op", "shape",
           "host us", "calls/s", "burst us", "checks us", "eager us",
           "kernel us", "host/k", "bound");
  else
    printf("%-22s %-34s %10s %12s\n", "op", "shape", "checks ns", "checks/s");
  for (size_t i = 0; i < cases.size(); ++i) {
    const Row &r = rows[i];
    if (!r.error.empty()) {
      printf("%-22s %-34s FAILED: %s\n", cases[i].op.c_str(),
             cases[i].shape.c_str(), r.error.c_str());
      continue;
    }
    if (!gpu) {
      printf("%-22s %-34s %10.1f %12.0f\n", cases[i].op.c_str(),
             cases[i].shape.c_str(), r.checksNs, 1e9 / r.checksNs);
      continue;
    }
    printf("%-22s %-34s %9s %9s %9s %9s %9s %9s %7s %6s\n", cases[i].op.c_str(),
           cases[i].shape.c_str(), num(r.hostUs).c_str(),
           r.hostUs > 0 ? num(1e6 / r.hostUs, "%.0f").c_str() : "-",
           num(r.hostBurstUs).c_str(),
           r.checksNs < 0 ? "-" : num(r.checksNs / 1e3, "%.3f").c_str(),
           num(r.eagerGpuUs).c_str(), num(r.kernelUs).c_str(),
           r.kernelUs > 0 && r.hostBurstUs >= 0
               ? num(r.hostBurstUs / r.kernelUs, "%.1f").c_str()
               : "-",
           bound(r).c_str());
  }
  if (gpu)
    printf("host us: back-to-back host time per call; burst us: the same in "
           "bursts of %ld from an idle stream; checks us: the shared "
           "operand checks alone (no GPU call); eager us: GPU time per call "
           "of the back-to-back loop (CUDA events); kernel us: GPU time per "
           "call in a captured graph of %ld calls; host/k: burst us / kernel "
           "us (the host's own cost, bursts, over the GPU time); bound: "
           "device when the host's own time per call is below 90%% of the "
           "back-to-back GPU time per call (the launch queue fills and "
           "host us is the GPU's pace), else host\n",
           o.burst, o.graphCalls);
}

/// The summary: the cheapest runtime kernel on the GPU, and the host's own
/// cost of a runtime call (bursts) against it, beside the back-to-back
/// figure.
void printSummary(const std::vector<Case> &cases, const std::vector<Row> &rows,
                  const Options &o) {
  int cheapest = -1;
  double hostMin = 1e30, hostMax = -1, b2bMin = 1e30, b2bMax = -1,
         checksMax = -1;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Row &r = rows[i];
    if (!r.error.empty() || !cases[i].hasChecks() || r.hostBurstUs < 0)
      continue;
    if (r.kernelUs > 0 &&
        (cheapest < 0 || r.kernelUs < rows[cheapest].kernelUs))
      cheapest = int(i);
    hostMin = std::min(hostMin, r.hostBurstUs);
    hostMax = std::max(hostMax, r.hostBurstUs);
    b2bMin = std::min(b2bMin, r.hostUs);
    b2bMax = std::max(b2bMax, r.hostUs);
    checksMax = std::max(checksMax, r.checksNs / 1e3);
  }
  if (cheapest < 0)
    return;
  const double k = rows[cheapest].kernelUs;
  printf("SUMMARY m=%lld cheapest_kernel=%s kernel_us=%.2f host_us_min=%.2f "
         "host_us_max=%.2f ratio_min=%.2f ratio_max=%.2f "
         "back_to_back_us_min=%.2f back_to_back_us_max=%.2f "
         "checks_us_max=%.3f\n",
         (long long)o.m, cases[cheapest].op.c_str(), k, hostMin, hostMax,
         hostMin / k, hostMax / k, b2bMin, b2bMax, checksMax);
  printf("the cheapest kernel, %s %s, takes %.2f us on the GPU; one runtime "
         "call costs the host %.2f-%.2f us of its own (%.1f-%.1fx that "
         "kernel; %.2f-%.2f us per call back-to-back), of which the shared "
         "operand checks are at most %.3f us\n",
         cases[cheapest].op.c_str(), cases[cheapest].shape.c_str(), k, hostMin,
         hostMax, hostMin / k, hostMax / k, b2bMin, b2bMax, checksMax);
}

/// One CSV line per case (numbers in microseconds; empty = not measured).
bool writeCsv(const std::string &path, const std::vector<Case> &cases,
              const std::vector<Row> &rows, const Options &o) {
  FILE *f = fopen(path.c_str(), "w");
  if (!f) {
    fprintf(stderr, "host_overhead: cannot write --csv '%s'\n", path.c_str());
    return false;
  }
  auto cell = [](double v, double scale = 1) {
    return v < 0 ? std::string() : num(v * scale, "%.4f");
  };
  fprintf(f, "op,shape,m,calls,host_us,calls_per_s,host_burst_us,checks_us,"
             "checks_per_s,eager_gpu_us,kernel_us,host_burst_over_kernel,bound,"
             "error\n");
  for (size_t i = 0; i < cases.size(); ++i) {
    const Row &r = rows[i];
    bool ok = r.error.empty();
    fprintf(f, "%s,\"%s\",%lld,%ld,%s,%s,%s,%s,%s,%s,%s,%s,%s,\"%s\"\n",
            cases[i].op.c_str(), cases[i].shape.c_str(), (long long)o.m,
            o.calls, ok ? cell(r.hostUs).c_str() : "",
            ok && r.hostUs > 0 ? num(1e6 / r.hostUs, "%.0f").c_str() : "",
            ok ? cell(r.hostBurstUs).c_str() : "",
            ok ? cell(r.checksNs, 1e-3).c_str() : "",
            ok && r.checksNs > 0 ? num(1e9 / r.checksNs, "%.0f").c_str() : "",
            ok ? cell(r.eagerGpuUs).c_str() : "",
            ok ? cell(r.kernelUs).c_str() : "",
            ok && r.kernelUs > 0 && r.hostBurstUs >= 0
                ? num(r.hostBurstUs / r.kernelUs, "%.3f").c_str()
                : "",
            ok ? bound(r).c_str() : "", r.error.c_str());
  }
  bool good = fclose(f) == 0;
  if (good)
    printf("wrote %s\n", path.c_str());
  return good;
}

} // namespace

int main(int argc, char **argv) {
  Options o = parseOptions(argc, argv);
#ifdef __CUDACC__
  const bool gpu = !o.checksOnly;
#else
  if (!o.checksOnly) {
    fprintf(stderr, "host_overhead: this build has no CUDA (c++ only): run "
                    "it with --checks-only, or use the nvcc build of "
                    "bench/build-host-overhead.sh for the GPU measurement\n");
    return 2;
  }
  const bool gpu = false;
#endif
  Memory mem(gpu);
#ifdef __CUDACC__
  cudaStream_t stream = nullptr;
  if (gpu) {
    int devices = 0;
    cudaDeviceProp prop;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0 ||
        cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
      fprintf(stderr, "host_overhead: no CUDA device (run --checks-only for "
                      "the host-side checks alone)\n");
      return 1;
    }
    if (cudaStreamCreate(&stream) != cudaSuccess) {
      fprintf(stderr, "host_overhead: cudaStreamCreate failed\n");
      return 1;
    }
    printf("device: %s, FP8Q_RT_UNCHECKED=%s\n", prop.name,
           getenv("FP8Q_RT_UNCHECKED") ? getenv("FP8Q_RT_UNCHECKED")
                                       : "(unset)");
  }
#endif
  std::vector<Case> cases = makeCases(o.m, gpu, mem);
  std::vector<Row> rows(cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    Case &c = cases[i];
    if (c.hasChecks())
      measureChecks(c, o, rows[i]);
#ifdef __CUDACC__
    if (gpu && rows[i].error.empty())
      measureGpu(c, o, stream, rows[i]);
#endif
    fprintf(stderr, "host_overhead: %s %s done\n", c.op.c_str(),
            c.shape.c_str());
  }
  printTable(cases, rows, o, gpu);
  if (gpu)
    printSummary(cases, rows, o);
  bool good = o.csv.empty() || writeCsv(o.csv, cases, rows, o);
#ifdef __CUDACC__
  for (Case &c : cases)
    for (void *p : c.owned)
      (void)cudaFree(p);
  if (stream)
    (void)cudaStreamDestroy(stream);
#endif
  for (const Row &r : rows)
    good = good && r.error.empty();
  return good ? 0 : 1;
}
