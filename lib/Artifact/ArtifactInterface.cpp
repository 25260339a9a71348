//===- ArtifactInterface.cpp - The C ABI of an fp8q artifact --------------===//

#include "fp8q/Artifact/ArtifactInterface.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Analysis/CFG.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace fp8q::artifact {

/// MLIR's memref descriptor of `rank`: {allocated, aligned, offset,
/// sizes[rank], strides[rank]} (rank 0: no arrays).
static StructType *descriptorType(LLVMContext &ctx, unsigned rank) {
  Type *ptr = PointerType::getUnqual(ctx);
  Type *i64 = Type::getInt64Ty(ctx);
  SmallVector<Type *, 5> fields{ptr, ptr, i64};
  if (rank) {
    fields.push_back(ArrayType::get(i64, rank));
    fields.push_back(ArrayType::get(i64, rank));
  }
  return StructType::get(ctx, fields);
}

Error addEntryWrappers(Module &module, const ArtifactSpec &spec) {
  LLVMContext &ctx = module.getContext();
  Type *ptr = PointerType::getUnqual(ctx);
  const DataLayout &layout = module.getDataLayout();
  for (const EntrySpec &entry : spec.entries) {
    std::string ciface = "_mlir_ciface_" + entry.name;
    Function *callee = module.getFunction(ciface);
    if (!callee)
      return createStringError("no function %s in the translated module",
                               ciface.c_str());
    std::string name = "fp8q_step_" + entry.name;
    if (module.getNamedValue(name))
      return createStringError("the module already defines %s, the artifact "
                               "entry of @%s",
                               name.c_str(), entry.name.c_str());
    auto *fn = Function::Create(
        FunctionType::get(Type::getVoidTy(ctx), {ptr}, /*isVarArg=*/false),
        GlobalValue::ExternalLinkage, name, module);
    fn->addFnAttr(Attribute::NoUnwind);
    Argument *slots = fn->getArg(0);
    slots->setName("args");
    IRBuilder<> b(BasicBlock::Create(ctx, "entry", fn));
    auto slot = [&](unsigned i) -> Value * {
      Value *at = b.CreateConstInBoundsGEP1_64(ptr, slots, i);
      return b.CreateLoad(ptr, at);
    };

    unsigned numArgs = entry.args.size() + (entry.stream ? 1 : 0);
    SmallVector<Value *> params;
    // Results: one descriptor is written in place; several come back as a
    // struct of descriptors, copied out after the call.
    StructType *resultStruct = nullptr;
    Value *resultBuffer = nullptr;
    if (entry.results.size() == 1) {
      params.push_back(slot(numArgs));
    } else if (entry.results.size() > 1) {
      SmallVector<Type *> fields;
      for (const TensorSpec &result : entry.results)
        fields.push_back(descriptorType(ctx, result.shape.size()));
      resultStruct = StructType::get(ctx, fields);
      resultBuffer = b.CreateAlloca(resultStruct);
      params.push_back(resultBuffer);
    }
    // A tensor argument's value is its descriptor: the callee takes its
    // address. The stream is passed by value.
    for (unsigned i = 0; i < entry.args.size(); ++i)
      params.push_back(slot(i));
    if (entry.stream)
      params.push_back(b.CreateLoad(ptr, slot(entry.args.size()), "stream"));
    if (params.size() != callee->arg_size())
      return createStringError(
          "%s takes %u parameters, the entry's signature needs %u",
          ciface.c_str(), unsigned(callee->arg_size()),
          unsigned(params.size()));
    b.CreateCall(callee, params);
    if (resultStruct) {
      const StructLayout *fields = layout.getStructLayout(resultStruct);
      for (unsigned r = 0; r < entry.results.size(); ++r) {
        Type *desc = resultStruct->getElementType(r);
        Value *from = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), resultBuffer,
                                                   fields->getElementOffset(r));
        b.CreateMemCpy(slot(numArgs + r), layout.getABITypeAlign(desc), from,
                       layout.getABITypeAlign(desc),
                       layout.getTypeAllocSize(desc));
      }
    }
    b.CreateRetVoid();
  }
  return Error::success();
}

void addManifest(Module &module, StringRef json) {
  LLVMContext &ctx = module.getContext();
  Constant *text = ConstantDataArray::getString(ctx, json, /*AddNull=*/true);
  auto *global = new GlobalVariable(
      module, text->getType(), /*isConstant=*/true, GlobalValue::PrivateLinkage,
      text, "fp8q_artifact_manifest_text");
  global->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  global->setAlignment(Align(1));
  Type *ptr = PointerType::getUnqual(ctx);
  auto *fn = Function::Create(FunctionType::get(ptr, /*isVarArg=*/false),
                              GlobalValue::ExternalLinkage,
                              "fp8q_artifact_manifest", module);
  fn->addFnAttr(Attribute::NoUnwind);
  IRBuilder<> b(BasicBlock::Create(ctx, "entry", fn));
  b.CreateRet(global);
}

