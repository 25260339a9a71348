//===- Portability.h - One spelling of the device primitives ---*- C++ -*-===//
//
// The kernel sources compile four ways: clang-22 HIP for gfx950/gfx942 with
// -nogpuinc -nogpulib (no ROCm headers at all), clang HIP with the ROCm
// headers, nvcc for sm_90 (through kernels/cuda/hip_on_cuda.h) and plain host
// C++ (the index math and the wave64 CPU model). This header gives the few
// primitives the kernels use one name in every mode.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_KERNELS_PORTABILITY_H
#define FP8Q_KERNELS_PORTABILITY_H

#include <stdint.h>
#if !defined(__HIP_DEVICE_COMPILE__) && !defined(__CUDA_ARCH__)
#include <string.h>
#endif

#if defined(__HIP__) && !defined(__host__)
// -nogpuinc: the attributes the HIP wrapper headers would have defined.
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#endif

/// Launch bounds: `threads` per block everywhere; on NVIDIA also at least
/// `minBlocks` resident blocks per SM (caps registers for the streaming
/// kernels, whose bandwidth needs many loads in flight). AMD occupancy is
/// checked from the code object's metadata (test/Kernels/resources.test).
#if defined(__CUDACC__)
#define FP8Q_LAUNCH_BOUNDS(threads, minBlocks)                                 \
  __launch_bounds__(threads, minBlocks)
#elif defined(__HIP__)
#define FP8Q_LAUNCH_BOUNDS(threads, minBlocks)                                 \
  __attribute__((amdgpu_flat_work_group_size(1, threads)))
#endif

#if defined(__HIP__) || defined(__CUDACC__)
#define FP8Q_HOSTDEV __host__ __device__
#define FP8Q_DEV __device__
#define FP8Q_GPU 1
#else
#define FP8Q_HOSTDEV
#define FP8Q_DEV
#endif

/// Full unrolling of a constant-trip loop in device code (register arrays
/// indexed by the loop variable stay in registers); nothing on the host.
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define FP8Q_UNROLL _Pragma("unroll")
#else
#define FP8Q_UNROLL
#endif

/// True while compiling device code for an AMD GPU.
#if defined(__HIP_DEVICE_COMPILE__) && defined(__AMDGCN__)
#define FP8Q_AMDGCN 1
#endif
/// True while compiling device code for an NVIDIA GPU.
#if defined(__CUDA_ARCH__)
#define FP8Q_NVPTX 1
#endif
/// 1: the quantize kernels' loads and stores are evict-first on NVIDIA.
/// Off: on H200 it only helps when the input half-fits in L2 (M = 4096) and
/// costs when it fits (M = 1024), and q is read by the GEMM next.
#ifndef FP8Q_NV_STREAM
#define FP8Q_NV_STREAM 0
#endif

