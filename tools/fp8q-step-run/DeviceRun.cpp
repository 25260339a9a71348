//===- DeviceRun.cpp - A device-mode artifact on a GPU --------------------===//
//
// Built with FP8Q_STEP_RUN_CUDA or FP8Q_STEP_RUN_HIP (fp8q-step-run-cuda /
// -hip); the host-only fp8q-step-run reports that it cannot run device mode.
//
//===----------------------------------------------------------------------===//

#include "StepRun.h"

#if defined(FP8Q_STEP_RUN_CUDA) || defined(FP8Q_STEP_RUN_HIP)
#include "DeviceApi.h"

#include <dlfcn.h>

#include <chrono>
#include <cstdio>

namespace fp8q::steprun {

namespace {
/// The device runtime's status API (include/fp8q/Runtime/fp8q_runtime.h of
/// libfp8q_runtime_cuda.so), resolved from the artifact's dependencies.
struct DeviceRuntime {
  int (*status)(void) = nullptr;
  const char *(*lastError)(void) = nullptr;
  void (*free)(void *, void *) = nullptr;

  bool resolve(void *handle, std::string &error) {
    status =
        reinterpret_cast<int (*)(void)>(dlsym(handle, "fp8q_device_status"));
    lastError = reinterpret_cast<const char *(*)(void)>(
        dlsym(handle, "fp8q_device_last_error"));
    free = reinterpret_cast<void (*)(void *, void *)>(
        dlsym(handle, "fp8q_device_free"));
    if (status && lastError && free)
      return true;
    error = "the device runtime lacks fp8q_device_status, "
            "fp8q_device_last_error or fp8q_device_free: compile the "
            "artifact with fp8q-compile --runtime=cuda (or hip) against a "
            "runtime that has them, or preload it (LD_PRELOAD)";
    return false;
  }
  /// False, with the runtime's message, after a failed step.
  bool check(std::string &error) const {
    if (status() == 0)
      return true;
    const char *message = lastError();
    error = std::string("device step failed: ") +
            (message ? message : "(no message)");
    return false;
  }
};

/// The runtime's communicator for one rank, destroyed with the session.
struct CommSession {
  int (*destroy)(void) = nullptr;

