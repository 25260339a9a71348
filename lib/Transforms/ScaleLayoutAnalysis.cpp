//===- ScaleLayoutAnalysis.cpp - Scale-layout problem of a module ---------===//
//
// Builds the layout problem of --fp8q-propagate-scale-layout (works like
// XLA's layout assignment) and solves it:
//
// 1. Graph: scale values (rank-2 f32 tensors) are grouped into nodes of
//    values whose types must be identical. RegionBranchOpInterface says
//    which: the successor inputs an operand is forwarded to share a node
//    (an scf.for iter_arg with its result, scf.if results, scf.while before
//    arguments, and its after arguments with its results), and so does a
//    private function's result with every call's result. An op with
//    ScaleLayoutCarrierOpInterface (tensor.cast, tensor.extract_slice of
//    whole rows, tensor.concat along dim 0) gives a carrying result a node
//    its carried operands flow into. Nodes are pinned to their type when
//    the pass may not retype them: public function arguments, results of
//    calls to public or external functions, producers that are not
//    fp8q.quantize / rms_norm_quantize (and those too without
//    `fuse-producers`), block arguments of other ops, and every value of a
//    region op whose successors the interface does not fully describe.
// 2. Needs: a gemm's x_scale needs its kernel's layout by bytes
//    (areEquivalentLayouts; no kernel or "any": nothing); w_scale, public
//    returns, calls to public or external functions and unknown consumers
//    need an exact type (row_major for unknown consumers, with a remark);
//    tensor.dim reads only the shape; branch operands and yields of other
//    region ops need their target's type. Flows into a node need that
//    node's layout exactly. An exact need between layouts that address the
//    same bytes still needs an op to change the type; it copies nothing.
// 3. Solve: ScaleLayoutSolver finds the assignment of layouts to free nodes
//    with the fewest materializations (then fewest copies, then copies
//    weighted by loop depth and call sites, then fewest retyped nodes); see
//    ScaleLayoutSolver.h for the cost model. The candidates are row_major
//    and every col_major alignment the contract table or the module names.
//
// Cost: linear in the module. One walk gathers the values, the
// materializations and the symbol uses that decide which private functions
// may be retyped (not one SymbolTable::getSymbolUses walk per function);
// one pass over the values builds nodes and classifies uses; values, nodes
// and uses live in vectors indexed by dense ids; the solver (bit masks, no
// allocation per component) sees only the relevant components. Nodes reach
// the solver in the order their first values were met (nodeKey).
//
//===----------------------------------------------------------------------===//

#include "fp8q/Transforms/ScaleLayoutAnalysis.h"
#include "fp8q/Dialect/IR/ScaleLayout.h"
#include "fp8q/Interfaces/ScaleLayoutInterfaces.h"
#include "fp8q/Target/KernelContracts.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
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
  case ScaleConsumer::WScale:
    return exact("w_scale of fp8q.gemm");
  case ScaleConsumer::XScale: {
    auto gemm = cast<GemmOp>(operand.getOwner());
    Kernel kernel = *gemm.getKernel();
    return "x_scale of fp8q.gemm at " + describeLoc(gemm) + ": kernel " +
           getKernelContract(kernel).name + " requires " +
           describeRequirement(kernel, GemmOperand::XScale);
  }
  }
  llvm_unreachable("unknown consumer kind");
}

namespace {

/// A node: its type, shared by its values (those whose valueNode is the
/// node), and whether the pass may change it.
struct NodeInfo {
  RankedTensorType type;
  bool pinned = false;
};

/// Orders layouts canonically: row_major, then col_major by align.
struct LayoutLess {
  bool operator()(LayoutAttr a, LayoutAttr b) const {
    if (a.getOrder() != b.getOrder())
      return a.getOrder() < b.getOrder();
    return a.getAlign() < b.getAlign();
  }
};

/// Inserts `layout` into the sorted (LayoutLess), duplicate-free `table`.
void insertLayout(SmallVectorImpl<LayoutAttr> &table, LayoutAttr layout) {
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
bool mayBeRewritable(Operation *op) {
  auto func = dyn_cast<FunctionOpInterface>(op);
  return func && func.isPrivate() && !func.isExternal() &&
         isa<FunctionType>(func.getFunctionType());
}

} // namespace

class ScaleLayoutAnalysis::Impl {
public:
  Impl(ModuleOp module, bool fuseProducers)
      : module(module), ctx(module.getContext()), fuseProducers(fuseProducers),
        rowMajor(LayoutAttr::getRowMajor(ctx)) {
    for (int k = 0; k < FP8Q_KERNEL_COUNT; ++k)
      kernelNeeds.push_back(
          getRequiredScaleLayout(static_cast<Kernel>(k), ctx));
    collect();
    findRewritableFuncs();
  }

