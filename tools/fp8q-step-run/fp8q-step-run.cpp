//===- fp8q-step-run.cpp - Run an fp8q AOT artifact, no MLIR --------------===//
//
// Loads an artifact built by fp8q-compile (docs/Artifact.md), reads its
// manifest, runs one entry on seeded inputs (host memory, or device buffers
// and a stream in device mode), times it, and with --reference compares
// every result with a host-mode artifact of the same model run on the same
// inputs. Links neither MLIR nor LLVM: what a serving stack would link.
//
//===----------------------------------------------------------------------===//

#include "Manifest.h"
#include "StepRun.h"
#include "Tensors.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace fp8q::steprun;

namespace {

struct Options {
  std::string artifact, reference, entry, inputs = "uniform", dumpResults;
  int64_t m = 16;
  uint64_t seed = 1;
  RunOptions run;
};

int fail(const std::string &message) {
  // What was reported so far comes first, whatever stdout's buffering.
  std::fflush(stdout);
  std::fprintf(stderr, "fp8q-step-run: error: %s\n", message.c_str());
  return 1;
}

const char *kUsage =
    "usage: fp8q-step-run STEP.so [--reference HOST_STEP.so] [--entry NAME]\n"
    "         [--m 16] [--warmup 3] [--iters 20] [--graph] [--seed 1]\n"
    "         [--inputs uniform|fp8q-run-seeds|constant] [--dump-results "
    "PREFIX]\n"
    "Runs an fp8q-compile artifact on seeded inputs (dynamic sizes = --m)\n"
    "and compares every result with --reference, a host-mode artifact of\n"
    "the same model.\n";

/// Parses "--name value" and "--name=value"; false on a bad command line.
bool parseOptions(int argc, char **argv, Options &options, std::string &error) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (arg.rfind("--", 0) != 0) {
      if (!options.artifact.empty()) {
        error = "more than one artifact given ('" + options.artifact + "', '" +
                arg + "')";
        return false;
      }
      options.artifact = arg;
      continue;
    }
    if (arg == "--graph") {
      options.run.graph = true;
      continue;
    }
    size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      error = "option " + arg + " needs a value";
      return false;
    }
    auto number = [&](long long lo, long long &out) {
      char *end;
      out = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end || out < lo) {
        error = arg + "=" + value +
                ": expected an integer >= " + std::to_string(lo);
        return false;
      }
      return true;
    };
    long long n;
    if (arg == "--reference")
      options.reference = value;
    else if (arg == "--entry")
      options.entry = value;
    else if (arg == "--inputs") {
      if (value != "uniform" && value != "fp8q-run-seeds" &&
          value != "constant") {
        error = "--inputs=" + value +
                ": expected uniform, fp8q-run-seeds or constant";
        return false;
      }
      options.inputs = value;
    } else if (arg == "--dump-results")
      options.dumpResults = value;
    else if (arg == "--m") {
      if (!number(1, n))
        return false;
      options.m = n;
    } else if (arg == "--warmup") {
      if (!number(0, n))
        return false;
      options.run.warmup = int(n);
    } else if (arg == "--iters") {
      if (!number(0, n))
        return false;
      options.run.iters = int(n);
    } else if (arg == "--seed") {
      if (!number(0, n))
        return false;
      options.seed = uint64_t(n);
    } else {
      error = "unknown option " + arg + "\n" + kUsage;
      return false;
    }
  }
  if (options.artifact.empty()) {
    error = std::string("no artifact given\n") + kUsage;
    return false;
  }
  return true;
}

/// dlopens `path` and reads its manifest.
bool load(const std::string &path, Artifact &artifact, std::string &error) {
  artifact.path = path;
  // RTLD_LOCAL: an artifact and its reference export the same names.
  // A bare file name would be looked up on the library path, not here.
  std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  artifact.handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!artifact.handle) {
    const char *why = dlerror();
    error = "cannot load '" + path + "': " + (why ? why : "unknown error");
    if (error.find("undefined symbol") != std::string::npos)
      error += " (the runtime the artifact calls: compile it with "
               "fp8q-compile --runtime=cpu|cuda|hip, or preload the runtime "
               "with LD_PRELOAD)";
    return false;
  }
  auto manifest = reinterpret_cast<const char *(*)(void)>(
      dlsym(artifact.handle, "fp8q_artifact_manifest"));
  if (!manifest) {
    error = "'" + path +
            "' exports no fp8q_artifact_manifest: not an fp8q artifact "
            "(build one with fp8q-compile)";
    return false;
  }
  std::string why;
  if (!parseManifest(manifest(), artifact.manifest, why)) {
    error = "'" + path + "': bad manifest: " + why;
    return false;
  }
  return true;
}

