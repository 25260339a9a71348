//===- MgpuWrappers.cpp - The mgpu* functions gpu-to-llvm output calls ----===//
//
// Upstream MLIR's `gpu-to-llvm` lowers gpu.launch_func, gpu.alloc, ... to
// calls of the mgpu* functions of mlir/lib/ExecutionEngine/
// CudaRuntimeWrappers.cpp and RocmRuntimeWrappers.cpp, which Debian does not
// ship; these have the same signatures. Unlike upstream's, nothing here
// aborts: device-mode steps are loaded into serving processes. Module loads
// run from the artifact's global constructors (dlopen time), so a failure
// (no device, no image for this architecture) is recorded, the module is
// null, and launches of its functions enqueue nothing and set the calling
// thread's sticky error (GpuOps.h).
//
//===----------------------------------------------------------------------===//

#include "DeviceRanges.h"
#include "GpuApi.h"
#include "GpuOps.h"

#include <mutex>
#include <string>

#define FP8Q_MGPU_EXPORT extern "C"

using fp8q::rt::fail;
using namespace fp8q::hiprt;

namespace {

/// The first module-load failure of the process: threads that launch a
/// function of that module later see it in their own error.
std::mutex loadErrorMutex;
std::string loadError;

/// Fails `entry` with FP8Q_ERR_DEVICE and makes it sticky.
void mgpuFail(const char *entry, const std::string &msg) {
  setSticky(fail(entry, FP8Q_ERR_DEVICE, "%s", msg.c_str()));
}

uint32_t readU32(const unsigned char *p) {
  return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/// The architectures a code object was built for, where the format says
/// so: ELF e_flags (hsaco: EF_AMDGPU_MACH; cubin: the SM in the low byte),
/// the entries of a CUDA fatbin, or a PTX `.target`. Empty if unknown.
std::string builtFor(const void *data, size_t size) {
  const unsigned char *p = static_cast<const unsigned char *>(data);
  std::string out;
  if (!p)
    return out;
  auto append = [&](const std::string &a) {
    if (out.find(a) == std::string::npos)
      out += (out.empty() ? "" : ", ") + a;
  };
  if (size >= 52 && p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F') {
    uint32_t flags = readU32(p + (p[4] == 2 ? 48 : 36));
#ifdef FP8Q_HIP_ON_CUDA
    unsigned sm = flags & 0xff;
    if (sm >= 30 && sm < 200)
      append("sm_" + std::to_string(sm));
#else
    switch (flags & 0xff) {
    case 0x3f:
      append("gfx90a");
      break;
    case 0x4c:
      append("gfx942");
      break;
    case 0x4f:
      append("gfx950");
      break;
    case 0x41:
      append("gfx1100");
      break;
    default:
      break;
    }
#endif
    return out;
  }
  if (size >= 16 && readU32(p) == 0xBA55ED50u) {
    // Fatbin: a 16-byte header, then entries {u16 kind, u16, u32 header
    // size, u64 payload size, ..., u32 arch at +28}.
    uint64_t total = 0;
    memcpy(&total, p + 8, 8);
    size_t off = 16, end = 16 + (size_t)std::min<uint64_t>(total, size - 16);
    while (off + 32 <= end) {
      uint16_t kind = p[off] | p[off + 1] << 8;
      uint32_t hsize = readU32(p + off + 4);
      uint64_t psize = 0;
      memcpy(&psize, p + off + 8, 8);
      uint32_t arch = readU32(p + off + 28);
      if ((kind == 1 || kind == 2) && arch >= 30 && arch < 200)
        append((kind == 1 ? "compute_" : "sm_") + std::to_string(arch));
      if (hsize < 32 || psize > end)
        break;
      off += hsize + psize;
    }
    return out;
  }
  if (const char *t = strstr((const char *)p, ".target ")) {
    const char *e = t + 8;
    while (*e && *e != '\n' && *e != ',' && *e != ' ')
      ++e;
    append(std::string(t + 8, e));
  }
  return out;
}

void *loadModule(const char *entry, const void *data, size_t size,
                 int jitOptLevel) {
  if (!data) {
    mgpuFail(entry, "the module's code object is null");
    return nullptr;
  }
  void *module = nullptr;
  hipError_t e = fp8q::gpu::moduleLoad(&module, data, jitOptLevel);
  if (e == hipSuccess)
    return module;
  (void)hipGetLastError();
  char arch[64];
  fp8q::gpu::deviceArch(arch, sizeof arch);
  std::string built = builtFor(data, size), msg;
  if (e == hipErrorNoBinaryForGpu)
    msg = "no kernel image for this GPU: the step was compiled for " +
          (built.empty() ? std::string("another architecture") : built) +
          ", this device is " + arch;
  else
    msg = std::string("loading the step's GPU module (built for ") +
          (built.empty() ? "?" : built) + ", device " + arch +
          ") failed: " + hipGetErrorString(e);
  {
    std::lock_guard<std::mutex> lock(loadErrorMutex);
    if (loadError.empty())
      loadError = msg;
  }
  mgpuFail(entry, msg);
  return nullptr;
}

/// Reports a failed stream operation of `entry` (sticky).
void check(const char *entry, hipError_t e) {
  if (e == hipSuccess)
    return;
  (void)hipGetLastError();
  mgpuFail(entry, hipGetErrorString(e));
}

} // namespace

FP8Q_MGPU_EXPORT void *mgpuModuleLoad(void *data, size_t gpuBlobSize) {
  return loadModule("mgpuModuleLoad", data, gpuBlobSize, -1);
}

FP8Q_MGPU_EXPORT void *mgpuModuleLoadJIT(void *data, int optLevel) {
#ifdef FP8Q_HIP_ON_CUDA
  return loadModule("mgpuModuleLoadJIT", data,
                    data ? strlen((const char *)data) + 1 : 0,
                    optLevel < 0 ? 0 : optLevel);
#else
  (void)data;
  (void)optLevel;
  mgpuFail("mgpuModuleLoadJIT", "PTX JIT does not exist on AMD GPUs");
  return nullptr;
#endif
}

FP8Q_MGPU_EXPORT void mgpuModuleUnload(void *module) {
  if (!module)
    return;
  // The artifact's destructors run at process exit, possibly after the
  // driver unloaded: its modules are gone with it, nothing to report.
  hipError_t e = fp8q::gpu::moduleUnload(module);
  if (e == hipErrorDeinitialized) {
    (void)hipGetLastError();
    return;
  }
  check("mgpuModuleUnload", e);
}

FP8Q_MGPU_EXPORT void *mgpuModuleGetFunction(void *module, const char *name) {
  if (!module)
    return nullptr;
  void *fn = nullptr;
  hipError_t e = fp8q::gpu::moduleGetFunction(&fn, module, name);
  if (e != hipSuccess) {
    (void)hipGetLastError();
    std::string msg;
    if (e == hipErrorNoBinaryForGpu) {
      // Lazily loaded libraries report a missing image here.
      char arch[64];
      msg = std::string("no kernel image for this GPU: the step's kernel ") +
            (name ? name : "(null)") +
            " was compiled for another "
            "architecture, this device is " +
            fp8q::gpu::deviceArch(arch, sizeof arch);
      std::lock_guard<std::mutex> lock(loadErrorMutex);
      if (loadError.empty())
        loadError = msg;
    } else {
      msg = std::string("kernel ") + (name ? name : "(null)") +
            " is not in the module: " + hipGetErrorString(e);
    }
    mgpuFail("mgpuModuleGetFunction", msg);
    return nullptr;
  }
  return fn;
}

FP8Q_MGPU_EXPORT void mgpuLaunchKernel(void *function, intptr_t gridX,
                                       intptr_t gridY, intptr_t gridZ,
                                       intptr_t blockX, intptr_t blockY,
                                       intptr_t blockZ, int32_t smem,
                                       void *stream, void **params,
                                       void **extra, size_t paramsCount) {
  (void)paramsCount;
  if (stickyStatus() != FP8Q_OK)
    return;
  if (!function) {
    std::string why;
    {
      std::lock_guard<std::mutex> lock(loadErrorMutex);
      why = loadError.empty() ? "its module was not loaded" : loadError;
    }
    mgpuFail("mgpuLaunchKernel", "the kernel function is null (" + why + ")");
    return;
  }
  check("mgpuLaunchKernel",
        fp8q::gpu::launchFunction(
            function, (unsigned)gridX, (unsigned)gridY, (unsigned)gridZ,
            (unsigned)blockX, (unsigned)blockY, (unsigned)blockZ,
            (unsigned)smem, (hipStream_t)stream, params, extra));
}

FP8Q_MGPU_EXPORT void *mgpuStreamCreate() {
  hipStream_t s = nullptr;
  check("mgpuStreamCreate", hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
  return s;
}

FP8Q_MGPU_EXPORT void mgpuStreamDestroy(void *stream) {
  check("mgpuStreamDestroy", hipStreamDestroy((hipStream_t)stream));
}

FP8Q_MGPU_EXPORT void mgpuStreamSynchronize(void *stream) {
  check("mgpuStreamSynchronize", hipStreamSynchronize((hipStream_t)stream));
}

FP8Q_MGPU_EXPORT void mgpuStreamWaitEvent(void *stream, void *event) {
  check("mgpuStreamWaitEvent",
        hipStreamWaitEvent((hipStream_t)stream, (hipEvent_t)event, 0));
}

FP8Q_MGPU_EXPORT void *mgpuEventCreate() {
  hipEvent_t e = nullptr;
  check("mgpuEventCreate", hipEventCreateWithFlags(&e, hipEventDisableTiming));
  return e;
}

FP8Q_MGPU_EXPORT void mgpuEventDestroy(void *event) {
  check("mgpuEventDestroy", hipEventDestroy((hipEvent_t)event));
}

FP8Q_MGPU_EXPORT void mgpuEventSynchronize(void *event) {
  check("mgpuEventSynchronize", hipEventSynchronize((hipEvent_t)event));
}

FP8Q_MGPU_EXPORT void mgpuEventRecord(void *event, void *stream) {
  check("mgpuEventRecord",
        hipEventRecord((hipEvent_t)event, (hipStream_t)stream));
}

FP8Q_MGPU_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, void *stream,
                                    bool isHostShared) {
  if (sizeBytes == 0)
    return nullptr;
  void *p = nullptr;
  // Host-shared memory is managed memory, not stream-ordered (as upstream).
  hipError_t e = isHostShared
                     ? hipMallocManaged(&p, sizeBytes, hipMemAttachGlobal)
                     : hipMallocAsync(&p, sizeBytes, (hipStream_t)stream);
  if (e != hipSuccess) {
    (void)hipGetLastError();
    mgpuFail("mgpuMemAlloc", "allocating " + std::to_string(sizeBytes) +
                                 " bytes: " + hipGetErrorString(e));
    return nullptr;
  }
  // The step's own buffer: its operand checks need not ask the driver.
  int device = -1;
  if (hipGetDevice(&device) == hipSuccess)
    rememberDeviceRange(p, sizeBytes, device);
  return p;
}

FP8Q_MGPU_EXPORT void mgpuMemFree(void *ptr, void *stream) {
  // Frees run even with a sticky error: they release, never write.
  if (ptr) {
    forgetDeviceRange(ptr);
    check("mgpuMemFree", hipFreeAsync(ptr, (hipStream_t)stream));
  }
}

FP8Q_MGPU_EXPORT void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                                 void *stream) {
  if (stickyStatus() != FP8Q_OK || sizeBytes == 0)
    return;
  check("mgpuMemcpy", hipMemcpyAsync(dst, src, sizeBytes, hipMemcpyDefault,
                                     (hipStream_t)stream));
}

