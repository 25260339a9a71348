//===- Collectives.cpp - all_gather and reduce_scatter on one rank --------===//
//
// The CPU runtime is one process and one rank: a collective with ranks == 1
// is a copy of x into out (all_gather of one rank is x; a sum over one rank
// is x, bit for bit), and ranks > 1 is refused after the checks every
// runtime runs (lib/Runtime/Common/fp8q_collective_checks.h). The GPU
// runtimes run the same checks, then NCCL / RCCL (lib/Runtime/Gpu).
//
//===----------------------------------------------------------------------===//

#include "CpuRuntime.h"
#include "fp8q_collective_checks.h"

#include <cstring>

namespace fp8q::rt {

int32_t collectiveImpl(const char *entry, CollectiveKind kind,
                       fp8q_memref_2d *x, fp8q_memref_2d *out,
                       int64_t elemBytes, int64_t ranks) {
  clearError();
  CollectivePlan plan;
  if (int32_t s = checkCollective(entry, kind, x, out, elemBytes, ranks, plan))
    return s;
  if (ranks != 1)
    return fail(entry, FP8Q_ERR_ARG,
                "ranks = %lld, but the CPU runtime is one rank (ranks must be "
                "1); a multi-rank step runs on a GPU runtime with a "
                "communicator (fp8q_rt_device_comm_init)",
                (long long)ranks);
  // Dense and disjoint (checked): one copy.
  std::memcpy(plan.out.base, plan.x.base, size_t(plan.xBytes));
  return FP8Q_OK;
}

} // namespace fp8q::rt
