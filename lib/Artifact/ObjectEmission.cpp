//===- ObjectEmission.cpp - LLVM IR to a native artifact ------------------===//

#include "fp8q/Artifact/ObjectEmission.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

using namespace llvm;

namespace fp8q::artifact {

static CodeGenOptLevel codeGenLevel(unsigned optLevel) {
  switch (optLevel) {
  case 0:
    return CodeGenOptLevel::None;
  case 1:
    return CodeGenOptLevel::Less;
  case 2:
    return CodeGenOptLevel::Default;
  default:
    return CodeGenOptLevel::Aggressive;
  }
}

Expected<std::unique_ptr<TargetMachine>>
createTargetMachine(StringRef tripleName, unsigned optLevel) {
  static bool initialized = [] {
    InitializeAllTargetInfos();
    InitializeAllTargets();
    InitializeAllTargetMCs();
    InitializeAllAsmPrinters();
    return true;
  }();
  (void)initialized;
  Triple triple(tripleName.empty() ? sys::getDefaultTargetTriple()
                                   : tripleName.str());
  std::string error;
  const Target *target = TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return createStringError("target triple '%s': %s", triple.str().c_str(),
                             error.c_str());
  TargetOptions options;
  // Constructors (the device-mode kernel loads) in .init_array, which the
  // dynamic loader runs; LLVM's default, .ctors, runs only through crt
  // files that an `ld.lld -shared` link does not add (the loads never ran).
  options.UseInitArray = true;
  std::unique_ptr<TargetMachine> machine(target->createTargetMachine(
      triple, /*CPU=*/"", /*Features=*/"", options, Reloc::PIC_, std::nullopt,
      codeGenLevel(optLevel)));
  if (!machine)
    return createStringError("no target machine for '%s'",
                             triple.str().c_str());
  // `optnone` functions (compileHugeFunctionsFast: the straight-line glue
  // of a whole model) take FastISel; SelectionDAG's combiner is superlinear
  // in the size of their one basic block.
  machine->setO0WantsFastISel(true);
  return machine;
}

Error optimizeModule(Module &module, TargetMachine &machine,
                     unsigned optLevel) {
  module.setTargetTriple(machine.getTargetTriple());
  module.setDataLayout(machine.createDataLayout());
  if (verifyModule(module, &errs()))
    return createStringError("the translated LLVM IR does not verify");
  if (optLevel == 0)
    return Error::success();
  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  PassBuilder builder(&machine);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  OptimizationLevel level = optLevel == 1   ? OptimizationLevel::O1
                            : optLevel == 2 ? OptimizationLevel::O2
                                            : OptimizationLevel::O3;
  ModulePassManager mpm = builder.buildPerModuleDefaultPipeline(level);
  mpm.run(module, mam);
  return Error::success();
}

Error emitObject(Module &module, TargetMachine &machine,
                 SmallVectorImpl<char> &object) {
  raw_svector_ostream os(object);
  legacy::PassManager codegen;
  if (machine.addPassesToEmitFile(codegen, os, nullptr,
                                  CodeGenFileType::ObjectFile))
    return createStringError("the target cannot emit an object file");
  codegen.run(module);
  return Error::success();
}

Error linkSharedLibrary(StringRef linker, ArrayRef<char> object,
                        ArrayRef<std::string> extraArgs, raw_ostream &out) {
  SmallString<128> objectPath, libraryPath;
  int fd;
  if (std::error_code code =
          sys::fs::createTemporaryFile("fp8q-artifact", "o", fd, objectPath))
    return createStringError(code, "cannot create a temporary object: %s",
                             code.message().c_str());
  FileRemover removeObject(objectPath);
  {
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(object.data(), object.size());
    os.close();
    if (os.has_error()) {
      std::error_code code = os.error();
      os.clear_error();
      return createStringError(code, "cannot write '%s': %s",
                               objectPath.c_str(), code.message().c_str());
    }
  }
  if (std::error_code code =
          sys::fs::createTemporaryFile("fp8q-artifact", "so", libraryPath))
    return createStringError(code, "cannot create a temporary library: %s",
                             code.message().c_str());
  FileRemover removeLibrary(libraryPath);

  std::vector<StringRef> args{
      linker, "-shared",   "--hash-style=gnu", "--build-id=none",
      "-o",   libraryPath, objectPath};
  for (const std::string &arg : extraArgs)
    args.push_back(arg);
  std::string error;
  int status = sys::ExecuteAndWait(linker, args, /*Env=*/std::nullopt,
                                   /*Redirects=*/{}, /*SecondsToWait=*/0,
                                   /*MemoryLimit=*/0, &error);
  if (status != 0)
    return createStringError("linking with '%s' failed%s%s",
                             linker.str().c_str(), error.empty() ? "" : ": ",
                             error.c_str());
  ErrorOr<std::unique_ptr<MemoryBuffer>> library =
      MemoryBuffer::getFile(libraryPath, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!library)
    return createStringError(library.getError(), "cannot read '%s': %s",
                             libraryPath.c_str(),
                             library.getError().message().c_str());
  out << (*library)->getBuffer();
  return Error::success();
}

} // namespace fp8q::artifact
