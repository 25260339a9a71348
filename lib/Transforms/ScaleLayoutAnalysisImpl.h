//===- ScaleLayoutAnalysisImpl.h - ScaleLayoutAnalysis's state --*- C++ -*-===//
//
// Private to ScaleLayoutAnalysis.cpp (the walk of the module, rewritable
// functions) and ScaleLayoutGraph.cpp (nodes, use classification, the
// solver's problem): the state they share.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_LIB_TRANSFORMS_SCALELAYOUTANALYSISIMPL_H
#define FP8Q_LIB_TRANSFORMS_SCALELAYOUTANALYSISIMPL_H

#include "fp8q/Dialect/IR/ScaleLayout.h"
#include "fp8q/Interfaces/ScaleLayoutInterfaces.h"
#include "fp8q/Target/KernelContracts.h"
#include "fp8q/Transforms/ScaleLayoutAnalysis.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace fp8q {
namespace scale_layout_detail {
using namespace mlir;

/// A node: its type, shared by its values (those whose valueNode is the
/// node), and whether the pass may change it.
struct NodeInfo {
  RankedTensorType type;
  bool pinned = false;
};

/// Orders layouts canonically: row_major, then col_major by pack and align,
/// then SPEC v2's tiled layouts.
struct LayoutLess {
  bool operator()(LayoutAttr a, LayoutAttr b) const {
    if (a.getOrder() != b.getOrder())
      return a.getOrder() < b.getOrder();
    if (a.getPack() != b.getPack())
      return a.getPack() < b.getPack();
    return a.getAlign() < b.getAlign();
  }
};

/// Inserts `layout` into the sorted (LayoutLess), duplicate-free `table`.
inline void insertLayout(SmallVectorImpl<LayoutAttr> &table,
                         LayoutAttr layout) {
  auto *it = llvm::lower_bound(table, layout, LayoutLess());
  if (it == table.end() || *it != layout)
    table.insert(it, layout);
}

/// Finds the symbol references of attributes as SymbolTable::getSymbolUses
/// does (a pre-order walk that does not look inside a reference), but first
/// asks a memoized question - can anything inside this attribute be a
/// reference? - which for almost every attribute of a module is no, and
/// costs no walker (AttrTypeWalker allocates callbacks and a visited set per
/// walk).
class SymbolRefFinder {
public:
  /// Appends the references in `attr` not in `refs` yet.
  void find(Attribute attr, SmallVectorImpl<SymbolRefAttr> &refs) {
    if (!mayHold(attr))
      return;
    auto [it, inserted] = refsIn.try_emplace(attr);
    SmallVector<SymbolRefAttr, 1> &inAttr = it->second;
    if (inserted)
      attr.walk<WalkOrder::PreOrder>([&](SymbolRefAttr ref) {
        inAttr.push_back(ref);
        return WalkResult::skip();
      });
    for (SymbolRefAttr ref : inAttr)
      if (!llvm::is_contained(refs, ref))
        refs.push_back(ref);
  }

private:
  /// Whether `attr` is or contains a symbol reference, memoized by pointer:
  /// the ops of a module share most of their attributes, and a lookup of
  /// the pointer avoids reading the attribute's storage (scattered over the
  /// context's memory: a cache miss per attribute on large modules).
  bool mayHold(Attribute attr) {
    if (auto it = holds.find(attr.getAsOpaquePointer()); it != holds.end())
      return it->second;
    bool result = isa<SymbolRefAttr>(attr);
    if (!result)
      attr.walkImmediateSubElements(
          [&](Attribute sub) { result = result || mayHold(sub); },
          [&](Type sub) { result = result || mayHold(sub); });
    holds[attr.getAsOpaquePointer()] = result;
    return result;
  }
  bool mayHold(Type type) {
    if (auto it = holds.find(type.getAsOpaquePointer()); it != holds.end())
      return it->second;
    bool result = false;
    type.walkImmediateSubElements(
        [&](Attribute sub) { result = result || mayHold(sub); },
        [&](Type sub) { result = result || mayHold(sub); });
    holds[type.getAsOpaquePointer()] = result;
    return result;
  }

  DenseMap<const void *, bool> holds;
  DenseMap<Attribute, SmallVector<SymbolRefAttr, 1>> refsIn;
};

/// A private function with a body and a FunctionType, whose signature the
/// pass may rewrite when every use is a call.
inline bool mayBeRewritable(Operation *op) {
  auto func = dyn_cast<FunctionOpInterface>(op);
  return func && func.isPrivate() && !func.isExternal() &&
         isa<FunctionType>(func.getFunctionType());
}

} // namespace scale_layout_detail
} // namespace fp8q

namespace fp8q {
using namespace scale_layout_detail;

class ScaleLayoutAnalysis::Impl {
public:
  Impl(ModuleOp module, bool fuseProducers)
      : module(module), ctx(module.getContext()), fuseProducers(fuseProducers),
        rowMajor(LayoutAttr::getRowMajor(ctx)) {
    for (int k = 0; k < FP8Q_KERNEL_COUNT; ++k) {
      xScaleNeeds.push_back(getScaleRequirement(static_cast<Kernel>(k),
                                                GemmOperand::XScale, ctx));
      wScaleNeeds.push_back(getScaleRequirement(static_cast<Kernel>(k),
                                                GemmOperand::WScale, ctx));
    }
    collect();
    findRewritableFuncs();
  }

  const ScaleLayoutPlan &solve(const DenseSet<Value> &materialized);

