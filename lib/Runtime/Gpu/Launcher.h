//===- Launcher.h - Loading and launching the fp8q kernels ------*- C++ -*-===//
//
// The ABI implementations (GpuOps.cpp for HostAbi.cpp and DeviceAbi.cpp)
// launch kernels by id. Two
// back ends: LauncherModule.cpp loads the code object embedded for the
// device's architecture (AMD, hipModuleLaunchKernel) and LauncherCuda.cu
// compiles the same kernel sources with nvcc (cudaLaunchKernelExC on CUDA).
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_KERNELS_RUNTIME_LAUNCHER_H
#define FP8Q_KERNELS_RUNTIME_LAUNCHER_H

#include <stdint.h>
#include <string>

namespace fp8q::hiprt {

/// The kernels, in the order of kKernelNames.
enum class KernelId : int {
  QuantizeBf16,
  QuantizeF16,
  QuantizeF32,
  RmsBf16,
  RmsF16,
  RmsF32,
  AddRmsBf16,
  AddRmsF16,
  AddRmsF32,
  SiluMulBf16,
  SiluMulF16,
  SiluMulF32,
  Materialize,
  Preshuffle,
  Unpreshuffle,
  GemmPreshuffle,
  GemmPlain,
  GemmPortablePreshuffle,
  GemmPortablePlain,
  QuantizeV2Bf16,
  QuantizeV2F16,
  QuantizeV2F32,
  MaterializeV2,
  MaterializeV2Tiled, ///< fp8q_kernel_materialize_v2_tiled (aligned units)
  DecodeGemm8,        ///< fp8q_kernel_decode_gemm_m8 (NVIDIA only)
  DecodeGemm16,
  DecodeGemm32,
  DecodeGemm64,
  DecodeGemmPreshuffle8, ///< fp8q_kernel_decode_gemm_preshuffle_m8 (NVIDIA)
  DecodeGemmPreshuffle16,
  DecodeGemmPreshuffle32,
  DecodeGemmPreshuffle64,
  GemmV2, ///< fp8q_kernel_gemm_v2 (SPEC v2 formats, portable)
  /// fp8q_kernel_quantize_v2_words_<x>_<q> (QuantizeV2.hip), one per input
  /// type and element type: QuantizeV2WordsBf16E4M3FN + 4 * Act + qType
  /// (quantizeV2WordsKernel).
  QuantizeV2WordsBf16E4M3FN,
  QuantizeV2WordsBf16E4M3FNUZ,
  QuantizeV2WordsBf16E5M2,
  QuantizeV2WordsBf16E2M1,
  QuantizeV2WordsF16E4M3FN,
  QuantizeV2WordsF16E4M3FNUZ,
  QuantizeV2WordsF16E5M2,
  QuantizeV2WordsF16E2M1,
  GemmMxPortable, ///< fp8q_kernel_gemm_mx_portable (GemmMx.hip, every target)
  GemmMxfp8,      ///< fp8q_kernel_gemm_mxfp8 (scaled MFMA, gfx950 only)
  GemmMxfp4,      ///< fp8q_kernel_gemm_mxfp4 (scaled MFMA, gfx950 only)
  /// fp8q_kernel_decode_gemm_m8_b2 / _preshuffle_m8_b2: the 8-row decode
  /// GEMM cut for two resident blocks (NVIDIA only; decodeM8TwoBlocks).
  DecodeGemm8B2,
  DecodeGemmPreshuffle8B2,
  /// fp8q_kernel_quantize_v2_words_padded_<x>_<q>: the raw-word kernels for
  /// padded scales, in the order of QuantizeV2WordsBf16E4M3FN.
  QuantizeV2WordsPaddedBf16E4M3FN,
  QuantizeV2WordsPaddedBf16E4M3FNUZ,
  QuantizeV2WordsPaddedBf16E5M2,
  QuantizeV2WordsPaddedBf16E2M1,
  QuantizeV2WordsPaddedF16E4M3FN,
  QuantizeV2WordsPaddedF16E4M3FNUZ,
  QuantizeV2WordsPaddedF16E5M2,
  QuantizeV2WordsPaddedF16E2M1,
  Count
};

/// The raw-word quantize kernel for 16-bit input `act` (0 bf16, 1 f16),
/// element type `qType` (fp8q_q_type, 0..3) and a strided or padded scale.
inline KernelId quantizeV2WordsKernel(int act, int qType, bool padded) {
  return (KernelId)((int)(padded ? KernelId::QuantizeV2WordsPaddedBf16E4M3FN
                                 : KernelId::QuantizeV2WordsBf16E4M3FN) +
                    4 * act + qType);
}

/// Kernel symbol names (extern "C" in kernels/src).
extern const char *const kKernelNames[(int)KernelId::Count];

/// Kernels the AMD code objects do not have (the decode GEMM's 8-row
/// variants: AMD's m tile is 16 rows).
inline bool isNvidiaOnlyKernel(KernelId id) {
  return id == KernelId::DecodeGemm8 || id == KernelId::DecodeGemmPreshuffle8 ||
         id == KernelId::DecodeGemm8B2 ||
         id == KernelId::DecodeGemmPreshuffle8B2;
}

/// Kernels only gfx950's code object has (its scaled MFMA; GemmMx.hip).
inline bool isGfx950OnlyKernel(KernelId id) {
  return id == KernelId::GemmMxfp8 || id == KernelId::GemmMxfp4;
}

/// Grid or block extents.
struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

/// What the back end found: the device architecture ("gfx950", "sm_90"),
/// whether the MFMA GEMM kernels exist there, and the fp8 flavour their
/// matrix instructions read (fp8q_fp8_type); whether the decode GEMM
/// (kernels/src/DecodeGemm.hip) is routed for small M there, and with
/// NVIDIA's lane mapping (8-row m tiles) or AMD's (16-row); whether the
/// scaled-MFMA MX GEMM (GemmMx.hip, gfx950) exists there; its
/// multiprocessor (compute unit) count, which picks the decode GEMM's
/// 8-row variant (decodeM8TwoBlocks).
struct DeviceInfo {
  std::string arch;
  bool hasMfma = false;
  int mfmaFp8 = 0;
  bool decodeGemm = false;
  bool decodeNv = false;
  bool mxMfma = false;
  int sms = 0;
};

/// Initializes the device and loads the kernels once. On failure returns
/// false and sets `error` (e.g. "no HIP device").
bool initDevice(DeviceInfo &info, std::string &error);

/// Enqueues kernel `id` with kernel arguments `args` (pointers to each
/// argument) on `stream` (null: the legacy default stream) and returns
/// without waiting, so that device-mode steps stay stream-ordered and
/// capturable. On CUDA a launch on a non-null stream is programmatic (PDL:
/// the kernel may start while the one ahead of it ends, and waits for it
/// in its gridPrologue) unless FP8Q_PDL=0. Returns false and sets `error`
/// on failure.
bool launchAsync(KernelId id, Dim3 grid, Dim3 block, void **args, void *stream,
                 std::string &error);

/// With FP8Q_RT_TRACE_LAUNCHES=1 in the environment, prints one line per
/// enqueued kernel to stderr, "fp8q launch <symbol> grid X,Y,Z block X,Y,Z":
/// which kernel the runtime picked for an op (the H200 check counts the MX
/// GEMM's launches with it). Both launchAsync back ends call it.
void traceLaunch(KernelId id, Dim3 grid, Dim3 block);

} // namespace fp8q::hiprt

#endif // FP8Q_KERNELS_RUNTIME_LAUNCHER_H
