//===- ScaleLayoutSolver.cpp - Minimal scale-layout assignment ------------===//

#include "fp8q/Transforms/ScaleLayoutSolver.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/bit.h"

#include <algorithm>
#include <numeric>

using namespace llvm;

namespace fp8q {
namespace layout_solver {

ValuePlan planValue(const Problem &problem, const Value &value,
                    ArrayRef<unsigned> layoutOf) {
  ValuePlan plan;
  unsigned own = layoutOf[value.node];
  // Exact needs: the type must be the target layout, so every distinct
  // layout other than the value's own needs its own op.
  auto addExact = [&](unsigned layout) -> int {
    if (layout == own)
      return -1;
    auto *it = llvm::find(plan.targets, layout);
    if (it != plan.targets.end())
      return it - plan.targets.begin();
    plan.targets.push_back(layout);
    return plan.targets.size() - 1;
  };
  for (unsigned layout : value.exactReqs)
    plan.exactUse.push_back(addExact(layout));
  for (unsigned node : value.flowsInto)
    plan.flowUse.push_back(addExact(layoutOf[node]));

  // Byte needs: served by the value itself or any op in the same class.
  // Visit them in layout order so the class representative does not depend
  // on the order consumers were found in.
  SmallVector<unsigned, 4> order(value.byteReqs.size());
  std::iota(order.begin(), order.end(), 0);
  llvm::sort(order, [&](unsigned a, unsigned b) {
    return std::make_pair(value.byteReqs[a], a) <
           std::make_pair(value.byteReqs[b], b);
  });
  plan.byteUse.assign(value.byteReqs.size(), -1);
  for (unsigned i : order) {
    unsigned layout = value.byteReqs[i];
    if (problem.areEquivalent(value.shape, layout, own))
      continue;
    int found = -1;
    // Prefer the smallest equivalent target, for determinism.
    for (unsigned t = 0; t < plan.targets.size(); ++t)
      if (problem.areEquivalent(value.shape, plan.targets[t], layout) &&
          (found < 0 || plan.targets[t] < plan.targets[found]))
        found = t;
    if (found < 0) {
      plan.targets.push_back(layout);
      found = plan.targets.size() - 1;
    }
    plan.byteUse[i] = found;
  }
  // The strided requirement: served by the value or any target that is
  // strided, else by one more op to the fallback.
  if (value.stridedReq && !problem.isStrided(own)) {
    for (unsigned t = 0; t < plan.targets.size(); ++t)
      if (problem.isStrided(plan.targets[t]) &&
          (plan.stridedUse < 0 ||
           plan.targets[t] < plan.targets[plan.stridedUse]))
        plan.stridedUse = t;
    if (plan.stridedUse < 0) {
      auto *it = llvm::find(plan.targets, problem.stridedFallback);
      plan.stridedUse = it - plan.targets.begin();
      if (it == plan.targets.end())
        plan.targets.push_back(problem.stridedFallback);
    }
  }

  // Canonical order: ascending layout id.
  SmallVector<unsigned, 4> perm(plan.targets.size());
  std::iota(perm.begin(), perm.end(), 0);
  llvm::sort(perm, [&](unsigned a, unsigned b) {
    return plan.targets[a] < plan.targets[b];
  });
  SmallVector<int, 4> newIndex(perm.size());
  SmallVector<unsigned, 2> sorted;
  for (unsigned i = 0; i < perm.size(); ++i) {
    newIndex[perm[i]] = i;
    sorted.push_back(plan.targets[perm[i]]);
  }
  plan.targets = sorted;
  for (SmallVector<int, 4> *uses :
       {&plan.exactUse, &plan.byteUse, &plan.flowUse})
    for (int &use : *uses)
      if (use >= 0)
        use = newIndex[use];
  if (plan.stridedUse >= 0)
    plan.stridedUse = newIndex[plan.stridedUse];
  for (unsigned layout : plan.targets)
    plan.copies.push_back(!problem.areEquivalent(value.shape, layout, own));
  return plan;
}

Cost valueCost(const Problem &problem, const Value &value,
               ArrayRef<unsigned> layoutOf) {
  ValuePlan plan = planValue(problem, value, layoutOf);
  Cost cost;
  cost.materializations = plan.targets.size();
  cost.copies = llvm::count(plan.copies, true);
  cost.weightedCopies = cost.copies * value.weight;
  return cost;
}

Cost totalCost(const Problem &problem, ArrayRef<unsigned> layoutOf) {
  Cost cost;
  for (const Value &value : problem.values)
    cost += valueCost(problem, value, layoutOf);
  for (unsigned n = 0; n < problem.nodes.size(); ++n)
    if (!problem.nodes[n].pinned && layoutOf[n] != problem.nodes[n].layout)
      ++cost.churn;
  return cost;
}

namespace {
/// Stable insertion sort: the same order as llvm::stable_sort, without the
/// temporary buffer std::stable_sort allocates on every call (the search
/// sorts a handful of candidates per node, and a node list per component).
template <typename T, typename Less>
void stableSortSmall(MutableArrayRef<T> items, Less less) {
  for (size_t i = 1; i < items.size(); ++i) {
    T item = std::move(items[i]);
    size_t j = i;
    for (; j > 0 && less(item, items[j - 1]); --j)
      items[j] = std::move(items[j - 1]);
    items[j] = std::move(item);
  }
}

/// The cost tuple of one value without churn.
Cost valueOnlyCost(const ValuePlan &plan, const Value &value) {
  Cost cost;
  cost.materializations = plan.targets.size();
  cost.copies = llvm::count(plan.copies, true);
  cost.weightedCopies = cost.copies * value.weight;
  return cost;
}

/// Evaluates value costs for the search without building a ValuePlan.
///
/// When layouts fit in a 64-bit mask and `equivalent` is an equivalence
/// relation (as areEquivalentLayouts is), the materializations of a value
/// are: one per distinct exact or flow layout other than its own, plus one
/// per equivalence class of byte needs that neither its own layout nor one
/// of those covers; the copies are the targets outside its own class. That
/// is what planValue builds, as a few bit operations on precomputed masks
/// instead of sorted vectors: the search evaluates values millions of times
/// on large modules. Other problems (hand-made relations in tests) take
/// planValue itself.
class CostModel {
public:
  explicit CostModel(const Problem &problem) : problem(problem) {
    unsigned n = problem.numLayouts;
    fast = n <= 64;
    for (unsigned shape = 0; fast && shape < problem.equivalent.size();
         ++shape) {
      for (unsigned a = 0; a < n; ++a) {
        uint64_t mask = 0;
        for (unsigned b = 0; b < n; ++b)
          if (problem.areEquivalent(shape, a, b))
            mask |= uint64_t(1) << b;
        eqMask.push_back(mask);
      }
      // Symmetric and transitive: every member of a class has that class.
      const uint64_t *eq = &eqMask[shape * n];
      for (unsigned a = 0; fast && a < n; ++a)
        for (unsigned b = 0; b < n; ++b)
          if ((eq[a] >> b & 1) && eq[b] != eq[a]) {
            fast = false;
            break;
          }
    }
    if (!fast)
      return;
    for (unsigned a = 0; a < n; ++a)
      if (problem.isStrided(a))
        stridedMask |= uint64_t(1) << a;
    exactMask.reserve(problem.values.size());
    byteMask.reserve(problem.values.size());
    for (const Value &value : problem.values) {
      uint64_t exact = 0, bytes = 0;
      for (unsigned layout : value.exactReqs)
        exact |= uint64_t(1) << layout;
      for (unsigned layout : value.byteReqs)
        bytes |= uint64_t(1) << layout;
      exactMask.push_back(exact);
      byteMask.push_back(bytes);
    }
  }

