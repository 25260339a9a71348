//===- torch_oracle_v2_shim.cpp - fp8q's encoders for bench/torch_oracle_v2.py
//
// The CPU runtime's encoders (include/fp8q/Runtime/fp8q_mx_numerics.h, the
// functions every fp8q runtime and kernel is checked against) over a range
// of fp32 bit patterns, for the PyTorch comparison: kind 0..2 the fp8 q
// types (fp8q_q_encode: E4M3FN, E4M3FNUZ, E5M2), 3 the fp4 code, 10
// fp8q_e8m0_encode (the scale byte of a power-of-two scale).
//
//===----------------------------------------------------------------------===//

#include "fp8q/Runtime/fp8q_mx_numerics.h"

#include <cstdint>
#include <cstring>

extern "C" void fp8q_oracle_encode(uint64_t first, int64_t n, int kind,
                                   uint8_t *out) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t bits = (uint32_t)(first + (uint64_t)i);
    float x;
    std::memcpy(&x, &bits, 4);
    out[i] = kind == 10 ? fp8q_e8m0_encode(x) : fp8q_q_encode(x, kind);
  }
}