#ifdef FP8Q_HIP_ON_CUDA
namespace {
/// cuMemsetD32Async / cuMemsetD16Async through the runtime's driver entry
/// points: the library then needs no link against libcuda.
template <class T> using MemsetFn = int (*)(uintptr_t, T, size_t, void *);
template <class T> MemsetFn<T> driverMemset(const char *name) {
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault,
                                       &q) != cudaSuccess ||
      q != cudaDriverEntryPointSuccess)
    return nullptr;
  return (MemsetFn<T>)fn;
}
template <class T>
void memsetN(const char *entry, const char *driverName, void *dst, T value,
             size_t count, void *stream) {
  static MemsetFn<T> fn = driverMemset<T>(driverName);
  if (!fn) {
    mgpuFail(entry, std::string("the CUDA driver has no ") + driverName);
    return;
  }
  if (int r = fn((uintptr_t)dst, value, count, stream))
    mgpuFail(entry, std::string(driverName) + " failed with CUresult " +
                        std::to_string(r));
}
} // namespace
#endif

FP8Q_MGPU_EXPORT void mgpuMemset32(void *dst, unsigned value, size_t count,
                                   void *stream) {
  if (stickyStatus() != FP8Q_OK || count == 0)
    return;
#ifdef FP8Q_HIP_ON_CUDA
  memsetN<unsigned>("mgpuMemset32", "cuMemsetD32Async", dst, value, count,
                    stream);
#else
  check("mgpuMemset32",
        hipMemsetD32Async(dst, (int)value, count, (hipStream_t)stream));
#endif
}

FP8Q_MGPU_EXPORT void mgpuMemset16(void *dst, unsigned short value,
                                   size_t count, void *stream) {
  if (stickyStatus() != FP8Q_OK || count == 0)
    return;
#ifdef FP8Q_HIP_ON_CUDA
  memsetN<unsigned short>("mgpuMemset16", "cuMemsetD16Async", dst, value, count,
                          stream);
#else
  check("mgpuMemset16",
        hipMemsetD16Async(dst, value, count, (hipStream_t)stream));
#endif
}
