//===- fp8q-model-gen.cpp - config.json -> fp8q IR ------------------------===//
//
// Reads a Hugging Face config.json of a block-FP8 decoder and writes the
// fp8q IR of one decode step: every FP8 linear boundary, ready for
// --fp8q-select-kernels and --fp8q-propagate-scale-layout. With
// --checkpoint=DIR it first checks the step's arguments one to one against
// the FP8 checkpoint there (docs/Checkpoints.md).
//
//===----------------------------------------------------------------------===//

#include "fp8q/ModelGen/CheckpointBinding.h"
#include "fp8q/ModelGen/DecoderBuilder.h"
#include "fp8q/Support/ToolOutput.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

/// The tool's own options; --help hides the LLVM ones linked in.
static cl::OptionCategory category("fp8q-model-gen options");

static cl::opt<std::string> inputFile(cl::Positional, cl::Optional,
                                      cl::desc("<config.json>"),
                                      cl::cat(category));
static cl::opt<std::string> checkpointDir(
    "checkpoint",
    cl::desc("Check the step against the FP8 checkpoint in this directory "
             "(model.safetensors.index.json and its shards, or "
             "model.safetensors): every argument has its tensor, of the "
             "dtype and shape the step reads; exit 1 on a mismatch, FP8 "
             "tensors the step does not read reported; the config is "
             "DIR/config.json unless one is given (default: none)"),
    cl::value_desc("dir"), cl::init(""), cl::cat(category));
static cl::opt<std::string>
    outputFile("o", cl::desc("Output file (default: -, standard output)"),
               cl::value_desc("file"), cl::init("-"), cl::cat(category));
static cl::opt<std::string> targetArch(
    "target",
    cl::desc("Target: gfx950, gfx942, sm90 or sm100 (default: gfx950)"),
    cl::value_desc("arch"), cl::init("gfx950"), cl::cat(category));
static cl::opt<std::string> rocmVersion(
    "rocm",
    cl::desc("ROCm version of an AMD target, MAJOR.MINOR (default: 7.2; "
             "ignored for sm90 and sm100)"),
    cl::value_desc("version"), cl::init("7.2"), cl::cat(category));
static cl::opt<int64_t>
    tpDegree("tp",
             cl::desc("Tensor-parallel degree, 1 to 1024; it must divide "
                      "num_attention_heads (default: 1)"),
             cl::value_desc("n"), cl::init(1), cl::cat(category));
static cl::opt<int64_t> epDegree(
    "ep",
    cl::desc("Expert-parallel degree, 1 to 1024: routed experts distributed "
             "whole across ranks; it must divide the expert count (default: "
             "1, routed experts split by --tp)"),
    cl::value_desc("n"), cl::init(1), cl::cat(category));
static cl::opt<std::string>
    tokens("tokens",
           cl::desc("Tokens per step M: 1 to 1048576, or '?' for a dynamic "
                    "M (default: 16)"),
           cl::value_desc("n|?"), cl::init("16"), cl::cat(category));
static cl::opt<bool> dpAttention(
    "dp-attention",
    cl::desc("Data-parallel attention: each --tp rank runs attention with "
             "whole heads on its own tokens; the post-attention (q, scale) "
             "pair is all-gathered for the tensor-parallel MLP and its "
             "output reduce-scattered back (shard collectives on grid @tp; "
             "default: off)"),
    cl::cat(category));
static cl::opt<bool> layersAsLoop(
    "layers-as-loop",
    cl::desc("Put the MoE layers in one scf.for over stacked weights "
             "(default: off, unrolled)"),
    cl::cat(category));
static cl::opt<int64_t> numLayers(
    "layers",
    cl::desc("Override num_hidden_layers, up to 100000 (default: 0, the "
             "config's)"),
    cl::value_desc("n"), cl::init(0), cl::cat(category));
static cl::opt<std::string> formatName(
    "format",
    cl::desc("Block format of the FP8 linear layers: fp8 (FP8 1x128, f32 "
             "scales), ue8m0 (FP8 1x128, e8m0 scales, per-row weight "
             "scales), mxfp8, mxfp4 or nvfp4 (default: fp8)"),
    cl::value_desc("format"), cl::init("fp8"), cl::cat(category));
static cl::opt<bool> printDebugInfo(
    "mlir-print-debuginfo",
    cl::desc("Print the layer-name locations of every op (default: off)"),
    cl::cat(category));

static int fail(const Twine &message) {
  WithColor::error(errs(), "fp8q-model-gen") << message << "\n";
  return 1;
}

/// The most mismatches and unread tensors printed one by one.
static constexpr size_t kMaxListed = 10;

