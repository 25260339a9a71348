//===- fp8q-model-gen.cpp - config.json -> fp8q IR ------------------------===//
//
// Reads a Hugging Face config.json of an MLA + MoE decoder and writes the
// fp8q IR of one decode step: every FP8 linear boundary, ready for
// --fp8q-select-kernels and --fp8q-propagate-scale-layout.
//
//===----------------------------------------------------------------------===//

#include "fp8q/ModelGen/DecoderBuilder.h"
#include "fp8q/Support/ToolOutput.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<config.json>"));
static cl::opt<std::string> outputFile("o", cl::desc("Output file"),
                                       cl::value_desc("file"), cl::init("-"));
static cl::opt<std::string> targetArch("target",
                                       cl::desc("gfx950, gfx942 or sm90"),
                                       cl::init("gfx950"));
static cl::opt<std::string>
    rocmVersion("rocm", cl::desc("ROCm version of an AMD target"),
                cl::init("7.2"));
static cl::opt<int64_t> tpDegree("tp", cl::desc("Tensor-parallel degree"),
                                 cl::init(1));
static cl::opt<std::string>
    tokens("tokens", cl::desc("Tokens per step M: a number or '?'"),
           cl::init("16"));
static cl::opt<bool> layersAsLoop(
    "layers-as-loop",
    cl::desc("Put the MoE layers in one scf.for over stacked weights"));
static cl::opt<int64_t>
    numLayers("layers", cl::desc("Override num_hidden_layers"), cl::init(0));
static cl::opt<bool>
    printDebugInfo("mlir-print-debuginfo",
                   cl::desc("Print the layer-name locations of every op"));

static int fail(const Twine &message) {
  WithColor::error(errs(), "fp8q-model-gen") << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv,
                              "fp8q-model-gen: config.json -> fp8q IR\n");

  fp8q::DecoderOptions options;
  options.arch = targetArch;
  options.rocm =
      targetArch == "sm90" ? std::string() : std::string(rocmVersion);
  options.layersAsLoop = layersAsLoop;
  options.numLayers = numLayers;
  if (tpDegree < 1)
    return fail("--tp must be a positive integer");
  options.tp = tpDegree;
  if (numLayers < 0)
    return fail("--layers must be positive");
  if (tokens == "?") {
    options.tokens = mlir::ShapedType::kDynamic;
  } else if (StringRef(tokens).getAsInteger(10, options.tokens) ||
             options.tokens < 1) {
    return fail("--tokens must be a positive integer or '?', got '" + tokens +
                "'");
  }

  std::string error;
  std::unique_ptr<MemoryBuffer> input = mlir::openInputFile(inputFile, &error);
  if (!input)
    return fail(error);
  Expected<fp8q::ModelConfig> config =
      fp8q::parseModelConfig(input->getBuffer(), inputFile);
  if (!config)
    return fail(toString(config.takeError()));

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      fp8q::buildDecoderModule(&context, *config, options);
  if (!module || failed(mlir::verify(*module)))
    return 1;

  mlir::OpPrintingFlags flags;
  if (printDebugInfo)
    flags.enableDebugInfo();
  return fp8q::reportToolError(
      "fp8q-model-gen", fp8q::writeToolOutput(outputFile, {inputFile},
                                              [&](raw_ostream &os) -> Error {
                                                module->print(os, flags);
                                                os << "\n";
                                                return Error::success();
                                              }));
}