  /// Cost of value `v` (no churn) when its node has layout `own` and node
  /// `n` of its flows has `flowLayout(n)`.
  template <typename FlowLayoutFn>
  Cost cost(unsigned v, unsigned own, FlowLayoutFn flowLayout,
            MutableArrayRef<unsigned> layoutOf) const {
    const Value &value = problem.values[v];
    if (!fast) {
      // planValue reads layouts from the whole assignment: set them up.
      SmallVector<std::pair<unsigned, unsigned>, 4> restore;
      restore.push_back({value.node, layoutOf[value.node]});
      for (unsigned node : value.flowsInto)
        restore.push_back({node, layoutOf[node]});
      layoutOf[value.node] = own;
      for (unsigned node : value.flowsInto)
        layoutOf[node] = flowLayout(node);
      Cost result = valueOnlyCost(planValue(problem, value, layoutOf), value);
      for (auto [node, layout] : llvm::reverse(restore))
        layoutOf[node] = layout;
      return result;
    }
    const uint64_t *eq = &eqMask[value.shape * problem.numLayouts];
    uint64_t targets = exactMask[v];
    for (unsigned node : value.flowsInto)
      targets |= uint64_t(1) << flowLayout(node);
    targets &= ~(uint64_t(1) << own);
    uint64_t ownClass = eq[own];
    int64_t extra = 0;
    // The layouts the byte classes add (planValue adds each class's
    // smallest uncovered layout).
    uint64_t added = 0;
    if (uint64_t bytes = byteMask[v] & ~ownClass) {
      uint64_t covered = ownClass;
      for (uint64_t t = targets; t; t &= t - 1)
        covered |= eq[llvm::countr_zero(t)];
      for (bytes &= ~covered; bytes; bytes &= ~covered) {
        unsigned layout = llvm::countr_zero(bytes);
        covered |= eq[layout];
        added |= uint64_t(1) << layout;
        ++extra;
      }
    }
    int64_t extraCopies = extra;
    uint64_t own1 = uint64_t(1) << own;
    if (problem.values[v].stridedReq &&
        !((own1 | targets | added) & stridedMask)) {
      ++extra;
      extraCopies += !(ownClass >> problem.stridedFallback & 1);
    }
    Cost result;
    result.materializations = llvm::popcount(targets) + extra;
    result.copies = llvm::popcount(targets & ~ownClass) + extraCopies;
    result.weightedCopies = result.copies * value.weight;
    return result;
  }

