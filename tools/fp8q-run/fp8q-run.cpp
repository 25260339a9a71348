//===- fp8q-run.cpp - Compile and run an fp8q model on a runtime ----------===//
//
// The main job: takes the tensor-level fp8q IR of a decode step (from
// fp8q-model-gen), reports the kernels --fp8q-select-kernels picks and the
// layout work --fp8q-propagate-scale-layout does, compiles it with
// --fp8q-pipeline, runs it through the ExecutionEngine on a runtime library
// (the CPU reference runtime by default) with seeded random inputs, and
// measures it against an fp32 reference of the same graph with the
// quantization taken out. With --compare-unfixed it also runs the program
// compiled without layout propagation, as the historical hand-placed flow
// did, in the runtime's unchecked mode, to show the damage. With
// --weights=DIR the weights come from a safetensors checkpoint instead of
// the seed (docs/Checkpoints.md). With --prepare-weights the step is
// compiled with prepare-weight-args and its weights are re-laid out once,
// by @<entry>_prepare_weights, before it runs (docs/Lowering.md).
//
//===----------------------------------------------------------------------===//

#include "ReferenceInterpreter.h"

#include "fp8q/Dialect/IR/ScaleLayout.h"
#include "fp8q/InitFp8q.h"
#include "fp8q/ModelGen/CheckpointBinding.h"
#include "fp8q/Pipelines/Pipelines.h"
#include "fp8q/Runtime/fp8q_contracts.h"
#include "fp8q/Runtime/fp8q_numerics.h"
#include "fp8q/Support/ToolOutput.h"
#include "fp8q/Transforms/Passes.h"
#include "fp8q/Transforms/ScaleLayoutAnalysis.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/WithColor.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>

using namespace mlir;
using llvm::cl::desc;
using llvm::cl::init;
using llvm::cl::opt;

static opt<std::string> inputFile(llvm::cl::Positional, llvm::cl::Required,
                                  desc("<fp8q tensor IR>"));
static opt<std::string> entryName(
    "entry",
    desc("Public function to run: static tensor arguments (bf16 activations "
         "and norm weights, FP8 weights each followed by its f32 block "
         "scale) and one static 2-D bf16 result (default: decode_step, the "
         "name fp8q-model-gen gives)"),
    init("decode_step"));
static opt<std::string>
    runtimeLib("runtime",
               desc("Runtime library implementing the fp8q ABI (default: "
                    "libfp8q_runtime_cpu.so beside this tool's lib directory)"),
               init(""));
static opt<unsigned>
    seed("seed", desc("Seed of the random inputs (default: 1)"), init(1));
static opt<bool> compareUnfixed(
    "compare-unfixed",
    desc("Also run the program compiled without layout propagation, in the "
         "runtime's unchecked mode (the historical failure)"));
static opt<bool> skipPropagation(
    "skip-propagation",
    desc("Run only the program compiled without layout propagation, with the "
         "runtime's contract checks as the environment sets them: checked by "
         "default, so a wrong layout stops the run with the runtime's error"));
static opt<std::string> dumpOutput(
    "dump-output",
    desc("Write the output of the compiled program (with propagation) to "
         "this file as raw little-endian f32 values, row-major, for "
         "comparison with other runners (fp8q-step-run --dump-results)"),
    init(""));
static opt<std::string> weightsDir(
    "weights",
    desc("Load the step's weights, block scales and norm weights from the "
         "safetensors checkpoint in this directory (model.safetensors.index."
         "json and its shards, or model.safetensors), by the names "
         "fp8q-model-gen gives its arguments (write the module with "
         "--mlir-print-debuginfo to keep them), instead of seeded ones; the "
         "step's input is read from the checkpoint only if it holds a "
         "tensor of its name (default: none, everything seeded)"),
    init(""));
static opt<bool> prepareWeights(
    "prepare-weights",
    desc("Compile with --fp8q-pipeline's prepare-weight-args and call the "
         "entry's @<entry>_prepare_weights once on the loaded weights "
         "before the step, as a serving stack does at load time; the step "
         "then re-lays out no weight (default: false)"));
static opt<bool> fuseProducers("fuse-producers",
                               desc("Fuse transposed scale writes into the "
                                    "quantize producers (default: true)"),
                               init(true));

