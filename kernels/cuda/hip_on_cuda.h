//===- hip_on_cuda.h - The HIP runtime calls fp8q uses, on CUDA -*- C++ -*-===//
//
// ROCm's own HIP-on-NVIDIA headers do not compile with CUDA 13, so the nvcc
// build of the fp8q kernels, launchers and benchmarks maps the few HIP
// runtime names they use onto the CUDA runtime here. Nothing else.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_KERNELS_CUDA_HIP_ON_CUDA_H
#define FP8Q_KERNELS_CUDA_HIP_ON_CUDA_H

#include <cuda_runtime_api.h>

#define FP8Q_HIP_ON_CUDA 1

typedef cudaError_t hipError_t;
typedef cudaStream_t hipStream_t;
typedef cudaEvent_t hipEvent_t;
typedef cudaPointerAttributes hipPointerAttribute_t;
typedef cudaMemcpyKind hipMemcpyKind;

#define hipSuccess cudaSuccess
#define hipErrorNoDevice cudaErrorNoDevice
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice

#define hipGetDeviceCount cudaGetDeviceCount
#define hipSetDevice cudaSetDevice
#define hipGetDevice cudaGetDevice
#define hipGetErrorString cudaGetErrorString
#define hipGetLastError cudaGetLastError
#define hipMalloc cudaMalloc
#define hipFree cudaFree
#define hipMemcpy cudaMemcpy
#define hipMemcpyAsync cudaMemcpyAsync
#define hipMemset cudaMemset
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipStreamSynchronize cudaStreamSynchronize
#define hipEventCreate cudaEventCreate
#define hipEventDestroy cudaEventDestroy
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEventElapsedTime cudaEventElapsedTime
#define hipPointerGetAttributes cudaPointerGetAttributes
#define hipLaunchKernel cudaLaunchKernel

/// True when pointer attributes describe memory the GPU addresses directly.
#define FP8Q_HIP_IS_DEVICE_MEMORY(attr)                                        \
  ((attr).type == cudaMemoryTypeDevice || (attr).type == cudaMemoryTypeManaged)

#endif // FP8Q_KERNELS_CUDA_HIP_ON_CUDA_H
