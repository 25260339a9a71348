//===- DecodeGemm.hip - The weight-streaming decode GEMM kernels ----------===//
//
// fp8q_kernel_decode_gemm_m<R> (plain weight) and
// fp8q_kernel_decode_gemm_preshuffle_m<R> (preshuffle_16x16): the decode GEMM
// of DecodeGemm.h for up to R activation rows per block (grid.x = ceil(N / 16),
// grid.y = ceil(M / R), grid.z = the K splits of decodeSplitPlan; arguments
// DecodeSplitArgs). R = 8, 16, 32, 64 on NVIDIA (8-row mma.sync tiles),
// and R = 8 a second time as ..._m8_b2 (two resident blocks); 16, 32, 64 on
// AMD (16-row MFMA tiles). The matrix step per K block of 128 is
// spelled here, once per instruction set; everything else is DecodeGemm.h.
//
//===----------------------------------------------------------------------===//

#include "fp8q_kernels/DecodeGemm.h"
#include "fp8q_kernels/DecodeGemmV2.h"

using namespace fp8q::kern;

// nvcc (both passes: the host pass needs the kernels to launch them) or
// the AMD device compile.
#if defined(__NVCC__)
#define FP8Q_DECODE_NV 1
#endif

#if defined(FP8Q_DECODE_NV) || defined(FP8Q_AMDGCN)

#if defined(FP8Q_DECODE_NV)
using DecodeMap = DecodeMapNv;
#else
using DecodeMap = DecodeMapAmd;
typedef int v8i32 __attribute__((ext_vector_type(8)));
typedef float v4f32 __attribute__((ext_vector_type(4)));
#endif

#if defined(FP8Q_DECODE_NV)
/// Two e4m3 bytes to two f16 (exact: every e4m3 value is an f16).
/// Non-volatile, without memory effects: equal conversions fold.
__device__ inline uint32_t decodeE4m3x2ToF16x2(uint16_t v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  uint32_t d;
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(d) : "h"(v));
  return d;
#else
  return v; // never reached: the launcher selects FP8 kernels on sm_89+
#endif
}
#endif

/// 1: on Hopper (sm_90) the f16 matrix step (DecodeWF16, DecodeGemm.h)
/// instead of the e4m3 mma.sync that ptxas emulates there; 0 (default):
/// e4m3. Measured on the H100 (bench/results/s20/h100-ab-base-e4m3-f16.txt,
/// bench/RESULTS.md): the f16 step was no faster (slower on most shapes,
/// up to 11% for the first kernel and 16% for v2; the compiled GLM-5 step
/// 1.5-2.3% slower), so ptxas's emulation already shares the conversions.
#ifndef FP8Q_DECODE_SM90_F16
#define FP8Q_DECODE_SM90_F16 0
#endif
#if defined(FP8Q_DECODE_NV) && defined(__CUDA_ARCH__) &&                       \
    __CUDA_ARCH__ == 900 && FP8Q_DECODE_SM90_F16
#define FP8Q_DECODE_NV_F16 1
#endif

/// A DecodeGemm.h Wave that is one hardware lane.
struct DecodeDeviceWave {
  int lane;
  template <class T> using Lanes = T;
  template <class F> __device__ auto map(F f) { return f(lane); }
  template <class F> __device__ void each(F f) { f(lane); }
  template <class T> __device__ T &at(T &x, int) { return x; }

#if defined(FP8Q_DECODE_NV_F16)
  /// The weight operand of a K block, converted once for all m tiles.
  __device__ DecodeWF16 prepareWeight(const DecodeWFrag<DecodeMap> &a) const {
    return decodeNvF16Weight(a, decodeE4m3x2ToF16x2);
  }

  /// The fp32 dot products of one K block for the 16 x 8 tile: one
  /// m16n8k16 f16 per word of the lane's 32 bytes (decodeNvF16Regs); the
  /// products are exact in f16, summed in fp32.
  __device__ DecodeAcc mma(const DecodeWF16 &a, const DecodeFrag &b) {
    float c0 = 0.0f, c1 = 0.0f, c2 = 0.0f, c3 = 0.0f;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      uint32_t ra[4], rb[2];
      decodeNvF16Regs(a, b, i, decodeE4m3x2ToF16x2, ra, rb);
      asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
          "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
          "{%0, %1, %2, %3};"
          : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
          : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]),
            "r"(rb[1]));
    }
    return DecodeAcc{{c0, c1, c2, c3}};
  }
