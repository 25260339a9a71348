//===- ScaleLayoutSolver.cpp - Minimal scale-layout assignment ------------===//

#include "fp8q/Transforms/ScaleLayoutSolver.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/STLExtras.h"

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
  for (SmallVector<int, 2> *uses :
       {&plan.exactUse, &plan.byteUse, &plan.flowUse})
    for (int &use : *uses)
      if (use >= 0)
        use = newIndex[use];
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
/// The cost tuple of one value without churn.
Cost valueOnlyCost(const ValuePlan &plan, const Value &value) {
  Cost cost;
  cost.materializations = plan.targets.size();
  cost.copies = llvm::count(plan.copies, true);
  cost.weightedCopies = cost.copies * value.weight;
  return cost;
}

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
  ComponentSearch(const Problem &problem, ArrayRef<unsigned> candidates,
                  std::vector<unsigned> &layoutOf, ArrayRef<unsigned> freeNodes,
                  ArrayRef<unsigned> values, uint64_t budget)
      : problem(problem), candidates(candidates), layoutOf(layoutOf),
        values(values), budget(budget) {
    for (unsigned node : freeNodes) {
      assigned[node] = false;
      incident[node];
    }
    for (unsigned v : values) {
      const Value &value = problem.values[v];
      SmallVector<unsigned, 4> touched{value.node};
      for (unsigned node : value.flowsInto)
        if (!llvm::is_contained(touched, node))
          touched.push_back(node);
      for (unsigned node : touched)
        if (incident.count(node))
          incident[node].push_back(v);
    }
    order.assign(freeNodes.begin(), freeNodes.end());
    llvm::stable_sort(order, [&](unsigned a, unsigned b) {
      return incident[a].size() > incident[b].size();
    });
  }

  /// Returns false when the budget ran out.
  bool run() {
    // The current layouts are the bound to beat.
    best = totalOf(layoutOf);
    for (unsigned node : order)
      bestLayouts[node] = layoutOf[node];
    for (unsigned v : values) {
      bounds[v] = bound(v);
      sum += bounds[v];
    }
    search(0, 0);
    for (unsigned node : order) {
      layoutOf[node] = bestLayouts[node];
      assigned[node] = true;
    }
    return !exhausted;
  }

  /// Local search from the best found: move one node at a time while that
  /// lowers the cost. Used only when the exact search ran out of budget.
  void improveLocally() {
    for (unsigned node : order)
      layoutOf[node] = bestLayouts[node];
    Cost cost = totalOf(layoutOf);
    bool changed = true;
    while (changed) {
      changed = false;
      for (unsigned node : order) {
        unsigned keep = layoutOf[node];
        for (unsigned layout : candidates) {
          layoutOf[node] = layout;
          Cost next = totalOf(layoutOf);
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
  Cost totalOf(ArrayRef<unsigned> layouts) const {
    Cost cost;
    for (unsigned v : values)
      cost += valueCost(problem, problem.values[v], layouts);
    for (unsigned node : order)
      if (layouts[node] != problem.nodes[node].layout)
        ++cost.churn;
    return cost;
  }

  bool isAssigned(unsigned node) const {
    auto it = assigned.find(node);
    return it == assigned.end() || it->second;
  }

  /// Cheapest cost `v` can still get (see the class comment).
  Cost bound(unsigned v) {
    ++steps;
    const Value &value = problem.values[v];
    SmallVector<unsigned, 4> owns;
    if (isAssigned(value.node))
      owns.push_back(layoutOf[value.node]);
    else
      owns.assign(candidates.begin(), candidates.end());
    Cost bestCost;
    bool first = true;
    // Try each layout in place, then put the unassigned entries back.
    SmallVector<std::pair<unsigned, unsigned>, 4> restore;
    restore.push_back({value.node, layoutOf[value.node]});
    for (unsigned node : value.flowsInto)
      restore.push_back({node, layoutOf[node]});
    for (unsigned own : owns) {
      layoutOf[value.node] = own;
      for (unsigned node : value.flowsInto)
        if (!isAssigned(node))
          layoutOf[node] = own;
      Cost cost = valueOnlyCost(planValue(problem, value, layoutOf), value);
      if (first || cost < bestCost)
        bestCost = cost;
      first = false;
      for (auto [node, layout] : llvm::reverse(restore))
        layoutOf[node] = layout;
    }
    return bestCost;
  }

  void assign(unsigned node, unsigned layout,
              SmallVectorImpl<std::pair<unsigned, Cost>> &saved) {
    layoutOf[node] = layout;
    assigned[node] = true;
    for (unsigned v : incident[node]) {
      saved.push_back({v, bounds[v]});
      sum -= bounds[v];
      bounds[v] = bound(v);
      sum += bounds[v];
    }
  }

  void unassign(unsigned node, unsigned current,
                ArrayRef<std::pair<unsigned, Cost>> saved) {
    for (auto [v, cost] : llvm::reverse(saved)) {
      sum -= bounds[v];
      bounds[v] = cost;
      sum += cost;
    }
    layoutOf[node] = current;
    assigned[node] = false;
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
        bestLayouts[node] = layoutOf[node];
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
    for (unsigned layout : layouts) {
      SmallVector<std::pair<unsigned, Cost>, 8> saved;
      assign(node, layout, saved);
      Cost c = sum;
      c.churn = churn + (layout != current);
      tries.push_back({c, layout});
      unassign(node, current, saved);
    }
    llvm::stable_sort(
        tries, [](const auto &a, const auto &b) { return a.first < b.first; });
    for (auto &[cost, layout] : tries) {
      SmallVector<std::pair<unsigned, Cost>, 8> saved;
      assign(node, layout, saved);
      search(depth + 1, churn + (layout != current));
      unassign(node, current, saved);
    }
  }

  const Problem &problem;
  ArrayRef<unsigned> candidates;
  std::vector<unsigned> &layoutOf;
  ArrayRef<unsigned> values;
  uint64_t budget;
  std::vector<unsigned> order;
  DenseMap<unsigned, bool> assigned;
  DenseMap<unsigned, std::vector<unsigned>> incident;
  DenseMap<unsigned, Cost> bounds;
  DenseMap<unsigned, unsigned> bestLayouts;
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

  // Components: nodes joined by flows.
  EquivalenceClasses<unsigned> components;
  for (unsigned n = 0; n < numNodes; ++n)
    components.insert(n);
  for (const Value &value : problem.values)
    for (unsigned node : value.flowsInto)
      components.unionSets(value.node, node);

  // Group free nodes and values by component leader, in id order so the
  // search is deterministic.
  std::vector<std::vector<unsigned>> freeOf(numNodes), valuesOf(numNodes);
  auto leader = [&](unsigned n) { return components.getLeaderValue(n); };
  for (unsigned n = 0; n < numNodes; ++n)
    if (!problem.nodes[n].pinned)
      freeOf[leader(n)].push_back(n);
  for (unsigned v = 0; v < problem.values.size(); ++v)
    valuesOf[leader(problem.values[v].node)].push_back(v);

  for (unsigned root = 0; root < numNodes; ++root) {
    if (freeOf[root].empty())
      continue;
    ComponentSearch search(problem, candidates, solution.layoutOf, freeOf[root],
                           valuesOf[root], budget);
    if (!search.run()) {
      solution.provenMinimal = false;
      search.improveLocally();
    }
  }
  solution.cost = totalCost(problem, solution.layoutOf);
  return solution;
}

} // namespace layout_solver
} // namespace fp8q
