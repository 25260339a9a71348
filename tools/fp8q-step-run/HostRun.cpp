//===- HostRun.cpp - A host-mode artifact on host memory ------------------===//

#include "StepRun.h"

#include <chrono>
#include <cstdlib>

namespace fp8q::steprun {

bool runHost(const Artifact &, const Entry &entry, StepFn step,
             const PrepareCall &prepare,
             const std::vector<HostTensor> &inputsIn, const RunOptions &options,
             RunOutcome &outcome, std::string &) {
  // The step reads its arguments only (public arguments are read-only), but
  // it gets its own copy all the same.
  std::vector<HostTensor> inputs = inputsIn;
  std::vector<Descriptor> args(inputs.size()), results(entry.results.size());
  for (size_t i = 0; i < inputs.size(); ++i)
    args[i] = describeDense(inputs[i], inputs[i].bytes.data());

  // Weights prepared once: the prepare entry takes the original-layout
  // weights and returns what the step takes in their place. An original
  // is freed unless a prepared weight is a view of it.
  std::vector<Descriptor> prepared;
  std::vector<bool> preparedIsView;
  if (prepare.entry) {
    prepared.resize(prepare.entry->results.size());
    std::vector<void *> prepareSlots;
    for (int64_t index : entry.preparedArgs)
      prepareSlots.push_back(&args[index]);
    for (Descriptor &result : prepared)
      prepareSlots.push_back(&result);
    prepare.fn(prepareSlots.data());
    Holdings originals;
    for (const HostTensor &input : inputs)
      originals.add(input.bytes.data(), input.bytes.size());
    for (const Descriptor &result : prepared)
      preparedIsView.push_back(originals.contains(result.allocated));
    for (size_t j = 0; j < prepared.size(); ++j) {
      int64_t index = entry.preparedArgs[j];
      std::vector<uint8_t> &original = inputs[index].bytes;
      Holdings viewable;
      viewable.add(original.data(), original.size());
      bool viewed = false;
      for (const Descriptor &result : prepared)
        viewed |= viewable.contains(result.allocated);
      if (!viewed)
        std::vector<uint8_t>().swap(original);
      args[index] = prepared[j];
    }
  }

  Holdings held;
  for (const HostTensor &input : inputs)
    held.add(input.bytes.data(), input.bytes.size());
  for (size_t j = 0; j < prepared.size(); ++j)
    held.add(prepared[j].allocated,
             extentBytes(prepared[j], prepare.entry->results[j]));
  std::vector<void *> slots;
  for (Descriptor &arg : args)
    slots.push_back(&arg);
  for (Descriptor &result : results)
    slots.push_back(&result);
  auto release = [&] {
    for (Descriptor &result : results)
      if (result.allocated && !held.contains(result.allocated))
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
  // The run owns the prepared weights (docs/Artifact.md).
  for (size_t j = 0; j < prepared.size(); ++j)
    if (!preparedIsView[j])
      std::free(prepared[j].allocated);
  return true;
}

} // namespace fp8q::steprun
