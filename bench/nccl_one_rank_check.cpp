//===- nccl_one_rank_check.cpp - The device collectives on one GPU --------===//
//
// Runs the device collectives of libfp8q_runtime_cuda.so on one GPU and
// checks their bytes: all_gather (elem_bytes 1 and 4) and
// reduce_scatter_bf16 with ranks == 1, eagerly and replayed from a CUDA
// graph, first without a communicator (the runtime's device-to-device
// copy), then on a one-rank NCCL communicator (fp8q_rt_device_comm_init(1,
// 0, nullptr): ncclAllGather / ncclReduceScatter), then the refusals that
// need a device (ranks that differ from the communicator's). Prints one
// line per check (PASS / FAIL) and the NCCL version; the exit status is the
// number of failures. Built and run by bench/nccl_one_rank_h200.sh:
//   nvcc -std=c++17 -Iinclude -x cu bench/nccl_one_rank_check.cpp
//     -L$OUT -lfp8q_runtime_cuda -Xlinker -rpath=$OUT
//
//===----------------------------------------------------------------------===//

#include "fp8q/Runtime/fp8q_runtime.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

int failures = 0;

void report(bool ok, const std::string &name, const std::string &detail) {
  printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", name.c_str(),
         detail.empty() ? "" : ": ", detail.c_str());
  fflush(stdout);
  if (!ok)
    ++failures;
}

/// A failed CUDA call: the check fails with its text.
#define CUDA_OR_FAIL(call)                                                     \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      report(false, name, std::string(#call) + ": " + cudaGetErrorString(e_)); \
      return;                                                                  \
    }                                                                          \
  } while (0)

fp8q_memref_2d dense(void *p, int64_t rows, int64_t cols) {
  return fp8q_memref_2d{p, p, 0, {rows, cols}, {cols, 1}};
}

/// Input bytes: distinct patterns; bf16 inputs are finite normal numbers
/// of both signs (a sum over one rank is then the value itself whatever
/// the library's reduction arithmetic).
std::vector<uint8_t> pattern(int64_t n, int64_t elemBytes, bool bf16) {
  std::vector<uint8_t> b(size_t(n * elemBytes));
  for (int64_t i = 0; i < n; ++i) {
    uint32_t v = uint32_t(i) * 2654435761u ^ 0x9e3779b9u;
    if (bf16)
      v = (0x0080u + (uint32_t(i) * 37u) % 0x7e00u) | (i & 1 ? 0x8000u : 0u);
    memcpy(&b[size_t(i * elemBytes)], &v, size_t(elemBytes));
  }
  return b;
}

/// One collective of x [rows, cols] (ranks == 1: out is x's shape), eager
/// or captured once into a graph and replayed; out is filled with 0xA5
/// first and must equal x byte for byte afterwards.
void check(const std::string &name, bool allGather, int64_t rows, int64_t cols,
           int64_t elemBytes, bool graph, cudaStream_t s) {
  const int64_t bytes = rows * cols * elemBytes;
  std::vector<uint8_t> host = pattern(rows * cols, elemBytes, !allGather);
  std::vector<uint8_t> back(size_t(bytes), 0);
  void *x = nullptr, *out = nullptr;
  CUDA_OR_FAIL(cudaMalloc(&x, size_t(bytes)));
  CUDA_OR_FAIL(cudaMalloc(&out, size_t(bytes)));
  CUDA_OR_FAIL(cudaMemcpy(x, host.data(), size_t(bytes), cudaMemcpyDefault));
  CUDA_OR_FAIL(cudaMemsetAsync(out, 0xA5, size_t(bytes), s));
  fp8q_memref_2d xd = dense(x, rows, cols), od = dense(out, rows, cols);
  auto call = [&] {
    return allGather ? _mlir_ciface_fp8q_rt_device_all_gather(&xd, &od,
                                                              elemBytes, 1, s)
                     : _mlir_ciface_fp8q_rt_device_reduce_scatter_bf16(&xd, &od,
                                                                       1, s);
  };
  int32_t st = FP8Q_OK;
  cudaGraph_t g = nullptr;
  cudaGraphExec_t exec = nullptr;
  if (graph) {
    CUDA_OR_FAIL(cudaStreamSynchronize(s));
    CUDA_OR_FAIL(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    st = call();
    cudaError_t e = cudaStreamEndCapture(s, &g);
    if (st == FP8Q_OK) {
      CUDA_OR_FAIL(e);
      CUDA_OR_FAIL(cudaGraphInstantiate(&exec, g, 0));
      CUDA_OR_FAIL(cudaGraphLaunch(exec, s));
      // Replayed a second time over a fresh sentinel: the graph, not the
      // capture, wrote the bytes.
      CUDA_OR_FAIL(cudaStreamSynchronize(s));
      CUDA_OR_FAIL(cudaMemsetAsync(out, 0xA5, size_t(bytes), s));
      CUDA_OR_FAIL(cudaGraphLaunch(exec, s));
    }
  } else {
    st = call();
  }
  if (st != FP8Q_OK) {
    report(false, name,
           "status " + std::to_string(st) + ": " + fp8q_device_last_error());
    fp8q_device_clear_error();
  } else {
    CUDA_OR_FAIL(cudaStreamSynchronize(s));
    CUDA_OR_FAIL(
        cudaMemcpy(back.data(), out, size_t(bytes), cudaMemcpyDefault));
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < bytes; ++i)
      if (back[size_t(i)] != host[size_t(i)] && bad++ == 0)
        first = i;
    report(bad == 0, name,
           bad == 0
               ? std::to_string(bytes) + " bytes equal"
               : std::to_string(bad) + " of " + std::to_string(bytes) +
                     " bytes differ, the first at " + std::to_string(first));
  }
  if (exec)
    cudaGraphExecDestroy(exec);
  if (g)
    cudaGraphDestroy(g);
  cudaFree(x);
  cudaFree(out);
}

