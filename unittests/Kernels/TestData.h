//===- TestData.h - Random operands for the kernel model tests --*- C++ -*-===//

#ifndef FP8Q_UNITTESTS_KERNELS_TESTDATA_H
#define FP8Q_UNITTESTS_KERNELS_TESTDATA_H

#include "fp8q_kernels/Numerics.h"

#include "fp8q/Runtime/fp8q_runtime.h"

#include <cstdint>
#include <random>
#include <vector>

namespace fp8q::kern::test {

/// A random finite fp8 code of flavour t.
inline uint8_t randomFp8(std::mt19937 &rng, Fp8 t) {
  for (;;) {
    uint8_t b = (uint8_t)(rng() & 0xff);
    if (!(decodeFp8(b, t) == decodeFp8(b, t)))
      continue; // NaN
    return b;
  }
}

/// A 2-D memref descriptor over `data` (element offsets and strides).
template <class T>
fp8q_memref_2d memref2d(T *data, int64_t rows, int64_t cols, int64_t s0,
                        int64_t s1, int64_t offset = 0) {
  fp8q_memref_2d d;
  d.allocated = (void *)data;
  d.aligned = (void *)data;
  d.offset = offset;
  d.sizes[0] = rows;
  d.sizes[1] = cols;
  d.strides[0] = s0;
  d.strides[1] = s1;
  return d;
}

} // namespace fp8q::kern::test

#endif // FP8Q_UNITTESTS_KERNELS_TESTDATA_H