/// The entry to run: --entry, else the only one that prepares no other's
/// weights, else @decode_step.
const Entry *pickEntry(const Artifact &artifact, const std::string &wanted,
                       std::string &error) {
  const Manifest &manifest = artifact.manifest;
  std::string name = wanted;
  std::vector<const Entry *> steps;
  for (const Entry &entry : manifest.entries)
    if (entry.prepares.empty())
      steps.push_back(&entry);
  if (name.empty())
    name = steps.size() == 1 ? steps[0]->name : "decode_step";
  if (const Entry *entry = manifest.find(name))
    return entry;
  error = "'" + artifact.path + "' has no entry '" + name + "' (entries:";
  for (const Entry &entry : manifest.entries)
    error += " " + entry.name;
  error += ")";
  return nullptr;
}

StepFn stepOf(const Artifact &artifact, const Entry &entry,
              std::string &error) {
  auto step =
      reinterpret_cast<StepFn>(dlsym(artifact.handle, entry.symbol.c_str()));
  if (!step)
    error = "'" + artifact.path + "' lists " + entry.symbol +
            " in its manifest but does not export it";
  return step;
}

/// Writes `size` bytes to `path` through a temporary file renamed on
/// success: no half-written file.
bool writeFile(const std::string &path, const void *data, size_t size,
               std::string &error) {
  std::string temp = path + ".tmp";
  FILE *file = std::fopen(temp.c_str(), "wb");
  bool good = file && std::fwrite(data, 1, size, file) == size;
  good = file && std::fclose(file) == 0 && good;
  if (good && std::rename(temp.c_str(), path.c_str()) == 0)
    return true;
  std::remove(temp.c_str());
  error = "cannot write '" + path + "'";
  return false;
}

/// Prints "<label> min X us, median Y us, max Z us<note>" of `micros`
/// (bench/device_step_h200.sh parses these lines).
void printSpread(const char *label, std::vector<double> micros,
                 const char *note) {
  std::sort(micros.begin(), micros.end());
  std::printf("%s min %.1f us, median %.1f us, max %.1f us%s\n", label,
              micros.front(), micros[micros.size() / 2], micros.back(), note);
}

