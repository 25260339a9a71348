//===- ArtifactSpec.cpp - What an fp8q artifact exports -------------------===//

#include "fp8q/Artifact/ArtifactSpec.h"
#include "fp8q/Dialect/IR/Collectives.h"

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
  if (Attribute encoding = tensor.getEncoding()) {
    llvm::raw_string_ostream layout(spec.layout);
    encoding.print(layout);
  }
  return spec;
}

static bool sameTensor(const TensorSpec &a, const TensorSpec &b) {
  return a.elementType == b.elementType && a.shape == b.shape &&
         a.layout == b.layout;
}

/// Links every prepare entry of `spec` (read from `module`) to its step and
/// checks what the manifest will state: one prepare entry per step with
/// fp8q.prepared_args, one argument and one result per prepared argument,
/// result j of the type the step takes as argument preparedArgs[j].
static LogicalResult linkPrepareEntries(ModuleOp module, ArtifactSpec &spec) {
  auto byName = [&](StringRef name) -> EntrySpec * {
    for (EntrySpec &entry : spec.entries)
      if (entry.name == name)
        return &entry;
    return nullptr;
  };
  for (EntrySpec &prepare : spec.entries) {
    if (prepare.prepares.empty())
      continue;
    auto fn = module.lookupSymbol<func::FuncOp>(prepare.name);
    EntrySpec *step = byName(prepare.prepares);
    if (!step || step->preparedArgs.empty())
      return emitError(fn.getLoc(), "fp8q-compile: @")
             << prepare.name << " prepares @" << prepare.prepares
             << ", which is no public function with fp8q.prepared_args "
                "(run --fp8q-prepare-weight-args on the whole module, or "
                "drop its fp8q.prepares)";
    if (!step->prepare.empty())
      return emitError(fn.getLoc(), "fp8q-compile: @")
             << prepare.name << " and @" << step->prepare << " both prepare @"
             << step->name << "; keep one";
    size_t count = step->preparedArgs.size();
    bool matches =
        prepare.args.size() == count && prepare.results.size() == count;
    for (size_t j = 0; matches && j < count; ++j)
      matches =
          sameTensor(prepare.results[j], step->args[step->preparedArgs[j]]);
    if (!matches)
      return emitError(fn.getLoc(), "fp8q-compile: @")
             << prepare.name << " must take " << count
             << " arguments and return them as @" << step->name
             << " takes its fp8q.prepared_args, in that order";
    step->prepare = prepare.name;
  }
  for (EntrySpec &step : spec.entries)
    if (!step.preparedArgs.empty() && step.prepare.empty())
      return emitError(module.lookupSymbol(step.name)->getLoc(),
                       "fp8q-compile: @")
             << step.name
             << " has fp8q.prepared_args but no public function prepares "
                "its weights (fp8q.prepares = @"
             << step.name << ")";
  return success();
}

FailureOr<ArtifactSpec> collectEntries(ModuleOp module) {
  ArtifactSpec spec;
  if (Attribute target = module->getAttr("fp8q.target")) {
    llvm::raw_string_ostream os(spec.target);
    target.print(os);
  }
  // One communicator per artifact: every collective among the same ranks.
  WalkResult ranks = module.walk([&](Operation *op) {
    if (!isShardCollective(op))
      return WalkResult::advance();
    FailureOr<int64_t> n = getCollectiveRanks(op);
    if (failed(n))
      return WalkResult::interrupt();
    if (spec.collectiveRanks && spec.collectiveRanks != *n) {
      emitError(op->getLoc(), "fp8q-compile: ")
          << "collective among " << *n << " ranks, but another in the module "
          << "is among " << spec.collectiveRanks
          << "; an artifact holds one communicator";
      return WalkResult::interrupt();
    }
    spec.collectiveRanks = *n;
    return WalkResult::advance();
  });
  if (ranks.wasInterrupted())
    return failure();
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
    if (auto prepared =
            fn->getAttrOfType<DenseI64ArrayAttr>("fp8q.prepared_args")) {
      int64_t previous = -1;
      for (int64_t index : prepared.asArrayRef()) {
        if (index <= previous || index >= int64_t(entry.args.size()))
          return emitError(fn.getLoc(), "fp8q-compile: fp8q.prepared_args "
                                        "of @")
                 << entry.name << " must be ascending argument indices below "
                 << entry.args.size() << "; found " << index;
        entry.preparedArgs.push_back(index);
        previous = index;
      }
    }
    if (auto prepares = fn->getAttrOfType<FlatSymbolRefAttr>("fp8q.prepares"))
      entry.prepares = prepares.getValue().str();
    spec.entries.push_back(std::move(entry));
  }
  if (spec.entries.empty())
    return emitError(module.getLoc(),
                     "fp8q-compile: the module has no public function with a "
                     "body: an artifact needs at least one entry"),
           failure();
  if (failed(linkPrepareEntries(module, spec)))
    return failure();
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
    os << ']';
    // Only re-laid-out tensors (prepared weights) have a layout: the
    // manifest of a step without one is unchanged.
    if (!tensor.layout.empty()) {
      os << ",\"layout\":";
      writeString(os, tensor.layout);
    }
    os << '}';
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
  if (spec.collectiveRanks)
    os << ",\"collective_ranks\":" << spec.collectiveRanks;
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
    if (!entry.prepare.empty()) {
      os << ",\"prepare\":";
      writeString(os, entry.prepare);
      os << ",\"prepared_args\":[";
      llvm::interleave(entry.preparedArgs, os, ",");
      os << ']';
    }
    if (!entry.prepares.empty()) {
      os << ",\"prepares\":";
      writeString(os, entry.prepares);
    }
    os << '}';
  }
  os << "]}";
  return json;
}

} // namespace fp8q::artifact
