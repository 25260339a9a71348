//===- fp8q_collective_checks.h - Checks of the collectives -----*- C++ -*-===//
//
// The argument checks of the collectives (all_gather along dim 0 and the
// bf16 sum reduce_scatter along dim 0), shared by the CPU runtime and the
// GPU runtimes' device entry points so that both accept and reject the same
// calls with the same statuses and messages (docs/RuntimeABI.md,
// "Collectives"). Header-only C++17 on top of fp8q_operand_checks.h, no
// MLIR, no NCCL.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_RUNTIME_FP8Q_COLLECTIVE_CHECKS_H
#define FP8Q_RUNTIME_FP8Q_COLLECTIVE_CHECKS_H

#include "fp8q_operand_checks.h"

#include <cstdint>

namespace fp8q::rt {

/// The most ranks a collective accepts (so that ranks * rows cannot
/// overflow: rows <= 2^48).
constexpr int64_t kMaxCollectiveRanks = int64_t(1) << 14;

/// Which collective a call is.
enum class CollectiveKind { AllGather, ReduceScatter };

/// What a collective reads and writes once checkCollective accepted it:
/// x and out are dense row-major, so each is `bytes` contiguous bytes from
/// its base.
struct CollectivePlan {
  View2 x, out;
  int64_t ranks = 0;
  size_t elemBytes = 0;
  /// Dense bytes of x and of out.
  int64_t xBytes = 0, outBytes = 0;
};

/// Checks that operand `name` of a collective is dense row-major: strides
/// (cols, 1), an extent of 1 making its stride irrelevant. Anything else
/// (a column-major scale, strides (1, M); a column slice) is refused: a
/// dim-0 collective moves each rank's rows as one contiguous block, so a
/// column-major buffer would interleave the ranks' blocks wrongly (the
/// vLLM 42118 class of bug, where a gathered column-major scale was read
/// scrambled). The compiler materializes such an operand row-major first.
inline int32_t checkCollectiveDense(const char *entry, const char *name,
                                    const View2 &v) {
  const bool ok = (v.rows == 1 || v.s0 == v.cols) && (v.cols == 1 || v.s1 == 1);
  if (ok)
    return FP8Q_OK;
  return fail(entry, FP8Q_ERR_LAYOUT,
              "operand %s must be dense row-major (strides (%lld, 1)) but has "
              "strides (%lld, %lld) [sizes %lld x %lld]: a dim-0 collective "
              "moves each rank's rows as one block, so a column-major or "
              "strided buffer (e.g. a col_major scale) would interleave the "
              "ranks' blocks wrongly; materialize it row-major first",
              name, (long long)v.cols, (long long)v.s0, (long long)v.s1,
              (long long)v.rows, (long long)v.cols);
}

/// Validates a collective's arguments, in this order: ranks in [1, 2^14],
/// elem_bytes in {1, 2, 4} (all_gather; reduce_scatter is bf16, 2), x (any
/// non-empty [rows, cols]), x dense row-major, for reduce_scatter
/// rows % ranks == 0, out ([ranks * rows, cols] for all_gather,
/// [rows / ranks, cols] for reduce_scatter, of the same element size),
/// out dense row-major, and x and out sharing no byte. Fills `plan`.
inline int32_t checkCollective(const char *entry, CollectiveKind kind,
                               const fp8q_memref_2d *x,
                               const fp8q_memref_2d *out, int64_t elemBytes,
                               int64_t ranks, CollectivePlan &plan) {
  if (ranks < 1 || ranks > kMaxCollectiveRanks)
    return fail(entry, FP8Q_ERR_ARG, "ranks %lld must be in [1, %lld]",
                (long long)ranks, (long long)kMaxCollectiveRanks);
  if (elemBytes != 1 && elemBytes != 2 && elemBytes != 4)
    return fail(entry, FP8Q_ERR_ARG,
                "elem_bytes %lld must be 1, 2 or 4 (the element size of x and "
                "out)",
                (long long)elemBytes);
  const size_t es = size_t(elemBytes);
  CollectivePlan &p = plan;
  if (int32_t s = checkOperand(entry, "x", x, es, -1, -1, Access::Read, p.x))
    return s;
  if (int32_t s = checkCollectiveDense(entry, "x", p.x))
    return s;
  const int64_t rows = p.x.rows, cols = p.x.cols;
  int64_t outRows;
  if (kind == CollectiveKind::AllGather) {
    outRows = ranks * rows; // ranks <= 2^14, rows <= 2^48: no overflow
  } else {
    if (rows % ranks != 0)
      return fail(entry, FP8Q_ERR_SHAPE,
                  "operand x has %lld rows, which ranks = %lld does not "
                  "divide: reduce_scatter gives each rank rows / ranks rows",
                  (long long)rows, (long long)ranks);
    outRows = rows / ranks;
  }
  if (int32_t s = checkOperand(entry, "out", out, es, outRows, cols,
                               Access::Write, p.out))
    return s;
  if (int32_t s = checkCollectiveDense(entry, "out", p.out))
    return s;
  if (rangesOverlap(p.x, p.out))
    return fail(entry, FP8Q_ERR_LAYOUT,
                "operand out overlaps operand x: a collective's output must "
                "share no byte with its input (in place is not supported)");
  p.ranks = ranks;
  p.elemBytes = es;
  p.xBytes = rows * cols * elemBytes;
  p.outBytes = outRows * cols * elemBytes;
  return FP8Q_OK;
}

} // namespace fp8q::rt

#endif // FP8Q_RUNTIME_FP8Q_COLLECTIVE_CHECKS_H