/// Checks `module`'s @decode_step against the checkpoint in `dir`: prints
/// the first mismatches (then exits 1), the FP8 tensors no argument reads,
/// and a summary on stderr. Adds the checkpoint's files to `inputs`.
static int checkCheckpoint(mlir::ModuleOp module, StringRef dir,
                           std::vector<std::string> &inputs) {
  Expected<fp8q::SafetensorsCheckpoint> checkpoint =
      fp8q::SafetensorsCheckpoint::open(dir);
  if (!checkpoint)
    return fail(toString(checkpoint.takeError()));
  for (std::string &file : checkpoint->files())
    inputs.push_back(std::move(file));
  auto fn = module.lookupSymbol<mlir::func::FuncOp>("decode_step");
  fp8q::CheckpointBinding binding =
      fp8q::bindCheckpoint(fn, *checkpoint, /*acceptFnuz=*/true);
  for (size_t i = 0; i < binding.errors.size() && i < kMaxListed; ++i)
    WithColor::error(errs(), "fp8q-model-gen") << binding.errors[i] << "\n";
  if (binding.errors.size() > kMaxListed)
    WithColor::note(errs(), "fp8q-model-gen")
        << "and " << binding.errors.size() - kMaxListed << " more mismatches\n";
  if (!binding.uncovered.empty()) {
    raw_ostream &diag = WithColor::warning(errs(), "fp8q-model-gen");
    diag << dir << ": " << binding.uncovered.size()
         << " FP8 tensors of the checkpoint are read by no argument of the "
            "step (layers beyond --layers, multi-token-prediction layers, "
            "modules the generator does not model):";
    for (size_t i = 0; i < binding.uncovered.size() && i < kMaxListed; ++i)
      diag << " '" << binding.uncovered[i] << "'";
    if (binding.uncovered.size() > kMaxListed)
      diag << " and " << binding.uncovered.size() - kMaxListed << " more";
    diag << "\n";
  }
  if (!binding.errors.empty())
    return 1;
  errs() << formatv("fp8q-model-gen: checkpoint {0} matches: {1} arguments "
                    "bound ({2} FP8 weights with their block scales), {3} "
                    "tensors of routed experts beyond the modelled top-k "
                    "checked against them\n",
                    dir, binding.arguments.size(), binding.fp8Weights,
                    binding.representedExperts);
  return 0;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "fp8q-model-gen: config.json -> fp8q IR\n\n"
      "Reads the Hugging Face config.json of a block-FP8 decoder\n"
      "(model_type " +
          fp8q::supportedModelTypes() +
          ") and writes the fp8q IR\nof one decode step.\n");

  fp8q::DecoderOptions options;
  options.arch = targetArch;
  options.rocm = StringRef(targetArch).starts_with("sm")
                     ? std::string()
                     : std::string(rocmVersion);
  std::optional<fp8q::BlockFormat> format =
      fp8q::parseBlockFormatOption(formatName);
  if (!format)
    return fail("--format must be fp8, ue8m0, mxfp8, mxfp4 or nvfp4, got '" +
                formatName + "'");
  options.format = *format;
  options.layersAsLoop = layersAsLoop;
  options.dpAttention = dpAttention;
  options.numLayers = numLayers;
  if (tpDegree < 1 || tpDegree > fp8q::kMaxTensorParallel)
    return fail(formatv("--tp must be an integer from 1 to {0}, got {1}",
                        fp8q::kMaxTensorParallel, tpDegree.getValue()));
  options.tp = tpDegree;
  if (epDegree < 1 || epDegree > fp8q::kMaxTensorParallel)
    return fail(formatv("--ep must be an integer from 1 to {0}, got {1}",
                        fp8q::kMaxTensorParallel, epDegree.getValue()));
  options.ep = epDegree;
  if (numLayers < 0 || numLayers > fp8q::kMaxLayers)
    return fail(formatv("--layers must be an integer from 1 to {0} (or 0 for "
                        "num_hidden_layers), got {1}",
                        fp8q::kMaxLayers, numLayers.getValue()));
  if (tokens == "?") {
    options.tokens = mlir::ShapedType::kDynamic;
  } else if (StringRef(tokens).getAsInteger(10, options.tokens) ||
             options.tokens < 1) {
    return fail("--tokens must be a positive integer or '?', got '" + tokens +
                "'");
  } else if (options.tokens > fp8q::kMaxTokens) {
    return fail(formatv("--tokens must be at most {0} (or '?'), got {1}",
                        fp8q::kMaxTokens, options.tokens));
  }

  if (!checkpointDir.empty()) {
    if (inputFile.empty()) {
      SmallString<256> path(checkpointDir);
      sys::path::append(path, "config.json");
      inputFile = std::string(path);
    }
    // A checkpoint holds the whole model in FP8 1x128 blocks.
    if (options.tp != 1)
      return fail(formatv("--checkpoint checks the unsharded model: pass "
                          "--tp=1, not --tp={0}",
                          options.tp));
    if (options.format != fp8q::BlockFormat::Fp8Block)
      return fail("--checkpoint checks FP8 1x128 block-scaled checkpoints: "
                  "pass --format=fp8, not --format=" +
                  formatName);
  } else if (inputFile.empty()) {
    return fail("no config.json given: pass CONFIG.json or --checkpoint=DIR");
  }

  std::string error;
  std::unique_ptr<MemoryBuffer> input = mlir::openInputFile(inputFile, &error);
  if (!input)
    return fail(error);
  Expected<fp8q::ModelConfig> config =
      fp8q::parseModelConfig(input->getBuffer(), inputFile);
  if (!config)
    return fail(toString(config.takeError()));
  if (Error e = fp8q::checkDecoderSize(*config, options))
    return fail(inputFile + ": " + toString(std::move(e)));
  if (Error e = fp8q::checkParallelism(*config, options))
    return fail(inputFile + ": " + toString(std::move(e)));

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      fp8q::buildDecoderModule(&context, *config, options);
  if (!module || failed(mlir::verify(*module)))
    return 1;
  // What the output must not replace.
  std::vector<std::string> inputs{inputFile};
  if (!checkpointDir.empty())
    if (int status = checkCheckpoint(*module, checkpointDir, inputs))
      return status;
  SmallVector<StringRef> inputRefs(inputs.begin(), inputs.end());

  mlir::OpPrintingFlags flags;
  if (printDebugInfo)
    flags.enableDebugInfo();
  return fp8q::reportToolError(
      "fp8q-model-gen", fp8q::writeToolOutput(outputFile, inputRefs,
                                              [&](raw_ostream &os) -> Error {
                                                module->print(os, flags);
                                                os << "\n";
                                                return Error::success();
                                              }));
}
