//===- DeviceApi.h - The GPU runtime calls of fp8q-step-run -----*- C++ -*-===//
//
// fp8q-step-run's device part is written against HIP's names. On NVIDIA
// (FP8Q_STEP_RUN_CUDA) they map to CUDA through kernels/cuda/hip_on_cuda.h;
// the few it does not map yet (streams, graphs) are mapped here, so the
// shared header stays the kernels' own. On AMD (FP8Q_STEP_RUN_HIP) the
// HIP runtime header is used as is.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_STEP_RUN_DEVICEAPI_H
#define FP8Q_STEP_RUN_DEVICEAPI_H

#if defined(FP8Q_STEP_RUN_CUDA)
#include "hip_on_cuda.h"
#ifndef hipStreamCreate
#define hipStreamCreate cudaStreamCreate
#endif
#ifndef hipStreamDestroy
#define hipStreamDestroy cudaStreamDestroy
#endif
#ifndef hipStreamBeginCapture
#define hipStreamBeginCapture cudaStreamBeginCapture
#define hipStreamEndCapture cudaStreamEndCapture
#define hipStreamCaptureModeGlobal cudaStreamCaptureModeGlobal
#endif
#ifndef hipGraphLaunch
typedef cudaGraph_t hipGraph_t;
typedef cudaGraphExec_t hipGraphExec_t;
#define hipGraphInstantiateWithFlags cudaGraphInstantiateWithFlags
#define hipGraphLaunch cudaGraphLaunch
#define hipGraphExecDestroy cudaGraphExecDestroy
#define hipGraphDestroy cudaGraphDestroy
#endif
#elif defined(FP8Q_STEP_RUN_HIP)
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>
#endif

#endif // FP8Q_STEP_RUN_DEVICEAPI_H