  /// Cost of value `v` under the assignment `layoutOf`.
  Cost cost(unsigned v, MutableArrayRef<unsigned> layoutOf) const {
    return cost(
        v, layoutOf[problem.values[v].node],
        [&](unsigned node) { return layoutOf[node]; }, layoutOf);
  }

private:
  const Problem &problem;
  bool fast = false;
  /// eqMask[shape * numLayouts + a]: the layouts equivalent to a.
  std::vector<uint64_t> eqMask;
  /// Per value: its exact and byte requirements as layout masks.
  std::vector<uint64_t> exactMask, byteMask;
  /// The strided layouts.
  uint64_t stridedMask = 0;
};

/// State shared by the searches of all components, indexed by node and
/// value ids, so that a component costs no allocation of its own.
struct SearchState {
  SearchState(const Problem &problem) {
    unsigned numNodes = problem.nodes.size();
    unassigned.assign(numNodes, 0);
    bestLayouts.assign(numNodes, 0);
    bounds.resize(problem.values.size());
    // incident[node]: the values touching it (own node or flow), by id.
    SmallVector<unsigned> counts(numNodes + 1, 0);
    auto forEachTouched = [&](const Value &value, auto fn) {
      fn(value.node);
      for (auto [i, node] : llvm::enumerate(value.flowsInto))
        if (node != value.node &&
            !llvm::is_contained(ArrayRef(value.flowsInto).take_front(i), node))
          fn(node);
    };
    for (const Value &value : problem.values)
      forEachTouched(value, [&](unsigned node) { ++counts[node + 1]; });
    incidentStart.assign(numNodes + 1, 0);
    for (unsigned n = 0; n < numNodes; ++n)
      incidentStart[n + 1] = incidentStart[n] + counts[n + 1];
    incidentList.resize(incidentStart[numNodes]);
    SmallVector<unsigned> fill(incidentStart.begin(), incidentStart.end() - 1);
    for (unsigned v = 0; v < problem.values.size(); ++v)
      forEachTouched(problem.values[v],
                     [&](unsigned node) { incidentList[fill[node]++] = v; });
  }

  ArrayRef<unsigned> incident(unsigned node) const {
    return ArrayRef(incidentList)
        .slice(incidentStart[node],
               incidentStart[node + 1] - incidentStart[node]);
  }

  /// Free nodes of the component being searched that have no layout yet.
  std::vector<char> unassigned;
  /// The component's free nodes in search order (reused: a module has one
  /// component per scale producer).
  std::vector<unsigned> order;
  std::vector<unsigned> bestLayouts;
  std::vector<Cost> bounds;
  std::vector<unsigned> incidentStart, incidentList;
};

/// Branch and bound over the free nodes of one connected component.
///
/// Bound: every value contributes the cheapest cost any completion could
/// give it alone - its own node takes its assigned layout or, if
/// unassigned, the best candidate; unassigned nodes it flows into take the
/// value's own layout (which needs nothing). A sum of per-value
/// lexicographic minima is a lexicographic lower bound of the sum, and it
/// is exact once every node is assigned. Nodes are visited most connected
/// first, and each node's candidates cheapest bound first.
class ComponentSearch {
public:
  ComponentSearch(const Problem &problem, const CostModel &model,
                  SearchState &state, ArrayRef<unsigned> candidates,
                  std::vector<unsigned> &layoutOf, ArrayRef<unsigned> freeNodes,
                  ArrayRef<unsigned> values, uint64_t budget)
      : problem(problem), model(model), state(state), candidates(candidates),
        layoutOf(layoutOf), values(values), budget(budget), order(state.order) {
    for (unsigned node : freeNodes)
      state.unassigned[node] = 1;
    order.assign(freeNodes.begin(), freeNodes.end());
    auto moreConnected = [&](unsigned a, unsigned b) {
      return state.incident(a).size() > state.incident(b).size();
    };
    if (order.size() <= 16)
      stableSortSmall(MutableArrayRef<unsigned>(order), moreConnected);
    else
      llvm::stable_sort(order, moreConnected);
  }

