//===- ScaleLayoutRewrite.cpp - Apply a scale-layout plan -----------------===//
//
// Applies ScaleLayoutAnalysis's plan: retypes free nodes (and private
// signatures), inserts one fp8q.materialize per (value, needed layout)
// right after the value's definition - it dominates every use and is
// outside every loop that does not define the value - reusing a detached
// one for the same (value, layout), and emits a remark per
// materialization naming its consumers.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Transforms/ScaleLayoutRewrite.h"
#include "fp8q/Dialect/IR/ScaleLayout.h"
#include "fp8q/Support/Diagnostics.h"
#include "fp8q/Target/KernelContracts.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "fp8q-propagate-scale-layout"

using namespace mlir;
using namespace fp8q;
namespace ls = fp8q::layout_solver;

static std::string describeLayout(LayoutAttr layout) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << layout;
  return text;
}

static std::string describeLoc(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << op->getLoc();
  return text;
}

std::string fp8q::describeScaleOperand(OpOperand &use) {
  return ("'" + use.getOwner()->getName().getStringRef() + "' operand #" +
          Twine(use.getOperandNumber()) + " at " + describeLoc(use.getOwner()))
      .str();
}

std::string fp8q::describeScaleConsumer(const ScaleUse &use) {
  OpOperand &operand = *use.operand;
  auto exact = [&](const Twine &what) {
    return (what + " (" + describeLayout(use.typeLayout) + ") at " +
            describeScaleOperand(operand))
        .str();
  };
  auto symbol = [&]() { return SymbolTable::getSymbolName(use.subject); };
  switch (use.consumer) {
  case ScaleConsumer::Operand:
    return describeScaleOperand(operand);
  case ScaleConsumer::Unknown:
    return "unknown consumer " + describeScaleOperand(operand) + " (row_major)";
  case ScaleConsumer::RegionResult:
    return exact("result #" + Twine(use.index) + " of '" +
                 use.subject->getName().getStringRef() + "'");
  case ScaleConsumer::CalleeArgument:
    return exact("argument #" + Twine(use.index) + " of @" +
                 symbol().getValue());
  case ScaleConsumer::PublicResult:
    return exact("result #" + Twine(use.index) + " of public @" +
                 symbol().getValue());
  case ScaleConsumer::Successor:
    return exact("successor block argument");
  case ScaleConsumer::Collective:
    return "'" + operand.getOwner()->getName().getStringRef().str() + "' at " +
           describeLoc(operand.getOwner()) +
           " (row_major: a collective moves whole rows of bytes)";
  case ScaleConsumer::WScale:
    if (use.kind == ScaleNeed::Exact)
      return exact("w_scale of fp8q.gemm");
    [[fallthrough]];
  case ScaleConsumer::XScale: {
    auto gemm = cast<GemmOp>(operand.getOwner());
    Kernel kernel = *gemm.getKernel();
    bool x = use.consumer == ScaleConsumer::XScale;
    return std::string(x ? "x_scale" : "w_scale") + " of fp8q.gemm at " +
           describeLoc(gemm) + ": kernel " + getKernelContract(kernel).name +
           " requires " +
           describeRequirement(kernel,
                               x ? GemmOperand::XScale : GemmOperand::WScale);
  }
  }
  llvm_unreachable("unknown consumer kind");
}

DetachedMaterializations
fp8q::detachMaterializations(RewriterBase &rewriter,
                             ArrayRef<MaterializeOp> ops) {
  DetachedMaterializations detached;
  for (MaterializeOp op : ops)
    rewriter.replaceAllUsesWith(op.getResult(), op.getScale());
  for (MaterializeOp op : ops) {
    detached.operands.insert(op.getScale());
    auto key = std::make_pair(op.getScale().getAsOpaquePointer(),
                              op.getType().getAsOpaquePointer());
    // Of duplicates of one (operand, layout), the first may be reused.
    detached.byKey.try_emplace(key, op);
    detached.order.push_back(op);
  }
  return detached;
}

