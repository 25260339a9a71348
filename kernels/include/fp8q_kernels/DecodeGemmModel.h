//===- DecodeGemmModel.h - CPU models of the decode GEMM --------*- C++ -*-===//
//
// Runs DecodeGemm.h's body (decodeWaveTotals, the LDS spill and the ordered
// store) on the host with every lane of a wave held explicitly, for both
// lane mappings. The matrix instructions are computed from an independent
// statement of their fragment layouts, written out here from the ISA
// descriptions rather than through DecodeGemm.h's maps:
//  - mma.sync.m16n8k32 e4m3 (PTX ISA, "Matrix Fragments for mma.m16n8k32"):
//    with g = lane / 4, t = lane % 4, A element (r, c) is byte c % 4 of
//    register (r >= 8) + 2 (c >= 16) of lane (r % 8) * 4 + (c % 16) / 4;
//    B element (k, n) is byte k % 4 of register k >= 16 of lane
//    4 n + (k % 16) / 4; D register i of lane l is (g + 8 (i / 2), 2t + i % 2);
//  - the 16x16 MFMA (REFERENCE.md): A / B lane l holds row l % 16 and, for
//    k group l / 16, bytes the instruction pairs with the same bytes of the
//    other operand; D register i of lane l is (4 (l / 16) + i, l % 16).
// Host only.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_KERNELS_DECODEGEMMMODEL_H
#define FP8Q_KERNELS_DECODEGEMMMODEL_H

#include "fp8q_kernels/CpuLanes.h"
#include "fp8q_kernels/DecodeGemm.h"

#include <algorithm>
#include <array>
#include <vector>

namespace fp8q::kern {

/// Byte b of a 32-bit register.
inline uint8_t regByte(uint32_t r, int b) { return (uint8_t)(r >> (8 * b)); }

/// One wave of `Map` on the CPU; `mmaCalls` counts instructions issued.
template <class Map> struct DecodeCpuWave : CpuLanes<Map::kLanes> {
  Fp8 fp8;
  int64_t mmaCalls = 0;
  template <class T>
  using Lanes = typename CpuLanes<Map::kLanes>::template Lanes<T>;

  /// The weight operand as mma takes it (the device's sm_90 wave converts
  /// it to f16 once per K block; the model's instruction reads the bytes).
  const Lanes<DecodeWFrag<Map>> &
  prepareWeight(const Lanes<DecodeWFrag<Map>> &a) const {
    return a;
  }
  Lanes<DecodeAcc> mma(const Lanes<DecodeWFrag<Map>> &a,
                       const Lanes<DecodeFrag> &b) {
    Lanes<DecodeAcc> d{};
    if constexpr (Map::kLanes == 32) {
      float D[16][8] = {};
      for (int j = 0; j < 4; ++j, ++mmaCalls) {
        uint32_t ra[32][4], rb[32][2];
        for (int l = 0; l < 32; ++l)
          decodeNvRegs(a[l], b[l], j, ra[l], rb[l]);
        for (int r = 0; r < 16; ++r)
          for (int n = 0; n < 8; ++n) {
            float dot = 0.0f;
            for (int c = 0; c < 32; ++c) {
              const uint8_t av = regByte(
                  ra[(r % 8) * 4 + (c % 16) / 4][(r >= 8) + 2 * (c >= 16)],
                  c % 4);
              const uint8_t bv =
                  regByte(rb[4 * n + (c % 16) / 4][c >= 16], c % 4);
              dot += decodeFp8(av, fp8) * decodeFp8(bv, fp8);
            }
            D[r][n] += dot;
          }
      }
      for (int l = 0; l < 32; ++l)
        for (int i = 0; i < 4; ++i)
          d[l].v[i] = D[l / 4 + 8 * (i / 2)][2 * (l % 4) + i % 2];
    } else {
      ++mmaCalls;
      for (int l = 0; l < 64; ++l)
        for (int i = 0; i < 4; ++i) {
          const int r = 4 * (l / 16) + i, c = l % 16;
          float dot = 0.0f;
          for (int g = 0; g < 4; ++g) {
            const DecodeFrag &fa = a[r + 16 * g].row[0], &fb = b[c + 16 * g];
            for (int j = 0; j < 32; ++j)
              dot += decodeFp8(regByte(decodeWord(fa, j / 4), j % 4), fp8) *
                     decodeFp8(regByte(decodeWord(fb, j / 4), j % 4), fp8);
          }
          d[l].v[i] = dot;
        }
    }
    return d;
  }
};

/// Runs the whole grid of the MT-tile kernel of `Map` with `splits` K
/// splits (decodeSplitPlan's geometry; 1: none); returns the number of
/// matrix instructions issued. With split-K the splits run in reverse order
/// and the last one to run does the fix-up, so a fix-up that summed in
/// arrival order rather than split order would differ.
template <class Map, int MT, WLayout L = WLayout::Plain>
inline int64_t runDecodeGemmModel(const DecodeGemmArgs &p, Fp8 fp8,
                                  int splits = 1) {
  constexpr int rows = MT * Map::kTileM;
  int64_t calls = 0;
  std::vector<float> red(decodeReduceFloats<Map, MT>());
  const int64_t kBlocks = (p.K + kGroup - 1) / kGroup;
  const int64_t kbPer = (kBlocks + splits - 1) / splits;
  splits = (int)((kBlocks + kbPer - 1) / kbPer); // none empty, as planned
  std::vector<float> part(splits > 1 ? splits * p.M * p.N : 0);
  DecodeSplitArgs a{p, part.data(), nullptr, 0, kbPer, kBlocks, splits};
  for (int64_t m0 = 0; m0 < p.M; m0 += rows)
    for (int64_t n0 = 0; n0 < p.N; n0 += kDecodeTileN) {
      for (int split = splits - 1; split >= 0; --split) {
        const int64_t kbLo = split * kbPer;
        const int64_t kbHi = std::min(kBlocks, kbLo + kbPer);
        for (int wave = 0; wave < decodeWaves<Map>(); ++wave) {
          DecodeCpuWave<Map> W{{}, fp8};
          auto tot =
              decodeWaveTotals<Map, MT, L>(p, n0, m0, kbLo, kbHi, wave, W);
          for (int l = 0; l < Map::kLanes; ++l)
            decodeSpill<Map, MT>(red.data(), wave, l, tot[l]);
          calls += W.mmaCalls;
        }
        for (int idx = 0; idx < kDecodeTileN * rows; ++idx)
          decodeStoreOne<Map, MT>(a, red.data(), n0, m0, split, idx);
      }
      if (splits > 1)
        for (int e = 0; e < kDecodeTileN * rows; ++e)
          decodeReduceSplits<kDecodeTileN>(a, n0, m0, e,
                                           [](const float *x) { return *x; });
    }
  return calls;
}

} // namespace fp8q::kern

#endif // FP8Q_KERNELS_DECODEGEMMMODEL_H