namespace {
/// MLIR's strided memref descriptor, any element type, rank <= 3.
struct Descriptor {
  void *allocated, *aligned;
  int64_t offset;
  int64_t sizesAndStrides[6];
};

/// One argument of the entry function: its bytes and its reference values.
struct Argument {
  std::vector<uint8_t> bytes;
  Descriptor desc{};
  fp8q::RefTensor reference;
};

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void progress(const llvm::Twine &message) {
  llvm::outs() << "fp8q-run: " << message << "\n";
  llvm::outs().flush();
}

int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "fp8q-run") << message << "\n";
  return 1;
}

/// Fills the descriptor of a dense row-major buffer of `shape`.
void describe(Argument &arg, ArrayRef<int64_t> shape) {
  arg.desc.allocated = arg.desc.aligned = arg.bytes.data();
  arg.desc.offset = 0;
  int64_t rank = shape.size(), stride = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    arg.desc.sizesAndStrides[d] = shape[d];
    arg.desc.sizesAndStrides[rank + d] = stride;
    stride *= shape[d];
  }
}

/// True if the entry's argument `arg` is a stack of per-layer vectors: a
/// rank-2 tensor that `--layers-as-loop` slices one row per iteration
/// (every use a tensor.extract_slice to rank 1), e.g. the norm weights.
bool isStackedVectors(BlockArgument arg) {
  if (cast<RankedTensorType>(arg.getType()).getRank() != 2 || arg.use_empty())
    return false;
  return llvm::all_of(arg.getUsers(), [](Operation *user) {
    auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
    return slice && slice.getType().getRank() == 1;
  });
}