  /// Returns false when the budget ran out.
  bool run() {
    // The current layouts are the bound to beat.
    best = totalOf();
    for (unsigned node : order)
      state.bestLayouts[node] = layoutOf[node];
    for (unsigned v : values) {
      state.bounds[v] = bound(v);
      sum += state.bounds[v];
    }
    search(0, 0);
    for (unsigned node : order) {
      layoutOf[node] = state.bestLayouts[node];
      state.unassigned[node] = 0;
    }
    return !exhausted;
  }

  /// Local search from the best found: move one node at a time while that
  /// lowers the cost. Used only when the exact search ran out of budget.
  void improveLocally() {
    for (unsigned node : order)
      layoutOf[node] = state.bestLayouts[node];
    Cost cost = totalOf();
    bool changed = true;
    while (changed) {
      changed = false;
      for (unsigned node : order) {
        unsigned keep = layoutOf[node];
        for (unsigned layout : candidates) {
          layoutOf[node] = layout;
          Cost next = totalOf();
          if (next < cost) {
            cost = next;
            keep = layout;
            changed = true;
          }
        }
        layoutOf[node] = keep;
      }
    }
  }

private:
  Cost totalOf() const {
    Cost cost;
    for (unsigned v : values)
      cost += model.cost(v, layoutOf);
    for (unsigned node : order)
      if (layoutOf[node] != problem.nodes[node].layout)
        ++cost.churn;
    return cost;
  }

  /// Cheapest cost `v` can still get (see the class comment).
  Cost bound(unsigned v) {
    ++steps;
    const Value &value = problem.values[v];
    auto flowLayout = [&](unsigned own) {
      return [&, own](unsigned node) {
        return state.unassigned[node] ? own : layoutOf[node];
      };
    };
    if (!state.unassigned[value.node]) {
      unsigned own = layoutOf[value.node];
      return model.cost(v, own, flowLayout(own), layoutOf);
    }
    Cost bestCost;
    bool first = true;
    for (unsigned own : candidates) {
      Cost cost = model.cost(v, own, flowLayout(own), layoutOf);
      if (first || cost < bestCost)
        bestCost = cost;
      first = false;
    }
    return bestCost;
  }

  void assign(unsigned node, unsigned layout,
              SmallVectorImpl<std::pair<unsigned, Cost>> &saved) {
    layoutOf[node] = layout;
    state.unassigned[node] = 0;
    for (unsigned v : state.incident(node)) {
      saved.push_back({v, state.bounds[v]});
      sum -= state.bounds[v];
      state.bounds[v] = bound(v);
      sum += state.bounds[v];
    }
  }

  void unassign(unsigned node, unsigned current,
                ArrayRef<std::pair<unsigned, Cost>> saved) {
    for (auto [v, cost] : llvm::reverse(saved)) {
      sum -= state.bounds[v];
      state.bounds[v] = cost;
      sum += cost;
    }
    layoutOf[node] = current;
    state.unassigned[node] = 1;
  }

