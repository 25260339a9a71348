//===- ScaleLayoutGraph.cpp - Nodes, uses and the solver's problem --------===//
//
// The second step of ScaleLayoutAnalysis (see ScaleLayoutAnalysis.cpp for
// the whole): groups scale values into nodes (RegionBranchOpInterface,
// private function results, ScaleLayoutCarrierOpInterface), classifies
// their uses, builds the solver's problem over the components that touch
// fp8q and solves it.
//
//===----------------------------------------------------------------------===//

#include "ScaleLayoutAnalysisImpl.h"
#include "fp8q/Dialect/IR/Collectives.h"
#include "fp8q/Interfaces/ScaleLayoutInterfaces.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "fp8q-propagate-scale-layout"

using namespace mlir;
using namespace fp8q;
namespace ls = fp8q::layout_solver;

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
    if (kindOf(parent) & kRegionBranch)
      if (std::optional<unsigned> group = regionGroupOf(parent, v))
        return groupNode(*group);
    return newNode(type, /*pinned=*/true);
  }
  auto result = cast<OpResult>(v);
  Operation *op = result.getOwner();
  unsigned i = result.getResultNumber();
  if (isa<QuantizeOp, RmsNormQuantizeOp>(op) && i == 1)
    return newNode(type, /*pinned=*/!fuseProducers);
  uint8_t kind = kindOf(op);
  if (kind & kRegionBranch) {
    if (std::optional<unsigned> group = regionGroupOf(op, v))
      return groupNode(*group);
    return newNode(type, /*pinned=*/true);
  }
  if (kind & kCall) {
    Operation *callee = getCallee(cast<CallOpInterface>(op));
    if (callee && rewritableFuncs.contains(callee))
      return funcResultNode(callee, i, type);
    return newNode(type, /*pinned=*/true);
  }
  if (kind & kCarrier)
    return newNode(type, /*pinned=*/!cast<ScaleLayoutCarrierOpInterface>(op)
                             .carriesScaleLayout(result));
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

/// Classifies the uses of values[valueIndex], in use-list order, handing
/// each to `sink`. Creates the nodes flows lead to on first sight, so that
/// the first classification of all values fixes every node id. fp8q's own
/// ops come first: they are most of the uses.
template <typename Sink>
void ScaleLayoutAnalysis::Impl::classifyUses(unsigned valueIndex, Sink sink) {
  classifyUsesOf(valueIndex, values[valueIndex], sink);
}

