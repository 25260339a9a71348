//===- ScaleLayoutSolver.h - Minimal scale-layout assignment ----*- C++ -*-===//
//
// The combinatorial core of --fp8q-propagate-scale-layout, free of IR: a
// graph of scale values and nodes, the cost model that counts the
// fp8q.materialize ops an assignment of layouts to nodes needs, and an exact
// search for the cheapest assignment.
//
// Cost model. A *node* is a set of scale values whose types must be
// identical (the values an scf.for / scf.if / scf.while / private call ties
// together) and carries one layout; a pinned node's layout is fixed (public
// signature, non-retypable producer), a free node's is chosen. Each *value*
// v has the layout L of its node and needs:
//   - exact requirements (a public result, a call to a public function, an
//     unknown consumer: the type must be exactly X),
//   - byte requirements (a gemm's x_scale: any layout addressing the same
//     bytes as X for v's shape),
//   - flows into nodes (a yield, an iter_arg init, a private call operand:
//     the type must be exactly the target node's layout),
//   - a strided requirement (a kernel that takes strides: any layout the
//     problem marks strided).
// v needs one fp8q.materialize per distinct exact layout other than L, plus
// one per byte-requirement class that neither L nor one of those
// materializations already covers, plus, for a strided requirement that
// neither L nor one of those is, one to the problem's strided fallback
// layout (row_major). The cost of an assignment is the tuple
// (materializations, materializations that copy bytes, copies weighted by
// how often their value is defined - loop nesting, call sites -, free nodes
// whose layout changed), compared lexicographically; the solver returns a
// minimum. A materialization is placed right after v's definition and
// shared by every consumer that needs it.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_TRANSFORMS_SCALELAYOUTSOLVER_H
#define FP8Q_TRANSFORMS_SCALELAYOUTSOLVER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <vector>

namespace fp8q {
namespace layout_solver {

/// Lexicographic cost of an assignment.
struct Cost {
  int64_t materializations = 0;
  int64_t copies = 0;
  int64_t weightedCopies = 0;
  int64_t churn = 0;

  bool operator<(const Cost &o) const {
    if (materializations != o.materializations)
      return materializations < o.materializations;
    if (copies != o.copies)
      return copies < o.copies;
    if (weightedCopies != o.weightedCopies)
      return weightedCopies < o.weightedCopies;
    return churn < o.churn;
  }
  bool operator==(const Cost &o) const {
    return materializations == o.materializations && copies == o.copies &&
           weightedCopies == o.weightedCopies && churn == o.churn;
  }
  Cost &operator+=(const Cost &o) {
    materializations += o.materializations;
    copies += o.copies;
    weightedCopies += o.weightedCopies;
    churn += o.churn;
    return *this;
  }
  Cost &operator-=(const Cost &o) {
    materializations -= o.materializations;
    copies -= o.copies;
    weightedCopies -= o.weightedCopies;
    churn -= o.churn;
    return *this;
  }
};

/// A node: values that share one layout.
struct Node {
  /// Pinned nodes keep `layout`; free nodes start from it (their current
  /// layout) and may take any candidate.
  bool pinned = false;
  unsigned layout = 0;
};

/// A scale value and what its consumers need. Layouts are ids into the
/// problem's layout table.
struct Value {
  unsigned node = 0;
  /// Index into Problem::equivalent: the value's shape.
  unsigned shape = 0;
  /// How often the value is defined relative to its function's entry
  /// (loops, call sites): a tie-breaker between equally many copies.
  int64_t weight = 1;
  /// Room for the usual handful of consumers without a heap allocation
  /// (a module has one Value per scale: allocations add up).
  llvm::SmallVector<unsigned, 4> exactReqs;
  llvm::SmallVector<unsigned, 4> byteReqs;
  llvm::SmallVector<unsigned, 4> flowsInto;
  /// A consumer reads any strided layout (Problem::strided).
  bool stridedReq = false;
};

/// The whole problem.
struct Problem {
  unsigned numLayouts = 0;
  /// equivalent[shape][a * numLayouts + b]: layouts a and b address the same
  /// bytes for that shape (reflexive, symmetric, transitive).
  std::vector<std::vector<bool>> equivalent;
  std::vector<Node> nodes;
  std::vector<Value> values;
  /// Per layout: whether it is strided (serves a strided requirement).
  /// Empty: every layout is.
  std::vector<char> strided;
  /// The layout a strided requirement gets when the value has none.
  unsigned stridedFallback = 0;
  /// Candidate layouts per node, as an index into candidateSets (for
  /// example: f32 scales take strided layouts only). Empty: every node
  /// takes `solve`'s candidates. Nodes joined by flows share one set.
  std::vector<std::vector<unsigned>> candidateSets;
  std::vector<unsigned> candidateSetOf;

  bool isStrided(unsigned layout) const {
    return strided.empty() || strided[layout];
  }

  bool areEquivalent(unsigned shape, unsigned a, unsigned b) const {
    return a == b || equivalent[shape][a * numLayouts + b];
  }
};

/// The materializations one value needs under an assignment.
struct ValuePlan {
  /// Target layouts, ascending, one fp8q.materialize each.
  llvm::SmallVector<unsigned, 2> targets;
  /// Whether the materialization to targets[i] copies bytes.
  llvm::SmallVector<bool, 2> copies;
  /// For each requirement (in Value order): index into targets, or -1 when
  /// the value serves it as it is.
  llvm::SmallVector<int, 4> exactUse, byteUse, flowUse;
  /// The strided requirement's target index, or -1 (served as it is, or
  /// none).
  int stridedUse = -1;
};

/// Works out the materializations of `value` when nodes have `layoutOf`.
ValuePlan planValue(const Problem &problem, const Value &value,
                    llvm::ArrayRef<unsigned> layoutOf);

/// Cost of one value (materializations and copies; no churn).
Cost valueCost(const Problem &problem, const Value &value,
               llvm::ArrayRef<unsigned> layoutOf);

/// Cost of a whole assignment, churn included.
Cost totalCost(const Problem &problem, llvm::ArrayRef<unsigned> layoutOf);

/// Result of `solve`.
struct Solution {
  /// Layout of every node (pinned nodes keep theirs).
  std::vector<unsigned> layoutOf;
  Cost cost;
  /// False when a component's search ran out of budget: then the result is
  /// the best found, improved by local search, and may not be minimal.
  bool provenMinimal = true;
};

/// Returns an assignment of minimum cost. Free nodes take layouts from
/// `candidates` (or their Problem::candidateSets entry). Connected components
/// are solved separately by a branch-and-bound search that starts from the
/// current layouts; `budget` bounds the value evaluations per component (about
/// a second's work).
Solution solve(const Problem &problem, llvm::ArrayRef<unsigned> candidates,
               uint64_t budget = uint64_t(1) << 23);

} // namespace layout_solver
} // namespace fp8q

#endif // FP8Q_TRANSFORMS_SCALELAYOUTSOLVER_H
