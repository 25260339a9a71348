//===- RuntimeTestUtil.h - Buffers and references for runtime tests -------===//
//
// Owning strided buffers that hand out MLIR memref descriptors, and an
// fp8 encoder written independently of fp8q_numerics.h (nearest of all
// decoded codes) for checking the runtime against.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_UNITTESTS_RUNTIME_RUNTIMETESTUTIL_H
#define FP8Q_UNITTESTS_RUNTIME_RUNTIMETESTUTIL_H

#include "fp8q/Runtime/fp8q_runtime.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace fp8q::test {

/// A rank-2 strided buffer of T: element (i, j) at
/// data[offset + i * s0 + j * s1].
template <typename T> struct Buf2 {
  std::vector<T> data;
  fp8q_memref_2d desc{};

  Buf2(int64_t rows, int64_t cols, int64_t s0, int64_t s1, int64_t offset = 0,
       T fill = T()) {
    int64_t maxIdx = offset + (rows > 0 ? (rows - 1) * s0 : 0) +
                     (cols > 0 ? (cols - 1) * s1 : 0);
    data.assign(maxIdx + 1, fill);
    desc.allocated = data.data();
    desc.aligned = data.data();
    desc.offset = offset;
    desc.sizes[0] = rows;
    desc.sizes[1] = cols;
    desc.strides[0] = s0;
    desc.strides[1] = s1;
  }
  // Copies and moves re-point the descriptor at the new storage.
  Buf2(const Buf2 &o) : data(o.data), desc(o.desc) { rebase(); }
  Buf2(Buf2 &&o) noexcept : data(std::move(o.data)), desc(o.desc) { rebase(); }
  Buf2 &operator=(const Buf2 &o) {
    data = o.data;
    desc = o.desc;
    rebase();
    return *this;
  }
  void rebase() { desc.allocated = desc.aligned = data.data(); }
  static Buf2 rowMajor(int64_t r, int64_t c, T fill = T()) {
    return Buf2(r, c, c, 1, 0, fill);
  }
  static Buf2 colMajor(int64_t r, int64_t c, int64_t align = 1, T fill = T()) {
    int64_t ld = (r + align - 1) / align * align;
    return Buf2(r, c, 1, ld, 0, fill);
  }
  int64_t rows() const { return desc.sizes[0]; }
  int64_t cols() const { return desc.sizes[1]; }
  T &at(int64_t i, int64_t j) {
    return data[desc.offset + i * desc.strides[0] + j * desc.strides[1]];
  }
  fp8q_memref_2d *d() { return &desc; }
};

/// Rank-1 buffer.
template <typename T> struct Buf1 {
  std::vector<T> data;
  fp8q_memref_1d desc{};
  explicit Buf1(int64_t n) : data(n) {
    desc.allocated = desc.aligned = data.data();
    desc.offset = 0;
    desc.sizes[0] = n;
    desc.strides[0] = 1;
  }
  fp8q_memref_1d *d() { return &desc; }
};

/// fp8 decode from the format definition, in double.
inline double refDecode(uint8_t c, int type) {
  bool fnuz = type == FP8Q_F8E4M3FNUZ;
  int bias = fnuz ? 8 : 7;
  if (fnuz ? c == 0x80 : (c & 0x7F) == 0x7F)
    return NAN;
  int e = (c >> 3) & 15, m = c & 7;
  double mag = e == 0 ? std::ldexp(m / 8.0, 1 - bias)
                      : std::ldexp(1.0 + m / 8.0, e - bias);
  return (c & 0x80) ? -mag : mag;
}

/// fp8 encode by exhaustive nearest search: ties go to the even code,
/// values beyond the largest finite code saturate.
inline uint8_t refEncode(double x, int type) {
  bool fnuz = type == FP8Q_F8E4M3FNUZ;
  if (std::isnan(x))
    return fnuz ? 0x80 : (std::signbit(x) ? 0xFF : 0x7F);
  double maxv = fnuz ? 240.0 : 448.0;
  double a = std::fabs(x);
  if (a > maxv)
    a = maxv;
  int best = -1;
  double bestErr = 0;
  for (int c = 0; c < 128; ++c) {
    double v = refDecode(uint8_t(c), type);
    if (std::isnan(v))
      continue;
    double err = std::fabs(v - a);
    if (best < 0 || err < bestErr || (err == bestErr && (c & 1) == 0)) {
      best = c;
      bestErr = err;
    }
  }
  if (best == 0)
    return (!fnuz && std::signbit(x)) ? 0x80 : 0x00;
  return uint8_t(best | (std::signbit(x) ? 0x80 : 0));
}

inline float bf16ToFloat(uint16_t h) {
  uint32_t u = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// Deterministic uniform random numbers (xorshift).
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 2654435761u + 1) {}
  uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  double uniform(double lo, double hi) {
    return lo + (hi - lo) * double(next() >> 11) * 0x1.0p-53;
  }
};

} // namespace fp8q::test

#endif // FP8Q_UNITTESTS_RUNTIME_RUNTIMETESTUTIL_H
