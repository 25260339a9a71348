//===- PropagateScaleLayout.cpp - Assign scale layouts, fewest copies -----===//
//
// --fp8q-propagate-scale-layout. Works like XLA's layout assignment:
//
// 1. Strip: every fp8q.materialize is detached (its uses take its operand);
//    the pass re-derives each one it needs and reuses the detached op when
//    the same (value, layout) comes back, so a second run changes nothing.
// 2. Graph: scale values (rank-2 f32 tensors) are grouped into nodes of
//    values whose types must be identical: an scf.for iter_arg with its
//    result, scf.if results, scf.while before / after arguments (with the
//    results), a private function's argument, a private function's result
//    with every call's result. tensor.cast, tensor.extract_slice taking
//    whole rows and tensor.concat along dim 0 give their result a node the
//    operands flow into: they keep the layout (the result is stored in the
//    operand's layout; a slice of a column-major scale is re-strided to the
//    slice's own M when bufferized, as a concat is). Nodes are pinned to
//    their type when the pass may not retype them: public function
//    arguments, results of calls to public or external functions, producers
//    that are not fp8q.quantize / rms_norm_quantize (and those too without
//    `fuse-producers`), block arguments of other region ops.
// 3. Needs: a gemm's x_scale needs its kernel's layout by bytes
//    (areEquivalentLayouts; no kernel or "any": nothing); w_scale, public
//    returns, calls to public or external functions and unknown consumers
//    need an exact type (row_major for unknown consumers, with a remark);
//    tensor.dim reads only the shape; branch operands and yields of other
//    region ops need their target's type. Flows into a node need that
//    node's layout exactly. An exact need between layouts that address the
//    same bytes still needs an op to change the type; it copies nothing.
// 4. Solve: ScaleLayoutSolver finds the assignment of layouts to free nodes
//    with the fewest materializations (then fewest copies, then copies
//    weighted by loop depth and call sites, then fewest retyped nodes); see
//    ScaleLayoutSolver.h for the cost model. The candidates are row_major
//    and every col_major alignment the contract table or the module names.
// 5. Rewrite: retype free nodes (and private signatures), insert one
//    fp8q.materialize per (value, needed layout) right after the value's
//    definition - it dominates every use and is outside every loop that
//    does not define the value - and emit a remark naming its consumers.
//
// Only components (nodes joined by flows) that touch fp8q are analysed: a
// quantize scale, a gemm x_scale, a materialize, or a layout encoding.
//
// Counts: the pass declares its statistics, but Debian's release LLVM
// compiles them out (NoopStatistic); propagateScaleLayouts() returns them.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Transforms/PropagateScaleLayout.h"
#include "fp8q/Dialect/IR/ScaleLayout.h"
#include "fp8q/Target/KernelContracts.h"
#include "fp8q/Transforms/Passes.h"
#include "fp8q/Transforms/ScaleLayoutSolver.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/Support/Debug.h"

#include <map>
#include <set>

#define DEBUG_TYPE "fp8q-propagate-scale-layout"

namespace fp8q {
#define GEN_PASS_DEF_PROPAGATESCALELAYOUT
#include "fp8q/Transforms/Passes.h.inc"
} // namespace fp8q

using namespace mlir;
using namespace fp8q;
namespace ls = fp8q::layout_solver;