  const ScaleLayoutPlan &solve(const DenseSet<Value> &materialized);

  ModuleOp module;
  MLIRContext *ctx;
  bool fuseProducers;
  /// Looked up once: uniquing an attribute per value takes a lock.
  LayoutAttr rowMajor;
  /// x_scale layout each kernel reads (null: any), by kernel id.
  SmallVector<LayoutAttr> kernelNeeds;
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
  void addValue(Value v);
  template <typename Sink> void classifyUses(unsigned valueIndex, Sink sink);
  Operation *getCallee(CallOpInterface call) {
    return call.resolveCallableInTable(&symbols);
  }
  ArrayRef<ScaleUse> usesOf(unsigned valueIndex) const {
    return ArrayRef(uses).slice(useBegin[valueIndex],
                                useEnd[valueIndex] - useBegin[valueIndex]);
  }
};

/// Walks the module once, in pre-order (the order of module.walk<PreOrder>,
/// which gives values, nodes and layouts deterministic ids): gathers the
/// private functions, the materializations, the scale values, and the
/// symbol uses findRewritableFuncs needs.
void ScaleLayoutAnalysis::Impl::collect() {
  for (Operation &op : module.getBody()->getOperations())
    if (mayBeRewritable(&op))
      directFuncs.push_back(&op);
  visit(module, /*inSymbolScope=*/false);
}

void ScaleLayoutAnalysis::Impl::visit(Operation *op, bool inSymbolScope) {
  if (auto mat = dyn_cast<MaterializeOp>(op))
    materializeOps.push_back(mat);
  else if (op->getParentOp() != module.getOperation() && mayBeRewritable(op))
    nestedFuncs.push_back(op);

  // The uses SymbolTable::getSymbolUses(func, module) would report for the
  // functions of the module's own symbol table: the ops of its region, not
  // inside nested symbol tables, whose discardable and inherent attributes
  // are walked for references, each distinct reference of an op counted
  // once (as a walk of the op's attribute dictionary does). The dictionary
  // itself is not built: for ops with properties that uniques a new
  // attribute per op. Inherent attributes are read by name instead; the
  // segment-size arrays of variadic operands / results are integer arrays
  // and are skipped without being materialized.
  if (inSymbolScope && !directFuncs.empty() && !unknownSymbolTable) {
    if (!op->getDialect() && op->getNumRegions() == 1) {
      unknownSymbolTable = true;
    } else {
      SmallVector<SymbolRefAttr, 4> opRefs;
      for (NamedAttribute attr : op->getRawDictionaryAttrs())
        symbolRefs.find(attr.getValue(), opRefs);
      // (An unregistered op's properties are not in its dictionary.)
      if (op->getPropertiesStorageSize() && op->isRegistered()) {
        for (StringAttr name : op->getName().getAttributeNames()) {
          StringRef text = name.getValue();
          if (text == "operandSegmentSizes" || text == "resultSegmentSizes")
            continue;
          if (std::optional<Attribute> attr = op->getInherentAttr(text);
              attr && *attr)
            symbolRefs.find(*attr, opRefs);
        }
      }
      for (SymbolRefAttr ref : opRefs)
        symbolUsers[ref.getRootReference()].push_back(op);
    }
  }

  // Values: block arguments of the op's regions, then its results.
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (BlockArgument arg : block.getArguments())
        addValue(arg);
  for (Value result : op->getResults())
    addValue(result);

  bool nestedInScope = op == module.getOperation() ||
                       (inSymbolScope && !op->hasTrait<OpTrait::SymbolTable>());
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (Operation &nested : block)
        visit(&nested, nestedInScope);
}

/// A private function with a body whose every use is a call
/// (CallOpInterface resolving to it) may have its signature rewritten; all
/// others keep theirs (their ABI). The uses of the module's own functions
/// come from collect()'s single walk (one walk for all functions: a
/// SymbolUserMap or SymbolTable::getSymbolUses walks the module once per
/// symbol table and allocates a use list per op, the pass's largest cost on
/// big modules); functions in nested symbol tables are rare and keep the
/// per-function query.
void ScaleLayoutAnalysis::Impl::findRewritableFuncs() {
  auto accept = [&](Operation *func, ArrayRef<Operation *> users) {
    int64_t calls = 0;
    for (Operation *user : users) {
      auto call = dyn_cast<CallOpInterface>(user);
      if (!call || getCallee(call) != func)
        return;
      ++calls;
    }
    rewritableFuncs.insert(func);
    callCount[func] = calls;
  };
  for (Operation *func : nestedFuncs) {
    std::optional<SymbolTable::UseRange> symbolUses =
        SymbolTable::getSymbolUses(func, module);
    if (!symbolUses)
      continue;
    SmallVector<Operation *> users;
    for (const SymbolTable::SymbolUse &use : *symbolUses)
      users.push_back(use.getUser());
    accept(func, users);
  }
  if (unknownSymbolTable)
    return;
  for (Operation *func : directFuncs) {
    auto it = symbolUsers.find(SymbolTable::getSymbolName(func));
    accept(func, it == symbolUsers.end() ? ArrayRef<Operation *>()
                                         : ArrayRef<Operation *>(it->second));
  }
}

/// A static guess of how often `v` is defined per run of the public entry
/// point: each enclosing loop counts 8 iterations, a private function as
/// often as it has call sites. Only breaks ties between equal copy counts.
int64_t ScaleLayoutAnalysis::Impl::frequencyOf(Value v) {
  Block *block = v.getParentBlock();
  auto [it, inserted] = blockFrequency.try_emplace(block, 1);
  if (!inserted)
    return it->second;
  int64_t weight = 1;
  for (Operation *op = block->getParentOp(); op && !isa<ModuleOp>(op);
       op = op->getParentOp()) {
    if (isa<LoopLikeOpInterface>(op))
      weight *= 8;
    else if (rewritableFuncs.contains(op))
      weight *= std::max<int64_t>(1, callCount.lookup(op));
    weight = std::min<int64_t>(weight, int64_t(1) << 20);
  }
  it->second = weight;
  return weight;
}

/// getScaleLayout without uniquing row_major again.
LayoutAttr ScaleLayoutAnalysis::Impl::layoutOf(RankedTensorType type) const {
  if (auto layout = dyn_cast_or_null<LayoutAttr>(type.getEncoding()))
    return layout;
  return rowMajor;
}

unsigned ScaleLayoutAnalysis::Impl::newNode(RankedTensorType type,
                                            bool pinned) {
  nodes.push_back(NodeInfo{type, pinned});
  nodeKey.push_back(kNoValue);
  return nodes.size() - 1;
}

unsigned ScaleLayoutAnalysis::Impl::funcResultNode(Operation *func,
                                                   unsigned index,
                                                   RankedTensorType type) {
  auto [it, inserted] = funcResultNodes.try_emplace({func, index}, 0);
  if (inserted)
    it->second = newNode(type, /*pinned=*/false);
  return it->second;
}

/// Groups the successor inputs of `op` that an operand is forwarded to
/// (they must share a type), and records where each forwarded operand
/// flows. The op's values stay pinned (and its operands and yields are
/// ordinary consumers) unless the interface describes every edge: each
/// block ends in a RegionBranchTerminatorOpInterface, each edge forwards
/// one operand per successor input, and each input is reached.
void ScaleLayoutAnalysis::Impl::analyseRegionOp(RegionBranchOpInterface op) {
  SmallVector<RegionBranchPoint> points{RegionBranchPoint::parent()};
  for (Region &region : op->getRegions())
    for (Block &block : region) {
      auto terminator =
          block.empty()
              ? nullptr
              : dyn_cast<RegionBranchTerminatorOpInterface>(block.back());
      if (!terminator)
        return;
      points.push_back(terminator);
    }
  // Union-find over the successor inputs, by first sight.
  DenseMap<Value, unsigned> inputId;
  SmallVector<Value> inputs;
  SmallVector<unsigned> parent;
  SmallVector<unsigned> reached;
  auto find = [&](unsigned n) {
    while (parent[n] != n)
      n = parent[n] = parent[parent[n]];
    return n;
  };
  SmallVector<std::pair<OpOperand *, unsigned>> edges;
  DenseMap<OpOperand *, unsigned> firstInput;
  SmallVector<RegionSuccessor> successors;
  for (RegionBranchPoint point : points) {
    successors.clear();
    op.getSuccessorRegions(point, successors);
    Operation *from = point.isParent() ? op.getOperation()
                                       : point.getTerminatorPredecessorOrNull();
    for (const RegionSuccessor &successor : successors) {
      OperandRange forwarded =
          point.isParent() ? op.getEntrySuccessorOperands(successor)
                           : cast<RegionBranchTerminatorOpInterface>(from)
                                 .getSuccessorOperands(successor);
      ValueRange ins = successor.getSuccessorInputs();
      if (forwarded.size() != ins.size())
        return;
      unsigned begin = forwarded.empty() ? 0 : forwarded.getBeginOperandIndex();
      for (unsigned k = 0; k < ins.size(); ++k) {
        auto [it, inserted] = inputId.try_emplace(ins[k], inputs.size());
        if (inserted) {
          inputs.push_back(ins[k]);
          parent.push_back(it->second);
        }
        OpOperand *operand = &from->getOpOperand(begin + k);
        auto [first, isFirst] = firstInput.try_emplace(operand, it->second);
        if (isFirst)
          edges.push_back({operand, it->second});
        unsigned a = find(first->second), b = find(it->second);
        if (a != b)
          parent[std::max(a, b)] = std::min(a, b);
      }
    }
  }
  reached.assign(inputs.size(), 0);
  for (auto &[operand, input] : firstInput)
    reached[input] = 1;
  // An input reached through a union only: reached if its group is.
  SmallVector<char> groupReached(inputs.size(), 0);
  for (unsigned i = 0; i < inputs.size(); ++i)
    if (reached[i])
      groupReached[find(i)] = 1;
  for (unsigned i = 0; i < inputs.size(); ++i)
    if (!groupReached[find(i)])
      return;
  unsigned base = regionGroupNode.size();
  regionGroupNode.resize(base + inputs.size(), kNoValue);
  for (unsigned i = 0; i < inputs.size(); ++i)
    successorGroup.try_emplace(inputs[i], base + find(i));
  for (auto &[operand, input] : edges)
    forwardedTo.try_emplace(operand, inputs[input]);
}

/// The group of `v`, a block argument or result of `regionOp`, if any.
std::optional<unsigned>
ScaleLayoutAnalysis::Impl::regionGroupOf(Operation *regionOp, Value v) {
  if (analysedRegionOps.insert(regionOp).second)
    analyseRegionOp(cast<RegionBranchOpInterface>(regionOp));
  auto it = successorGroup.find(v);
  if (it == successorGroup.end())
    return std::nullopt;
  return it->second;
}

/// The successor input `use` (of `regionOp` or of a terminator in it) is
/// forwarded to, or null.
Value ScaleLayoutAnalysis::Impl::forwardTarget(Operation *regionOp,
                                               OpOperand &use) {
  if (analysedRegionOps.insert(regionOp).second)
    analyseRegionOp(cast<RegionBranchOpInterface>(regionOp));
  return forwardedTo.lookup(&use);
}

/// Puts `v`, seen for the first time, into its node (a new one, or the
/// group it belongs to).
unsigned ScaleLayoutAnalysis::Impl::createNode(Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  auto groupNode = [&](unsigned group) {
    unsigned &node = regionGroupNode[group];
    if (node == kNoValue)
      node = newNode(type, /*pinned=*/false);
    return node;
  };
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Block *block = arg.getOwner();
    Operation *parent = block->getParentOp();
    if (block->isEntryBlock() && rewritableFuncs.contains(parent))
      return newNode(type, /*pinned=*/false);
    if (isa<RegionBranchOpInterface>(parent))
      if (std::optional<unsigned> group = regionGroupOf(parent, v))
        return groupNode(*group);
    return newNode(type, /*pinned=*/true);
  }
  auto result = cast<OpResult>(v);
  Operation *op = result.getOwner();
  unsigned i = result.getResultNumber();
  if (isa<QuantizeOp, RmsNormQuantizeOp>(op) && i == 1)
    return newNode(type, /*pinned=*/!fuseProducers);
  if (isa<RegionBranchOpInterface>(op)) {
    if (std::optional<unsigned> group = regionGroupOf(op, v))
      return groupNode(*group);
    return newNode(type, /*pinned=*/true);
  }
  if (auto call = dyn_cast<CallOpInterface>(op)) {
    Operation *callee = getCallee(call);
    if (callee && rewritableFuncs.contains(callee))
      return funcResultNode(callee, i, type);
    return newNode(type, /*pinned=*/true);
  }
  if (auto carrier = dyn_cast<ScaleLayoutCarrierOpInterface>(op))
    return newNode(type, /*pinned=*/!carrier.carriesScaleLayout(result));
  return newNode(type, /*pinned=*/true);
}