bool run(const Artifact &artifact, const Entry &entry,
         const std::vector<HostTensor> &inputs, const RunOptions &options,
         RunOutcome &outcome, std::string &error) {
  StepFn step = stepOf(artifact, entry, error);
  if (!step)
    return false;
  // parseManifest checked that the prepare entry is there.
  PrepareCall prepare;
  if (!entry.prepare.empty()) {
    prepare.entry = artifact.manifest.find(entry.prepare);
    prepare.fn = stepOf(artifact, *prepare.entry, error);
    if (!prepare.fn)
      return false;
  }
  if (artifact.manifest.collectiveRanks > 1) {
    error = "'" + artifact.path + "' communicates among " +
            std::to_string(artifact.manifest.collectiveRanks) +
            " ranks (manifest 'collective_ranks'); fp8q-step-run is one "
            "process on one GPU: compile the model with --tp 1 to run it "
            "here, or launch one process per rank, each with its "
            "communicator (fp8q_rt_device_comm_init, docs/RuntimeABI.md)";
    return false;
  }
  if (artifact.manifest.execution == "device")
    return runDevice(artifact, entry, step, prepare, inputs, options, outcome,
                     error);
  return runHost(artifact, entry, step, prepare, inputs, options, outcome,
                 error);
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  std::string error;
  if (!parseOptions(argc, argv, options, error))
    return fail(error);
  Artifact artifact;
  if (!load(options.artifact, artifact, error))
    return fail(error);
  const Entry *entry = pickEntry(artifact, options.entry, error);
  if (!entry)
    return fail(error);

  std::vector<HostTensor> inputs;
  std::vector<std::string> dynamic;
  bool made =
      options.inputs == "fp8q-run-seeds"
          ? makeInputsLikeFp8qRun(*entry, options.seed, inputs, error)
          : makeInputs(*entry, options.m, options.seed, inputs, dynamic, error,
                       options.inputs == "constant",
                       /*hostBytes=*/artifact.manifest.execution != "device" ||
                           !options.reference.empty());
  if (!made)
    return fail("@" + entry->name + ": " + error);
  std::printf("artifact %s: %s mode, target %s, entry @%s (%zu arguments, "
              "%zu results%s)\n",
              options.artifact.c_str(), artifact.manifest.execution.c_str(),
              artifact.manifest.target.empty()
                  ? "(none)"
                  : artifact.manifest.target.c_str(),
              entry->name.c_str(), entry->args.size(), entry->results.size(),
              entry->stream ? ", stream" : "");
  if (!entry->prepare.empty())
    std::printf("weights prepared once by @%s before warm-up: %zu arguments "
                "re-laid out for their kernels\n",
                entry->prepare.c_str(), entry->preparedArgs.size());
  if (dynamic.empty()) {
    std::printf("dynamic sizes: none (--m unused)\n");
  } else {
    std::printf("dynamic sizes set to --m %lld:", (long long)options.m);
    for (const std::string &where : dynamic)
      std::printf(" %s", where.c_str());
    std::printf("\n");
  }

  RunOutcome outcome;
  if (!run(artifact, *entry, inputs, options.run, outcome, error))
    return fail(error);
  std::printf("timing: %.1f us/step over %d steps after %d warm-up (%s)\n",
              outcome.microsPerStep, options.run.iters, options.run.warmup,
              outcome.clock.c_str());
  if (!outcome.stepMicros.empty())
    printSpread("steps:", outcome.stepMicros, "");
  // The host's own share of an eager step: scripts parse "host enqueue:".
  if (!outcome.hostMicros.empty())
    printSpread("host enqueue:", outcome.hostMicros,
                " (step call to return, no synchronization)");
  for (size_t r = 0; r < outcome.results.size(); ++r) {
    const HostTensor &result = outcome.results[r];
    std::string shape;
    for (size_t d = 0; d < result.sizes.size(); ++d)
      shape += (d ? "x" : "") + std::to_string(result.sizes[d]);
    double sum = 0;
    for (double v : toDoubles(result))
      sum += v;
    std::printf("result #%zu %s[%s]: sum %.6g\n", r, result.type.c_str(),
                shape.c_str(), sum);
  }
  // Raw little-endian f32 values, as fp8q-run --dump-output writes them.
  for (size_t r = 0; !options.dumpResults.empty() && r < outcome.results.size();
       ++r) {
    std::string path = options.dumpResults + "." + std::to_string(r) + ".f32";
    std::vector<double> values = toDoubles(outcome.results[r]);
    std::vector<float> floats(values.begin(), values.end());
    if (!writeFile(path, floats.data(), floats.size() * sizeof(float), error))
      return fail(error);
  }
  if (options.reference.empty())
    return 0;

  Artifact reference;
  if (!load(options.reference, reference, error))
    return fail(error);
  if (reference.manifest.execution != "host")
    return fail("the reference '" + options.reference +
                "' must be a host-mode artifact");
  const Entry *refEntry = pickEntry(reference, entry->name, error);
  if (!refEntry)
    return fail(error);
  // The inputs are seeded in the original layout: a reference compiled
  // with or without prepare-weight-args runs on them alike.
  auto same = [](const std::vector<TensorSpec> &a,
                 const std::vector<TensorSpec> &b) {
    if (a.size() != b.size())
      return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!sameTensor(a[i], b[i]))
        return false;
    return true;
  };
  if (!same(entry->originalArgs, refEntry->originalArgs) ||
      !same(entry->results, refEntry->results))
    return fail("@" + entry->name + " of '" + options.reference +
                "' has another signature than in '" + options.artifact + "'");
  RunOutcome expected;
  RunOptions once;
  once.warmup = 0;
  once.iters = 0;
  if (!run(reference, *refEntry, inputs, once, expected, error))
    return fail("reference: " + error);
  bool allOk = true;
  for (size_t r = 0; r < outcome.results.size(); ++r) {
    std::string line;
    bool comparable =
        compareResults(outcome.results[r], expected.results[r], line);
    allOk &= comparable;
    std::printf("result #%zu vs reference: %s\n", r, line.c_str());
  }
  return allOk ? 0 : 1;
}
