//===- GpuApi.h - The GPU runtime API, on AMD or on NVIDIA ------*- C++ -*-===//
//
// The GPU runtimes are written against HIP names. On AMD they are HIP's own;
// under nvcc they map onto the CUDA runtime (kernels/cuda/hip_on_cuda.h for
// the names the kernels and benchmarks share, the rest below). Module
// loading and launching differ in more than names (cudaLibrary_t against
// hipModule_t), so they are small inline functions in fp8q::gpu.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_RUNTIME_GPU_GPUAPI_H
#define FP8Q_RUNTIME_GPU_GPUAPI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__CUDACC__) || defined(FP8Q_USE_HIP_ON_CUDA)
#include "../../../kernels/cuda/hip_on_cuda.h"

#include <cuda_runtime_api.h>

typedef cudaStreamCaptureStatus hipStreamCaptureStatus;
#define hipErrorInvalidResourceHandle cudaErrorInvalidResourceHandle
#define hipErrorContextIsDestroyed cudaErrorContextIsDestroyed
#define hipErrorNotReady cudaErrorNotReady
#define hipErrorNoBinaryForGpu cudaErrorNoKernelImageForDevice
#define hipStreamCaptureStatusNone cudaStreamCaptureStatusNone
#define hipStreamCaptureStatusActive cudaStreamCaptureStatusActive
#define hipErrorDeinitialized cudaErrorCudartUnloading
#define hipStreamNonBlocking cudaStreamNonBlocking
#define hipEventDisableTiming cudaEventDisableTiming
#define hipMemcpyDefault cudaMemcpyDefault
#define hipMemAttachGlobal cudaMemAttachGlobal
#define hipStreamQuery cudaStreamQuery
#define hipStreamIsCapturing cudaStreamIsCapturing
#define hipStreamCreateWithFlags cudaStreamCreateWithFlags
#define hipStreamDestroy cudaStreamDestroy
#define hipStreamWaitEvent cudaStreamWaitEvent
#define hipEventCreateWithFlags cudaEventCreateWithFlags
#define hipMallocAsync cudaMallocAsync
#define hipFreeAsync cudaFreeAsync
#define hipMallocManaged cudaMallocManaged
#define FP8Q_GPU_BACKEND "cuda"
#else
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>
/// True when pointer attributes describe memory the GPU addresses directly.
#if HIP_VERSION_MAJOR >= 6
#define FP8Q_HIP_IS_DEVICE_MEMORY(attr)                                        \
  ((attr).type == hipMemoryTypeDevice ||                                       \
   (attr).type == hipMemoryTypeManaged || (attr).type == hipMemoryTypeUnified)
#else
#define FP8Q_HIP_IS_DEVICE_MEMORY(attr)                                        \
  ((attr).memoryType == hipMemoryTypeDevice ||                                 \
   (attr).memoryType == hipMemoryTypeUnified || (attr).isManaged)
#endif
#define FP8Q_GPU_BACKEND "hip"
#endif

namespace fp8q::gpu {

/// True when the environment sets `name` to exactly "0": how the runtime's
/// A/B switches (FP8Q_PDL, FP8Q_DECODE_GEMM) are turned off.
inline bool envSwitchedOff(const char *name) {
  const char *v = getenv(name);
  return v && v[0] == '0' && v[1] == 0;
}

/// Loads a code object (fatbin/cubin/PTX on CUDA, hsaco on AMD). A
/// `jitOptLevel` >= 0 asks the PTX JIT for that optimization level (CUDA).
inline hipError_t moduleLoad(void **module, const void *data, int jitOptLevel) {
#ifdef FP8Q_HIP_ON_CUDA
  cudaLibrary_t lib = nullptr;
  cudaJitOption opt = cudaJitOptimizationLevel;
  void *val = (void *)(uintptr_t)(jitOptLevel < 0 ? 0 : jitOptLevel);
  cudaError_t e =
      cudaLibraryLoadData(&lib, data, jitOptLevel < 0 ? nullptr : &opt,
                          jitOptLevel < 0 ? nullptr : &val,
                          jitOptLevel < 0 ? 0 : 1, nullptr, nullptr, 0);
  // Libraries load lazily: resolving one kernel makes a missing image for
  // this device an error here, not at the first launch.
  unsigned count = 0;
  if (e == cudaSuccess &&
      cudaLibraryGetKernelCount(&count, lib) == cudaSuccess && count > 0) {
    cudaKernel_t k = nullptr;
    cudaFuncAttributes attr;
    if ((e = cudaLibraryEnumerateKernels(&k, 1, lib)) == cudaSuccess)
      e = cudaFuncGetAttributes(&attr, (const void *)k);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      (void)cudaLibraryUnload(lib);
      lib = nullptr;
    }
  }
  *module = lib;
  return e;
#else
  (void)jitOptLevel;
  hipModule_t m = nullptr;
  hipError_t e = hipModuleLoadData(&m, data);
  *module = m;
  return e;
#endif
}

inline hipError_t moduleUnload(void *module) {
#ifdef FP8Q_HIP_ON_CUDA
  return cudaLibraryUnload((cudaLibrary_t)module);
#else
  return hipModuleUnload((hipModule_t)module);
#endif
}

inline hipError_t moduleGetFunction(void **fn, void *module, const char *name) {
#ifdef FP8Q_HIP_ON_CUDA
  cudaKernel_t k = nullptr;
  cudaError_t e = cudaLibraryGetKernel(&k, (cudaLibrary_t)module, name);
  *fn = (void *)k;
  return e;
#else
  hipFunction_t f = nullptr;
  hipError_t e = hipModuleGetFunction(&f, (hipModule_t)module, name);
  *fn = (void *)f;
  return e;
#endif
}

/// Launches a function returned by moduleGetFunction on `stream`.
inline hipError_t launchFunction(void *fn, unsigned gx, unsigned gy,
                                 unsigned gz, unsigned bx, unsigned by,
                                 unsigned bz, unsigned smem, hipStream_t stream,
                                 void **params, void **extra) {
#ifdef FP8Q_HIP_ON_CUDA
  if (extra)
    return cudaErrorNotSupported; // gpu-to-llvm passes parameters, not extra
  // cudaLaunchKernel takes a cudaKernel_t cast to a function pointer.
  return cudaLaunchKernel((const void *)fn, dim3(gx, gy, gz), dim3(bx, by, bz),
                          params, smem, stream);
#else
  return hipModuleLaunchKernel((hipFunction_t)fn, gx, gy, gz, bx, by, bz, smem,
                               stream, params, extra);
#endif
}

/// The device's architecture as the compiler names it ("sm_90", "gfx950").
inline const char *deviceArch(char *buf, size_t n) {
  int dev = 0;
  buf[0] = 0;
  if (hipGetDevice(&dev) != hipSuccess) {
    (void)hipGetLastError();
    snprintf(buf, n, "unknown (no device)");
    return buf;
  }
#ifdef FP8Q_HIP_ON_CUDA
  int major = 0, minor = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
  snprintf(buf, n, "sm_%d%d", major, minor);
#else
  hipDeviceProp_t prop;
  if (hipGetDeviceProperties(&prop, dev) == hipSuccess) {
    snprintf(buf, n, "%s", prop.gcnArchName);
    if (char *colon = strchr(buf, ':'))
      *colon = 0;
  }
#endif
  return buf;
}

} // namespace fp8q::gpu

#endif // FP8Q_RUNTIME_GPU_GPUAPI_H