void checkAll(const char *mode, cudaStream_t s) {
  for (bool graph : {false, true}) {
    std::string suffix = std::string(" (") + mode + (graph ? ", graph)" : ")");
    check("all_gather elem_bytes=1 [5, 300]" + suffix, true, 5, 300, 1, graph,
          s);
    check("all_gather elem_bytes=4 [7, 33]" + suffix, true, 7, 33, 4, graph, s);
    check("all_gather elem_bytes=2 [16, 512]" + suffix, true, 16, 512, 2, graph,
          s);
    check("reduce_scatter_bf16 [6, 128]" + suffix, false, 6, 128, 2, graph, s);
  }
}

/// A call that must be refused with `status` and `what` in the message.
void expectRefused(const std::string &name, int32_t got, int32_t status,
                   const char *what) {
  std::string e = fp8q_device_last_error();
  report(got == status && e.find(what) != std::string::npos, name,
         "status " + std::to_string(got) + ": " + e);
  fp8q_device_clear_error();
}

} // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    printf("FAIL no CUDA device\n");
    return 1;
  }
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  printf("device: %s (sm_%d%d)\n", prop.name, prop.major, prop.minor);
  const char *lib = getenv("FP8Q_NCCL_LIBRARY");
  printf("FP8Q_NCCL_LIBRARY=%s\n", lib ? lib : "(unset: libnccl.so.2)");
  cudaStream_t s = nullptr;
  if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) {
    printf("FAIL cudaStreamCreateWithFlags\n");
    return 1;
  }

  // Without a communicator: ranks == 1 is a device-to-device copy.
  checkAll("no communicator, copy", s);
  {
    void *x = nullptr, *out = nullptr;
    cudaMalloc(&x, 4 * 64);
    cudaMalloc(&out, 8 * 64);
    fp8q_memref_2d xd = dense(x, 4, 64), od = dense(out, 8, 64);
    expectRefused("ranks=2 without a communicator is refused",
                  _mlir_ciface_fp8q_rt_device_all_gather(&xd, &od, 1, 2, s),
                  FP8Q_ERR_DEVICE, "call fp8q_rt_device_comm_init");
    cudaFree(x);
    cudaFree(out);
  }

  const int32_t version = fp8q_rt_device_comm_nccl_version();
  printf("NCCL version: %d (ncclGetVersion of the loaded library)\n", version);
  report(version > 0, "fp8q_rt_device_comm_nccl_version",
         version > 0 ? "" : fp8q_device_last_error());
  if (version <= 0) {
    printf("summary: %d failure(s) (no NCCL library: set FP8Q_NCCL_LIBRARY)\n",
           failures);
    return failures;
  }

  int32_t st = fp8q_rt_device_comm_init(1, 0, nullptr);
  report(st == FP8Q_OK, "fp8q_rt_device_comm_init(1, 0, null)",
         st == FP8Q_OK ? "" : fp8q_device_last_error());
  if (st != FP8Q_OK) {
    fp8q_device_clear_error();
  } else {
    checkAll("NCCL, 1 rank", s);
    expectRefused("comm_init twice is refused",
                  fp8q_rt_device_comm_init(1, 0, nullptr), FP8Q_ERR_ARG,
                  "already set");
    void *x = nullptr, *out = nullptr;
    cudaMalloc(&x, 4 * 64);
    cudaMalloc(&out, 8 * 64);
    fp8q_memref_2d xd = dense(x, 4, 64), od = dense(out, 8, 64);
    expectRefused("ranks=2 on a 1-rank communicator is refused",
                  _mlir_ciface_fp8q_rt_device_all_gather(&xd, &od, 1, 2, s),
                  FP8Q_ERR_ARG, "but the communicator has 1 ranks");
    // A col_major scale is refused before any device work.
    fp8q_memref_2d colMajor{x, x, 0, {4, 16}, {1, 4}};
    fp8q_memref_2d od2 = dense(out, 4, 16);
    expectRefused(
        "a col_major operand is refused",
        _mlir_ciface_fp8q_rt_device_all_gather(&colMajor, &od2, 4, 1, s),
        FP8Q_ERR_LAYOUT, "must be dense row-major");
    cudaFree(x);
    cudaFree(out);
    st = fp8q_rt_device_comm_destroy();
    report(st == FP8Q_OK, "fp8q_rt_device_comm_destroy",
           st == FP8Q_OK ? "" : fp8q_device_last_error());
    // Back to the copy path.
    check("all_gather elem_bytes=4 [3, 9] (after comm_destroy)", true, 3, 9, 4,
          false, s);
  }
  char id[128];
  st = fp8q_rt_device_comm_unique_id(id);
  report(st == FP8Q_OK, "fp8q_rt_device_comm_unique_id",
         st == FP8Q_OK ? "" : fp8q_device_last_error());
  fp8q_device_clear_error();
  cudaStreamDestroy(s);
  printf("summary: %d failure(s), NCCL %d\n", failures, version);
  return failures;
}
