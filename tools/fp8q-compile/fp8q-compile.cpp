//===- fp8q-compile.cpp - fp8q tensor IR -> native AOT artifact -----------===//
//
// Thin driver of fp8q::artifact::compileArtifact (lib/Artifact): compiles a
// decode step (fp8q-model-gen output) with --fp8q-pipeline into LLVM IR, an
// object or a shared library that runs with no MLIR (docs/Artifact.md).
//
//===----------------------------------------------------------------------===//

#include "fp8q/Artifact/Compile.h"
#include "fp8q/Support/ToolOutput.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"

using namespace llvm;
namespace artifact = fp8q::artifact;

/// The tool's own options; --help hides the LLVM ones linked in.
static cl::OptionCategory category("fp8q-compile options");

static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<fp8q tensor IR>"),
                                      cl::cat(category));
static cl::opt<std::string>
    outputFile("o", cl::Required,
               cl::desc("Output: step.so, step.o or step.ll (the extension "
                        "picks --emit when it is not given)"),
               cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string> pipelineOptions(
    "pipeline-options",
    cl::desc("Options of --fp8q-pipeline, passed through unchanged, e.g. "
             "'fuse-producers=false' or 'execution=device'"),
    cl::init(""), cl::cat(category));
static cl::opt<std::string> emit("emit",
                                 cl::desc("What to write: llvm-ir, obj or so"),
                                 cl::init(""), cl::cat(category));
static cl::opt<std::string>
    targetTriple("target-triple",
                 cl::desc("LLVM target triple of the host code (default: "
                          "this machine's)"),
                 cl::init(""), cl::cat(category));
static cl::opt<unsigned>
    optLevel("O",
             cl::desc("LLVM optimization level 0-3 of the host code "
                      "(default: 2; 0 with execution=device, whose host "
                      "code is straight-line calls)"),
             cl::Prefix, cl::init(2), cl::cat(category));
static cl::opt<std::string> runtime(
    "runtime",
    cl::desc("cpu, cuda or hip: record libfp8q_runtime_<name>.so as a "
             "needed library of the .so (default: none; the process that "
             "loads the artifact provides the runtime)"),
    cl::init(""), cl::cat(category));
static cl::opt<std::string> runtimeDir(
    "runtime-dir",
    cl::desc("Folder of the runtime libraries at link time (default: the "
             "lib/ folder beside this tool's bin/)"),
    cl::init(""), cl::cat(category));
static cl::opt<std::string> linker("linker",
                                   cl::desc("ld.lld used for .so outputs"),
                                   cl::init(FP8Q_DEFAULT_LINKER),
                                   cl::cat(category));
static cl::opt<bool>
    timing("timing",
           cl::desc("Print the time of each stage (parse, every pipeline "
                    "pass, translation, LLVM optimization, codegen, link)"),
           cl::cat(category));

static cl::opt<unsigned> hugeFunctionThreshold(
    "huge-function-threshold",
    cl::desc("Compile functions of more LLVM instructions than this without "
             "optimization: the straight-line glue of a whole model, whose "
             "optimization costs most of the compile time and gains nothing "
             "(default: 8000; 0: optimize everything)"),
    cl::init(8000), cl::cat(category));
static cl::opt<bool> remarks(
    "remarks",
    cl::desc("Print the pipeline's remarks (one per scale copy it keeps)"),
    cl::cat(category));

/// <prefix>/lib for a tool in <prefix>/bin.
static std::string defaultRuntimeDir(const char *argv0) {
  std::string self = sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&defaultRuntimeDir));
  SmallString<256> dir(sys::path::parent_path(sys::path::parent_path(self)));
  sys::path::append(dir, "lib");
  return std::string(dir);
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "fp8q-compile: fp8q tensor IR -> AOT artifact (LLVM IR, PIC object or "
      "shared library exporting fp8q_step_<fn>, _mlir_ciface_<fn> and "
      "fp8q_artifact_manifest; docs/Artifact.md)\n");

  artifact::CompileOptions options;
  options.inputPath = inputFile;
  options.outputPath = outputFile;
  options.pipelineOptions = pipelineOptions;
  options.targetTriple = targetTriple;
  if (optLevel.getNumOccurrences())
    options.optLevel = optLevel;
  options.runtime = runtime;
  options.runtimeDir =
      runtimeDir.empty() ? defaultRuntimeDir(argv[0]) : runtimeDir.getValue();
  options.linker = linker;
  options.timing = timing;
  options.remarks = remarks;
  options.hugeFunctionThreshold = hugeFunctionThreshold;
  if (optLevel > 3)
    return fp8q::reportToolError(
        "fp8q-compile",
        createStringError("-O%u: expected 0 to 3", unsigned(optLevel)));
  if (emit.empty()) {
    std::optional<artifact::EmitKind> kind =
        artifact::emitKindForPath(outputFile);
    if (!kind)
      return fp8q::reportToolError(
          "fp8q-compile",
          createStringError("cannot tell what to write to '%s': name it "
                            ".so, .o or .ll, or pass --emit=so|obj|llvm-ir",
                            outputFile.c_str()));
    options.emit = *kind;
  } else if (emit == "so") {
    options.emit = artifact::EmitKind::SharedLibrary;
  } else if (emit == "obj") {
    options.emit = artifact::EmitKind::Object;
  } else if (emit == "llvm-ir") {
    options.emit = artifact::EmitKind::LLVMIR;
  } else {
    return fp8q::reportToolError(
        "fp8q-compile",
        createStringError("--emit=%s: expected llvm-ir, obj or so",
                          emit.c_str()));
  }
  return fp8q::reportToolError("fp8q-compile",
                               artifact::compileArtifact(options));
}