#else
  /// The weight operand as mma takes it: the bytes.
  __device__ const DecodeWFrag<DecodeMap> &
  prepareWeight(const DecodeWFrag<DecodeMap> &a) const {
    return a;
  }
#endif

  /// The fp32 dot products of one K block for the 16 x kTileM tile.
  __device__ DecodeAcc mma(const DecodeWFrag<DecodeMap> &a,
                           const DecodeFrag &b) {
#if defined(FP8Q_DECODE_NV) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 890
    // FP8 mma needs sm_89; the launcher never selects this kernel below.
    (void)a;
    (void)b;
    __trap();
    return DecodeAcc{};
#elif defined(FP8Q_DECODE_NV)
    // Four m16n8k32 chained on one accumulator (registers: decodeNvRegs).
    float c0 = 0.0f, c1 = 0.0f, c2 = 0.0f, c3 = 0.0f;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      uint32_t ra[4], rb[2];
      decodeNvRegs(a, b, j, ra, rb);
      asm("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 "
          "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
          "{%0, %1, %2, %3};"
          : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
          : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]),
            "r"(rb[1]));
    }
    return DecodeAcc{{c0, c1, c2, c3}};
#else
    const DecodeFrag &f = a.row[0];
    v4f32 c = {0.0f, 0.0f, 0.0f, 0.0f};
#if defined(__gfx950__)
    v8i32 va = {(int)f.lo.w[0], (int)f.lo.w[1], (int)f.lo.w[2], (int)f.lo.w[3],
                (int)f.hi.w[0], (int)f.hi.w[1], (int)f.hi.w[2], (int)f.hi.w[3]};
    v8i32 vb = {(int)b.lo.w[0], (int)b.lo.w[1], (int)b.lo.w[2], (int)b.lo.w[3],
                (int)b.hi.w[0], (int)b.hi.w[1], (int)b.hi.w[2], (int)b.hi.w[3]};
    // Formats 0/0 = E4M3 for A and B; scale operands 0 select the unscaled
    // instruction (the block scales are fp32, applied by the caller).
    c = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(va, vb, c, 0, 0, 0, 0,
                                                         0, 0);
#else
    const Bytes16 *ha[2] = {&f.lo, &f.hi}, *hb[2] = {&b.lo, &b.hi};
#pragma unroll
    for (int s = 0; s < 4; ++s) {
      const uint32_t *pa = ha[s / 2]->w + 2 * (s % 2);
      const uint32_t *pb = hb[s / 2]->w + 2 * (s % 2);
      long la = (long)((uint64_t)pa[0] | ((uint64_t)pa[1] << 32));
      long lb = (long)((uint64_t)pb[0] | ((uint64_t)pb[1] << 32));
      c = __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(la, lb, c, 0, 0, 0);
    }
#endif
    return DecodeAcc{{c[0], c[1], c[2], c[3]}};
#endif
  }
};

__device__ inline int64_t decodeBlockIdZ() {
#if defined(FP8Q_AMDGCN)
  return __builtin_amdgcn_workgroup_id_z();
#else
  return blockIdx.z;
#endif
}

/// A workspace float written by another block of this launch (past L1).
__device__ inline float decodeLoadPart(const float *p) {
#if defined(FP8Q_DECODE_NV) && defined(__CUDA_ARCH__)
  return __ldcg(p);
#else
  return *p;
#endif
}

/// Split-K arrival (DecodeSplitArgs), after the block has written its
/// partial tile: true in the last block of `tile` to arrive, which then
/// sees every split's partial and has reset the tile's counter for the next
/// launch. Called by every thread of the block (it holds barriers).
__device__ inline bool decodeLastToArrive(const DecodeSplitArgs &a,
                                          int64_t tile, int tid) {
  __shared__ int lastFlag;
#if defined(FP8Q_DECODE_NV)
  // The block's partial stores are ordered before thread 0's fence by the
  // barrier (cumulativity; cooperative groups' grid sync does the same), so
  // one fence per block releases them, not one per thread (v2 at M = 64
  // stalled on 128 of them per block).
  barrier();
  if (tid == 0) {
    __threadfence();
    const uint32_t old = atomicAdd(a.arrive + tile, 1u);
    lastFlag = old == (uint32_t)a.splits - 1;
    if (lastFlag)
      a.arrive[tile] = 0; // every split has arrived: ready for the next launch
  }
  barrier();
  if (!lastFlag)
    return false;
  __threadfence();
#else
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "agent");
  barrier();
  if (tid == 0) {
    const uint32_t old = __hip_atomic_fetch_add(
        a.arrive + tile, 1u, __ATOMIC_ACQ_REL, __HIP_MEMORY_SCOPE_AGENT);
    lastFlag = old == (uint32_t)a.splits - 1;
    if (lastFlag)
      __hip_atomic_store(a.arrive + tile, 0u, __ATOMIC_RELAXED,
                         __HIP_MEMORY_SCOPE_AGENT);
  }
  barrier();
  if (!lastFlag)
    return false;
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "agent");
#endif
  return true;
}