/// Returns the node a use flows into: the node of `v`, created if `v` was
/// not seen yet.
unsigned ScaleLayoutAnalysis::Impl::nodeFor(Value v) {
  if (auto it = flowTargetIndex.find(v); it != flowTargetIndex.end())
    return nodeOfValue(it->second);
  auto [it, inserted] = otherNodes.try_emplace(v, 0);
  if (inserted)
    it->second = createNode(v);
  return it->second;
}

/// Returns the node of values[valueIndex], creating it on first sight.
unsigned ScaleLayoutAnalysis::Impl::nodeOfValue(unsigned valueIndex) {
  unsigned &node = valueNode[valueIndex];
  if (node == kNoValue) {
    node = createNode(values[valueIndex]);
    nodeKey[node] = std::min(nodeKey[node], valueIndex);
  }
  return node;
}

/// Whether a use may flow into `v` (see classifyUses), so that its node
/// must be found by value.
static bool mayBeFlowTarget(Value v) {
  if (isa<BlockArgument>(v))
    return true;
  Operation *owner = cast<OpResult>(v).getOwner();
  return isa<RegionBranchOpInterface, ScaleLayoutCarrierOpInterface>(owner);
}

/// Records `v` when it is a scale (its node comes after the walk, once the
/// rewritable functions are known).
void ScaleLayoutAnalysis::Impl::addValue(Value v) {
  if (!isScaleTensorType(v.getType()))
    return;
  // Detached materializations are no longer part of the program.
  if (auto mat = v.getDefiningOp<MaterializeOp>())
    return;
  if (mayBeFlowTarget(v))
    flowTargetIndex.try_emplace(v, values.size());
  values.push_back(v);
}

