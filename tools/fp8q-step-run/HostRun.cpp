//===- HostRun.cpp - A host-mode artifact on host memory ------------------===//

#include "StepRun.h"

#include <chrono>
#include <cstdlib>

namespace fp8q::steprun {

/// True if `ptr` lies in one of the inputs: a result that is an argument
/// returned unchanged is not the caller's to free.
static bool isInput(const void *ptr, std::vector<HostTensor> &inputs) {
  for (HostTensor &input : inputs) {
    const uint8_t *begin = input.bytes.data();
    if (ptr >= begin && ptr < begin + input.bytes.size())
      return true;
  }
  return false;
}

bool runHost(const Artifact &, const Entry &entry, StepFn step,
             const std::vector<HostTensor> &inputsIn, const RunOptions &options,
             RunOutcome &outcome, std::string &) {
  // The step reads its arguments only (public arguments are read-only), but
  // it gets its own copy all the same.
  std::vector<HostTensor> inputs = inputsIn;
  std::vector<Descriptor> args(inputs.size()), results(entry.results.size());
  std::vector<void *> slots;
  for (size_t i = 0; i < inputs.size(); ++i) {
    args[i] = describeDense(inputs[i], inputs[i].bytes.data());
    slots.push_back(&args[i]);
  }
  for (Descriptor &result : results)
    slots.push_back(&result);
  auto release = [&] {
    for (Descriptor &result : results)
      if (result.allocated && !isInput(result.allocated, inputs))
        std::free(result.allocated);
  };

  for (int i = 0; i < options.warmup; ++i) {
    step(slots.data());
    release();
  }
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < options.iters; ++i) {
    step(slots.data());
    release();
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  outcome.microsPerStep = options.iters ? seconds * 1e6 / options.iters : 0.0;
  outcome.clock = "wall clock";

  step(slots.data());
  for (size_t r = 0; r < results.size(); ++r) {
    const TensorSpec &spec = entry.results[r];
    outcome.results.push_back(gatherResult(
        spec, results[r], static_cast<const uint8_t *>(results[r].aligned)));
  }
  release();
  return true;
}

} // namespace fp8q::steprun