template <int MT, WLayout L>
__device__ inline void decodeGemmBody(const DecodeSplitArgs &a) {
  __shared__ float red[decodeReduceFloats<DecodeMap, MT>()];
  const DecodeGemmArgs &p = a.g;
  const int tid = threadId();
  const int lane = tid % DecodeMap::kLanes;
  const int wave = waveIndex(DecodeMap::kLanes);
  const int64_t n0 = blockIdX() * kDecodeTileN;
  const int64_t m0 = blockIdY() * (MT * DecodeMap::kTileM);
  const int split = (int)decodeBlockIdZ();
  const int64_t kbLo = split * a.kbPer;
  const int64_t kbHi = kbLo + a.kbPer < a.kBlocks ? kbLo + a.kbPer : a.kBlocks;
  DecodeDeviceWave W{lane};
  DecodeAccs<MT> tot =
      decodeWaveTotals<DecodeMap, MT, L>(p, n0, m0, kbLo, kbHi, wave, W);
  decodeSpill<DecodeMap, MT>(red, wave, lane, tot);
  barrier();
  constexpr int kOutputs = kDecodeTileN * MT * DecodeMap::kTileM;
  for (int idx = tid; idx < kOutputs; idx += kDecodeThreads)
    decodeStoreOne<DecodeMap, MT>(a, red, n0, m0, split, idx);
  if (a.splits == 1)
    return;
  // Last block of the tile to arrive sums the partials in split order.
  if (!decodeLastToArrive(a, blockIdY() * a.tilesN + blockIdX(), tid))
    return;
  for (int e = tid; e < kOutputs; e += kDecodeThreads)
    decodeReduceSplits<kDecodeTileN>(a, n0, m0, e, decodeLoadPart);
}

/// minBlocks: resident blocks per SM the NVIDIA register budget is cut for
/// (3: 85 registers, 2: 128, 1: 255; the 32- and 64-row variants hold 4-8 m
/// tiles of accumulators beside the weight bytes in flight). Measured on the
/// H200 (bench/results/h200-decode-gemm.log): 3 for the 8-row variant beats
/// 2 (6144 x 2048, M = 1: 6.9 vs 8.7 us) and 4 spills. `suffix` names a
/// second build of the same rows (empty for the first).
#define FP8Q_DECODE_KERNEL(rows, minBlocks, suffix)                            \
  extern "C" __global__ FP8Q_LAUNCH_BOUNDS(kDecodeThreads, minBlocks) void     \
      fp8q_kernel_decode_gemm_m##rows##suffix(DecodeSplitArgs a) {              \
    gridPrologue();                                                            \
    decodeGemmBody<rows / DecodeMap::kTileM, WLayout::Plain>(a);               \
  }                                                                            \
  extern "C" __global__ FP8Q_LAUNCH_BOUNDS(kDecodeThreads, minBlocks) void     \
      fp8q_kernel_decode_gemm_preshuffle_m##rows##suffix(DecodeSplitArgs a) {   \
    gridPrologue();                                                            \
    decodeGemmBody<rows / DecodeMap::kTileM, WLayout::Preshuffle16x16>(a);     \
  }

