//===- OutlineLoops.cpp - Keep functions small for the LLVM lowering ------===//
//
// Splits large functions into chunks. Upstream scf-to-cf and func-to-llvm
// cost more than linear time in the size of one function (block splitting
// under dialect conversion), and func-to-llvm also in the number of
// functions of a module (each new llvm.func invalidates the module block's
// op order). A 78-layer decode step is one function with hundreds of
// elementwise loop nests and a deallocation tail of one scf.if per buffer;
// cutting it into chunks of at most `chunk-nests` nests bounds both.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Conversion/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"

namespace fp8q {
#define GEN_PASS_DEF_OUTLINELOOPS
#include "fp8q/Conversion/Passes.h.inc"
} // namespace fp8q

using namespace mlir;

namespace {

/// Straight-line code between nests (runtime calls, allocations) also
/// grows: a chunk closes after this many top-level ops.
constexpr size_t kMaxChunkOps = 256;
/// A run without nests is outlined only when it is at least this long.
constexpr size_t kMinStraightLineOps = 64;

bool isNest(Operation *op) { return isa<scf::ForOp, scf::IfOp>(op); }

/// Ops a chunk may contain: anything but terminators, ops that branch, and
/// stack allocations (they would die with the outlined function's frame).
bool isMovable(Operation *op) {
  return !op->hasTrait<OpTrait::IsTerminator>() &&
         op->getNumSuccessors() == 0 &&
         !isa<memref::AllocaOp, memref::AllocaScopeOp>(op);
}

struct OutlineLoopsPass
    : public fp8q::impl::OutlineLoopsBase<OutlineLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    OpBuilder builder(&getContext());
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      if (func.isExternal())
        continue;
      unsigned numNests = 0;
      for (Block &block : func.getBody())
        numNests +=
            llvm::count_if(block, [](Operation &op) { return isNest(&op); });
      if (numNests <= minLoops)
        continue;
      unsigned index = 0;
      for (Block &block : func.getBody())
        for (SmallVector<Operation *> &chunk : formChunks(block))
          outline(builder, symbols, func, chunk, index);
    }
  }

  /// Cuts `block` into runs of consecutive movable ops (constants aside)
  /// holding at most `chunkNests` nests and kMaxChunkOps ops each; short
  /// runs without a nest are not worth a call.
  SmallVector<SmallVector<Operation *>> formChunks(Block &block) {
    SmallVector<SmallVector<Operation *>> chunks;
    SmallVector<Operation *> current;
    unsigned nests = 0;
    auto close = [&]() {
      if (nests > 0 || current.size() >= kMinStraightLineOps)
        chunks.push_back(std::move(current));
      current.clear();
      nests = 0;
    };
    for (Operation &op : block) {
      // Constants stay where they are; chunks clone the ones they use.
      if (op.hasTrait<OpTrait::ConstantLike>())
        continue;
      if (!isMovable(&op)) {
        close();
        continue;
      }
      current.push_back(&op);
      if ((isNest(&op) && ++nests == chunkNests) ||
          current.size() == kMaxChunkOps)
        close();
    }
    close();
    return chunks;
  }

  /// Moves the ops of `chunk` (consecutive, in one block) into a new private
  /// function placed before `func` and calls it. Values the chunk uses but
  /// does not define become arguments, except constants, which are cloned so
  /// the callee keeps them folded; values it defines and later ops use are
  /// returned. The chunk is cloned, not rewired use by use, so the cost is
  /// linear in its size (rewriting the uses of widely shared values, such as
  /// index constants, would not be).
  void outline(OpBuilder &b, SymbolTable &symbols, func::FuncOp func,
               ArrayRef<Operation *> chunk, unsigned &index) {
    Location loc = chunk.front()->getLoc();
    Block *block = chunk.front()->getBlock();
    llvm::SmallPtrSet<Operation *, 32> inChunk(chunk.begin(), chunk.end());
    auto definedInChunk = [&](Value value) {
      Operation *def = value.getDefiningOp();
      return def && def->getBlock() == block && inChunk.contains(def);
    };

    SetVector<Value> captures;
    for (Operation *op : chunk) {
      for (Value operand : op->getOperands())
        if (!definedInChunk(operand))
          captures.insert(operand);
      SetVector<Value> above;
      getUsedValuesDefinedAbove(op->getRegions(), above);
      for (Value value : above)
        if (!definedInChunk(value))
          captures.insert(value);
    }
    SmallVector<Value> args;
    SmallVector<Operation *> constants;
    for (Value value : captures) {
      Operation *def = value.getDefiningOp();
      if (def && def->hasTrait<OpTrait::ConstantLike>())
        constants.push_back(def);
      else
        args.push_back(value);
    }
    SmallVector<Value> results;
    for (Operation *op : chunk)
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(), [&](Operation *user) {
              Operation *ancestor = block->findAncestorOpInBlock(*user);
              return !ancestor || !inChunk.contains(ancestor);
            }))
          results.push_back(result);

    std::string name;
    do {
      name = (func.getSymName() + "_part" + Twine(index++)).str();
    } while (symbols.lookup(name));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(func);
    auto callee =
        func::FuncOp::create(b, loc, name,
                             b.getFunctionType(ValueRange(args).getTypes(),
                                               ValueRange(results).getTypes()));
    callee.setPrivate();
    symbols.insert(callee);
    Block *entry = callee.addEntryBlock();
    IRMapping mapping;
    mapping.map(args, entry->getArguments());
    b.setInsertionPointToStart(entry);
    for (Operation *constant : constants)
      b.clone(*constant, mapping);
    for (Operation *op : chunk)
      b.clone(*op, mapping);
    SmallVector<Value> returned = llvm::map_to_vector(
        results, [&](Value value) { return mapping.lookup(value); });
    func::ReturnOp::create(b, loc, returned);

    b.setInsertionPoint(chunk.front());
    auto call = func::CallOp::create(b, loc, callee, args);
    for (auto [result, replacement] : llvm::zip(results, call.getResults()))
      result.replaceAllUsesWith(replacement);
    for (Operation *op : llvm::reverse(chunk)) {
      op->dropAllUses();
      op->erase();
    }
    ++numOutlined;
  }
};

} // namespace