/// classifyUses of the value `v`: in read-only mode, also of the
/// materializations of `v` (their uses are `v`'s once detached).
template <typename Sink>
void ScaleLayoutAnalysis::Impl::classifyUsesOf(unsigned valueIndex, Value v,
                                               Sink &sink) {
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    // Detached materializations wait for reuse; they are not consumers.
    if (auto mat = dyn_cast<MaterializeOp>(user)) {
      if (lookThroughMaterializations)
        classifyUsesOf(valueIndex, mat.getResult(), sink);
      continue;
    }
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
      Type element =
          cast<RankedTensorType>(use.get().getType()).getElementType();
      std::optional<Kernel> kernel = gemm.getKernel();
      // The kernel's requirement on a scale operand. One the scale's element
      // type cannot hold (a padded layout for an f32 scale: the gemm's
      // format is not the kernel's, which --fp8q-verify-contracts reports)
      // is no need.
      auto kernelNeed = [&](const ScaleRequirement &need,
                            ScaleConsumer consumer) {
        isSeed[valueIndex] = true;
        su.consumer = consumer;
        if (need.kind == FP8Q_SCALE_REQ_STRIDED) {
          su.kind = ScaleNeed::Strided;
          su.layout = rowMajor;
        } else if (need.kind == FP8Q_SCALE_REQ_LAYOUT &&
                   (need.layout.isStrided() || isByteScaleType(element))) {
          su.kind = ScaleNeed::Bytes;
          su.layout = need.layout;
        }
      };
      if (idx == 1) {
        isSeed[valueIndex] = true;
        if (kernel)
          kernelNeed(xScaleNeeds[static_cast<int>(*kernel)],
                     ScaleConsumer::XScale);
      } else if (idx == 3 && !element.isF32()) {
        // SPEC v2 weight scales: the layout the kernel reads (by bytes);
        // before kernel selection, none.
        if (kernel)
          kernelNeed(wScaleNeeds[static_cast<int>(*kernel)],
                     ScaleConsumer::WScale);
      } else if (idx == 3) {
        // FP8 1x128 weight scales are row-major for every kernel.
        exact(gemm.getWScale().getType(), ScaleConsumer::WScale, nullptr, 0);
        su.layout = rowMajor;
      } else {
        unknown();
      }
    } else if (isa<tensor::DimOp>(user)) {
      // Reads only the shape.
    } else if (isShardCollective(user)) {
      // A collective concatenates or splits whole rows of bytes: the scale
      // crosses it row_major (its result is pinned to its type, like every
      // producer that is not a quantize).
      su.kind = ScaleNeed::Exact;
      su.layout = rowMajor;
      su.consumer = ScaleConsumer::Collective;
    } else if (uint8_t kind = kindOf(user); kind & kRegionBranch) {
      if (Value target = forwardTarget(user, use))
        flow(target);
      else
        unknown();
    } else if ((kind & kRegionTerminator) &&
               (kindOf(user->getParentOp()) & kRegionBranch)) {
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
    } else if (kind & kCall) {
      auto call = cast<CallOpInterface>(user);
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
    } else if (auto func = (kind & kReturnLike) ? dyn_cast<FunctionOpInterface>(
                                                      user->getParentOp())
                                                : FunctionOpInterface()) {
      if (rewritableFuncs.contains(func)) {
        su.kind = ScaleNeed::Flow;
        su.node = funcResultNode(
            func, idx, cast<RankedTensorType>(func.getResultTypes()[idx]));
      } else {
        exact(func.getResultTypes()[idx], ScaleConsumer::PublicResult, func,
              idx);
      }
    } else if (kind & kCarrier) {
      if (Value target = cast<ScaleLayoutCarrierOpInterface>(user)
                             .getCarriedScaleLayoutResult(use))
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
  // The layouts the contract table names are candidates only where a value
  // of the module can take them (SPEC v2's padded layouts need 1-byte
  // scales): a module of f32 scales keeps the v1 table.
  bool anyByteScale = false;
  for (unsigned n = 0; n < nodes.size() && !anyByteScale; ++n)
    anyByteScale =
        isRelevant(n) && isByteScaleType(nodes[n].type.getElementType());
  for (ArrayRef<ScaleRequirement> needs :
       {ArrayRef(xScaleNeeds), ArrayRef(wScaleNeeds)})
    for (const ScaleRequirement &need : needs)
      if (need.layout && (need.layout.isStrided() || anyByteScale))
        insertLayout(layouts, need.layout);
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
    // f32 scales take the strided layouts only; 1-byte scales any.
    problem.candidateSetOf.push_back(
        isByteScaleType(nodes[n].type.getElementType()) ? 1 : 0);
  }
  problem.candidateSets.resize(2);
  for (unsigned i = 0; i < layouts.size(); ++i) {
    problem.strided.push_back(layouts[i].isStrided());
    if (layouts[i].isStrided())
      problem.candidateSets[0].push_back(i);
    problem.candidateSets[1].push_back(i);
  }
  problem.stridedFallback = layoutId(rowMajor);
  problem.values.reserve(solverValues.size());
  plan.values.reserve(solverValues.size());
  plan.useBegin.reserve(solverValues.size());
  plan.useEnd.reserve(solverValues.size());
  for (unsigned i : solverValues) {
    Value v = values[i];
    ls::Value sv;
    sv.node = solverNode[valueNode[i]];
    sv.shape = shapeId(cast<RankedTensorType>(v.getType()).getShape());
    sv.weight = frequencyOf(v);
    plan.values.push_back(v);
    plan.useBegin.push_back(useBegin[i]);
    plan.useEnd.push_back(useEnd[i]);
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
      case ScaleNeed::Strided:
        sv.stridedReq = true;
        break;
      case ScaleNeed::None:
        break;
      }
      if (use.unknown)
        plan.unknownOperands.push_back(use.operand);
    }
    problem.values.push_back(std::move(sv));
  }
  // The uses, indexed as the analysis stored them (not copied).
  plan.uses = std::move(uses);
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