#ifndef FP8Q_DECODE_M8_MIN_BLOCKS
#define FP8Q_DECODE_M8_MIN_BLOCKS 3
#endif
#ifndef FP8Q_DECODE_M16_MIN_BLOCKS
#define FP8Q_DECODE_M16_MIN_BLOCKS 2
#endif
#if defined(FP8Q_DECODE_NV)
FP8Q_DECODE_KERNEL(8, FP8Q_DECODE_M8_MIN_BLOCKS, )
/// ..._m8_b2: the 8-row variant cut for two resident blocks (up to 128
/// registers rather than 85): where the grid fits two blocks per SM
/// (decodeM8TwoBlocks) it loses no residency and its larger budget was
/// 7-13% faster at M = 1 on the H100 (2048 x 2048 5.25 -> 4.58 us;
/// bench/results/h100-decode-m8b2-s17.log); with more blocks than that it
/// was 10-46% slower (6144 x 2048 7.44 -> 9.24).
FP8Q_DECODE_KERNEL(8, 2, _b2)
#endif
FP8Q_DECODE_KERNEL(16, FP8Q_DECODE_M16_MIN_BLOCKS, )
FP8Q_DECODE_KERNEL(32, 1, )
FP8Q_DECODE_KERNEL(64, 1, )

//===----------------------------------------------------------------------===//
// Decode GEMM v2 (DecodeGemmV2.h): fp8q_kernel_decode2_gemm_m<R> and
// fp8q_kernel_decode2_gemm_preshuffle_m<R>, grid (ceil(N / tile),
// ceil(M / R), splits), Decode2Shape<DecodeMap>::kThreads threads, LDS
// decode2LdsBytes (dynamic on NVIDIA: the launcher sets the attribute).
//===----------------------------------------------------------------------===//

#if defined(FP8Q_DECODE_NV)
/// FP8Q_DECODE2_L2_PREFETCH = 0 (default), 64, 128 or 256: the L2 prefetch
/// size qualifier of the weight / activation cp.async (a sweep knob; the
/// stream is contiguous per row or 2 KiB piece).
#ifndef FP8Q_DECODE2_L2_PREFETCH
#define FP8Q_DECODE2_L2_PREFETCH 0
#endif
#if FP8Q_DECODE2_L2_PREFETCH == 256
#define FP8Q_DECODE2_L2_HINT ".L2::256B"
#elif FP8Q_DECODE2_L2_PREFETCH == 128
#define FP8Q_DECODE2_L2_HINT ".L2::128B"
#elif FP8Q_DECODE2_L2_PREFETCH == 64
#define FP8Q_DECODE2_L2_HINT ".L2::64B"
#else
#define FP8Q_DECODE2_L2_HINT ""
#endif
/// cp.async.cg 16 bytes global -> shared (L1 bypassed). Full: src is
/// never null; otherwise src null: 16 zeros (src-size 0; the address is
/// then not read, `dflt` keeps it valid).
template <bool Full>
__device__ inline void decode2CpAsync16(void *dst, const void *src,
                                        const void *dflt) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const uint32_t d = (uint32_t)__cvta_generic_to_shared(dst);
  if constexpr (Full) {
    (void)dflt;
    asm volatile("cp.async.cg.shared.global" FP8Q_DECODE2_L2_HINT
                 " [%0], [%1], 16;\n" ::"r"(d),
                 "l"(src)
                 : "memory");
  } else {
    const int n = src ? 16 : 0;
    asm volatile("cp.async.cg.shared.global" FP8Q_DECODE2_L2_HINT
                 " [%0], [%1], 16, %2;\n" ::"r"(d),
                 "l"(src ? src : dflt), "r"(n)
                 : "memory");
  }
#else
  (void)dst;
  (void)src;
  (void)dflt;
#endif
}

/// cp.async.ca 4 bytes global -> shared (a scale, FP8Q_DECODE2_SCALES_LDS).
__device__ inline void decode2CpAsync4(void *dst, const void *src) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const uint32_t d = (uint32_t)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(d),
               "l"(src)
               : "memory");
#else
  (void)dst;
  (void)src;
#endif
}

