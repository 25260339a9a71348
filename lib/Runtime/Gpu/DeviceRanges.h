//===- DeviceRanges.h - Which operands are device memory, cheaply -*- C++
//-*-===//
//
// The device ABI refuses host pointers (an error naming the operand, never
// a staging copy). Asking the driver about every operand of every call is
// most of a call's host time (two pointer-attribute queries per operand), so
// ranges already proven to be device memory are remembered: the step's
// stream-ordered temporaries when mgpuMemAlloc makes them (forgotten at
// mgpuMemFree), and the whole allocation around any pointer the driver
// once confirmed. FP8Q_RT_RANGE_CACHE=0 in the environment turns the cache
// off (every operand is asked about; the baseline of bench/host_overhead).
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_RUNTIME_GPU_DEVICERANGES_H
#define FP8Q_RUNTIME_GPU_DEVICERANGES_H

#include "GpuApi.h"

#include <stddef.h>
#include <stdint.h>

namespace fp8q::hiprt {

/// What the checks of one call share: the current device and whether the
/// call's stream is being captured (asked once per call, not per operand).
struct DeviceCheckContext {
  int device = -1;
  bool capturing = false;
  /// Why there is no context (no GPU), or nullptr.
  const char *error = nullptr;
};

/// The context for a call on `stream` (null: not captured).
DeviceCheckContext deviceCheckContext(hipStream_t stream);

/// Why `p .. p + bytes` is not device memory of `ctx.device`, or nullptr
/// when it is; `buf` holds the text. While the stream is being captured,
/// memory the driver does not know is accepted (a captured step's own
/// stream-ordered allocations have addresses but no memory yet); host
/// memory the driver registered and other devices' memory are refused.
const char *notDeviceMemory(const DeviceCheckContext &ctx, const void *p,
                            int64_t bytes, char *buf, size_t n);

/// Records `p .. p + bytes` as device memory of `device` (an allocation the
/// runtime made).
void rememberDeviceRange(const void *p, uint64_t bytes, int device);
/// Forgets the range that starts at `p` (the runtime freed it).
void forgetDeviceRange(const void *p);

} // namespace fp8q::hiprt

#endif // FP8Q_RUNTIME_GPU_DEVICERANGES_H
