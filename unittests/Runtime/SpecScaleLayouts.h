//===- SpecScaleLayouts.h - SPEC v2 scale layouts, spelled for tests ------===//
//
// SPEC v2's "Scale layouts" table written out from its formulas,
// independently of the runtime's fp8q_scale_layouts.h: the element offset
// of (m, g) and the allocation of an [M, G] scale in each layout, and a
// buffer that hands out a v2 scale descriptor (docs/RuntimeABI.md, "Scale
// descriptor") over that allocation.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_UNITTESTS_RUNTIME_SPECSCALELAYOUTS_H
#define FP8Q_UNITTESTS_RUNTIME_SPECSCALELAYOUTS_H

#include "fp8q/Runtime/fp8q_runtime.h"

#include <cstdint>
#include <vector>

namespace fp8q::test {

struct LayoutCase {
  const char *name;
  int layout;
  int64_t align;
};

inline const LayoutCase kLayouts[] = {
    {"RowMajor", FP8Q_LAYOUT_ROW_MAJOR, 1},
    {"ColMajor", FP8Q_LAYOUT_COL_MAJOR, 1},
    {"ColMajorAlign4", FP8Q_LAYOUT_COL_MAJOR, 4},
    {"Pack4Align4", FP8Q_LAYOUT_COL_MAJOR_PACK4, 4},
    {"Pack4Align1", FP8Q_LAYOUT_COL_MAJOR_PACK4, 1},
    {"Swizzle32x4x4", FP8Q_LAYOUT_SWIZZLE_32_4_4, 1},
    {"Cdna4Mx", FP8Q_LAYOUT_CDNA4_MX, 1},
};

inline int64_t roundUp(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

/// SPEC v2 "Scale layouts", spelled independently of the runtime's header:
/// the element offset of (m, g) and the allocation of an [M, G] scale.
inline int64_t specOffset(const LayoutCase &l, int64_t M, int64_t G, int64_t m,
                          int64_t g) {
  switch (l.layout) {
  case FP8Q_LAYOUT_ROW_MAJOR:
    return m * G + g;
  case FP8Q_LAYOUT_COL_MAJOR:
    return g * roundUp(M, l.align) + m;
  case FP8Q_LAYOUT_COL_MAJOR_PACK4:
    return ((g / 4) * roundUp(M, l.align) + m) * 4 + g % 4;
  case FP8Q_LAYOUT_SWIZZLE_32_4_4: {
    int64_t t = (m / 128) * (roundUp(G, 4) / 4) + g / 4;
    return t * 512 + (m % 32) * 16 + ((m % 128) / 32) * 4 + g % 4;
  }
  default: { // cdna4_mx: m = 32a + 16b + c, g = 8d + 4e + f
    int64_t a = m / 32, b = (m / 16) % 2, c = m % 16;
    int64_t d = g / 8, e = (g / 4) % 2, f = g % 4;
    int64_t gp8 = roundUp(G, 8) / 8;
    return ((((a * gp8 + d) * 4 + f) * 16 + c) * 2 + e) * 2 + b;
  }
  }
}

inline int64_t specAlloc(const LayoutCase &l, int64_t M, int64_t G) {
  switch (l.layout) {
  case FP8Q_LAYOUT_ROW_MAJOR:
    return M * G;
  case FP8Q_LAYOUT_COL_MAJOR:
    return roundUp(M, l.align) * G;
  case FP8Q_LAYOUT_COL_MAJOR_PACK4:
    return 4 * ((G + 3) / 4) * roundUp(M, l.align);
  case FP8Q_LAYOUT_SWIZZLE_32_4_4:
    return roundUp(M, 128) * roundUp(G, 4);
  default:
    return roundUp(M, 256) * roundUp(G, 8);
  }
}

inline bool isPadded(const LayoutCase &l) {
  return l.layout != FP8Q_LAYOUT_ROW_MAJOR && l.layout != FP8Q_LAYOUT_COL_MAJOR;
}

/// The layout's allocation behind a v2 scale descriptor, pre-filled with
/// `fill`, plus 8 guard bytes.
struct ScaleBuf {
  std::vector<uint8_t> bytes;
  fp8q_memref_2d desc{};
  ScaleBuf(const LayoutCase &l, int64_t M, int64_t G, size_t elt,
           uint8_t fill) {
    bytes.assign(specAlloc(l, M, G) * elt + 8, fill);
    desc.allocated = desc.aligned = bytes.data();
    desc.sizes[0] = M;
    desc.sizes[1] = G;
    if (l.layout == FP8Q_LAYOUT_ROW_MAJOR) {
      desc.strides[0] = G;
      desc.strides[1] = 1;
    } else if (l.layout == FP8Q_LAYOUT_COL_MAJOR) {
      desc.strides[0] = 1;
      desc.strides[1] = roundUp(M, l.align);
    }
  }
  fp8q_memref_2d *d() { return &desc; }
};

} // namespace fp8q::test

#endif // FP8Q_UNITTESTS_RUNTIME_SPECSCALELAYOUTS_H