PropagationCounts
fp8q::applyScaleLayoutPlan(RewriterBase &rewriter, ModuleOp module,
                           const ScaleLayoutPlan &plan,
                           DetachedMaterializations &detached) {
  PropagationCounts counts;
  MLIRContext *ctx = module.getContext();
  const ls::Problem &problem = plan.problem;
  const ls::Solution &solution = plan.solution;
  ArrayRef<LayoutAttr> layouts = plan.layouts;

  for (OpOperand *operand : plan.unknownOperands)
    fp8q::emitRemarkAt(operand->getOwner())
        << "operand #" << operand->getOperandNumber()
        << " gets row_major: unknown scale consumer";
  if (!solution.provenMinimal)
    fp8q::emitRemarkAt(module)
        << "scale-layout search budget exhausted; the "
           "assignment is the best found, not proven minimal";

  // Uniquing a type takes a lock: retyped types are memoized.
  DenseMap<std::pair<Type, Attribute>, RankedTensorType> retypedTypes;
  auto retyped = [&](RankedTensorType type, LayoutAttr layout) {
    auto [it, inserted] = retypedTypes.try_emplace({type, layout});
    if (inserted)
      it->second = withScaleLayout(type, layout);
    return it->second;
  };
  // Retype free nodes, then their values (the solver's values, and the
  // rare flow targets outside them).
  SmallVector<LayoutAttr> newLayout(problem.nodes.size());
  for (unsigned s = 0; s < problem.nodes.size(); ++s)
    newLayout[s] = plan.getNewLayout(s);
  DenseSet<Operation *> funcsToUpdate;
  auto retypeValue = [&](Value v, LayoutAttr want) {
    LLVM_DEBUG(llvm::dbgs()
               << "[" DEBUG_TYPE "] retype " << v << " to " << want << "\n");
    v.setType(retyped(cast<RankedTensorType>(v.getType()), want));
    if (auto result = dyn_cast<OpResult>(v)) {
      if (isa<QuantizeOp, RmsNormQuantizeOp>(result.getOwner()))
        ++counts.fused;
    } else if (Operation *parent =
                   cast<BlockArgument>(v).getOwner()->getParentOp();
               plan.rewritableFunctions.contains(parent)) {
      funcsToUpdate.insert(parent);
    }
  };
  for (unsigned s = 0; s < plan.values.size(); ++s)
    if (LayoutAttr want = newLayout[problem.values[s].node])
      retypeValue(plan.values[s], want);
  for (auto &[v, node] : plan.otherValues)
    if (LayoutAttr want = newLayout[node])
      retypeValue(v, want);
  // Private function results: their node's layout.
  DenseMap<std::pair<Operation *, unsigned>, LayoutAttr> resultLayout;
  for (const ScaleLayoutPlan::FunctionResult &result : plan.functionResults) {
    funcsToUpdate.insert(result.function);
    if (LayoutAttr want = newLayout[result.node])
      resultLayout[{result.function, result.result}] = want;
  }
  for (Operation *op : funcsToUpdate) {
    auto func = cast<FunctionOpInterface>(op);
    SmallVector<Type> results(func.getResultTypes());
    for (unsigned i = 0; i < results.size(); ++i)
      if (LayoutAttr want = resultLayout.lookup({op, i}))
        results[i] = retyped(cast<RankedTensorType>(results[i]), want);
    auto type = FunctionType::get(
        ctx, func.getFunctionBody().front().getArgumentTypes(), results);
    rewriter.modifyOpInPlace(
        op, [&] { func.setFunctionTypeAttr(TypeAttr::get(type)); });
  }

  // Insert (or reuse) one materialization per (value, needed layout).
  DenseSet<Operation *> reused;
  SmallVector<std::string> why;
  for (unsigned s = 0; s < plan.values.size(); ++s) {
    Value v = plan.values[s];
    ArrayRef<ScaleUse> uses = plan.usesOf(s);
    ls::ValuePlan valuePlan =
        ls::planValue(problem, problem.values[s], solution.layoutOf);
    if (valuePlan.targets.empty())
      continue;
    Operation *previous = nullptr;
    for (unsigned t = 0; t < valuePlan.targets.size(); ++t) {
      auto type = withScaleLayout(cast<RankedTensorType>(v.getType()),
                                  layouts[valuePlan.targets[t]]);
      MaterializeOp mat;
      bool inserted = false;
      auto it = detached.byKey.find(std::make_pair(
          v.getAsOpaquePointer(), Type(type).getAsOpaquePointer()));
      if (it != detached.byKey.end() && !reused.contains(it->second)) {
        mat = it->second;
        reused.insert(mat);
        if (previous)
          rewriter.moveOpAfter(mat, previous);
        else if (Operation *def = v.getDefiningOp())
          rewriter.moveOpAfter(mat, def);
        else {
          Block *block = cast<BlockArgument>(v).getOwner();
          if (&block->front() != mat.getOperation())
            rewriter.moveOpBefore(mat, &block->front());
        }
      } else {
        if (previous)
          rewriter.setInsertionPointAfter(previous);
        else
          rewriter.setInsertionPointAfterValue(v);
        mat = MaterializeOp::create(rewriter, v.getLoc(), type, v);
        inserted = true;
        ++counts.inserted;
      }
      previous = mat;

      // Hand it to every consumer it serves, exact needs first, then byte
      // needs, then flows (the plan's slots are per kind, in use order);
      // collect them for the remark.
      why.clear();
      // The consumer first in program order within mat's block (else the
      // first one served).
      Operation *firstConsumer = nullptr;
      auto noteConsumer = [&](Operation *user) {
        Operation *inBlock = mat->getBlock()->findAncestorOpInBlock(*user);
        if (!firstConsumer) {
          firstConsumer = inBlock ? inBlock : user;
          return;
        }
        if (inBlock && firstConsumer->getBlock() == mat->getBlock() &&
            inBlock->isBeforeInBlock(firstConsumer))
          firstConsumer = inBlock;
      };
      auto serve = [&](ScaleNeed kind, ArrayRef<int> slots) {
        unsigned k = 0;
        for (const ScaleUse &use : uses) {
          if (use.kind != kind || slots[k++] != static_cast<int>(t))
            continue;
          noteConsumer(use.operand->getOwner());
          rewriter.modifyOpInPlace(use.operand->getOwner(),
                                   [&] { use.operand->set(mat.getResult()); });
          if (kind == ScaleNeed::Flow)
            why.push_back("flow into " + describeScaleOperand(*use.operand));
          else
            why.push_back(describeScaleConsumer(use));
        }
      };
      serve(ScaleNeed::Exact, valuePlan.exactUse);
      serve(ScaleNeed::Bytes, valuePlan.byteUse);
      serve(ScaleNeed::Flow, valuePlan.flowUse);
      // Every strided consumer shares the one strided target.
      if (valuePlan.stridedUse == static_cast<int>(t))
        for (const ScaleUse &use : uses) {
          if (use.kind != ScaleNeed::Strided)
            continue;
          noteConsumer(use.operand->getOwner());
          rewriter.modifyOpInPlace(use.operand->getOwner(),
                                   [&] { use.operand->set(mat.getResult()); });
          why.push_back(describeScaleConsumer(use));
        }
      // An inserted materialization of a function argument is remarked at
      // its first consumer: it has the argument's location, the signature,
      // whose source line a decode step's ~1400 weight-scale arguments make
      // megabytes long (a remark prints it, once per weight scale).
      bool functionArgument =
          inserted && isa<BlockArgument>(v) &&
          isa<FunctionOpInterface>(v.getParentBlock()->getParentOp());
      InFlightDiagnostic remark = fp8q::emitRemarkAt(
          functionArgument && firstConsumer ? firstConsumer
                                            : mat.getOperation());
      remark << "scale materialized to " << layouts[valuePlan.targets[t]]
             << (valuePlan.copies[t] ? " (copy)" : " (no copy: same bytes)")
             << " for " << why.size() << " consumer"
             << (why.size() == 1 ? "" : "s") << ": ";
      llvm::interleave(
          why, [&](const std::string &w) { remark << w; },
          [&] { remark << "; "; });
    }
  }

  for (MaterializeOp op : detached.order) {
    if (reused.contains(op))
      continue;
    op->dropAllUses();
    rewriter.eraseOp(op);
    ++counts.removed;
  }
  // Every materialization was detached: those left are the reused ones and
  // the inserted ones (no walk of the module needed to count them).
  counts.remaining = reused.size() + counts.inserted;
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] inserted " << counts.inserted
                          << ", removed " << counts.removed << ", fused "
                          << counts.fused << ", remaining " << counts.remaining
                          << "\n");
  return counts;
}
