//===- PrepareWeightArgs.cpp - Re-lay out weight arguments at load time ---===//
//
// --fp8q-prepare-weight-args: a public step function's weight arguments
// that the step re-lays out on entry (a weight scale materialized to its
// kernel's layout, a weight preshuffled) take the re-laid-out type instead,
// and the re-layout moves to a companion `@<step>_prepare_weights` that a
// driver calls once, when it loads the weights (Passes.td has the contract).
//
//===----------------------------------------------------------------------===//

#include "fp8q/Support/Diagnostics.h"
#include "fp8q/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace fp8q {
#define GEN_PASS_DEF_PREPAREWEIGHTARGS
#include "fp8q/Transforms/Passes.h.inc"
} // namespace fp8q

using namespace mlir;
using namespace fp8q;

namespace {

/// The attribute on a step naming, ascending, the arguments whose type is
/// the prepared layout (the drivers' manifest of what to prepare).
constexpr StringLiteral kPreparedArgsAttr = "fp8q.prepared_args";
/// The attribute on a prepare function naming the step it prepares for.
constexpr StringLiteral kPreparesAttr = "fp8q.prepares";
/// Upstream's request for a `_mlir_ciface_` wrapper (func-to-llvm).
constexpr StringLiteral kEmitCInterfaceAttr = "llvm.emit_c_interface";

/// One argument to prepare: its index and the ops that re-lay it out (all
/// of one result type; propagation leaves one, at the entry, but a hand
/// written module may repeat it anywhere in the body). The first one's
/// clone computes the prepared argument.
struct PreparedArg {
  unsigned index;
  SmallVector<Operation *, 1> relayouts;
};

/// True if `use` is where a gemm reads the weight `relayout` re-lays out:
/// the w_scale operand for a materialize, the w operand for a preshuffle.
bool isWeightOperandOf(OpOperand &use, Operation *relayout) {
  auto gemm = dyn_cast<GemmOp>(use.getOwner());
  if (!gemm)
    return false;
  if (isa<MaterializeOp>(relayout))
    return &use == &gemm.getWScaleMutable();
  return &use == &gemm.getWMutable();
}

/// The re-layout of `arg` that the step may receive done, or nullopt.
/// Remarks an argument that a weight re-layout reads but that stays as it
/// is: also read in its own layout (at that reader), or re-laid out to two
/// layouts (at the second re-layout). `order` numbers the function's ops
/// in program order: users are visited in it, so the first re-layout in
/// the body is the one moved and remarks name the first reader.
std::optional<PreparedArg>
findWeightRelayouts(BlockArgument arg,
                    const DenseMap<Operation *, unsigned> &order) {
  PreparedArg prepared{arg.getArgNumber(), {}};
  Operation *ownLayoutReader = nullptr, *otherLayout = nullptr;
  SmallVector<Operation *> users(arg.getUsers());
  llvm::sort(users, [&](Operation *a, Operation *b) {
    return order.lookup(a) < order.lookup(b);
  });
  users.erase(llvm::unique(users), users.end());
  for (Operation *user : users) {
    bool relayout = isa<MaterializeOp, PreshuffleOp>(user) &&
                    llvm::all_of(user->getUses(), [&](OpOperand &use) {
                      return isWeightOperandOf(use, user);
                    });
    if (!relayout) {
      if (!ownLayoutReader)
        ownLayoutReader = user;
      continue;
    }
    if (!prepared.relayouts.empty() &&
        prepared.relayouts.front()->getResultTypes() !=
            user->getResultTypes()) {
      if (!otherLayout)
        otherLayout = user;
      continue;
    }
    prepared.relayouts.push_back(user);
  }
  if (prepared.relayouts.empty())
    return std::nullopt;
  Type preparedType = prepared.relayouts.front()->getResult(0).getType();
  if (ownLayoutReader) {
    fp8q::emitRemarkAt(ownLayoutReader)
        << "weight argument #" << arg.getArgNumber()
        << " is not prepared at load time: this op reads it in its own "
           "layout "
        << arg.getType()
        << ", so the step re-lays it out on every call; give this reader "
           "the layout "
        << preparedType << " to prepare it once";
    return std::nullopt;
  }
  if (otherLayout) {
    fp8q::emitRemarkAt(otherLayout)
        << "weight argument #" << arg.getArgNumber()
        << " is not prepared at load time: it is re-laid out to "
        << preparedType << " and here to "
        << otherLayout->getResult(0).getType()
        << ", and a step argument has one type; route its gemms to kernels "
           "that read one layout to prepare it once";
    return std::nullopt;
  }
  return prepared;
}

struct PrepareWeightArgsPass
    : public fp8q::impl::PrepareWeightArgsBase<PrepareWeightArgsPass> {
  using Base::Base;

  void runOnOperation() override;

private:
  /// Prepares `args` of `step`: retypes them, moves their re-layout into a
  /// new `@<step>_prepare_weights` and routes `calls` through it.
  LogicalResult prepare(func::FuncOp step, ArrayRef<PreparedArg> args,
                        ArrayRef<func::CallOp> calls, SymbolTable &symbols);
};

/// Emits `@<step>_prepare_weights` (original types in, prepared types out,
/// the re-layout ops moved into it), retypes `step`'s arguments and
/// rewrites every call of `step` to prepare its operands first.
LogicalResult PrepareWeightArgsPass::prepare(func::FuncOp step,
                                             ArrayRef<PreparedArg> args,
                                             ArrayRef<func::CallOp> calls,
                                             SymbolTable &symbols) {
  std::string name = (step.getSymName() + "_prepare_weights").str();
  if (Operation *existing = symbols.lookup(name)) {
    fp8q::emitOpErrorAt(existing)
        << "is named like the prepare function of @" << step.getSymName()
        << ", which has weight arguments to prepare; rename @" << name;
    return failure();
  }
  MLIRContext *ctx = step.getContext();
  SmallVector<Type> sourceTypes, preparedTypes;
  SmallVector<Location> argLocs;
  SmallVector<int64_t> indices;
  for (const PreparedArg &arg : args) {
    BlockArgument value = step.getArgument(arg.index);
    sourceTypes.push_back(value.getType());
    preparedTypes.push_back(arg.relayouts.front()->getResult(0).getType());
    argLocs.push_back(value.getLoc());
    indices.push_back(arg.index);
  }

  // The prepare function, right after the step.
  OpBuilder builder(ctx);
  builder.setInsertionPointAfter(step);
  auto prepareFn =
      func::FuncOp::create(builder, step.getLoc(), name,
                           builder.getFunctionType(sourceTypes, preparedTypes));
  prepareFn->setAttr(kPreparesAttr, FlatSymbolRefAttr::get(step));
  // A driver that calls the step through its C interface calls this one
  // the same way.
  if (Attribute cInterface = step->getAttr(kEmitCInterfaceAttr))
    prepareFn->setAttr(kEmitCInterfaceAttr, cInterface);
  Block *body = prepareFn.addEntryBlock();
  for (auto [i, arg] : llvm::enumerate(args)) {
    prepareFn.getArgument(i).setLoc(argLocs[i]);
    if (DictionaryAttr attrs = step.getArgAttrDict(arg.index))
      prepareFn.setArgAttrs(i, attrs);
  }
  builder.setInsertionPointToStart(body);
  SmallVector<Value> prepared;
  for (auto [i, arg] : llvm::enumerate(args)) {
    Operation *moved = arg.relayouts.front()->clone();
    moved->setOperand(0, prepareFn.getArgument(i));
    builder.insert(moved);
    prepared.push_back(moved->getResult(0));
  }
  func::ReturnOp::create(builder, step.getLoc(), prepared);
  symbols.insert(prepareFn);

  // The step reads the prepared arguments directly.
  for (auto [i, arg] : llvm::enumerate(args)) {
    BlockArgument value = step.getArgument(arg.index);
    value.setType(preparedTypes[i]);
    for (Operation *relayout : arg.relayouts) {
      relayout->getResult(0).replaceAllUsesWith(value);
      relayout->erase();
    }
  }
  step.setFunctionType(FunctionType::get(ctx, step.front().getArgumentTypes(),
                                         step.getFunctionType().getResults()));
  step->setAttr(kPreparedArgsAttr, DenseI64ArrayAttr::get(ctx, indices));

  // A caller in the module prepares the weights it passes, then calls.
  for (func::CallOp call : calls) {
    builder.setInsertionPoint(call);
    SmallVector<Value> sources;
    for (const PreparedArg &arg : args)
      sources.push_back(call.getOperand(arg.index));
    auto prepareCall =
        func::CallOp::create(builder, call.getLoc(), prepareFn, sources);
    for (auto [i, arg] : llvm::enumerate(args))
      call->setOperand(arg.index, prepareCall.getResult(i));
  }
  numArgsPrepared += args.size();
  return success();
}

void PrepareWeightArgsPass::runOnOperation() {
  ModuleOp module = getOperation();
  SymbolTable symbols(module);
  // Collected first: preparing adds functions to the module.
  SmallVector<func::FuncOp> steps;
  for (auto fn : module.getOps<func::FuncOp>())
    if (fn.isPublic() && !fn.isExternal())
      steps.push_back(fn);
  bool ok = true;
  for (func::FuncOp step : steps) {
    DenseMap<Operation *, unsigned> order;
    step.walk<WalkOrder::PreOrder>(
        [&](Operation *op) { order.try_emplace(op, order.size()); });
    SmallVector<PreparedArg> args;
    for (BlockArgument arg : step.getArguments())
      if (std::optional<PreparedArg> prepared = findWeightRelayouts(arg, order))
        args.push_back(std::move(*prepared));
    if (args.empty())
      continue;
    // Calls in the module are rewritten; any other symbol use (a
    // func.constant, an attribute) would see the new type: leave it.
    SmallVector<func::CallOp> calls;
    bool onlyCalls = true;
    if (std::optional<SymbolTable::UseRange> uses =
            SymbolTable::getSymbolUses(step, module)) {
      for (const SymbolTable::SymbolUse &use : *uses) {
        auto call = dyn_cast<func::CallOp>(use.getUser());
        onlyCalls &= call && call.getCallee() == step.getSymName();
        if (call)
          calls.push_back(call);
      }
    } else {
      onlyCalls = false;
    }
    if (!onlyCalls)
      continue;
    ok &= succeeded(prepare(step, args, calls, symbols));
  }
  if (!ok)
    signalPassFailure();
}

} // namespace
