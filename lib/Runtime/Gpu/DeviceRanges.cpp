//===- DeviceRanges.cpp - Which operands are device memory, cheaply -------===//

#include "DeviceRanges.h"

#include <map>
#include <mutex>
#include <stdlib.h>
#include <string.h>

#ifdef FP8Q_HIP_ON_CUDA
#include <dlfcn.h>
#endif

namespace fp8q::hiprt {
namespace {

/// A proven range [start, end) of one device.
struct Range {
  uintptr_t end;
  int device;
};

std::mutex rangesMutex;
/// Keyed by start; ranges never overlap (allocations do not).
std::map<uintptr_t, Range> ranges;

bool cacheEnabled() {
  static const bool enabled = [] {
    const char *v = getenv("FP8Q_RT_RANGE_CACHE");
    return !(v && strcmp(v, "0") == 0);
  }();
  return enabled;
}

/// True if [p, p + bytes) lies in one remembered range of `device`.
bool known(uintptr_t p, int64_t bytes, int device) {
  std::lock_guard<std::mutex> lock(rangesMutex);
  auto it = ranges.upper_bound(p);
  if (it == ranges.begin())
    return false;
  --it;
  return it->second.device == device && p + (uint64_t)bytes <= it->second.end;
}

void insert(uintptr_t start, uintptr_t end, int device) {
  std::lock_guard<std::mutex> lock(rangesMutex);
  // A new allocation replaces whatever overlapping range was remembered
  // (freed memory the runtime did not see go).
  auto it = ranges.lower_bound(start);
  if (it != ranges.begin() && std::prev(it)->second.end > start)
    --it;
  while (it != ranges.end() && it->first < end)
    it = ranges.erase(it);
  ranges[start] = Range{end, device};
}

/// The allocation around `p` as the driver knows it, if it says.
bool allocationRange(const void *p, uintptr_t &start, uintptr_t &end) {
#ifdef FP8Q_HIP_ON_CUDA
  // The runtime API has no address-range query; the driver's is in the
  // libcuda.so.1 the CUDA runtime loaded.
  using Fn = int (*)(unsigned long long *, size_t *, unsigned long long);
  static Fn getRange = [] {
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    return h ? reinterpret_cast<Fn>(dlsym(h, "cuMemGetAddressRange_v2"))
             : nullptr;
  }();
  unsigned long long base = 0;
  size_t size = 0;
  if (!getRange || getRange(&base, &size, (unsigned long long)p) != 0)
    return false;
#else
  hipDeviceptr_t base = nullptr;
  size_t size = 0;
  if (hipMemGetAddressRange(&base, &size, const_cast<void *>(p)) !=
      hipSuccess) {
    (void)hipGetLastError();
    return false;
  }
#endif
  start = (uintptr_t)base;
  end = start + size;
  return size > 0;
}

/// True if the driver knows nothing of the memory at `attr` (not a host
/// allocation it registered either).
bool isUnknownMemory(hipError_t e, const hipPointerAttribute_t &attr) {
  if (e != hipSuccess)
    return true;
#ifdef FP8Q_HIP_ON_CUDA
  return attr.type == cudaMemoryTypeUnregistered;
#else
  (void)attr;
  return false;
#endif
}

} // namespace

DeviceCheckContext deviceCheckContext(hipStream_t stream) {
  DeviceCheckContext ctx;
  if (hipGetDevice(&ctx.device) != hipSuccess) {
    (void)hipGetLastError();
    ctx.error = "there is no GPU device";
    return ctx;
  }
  hipStreamCaptureStatus capture = hipStreamCaptureStatusNone;
  if (stream && hipStreamIsCapturing(stream, &capture) != hipSuccess)
    capture = hipStreamCaptureStatusNone;
  (void)hipGetLastError();
  ctx.capturing = capture == hipStreamCaptureStatusActive;
  return ctx;
}

const char *notDeviceMemory(const DeviceCheckContext &ctx, const void *p,
                            int64_t bytes, char *buf, size_t n) {
  if (bytes <= 0)
    return nullptr;
  if (ctx.error) {
    snprintf(buf, n, "not device memory (%p): %s", p, ctx.error);
    return buf;
  }
  const bool cache = cacheEnabled();
  if (cache && known((uintptr_t)p, bytes, ctx.device))
    return nullptr;
  const char *ends[2] = {static_cast<const char *>(p),
                         static_cast<const char *>(p) + (bytes - 1)};
  bool unknown = false;
  for (int i = 0; i < 2; ++i) {
    hipPointerAttribute_t attr;
    hipError_t e = hipPointerGetAttributes(&attr, ends[i]);
    (void)hipGetLastError(); // unregistered host memory is an error on 5.x
    if (ctx.capturing && isUnknownMemory(e, attr)) {
      unknown = true;
      continue;
    }
    if (e != hipSuccess || !FP8Q_HIP_IS_DEVICE_MEMORY(attr)) {
      if (i == 0)
        snprintf(buf, n, "host memory (%p)", p);
      else
        snprintf(buf, n, "device memory at %p but its last byte (+%lld) is not",
                 p, (long long)(bytes - 1));
      return buf;
    }
    if (attr.device != ctx.device) {
      snprintf(buf, n, "memory of device %d (%p), the current device is %d",
               (int)attr.device, p, ctx.device);
      return buf;
    }
  }
  // Remember the whole allocation the driver confirmed, when it covers
  // the operand (it always should).
  uintptr_t start = 0, end = 0;
  if (cache && !unknown && allocationRange(p, start, end) &&
      start <= (uintptr_t)p && (uintptr_t)p + (uint64_t)bytes <= end)
    insert(start, end, ctx.device);
  return nullptr;
}

void rememberDeviceRange(const void *p, uint64_t bytes, int device) {
  if (p && bytes && cacheEnabled())
    insert((uintptr_t)p, (uintptr_t)p + bytes, device);
}

void forgetDeviceRange(const void *p) {
  if (!p || !cacheEnabled())
    return;
  std::lock_guard<std::mutex> lock(rangesMutex);
  ranges.erase((uintptr_t)p);
}

} // namespace fp8q::hiprt
