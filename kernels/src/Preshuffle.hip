//===- Preshuffle.hip - Weight preshuffle to the 16x16 MFMA layout
//---------===//
//
// SPEC's preshuffle_16x16 keeps runs of 16 consecutive k contiguous on both
// sides, so every thread moves one 16-byte run: destination run c comes
// from preshuffleRunSource(c) (IndexMath.h).
//
//===----------------------------------------------------------------------===//

#include "fp8q_kernels/IndexMath.h"
#include "fp8q_kernels/KernelArgs.h"

using namespace fp8q::kern;

/// Threads per preshuffle block.
constexpr int kPreshuffleBlock = 256;

extern "C" __global__
FP8Q_LAUNCH_BOUNDS(kPreshuffleBlock,
                   1) void fp8q_kernel_preshuffle(PreshuffleArgs p) {
  gridPrologue();
  const int64_t c = blockIdX() * kPreshuffleBlock + threadId();
  if (c >= p.N * p.K / 16)
    return;
  reinterpret_cast<Bytes16 *>(p.dst)[c] = *reinterpret_cast<const Bytes16 *>(
      p.w + preshuffleRunSource(c, p.K, p.ldw));
}

/// The inverse: plain [N, K] dst (row stride ldw) from the dense
/// preshuffled buffer `w`.
extern "C" __global__
FP8Q_LAUNCH_BOUNDS(kPreshuffleBlock,
                   1) void fp8q_kernel_unpreshuffle(PreshuffleArgs p) {
  gridPrologue();
  const int64_t c = blockIdX() * kPreshuffleBlock + threadId();
  if (c >= p.N * p.K / 16)
    return;
  *reinterpret_cast<Bytes16 *>(p.dst + preshuffleRunSource(c, p.K, p.ldw)) =
      reinterpret_cast<const Bytes16 *>(p.w)[c];
}
