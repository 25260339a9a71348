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
// Cost: linear in the module. One walk gathers the values, the
// materializations and the symbol uses that decide which private functions
// may be retyped (not one SymbolTable::getSymbolUses walk per function);
// one pass over the values builds nodes and classifies uses; values, nodes
// and uses live in vectors indexed by dense ids; the solver (bit masks, no
// allocation per component) sees only the relevant components. The output
// is the same as the straightforward formulation's, node for node: see
// nodeKey for the order nodes reach the solver in.
//
// Counts: the pass declares its statistics, but Debian's release LLVM
// compiles them out (NoopStatistic); propagateScaleLayouts() returns them.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Transforms/PropagateScaleLayout.h"
#include "fp8q/Dialect/IR/ScaleLayout.h"
#include "fp8q/Support/Diagnostics.h"
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
#include "llvm/Support/Debug.h"

#include <numeric>

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

/// Orders two layouts canonically (see LayoutLess) and inserts `layout`
/// into the sorted, duplicate-free `table`.
static void insertLayout(SmallVectorImpl<LayoutAttr> &table,
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

/// One run of the propagation over a module.
///
/// The run is linear in the size of the module: each op is visited a
/// bounded number of times, values, nodes and uses live in vectors indexed
/// by dense ids, hashing is kept for the few lookups that need it (flow
/// targets, group nodes, symbols), and only the components that touch fp8q
/// reach the solver.
class Propagation {
public:
  Propagation(ModuleOp module, bool fuseProducers)
      : module(module), ctx(module.getContext()), fuseProducers(fuseProducers),
        rowMajor(LayoutAttr::getRowMajor(ctx)) {
    for (int k = 0; k < FP8Q_KERNEL_COUNT; ++k)
      kernelNeeds.push_back(
          getRequiredScaleLayout(static_cast<Kernel>(k), ctx));
  }

  /// Rewrites the module; returns what it did.
  PropagationCounts run();

private:
  ModuleOp module;
  MLIRContext *ctx;
  bool fuseProducers;
  /// Looked up once: uniquing an attribute per value takes a lock.
  LayoutAttr rowMajor;
  /// x_scale layout each kernel reads (null: any), by kernel id.
  SmallVector<LayoutAttr> kernelNeeds;
  PropagationCounts counts;
  // Analysis state.
  SymbolTableCollection symbols;
  DenseSet<Operation *> rewritableFuncs;
  /// Call sites of each rewritable function.
  DenseMap<Operation *, int64_t> callCount;
  SmallVector<NodeInfo> nodes;
  /// Index (into `values`) of the values a use can flow into (block
  /// arguments, results of scf.for / scf.if, tensor.cast / extract_slice /
  /// concat); the other values are only reached through their index.
  DenseMap<Value, unsigned> flowTargetIndex;
  /// Nodes of flow targets that are not in `values` (none in verified IR).
  DenseMap<Value, unsigned> otherNodes;
  /// Per node: the index of its first value, which orders the nodes for the
  /// solver as the walk met them; kNoValue for a node without values (a
  /// private function's result group with no call site), ordered after
  /// the others by creation.
  std::vector<unsigned> nodeKey;
  static constexpr unsigned kNoValue = ~0u;
  DenseMap<std::pair<void *, unsigned>, unsigned> groupNodes;
  /// Scale values in walk order, with their node (kNoValue until created)
  /// and whether they touch fp8q (a seed makes its component relevant).
  SmallVector<Value> values;
  std::vector<unsigned> valueNode;
  std::vector<char> isSeed;
  /// Operands of the detached materializations: seeds.
  DenseSet<Value> materialized;
  /// The classified uses of the values the solver sees, flattened: those of
  /// values[i] are uses[useBegin[i]] up to uses[useEnd[i]], in use-list
  /// order.
  std::vector<ScaleUse> uses;
  std::vector<unsigned> useBegin, useEnd;
  /// Detached materializations, by (operand, result type), for reuse.
  DenseMap<std::pair<const void *, const void *>, MaterializeOp> detached;
  SmallVector<MaterializeOp> detachedOrder;
  /// frequencyOf's result per block (it depends only on the ancestors).
  DenseMap<Block *, int64_t> blockFrequency;
  /// retyped()'s results: uniquing a type takes a lock.
  DenseMap<std::pair<Type, Attribute>, RankedTensorType> retypedTypes;

  // What the walk of the module (collect) gathers.
  /// Private functions with a body, in the module's own symbol table
  /// (direct) or deeper (nested).
  SmallVector<func::FuncOp> directFuncs, nestedFuncs;
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
  void stripMaterializations();
  LayoutAttr layoutOf(RankedTensorType type) const;
  RankedTensorType retyped(RankedTensorType type, LayoutAttr layout);
  unsigned newNode(RankedTensorType type, bool pinned);
  unsigned groupNode(void *key, unsigned index, RankedTensorType type);
  unsigned createNode(Value v);
  unsigned nodeOfValue(unsigned valueIndex);
  unsigned nodeFor(Value v);
  void addValue(Value v);
  template <typename Sink> void classifyUses(unsigned valueIndex, Sink sink);
  func::FuncOp getCallee(func::CallOp call);
  ArrayRef<ScaleUse> usesOf(unsigned valueIndex) const {
    return ArrayRef(uses).slice(useBegin[valueIndex],
                                useEnd[valueIndex] - useBegin[valueIndex]);
  }
};

func::FuncOp Propagation::getCallee(func::CallOp call) {
  return symbols.lookupNearestSymbolFrom<func::FuncOp>(call,
                                                       call.getCalleeAttr());
}

/// Walks the module once, in pre-order (the order of module.walk<PreOrder>,
/// which gives values, nodes and layouts deterministic ids): gathers the
/// private functions, the materializations, the scale values, and the
/// symbol uses findRewritableFuncs needs.
void Propagation::collect() {
  for (auto func : module.getOps<func::FuncOp>())
    if (func.isPrivate() && !func.isExternal())
      directFuncs.push_back(func);
  visit(module, /*inSymbolScope=*/false);
}

void Propagation::visit(Operation *op, bool inSymbolScope) {
  if (auto func = dyn_cast<func::FuncOp>(op);
      func && func->getParentOp() != module.getOperation() &&
      func.isPrivate() && !func.isExternal())
    nestedFuncs.push_back(func);
  else if (auto mat = dyn_cast<MaterializeOp>(op))
    materializeOps.push_back(mat);

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

/// A private function with a body whose every use is a direct call may have
/// its signature rewritten; all others keep theirs (their ABI). The uses of
/// the module's own functions come from collect()'s single walk (one walk
/// for all functions, instead of SymbolTable::getSymbolUses walking the
/// module once per function); functions in nested symbol tables are rare
/// and keep the per-function query.
void Propagation::findRewritableFuncs() {
  auto accept = [&](func::FuncOp func, ArrayRef<Operation *> users) {
    int64_t calls = 0;
    for (Operation *user : users) {
      auto call = dyn_cast<func::CallOp>(user);
      if (!call || getCallee(call) != func)
        return;
      ++calls;
    }
    rewritableFuncs.insert(func);
    callCount[func] = calls;
  };
  for (func::FuncOp func : nestedFuncs) {
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
  for (func::FuncOp func : directFuncs) {
    auto it = symbolUsers.find(func.getSymNameAttr());
    accept(func, it == symbolUsers.end() ? ArrayRef<Operation *>()
                                         : ArrayRef<Operation *>(it->second));
  }
}

/// A static guess of how often `v` is defined per run of the public entry
/// point: each enclosing loop counts 8 iterations, a private function as
/// often as it has call sites. Only breaks ties between equal copy counts.
int64_t Propagation::frequencyOf(Value v) {
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

void Propagation::stripMaterializations() {
  // The walk's order of leaf ops is module.walk's (post-order) order.
  for (MaterializeOp op : materializeOps)
    op.getResult().replaceAllUsesWith(op.getScale());
  for (MaterializeOp op : materializeOps) {
    materialized.insert(op.getScale());
    auto key = std::make_pair(op.getScale().getAsOpaquePointer(),
                              op.getType().getAsOpaquePointer());
    // Of duplicates of one (operand, layout), the first may be reused.
    detached.try_emplace(key, op);
    detachedOrder.push_back(op);
  }
}

/// getScaleLayout without uniquing row_major again.
LayoutAttr Propagation::layoutOf(RankedTensorType type) const {
  if (auto layout = dyn_cast_or_null<LayoutAttr>(type.getEncoding()))
    return layout;
  return rowMajor;
}

/// withScaleLayout, memoized.
RankedTensorType Propagation::retyped(RankedTensorType type,
                                      LayoutAttr layout) {
  auto [it, inserted] = retypedTypes.try_emplace({type, layout});
  if (inserted)
    it->second = withScaleLayout(type, layout);
  return it->second;
}

unsigned Propagation::newNode(RankedTensorType type, bool pinned) {
  nodes.push_back(NodeInfo{type, pinned});
  nodeKey.push_back(kNoValue);
  return nodes.size() - 1;
}

unsigned Propagation::groupNode(void *key, unsigned index,
                                RankedTensorType type) {
  auto [it, inserted] = groupNodes.try_emplace({key, index}, 0);
  if (inserted)
    it->second = newNode(type, /*pinned=*/false);
  return it->second;
}

/// Whether a use may flow into `v` (see classifyUses), so that its node
/// must be found by value.
static bool mayBeFlowTarget(Value v) {
  if (isa<BlockArgument>(v))
    return true;
  return isa<scf::ForOp, scf::IfOp, tensor::CastOp, tensor::ExtractSliceOp,
             tensor::ConcatOp>(cast<OpResult>(v).getOwner());
}

/// Puts `v`, seen for the first time, into its node (a new one, or the
/// group it belongs to).
unsigned Propagation::createNode(Value v) {
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
  return node;
}

/// Returns the node a use flows into: the node of `v`, created if `v` was
/// not seen yet.
unsigned Propagation::nodeFor(Value v) {
  if (auto it = flowTargetIndex.find(v); it != flowTargetIndex.end())
    return nodeOfValue(it->second);
  auto [it, inserted] = otherNodes.try_emplace(v, 0);
  if (inserted)
    it->second = createNode(v);
  return it->second;
}

/// Returns the node of values[valueIndex], creating it on first sight.
unsigned Propagation::nodeOfValue(unsigned valueIndex) {
  unsigned &node = valueNode[valueIndex];
  if (node == kNoValue) {
    node = createNode(values[valueIndex]);
    nodeKey[node] = std::min(nodeKey[node], valueIndex);
  }
  return node;
}

/// Records `v` when it is a scale (its node comes after the walk, once the
/// rewritable functions are known).
void Propagation::addValue(Value v) {
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
/// the first classification of all values fixes every node id.
template <typename Sink>
void Propagation::classifyUses(unsigned valueIndex, Sink sink) {
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
      su.layout = dyn_cast_or_null<LayoutAttr>(tensor.getEncoding());
      if (!su.layout)
        su.layout = rowMajor;
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
    } else if (auto branch = user->getNumSuccessors()
                                 ? dyn_cast<BranchOpInterface>(user)
                                 : BranchOpInterface();
               branch && branch.getSuccessorBlockArgument(idx)) {
      // Unstructured control flow: block arguments keep their types. (An op
      // without successors has no successor operands: the interface lookup
      // is skipped for the ops that make up most of a module.)
      exact(branch.getSuccessorBlockArgument(idx)->getType(),
            Consumer::Successor, nullptr, 0);
    } else if (isa<tensor::DimOp>(user)) {
      // Reads only the shape.
    } else if (auto gemm = dyn_cast<GemmOp>(user)) {
      if (idx == 1) {
        isSeed[valueIndex] = true;
        std::optional<Kernel> kernel = gemm.getKernel();
        if (kernel) {
          if (LayoutAttr need = kernelNeeds[static_cast<int>(*kernel)]) {
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
    sink(su);
  }
}

PropagationCounts Propagation::run() {
  collect();
  findRewritableFuncs();
  stripMaterializations();

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
      if (use.kind == NeedKind::Flow) {
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
  SmallVector<LayoutAttr> layouts;
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
  ls::Problem problem;
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
  }
  problem.values.reserve(solverValues.size());
  for (unsigned i : solverValues) {
    Value v = values[i];
    ls::Value sv;
    sv.node = solverNode[valueNode[i]];
    sv.shape = shapeId(cast<RankedTensorType>(v.getType()).getShape());
    sv.weight = frequencyOf(v);
    for (const ScaleUse &use : usesOf(i)) {
      switch (use.kind) {
      case NeedKind::Exact:
        sv.exactReqs.push_back(layoutId(use.layout));
        break;
      case NeedKind::Bytes:
        sv.byteReqs.push_back(layoutId(use.layout));
        break;
      case NeedKind::Flow:
        sv.flowsInto.push_back(solverNode[use.node]);
        break;
      case NeedKind::None:
        break;
      }
      if (use.unknown)
        fp8q::emitRemarkAt(use.operand->getOwner())
            << "operand #" << use.operand->getOperandNumber()
            << " gets row_major: unknown scale consumer";
    }
    problem.values.push_back(std::move(sv));
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
    fp8q::emitRemarkAt(module)
        << "scale-layout search budget exhausted; the "
           "assignment is the best found, not proven minimal";

  // Retype free nodes, then their values (those of relevant nodes are the
  // solver's values, and the rare flow targets outside `values`).
  DenseSet<Operation *> funcsToUpdate;
  SmallVector<LayoutAttr> newLayout(problem.nodes.size());
  for (unsigned s = 0; s < problem.nodes.size(); ++s) {
    NodeInfo &node = nodes[nodeOfSolver[s]];
    LayoutAttr want = layouts[solution.layoutOf[s]];
    if (node.pinned || layoutOf(node.type) == want)
      continue;
    node.type = retyped(node.type, want);
    newLayout[s] = want;
  }
  auto retypeValue = [&](Value v, LayoutAttr want) {
    LLVM_DEBUG(llvm::dbgs()
               << "[" DEBUG_TYPE "] retype " << v << " to " << want << "\n");
    v.setType(retyped(cast<RankedTensorType>(v.getType()), want));
    if (auto result = dyn_cast<OpResult>(v)) {
      if (isa<QuantizeOp, RmsNormQuantizeOp>(result.getOwner()))
        ++counts.fused;
    } else if (auto func = dyn_cast<func::FuncOp>(
                   cast<BlockArgument>(v).getOwner()->getParentOp())) {
      funcsToUpdate.insert(func);
    }
  };
  for (unsigned s = 0; s < solverValues.size(); ++s)
    if (LayoutAttr want = newLayout[problem.values[s].node])
      retypeValue(values[solverValues[s]], want);
  for (auto &[v, n] : otherNodes)
    if (isRelevant(n))
      if (LayoutAttr want = newLayout[solverNode[n]])
        retypeValue(v, want);
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
  SmallVector<std::string> why;
  for (unsigned s = 0; s < solverValues.size(); ++s) {
    unsigned i = solverValues[s];
    Value v = values[i];
    ls::ValuePlan plan =
        ls::planValue(problem, problem.values[s], solution.layoutOf);
    if (plan.targets.empty())
      continue;
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

      // Hand it to every consumer it serves, exact needs first, then byte
      // needs, then flows (the plan's slots are per kind, in use order);
      // collect them for the remark.
      why.clear();
      auto serve = [&](NeedKind kind, ArrayRef<int> slots) {
        unsigned k = 0;
        for (const ScaleUse &use : usesOf(i)) {
          if (use.kind != kind || slots[k++] != static_cast<int>(t))
            continue;
          use.operand->set(mat.getResult());
          if (kind == NeedKind::Flow)
            why.push_back("flow into " + describeOperand(*use.operand));
          else
            why.push_back(describeConsumer(use));
        }
      };
      serve(NeedKind::Exact, plan.exactUse);
      serve(NeedKind::Bytes, plan.byteUse);
      serve(NeedKind::Flow, plan.flowUse);
      InFlightDiagnostic remark = fp8q::emitRemarkAt(mat);
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
      fp8q::emitRemarkAt(getOperation())
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
