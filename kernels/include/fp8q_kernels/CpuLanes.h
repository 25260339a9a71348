//===- CpuLanes.h - The lane policy of the CPU wave models ------*- C++ -*-===//
//
// The CPU models of the kernels (WaveModel.h, MxWaveModel.h,
// DecodeGemmModel.h) run a kernel body written against a Wave policy with
// every lane of a wave held explicitly: a per-lane value is an array of N,
// one element per lane. This is that part of the policy; each model adds
// its matrix instruction. Host only.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_KERNELS_CPULANES_H
#define FP8Q_KERNELS_CPULANES_H

#include <array>

namespace fp8q::kern {

/// map / each / at over the N lanes of one wave.
template <int N> struct CpuLanes {
  template <class T> using Lanes = std::array<T, N>;

  template <class F> auto map(F f) {
    Lanes<decltype(f(0))> r;
    for (int l = 0; l < N; ++l)
      r[l] = f(l);
    return r;
  }
  template <class F> void each(F f) {
    for (int l = 0; l < N; ++l)
      f(l);
  }
  template <class T> T &at(Lanes<T> &x, int l) { return x[l]; }
};

} // namespace fp8q::kern

#endif // FP8Q_KERNELS_CPULANES_H