/// The NVIDIA LDS ring: cp.async per stage, one commit group per stage;
/// each thread's copies (kb-invariant part) computed once.
template <int R, WLayout L> struct Decode2NvRing {
  static constexpr bool kLandAfterCompute = false;
  static constexpr bool kScalesInLds = decode2ScalesInLds<DecodeMap>();
  static constexpr int kT = Decode2Shape<DecodeMap>::kThreads;
  static constexpr int kS = Decode2Shape<DecodeMap>::kStages;
  static constexpr int kW = kDecode2WChunks / kT;
  static constexpr int kX = (decode2XChunks<R>() + kT - 1) / kT;
  uint8_t *lds;
  const uint8_t *dflt;
  int64_t K;
  Decode2Stream st[kW + kX];
  // This thread's scale copy (thread i < R + 1 copies scale i), if any.
  Decode2ScaleStream sc{nullptr, 0};
  int scLds = 0;

  __device__ Decode2NvRing(uint8_t *lds, const DecodeGemmArgs &p, int64_t n0,
                           int64_t m0, int tid)
      : lds(lds), dflt(p.w), K(p.K) {
    static_assert(!kScalesInLds || R + 1 <= kT, "one scale copy per thread");
    if constexpr (kScalesInLds)
      if (tid <= R) {
        sc = decode2ScaleStream<R>(p, n0, m0, tid);
        scLds = decode2ScaleOffset<R>(tid);
      }
    FP8Q_UNROLL
    for (int j = 0; j < kW; ++j)
      st[j] = decode2WeightStream<L>(p, n0, tid + j * kT);
    FP8Q_UNROLL
    for (int j = 0; j < kX; ++j) {
      const int f = tid + j * kT;
      st[kW + j] = decode2ActStream<R>(p, m0, f < decode2XChunks<R>() ? f : 0);
      if (f >= decode2XChunks<R>())
        st[kW + j].src = nullptr;
    }
  }
  /// Whether this thread has copy j (an activation copy is absent past M
  /// or past R * 8 chunks).
  __device__ bool has(int j) const { return j < kW || st[j].src; }
  /// A stage's copies; Full: the K block lies inside K (no K check, no
  /// src-size select).
  template <bool Full> __device__ void fetchKb(uint8_t *base, int64_t kb) {
    FP8Q_UNROLL
    for (int j = 0; j < kW + kX; ++j) {
      if (!has(j))
        continue;
      const int64_t stride = j < kW ? decode2WeightKbStride<L>() : kGroup;
      decode2CpAsync16<Full>(base + st[j].lds,
                             decode2Src<Full>(st[j], kb, stride, K), dflt);
    }
  }
  __device__ void fetch(int slot, int64_t kb) {
    uint8_t *base = lds + slot * decode2StageBytes<DecodeMap, R>();
    if (decode2FullKb(kb, K))
      fetchKb<true>(base, kb);
    else
      fetchKb<false>(base, kb);
    if constexpr (kScalesInLds)
      if (sc.src) // threads past R copy no scale
        decode2CpAsync4(base + scLds, sc.src + kb * sc.stride);
  }
  __device__ float scale(int slot, int i) const {
    return *reinterpret_cast<const float *>(
        lds + slot * decode2StageBytes<DecodeMap, R>() +
        decode2ScaleOffset<R>(i));
  }
  __device__ void land(int, bool) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
  }
  __device__ void wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(kS - 2) : "memory");
#endif
  }
  __device__ void sync() { barrier(); }
  __device__ auto read(int slot) {
    const uint8_t *base = lds + slot * decode2StageBytes<DecodeMap, R>();
    return [base](int off) {
      return *reinterpret_cast<const Bytes16 *>(base + off);
    };
  }
};
static_assert(kDecode2WChunks % Decode2Shape<DecodeMapNv>::kThreads == 0,
              "whole weight chunks per thread");
