//===- DecodeGemmV2Model.h - CPU model of the decode GEMM v2 ----*- C++ -*-===//
//
// Runs DecodeGemmV2.h's body on the host: the LDS ring is a byte array the
// model fills with every thread's copies through the kernel's own copy
// index math (decode2WeightStream / decode2ActStream / decode2Src, the
// swizzled decode2LdsOffset), the waves run decode2WaveTotals with
// DecodeGemmModel.h's independent instruction models, and split-K runs its
// splits in reverse order before the fix-up (decodeReduceSplits), so the
// result cannot depend on which split arrives last. The ring starts filled
// with fp8 NaN bytes: a fragment read of a byte no copy wrote turns a
// checked output into NaN. Host only.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_KERNELS_DECODEGEMMV2MODEL_H
#define FP8Q_KERNELS_DECODEGEMMV2MODEL_H

#include "fp8q_kernels/DecodeGemmModel.h"
#include "fp8q_kernels/DecodeGemmV2.h"

#include <cstring>
#include <vector>

namespace fp8q::kern {

/// The LDS ring of one block on the CPU: fetch performs all threads'
/// copies at once (the device splits the same list across its threads).
template <class Map, int R, WLayout L> struct Decode2CpuRing {
  static constexpr bool kLandAfterCompute = false;
  static constexpr bool kScalesInLds = decode2ScalesInLds<Map>();
  static constexpr int kT = Decode2Shape<Map>::kThreads;
  static constexpr int kS = Decode2Shape<Map>::kStages;
  const DecodeGemmArgs &p;
  int64_t n0, m0;
  std::vector<uint8_t> lds;
  int64_t copies = 0; ///< 16-byte copies issued (zero fills included)

  Decode2CpuRing(const DecodeGemmArgs &p, int64_t n0, int64_t m0, Fp8 fp8)
      : p(p), n0(n0), m0(m0),
        lds(decode2LdsBytes<Map, R>(), fp8 == Fp8::E4M3FNUZ ? 0x80 : 0x7f) {
    // The kernel's zeroing of activation rows past M, every stage.
    for (int f = 0; f < kS * R * kDecode2Chunks; ++f) {
      const int slot = f / (R * kDecode2Chunks), row = (f / kDecode2Chunks) % R,
                c = f % kDecode2Chunks;
      if (m0 + row >= p.M)
        std::memset(lds.data() + slot * decode2StageBytes<Map, R>() +
                        decode2LdsOffset(kDecode2TileN + row, c),
                    0, 16);
    }
  }
  void copy(int slot, const Decode2Stream &st, const uint8_t *src) {
    uint8_t *d = lds.data() + slot * decode2StageBytes<Map, R>() + st.lds;
    if (src)
      std::memcpy(d, src, 16);
    else
      std::memset(d, 0, 16);
    ++copies;
  }
  void fetch(int slot, int64_t kb) {
    for (int tid = 0; tid < kT; ++tid) {
      for (int j = 0; j < kDecode2WChunks / kT; ++j) {
        const Decode2Stream st = decode2WeightStream<L>(p, n0, tid + j * kT);
        copy(slot, st, decode2Src(st, kb, decode2WeightKbStride<L>(), p.K));
      }
      for (int j = 0; j < (decode2XChunks<R>() + kT - 1) / kT; ++j) {
        const int f = tid + j * kT;
        if (f >= decode2XChunks<R>())
          continue;
        const Decode2Stream st = decode2ActStream<R>(p, m0, f);
        if (st.src) // rows past M stay zero
          copy(slot, st, decode2Src(st, kb, kGroup, p.K));
      }
      // The scale copies (FP8Q_DECODE2_SCALES_LDS): thread i < R + 1.
      if (kScalesInLds && tid <= R) {
        const Decode2ScaleStream sc = decode2ScaleStream<R>(p, n0, m0, tid);
        std::memcpy(lds.data() + slot * decode2StageBytes<Map, R>() +
                        decode2ScaleOffset<R>(tid),
                    sc.src + kb * sc.stride, 4);
      }
    }
  }
  float scale(int slot, int i) const {
    float f;
    std::memcpy(&f,
                lds.data() + slot * decode2StageBytes<Map, R>() +
                    decode2ScaleOffset<R>(i),
                4);
    return f;
  }
  void land(int, bool) {}
  void wait() {}
  void sync() {}
  auto read(int slot) {
    const uint8_t *base = lds.data() + slot * decode2StageBytes<Map, R>();
    return [base](int off) {
      Bytes16 b;
      std::memcpy(&b, base + off, 16);
      return b;
    };
  }
};

/// Statistics of a model run.
struct Decode2ModelStats {
  Decode2Plan plan;
  int64_t mmaCalls = 0, copies = 0;
};

/// Runs the whole grid of the v2 kernel with R = MT * kTileM rows per block
/// for a GPU of `sms` SMs (which sets the split-K plan, with `minKb` K
/// blocks per split at least).
template <class Map, int MT, WLayout L = WLayout::Plain>
inline Decode2ModelStats runDecode2Model(const DecodeGemmArgs &p, Fp8 fp8,
                                         int sms, int minKb = kDecode2MinKb) {
  constexpr int R = MT * Map::kTileM;
  Decode2ModelStats st;
  st.plan = decode2Plan(p.M, p.N, p.K, R, sms, minKb);
  const Decode2Plan &pl = st.plan;
  std::vector<float> part(decode2PartFloats(pl, p.M, p.N), __builtin_nanf(""));
  Decode2Args a{p,        part.data(), nullptr,  pl.tilesN,
                pl.kbPer, pl.kBlocks,  pl.splits};
  for (int64_t tm = 0; tm < pl.tilesM; ++tm)
    for (int64_t tn = 0; tn < pl.tilesN; ++tn) {
      const int64_t n0 = tn * kDecode2TileN, m0 = tm * R;
      for (int s = pl.splits - 1; s >= 0; --s) { // last split first
        const int64_t kbLo = s * pl.kbPer;
        const int64_t kbHi =
            kbLo + pl.kbPer < pl.kBlocks ? kbLo + pl.kbPer : pl.kBlocks;
        for (int wave = 0; wave < Decode2Shape<Map>::kWaves; ++wave) {
          DecodeCpuWave<Map> W{{}, fp8};
          Decode2CpuRing<Map, R, L> ring(p, n0, m0, fp8);
          auto tot =
              decode2WaveTotals<Map, MT>(p, n0, m0, kbLo, kbHi, wave, W, ring);
          st.mmaCalls += W.mmaCalls;
          if (wave == 0)
            st.copies += ring.copies;
          for (int lane = 0; lane < Map::kLanes; ++lane)
            for (int t = 0; t < MT; ++t)
              for (int j = 0; j < 4; ++j) {
                const int64_t n = n0 + decode2AccN<Map>(wave, lane, j);
                const int64_t m = m0 + decode2AccM<Map>(t, lane, j);
                if (n >= p.N || m >= p.M)
                  continue;
                const float v = tot[lane].t[t].v[j];
                if (pl.splits == 1)
                  p.out[m * p.ldo + n] = bf16Bits(v);
                else
                  part[decodePartIndex(p, s, m, n)] = v;
              }
        }
      }
      if (pl.splits > 1)
        for (int e = 0; e < kDecode2TileN * R; ++e)
          decodeReduceSplits<kDecode2TileN>(a, n0, m0, e,
                                            [](const float *x) { return *x; });
    }
  return st;
}

} // namespace fp8q::kern

#endif // FP8Q_KERNELS_DECODEGEMMV2MODEL_H
