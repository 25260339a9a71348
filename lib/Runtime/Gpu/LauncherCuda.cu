//===- LauncherCuda.cu - The same kernels, compiled by nvcc ---------------===//
//
// For NVIDIA GPUs (sm_90): the kernel sources are compiled into this
// translation unit and launched with cudaLaunchKernelExC, programmatically
// on non-null streams (launchAsync). The MFMA GEMM kernels do not exist
// there; the portable GEMM runs instead.
//
//===----------------------------------------------------------------------===//

#include "GpuApi.h"
#include "Launcher.h"

#include "../../../kernels/src/Fp8qKernels.hip"

#include <mutex>

namespace fp8q::hiprt {

namespace {

const void *kernelFunction(KernelId id) {
  switch (id) {
  case KernelId::QuantizeBf16:
    return (const void *)fp8q_kernel_quantize_bf16;
  case KernelId::QuantizeF16:
    return (const void *)fp8q_kernel_quantize_f16;
  case KernelId::QuantizeF32:
    return (const void *)fp8q_kernel_quantize_f32;
  case KernelId::RmsBf16:
    return (const void *)fp8q_kernel_rms_norm_quantize_bf16;
  case KernelId::RmsF16:
    return (const void *)fp8q_kernel_rms_norm_quantize_f16;
  case KernelId::RmsF32:
    return (const void *)fp8q_kernel_rms_norm_quantize_f32;
  case KernelId::AddRmsBf16:
    return (const void *)fp8q_kernel_add_rms_norm_quantize_bf16;
  case KernelId::AddRmsF16:
    return (const void *)fp8q_kernel_add_rms_norm_quantize_f16;
  case KernelId::AddRmsF32:
    return (const void *)fp8q_kernel_add_rms_norm_quantize_f32;
  case KernelId::SiluMulBf16:
    return (const void *)fp8q_kernel_silu_mul_quantize_bf16;
  case KernelId::SiluMulF16:
    return (const void *)fp8q_kernel_silu_mul_quantize_f16;
  case KernelId::SiluMulF32:
    return (const void *)fp8q_kernel_silu_mul_quantize_f32;
  case KernelId::Materialize:
    return (const void *)fp8q_kernel_materialize;
  case KernelId::Preshuffle:
    return (const void *)fp8q_kernel_preshuffle;
  case KernelId::Unpreshuffle:
    return (const void *)fp8q_kernel_unpreshuffle;
  case KernelId::GemmPortablePreshuffle:
    return (const void *)fp8q_kernel_gemm_portable_preshuffle;
  case KernelId::GemmPortablePlain:
    return (const void *)fp8q_kernel_gemm_portable_plain;
  case KernelId::QuantizeV2Bf16:
    return (const void *)fp8q_kernel_quantize_v2_bf16;
  case KernelId::QuantizeV2F16:
    return (const void *)fp8q_kernel_quantize_v2_f16;
  case KernelId::QuantizeV2F32:
    return (const void *)fp8q_kernel_quantize_v2_f32;
  case KernelId::MaterializeV2:
    return (const void *)fp8q_kernel_materialize_v2;
  case KernelId::MaterializeV2Tiled:
    return (const void *)fp8q_kernel_materialize_v2_tiled;
  case KernelId::DecodeGemm8:
    return (const void *)fp8q_kernel_decode_gemm_m8;
  case KernelId::DecodeGemm16:
    return (const void *)fp8q_kernel_decode_gemm_m16;
  case KernelId::DecodeGemm32:
    return (const void *)fp8q_kernel_decode_gemm_m32;
  case KernelId::DecodeGemm64:
    return (const void *)fp8q_kernel_decode_gemm_m64;
  case KernelId::DecodeGemmPreshuffle8:
    return (const void *)fp8q_kernel_decode_gemm_preshuffle_m8;
  case KernelId::DecodeGemmPreshuffle16:
    return (const void *)fp8q_kernel_decode_gemm_preshuffle_m16;
  case KernelId::DecodeGemmPreshuffle32:
    return (const void *)fp8q_kernel_decode_gemm_preshuffle_m32;
  case KernelId::DecodeGemmPreshuffle64:
    return (const void *)fp8q_kernel_decode_gemm_preshuffle_m64;
  case KernelId::GemmV2:
    return (const void *)fp8q_kernel_gemm_v2;
  case KernelId::QuantizeV2WordsBf16E4M3FN:
    return (const void *)fp8q_kernel_quantize_v2_words_bf16_e4m3fn;
  case KernelId::QuantizeV2WordsBf16E4M3FNUZ:
    return (const void *)fp8q_kernel_quantize_v2_words_bf16_e4m3fnuz;
  case KernelId::QuantizeV2WordsBf16E5M2:
    return (const void *)fp8q_kernel_quantize_v2_words_bf16_e5m2;
  case KernelId::QuantizeV2WordsBf16E2M1:
    return (const void *)fp8q_kernel_quantize_v2_words_bf16_e2m1;
  case KernelId::QuantizeV2WordsF16E4M3FN:
    return (const void *)fp8q_kernel_quantize_v2_words_f16_e4m3fn;
  case KernelId::QuantizeV2WordsF16E4M3FNUZ:
    return (const void *)fp8q_kernel_quantize_v2_words_f16_e4m3fnuz;
  case KernelId::QuantizeV2WordsF16E5M2:
    return (const void *)fp8q_kernel_quantize_v2_words_f16_e5m2;
  case KernelId::QuantizeV2WordsF16E2M1:
    return (const void *)fp8q_kernel_quantize_v2_words_f16_e2m1;
  case KernelId::GemmMxPortable:
    return (const void *)fp8q_kernel_gemm_mx_portable;
  case KernelId::QuantizeV2WordsPaddedBf16E4M3FN:
    return (const void *)fp8q_kernel_quantize_v2_words_padded_bf16_e4m3fn;
  case KernelId::QuantizeV2WordsPaddedBf16E4M3FNUZ:
    return (const void *)fp8q_kernel_quantize_v2_words_padded_bf16_e4m3fnuz;
  case KernelId::QuantizeV2WordsPaddedBf16E5M2:
    return (const void *)fp8q_kernel_quantize_v2_words_padded_bf16_e5m2;
  case KernelId::QuantizeV2WordsPaddedBf16E2M1:
    return (const void *)fp8q_kernel_quantize_v2_words_padded_bf16_e2m1;
  case KernelId::QuantizeV2WordsPaddedF16E4M3FN:
    return (const void *)fp8q_kernel_quantize_v2_words_padded_f16_e4m3fn;
  case KernelId::QuantizeV2WordsPaddedF16E4M3FNUZ:
    return (const void *)fp8q_kernel_quantize_v2_words_padded_f16_e4m3fnuz;
  case KernelId::QuantizeV2WordsPaddedF16E5M2:
    return (const void *)fp8q_kernel_quantize_v2_words_padded_f16_e5m2;
  case KernelId::QuantizeV2WordsPaddedF16E2M1:
    return (const void *)fp8q_kernel_quantize_v2_words_padded_f16_e2m1;
  case KernelId::DecodeGemm8B2:
    return (const void *)fp8q_kernel_decode_gemm_m8_b2;
  case KernelId::DecodeGemmPreshuffle8B2:
    return (const void *)fp8q_kernel_decode_gemm_preshuffle_m8_b2;
  default: // the MFMA kernels (gfx950's code object only)
    return nullptr;
  }
}

} // namespace

bool initDevice(DeviceInfo &info, std::string &error) {
  static std::string initError;
  static int sms = 0;
  static std::once_flag once;
  std::call_once(once, [] {
    int count = 0;
    hipError_t e = hipGetDeviceCount(&count);
    if (e != hipSuccess || count == 0)
      initError = std::string("no HIP device (CUDA: ") +
                  (e == hipSuccess ? "0 devices" : hipGetErrorString(e)) + ")";
    else if ((e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
                                         0)) != cudaSuccess)
      initError = std::string("cudaDeviceGetAttribute: ") +
                  cudaGetErrorString(e);
  });
  if (!initError.empty()) {
    error = initError;
    return false;
  }
  info.arch = "sm_90";
  info.hasMfma = false;
  info.mfmaFp8 = 0;
  // Built for sm_90 only (CMAKE_CUDA_ARCHITECTURES): the FP8 mma.sync of
  // the decode GEMM exists there.
  info.decodeGemm = true;
  info.decodeNv = true;
  info.sms = sms;
  return true;
}

/// FP8Q_PDL=0 turns programmatic launches off (for A/B runs).
static bool programmaticLaunches() {
  static const bool on = !fp8q::gpu::envSwitchedOff("FP8Q_PDL");
  return on;
}

bool launchAsync(KernelId id, Dim3 grid, Dim3 block, void **args, void *stream,
                 std::string &error) {
  const void *f = kernelFunction(id);
  if (!f) {
    error = std::string(kKernelNames[(int)id]) + " does not exist on CUDA";
    return false;
  }
  // Every fp8q kernel starts with gridPrologue (Portability.h), so each may
  // be launched programmatically: it starts while the kernel ahead of it in
  // the stream (or graph) finishes and waits for it before any access.
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(grid.x, grid.y, grid.z);
  cfg.blockDim = dim3(block.x, block.y, block.z);
  cfg.stream = (cudaStream_t)stream;
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  if (stream && programmaticLaunches()) {
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
  }
  cudaError_t e = cudaLaunchKernelExC(&cfg, f, args);
  if (e != cudaSuccess) {
    error = std::string(kKernelNames[(int)id]) + ": " + cudaGetErrorString(e);
    return false;
  }
  traceLaunch(id, grid, block);
  return true;
}

} // namespace fp8q::hiprt
