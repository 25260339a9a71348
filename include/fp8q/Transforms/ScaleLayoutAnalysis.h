//===- ScaleLayoutAnalysis.h - Scale-layout problem of a module -*- C++ -*-===//
//
// The analysis half of --fp8q-propagate-scale-layout: builds the layout
// problem of a module from MLIR's interfaces and solves it with
// ScaleLayoutSolver; ScaleLayoutRewrite.h applies the plan. Which values
// must share a layout comes from RegionBranchOpInterface (scf.for / if /
// while and any other region op that declares its successors), which
// functions may be retyped from CallOpInterface and the module's symbol
// uses, and which other ops carry a layout along M from
// ScaleLayoutCarrierOpInterface (fp8q/Interfaces/ScaleLayoutInterfaces.h):
// adding a layout-carrying op is one external model.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_TRANSFORMS_SCALELAYOUTANALYSIS_H
#define FP8Q_TRANSFORMS_SCALELAYOUTANALYSIS_H

#include "fp8q/Dialect/IR/Fp8qDialect.h"
#include "fp8q/Transforms/ScaleLayoutSolver.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseSet.h"

#include <memory>

namespace fp8q {

/// What a use of a scale value needs: a layout exactly, a layout by the
/// bytes it addresses, the layout of the node it flows into, any strided
/// layout (a kernel that takes strides), or nothing.
enum class ScaleNeed { Exact, Bytes, Flow, Strided, None };

/// Which consumer a use is, for remarks. The remark text is built only when
/// a materialization serves the use: building it for every use (printing
/// locations) dominated the pass's time on large modules.
enum class ScaleConsumer {
  /// Any other use: described by its operand.
  Operand,
  /// Unknown consumer (row_major).
  Unknown,
  /// Result #index of the region op `subject` (a yield's target).
  RegionResult,
  /// Argument #index of the function `subject` (a call's callee).
  CalleeArgument,
  /// Result #index of the public function `subject`.
  PublicResult,
  /// A successor block argument.
  Successor,
  /// w_scale of the fp8q.gemm owning the operand (row_major exactly for
  /// f32 weight scales; the kernel's requirement for SPEC v2's).
  WScale,
  /// x_scale of the fp8q.gemm owning the operand (a kernel's requirement).
  XScale,
  /// The operand of a shard collective (row_major exactly: it moves whole
  /// rows of bytes; fp8q/Dialect/IR/Collectives.h).
  Collective,
};

/// One classified use of a scale value.
struct ScaleUse {
  mlir::OpOperand *operand = nullptr;
  ScaleNeed kind = ScaleNeed::None;
  /// Needed layout (Exact, Bytes; Strided: the fallback, row_major).
  LayoutAttr layout;
  /// Target node (Flow), an id of the analysis.
  unsigned node = 0;
  /// The consumer, for remarks (see describeScaleConsumer).
  ScaleConsumer consumer = ScaleConsumer::Operand;
  mlir::Operation *subject = nullptr;
  unsigned index = 0;
  /// The layout an exact consumer's type has, for remarks.
  LayoutAttr typeLayout;
  /// Unknown consumer: gets a remark.
  bool unknown = false;
};

/// The consumer of `use`, for remarks.
std::string describeScaleConsumer(const ScaleUse &use);

/// "'op' operand #i at loc(...)": a consumer, for remarks.
std::string describeScaleOperand(mlir::OpOperand &use);

/// The solved layout problem of a module: what the rewrite applies. Nodes
/// and values are the solver's (problem.nodes, problem.values), in the
/// order the analysis met them.
struct ScaleLayoutPlan {
  /// Layout table: ids of the problem and the solution index it.
  llvm::SmallVector<LayoutAttr> layouts;
  layout_solver::Problem problem;
  layout_solver::Solution solution;
  /// Per solver node: the type its values share now.
  llvm::SmallVector<mlir::RankedTensorType> nodeTypes;
  /// Per solver value: the IR value and its classified uses, in use-list
  /// order (those of values[i] are uses[useBegin[i]] up to uses[useEnd[i]]).
  llvm::SmallVector<mlir::Value> values;
  std::vector<ScaleUse> uses;
  std::vector<unsigned> useBegin, useEnd;
  /// Flow targets that are not scale values of the walk (none in verified
  /// IR), with their solver node.
  llvm::SmallVector<std::pair<mlir::Value, unsigned>> otherValues;
  /// Results of rewritable functions and their solver node.
  struct FunctionResult {
    mlir::Operation *function;
    unsigned result;
    unsigned node;
  };
  llvm::SmallVector<FunctionResult> functionResults;
  /// Functions whose signature may be rewritten.
  llvm::DenseSet<mlir::Operation *> rewritableFunctions;
  /// Operands of unknown consumers (they get row_major), in solver order.
  llvm::SmallVector<mlir::OpOperand *> unknownOperands;

