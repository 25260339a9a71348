//===- LauncherModule.cpp - Launch the kernels through hipModule ----------===//
//
// Picks the embedded code object whose architecture is the device's
// (hipDeviceProp_t::gcnArchName, feature suffixes dropped), loads it with
// hipModuleLoadData and launches kernels with hipModuleLaunchKernel.
//
//===----------------------------------------------------------------------===//

#include "EmbeddedCodeObjects.h"
#include "GpuApi.h"
#include "Launcher.h"

#include "fp8q/Runtime/fp8q_contracts.h"

#include <mutex>

namespace fp8q::hiprt {

namespace {

struct ModuleState {
  bool ok = false;
  std::string error;
  DeviceInfo info;
  hipModule_t module = nullptr;
  hipFunction_t functions[(int)KernelId::Count] = {};
};

std::string hipMessage(const char *what, hipError_t e) {
  return std::string(what) + " failed: " + hipGetErrorString(e);
}

ModuleState &state() {
  static ModuleState s;
  static std::once_flag once;
  std::call_once(once, [] {
    int count = 0;
    hipError_t e = hipGetDeviceCount(&count);
    if (e != hipSuccess || count == 0) {
      s.error = std::string("no HIP device (hipGetDeviceCount: ") +
                (e == hipSuccess ? "0 devices" : hipGetErrorString(e)) +
                "); libfp8q_runtime_hip.so needs an AMD GPU (gfx950 or "
                "gfx942), use libfp8q_runtime_cpu.so otherwise";
      return;
    }
    hipDeviceProp_t prop;
    if ((e = hipGetDeviceProperties(&prop, 0)) != hipSuccess) {
      s.error = hipMessage("hipGetDeviceProperties", e);
      return;
    }
    std::string arch = prop.gcnArchName;
    arch = arch.substr(0, arch.find(':'));
    s.info.arch = arch;
    const EmbeddedCodeObject *co = nullptr;
    std::string built;
    for (const EmbeddedCodeObject *c = kEmbeddedCodeObjects; c->arch; ++c) {
      built += std::string(built.empty() ? "" : ", ") + c->arch;
      if (arch == c->arch)
        co = c;
    }
    if (!co) {
      s.error = "no fp8q code object for HIP device architecture " + arch +
                " (built for " + built + ")";
      return;
    }
    if ((e = hipModuleLoadData(&s.module, co->begin)) != hipSuccess) {
      s.error = hipMessage("hipModuleLoadData", e);
      return;
    }
    const bool gfx950 = arch == "gfx950";
    for (int i = 0; i < (int)KernelId::Count; ++i)
      if (!isNvidiaOnlyKernel((KernelId)i) &&
          (gfx950 || !isGfx950OnlyKernel((KernelId)i)) &&
          (e = hipModuleGetFunction(&s.functions[i], s.module,
                                    kKernelNames[i])) != hipSuccess) {
        s.error =
            hipMessage("hipModuleGetFunction", e) + " for " + kKernelNames[i];
        return;
      }
    s.info.hasMfma = true;
    s.info.mfmaFp8 = arch == "gfx942" ? FP8Q_F8E4M3FNUZ : FP8Q_F8E4M3FN;
    s.info.mxMfma = gfx950;
    s.info.sms = prop.multiProcessorCount;
    s.ok = true;
  });
  return s;
}

} // namespace

bool initDevice(DeviceInfo &info, std::string &error) {
  ModuleState &s = state();
  if (!s.ok) {
    error = s.error;
    return false;
  }
  info = s.info;
  return true;
}

bool launchAsync(KernelId id, Dim3 grid, Dim3 block, void **args, void *stream,
                 std::string &error) {
  ModuleState &s = state();
  if (!s.functions[(int)id]) {
    error = std::string(kKernelNames[(int)id]) + " does not exist on " +
            s.info.arch;
    return false;
  }
  hipError_t e = hipModuleLaunchKernel(s.functions[(int)id], grid.x, grid.y,
                                       grid.z, block.x, block.y, block.z, 0,
                                       (hipStream_t)stream, args, nullptr);
  if (e != hipSuccess) {
    error = hipMessage(kKernelNames[(int)id], e);
    return false;
  }
  traceLaunch(id, grid, block);
  return true;
}

} // namespace fp8q::hiprt