namespace {

/// What a use of a scale value needs.
enum class NeedKind { Exact, Bytes, Flow, None };

/// Which consumer a use is, for remarks. The remark text is built only when
/// a materialization serves the use: building it for every use (printing
/// locations) dominated the pass's time on large modules.
enum class Consumer {
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
  /// w_scale of the fp8q.gemm owning the operand.
  WScale,
  /// x_scale of the fp8q.gemm owning the operand (a kernel's requirement).
  XScale,
};

struct ScaleUse {
  OpOperand *operand = nullptr;
  NeedKind kind = NeedKind::None;
  /// Needed layout (Exact, Bytes).
  LayoutAttr layout;
  /// Target node (Flow).
  unsigned node = 0;
  /// The consumer, for remarks (see describeConsumer).
  Consumer consumer = Consumer::Operand;
  Operation *subject = nullptr;
  unsigned index = 0;
  /// The layout an exact consumer's type has, for remarks.
  LayoutAttr typeLayout;
  /// Unknown consumer: gets a remark.
  bool unknown = false;
};

struct NodeInfo {
  SmallVector<Value> values;
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

/// "'op' operand #i at loc(...)": a consumer, for remarks.
static std::string describeOperand(OpOperand &use) {
  return ("'" + use.getOwner()->getName().getStringRef() + "' operand #" +
          Twine(use.getOperandNumber()) + " at " + describeLoc(use.getOwner()))
      .str();
}

/// The consumer of `use`, for remarks.
static std::string describeConsumer(const ScaleUse &use) {
  OpOperand &operand = *use.operand;
  auto exact = [&](const Twine &what) {
    return (what + " (" + describeLayout(use.typeLayout) + ") at " +
            describeOperand(operand))
        .str();
  };
  switch (use.consumer) {
  case Consumer::Operand:
    return describeOperand(operand);
  case Consumer::Unknown:
    return "unknown consumer " + describeOperand(operand) + " (row_major)";
  case Consumer::RegionResult:
    return exact("result #" + Twine(use.index) + " of '" +
                 use.subject->getName().getStringRef() + "'");
  case Consumer::CalleeArgument:
    return exact("argument #" + Twine(use.index) + " of @" +
                 cast<func::FuncOp>(use.subject).getSymName());
  case Consumer::PublicResult:
    return exact("result #" + Twine(use.index) + " of public @" +
                 cast<func::FuncOp>(use.subject).getSymName());
  case Consumer::Successor:
    return exact("successor block argument");
  case Consumer::WScale:
    return exact("w_scale of fp8q.gemm");
  case Consumer::XScale: {
    auto gemm = cast<GemmOp>(operand.getOwner());
    Kernel kernel = *gemm.getKernel();
    return "x_scale of fp8q.gemm at " + describeLoc(gemm) + ": kernel " +
           getKernelContract(kernel).name + " requires " +
           describeRequirement(kernel, GemmOperand::XScale);
  }
  }
  llvm_unreachable("unknown consumer kind");
}

/// tensor.extract_slice that keeps whole rows: offsets (o, 0), sizes
/// (m, G), unit strides, no rank reduction. Layout flows through it.
static bool isSliceAlongM(tensor::ExtractSliceOp slice) {
  RankedTensorType src = slice.getSourceType(), res = slice.getResultType();
  if (!isScaleTensorType(src) || !isScaleTensorType(res))
    return false;
  if (ShapedType::isDynamic(src.getDimSize(1)))
    return false;
  std::optional<int64_t> off1 = getConstantIntValue(slice.getMixedOffsets()[1]);
  std::optional<int64_t> size1 = getConstantIntValue(slice.getMixedSizes()[1]);
  return off1 == 0 && size1 == src.getDimSize(1) &&
         llvm::all_of(slice.getMixedStrides(), [](OpFoldResult s) {
           return getConstantIntValue(s) == 1;
         });
}

static bool isConcatAlongM(tensor::ConcatOp concat) {
  return concat.getDim() == 0 && isScaleTensorType(concat.getType()) &&
         llvm::all_of(concat.getInputs(),
                      [](Value v) { return isScaleTensorType(v.getType()); });
}

static bool isFlowCast(tensor::CastOp cast) {
  return isScaleTensorType(cast.getSource().getType()) &&
         isScaleTensorType(cast.getType());
}

/// One run of the propagation over a module.
class Propagation {
public:
  Propagation(ModuleOp module, bool fuseProducers)
      : module(module), ctx(module.getContext()), fuseProducers(fuseProducers) {
  }

