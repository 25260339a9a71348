//===- StepRun.h - Running one entry of a loaded fp8q artifact --*- C++ -*-===//
//
// The host and device runs of fp8q-step-run behind one interface: given an
// artifact's entry and host inputs, call `fp8q_step_<fn>` for warm-up and
// timed iterations and bring the results of one more step back to the host.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_STEP_RUN_STEPRUN_H
#define FP8Q_STEP_RUN_STEPRUN_H

#include "Manifest.h"
#include "Tensors.h"

#include <string>
#include <vector>

namespace fp8q::steprun {

/// `void fp8q_step_<fn>(void **args)`.
using StepFn = void (*)(void **);

/// A loaded artifact.
struct Artifact {
  std::string path;
  void *handle = nullptr;
  Manifest manifest;
};

/// The load-time call of a step compiled with prepare-weight-args: its
/// prepare entry and `fp8q_step_<prepare>`; both null for any other step.
/// A run calls it once, before warm-up, on the seeded original-layout
/// weights, frees those, and passes its results to every step.
struct PrepareCall {
  const Entry *entry = nullptr;
  StepFn fn = nullptr;
};

/// How often to run.
struct RunOptions {
  int warmup = 3, iters = 20;
  bool graph = false;
};

/// What a run measured and returned.
struct RunOutcome {
  std::vector<HostTensor> results;
  /// Mean time of a step over the timed iterations, microseconds.
  double microsPerStep = 0;
  /// Each timed step's time (device runs), microseconds.
  std::vector<double> stepMicros;
  /// Each timed step's host enqueue time (device runs without a graph):
  /// the wall time from calling the step function to its return, before
  /// any synchronization, microseconds.
  std::vector<double> hostMicros;
  std::string clock;
};

/// Runs `entry` of a host-mode artifact on host memory (wall clock).
bool runHost(const Artifact &artifact, const Entry &entry, StepFn step,
             const PrepareCall &prepare, const std::vector<HostTensor> &inputs,
             const RunOptions &options, RunOutcome &outcome,
             std::string &error);

/// Runs `entry` of a device-mode artifact: device buffers, one stream,
/// device-event timing, optionally one captured graph (the prepare call,
/// on the stream, is never captured). Fails with a message
/// when this fp8q-step-run was built without a GPU runtime.
bool runDevice(const Artifact &artifact, const Entry &entry, StepFn step,
               const PrepareCall &prepare,
               const std::vector<HostTensor> &inputs, const RunOptions &options,
               RunOutcome &outcome, std::string &error);

} // namespace fp8q::steprun

#endif // FP8Q_STEP_RUN_STEPRUN_H