/// Seeded inputs for the entry's arguments: bf16 activations ~ N(0, 1),
/// bf16 norm weights ~ 1 + N(0, 0.1) (rank 1, or a stack of them), FP8
/// weights ~ N(0, 1/sqrt(K)) quantized per 128x128 block with their f32
/// block scales (the argument that follows each weight). A rank-3 FP8
/// weight [L, N, K] with its [L, N/128, K/128] scale is the stack of L
/// layers' weights that `--layers-as-loop` slices.
FailureOr<std::vector<Argument>> makeInputs(func::FuncOp fn,
                                            uint64_t seedValue) {
  // The weight-scale block (SPEC: 128x128 for every kernel).
  constexpr int64_t kBlock = FP8Q_SCALE_BLOCK;
  // splitmix64 and an Irwin-Hall sum of four uniforms: plenty for test
  // data, and fast enough for the hundreds of millions of weights of a
  // real-width model.
  uint64_t state = seedValue * 0x9E3779B97F4A7C15ull + 1;
  auto uniform = [&]() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return float((z ^ (z >> 31)) >> 40) * (1.0f / 16777216.0f);
  };
  auto normal = [&]() {
    return (uniform() + uniform() + uniform() + uniform() - 2.0f) * 1.7320508f;
  };
  std::vector<Argument> args(fn.getNumArguments());
  ArrayRef<Type> types = fn.getArgumentTypes();
  for (size_t i = 0; i < types.size(); ++i) {
    auto type = dyn_cast<RankedTensorType>(types[i]);
    if (type && !type.hasStaticShape() && type.getRank() >= 1 &&
        type.getRank() <= 3)
      return emitError(fn.getLoc(), "fp8q-run: argument #")
             << i << " of @" << fn.getSymName() << " has type " << types[i]
             << ": fp8q-run runs static shapes; generate the model with a "
                "number of tokens, e.g. fp8q-model-gen --tokens=16";
    if (!type || type.getRank() < 1 || type.getRank() > 3)
      return emitError(fn.getLoc(), "fp8q-run: argument #")
             << i << " of @" << fn.getSymName()
             << " must be a static tensor of rank 1 to 3, got " << types[i];
    Type elt = type.getElementType();
    int64_t n = type.getNumElements();
    Argument &arg = args[i];
    if (elt.isBF16() && type.getRank() <= 2) {
      bool norm =
          type.getRank() == 1 || isStackedVectors(fn.getBody().getArgument(i));
      std::vector<float> values(n);
      arg.bytes.resize(2 * n);
      auto *bits = reinterpret_cast<uint16_t *>(arg.bytes.data());
      for (int64_t e = 0; e < n; ++e) {
        float v = norm ? 1.0f + 0.1f * normal() : normal();
        bits[e] = fp8q_f32_to_bf16(v);
        values[e] = fp8q_bf16_to_f32(bits[e]);
      }
      describe(arg, type.getShape());
      arg.reference = fp8q::RefTensor::make(type.getShape(), values);
      continue;
    }
    if (fp8q::isFp8Type(elt) && type.getRank() >= 2) {
      auto scaleType = i + 1 < types.size()
                           ? dyn_cast<RankedTensorType>(types[i + 1])
                           : RankedTensorType();
      // A rank-3 weight is a stack of `layers` rank-2 weights.
      int64_t rank = type.getRank();
      int64_t layers = rank == 3 ? type.getDimSize(0) : 1;
      int64_t rows = type.getDimSize(rank - 2),
              cols = type.getDimSize(rank - 1);
      int64_t blocksN = (rows + kBlock - 1) / kBlock, blocksK = cols / kBlock;
      SmallVector<int64_t, 3> scaleShape;
      if (rank == 3)
        scaleShape.push_back(layers);
      scaleShape.append({blocksN, blocksK});
      if (!scaleType || !scaleType.getElementType().isF32() ||
          scaleType.getShape() != ArrayRef<int64_t>(scaleShape)) {
        InFlightDiagnostic diag =
            emitError(fn.getLoc(), "fp8q-run: FP8 weight argument #")
            << i << " must be followed by its [";
        llvm::interleaveComma(scaleShape, diag);
        return diag << "] f32 block scale";
      }
      int fp8 = isa<Float8E4M3FNUZType>(elt) ? FP8Q_F8E4M3FNUZ : FP8Q_F8E4M3FN;
      float sigma = 1.0f / std::sqrt(float(cols));
      std::vector<float> w(n);
      for (float &v : w)
        v = sigma * normal();
      std::vector<float> scales(layers * blocksN * blocksK), decoded(n);
      arg.bytes.resize(n);
      for (int64_t l = 0; l < layers; ++l) {
        int64_t base = l * rows * cols;
        float *layerScales = scales.data() + l * blocksN * blocksK;
        for (int64_t bn = 0; bn < blocksN; ++bn)
          for (int64_t bk = 0; bk < blocksK; ++bk) {
            float amax = 0;
            for (int64_t r = bn * kBlock;
                 r < std::min(rows, bn * kBlock + kBlock); ++r)
              for (int64_t c = bk * kBlock; c < bk * kBlock + kBlock; ++c)
                amax = std::max(amax, std::fabs(w[base + r * cols + c]));
            float s = fp8q_quant_scale(amax, fp8);
            layerScales[bn * blocksK + bk] = s;
            for (int64_t r = bn * kBlock;
                 r < std::min(rows, bn * kBlock + kBlock); ++r)
              for (int64_t c = bk * kBlock; c < bk * kBlock + kBlock; ++c) {
                int64_t e = base + r * cols + c;
                uint8_t code = fp8q_quantize_value(w[e], s, fp8);
                arg.bytes[e] = code;
                decoded[e] = fp8q_fp8_decode(code, fp8);
              }
          }
      }
      describe(arg, type.getShape());
      arg.reference = fp8q::RefTensor::make(type.getShape(), decoded);
      Argument &scaleArg = args[++i];
      scaleArg.bytes.resize(4 * scales.size());
      std::memcpy(scaleArg.bytes.data(), scales.data(), scaleArg.bytes.size());
      describe(scaleArg, scaleType.getShape());
      scaleArg.reference = fp8q::RefTensor::make(scaleType.getShape(), scales);
      continue;
    }
    return emitError(fn.getLoc(), "fp8q-run: unsupported argument #")
           << i << " of type " << type
           << "; expected bf16 activations or norm weights (rank 1 or 2) or "
              "an FP8 weight (rank 2 or 3) followed by its f32 block scale";
  }
  return args;
}

/// Converts e4m3fn codes to the e4m3fnuz codes of half their value, as
/// serving stacks do for gfx942 (the block scale is doubled to match): the
/// same bits, except -0 -> 0 and NaN -> 0x80.
void e4m3fnToFnuz(std::vector<uint8_t> &codes) {
  for (uint8_t &c : codes) {
    if (c == 0x80)
      c = 0;
    else if ((c & 0x7f) == 0x7f)
      c = 0x80;
  }
}

