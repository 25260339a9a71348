//===- ScaleLayoutAnalysis.cpp - Scale-layout problem of a module ---------===//
//
// Builds the layout problem of --fp8q-propagate-scale-layout (works like
// XLA's layout assignment) and solves it. This file holds the walk of the
// module and the choice of rewritable functions; ScaleLayoutGraph.cpp the
// steps below (ScaleLayoutAnalysisImpl.h: the state they share):
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
#include "ScaleLayoutAnalysisImpl.h"
#include "fp8q/Interfaces/ScaleLayoutInterfaces.h"
#include "fp8q/Support/Diagnostics.h"
#include "fp8q/Target/KernelContracts.h"

#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "fp8q-propagate-scale-layout"

using namespace mlir;
using namespace fp8q;

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
  // Only materializations of the scales the solver models (f32 and SPEC
  // v2's 1-byte scales, every #fp8q.layout) are detached and re-decided;
  // any other stays where the program put it.
  if (auto mat = dyn_cast<MaterializeOp>(op)) {
    if (isScaleTensorType(mat.getType()))
      materializeOps.push_back(mat);
  } else if (op->getNumRegions() == 1 &&
             op->getParentOp() != module.getOperation() && mayBeRewritable(op))
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

/// Whether a use may flow into `v` (see classifyUses), so that its node
/// must be found by value.
bool ScaleLayoutAnalysis::Impl::mayBeFlowTarget(Value v) {
  if (isa<BlockArgument>(v))
    return true;
  Operation *owner = cast<OpResult>(v).getOwner();
  // (Most scales are produced by quantizes: no lookup for those.)
  if (isa<QuantizeOp, RmsNormQuantizeOp>(owner))
    return false;
  return kindOf(owner) & (kRegionBranch | kCarrier);
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

LogicalResult fp8q::checkScaleLayoutAnalysisContext(ModuleOp module) {
  if (hasScaleLayoutCarrierModels(module.getContext()))
    return success();
  return fp8q::emitErrorAt(module)
         << "the tensor dialect is loaded without fp8q's "
            "ScaleLayoutCarrierOpInterface models; register them with "
            "fp8q::registerFp8qDialects";
}

ScaleLayoutAnalysis::ScaleLayoutAnalysis(ModuleOp module, bool fuseProducers)
    : impl(std::make_unique<Impl>(module, fuseProducers)) {
  assert(hasScaleLayoutCarrierModels(module.getContext()) &&
         "register the carrier models (fp8q::registerFp8qDialects)");
}

ScaleLayoutAnalysis::~ScaleLayoutAnalysis() = default;

ArrayRef<MaterializeOp> ScaleLayoutAnalysis::getMaterializations() const {
  return impl->materializeOps;
}

const ScaleLayoutPlan &
ScaleLayoutAnalysis::solve(const DenseSet<Value> &materialized) {
  return impl->solve(materialized);
}

const ScaleLayoutPlan &ScaleLayoutAnalysis::solveInPlace() {
  impl->lookThroughMaterializations = true;
  DenseSet<Value> materialized;
  for (MaterializeOp op : impl->materializeOps)
    materialized.insert(op.getScale());
  return impl->solve(materialized);
}

LayoutAttr ScaleLayoutPlan::getNewLayout(unsigned node) const {
  const layout_solver::Node &info = problem.nodes[node];
  unsigned want = solution.layoutOf[node];
  if (info.pinned || want == info.layout)
    return {};
  return layouts[want];
}

bool ScaleLayoutPlan::isMet(const ScaleUse &use) const {
  if (use.kind != ScaleNeed::Exact && use.kind != ScaleNeed::Bytes &&
      use.kind != ScaleNeed::Strided)
    return true;
  auto type = cast<RankedTensorType>(use.operand->get().getType());
  LayoutAttr layout = getScaleLayout(type);
  if (use.kind == ScaleNeed::Strided)
    return layout.isStrided();
  if (use.kind == ScaleNeed::Exact)
    return layout == use.layout;
  return areEquivalentLayouts(use.layout, layout, type.getShape());
}

ScaleLayoutPlanSummary
fp8q::summarizeScaleLayoutPlan(const ScaleLayoutPlan &plan) {
  ScaleLayoutPlanSummary summary;
  const layout_solver::Problem &problem = plan.problem;
  for (unsigned s = 0; s < plan.values.size(); ++s) {
    const layout_solver::Value &value = problem.values[s];
    layout_solver::ValuePlan valuePlan =
        layout_solver::planValue(problem, value, plan.solution.layoutOf);
    summary.materializations += valuePlan.targets.size();
    summary.copies += llvm::count(valuePlan.copies, true);
    auto result = dyn_cast<OpResult>(plan.values[s]);
    if (result && isa<QuantizeOp, RmsNormQuantizeOp>(result.getOwner()) &&
        plan.getNewLayout(value.node))
      ++summary.fusedProducers;
  }
  return summary;
}