  /// Rewrites the module; returns what it did.
  PropagationCounts run();

private:
  ModuleOp module;
  MLIRContext *ctx;
  bool fuseProducers;
  PropagationCounts counts;
  // Analysis state.
  SymbolTableCollection symbols;
  DenseSet<Operation *> rewritableFuncs;
  /// Call sites of each rewritable function.
  DenseMap<Operation *, int64_t> callCount;
  SmallVector<NodeInfo> nodes;
  DenseMap<Value, unsigned> nodeOf;
  DenseMap<std::pair<void *, unsigned>, unsigned> groupNodes;
  SmallVector<Value> values;
  /// The uses of values[i], classified (one vector per value, by index: no
  /// hashing of values).
  std::vector<SmallVector<ScaleUse, 1>> usesOf;
  DenseSet<Value> seeds;
  /// Detached materializations, by (operand, result type), for reuse.
  std::map<std::pair<const void *, const void *>, MaterializeOp> detached;
  SmallVector<MaterializeOp> detachedOrder;

  void findRewritableFuncs();
  int64_t frequencyOf(Value v);
  void stripMaterializations();
  unsigned newNode(RankedTensorType type, bool pinned);
  unsigned groupNode(void *key, unsigned index, RankedTensorType type);
  unsigned nodeFor(Value v);
  void addValue(Value v);
  void classifyUses(unsigned valueIndex);
  func::FuncOp getCallee(func::CallOp call);
};

func::FuncOp Propagation::getCallee(func::CallOp call) {
  return symbols.lookupNearestSymbolFrom<func::FuncOp>(call,
                                                       call.getCalleeAttr());
}

/// A private function with a body whose every use is a direct call may have
/// its signature rewritten; all others keep theirs (their ABI).
void Propagation::findRewritableFuncs() {
  module.walk([&](func::FuncOp func) {
    if (!func.isPrivate() || func.isExternal())
      return;
    std::optional<SymbolTable::UseRange> uses =
        SymbolTable::getSymbolUses(func, module);
    if (!uses)
      return;
    int64_t calls = 0;
    for (const SymbolTable::SymbolUse &use : *uses) {
      auto call = dyn_cast<func::CallOp>(use.getUser());
      if (!call || getCallee(call) != func)
        return;
      ++calls;
    }
    rewritableFuncs.insert(func);
    callCount[func] = calls;
  });
}

/// A static guess of how often `v` is defined per run of the public entry
/// point: each enclosing loop counts 8 iterations, a private function as
/// often as it has call sites. Only breaks ties between equal copy counts.
int64_t Propagation::frequencyOf(Value v) {
  int64_t weight = 1;
  for (Operation *op = v.getParentBlock()->getParentOp();
       op && !isa<ModuleOp>(op); op = op->getParentOp()) {
    if (isa<LoopLikeOpInterface>(op))
      weight *= 8;
    else if (rewritableFuncs.contains(op))
      weight *= std::max<int64_t>(1, callCount.lookup(op));
    weight = std::min<int64_t>(weight, int64_t(1) << 20);
  }
  return weight;
}

void Propagation::stripMaterializations() {
  SmallVector<MaterializeOp> all;
  module.walk([&](MaterializeOp op) { all.push_back(op); });
  for (MaterializeOp op : all)
    op.getResult().replaceAllUsesWith(op.getScale());
  for (MaterializeOp op : all) {
    seeds.insert(op.getScale());
    auto key = std::make_pair(op.getScale().getAsOpaquePointer(),
                              op.getType().getAsOpaquePointer());
    // Of duplicates of one (operand, layout), the first may be reused.
    detached.emplace(key, op);
    detachedOrder.push_back(op);
  }
}

unsigned Propagation::newNode(RankedTensorType type, bool pinned) {
  nodes.push_back(NodeInfo{{}, type, pinned});
  return nodes.size() - 1;
}

unsigned Propagation::groupNode(void *key, unsigned index,
                                RankedTensorType type) {
  auto [it, inserted] = groupNodes.try_emplace({key, index}, 0);
  if (inserted)
    it->second = newNode(type, /*pinned=*/false);
  return it->second;
}

/// Returns the node `v` belongs to, creating it on first sight.
unsigned Propagation::nodeFor(Value v) {
  auto it = nodeOf.find(v);
  if (it != nodeOf.end())
    return it->second;
  auto type = cast<RankedTensorType>(v.getType());
  unsigned node;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Block *block = arg.getOwner();
    Operation *parent = block->getParentOp();
    unsigned i = arg.getArgNumber();
    if (auto func = dyn_cast<func::FuncOp>(parent);
        func && block->isEntryBlock() && rewritableFuncs.contains(func))
      node = newNode(type, /*pinned=*/false);
    else if (auto forOp = dyn_cast<scf::ForOp>(parent); forOp && i > 0)
      node = groupNode(forOp, i - 1, type);
    else if (auto whileOp = dyn_cast<scf::WhileOp>(parent)) {
      if (block == whileOp.getBeforeBody())
        node = groupNode(block, i, type);
      else
        node = groupNode(whileOp, i, type);
    } else
      node = newNode(type, /*pinned=*/true);
  } else {
    auto result = cast<OpResult>(v);
    Operation *op = result.getOwner();
    unsigned i = result.getResultNumber();
    if (isa<QuantizeOp, RmsNormQuantizeOp>(op) && i == 1)
      node = newNode(type, /*pinned=*/!fuseProducers);
    else if (isa<scf::ForOp, scf::IfOp>(op))
      node = groupNode(op, i, type);
    else if (isa<scf::WhileOp>(op))
      node = groupNode(op, i, type);
    else if (auto call = dyn_cast<func::CallOp>(op)) {
      func::FuncOp callee = getCallee(call);
      if (callee && rewritableFuncs.contains(callee))
        node = groupNode(callee, i, type);
      else
        node = newNode(type, /*pinned=*/true);
    } else if (auto cast = dyn_cast<tensor::CastOp>(op);
               cast && isFlowCast(cast))
      node = newNode(type, /*pinned=*/false);
    else if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op);
             slice && isSliceAlongM(slice))
      node = newNode(type, /*pinned=*/false);
    else if (auto concat = dyn_cast<tensor::ConcatOp>(op);
             concat && isConcatAlongM(concat))
      node = newNode(type, /*pinned=*/false);
    else
      node = newNode(type, /*pinned=*/true);
  }
  nodeOf[v] = node;
  nodes[node].values.push_back(v);
  return node;
}