/// Replaces the seeded arguments of `fn` that `dir`'s checkpoint holds with
/// its tensors (bytes copied from the read-only mapped shards); a missing
/// weight, a dtype or a shape the step does not read is a located error.
/// For an f8E4M3FNUZ step (gfx942) the F8_E4M3 weights are converted and
/// their scales doubled. Adds the checkpoint's files to `inputs`.
LogicalResult loadWeights(func::FuncOp fn, StringRef dir,
                          std::vector<Argument> &args,
                          std::vector<std::string> &inputs) {
  llvm::Expected<fp8q::SafetensorsCheckpoint> checkpoint =
      fp8q::SafetensorsCheckpoint::open(dir);
  if (!checkpoint) {
    (void)fail(llvm::toString(checkpoint.takeError()));
    return failure();
  }
  for (std::string &file : checkpoint->files())
    inputs.push_back(std::move(file));
  fp8q::CheckpointBinding binding =
      fp8q::bindCheckpoint(fn, *checkpoint, /*acceptFnuz=*/true);
  constexpr size_t kMaxListed = 10;
  for (size_t i = 0; i < binding.errors.size() && i < kMaxListed; ++i)
    (void)fail(binding.errors[i]);
  if (binding.errors.size() > kMaxListed)
    llvm::WithColor::note(llvm::errs(), "fp8q-run")
        << "and " << binding.errors.size() - kMaxListed << " more mismatches\n";
  if (!binding.errors.empty())
    return failure();
  // The scales of converted FNUZ weights, by argument name.
  llvm::StringSet<> doubledScales;
  for (const fp8q::BoundArgument &bound : binding.arguments) {
    Argument &arg = args[bound.argIndex];
    auto type = cast<RankedTensorType>(fn.getArgumentTypes()[bound.argIndex]);
    std::vector<uint8_t> bytes = fp8q::assembleArgument(bound, *checkpoint);
    if (bytes.size() != arg.bytes.size()) {
      (void)fail(llvm::formatv("{0}: argument #{1} '{2}' needs {3} bytes, the "
                               "checkpoint's tensors hold {4}",
                               dir, bound.argIndex, bound.irName,
                               arg.bytes.size(), bytes.size()));
      return failure();
    }
    Type elt = type.getElementType();
    bool fnuz = isa<Float8E4M3FNUZType>(elt);
    if (fnuz) {
      e4m3fnToFnuz(bytes);
      doubledScales.insert(bound.irName + "_scale_inv");
    } else if (elt.isF32() && doubledScales.contains(bound.irName)) {
      for (size_t e = 0; e < bytes.size(); e += 4) {
        float v;
        std::memcpy(&v, &bytes[e], 4);
        v *= 2.0f;
        std::memcpy(&bytes[e], &v, 4);
      }
    }
    arg.bytes = std::move(bytes);
    describe(arg, type.getShape());
    int64_t n = type.getNumElements();
    std::vector<float> values(n);
    for (int64_t e = 0; e < n; ++e) {
      if (elt.isBF16()) {
        uint16_t bits;
        std::memcpy(&bits, &arg.bytes[2 * e], 2);
        values[e] = fp8q_bf16_to_f32(bits);
      } else if (elt.isF32()) {
        std::memcpy(&values[e], &arg.bytes[4 * e], 4);
      } else {
        values[e] = fp8q_fp8_decode(arg.bytes[e],
                                    fnuz ? FP8Q_F8E4M3FNUZ : FP8Q_F8E4M3FN);
      }
    }
    arg.reference = fp8q::RefTensor::make(type.getShape(), values);
  }
  progress(llvm::formatv("loaded {0} of {1} arguments from {2} ({3} FP8 "
                         "weights with their block scales), the others seeded",
                         binding.arguments.size(), args.size(), dir,
                         binding.fp8Weights));
  return success();
}

/// What the compiler decides for a module: kernels chosen, and the copies
/// and fused producers propagation leaves with and without fusion.
struct LayoutReport {
  llvm::StringMap<int> kernels;
  int producers = 0;
  fp8q::ScaleLayoutPlanSummary fused, unfused;
};