/// Classifies the uses of values[valueIndex], in use-list order, handing
/// each to `sink`. Creates the nodes flows lead to on first sight, so that
/// the first classification of all values fixes every node id. fp8q's own
/// ops come first: they are most of the uses.
template <typename Sink>
void ScaleLayoutAnalysis::Impl::classifyUses(unsigned valueIndex, Sink sink) {
  Value v = values[valueIndex];
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    // Detached materializations wait for reuse; they are not consumers.
    if (isa<MaterializeOp>(user))
      continue;
    unsigned idx = use.getOperandNumber();
    ScaleUse su;
    su.operand = &use;
    auto flow = [&](Value target) {
      su.kind = ScaleNeed::Flow;
      su.node = nodeFor(target);
    };
    auto unknown = [&]() {
      su.kind = ScaleNeed::Exact;
      su.layout = rowMajor;
      su.unknown = true;
      su.consumer = ScaleConsumer::Unknown;
    };
    auto exact = [&](Type type, ScaleConsumer consumer, Operation *subject,
                     unsigned index) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor || !isScaleTensorType(tensor))
        return unknown();
      su.kind = ScaleNeed::Exact;
      su.layout = dyn_cast_or_null<LayoutAttr>(tensor.getEncoding());
      if (!su.layout)
        su.layout = rowMajor;
      su.consumer = consumer;
      su.subject = subject;
      su.index = index;
      su.typeLayout = su.layout;
    };

    if (auto gemm = dyn_cast<GemmOp>(user)) {
      if (idx == 1) {
        isSeed[valueIndex] = true;
        std::optional<Kernel> kernel = gemm.getKernel();
        if (kernel) {
          if (LayoutAttr need = kernelNeeds[static_cast<int>(*kernel)]) {
            su.kind = ScaleNeed::Bytes;
            su.layout = need;
            su.consumer = ScaleConsumer::XScale;
          }
        }
      } else if (idx == 3) {
        exact(gemm.getWScale().getType(), ScaleConsumer::WScale, nullptr, 0);
        su.layout = rowMajor;
      } else {
        unknown();
      }
    } else if (isa<tensor::DimOp>(user)) {
      // Reads only the shape.
    } else if (isa<RegionBranchOpInterface>(user)) {
      if (Value target = forwardTarget(user, use))
        flow(target);
      else
        unknown();
    } else if (isa<RegionBranchTerminatorOpInterface>(user) &&
               isa<RegionBranchOpInterface>(user->getParentOp())) {
      // (A func.return is a RegionBranchTerminatorOpInterface too, of a
      // function: see below.)
      Operation *parent = user->getParentOp();
      if (Value target = forwardTarget(parent, use))
        flow(target);
      else if (idx < parent->getNumResults())
        // Another region op: its results keep their types.
        exact(parent->getResult(idx).getType(), ScaleConsumer::RegionResult,
              parent, idx);
      else
        unknown();
    } else if (auto call = dyn_cast<CallOpInterface>(user)) {
      OperandRange args = call.getArgOperands();
      unsigned begin = args.empty() ? 0 : args.getBeginOperandIndex();
      Operation *callee = getCallee(call);
      auto func = dyn_cast_or_null<FunctionOpInterface>(callee);
      if (idx < begin || idx - begin >= args.size() || !func)
        unknown();
      else if (rewritableFuncs.contains(callee))
        flow(func.getArgument(idx - begin));
      else
        exact(func.getArgumentTypes()[idx - begin],
              ScaleConsumer::CalleeArgument, callee, idx - begin);
    } else if (auto func =
                   user->hasTrait<OpTrait::ReturnLike>()
                       ? dyn_cast<FunctionOpInterface>(user->getParentOp())
                       : FunctionOpInterface()) {
      if (rewritableFuncs.contains(func)) {
        su.kind = ScaleNeed::Flow;
        su.node = funcResultNode(
            func, idx, cast<RankedTensorType>(func.getResultTypes()[idx]));
      } else {
        exact(func.getResultTypes()[idx], ScaleConsumer::PublicResult, func,
              idx);
      }
    } else if (auto carrier = dyn_cast<ScaleLayoutCarrierOpInterface>(user)) {
      if (Value target = carrier.getCarriedScaleLayoutResult(use))
        flow(target);
      else
        unknown();
    } else if (auto branch = user->getNumSuccessors()
                                 ? dyn_cast<BranchOpInterface>(user)
                                 : BranchOpInterface();
               branch && branch.getSuccessorBlockArgument(idx)) {
      // Unstructured control flow: block arguments keep their types. (An op
      // without successors has no successor operands: the interface lookup
      // is skipped for the ops that make up most of a module.)
      exact(branch.getSuccessorBlockArgument(idx)->getType(),
            ScaleConsumer::Successor, nullptr, 0);
    } else {
      unknown();
    }
    sink(su);
  }
}