void addCompilerRuntimeHelpers(Module &module) {
  const char *name = "__truncsfbf2";
  if (Function *existing = module.getFunction(name))
    if (!existing->isDeclaration())
      return;
  LLVMContext &ctx = module.getContext();
  Type *i32 = Type::getInt32Ty(ctx), *i16 = Type::getInt16Ty(ctx);
  FunctionCallee callee = module.getOrInsertFunction(
      name, FunctionType::get(Type::getBFloatTy(ctx), {Type::getFloatTy(ctx)},
                              /*isVarArg=*/false));
  auto *fn = cast<Function>(callee.getCallee());
  fn->setLinkage(GlobalValue::WeakODRLinkage);
  fn->setVisibility(GlobalValue::HiddenVisibility);
  fn->addFnAttr(Attribute::NoUnwind);
  IRBuilder<> b(BasicBlock::Create(ctx, "entry", fn));
  Value *bits = b.CreateBitCast(fn->getArg(0), i32);
  Value *magnitude = b.CreateAnd(bits, 0x7FFFFFFFu);
  Value *isNaN = b.CreateICmpUGT(magnitude, b.getInt32(0x7F800000u));
  Value *quiet = b.CreateOr(b.CreateLShr(bits, 16), 0x40u);
  Value *lsb = b.CreateAnd(b.CreateLShr(bits, 16), 1u);
  Value *rounded = b.CreateLShr(
      b.CreateAdd(bits, b.CreateAdd(lsb, b.getInt32(0x7FFFu))), 16);
  Value *half = b.CreateTrunc(b.CreateSelect(isNaN, quiet, rounded), i16);
  b.CreateRet(b.CreateBitCast(half, Type::getBFloatTy(ctx)));
  // Code generation calls it after the optimizer ran: keep it until then.
  appendToCompilerUsed(module, {fn});
}

Error linkSupportLibrary(Module &module) {
  Expected<std::unique_ptr<Module>> support = parseBitcodeFile(
      MemoryBufferRef(getSupportBitcode(), "ArtifactSupport.bc"),
      module.getContext());
  if (!support)
    return support.takeError();
  // Plain C over 64-bit integers and pointers: any 64-bit target's layout.
  (*support)->setTargetTriple(module.getTargetTriple());
  (*support)->setDataLayout(module.getDataLayout());
  for (Function &fn : **support)
    if (!fn.isDeclaration())
      fn.setVisibility(GlobalValue::HiddenVisibility);
  if (Linker::linkModules(module, std::move(*support), Linker::LinkOnlyNeeded))
    return createStringError("cannot link the artifact support library");
  return Error::success();
}

void inlineEntryBodies(Module &module, const ArtifactSpec &spec) {
  for (const EntrySpec &entry : spec.entries) {
    Function *body = module.getFunction(entry.name);
    Function *ciface = module.getFunction("_mlir_ciface_" + entry.name);
    if (!body || !ciface || body->isDeclaration() || !body->hasOneUse())
      continue;
    auto *call = dyn_cast<CallBase>(body->user_back());
    if (!call || call->getFunction() != ciface ||
        call->getCalledFunction() != body)
      continue;
    InlineFunctionInfo info;
    if (InlineFunction(*call, info).isSuccess())
      body->eraseFromParent();
  }
}

void compileHugeFunctionsFast(Module &module, unsigned maxInstructions) {
  for (Function &fn : module) {
    if (fn.isDeclaration())
      continue;
    // Straight-line glue (no loop: the device step's launch sequences) is
    // worth nothing to optimize from an eighth of the size on.
    unsigned size = fn.getInstructionCount();
    SmallVector<std::pair<const BasicBlock *, const BasicBlock *>> backEdges;
    if (size > maxInstructions / 8)
      FindFunctionBackedges(fn, backEdges);
    if (size <= maxInstructions &&
        (size <= maxInstructions / 8 || !backEdges.empty()))
      continue;
    fn.removeFnAttr(Attribute::AlwaysInline);
    fn.addFnAttr(Attribute::NoInline);
    fn.addFnAttr(Attribute::OptimizeNone);
  }
}

void restrictExports(Module &module, const ArtifactSpec &spec) {
  StringSet<> exported{"fp8q_artifact_manifest"};
  for (const EntrySpec &entry : spec.entries) {
    exported.insert("fp8q_step_" + entry.name);
    exported.insert("_mlir_ciface_" + entry.name);
  }
  for (GlobalValue &value : module.global_values()) {
    if (value.isDeclaration() || value.hasLocalLinkage() ||
        value.getName().starts_with("llvm."))
      continue;
    if (exported.contains(value.getName())) {
      value.setVisibility(GlobalValue::DefaultVisibility);
      value.setDSOLocal(true);
      continue;
    }
    value.setVisibility(GlobalValue::HiddenVisibility);
    value.setDSOLocal(true);
  }
}

} // namespace fp8q::artifact