/// Selects kernels on a clone of `module` and asks ScaleLayoutAnalysis, in
/// read-only mode, what --fp8q-propagate-scale-layout would do with it
/// (the plan the pass applies, counted without applying it).
FailureOr<LayoutReport> analyzeLayouts(ModuleOp module) {
  // Kernel selection's remarks are for fp8q-opt users; here the counts
  // below say it all.
  ScopedDiagnosticHandler quietRemarks(
      module.getContext(), [](Diagnostic &diag) {
        return success(diag.getSeverity() == DiagnosticSeverity::Remark);
      });
  OwningOpRef<ModuleOp> clone = module.clone();
  PassManager pm(module.getContext());
  pm.addPass(fp8q::createSelectKernels());
  if (failed(pm.run(*clone)) ||
      failed(fp8q::checkScaleLayoutAnalysisContext(*clone)))
    return failure();
  LayoutReport report;
  clone->walk([&](Operation *op) {
    if (auto gemm = dyn_cast<fp8q::GemmOp>(op)) {
      if (gemm.getKernel())
        ++report.kernels[fp8q::stringifyKernel(*gemm.getKernel())];
    } else if (isa<fp8q::QuantizeOp, fp8q::RmsNormQuantizeOp>(op)) {
      ++report.producers;
    }
  });
  auto summarize = [&](bool fuse) {
    fp8q::ScaleLayoutAnalysis analysis(*clone, fuse);
    return fp8q::summarizeScaleLayoutPlan(analysis.solveInPlace());
  };
  report.fused = summarize(/*fuse=*/true);
  report.unfused = summarize(/*fuse=*/false);
  return report;
}

/// Copies of `inputs` whose descriptors point at their own bytes: every
/// run gets fresh inputs, whatever an earlier run did with its own.
std::vector<Argument> freshCopy(const std::vector<Argument> &inputs) {
  std::vector<Argument> args = inputs;
  for (Argument &arg : args)
    arg.desc.allocated = arg.desc.aligned = arg.bytes.data();
  return args;
}

/// The buffers @<entry>_prepare_weights returned, freed when the runs that
/// read them are done.
struct PreparedWeights {
  std::vector<void *> allocations;
  PreparedWeights() = default;
  PreparedWeights(const PreparedWeights &) = delete;
  PreparedWeights &operator=(const PreparedWeights &) = delete;
  ~PreparedWeights() {
    for (void *allocation : allocations)
      free(allocation);
  }
};

/// Calls the compiled `@<entry>_prepare_weights` once on the arguments the
/// entry's `fp8q.prepared_args` names (docs/RuntimeABI.md) and points those
/// arguments of `args` at its results: the weights the step reads, in its
/// kernels' layouts. Returns the number of arguments prepared (0 when the
/// entry has none to prepare).
FailureOr<size_t> prepareWeightArguments(ExecutionEngine &engine,
                                         ModuleOp compiled,
                                         std::vector<Argument> &args,
                                         PreparedWeights &prepared) {
  Operation *step = compiled.lookupSymbol(entryName);
  auto indices =
      step ? step->getAttrOfType<DenseI64ArrayAttr>("fp8q.prepared_args")
           : DenseI64ArrayAttr();
  if (!indices || indices.empty())
    return size_t(0);
  // The results come back as one struct of rank-r memref descriptors,
  // 3 + 2 r words each (a prepared weight keeps its argument's rank).
  std::vector<size_t> offsets;
  size_t words = 0;
  for (int64_t index : indices.asArrayRef()) {
    offsets.push_back(words);
    words += 3 + 2 * args[index].reference.shape.size();
  }
  std::vector<int64_t> results(words);
  void *resultsPtr = results.data();
  std::vector<void *> argPtrs;
  for (int64_t index : indices.asArrayRef())
    argPtrs.push_back(&args[index].desc);
  SmallVector<void *> packed{&resultsPtr};
  for (void *&argPtr : argPtrs)
    packed.push_back(&argPtr);
  std::string name = entryName + "_prepare_weights";
  if (llvm::Error err = engine.invokePacked("_mlir_ciface_" + name, packed)) {
    (void)fail("JIT: " + llvm::toString(std::move(err)));
    return failure();
  }
  for (auto [i, index] : llvm::enumerate(indices.asArrayRef())) {
    Argument &arg = args[index];
    const uint8_t *begin = arg.bytes.data();
    auto *allocated = reinterpret_cast<uint8_t *>(results[offsets[i]]);
    // A result that is a view of its input is not ours to free.
    if (allocated < begin || allocated >= begin + arg.bytes.size())
      prepared.allocations.push_back(allocated);
    int64_t rank = arg.reference.shape.size();
    std::memcpy(&arg.desc, &results[offsets[i]],
                (3 + 2 * rank) * sizeof(int64_t));
  }
  return size_t(indices.size());
}