  void search(unsigned depth, int64_t churn) {
    Cost lower = sum;
    lower.churn = churn;
    if (exhausted || !(lower < best))
      return;
    if (steps > budget) {
      exhausted = true;
      return;
    }
    if (depth == order.size()) {
      best = lower;
      for (unsigned node : order)
        state.bestLayouts[node] = layoutOf[node];
      return;
    }
    unsigned node = order[depth];
    unsigned current = problem.nodes[node].layout;
    // Candidates by their bound, the current layout first among equals.
    SmallVector<std::pair<Cost, unsigned>, 4> tries;
    SmallVector<unsigned, 4> layouts{current};
    for (unsigned layout : candidates)
      if (layout != current)
        layouts.push_back(layout);
    SmallVector<std::pair<unsigned, Cost>, 8> saved;
    for (unsigned layout : layouts) {
      saved.clear();
      assign(node, layout, saved);
      Cost c = sum;
      c.churn = churn + (layout != current);
      tries.push_back({c, layout});
      unassign(node, current, saved);
    }
    stableSortSmall(
        MutableArrayRef<std::pair<Cost, unsigned>>(tries),
        [](const auto &a, const auto &b) { return a.first < b.first; });
    for (auto &[cost, layout] : tries) {
      saved.clear();
      assign(node, layout, saved);
      search(depth + 1, churn + (layout != current));
      unassign(node, current, saved);
    }
  }

  const Problem &problem;
  const CostModel &model;
  SearchState &state;
  ArrayRef<unsigned> candidates;
  std::vector<unsigned> &layoutOf;
  ArrayRef<unsigned> values;
  uint64_t budget;
  /// Free nodes, most connected first.
  std::vector<unsigned> &order;
  Cost sum;
  Cost best;
  uint64_t steps = 0;
  bool exhausted = false;
};
} // namespace

Solution solve(const Problem &problem, ArrayRef<unsigned> candidates,
               uint64_t budget) {
  Solution solution;
  unsigned numNodes = problem.nodes.size();
  for (const Node &node : problem.nodes)
    solution.layoutOf.push_back(node.layout);

  // Components: nodes joined by flows (union-find with path halving).
  std::vector<unsigned> parent(numNodes);
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](unsigned n) {
    while (parent[n] != n)
      n = parent[n] = parent[parent[n]];
    return n;
  };
  for (const Value &value : problem.values)
    for (unsigned node : value.flowsInto) {
      unsigned a = find(value.node), b = find(node);
      if (a != b)
        parent[std::max(a, b)] = std::min(a, b);
    }

  // Free nodes and values of each component (by its smallest node), in id
  // order so the search is deterministic. Components are independent: the
  // order they are solved in does not matter.
  SmallVector<unsigned> freeCount(numNodes + 1, 0), valueCount(numNodes + 1, 0);
  for (unsigned n = 0; n < numNodes; ++n)
    if (!problem.nodes[n].pinned)
      ++freeCount[find(n) + 1];
  for (const Value &value : problem.values)
    ++valueCount[find(value.node) + 1];
  for (unsigned n = 0; n < numNodes; ++n) {
    freeCount[n + 1] += freeCount[n];
    valueCount[n + 1] += valueCount[n];
  }
  std::vector<unsigned> freeNodes(freeCount[numNodes]),
      componentValues(valueCount[numNodes]);
  {
    SmallVector<unsigned> nextFree(freeCount.begin(), freeCount.end() - 1),
        nextValue(valueCount.begin(), valueCount.end() - 1);
    for (unsigned n = 0; n < numNodes; ++n)
      if (!problem.nodes[n].pinned)
        freeNodes[nextFree[find(n)]++] = n;
    for (unsigned v = 0; v < problem.values.size(); ++v)
      componentValues[nextValue[find(problem.values[v].node)]++] = v;
  }

  CostModel model(problem);
  SearchState state(problem);
  for (unsigned root = 0; root < numNodes; ++root) {
    if (freeCount[root] == freeCount[root + 1])
      continue;
    ArrayRef<unsigned> rootFree = ArrayRef(freeNodes).slice(
        freeCount[root], freeCount[root + 1] - freeCount[root]);
    ArrayRef<unsigned> rootValues =
        ArrayRef(componentValues)
            .slice(valueCount[root], valueCount[root + 1] - valueCount[root]);
    ArrayRef<unsigned> componentCandidates = candidates;
    if (!problem.candidateSets.empty())
      componentCandidates =
          problem.candidateSets[problem.candidateSetOf[rootFree.front()]];
    ComponentSearch search(problem, model, state, componentCandidates,
                           solution.layoutOf, rootFree, rootValues, budget);
    if (!search.run()) {
      solution.provenMinimal = false;
      search.improveLocally();
    }
  }
  for (unsigned v = 0; v < problem.values.size(); ++v)
    solution.cost += model.cost(v, solution.layoutOf);
  for (unsigned n = 0; n < numNodes; ++n)
    if (!problem.nodes[n].pinned &&
        solution.layoutOf[n] != problem.nodes[n].layout)
      ++solution.cost.churn;
  return solution;
}

} // namespace layout_solver
} // namespace fp8q