#else
/// The AMD LDS ring: the next stage's 16-byte global loads held in
/// registers while the current stage is computed, written to LDS after it.
template <int R, WLayout L> struct Decode2AmdRing {
  static constexpr bool kLandAfterCompute = true;
  static constexpr bool kScalesInLds = false;
  __device__ float scale(int, int) const { return 0.0f; }
  static constexpr int kT = Decode2Shape<DecodeMap>::kThreads;
  static constexpr int kW = kDecode2WChunks / kT;
  static constexpr int kX = (decode2XChunks<R>() + kT - 1) / kT;
  uint8_t *lds;
  int64_t K;
  Decode2Stream st[kW + kX];
  Bytes16 buf[kW + kX];

  __device__ Decode2AmdRing(uint8_t *lds, const DecodeGemmArgs &p, int64_t n0,
                            int64_t m0, int tid)
      : lds(lds), K(p.K) {
    FP8Q_UNROLL
    for (int j = 0; j < kW; ++j)
      st[j] = decode2WeightStream<L>(p, n0, tid + j * kT);
    FP8Q_UNROLL
    for (int j = 0; j < kX; ++j) {
      const int f = tid + j * kT;
      st[kW + j] = decode2ActStream<R>(p, m0, f < decode2XChunks<R>() ? f : 0);
      if (f >= decode2XChunks<R>())
        st[kW + j].src = nullptr;
    }
  }
  /// Whether this thread has copy j (an activation copy is absent past M
  /// or past R * 8 chunks).
  __device__ bool has(int j) const { return j < kW || st[j].src; }
  /// A stage's loads into registers; Full: the K block lies inside K.
  template <bool Full> __device__ void fetchKb(int64_t kb) {
    FP8Q_UNROLL
    for (int j = 0; j < kW + kX; ++j) {
      if (!has(j))
        continue;
      const uint8_t *src = decode2Src<Full>(
          st[j], kb, j < kW ? decode2WeightKbStride<L>() : kGroup, K);
      buf[j] = Full || src ? loadStream16(src) : Bytes16{};
    }
  }
  __device__ void fetch(int, int64_t kb) {
    if (decode2FullKb(kb, K)) // uniform per block
      fetchKb<true>(kb);
    else
      fetchKb<false>(kb);
  }
  __device__ void land(int slot, bool any) {
    if (!any)
      return;
    uint8_t *base = lds + slot * decode2StageBytes<DecodeMap, R>();
    FP8Q_UNROLL
    for (int j = 0; j < kW + kX; ++j)
      if (has(j))
        *reinterpret_cast<Bytes16 *>(base + st[j].lds) = buf[j];
  }
  __device__ void wait() {}
  __device__ void sync() { barrier(); }
  __device__ auto read(int slot) {
    const uint8_t *base = lds + slot * decode2StageBytes<DecodeMap, R>();
    return [base](int off) {
      return *reinterpret_cast<const Bytes16 *>(base + off);
    };
  }
};
static_assert(kDecode2WChunks % Decode2Shape<DecodeMapAmd>::kThreads == 0,
              "whole weight chunks per thread");
#endif

template <int MT, WLayout L>
__device__ inline void decode2Body(const Decode2Args &a) {
  constexpr int R = MT * DecodeMap::kTileM;
  constexpr int T = Decode2Shape<DecodeMap>::kThreads;
  constexpr int S = Decode2Shape<DecodeMap>::kStages;
#if defined(FP8Q_DECODE_NV)
  extern __shared__ __align__(16) uint8_t fp8q_decode2_lds[];
  uint8_t *lds = fp8q_decode2_lds;
#else
  __shared__
      __attribute__((aligned(16))) uint8_t lds[decode2LdsBytes<DecodeMap, R>()];
#endif
  const DecodeGemmArgs &p = a.g;
  const int tid = threadId();
  const int lane = tid % DecodeMap::kLanes, wave = waveIndex(DecodeMap::kLanes);
  const int64_t n0 = blockIdX() * kDecode2TileN, m0 = blockIdY() * R;
  const int split = (int)decodeBlockIdZ();
  const int64_t kbLo = split * a.kbPer;
  const int64_t kbHi = kbLo + a.kbPer < a.kBlocks ? kbLo + a.kbPer : a.kBlocks;
  // Activation rows past M: zeros in every stage, never copied (copying a
  // clamped row instead cost M = 1 up to 1.6x on the H100: 8 copies of one
  // row per stage).
  if (m0 + R > p.M)
    for (int f = tid; f < S * R * kDecode2Chunks; f += T) {
      const int slot = f / (R * kDecode2Chunks), row = (f / kDecode2Chunks) % R,
                c = f % kDecode2Chunks;
      if (m0 + row >= p.M)
        *reinterpret_cast<Bytes16 *>(
            lds + slot * decode2StageBytes<DecodeMap, R>() +
            decode2LdsOffset(kDecode2TileN + row, c)) = Bytes16{};
    }
#if defined(FP8Q_DECODE_NV)
  Decode2NvRing<R, L> ring(lds, p, n0, m0, tid);
#else
  Decode2AmdRing<R, L> ring(lds, p, n0, m0, tid);
#endif
  DecodeDeviceWave W{lane};
  DecodeAccs<MT> tot =
      decode2WaveTotals<DecodeMap, MT>(p, n0, m0, kbLo, kbHi, wave, W, ring);
  if (a.splits == 1) {
    FP8Q_UNROLL
    for (int t = 0; t < MT; ++t)
      FP8Q_UNROLL
    for (int j = 0; j < 4; ++j) {
      const int64_t n = n0 + decode2AccN<DecodeMap>(wave, lane, j);
      const int64_t m = m0 + decode2AccM<DecodeMap>(t, lane, j);
      if (n < p.N && m < p.M)
        p.out[m * p.ldo + n] = bf16Bits(tot.t[t].v[j]);
    }
    return;
  }
  FP8Q_UNROLL
  for (int t = 0; t < MT; ++t)
    FP8Q_UNROLL
  for (int j = 0; j < 4; ++j) {
    const int64_t n = n0 + decode2AccN<DecodeMap>(wave, lane, j);
    const int64_t m = m0 + decode2AccM<DecodeMap>(t, lane, j);
    if (n < p.N && m < p.M)
      a.part[decodePartIndex(p, split, m, n)] = tot.t[t].v[j];
  }
  // Last block of the tile to arrive sums the partials in split order.
  if (!decodeLastToArrive(a, blockIdY() * a.tilesN + blockIdX(), tid))
    return;
  for (int e = tid; e < kDecode2TileN * R; e += T)
    decodeReduceSplits<kDecode2TileN>(a, n0, m0, e, decodeLoadPart);
}