/// Compiles a clone of `module` with --fp8q-pipeline and runs the entry on a
/// fresh copy of `inputs`, with `prepare` first calling the entry's weight
/// preparation once. A public function's arguments are read-only (SPEC): a
/// run that writes into one fails.
FailureOr<std::vector<float>> compileAndRun(ModuleOp module, bool propagate,
                                            const std::vector<Argument> &inputs,
                                            ArrayRef<int64_t> resultShape,
                                            StringRef runtime,
                                            bool prepare = false) {
  std::vector<Argument> args = freshCopy(inputs);
  OwningOpRef<ModuleOp> clone = module.clone();
  auto fn = clone->lookupSymbol<func::FuncOp>(entryName);
  fn->setAttr("llvm.emit_c_interface", UnitAttr::get(module.getContext()));
  PassManager pm(module.getContext());
  fp8q::Fp8qPipelineOptions options;
  options.skipPropagation = !propagate;
  options.fuseProducers = fuseProducers;
  options.prepareWeightArgs = prepare;
  fp8q::buildFp8qPipeline(pm, options);
  if (failed(pm.run(*clone)))
    return failure();

  std::string runnerUtils =
      (llvm::Twine(LLVM_LIBRARY_DIR) + "/libmlir_c_runner_utils.so").str();
  SmallVector<StringRef> libs{runtime, runnerUtils};
  // The transformer is a std::function held by reference: keep it alive.
  std::function<llvm::Error(llvm::Module *)> optimize =
      makeOptimizingTransformer(2, 0, nullptr);
  ExecutionEngineOptions engineOptions;
  engineOptions.sharedLibPaths = libs;
  engineOptions.transformer = optimize;
  auto engine = ExecutionEngine::create(*clone, engineOptions);
  if (!engine) {
    (void)fail("JIT: " + llvm::toString(engine.takeError()));
    return failure();
  }
  PreparedWeights prepared;
  if (prepare) {
    FailureOr<size_t> count =
        prepareWeightArguments(**engine, *clone, args, prepared);
    if (failed(count))
      return failure();
    progress(*count ? llvm::formatv("weights prepared once by "
                                    "@{0}_prepare_weights: {1} arguments "
                                    "re-laid out for their kernels",
                                    entryName.getValue(), *count)
                          .str()
                    : std::string("no weight argument to prepare: the step "
                                  "re-lays out none"));
  }
  Descriptor result{};
  void *resultPtr = &result;
  std::vector<void *> argPtrs(args.size());
  SmallVector<void *> packed{&resultPtr};
  for (size_t i = 0; i < args.size(); ++i) {
    argPtrs[i] = &args[i].desc;
    packed.push_back(&argPtrs[i]);
  }
  if (llvm::Error err =
          (*engine)->invokePacked("_mlir_ciface_" + entryName, packed)) {
    (void)fail("JIT: " + llvm::toString(std::move(err)));
    return failure();
  }
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].bytes != inputs[i].bytes) {
      free(result.allocated);
      (void)fail(
          llvm::formatv("the compiled @{0} wrote into its argument #{1}; "
                        "a public function's arguments are read-only",
                        entryName.getValue(), i));
      return failure();
    }
  int64_t n = resultShape[0] * resultShape[1];
  std::vector<float> out(n);
  const auto *bits = static_cast<const uint16_t *>(result.aligned);
  int64_t s0 = result.sizesAndStrides[2], s1 = result.sizesAndStrides[3];
  for (int64_t i = 0; i < resultShape[0]; ++i)
    for (int64_t j = 0; j < resultShape[1]; ++j)
      out[i * resultShape[1] + j] =
          fp8q_bf16_to_f32(bits[result.offset + i * s0 + j * s1]);
  free(result.allocated);
  return out;
}

/// Runs `body` with the process's stderr (where the runtime library prints
/// its warnings) going to a temporary file, then replays every line except
/// the runtime's warnings, and returns those warnings.
template <typename Body>
std::vector<std::string> captureRuntimeWarnings(Body &&body) {
  std::vector<std::string> warnings;
  llvm::SmallString<128> path;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("fp8q-run", "log", fd, path)) {
    body();
    return warnings;
  }
  fflush(stderr);
  int saved = dup(2);
  dup2(fd, 2);
  body();
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  close(fd);
  if (auto buffer = llvm::MemoryBuffer::getFile(path)) {
    SmallVector<StringRef> lines;
    (*buffer)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
    for (StringRef line : lines) {
      if (line.starts_with("fp8q runtime warning"))
        warnings.push_back(line.str());
      else
        llvm::errs() << line << "\n";
    }
  }
  llvm::sys::fs::remove(path);
  return warnings;
}

