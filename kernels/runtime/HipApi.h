//===- HipApi.h - The HIP runtime API, on AMD or through CUDA ---*- C++ -*-===//

#ifndef FP8Q_KERNELS_RUNTIME_HIPAPI_H
#define FP8Q_KERNELS_RUNTIME_HIPAPI_H

#if defined(__CUDACC__) || defined(FP8Q_USE_HIP_ON_CUDA)
#include "../cuda/hip_on_cuda.h"
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
   (attr).memoryType == hipMemoryTypeUnified)
#endif
#endif

#endif // FP8Q_KERNELS_RUNTIME_HIPAPI_H