void Propagation::addValue(Value v) {
  if (!isScaleTensorType(v.getType()))
    return;
  // Detached materializations are no longer part of the program.
  if (auto mat = v.getDefiningOp<MaterializeOp>())
    return;
  nodeFor(v);
  values.push_back(v);
  if (auto result = dyn_cast<OpResult>(v))
    if (isa<QuantizeOp, RmsNormQuantizeOp>(result.getOwner()) &&
        result.getResultNumber() == 1)
      seeds.insert(v);
  if (cast<RankedTensorType>(v.getType()).getEncoding())
    seeds.insert(v);
}

void Propagation::classifyUses(unsigned valueIndex) {
  Value v = values[valueIndex];
  SmallVector<ScaleUse, 1> &out = usesOf[valueIndex];
  LayoutAttr rowMajor = LayoutAttr::getRowMajor(ctx);
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    // Detached materializations wait for reuse; they are not consumers.
    if (isa<MaterializeOp>(user))
      continue;
    unsigned idx = use.getOperandNumber();
    ScaleUse su;
    su.operand = &use;
    auto flow = [&](Value target) {
      su.kind = NeedKind::Flow;
      su.node = nodeFor(target);
    };
    auto unknown = [&]() {
      su.kind = NeedKind::Exact;
      su.layout = rowMajor;
      su.unknown = true;
      su.consumer = Consumer::Unknown;
    };
    auto exact = [&](Type type, Consumer consumer, Operation *subject,
                     unsigned index) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor || !isScaleTensorType(tensor))
        return unknown();
      su.kind = NeedKind::Exact;
      su.layout = getScaleLayout(tensor);
      su.consumer = consumer;
      su.subject = subject;
      su.index = index;
      su.typeLayout = su.layout;
    };

    if (auto forOp = dyn_cast<scf::ForOp>(user)) {
      if (idx >= forOp.getNumControlOperands())
        flow(forOp.getRegionIterArgs()[idx - forOp.getNumControlOperands()]);
      else
        unknown();
    } else if (auto yield = dyn_cast<scf::YieldOp>(user)) {
      Operation *parent = yield->getParentOp();
      if (isa<scf::ForOp, scf::IfOp>(parent))
        flow(parent->getResult(idx));
      else if (auto whileOp = dyn_cast<scf::WhileOp>(parent))
        flow(whileOp.getBeforeArguments()[idx]);
      else if (idx < parent->getNumResults())
        // Another region op: its results keep their types.
        exact(parent->getResult(idx).getType(), Consumer::RegionResult, parent,
              idx);
      else
        unknown();
    } else if (auto cond = dyn_cast<scf::ConditionOp>(user)) {
      auto whileOp = cast<scf::WhileOp>(cond->getParentOp());
      if (idx >= 1)
        flow(whileOp.getAfterArguments()[idx - 1]);
      else
        unknown();
    } else if (auto whileOp = dyn_cast<scf::WhileOp>(user)) {
      flow(whileOp.getBeforeArguments()[idx]);
    } else if (auto call = dyn_cast<func::CallOp>(user)) {
      func::FuncOp callee = getCallee(call);
      if (callee && rewritableFuncs.contains(callee))
        flow(callee.getArgument(idx));
      else if (callee)
        exact(callee.getFunctionType().getInput(idx), Consumer::CalleeArgument,
              callee, idx);
      else
        unknown();
    } else if (auto ret = dyn_cast<func::ReturnOp>(user)) {
      auto func = ret->getParentOfType<func::FuncOp>();
      if (rewritableFuncs.contains(func)) {
        su.kind = NeedKind::Flow;
        su.node = groupNode(
            func, idx,
            cast<RankedTensorType>(func.getFunctionType().getResult(idx)));
      } else {
        exact(func.getFunctionType().getResult(idx), Consumer::PublicResult,
              func, idx);
      }
    } else if (auto castOp = dyn_cast<tensor::CastOp>(user);
               castOp && isFlowCast(castOp)) {
      flow(castOp.getResult());
    } else if (auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
               slice && idx == 0 && isSliceAlongM(slice)) {
      flow(slice.getResult());
    } else if (auto concat = dyn_cast<tensor::ConcatOp>(user);
               concat && isConcatAlongM(concat)) {
      flow(concat.getResult());
    } else if (auto branch = dyn_cast<BranchOpInterface>(user);
               branch && branch.getSuccessorBlockArgument(idx)) {
      // Unstructured control flow: block arguments keep their types.
      exact(branch.getSuccessorBlockArgument(idx)->getType(),
            Consumer::Successor, nullptr, 0);
    } else if (isa<tensor::DimOp>(user)) {
      // Reads only the shape.
    } else if (auto gemm = dyn_cast<GemmOp>(user)) {
      if (idx == 1) {
        seeds.insert(v);
        std::optional<Kernel> kernel = gemm.getKernel();
        if (kernel) {
          if (LayoutAttr need = getRequiredScaleLayout(*kernel, ctx)) {
            su.kind = NeedKind::Bytes;
            su.layout = need;
            su.consumer = Consumer::XScale;
          }
        }
      } else if (idx == 3) {
        exact(gemm.getWScale().getType(), Consumer::WScale, nullptr, 0);
        su.layout = rowMajor;
      } else {
        unknown();
      }
    } else {
      unknown();
    }
    out.push_back(std::move(su));
  }
}