/// Cosine similarity and relative L2 error of `y` against `ref`.
std::pair<double, double> compare(ArrayRef<float> y, ArrayRef<float> ref) {
  double dot = 0, yy = 0, rr = 0, dd = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    dot += double(y[i]) * ref[i];
    yy += double(y[i]) * y[i];
    rr += double(ref[i]) * ref[i];
    dd += (double(y[i]) - ref[i]) * (double(y[i]) - ref[i]);
  }
  return {dot / std::sqrt(yy * rr), std::sqrt(dd / rr)};
}

std::string defaultRuntime(const char *argv0) {
  std::string exe = llvm::sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&defaultRuntime));
  llvm::SmallString<256> path(
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(exe)));
  llvm::sys::path::append(path, "lib", "libfp8q_runtime_cpu.so");
  return std::string(path);
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::cl::ParseCommandLineOptions(
      argc, argv, "fp8q-run: compile an fp8q model and run it on a runtime\n");
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  fp8q::registerFp8qDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  MLIRContext context(registry);

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  std::string error;
  auto file = openInputFile(inputFile, &error);
  if (!file)
    return fail(error);
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;
  // From here on, report at file:line:col without echoing the source line:
  // a model's entry signature is one line of kilobytes.
  ScopedDiagnosticHandler located(&context, [](Diagnostic &diag) {
    auto print = [](Diagnostic &d, StringRef severity) {
      Location loc = d.getLocation();
      if (auto file = dyn_cast<FileLineColLoc>(loc))
        llvm::errs() << file.getFilename().getValue() << ":" << file.getLine()
                     << ":" << file.getColumn() << ": ";
      llvm::errs() << severity << ": " << d << "\n";
    };
    print(diag, diag.getSeverity() == DiagnosticSeverity::Error     ? "error"
                : diag.getSeverity() == DiagnosticSeverity::Warning ? "warning"
                                                                    : "remark");
    for (Diagnostic &note : diag.getNotes())
      print(note, "note");
    return success();
  });
  auto fn = module->lookupSymbol<func::FuncOp>(entryName);
  if (!fn || fn.isExternal() || !fn.isPublic()) {
    std::string candidates;
    for (auto other : module->getOps<func::FuncOp>())
      if (other.isPublic() && !other.isExternal())
        candidates +=
            (candidates.empty() ? "" : ", ") + ("@" + other.getSymName()).str();
    return fail("no public function @" + entryName + " with a body in " +
                inputFile + "; name the function to run with --entry" +
                (candidates.empty()
                     ? std::string()
                     : " (public functions: " + candidates + ")"));
  }
  auto resultType = fn.getNumResults() == 1
                        ? dyn_cast<RankedTensorType>(fn.getResultTypes()[0])
                        : RankedTensorType();
  if (!resultType || !resultType.hasStaticShape() ||
      resultType.getRank() != 2 || !resultType.getElementType().isBF16()) {
    InFlightDiagnostic diag = emitError(fn.getLoc(), "fp8q-run: @")
                              << entryName
                              << " must return one static 2-D bf16 tensor";
    if (fn.getNumResults() == 1)
      diag << ", not " << fn.getResultTypes()[0];
    if (resultType && !resultType.hasStaticShape())
      diag << "; generate the model with a number of tokens, e.g. "
              "fp8q-model-gen --tokens=16";
    return 1;
  }
  std::string runtime =
      runtimeLib.empty() ? defaultRuntime(argv[0]) : runtimeLib.getValue();
  if (!llvm::sys::fs::exists(runtime))
    return fail("runtime library '" + runtime + "' not found");

  // 1. What the compiler decides.
  auto start = Clock::now();
  FailureOr<LayoutReport> layouts = analyzeLayouts(*module);
  if (failed(layouts))
    return 1;
  llvm::outs() << "kernels chosen:";
  for (auto &entry : layouts->kernels)
    llvm::outs() << " " << entry.getKey() << " x" << entry.getValue();
  llvm::outs() << "\nscale copies (fp8q.materialize): " << layouts->fused.copies
               << " with fusion, " << layouts->unfused.copies << " without\n"
               << "producers writing a fused transposed scale: "
               << layouts->fused.fusedProducers << " of " << layouts->producers
               << "\n";

  // 2. Inputs and the fp32 reference.
  progress("generating seeded inputs and FP8 weights");
  FailureOr<std::vector<Argument>> args = makeInputs(fn, seed);
  if (failed(args))
    return 1;
  // What --dump-output must not replace.
  std::vector<std::string> inputs{inputFile};
  if (!weightsDir.empty() && failed(loadWeights(fn, weightsDir, *args, inputs)))
    return 1;
  progress(llvm::formatv("inputs ready ({0} arguments, seed {1}); computing "
                         "the fp32 reference",
                         args->size(), unsigned(seed)));
  start = Clock::now();
  SmallVector<fp8q::RefTensor> refArgs;
  for (Argument &a : *args)
    refArgs.push_back(a.reference);
  FailureOr<SmallVector<fp8q::RefTensor>> ref =
      fp8q::evaluateReference(fn, refArgs);
  if (failed(ref))
    return 1;
  ArrayRef<float> refOut(*(*ref)[0].data);
  const std::vector<float> &input = *refArgs[0].data;
  progress(llvm::formatv("reference done in {0:f1} s", seconds(start)));

  bool explained = false;
  auto report = [&](StringRef label, ArrayRef<float> y) {
    if (!explained && input.size() == y.size())
      llvm::outs() << "accuracy against the fp32 reference of the same graph "
                      "(quantization taken out); the residual stream carries "
                      "the input through every layer, so \"layer update\" "
                      "compares output - input, what the layers added\n";
    explained = true;
    auto [cosine, relErr] = compare(y, refOut);
    // The residual stream carries the input through; measure the update the
    // layers computed too.
    std::vector<float> dy(y.size()), dref(y.size());
    bool sameShape = input.size() == y.size();
    for (size_t i = 0; sameShape && i < y.size(); ++i) {
      dy[i] = y[i] - input[i];
      dref[i] = refOut[i] - input[i];
    }
    llvm::outs() << llvm::formatv("{0,-34} output cosine {1:f6}  rel. error "
                                  "{2:f4}",
                                  label, cosine, relErr);
    if (sameShape) {
      auto [dCos, dErr] = compare(dy, dref);
      llvm::outs() << llvm::formatv("   layer update cosine {0:f6}  rel. "
                                    "error {1:f4}",
                                    dCos, dErr);
    }
    llvm::outs() << "\n";
  };

  if (skipPropagation) {
    progress("compiling without layout propagation (skip-propagation) and "
             "running on " +
             llvm::sys::path::filename(runtime));
    FailureOr<std::vector<float>> out = compileAndRun(
        *module, /*propagate=*/false, *args, resultType.getShape(), runtime);
    if (failed(out))
      return 1;
    report("no propagation:", *out);
    return 0;
  }

  // 3. The compiled program, layouts by fp8q.
  progress("compiling with --fp8q-pipeline and running on " +
           llvm::sys::path::filename(runtime));
  start = Clock::now();
  FailureOr<std::vector<float>> out =
      compileAndRun(*module, /*propagate=*/true, *args, resultType.getShape(),
                    runtime, prepareWeights);
  if (failed(out))
    return 1;
  progress(llvm::formatv("done in {0:f1} s", seconds(start)));
  report("fp8q (contracts proven):", *out);
  if (!dumpOutput.empty())
    if (int status = fp8q::reportToolError(
            "fp8q-run",
            fp8q::writeToolOutput(
                dumpOutput,
                SmallVector<StringRef>(inputs.begin(), inputs.end()),
                [&](llvm::raw_ostream &os) {
                  os.write(reinterpret_cast<const char *>(out->data()),
                           out->size() * sizeof(float));
                  return llvm::Error::success();
                })))
      return status;

  // 4. The historical failure: no propagation, unchecked runtime.
  if (compareUnfixed) {
    progress("compiling without layout propagation (skip-propagation) and "
             "running with FP8Q_RT_UNCHECKED=1");
    setenv("FP8Q_RT_UNCHECKED", "1", 1);
    FailureOr<std::vector<float>> bad = failure();
    std::vector<std::string> warnings = captureRuntimeWarnings([&] {
      bad = compileAndRun(*module, /*propagate=*/false, *args,
                          resultType.getShape(), runtime);
    });
    unsetenv("FP8Q_RT_UNCHECKED");
    if (!warnings.empty()) {
      llvm::errs() << warnings.front() << "\n";
      if (warnings.size() > 1)
        llvm::errs() << "fp8q-run: and " << warnings.size() - 1
                     << " more runtime warnings, one per kernel call that "
                        "read an operand in the wrong layout (all of them: "
                        "FP8Q_RT_UNCHECKED=1 fp8q-run --skip-propagation)\n";
    }
    if (failed(bad))
      return 1;
    report("no propagation (wrong layouts):", *bad);
  }
  return 0;
}