  ModuleOp module;
  MLIRContext *ctx;
  bool fuseProducers;
  /// Read-only mode (solveInPlace): the uses of a materialization's result
  /// are classified as uses of its operand.
  bool lookThroughMaterializations = false;
  /// Looked up once: uniquing an attribute per value takes a lock.
  LayoutAttr rowMajor;
  /// x_scale and w_scale requirement of each kernel, by kernel id.
  SmallVector<ScaleRequirement> xScaleNeeds, wScaleNeeds;
  ScaleLayoutPlan plan;
  SymbolTableCollection symbols;
  DenseSet<Operation *> &rewritableFuncs = plan.rewritableFunctions;
  /// Call sites of each rewritable function.
  DenseMap<Operation *, int64_t> callCount;
  SmallVector<NodeInfo> nodes;
  /// Index (into `values`) of the values a use can flow into (block
  /// arguments, results of region ops and of layout carriers); the other
  /// values are only reached through their index.
  DenseMap<Value, unsigned> flowTargetIndex;
  /// Nodes of flow targets that are not in `values` (none in verified IR).
  DenseMap<Value, unsigned> otherNodes;
  /// Per node: the index of its first value, which orders the nodes for the
  /// solver as the walk met them; kNoValue for a node without values (a
  /// private function's result group with no call site), ordered after
  /// the others by creation.
  std::vector<unsigned> nodeKey;
  static constexpr unsigned kNoValue = ~0u;
  /// Nodes of private function results, by (function, result).
  DenseMap<std::pair<Operation *, unsigned>, unsigned> funcResultNodes;
  /// Region ops: each successor input's group (ids of regionGroupNode), and
  /// a successor input each forwarded operand flows into. Filled per op on
  /// first sight (analyseRegionOp); an op whose successors the interface
  /// does not fully describe has no entries.
  DenseSet<Operation *> analysedRegionOps;
  DenseMap<Value, unsigned> successorGroup;
  DenseMap<OpOperand *, Value> forwardedTo;
  std::vector<unsigned> regionGroupNode;
  /// Scale values in walk order, with their node (kNoValue until created)
  /// and whether they touch fp8q (a seed makes its component relevant).
  SmallVector<Value> values;
  std::vector<unsigned> valueNode;
  std::vector<char> isSeed;
  /// The classified uses of the values the solver sees, flattened: those of
  /// values[i] are uses[useBegin[i]] up to uses[useEnd[i]], in use-list
  /// order.
  std::vector<ScaleUse> uses;
  std::vector<unsigned> useBegin, useEnd;
  /// frequencyOf's result per block (it depends only on the ancestors).
  DenseMap<Block *, int64_t> blockFrequency;

  // What the walk of the module (collect) gathers.
  /// Functions that may be rewritable, in the module's own symbol table
  /// (direct) or deeper (nested).
  SmallVector<Operation *> directFuncs, nestedFuncs;
  /// fp8q.materialize ops, in walk order.
  SmallVector<MaterializeOp> materializeOps;
  /// Users of each root symbol reference in the module's symbol scope, one
  /// entry per (op, distinct reference); gathered only when directFuncs is
  /// not empty.
  DenseMap<StringAttr, SmallVector<Operation *, 2>> symbolUsers;
  /// The scope holds an op that may be an unknown symbol table.
  bool unknownSymbolTable = false;
  SymbolRefFinder symbolRefs;

  /// What an op is to the analysis, memoized per op name: a failed
  /// interface cast also asks the op's dialect (a hash lookup), and each use
  /// would take several.
  enum OpKind : uint8_t {
    kRegionBranch = 1,
    kRegionTerminator = 2,
    kCall = 4,
    kReturnLike = 8,
    kCarrier = 16,
  };
  DenseMap<OperationName, uint8_t> opKinds;
  uint8_t kindOf(Operation *op) {
    auto [it, inserted] = opKinds.try_emplace(op->getName(), 0);
    if (inserted)
      it->second =
          (isa<RegionBranchOpInterface>(op) ? kRegionBranch : 0) |
          (isa<RegionBranchTerminatorOpInterface>(op) ? kRegionTerminator : 0) |
          (isa<CallOpInterface>(op) ? kCall : 0) |
          (op->hasTrait<OpTrait::ReturnLike>() ? kReturnLike : 0) |
          (isa<ScaleLayoutCarrierOpInterface>(op) ? kCarrier : 0);
    return it->second;
  }

  void collect();
  void visit(Operation *op, bool inSymbolScope);
  void findRewritableFuncs();
  int64_t frequencyOf(Value v);
  LayoutAttr layoutOf(RankedTensorType type) const;
  unsigned newNode(RankedTensorType type, bool pinned);
  unsigned funcResultNode(Operation *func, unsigned index,
                          RankedTensorType type);
  void analyseRegionOp(RegionBranchOpInterface op);
  std::optional<unsigned> regionGroupOf(Operation *regionOp, Value v);
  Value forwardTarget(Operation *regionOp, OpOperand &use);
  unsigned createNode(Value v);
  unsigned nodeOfValue(unsigned valueIndex);
  unsigned nodeFor(Value v);
  bool mayBeFlowTarget(Value v);
  void addValue(Value v);
  template <typename Sink> void classifyUses(unsigned valueIndex, Sink sink);
  template <typename Sink>
  void classifyUsesOf(unsigned valueIndex, Value v, Sink &sink);
  Operation *getCallee(CallOpInterface call) {
    return call.resolveCallableInTable(&symbols);
  }
  ArrayRef<ScaleUse> usesOf(unsigned valueIndex) const {
    return ArrayRef(uses).slice(useBegin[valueIndex],
                                useEnd[valueIndex] - useBegin[valueIndex]);
  }
};

} // namespace fp8q

#endif // FP8Q_LIB_TRANSFORMS_SCALELAYOUTANALYSISIMPL_H