PropagationCounts Propagation::run() {
  findRewritableFuncs();
  stripMaterializations();

  // Values in walk order: deterministic ids for nodes and layouts.
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          addValue(arg);
    for (Value result : op->getResults())
      addValue(result);
  });
  usesOf.resize(values.size());
  for (unsigned i = 0; i < values.size(); ++i)
    classifyUses(i);

  // Components that touch fp8q are the ones analysed.
  llvm::EquivalenceClasses<unsigned> components;
  for (unsigned n = 0; n < nodes.size(); ++n)
    components.insert(n);
  for (unsigned i = 0; i < values.size(); ++i)
    for (const ScaleUse &use : usesOf[i])
      if (use.kind == NeedKind::Flow)
        components.unionSets(nodeOf[values[i]], use.node);
  DenseSet<unsigned> relevantLeaders;
  for (Value v : seeds)
    if (nodeOf.count(v))
      relevantLeaders.insert(components.getLeaderValue(nodeOf[v]));
  auto isRelevant = [&](unsigned node) {
    return relevantLeaders.contains(components.getLeaderValue(node));
  };

  // Layout table: row_major, col_major, col_major align 4 (the contract
  // table's), plus every layout the module or the contracts mention.
  std::set<LayoutAttr, LayoutLess> layoutSet{LayoutAttr::getRowMajor(ctx),
                                             LayoutAttr::getColMajor(ctx, 1)};
  for (int k = 0; k < FP8Q_KERNEL_COUNT; ++k)
    if (LayoutAttr l = getRequiredScaleLayout(static_cast<Kernel>(k), ctx))
      layoutSet.insert(l);
  for (NodeInfo &node : nodes)
    layoutSet.insert(getScaleLayout(node.type));
  for (const SmallVector<ScaleUse, 1> &uses : usesOf)
    for (const ScaleUse &use : uses)
      if (use.layout)
        layoutSet.insert(use.layout);
  SmallVector<LayoutAttr> layouts(layoutSet.begin(), layoutSet.end());
  auto layoutId = [&](LayoutAttr l) -> unsigned {
    return llvm::find(layouts, l) - layouts.begin();
  };

  // The solver's problem, over relevant nodes and values only.
  ls::Problem problem;
  problem.numLayouts = layouts.size();
  std::map<SmallVector<int64_t, 2>, unsigned> shapeIds;
  auto shapeId = [&](ArrayRef<int64_t> shape) -> unsigned {
    SmallVector<int64_t, 2> key(shape);
    auto [it, inserted] = shapeIds.try_emplace(key, shapeIds.size());
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
  DenseMap<unsigned, unsigned> solverNode;
  SmallVector<unsigned> nodeOfSolver;
  for (unsigned n = 0; n < nodes.size(); ++n) {
    if (!isRelevant(n))
      continue;
    solverNode[n] = problem.nodes.size();
    nodeOfSolver.push_back(n);
    problem.nodes.push_back(
        ls::Node{nodes[n].pinned, layoutId(getScaleLayout(nodes[n].type))});
  }
  // Per solver value: its uses split as the solver sees them.
  struct SplitUses {
    Value value;
    SmallVector<ScaleUse *> exact, bytes, flows;
  };
  SmallVector<SplitUses> split;
  for (unsigned i = 0; i < values.size(); ++i) {
    Value v = values[i];
    if (!isRelevant(nodeOf[v]))
      continue;
    ls::Value sv;
    sv.node = solverNode[nodeOf[v]];
    sv.shape = shapeId(cast<RankedTensorType>(v.getType()).getShape());
    sv.weight = frequencyOf(v);
    SplitUses s{v, {}, {}, {}};
    for (ScaleUse &use : usesOf[i]) {
      switch (use.kind) {
      case NeedKind::Exact:
        sv.exactReqs.push_back(layoutId(use.layout));
        s.exact.push_back(&use);
        break;
      case NeedKind::Bytes:
        sv.byteReqs.push_back(layoutId(use.layout));
        s.bytes.push_back(&use);
        break;
      case NeedKind::Flow:
        sv.flowsInto.push_back(solverNode[use.node]);
        s.flows.push_back(&use);
        break;
      case NeedKind::None:
        break;
      }
      if (use.unknown)
        use.operand->getOwner()->emitRemark()
            << "operand #" << use.operand->getOperandNumber()
            << " gets row_major: unknown scale consumer";
    }
    problem.values.push_back(std::move(sv));
    split.push_back(std::move(s));
  }

  SmallVector<unsigned> candidates;
  for (unsigned i = 0; i < layouts.size(); ++i)
    candidates.push_back(i);
  ls::Solution solution = ls::solve(problem, candidates);
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << problem.nodes.size()
                          << " nodes, " << problem.values.size()
                          << " values, cost " << solution.cost.materializations
                          << " ops / " << solution.cost.copies << " copies / "
                          << solution.cost.weightedCopies << " weighted / "
                          << solution.cost.churn << " retyped nodes"
                          << (solution.provenMinimal ? "" : " (not proven)")
                          << "\n");
  if (!solution.provenMinimal)
    module.emitRemark() << "scale-layout search budget exhausted; the "
                           "assignment is the best found, not proven minimal";

  // Retype free nodes.
  DenseSet<Operation *> funcsToUpdate;
  for (unsigned s = 0; s < problem.nodes.size(); ++s) {
    NodeInfo &node = nodes[nodeOfSolver[s]];
    LayoutAttr want = layouts[solution.layoutOf[s]];
    if (node.pinned || getScaleLayout(node.type) == want)
      continue;
    node.type = withScaleLayout(node.type, want);
    for (Value v : node.values) {
      LLVM_DEBUG(llvm::dbgs()
                 << "[" DEBUG_TYPE "] retype " << v << " to " << want << "\n");
      v.setType(withScaleLayout(cast<RankedTensorType>(v.getType()), want));
      if (auto result = dyn_cast<OpResult>(v)) {
        if (isa<QuantizeOp, RmsNormQuantizeOp>(result.getOwner()))
          ++counts.fused;
      } else if (auto func = dyn_cast<func::FuncOp>(
                     cast<BlockArgument>(v).getOwner()->getParentOp())) {
        funcsToUpdate.insert(func);
      }
    }
  }
  // Private function results: their group node's layout.
  for (auto &[key, n] : groupNodes)
    if (auto *op = static_cast<Operation *>(key.first);
        isRelevant(n) && rewritableFuncs.contains(op))
      funcsToUpdate.insert(op);
  for (Operation *op : rewritableFuncs) {
    if (!funcsToUpdate.contains(op))
      continue;
    auto func = cast<func::FuncOp>(op);
    FunctionType type = func.getFunctionType();
    SmallVector<Type> results(type.getResults());
    for (unsigned i = 0; i < results.size(); ++i) {
      auto it = groupNodes.find({op, i});
      if (it != groupNodes.end())
        results[i] = nodes[it->second].type;
    }
    func.setFunctionType(FunctionType::get(
        ctx, func.getBody().front().getArgumentTypes(), results));
  }

  // Insert (or reuse) one materialization per (value, needed layout).
  OpBuilder builder(ctx);
  DenseSet<Operation *> reused;
  for (unsigned i = 0; i < split.size(); ++i) {
    Value v = split[i].value;
    ls::ValuePlan plan =
        ls::planValue(problem, problem.values[i], solution.layoutOf);
    Operation *previous = nullptr;
    for (unsigned t = 0; t < plan.targets.size(); ++t) {
      auto type = withScaleLayout(cast<RankedTensorType>(v.getType()),
                                  layouts[plan.targets[t]]);
      MaterializeOp mat;
      auto it = detached.find(std::make_pair(v.getAsOpaquePointer(),
                                             Type(type).getAsOpaquePointer()));
      if (it != detached.end() && !reused.contains(it->second)) {
        mat = it->second;
        reused.insert(mat);
        if (previous)
          mat->moveAfter(previous);
        else if (Operation *def = v.getDefiningOp())
          mat->moveAfter(def);
        else {
          Block *block = cast<BlockArgument>(v).getOwner();
          if (&block->front() != mat.getOperation())
            mat->moveBefore(&block->front());
        }
      } else {
        if (previous)
          builder.setInsertionPointAfter(previous);
        else
          builder.setInsertionPointAfterValue(v);
        mat = MaterializeOp::create(builder, v.getLoc(), type, v);
        ++counts.inserted;
      }
      previous = mat;

      // Hand it to every consumer it serves; collect them for the remark.
      SmallVector<std::string> why;
      auto serve = [&](ArrayRef<ScaleUse *> uses, ArrayRef<int> slots) {
        for (auto [use, slot] : llvm::zip(uses, slots)) {
          if (slot != static_cast<int>(t))
            continue;
          use->operand->set(mat.getResult());
          if (use->kind == NeedKind::Flow)
            why.push_back("flow into " + describeOperand(*use->operand));
          else
            why.push_back(describeConsumer(*use));
        }
      };
      serve(split[i].exact, plan.exactUse);
      serve(split[i].bytes, plan.byteUse);
      serve(split[i].flows, plan.flowUse);
      InFlightDiagnostic remark = mat->emitRemark();
      remark << "scale materialized to " << layouts[plan.targets[t]]
             << (plan.copies[t] ? " (copy)" : " (no copy: same bytes)")
             << " for " << why.size() << " consumer"
             << (why.size() == 1 ? "" : "s") << ": ";
      llvm::interleave(
          why, [&](const std::string &w) { remark << w; },
          [&] { remark << "; "; });
    }
  }

  for (MaterializeOp op : detachedOrder) {
    if (reused.contains(op))
      continue;
    op->dropAllUses();
    op->erase();
    ++counts.removed;
  }
  // Every materialization was detached: those left are the reused ones and
  // the inserted ones (no walk of the module needed to count them).
  counts.remaining = reused.size() + counts.inserted;
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] inserted " << counts.inserted
                          << ", removed " << counts.removed << ", fused "
                          << counts.fused << ", remaining " << counts.remaining
                          << "\n");
  return counts;
}

struct PropagateScaleLayoutPass
    : public fp8q::impl::PropagateScaleLayoutBase<PropagateScaleLayoutPass> {
  using Base::Base;

  void runOnOperation() override {
    PropagationCounts counts =
        propagateScaleLayouts(getOperation(), fuseProducers);
    numMaterializationsInserted += counts.inserted;
    numProducersFused += counts.fused;
    numMaterializationsRemoved += counts.removed;
    // Release LLVM builds (Debian's among them) compile pass statistics out;
    // this remark carries the same counts to the user.
    if (reportCounts)
      getOperation().emitRemark()
          << "fp8q-propagate-scale-layout: " << counts.inserted
          << " materializations inserted, " << counts.fused
          << " producers fused, " << counts.removed
          << " materializations removed, " << counts.remaining
          << " materializations remain";
  }
};

} // namespace

PropagationCounts fp8q::propagateScaleLayouts(ModuleOp module,
                                              bool fuseProducers) {
  return Propagation(module, fuseProducers).run();
}
