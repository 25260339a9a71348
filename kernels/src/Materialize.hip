//===- Materialize.hip - Scale layout change, tiled through LDS
//------------===//
//
// dst[m, g] = src[m, g] for an [M, G] fp32 scale, each side through its own
// strides. A 32x32 tile is read with consecutive threads on the source's
// unit-stride dimension and written with consecutive threads on the
// destination's, so both global sides are coalesced; the LDS tile has a
// pitch of 33 floats so that the transposed access is bank-conflict free.
//
//===----------------------------------------------------------------------===//

#include "fp8q_kernels/IndexMath.h"
#include "fp8q_kernels/KernelArgs.h"

using namespace fp8q::kern;

extern "C" __global__
FP8Q_LAUNCH_BOUNDS(kTransBlock,
                   1) void fp8q_kernel_materialize(MaterializeArgs p) {
  gridPrologue();
  __shared__ float tile[kTransTile * kTransPitch]; // [m_local][g_local]
  const int tid = threadId();
  const int tx = tid % kTransTile, ty = tid / kTransTile;
  const int64_t g0 = blockIdX() * kTransTile, m0 = blockIdY() * kTransTile;
  // Walk the source along g unless it is column-major (unit m stride).
  const bool loadAlongG = p.ss0 != 1 || p.M == 1;
  const bool storeAlongG = p.ds0 != 1 || p.M == 1;
#pragma unroll
  for (int r = 0; r < kTransTile / kTransRows; ++r) {
    int ml = loadAlongG ? ty + r * kTransRows : tx;
    int gl = loadAlongG ? tx : ty + r * kTransRows;
    int64_t m = m0 + ml, g = g0 + gl;
    if (m < p.M && g < p.G)
      tile[ml * kTransPitch + gl] = p.src[scaleOffset(m, g, p.ss0, p.ss1)];
  }
  barrier();
#pragma unroll
  for (int r = 0; r < kTransTile / kTransRows; ++r) {
    int ml = storeAlongG ? ty + r * kTransRows : tx;
    int gl = storeAlongG ? tx : ty + r * kTransRows;
    int64_t m = m0 + ml, g = g0 + gl;
    if (m < p.M && g < p.G)
      p.dst[scaleOffset(m, g, p.ds0, p.ds1)] = tile[ml * kTransPitch + gl];
  }
}