/// minBlocks per variant (NVIDIA register budget at 128 threads: 4 -> 128
/// registers, 3 -> 168, 2 -> 255), the fewest registers that do not spill
/// (ptxas -v, sm_90): the 16-row variant spills at 128, the 32-row at 168.
/// Bytes in flight do not need registers here (cp.async), so 2-3 resident
/// blocks of 4 warps still keep 2-3 stages per block in flight.
/// Blocks of 128-row tiles have twice the threads: half the blocks.
#if FP8Q_DECODE2_TILE_N >= 128
#define FP8Q_DECODE2_MIN_BLOCKS_SCALE 2
#else
#define FP8Q_DECODE2_MIN_BLOCKS_SCALE 1
#endif
#ifndef FP8Q_DECODE2_M16_MIN_BLOCKS
#define FP8Q_DECODE2_M16_MIN_BLOCKS (3 / FP8Q_DECODE2_MIN_BLOCKS_SCALE)
#endif
#ifndef FP8Q_DECODE2_M32_MIN_BLOCKS
#define FP8Q_DECODE2_M32_MIN_BLOCKS (2 / FP8Q_DECODE2_MIN_BLOCKS_SCALE)
#endif
#ifndef FP8Q_DECODE2_M64_MIN_BLOCKS
#define FP8Q_DECODE2_M64_MIN_BLOCKS (2 / FP8Q_DECODE2_MIN_BLOCKS_SCALE)
#endif
#define FP8Q_DECODE2_KERNEL(rows, minBlocks)                                   \
  extern "C" __global__ FP8Q_LAUNCH_BOUNDS(                                    \
      Decode2Shape<DecodeMap>::kThreads,                                       \
      minBlocks) void fp8q_kernel_decode2_gemm_m##rows(Decode2Args a) {        \
    gridPrologue();                                                            \
    decode2Body<rows / DecodeMap::kTileM, WLayout::Plain>(a);                  \
  }                                                                            \
  extern "C" __global__ FP8Q_LAUNCH_BOUNDS(Decode2Shape<DecodeMap>::kThreads,  \
                                           minBlocks) void                     \
      fp8q_kernel_decode2_gemm_preshuffle_m##rows(Decode2Args a) {             \
    gridPrologue();                                                            \
    decode2Body<rows / DecodeMap::kTileM, WLayout::Preshuffle16x16>(a);        \
  }

#if defined(FP8Q_DECODE_NV)
FP8Q_DECODE2_KERNEL(8, FP8Q_DECODE2_MIN_BLOCKS)
#endif
FP8Q_DECODE2_KERNEL(16, FP8Q_DECODE2_M16_MIN_BLOCKS)
FP8Q_DECODE2_KERNEL(32, FP8Q_DECODE2_M32_MIN_BLOCKS)
FP8Q_DECODE2_KERNEL(64, FP8Q_DECODE2_M64_MIN_BLOCKS)

#endif // FP8Q_DECODE_NV || FP8Q_AMDGCN