  bool open(void *handle, const DeviceRuntime &runtime, std::string &error) {
    auto init = reinterpret_cast<int (*)(int, int, const void *)>(
        dlsym(handle, "fp8q_rt_device_comm_init"));
    auto version = reinterpret_cast<int (*)(void)>(
        dlsym(handle, "fp8q_rt_device_comm_nccl_version"));
    destroy = reinterpret_cast<int (*)(void)>(
        dlsym(handle, "fp8q_rt_device_comm_destroy"));
    if (!init || !version || !destroy) {
      destroy = nullptr;
      error = "the artifact has collectives but its device runtime lacks "
              "fp8q_rt_device_comm_init: rebuild the runtime "
              "(scripts/build-cuda-runtime.sh)";
      return false;
    }
    if (init(1, 0, nullptr) != 0) {
      const char *message = runtime.lastError();
      error = std::string("fp8q_rt_device_comm_init(1 rank) failed: ") +
              (message ? message : "(no message)");
      destroy = nullptr;
      return false;
    }
    int code = version();
    std::printf("collectives: NCCL %d.%d.%d, 1 rank\n", code / 10000,
                code / 100 % 100, code % 100);
    return true;
  }
  ~CommSession() {
    if (destroy)
      (void)destroy();
  }
};

bool ok(hipError_t code, const char *what, std::string &error) {
  if (code == hipSuccess)
    return true;
  error = std::string(what) + ": " + hipGetErrorString(code);
  return false;
}
} // namespace

bool runDevice(const Artifact &artifact, const Entry &entry, StepFn step,
               const PrepareCall &prepare,
               const std::vector<HostTensor> &inputs, const RunOptions &options,
               RunOutcome &outcome, std::string &error) {
  DeviceRuntime runtime;
  if (!runtime.resolve(artifact.handle, error))
    return false;
  int devices = 0;
  if (!ok(hipGetDeviceCount(&devices), "hipGetDeviceCount", error))
    return false;
  if (devices == 0) {
    error = "no GPU";
    return false;
  }
  // A step with collectives (one rank: run() refused more) runs them
  // through the runtime's NCCL / RCCL communicator, as a serving stack's
  // rank would.
  CommSession comm;
  if (artifact.manifest.collectiveRanks == 1 &&
      !comm.open(artifact.handle, runtime, error))
    return false;
  hipStream_t stream;
  if (!ok(hipStreamCreate(&stream), "hipStreamCreate", error))
    return false;

  // Arguments: device copies of the host seeds.
  std::vector<void *> buffers(inputs.size(), nullptr);
  std::vector<Descriptor> args(inputs.size()), results(entry.results.size());
  std::vector<void *> slots;
  bool good = true;
  for (size_t i = 0; good && i < inputs.size(); ++i) {
    size_t bytes = denseBytes(inputs[i]);
    good = ok(hipMalloc(&buffers[i], bytes ? bytes : 1), "hipMalloc", error);
    // `--inputs constant` on a device: no host bytes, filled here.
    if (good && inputs[i].bytes.empty())
      good =
          ok(hipMemset(buffers[i], kConstantByte, bytes), "hipMemset", error);
    else if (good)
      good = ok(hipMemcpy(buffers[i], inputs[i].bytes.data(), bytes,
                          hipMemcpyHostToDevice),
                "hipMemcpy", error);
    args[i] = describeDense(inputs[i], buffers[i]);
    slots.push_back(&args[i]);
  }
  void *streamValue = stream;

  // Weights prepared once, on the stream, before warm-up (so never inside
  // a graph capture): the prepare entry takes the original-layout weights
  // and returns what the step takes in their place. An original buffer is
  // freed unless a prepared weight is a view of it.
  std::vector<Descriptor> prepared;
  std::vector<bool> preparedIsView;
  if (good && prepare.entry) {
    prepared.resize(prepare.entry->results.size());
    std::vector<void *> prepareSlots;
    for (int64_t index : entry.preparedArgs)
      prepareSlots.push_back(&args[index]);
    prepareSlots.push_back(&streamValue);
    for (Descriptor &result : prepared)
      prepareSlots.push_back(&result);
    prepare.fn(prepareSlots.data());
    good = runtime.check(error) &&
           ok(hipStreamSynchronize(stream), "prepare", error);
    Holdings originals;
    for (size_t i = 0; i < inputs.size(); ++i)
      originals.add(buffers[i], denseBytes(inputs[i]));
    for (const Descriptor &result : prepared)
      preparedIsView.push_back(originals.contains(result.allocated));
    for (size_t j = 0; good && j < prepared.size(); ++j) {
      int64_t index = entry.preparedArgs[j];
      Holdings viewable;
      viewable.add(buffers[index], denseBytes(inputs[index]));
      bool viewed = false;
      for (const Descriptor &result : prepared)
        viewed |= viewable.contains(result.allocated);
      if (!viewed) {
        good = ok(hipFree(buffers[index]), "hipFree", error);
        buffers[index] = nullptr;
      }
      args[index] = prepared[j];
    }
  }
  slots.push_back(&streamValue);
  for (Descriptor &result : results)
    slots.push_back(&result);
  auto release = [&] {
    for (Descriptor &result : results)
      if (result.allocated)
        runtime.free(result.allocated, stream);
  };
  // `hostMicros`, when given, gets the step call's own wall time: the host
  // enqueue cost, without the status check and the results' release.
  auto oneStep = [&](bool keep, double *hostMicros = nullptr) {
    auto start = std::chrono::steady_clock::now();
    step(slots.data());
    if (hostMicros)
      *hostMicros = std::chrono::duration<double, std::micro>(
                        std::chrono::steady_clock::now() - start)
                        .count();
    if (!runtime.check(error))
      return false;
    if (!keep)
      release();
    return true;
  };

  for (int i = 0; good && i < options.warmup; ++i)
    good = oneStep(false);
  good = good && ok(hipStreamSynchronize(stream), "warm-up", error);

  hipGraphExec_t exec = nullptr;
  if (good && options.graph) {
    // One step, results freed stream-ordered, captured once and replayed.
    // The capture is ended even when the step fails inside it, so the
    // stream leaves capture mode before anything else touches it.
    hipGraph_t graph = nullptr;
    good = ok(hipStreamBeginCapture(stream, hipStreamCaptureModeGlobal),
              "hipStreamBeginCapture", error);
    if (good) {
      bool stepOk = oneStep(false);
      std::string endError;
      bool ended = ok(hipStreamEndCapture(stream, &graph),
                      "hipStreamEndCapture", endError);
      good = stepOk && ended;
      if (stepOk && !ended)
        error = endError;
    }
    good = good && ok(hipGraphInstantiateWithFlags(&exec, graph, 0),
                      "hipGraphInstantiate", error);
    if (graph)
      (void)hipGraphDestroy(graph);
  }

  // One event between consecutive steps: each step's time, not only the
  // mean (the first step after a gap pays for the launch queue filling).
  std::vector<hipEvent_t> marks(options.iters + 1, nullptr);
  for (hipEvent_t &mark : marks)
    good = good && ok(hipEventCreate(&mark), "hipEventCreate", error);
  good = good && ok(hipEventRecord(marks[0], stream), "hipEventRecord", error);
  for (int i = 0; good && i < options.iters; ++i) {
    double hostMicros = 0;
    good = exec ? ok(hipGraphLaunch(exec, stream), "hipGraphLaunch", error)
                : oneStep(false, &hostMicros);
    if (!exec)
      outcome.hostMicros.push_back(hostMicros);
    good = good &&
           ok(hipEventRecord(marks[i + 1], stream), "hipEventRecord", error);
  }
  good = good &&
         ok(hipEventSynchronize(marks.back()), "hipEventSynchronize", error) &&
         runtime.check(error);
  float total = 0;
  for (int i = 0; good && i < options.iters; ++i) {
    float millis = 0;
    good = ok(hipEventElapsedTime(&millis, marks[i], marks[i + 1]),
              "hipEventElapsedTime", error);
    outcome.stepMicros.push_back(millis * 1e3);
    total += millis;
  }
  for (hipEvent_t mark : marks)
    if (mark)
      (void)hipEventDestroy(mark);
  outcome.microsPerStep = options.iters ? total * 1e3 / options.iters : 0.0;
  outcome.clock = exec ? "device events, one graph" : "device events";

  // One more step whose results come back.
  if (good && oneStep(true) &&
      ok(hipStreamSynchronize(stream), "hipStreamSynchronize", error)) {
    for (size_t r = 0; good && r < results.size(); ++r) {
      const TensorSpec &spec = entry.results[r];
      std::vector<uint8_t> span(
          spanBytes(results[r], spec.shape.size(), elementSize(spec.type)));
      good = ok(hipMemcpy(span.data(), results[r].aligned, span.size(),
                          hipMemcpyDeviceToHost),
                "hipMemcpy", error);
      outcome.results.push_back(gatherResult(spec, results[r], span.data()));
    }
    release();
    good = good && ok(hipStreamSynchronize(stream), "free", error) &&
           runtime.check(error);
  } else {
    good = false;
  }
  if (exec)
    (void)hipGraphExecDestroy(exec);
  // The run owns the prepared weights (docs/Artifact.md).
  bool freed = false;
  for (size_t j = 0; j < prepared.size(); ++j)
    if (prepared[j].allocated && !preparedIsView[j]) {
      runtime.free(prepared[j].allocated, stream);
      freed = true;
    }
  std::string freeError;
  if (freed &&
      !(ok(hipStreamSynchronize(stream), "free", freeError) &&
        runtime.check(freeError)) &&
      good) {
    good = false;
    error = freeError;
  }
  for (void *buffer : buffers)
    if (buffer)
      (void)hipFree(buffer);
  (void)hipStreamDestroy(stream);
  return good;
}

} // namespace fp8q::steprun

#else

namespace fp8q::steprun {

bool runDevice(const Artifact &artifact, const Entry &, StepFn,
               const PrepareCall &, const std::vector<HostTensor> &,
               const RunOptions &, RunOutcome &, std::string &error) {
  error = "'" + artifact.path +
          "' is a device-mode artifact; this fp8q-step-run is the host-only "
          "build (run fp8q-step-run-cuda or fp8q-step-run-hip, or build one "
          "with scripts/build-step-run.sh)";
  return false;
}

} // namespace fp8q::steprun

#endif