const ScaleLayoutPlan &
ScaleLayoutAnalysis::Impl::solve(const DenseSet<Value> &materialized) {
  // One pass over the values creates their nodes and classifies their uses
  // (each value's memory is read once). A flow creates its target's node
  // when the target comes later; nodeKey keeps the order in which the
  // nodes' first values were met, which orders them for the solver.
  //
  // Only components (nodes joined by flows) that touch fp8q are analysed:
  // the pass joins the components (union-find over nodes, path halving),
  // finds the seeds and the layouts the uses name. It keeps the uses of
  // seeds; those of the other values of relevant components are classified
  // again below. Most scale-typed values of a model are activations that
  // never meet fp8q: their uses are not kept.
  nodes.reserve(values.size());
  nodeKey.reserve(values.size());
  valueNode.assign(values.size(), kNoValue);
  isSeed.assign(values.size(), 0);
  useBegin.assign(values.size(), 0);
  useEnd.assign(values.size(), 0);
  std::vector<unsigned> parent;
  auto find = [&](unsigned n) {
    while (parent[n] != n)
      n = parent[n] = parent[parent[n]];
    return n;
  };
  SmallVector<LayoutAttr> useLayouts;
  SmallVector<ScaleUse, 4> pending;
  for (unsigned i = 0; i < values.size(); ++i) {
    Value v = values[i];
    unsigned node = nodeOfValue(i);
    bool seed = cast<RankedTensorType>(v.getType()).getEncoding() ||
                (!materialized.empty() && materialized.contains(v));
    if (auto result = dyn_cast<OpResult>(v))
      seed |= isa<QuantizeOp, RmsNormQuantizeOp>(result.getOwner()) &&
              result.getResultNumber() == 1;
    isSeed[i] = seed;

    pending.clear();
    classifyUses(i, [&](const ScaleUse &use) {
      if (use.kind == ScaleNeed::Flow) {
        // Nodes created since: their own sets.
        for (unsigned n = parent.size(); n < nodes.size(); ++n)
          parent.push_back(n);
        unsigned a = find(node), b = find(use.node);
        if (a != b)
          parent[std::max(a, b)] = std::min(a, b);
      }
      if (use.layout && use.layout != rowMajor &&
          !llvm::is_contained(useLayouts, use.layout))
        useLayouts.push_back(use.layout);
      pending.push_back(use);
    });
    if (isSeed[i]) {
      useBegin[i] = uses.size();
      uses.insert(uses.end(), pending.begin(), pending.end());
      useEnd[i] = uses.size();
    }
  }
  for (unsigned n = parent.size(); n < nodes.size(); ++n)
    parent.push_back(n);

  std::vector<char> relevantRoot(nodes.size(), 0);
  for (unsigned i = 0; i < values.size(); ++i)
    if (isSeed[i])
      relevantRoot[find(valueNode[i])] = 1;
  auto isRelevant = [&](unsigned node) { return relevantRoot[find(node)]; };
  // The values handed to the solver, by index into `values`.
  SmallVector<unsigned> solverValues;
  for (unsigned i = 0; i < values.size(); ++i) {
    if (!isRelevant(valueNode[i]))
      continue;
    solverValues.push_back(i);
    if (isSeed[i])
      continue; // Kept by the first classification.
    useBegin[i] = uses.size();
    classifyUses(i, [&](const ScaleUse &use) { uses.push_back(use); });
    useEnd[i] = uses.size();
  }

  // Layout table: row_major, col_major, col_major align 4 (the contract
  // table's), plus every layout the module or the contracts mention, in
  // LayoutLess order.
  SmallVector<LayoutAttr> &layouts = plan.layouts;
  insertLayout(layouts, rowMajor);
  insertLayout(layouts, LayoutAttr::getColMajor(ctx, 1));
  for (LayoutAttr l : kernelNeeds)
    if (l)
      insertLayout(layouts, l);
  for (const NodeInfo &node : nodes)
    if (auto l = dyn_cast_or_null<LayoutAttr>(node.type.getEncoding()))
      insertLayout(layouts, l);
  for (LayoutAttr l : useLayouts)
    insertLayout(layouts, l);
  auto layoutId = [&](LayoutAttr l) -> unsigned {
    return llvm::find(layouts, l) - layouts.begin();
  };

  // The solver's problem, over relevant nodes and values only.
  ls::Problem &problem = plan.problem;
  problem.numLayouts = layouts.size();
  DenseMap<std::pair<int64_t, int64_t>, unsigned> shapeIds;
  auto shapeId = [&](ArrayRef<int64_t> shape) -> unsigned {
    auto [it, inserted] =
        shapeIds.try_emplace({shape[0], shape[1]}, shapeIds.size());
    if (inserted) {
      std::vector<bool> eq(layouts.size() * layouts.size());
      for (unsigned a = 0; a < layouts.size(); ++a)
        for (unsigned b = 0; b < layouts.size(); ++b)
          eq[a * layouts.size() + b] =
              areEquivalentLayouts(layouts[a], layouts[b], shape);
      problem.equivalent.push_back(std::move(eq));
    }
    return it->second;
  };
  // Relevant nodes in the order their first values were met, then those
  // without values in creation order.
  std::vector<unsigned> solverNode(nodes.size(), 0);
  SmallVector<unsigned> nodeOfSolver;
  for (unsigned i = 0; i < values.size(); ++i)
    if (nodeKey[valueNode[i]] == i && isRelevant(valueNode[i]))
      nodeOfSolver.push_back(valueNode[i]);
  for (unsigned n = 0; n < nodes.size(); ++n)
    if (nodeKey[n] == kNoValue && isRelevant(n))
      nodeOfSolver.push_back(n);
  for (unsigned n : nodeOfSolver) {
    solverNode[n] = problem.nodes.size();
    problem.nodes.push_back(
        ls::Node{nodes[n].pinned, layoutId(layoutOf(nodes[n].type))});
    plan.nodeTypes.push_back(nodes[n].type);
  }
  problem.values.reserve(solverValues.size());
  plan.values.reserve(solverValues.size());
  plan.useBegin.reserve(solverValues.size() + 1);
  for (unsigned i : solverValues) {
    Value v = values[i];
    ls::Value sv;
    sv.node = solverNode[valueNode[i]];
    sv.shape = shapeId(cast<RankedTensorType>(v.getType()).getShape());
    sv.weight = frequencyOf(v);
    plan.values.push_back(v);
    plan.useBegin.push_back(plan.uses.size());
    for (const ScaleUse &use : usesOf(i)) {
      switch (use.kind) {
      case ScaleNeed::Exact:
        sv.exactReqs.push_back(layoutId(use.layout));
        break;
      case ScaleNeed::Bytes:
        sv.byteReqs.push_back(layoutId(use.layout));
        break;
      case ScaleNeed::Flow:
        sv.flowsInto.push_back(solverNode[use.node]);
        break;
      case ScaleNeed::None:
        break;
      }
      if (use.unknown)
        plan.unknownOperands.push_back(use.operand);
      plan.uses.push_back(use);
    }
    problem.values.push_back(std::move(sv));
  }
  plan.useBegin.push_back(plan.uses.size());
  for (auto &[v, n] : otherNodes)
    if (isRelevant(n))
      plan.otherValues.push_back({v, solverNode[n]});
  for (auto &[key, n] : funcResultNodes)
    if (isRelevant(n))
      plan.functionResults.push_back({key.first, key.second, solverNode[n]});

  SmallVector<unsigned> candidates;
  for (unsigned i = 0; i < layouts.size(); ++i)
    candidates.push_back(i);
  plan.solution = ls::solve(problem, candidates);
  LLVM_DEBUG({
    const ls::Solution &solution = plan.solution;
    llvm::dbgs() << "[" DEBUG_TYPE "] " << problem.nodes.size() << " nodes, "
                 << problem.values.size() << " values, cost "
                 << solution.cost.materializations << " ops / "
                 << solution.cost.copies << " copies / "
                 << solution.cost.weightedCopies << " weighted / "
                 << solution.cost.churn << " retyped nodes"
                 << (solution.provenMinimal ? "" : " (not proven)") << "\n";
  });
  return plan;
}

ScaleLayoutAnalysis::ScaleLayoutAnalysis(ModuleOp module, bool fuseProducers)
    : impl(std::make_unique<Impl>(module, fuseProducers)) {}

ScaleLayoutAnalysis::~ScaleLayoutAnalysis() = default;

ArrayRef<MaterializeOp> ScaleLayoutAnalysis::getMaterializations() const {
  return impl->materializeOps;
}

const ScaleLayoutPlan &
ScaleLayoutAnalysis::solve(const DenseSet<Value> &materialized) {
  return impl->solve(materialized);
}
