//===- ArtifactSpec.cpp - What an fp8q artifact exports -------------------===//

#include "fp8q/Artifact/ArtifactSpec.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace fp8q::artifact {

/// The manifest form of `type`, or failure when it is no ranked tensor.
static FailureOr<TensorSpec> describe(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return failure();
  TensorSpec spec;
  llvm::raw_string_ostream os(spec.elementType);
  tensor.getElementType().print(os);
  for (int64_t size : tensor.getShape())
    spec.shape.push_back(ShapedType::isDynamic(size) ? -1 : size);
  return spec;
}

FailureOr<ArtifactSpec> collectEntries(ModuleOp module) {
  ArtifactSpec spec;
  if (Attribute target = module->getAttr("fp8q.target")) {
    llvm::raw_string_ostream os(spec.target);
    target.print(os);
  }
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (!fn.isPublic() || fn.isExternal())
      continue;
    EntrySpec entry;
    entry.name = fn.getSymName().str();
    auto add = [&](TypeRange types, auto &into, StringRef what) {
      for (auto [i, type] : llvm::enumerate(types)) {
        FailureOr<TensorSpec> tensor = describe(type);
        if (failed(tensor)) {
          emitError(fn.getLoc(), "fp8q-compile: ")
              << what << " #" << i << " of public function @" << entry.name
              << " has type " << type
              << "; an artifact entry takes and returns ranked tensors only "
                 "(make the function private to keep it out of the "
                 "artifact's interface)";
          return failure();
        }
        into.push_back(std::move(*tensor));
      }
      return success();
    };
    if (failed(add(fn.getArgumentTypes(), entry.args, "argument")) ||
        failed(add(fn.getResultTypes(), entry.results, "result")))
      return failure();
    spec.entries.push_back(std::move(entry));
  }
  if (spec.entries.empty())
    return emitError(module.getLoc(),
                     "fp8q-compile: the module has no public function with a "
                     "body: an artifact needs at least one entry"),
           failure();
  return spec;
}

/// The number of `_mlir_ciface_` parameters the tensors of `entry` take: a
/// descriptor pointer per argument, and one result pointer if it returns
/// anything (a struct of descriptors for several results).
static unsigned tensorParameters(const EntrySpec &entry) {
  return entry.args.size() + (entry.results.empty() ? 0 : 1);
}

LogicalResult resolveExecution(ModuleOp lowered, ArtifactSpec &spec) {
  bool device = false;
  lowered.walk([&](Operation *op) {
    if (op->getName().getStringRef() == "gpu.binary") {
      device = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  for (EntrySpec &entry : spec.entries) {
    std::string name = "_mlir_ciface_" + entry.name;
    auto fn = lowered.lookupSymbol<LLVM::LLVMFuncOp>(name);
    if (!fn)
      return emitError(lowered.getLoc(), "fp8q-compile: --fp8q-pipeline left "
                                         "no C interface @")
             << name << " for the public function @" << entry.name;
    unsigned expected = tensorParameters(entry);
    unsigned actual = fn.getNumArguments();
    if (actual == expected + 1 &&
        isa<LLVM::LLVMPointerType>(fn.getArgumentTypes().back())) {
      entry.stream = true;
      device = true;
    } else if (actual != expected) {
      return emitError(fn.getLoc(), "fp8q-compile: @")
             << name << " takes " << actual << " parameters; expected "
             << expected << " (one per tensor argument, one for the results)"
             << " or " << expected + 1 << " (and a trailing stream)";
    }
  }
  for (EntrySpec &entry : spec.entries)
    if (device && !entry.stream)
      return emitError(lowered.getLoc(), "fp8q-compile: device-mode module, "
                                         "but the entry @")
             << entry.name << " takes no stream";
  spec.execution = device ? "device" : "host";
  return success();
}

/// `text` as a JSON string literal.
static void writeString(llvm::raw_ostream &os, StringRef text) {
  os << '"';
  for (unsigned char c : text) {
    if (c == '"' || c == '\\')
      os << '\\' << c;
    else if (c < 0x20)
      os << llvm::format("\\u%04x", c);
    else
      os << c;
  }
  os << '"';
}

static void writeTensors(llvm::raw_ostream &os, ArrayRef<TensorSpec> tensors) {
  os << '[';
  for (auto [i, tensor] : llvm::enumerate(tensors)) {
    os << (i ? "," : "") << "{\"type\":";
    writeString(os, tensor.elementType);
    os << ",\"rank\":" << tensor.shape.size() << ",\"shape\":[";
    llvm::interleave(tensor.shape, os, ",");
    os << "]}";
  }
  os << ']';
}

std::string renderManifest(const ArtifactSpec &spec) {
  std::string json;
  llvm::raw_string_ostream os(json);
  os << "{\"format\":\"fp8q-artifact\",\"version\":1,\"execution\":";
  writeString(os, spec.execution);
  os << ",\"target\":";
  writeString(os, spec.target);
  os << ",\"entries\":[";
  for (auto [i, entry] : llvm::enumerate(spec.entries)) {
    os << (i ? "," : "") << "{\"name\":";
    writeString(os, entry.name);
    os << ",\"symbol\":";
    writeString(os, "fp8q_step_" + entry.name);
    os << ",\"c_interface\":";
    writeString(os, "_mlir_ciface_" + entry.name);
    os << ",\"stream\":" << (entry.stream ? "true" : "false") << ",\"args\":";
    writeTensors(os, entry.args);
    os << ",\"results\":";
    writeTensors(os, entry.results);
    os << '}';
  }
  os << "]}";
  return json;
}

} // namespace fp8q::artifact