  llvm::ArrayRef<ScaleUse> usesOf(unsigned value) const {
    return llvm::ArrayRef(uses).slice(useBegin[value],
                                      useEnd[value] - useBegin[value]);
  }

  /// The layout the solution gives solver node `node`, or null when the
  /// node keeps its type (pinned, or already in that layout).
  LayoutAttr getNewLayout(unsigned node) const;

  /// Whether the consumer of `use` gets what it needs from the value it
  /// reads now (`use.operand`'s current type): the layout by bytes (Bytes)
  /// or exactly (Exact). Flows are always met: region ops, calls and
  /// carriers verify that the types they forward agree.
  bool isMet(const ScaleUse &use) const;
};

/// What applying a plan does to a module, counted from the plan alone.
struct ScaleLayoutPlanSummary {
  /// fp8q.materialize ops the module has after the rewrite, and those of
  /// them that copy (the others re-type the same bytes).
  int64_t materializations = 0, copies = 0;
  /// quantize / rms_norm_quantize scale results the rewrite retypes (they
  /// write the layout their consumers read: fused).
  int64_t fusedProducers = 0;
};

/// Counts what applyScaleLayoutPlan would do with `plan`.
ScaleLayoutPlanSummary summarizeScaleLayoutPlan(const ScaleLayoutPlan &plan);

/// Fails with an error at `module` when its context lacks the carrier models
/// the analysis reads (hasScaleLayoutCarrierModels): without them a
/// tensor.cast of a scale would silently be an unknown consumer. The passes
/// that run the analysis call it first.
mlir::LogicalResult checkScaleLayoutAnalysisContext(mlir::ModuleOp module);

/// Builds and solves the scale-layout problem of a module, in two steps:
/// the constructor walks the module once (read-only); the caller then
/// detaches the module's fp8q.materialize ops (their uses take their
/// operands, see ScaleLayoutRewrite.h), and solve() builds the problem of
/// the module as it is then, with the detached ops' operands as seeds.
/// solveInPlace() builds the same problem without changing the module (for
/// checks and reports: --fp8q-verify-contracts, the hand-placed baseline,
/// fp8q-run's layout report).
///
/// Linear in the size of the module: each op is visited a bounded number of
/// times, values, nodes and uses live in vectors indexed by dense ids, and
/// only the components (nodes joined by flows) that touch fp8q - a quantize
/// scale, a gemm x_scale, a materialization or a layout encoding - reach
/// the solver.
class ScaleLayoutAnalysis {
public:
  ScaleLayoutAnalysis(mlir::ModuleOp module, bool fuseProducers);
  ~ScaleLayoutAnalysis();

  /// The module's fp8q.materialize ops, in pre-order walk order.
  llvm::ArrayRef<MaterializeOp> getMaterializations() const;

  /// Builds the problem of the module, where no op uses a materialization
  /// any more and `materialized` holds the detached ones' operands, and
  /// solves it. Call once.
  const ScaleLayoutPlan &solve(const llvm::DenseSet<mlir::Value> &materialized);

  /// Read-only mode: builds the problem of the module as it is, each
  /// fp8q.materialize seen as detached (the uses of its result count as
  /// uses of its operand, which is a seed), and solves it: the plan is the
  /// one --fp8q-propagate-scale-layout would apply, and the uses' operands
  /// are the consumers' own (a materialization's result where there is
  /// one). Changes nothing. Call once, instead of solve().
  const ScaleLayoutPlan &solveInPlace();

private:
  class Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace fp8q

#endif // FP8Q_TRANSFORMS_SCALELAYOUTANALYSIS_H
