//===- Compile.cpp - fp8q tensor IR to an AOT artifact --------------------===//

#include "fp8q/Artifact/Compile.h"

#include "fp8q/Artifact/ArtifactInterface.h"
#include "fp8q/Artifact/ArtifactSpec.h"
#include "fp8q/Artifact/ObjectEmission.h"
#include "fp8q/Pipelines/Pipelines.h"
#include "fp8q/Support/ToolOutput.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Target/TargetMachine.h"

using namespace mlir;

namespace fp8q::artifact {

std::optional<EmitKind> emitKindForPath(llvm::StringRef path) {
  llvm::StringRef ext = llvm::sys::path::extension(path);
  if (ext == ".so")
    return EmitKind::SharedLibrary;
  if (ext == ".o")
    return EmitKind::Object;
  if (ext == ".ll")
    return EmitKind::LLVMIR;
  return std::nullopt;
}

/// The context of a compilation: what --fp8q-pipeline needs, the GPU
/// dialects of its device-mode output, and the translations of everything
/// the lowered module may hold (gpu.binary becomes globals and
/// mgpuModuleLoad constructors through the offloading interface).
static void registerCompileDependencies(DialectRegistry &registry) {
  registerFp8qPipelineDependencies(registry);
  registry.insert<gpu::GPUDialect, NVVM::NVVMDialect, ROCDL::ROCDLDialect>();
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  registerROCDLDialectTranslation(registry);
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
}

/// The linker arguments that record the runtime library, if one is named.
static llvm::Expected<std::vector<std::string>>
runtimeLinkArgs(const CompileOptions &options) {
  if (options.runtime.empty())
    return std::vector<std::string>();
  if (options.runtime != "cpu" && options.runtime != "cuda" &&
      options.runtime != "hip")
    return llvm::createStringError("--runtime=%s: expected cpu, cuda or hip",
                                   options.runtime.c_str());
  std::string name = "fp8q_runtime_" + options.runtime;
  llvm::SmallString<256> path(options.runtimeDir);
  llvm::sys::path::append(path, "lib" + name + ".so");
  if (!llvm::sys::fs::exists(path))
    return llvm::createStringError(
        "--runtime=%s: '%s' not found (name its folder with --runtime-dir)",
        options.runtime.c_str(), path.c_str());
  // -L/-l records the bare file name as DT_NEEDED (the runtimes have no
  // soname): the artifact finds the runtime through the loader's search
  // path, not this build's folder.
  return std::vector<std::string>{"--no-as-needed", "-L" + options.runtimeDir,
                                  "-l" + name};
}

llvm::Error compileArtifact(const CompileOptions &options) {
  // Cheap checks first: nothing is compiled for a run that cannot succeed.
  if (llvm::Error error =
          checkOutputIsNotAnInput(options.outputPath, {options.inputPath}))
    return error;
  std::unique_ptr<Fp8qPipelineOptions> pipelineOptions =
      Fp8qPipelineOptions::createFromString(options.pipelineOptions);
  if (!pipelineOptions)
    return llvm::createStringError(
        "invalid --pipeline-options '%s' (the options of --fp8q-pipeline; "
        "fp8q-opt --help lists them)",
        options.pipelineOptions.c_str());
  llvm::Expected<std::vector<std::string>> linkArgs = runtimeLinkArgs(options);
  if (!linkArgs)
    return linkArgs.takeError();
  if (options.emit == EmitKind::SharedLibrary &&
      !llvm::sys::fs::can_execute(options.linker))
    return llvm::createStringError("linker '%s' not found (--linker)",
                                   options.linker.c_str());

  DefaultTimingManager timing;
  timing.setEnabled(options.timing);
  TimingScope root = timing.getRootScope();

  DialectRegistry registry;
  registerCompileDependencies(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  std::string message;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(options.inputPath, &message);
  if (!input)
    return llvm::createStringError("%s", message.c_str());
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  // The pipeline's remarks (one per scale copy) are for fp8q-opt users.
  ScopedDiagnosticHandler quietRemarks(&context, [&](Diagnostic &diag) {
    return success(!options.remarks &&
                   diag.getSeverity() == DiagnosticSeverity::Remark);
  });

  TimingScope parseTimer = root.nest("parse");
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  parseTimer.stop();
  if (!module)
    return makeAlreadyReportedError();

  // An input no artifact can export is refused before anything is compiled.
  if (failed(collectEntries(*module)))
    return makeAlreadyReportedError();
  // Every public function keeps a C interface: the artifact's exports (a
  // @<fn>_prepare_weights that prepare-weight-args adds takes its step's).
  for (auto fn : module->getOps<func::FuncOp>())
    if (fn.isPublic() && !fn.isExternal())
      fn->setAttr("llvm.emit_c_interface", UnitAttr::get(&context));

  // The entries are read between the pipeline's tensor stages and its
  // lowering: with the signatures the compiled functions have
  // (prepare-weight-args retypes a step's prepared arguments and adds its
  // prepare function), while element types and shapes are still there.
  FailureOr<ArtifactSpec> spec;
  {
    TimingScope pipelineTimer = root.nest("fp8q-pipeline");
    PassManager tensorStages(&context);
    tensorStages.enableTiming(pipelineTimer);
    buildFp8qTensorPipeline(tensorStages, *pipelineOptions);
    if (failed(tensorStages.run(*module)))
      return makeAlreadyReportedError();
    spec = collectEntries(*module);
    if (failed(spec))
      return makeAlreadyReportedError();
    PassManager lowering(&context);
    lowering.enableTiming(pipelineTimer);
    buildFp8qLoweringPipeline(lowering, *pipelineOptions);
    if (failed(lowering.run(*module)))
      return makeAlreadyReportedError();
  }
  if (failed(resolveExecution(*module, *spec)))
    return makeAlreadyReportedError();

  TimingScope translateTimer = root.nest("translate to LLVM IR");
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*module, llvmContext, "fp8q_artifact");
  if (!llvmModule)
    return makeAlreadyReportedError();
  // Same input, same bytes: nothing of the input's path goes into the
  // artifact.
  llvmModule->setSourceFileName("fp8q_artifact");
  module = nullptr;
  translateTimer.stop();

  const unsigned optLevel = options.optLevel.value_or(
      pipelineOptions->execution == Execution::Device ? 0 : 2);
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> machine =
      createTargetMachine(options.targetTriple, optLevel);
  if (!machine)
    return machine.takeError();
  llvmModule->setTargetTriple((*machine)->getTargetTriple());
  llvmModule->setDataLayout((*machine)->createDataLayout());
  if (llvm::Error error = addEntryWrappers(*llvmModule, *spec))
    return error;
  addManifest(*llvmModule, renderManifest(*spec));
  addCompilerRuntimeHelpers(*llvmModule);
  if (llvm::Error error = linkSupportLibrary(*llvmModule))
    return error;
  restrictExports(*llvmModule, *spec);
  inlineEntryBodies(*llvmModule, *spec);
  if (options.hugeFunctionThreshold)
    compileHugeFunctionsFast(*llvmModule, options.hugeFunctionThreshold);

  TimingScope optimizeTimer = root.nest("LLVM optimization");
  if (llvm::Error error = optimizeModule(*llvmModule, **machine, optLevel))
    return error;
  optimizeTimer.stop();

  return writeToolOutput(
      options.outputPath, {options.inputPath},
      [&](llvm::raw_ostream &os) -> llvm::Error {
        if (options.emit == EmitKind::LLVMIR) {
          llvmModule->print(os, nullptr);
          return llvm::Error::success();
        }
        TimingScope codegenTimer = root.nest("code generation");
        llvm::SmallVector<char, 0> object;
        if (llvm::Error error = emitObject(*llvmModule, **machine, object))
          return error;
        codegenTimer.stop();
        if (options.emit == EmitKind::Object) {
          os.write(object.data(), object.size());
          return llvm::Error::success();
        }
        TimingScope linkTimer = root.nest("link");
        return linkSharedLibrary(options.linker, object, *linkArgs, os);
      });
}

} // namespace fp8q::artifact