namespace fp8q::kern {

/// Threads of a wave: 64 on gfx9 (wave64), 32 on NVIDIA.
#if defined(FP8Q_NVPTX)
constexpr int kWaveSize = 32;
#else
constexpr int kWaveSize = 64;
#endif

/// Bit casts usable in every mode.
FP8Q_HOSTDEV inline uint32_t floatBits(float f) {
#if defined(FP8Q_NVPTX)
  return __float_as_uint(f);
#elif defined(__clang__)
  return __builtin_bit_cast(uint32_t, f);
#else
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
#endif
}
FP8Q_HOSTDEV inline float bitsFloat(uint32_t u) {
#if defined(FP8Q_NVPTX)
  return __uint_as_float(u);
#elif defined(__clang__)
  return __builtin_bit_cast(float, u);
#else
  float f;
  memcpy(&f, &u, 4);
  return f;
#endif
}

FP8Q_HOSTDEV inline float absf(float x) {
#if defined(FP8Q_NVPTX)
  return fabsf(x);
#else
  return __builtin_fabsf(x);
#endif
}
/// a * b rounded once, never contracted into a neighbouring add (the
/// CPU runtime rounds each step).
FP8Q_HOSTDEV inline float mulRn(float a, float b) {
#if defined(FP8Q_NVPTX)
  return __fmul_rn(a, b);
#elif defined(__clang__)
#pragma clang fp contract(off)
  return a * b;
#else // GCC, host only: a * b - 0 is a * b (-0 too), and no further add
  return __builtin_fmaf(a, b, -0.0f);
#endif
}
/// a + b rounded once, never contracted with a product.
FP8Q_HOSTDEV inline float addRn(float a, float b) {
#if defined(FP8Q_NVPTX)
  return __fadd_rn(a, b);
#elif defined(__clang__)
#pragma clang fp contract(off)
  return a + b;
#else // GCC, host only
  volatile float s = a + b;
  return s;
#endif
}
/// a * b + c rounded once (IEEE fma on every target).
FP8Q_HOSTDEV inline float fmaRn(float a, float b, float c) {
#if defined(FP8Q_NVPTX)
  return __fmaf_rn(a, b, c);
#else
  return __builtin_fmaf(a, b, c);
#endif
}
/// max that ignores neither operand's sign of zero; NaN-free inputs assumed.
FP8Q_HOSTDEV inline float maxf(float a, float b) { return a > b ? a : b; }
/// max(a, b) that returns the other operand when one is NaN (IEEE maxNum;
/// one instruction on both GPUs): the amax skips NaN like the CPU runtime.
FP8Q_HOSTDEV inline float maxNum(float a, float b) {
#if defined(FP8Q_NVPTX)
  return fmaxf(a, b);
#elif defined(__clang__)
  return __builtin_fmaxf(a, b);
#else
  return b != b || a > b ? a : b;
#endif
}
/// Unsigned max of the two 16-bit halves of a and b, half by half (one
/// instruction on sm_90 and gfx9: max of 16-bit magnitudes two at a time).
FP8Q_HOSTDEV inline uint32_t maxU16x2(uint32_t a, uint32_t b) {
#if defined(FP8Q_NVPTX)
  return __vmaxu2(a, b);
#elif defined(FP8Q_AMDGCN)
  typedef unsigned short U16x2 __attribute__((ext_vector_type(2)));
  return __builtin_bit_cast(
      uint32_t, __builtin_elementwise_max(__builtin_bit_cast(U16x2, a),
                                          __builtin_bit_cast(U16x2, b)));
#else
  const uint32_t lo = (a & 0xffffu) > (b & 0xffffu) ? a & 0xffffu : b & 0xffffu;
  const uint32_t hi = (a >> 16) > (b >> 16) ? a >> 16 : b >> 16;
  return lo | hi << 16;
#endif
}
FP8Q_HOSTDEV inline float minf(float a, float b) { return a < b ? a : b; }
/// Correctly rounded square root (IEEE in every mode we build).
FP8Q_HOSTDEV inline float sqrtF(float x) {
#if defined(FP8Q_NVPTX)
  return __fsqrt_rn(x);
#else
  return __builtin_sqrtf(x);
#endif
}
/// exp(x) with the full-accuracy library / backend expansion, never the
/// hardware approximation (CUDA expf, max 2 ulp; AMDGPU's llvm.exp.f32
/// lowering without afn, about 1 ulp; libm expf on the host).
FP8Q_HOSTDEV inline float expF(float x) {
#if defined(FP8Q_NVPTX)
  return expf(x);
#else
  return __builtin_expf(x);
#endif
}
/// Round to nearest integer, ties to even (the default FP rounding mode).
FP8Q_HOSTDEV inline float rintF(float x) {
#if defined(FP8Q_NVPTX)
  return rintf(x);
#else
  return __builtin_rintf(x);
#endif
}

#if defined(FP8Q_GPU)
/// Thread index in the (1-D) block.
__device__ inline int threadId() {
#if defined(FP8Q_AMDGCN)
  return __builtin_amdgcn_workitem_id_x();
#else
  return threadIdx.x;
#endif
}
/// The calling thread's wave (threadId() / `lanes`, the wave size), marked
/// wave-uniform: on AMD the compiler then keeps it and what derives from it
/// in scalar registers and branches on it without exec masks (it cannot
/// prove a thread-id quotient uniform); elsewhere the plain quotient.
__device__ inline int waveIndex(int lanes) {
#if defined(FP8Q_AMDGCN)
  return __builtin_amdgcn_readfirstlane(threadId() / lanes);
#else
  return threadId() / lanes;
#endif
}
/// Block index along x and y.
__device__ inline int64_t blockIdX() {
#if defined(FP8Q_AMDGCN)
  return __builtin_amdgcn_workgroup_id_x();
#else
  return blockIdx.x;
#endif
}
__device__ inline int64_t blockIdY() {
#if defined(FP8Q_AMDGCN)
  return __builtin_amdgcn_workgroup_id_y();
#else
  return blockIdx.y;
#endif
}
/// Workgroup barrier with LDS visibility.
__device__ inline void barrier() {
#if defined(FP8Q_AMDGCN)
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
#elif defined(FP8Q_NVPTX)
  __syncthreads();
#endif
}
/// Value of `v` in lane (lane ^ mask) of the same wave.
__device__ inline float shflXor(float v, int mask) {
#if defined(FP8Q_AMDGCN)
  int lane = __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
  return bitsFloat(
      __builtin_amdgcn_ds_bpermute((lane ^ mask) << 2, (int)floatBits(v)));
#elif defined(FP8Q_NVPTX)
  return __shfl_xor_sync(0xffffffffu, v, mask);
#else
  return v;
#endif
}
/// shflXor for 32-bit integers.
__device__ inline uint32_t shflXor(uint32_t v, int mask) {
  return floatBits(shflXor(bitsFloat(v), mask));
}
/// Programmatic dependent launch (PTX griddepcontrol, sm_90+). A kernel
/// launched behind another with the programmatic-serialization attribute
/// may start before that grid ends: it must call waitForPriorGrid before it
/// reads anything the prior grid writes, or writes anything the prior grid
/// reads or writes. The wait returns at once for an ordinary launch; both
/// compile to nothing on AMD (no such launch there) and before sm_90.
__device__ inline void waitForPriorGrid() {
#if defined(FP8Q_NVPTX) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
/// Lets the grid launched behind this one start once every block of this
/// one has called it or ended (it then runs up to its waitForPriorGrid).
__device__ inline void releaseDependentGrid() {
#if defined(FP8Q_NVPTX) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
/// First statement of every fp8q kernel: lets the next grid launch, then
/// waits for the prior one, so that a programmatic launch (the CUDA
/// launcher's, FP8Q_PDL) overlaps only the launch and block start with the
/// prior grid and everything the kernel touches comes after the wait.
__device__ inline void gridPrologue() {
  releaseDependentGrid();
  waitForPriorGrid();
}
#endif // FP8Q_GPU

/// 16 bytes, the unit of every vector load and store.
struct alignas(16) Bytes16 {
  uint32_t w[4];
};
/// 8 bytes.
struct alignas(8) Bytes8 {
  uint32_t w[2];
};

#if defined(FP8Q_GPU)
/// 16-byte load / 8-byte store of data touched once. FP8Q_NV_STREAM=1 marks
/// them evict-first on NVIDIA (ld/st.global.cs); plain accesses otherwise.
__device__ inline Bytes16 loadOnce16(const void *p) {
#if defined(FP8Q_NVPTX) && FP8Q_NV_STREAM
  const uint4 u = __ldcs(static_cast<const uint4 *>(p));
  return Bytes16{{u.x, u.y, u.z, u.w}};
#else
  return *static_cast<const Bytes16 *>(p);
#endif
}
/// 16-byte load of a stream read once by this block and by no other
/// (a GEMM's weight): past L1 on NVIDIA (ld.global.nc.L1::no_allocate),
/// so the activations the block re-reads keep the L1; plain on AMD.
__device__ inline Bytes16 loadStream16(const void *p) {
#if defined(FP8Q_NVPTX)
  Bytes16 b;
  asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
      : "=r"(b.w[0]), "=r"(b.w[1]), "=r"(b.w[2]), "=r"(b.w[3])
      : "l"(p));
  return b;
#else
  return *static_cast<const Bytes16 *>(p);
#endif
}
__device__ inline void storeOnce8(void *p, Bytes8 b) {
#if defined(FP8Q_NVPTX) && FP8Q_NV_STREAM
  __stcs(static_cast<uint2 *>(p), make_uint2(b.w[0], b.w[1]));
#else
  *static_cast<Bytes8 *>(p) = b;
#endif
}
#endif // FP8Q_GPU

} // namespace fp8q::kern

#endif // FP8Q_KERNELS_PORTABILITY_H
