//===- PropagateScaleLayoutRandomTest.cpp - Random graphs vs brute force --===//
//
// Builds random small programs (up to about 8 scale values: public
// arguments, quantize producers, opaque producers; gemms of every kernel,
// unknown consumers, public results; scf.if merges and scf.for loops, with
// hand-written materializations wherever the input needs a type change),
// of f32 FP8 1x128 scales (the strided layouts) or, for a third of the
// seeds, of SPEC v2's MXFP8 e8m0 scales (every layout: the strided ones,
// col_major pack = 4, swizzle_32_4_4 and cdna4_mx, read by triton's
// strided requirement and by the padded layouts of cublas_mx,
// aiter_mxfp4 and deepgemm_sm100),
// runs --fp8q-propagate-scale-layout and checks:
//   (a) every gemm's x_scale satisfies its kernel's contract;
//   (b) the cost of the output - fp8q.materialize ops, those that copy
//       bytes, copies weighted by 8 per enclosing loop, free nodes retyped -
//       equals the minimum that an exhaustive search over layout
//       assignments finds, compared as a whole, and the model's cost of the
//       assignment the pass chose. The search below is written from the
//       cost model alone (ScaleLayoutSolver.h) and shares no code with the
//       pass: strides and the padded layouts' offsets (SPEC v2's formulas)
//       are computed here by hand;
//   (c) a second run changes nothing.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Dialect/IR/ScaleLayout.h"
#include "fp8q/Interfaces/ScaleLayoutInterfaces.h"
#include "fp8q/Target/KernelContracts.h"
#include "fp8q/Transforms/Passes.h"
#include "fp8q/Transforms/PropagateScaleLayout.h"
#include "fp8q/Transforms/ScaleLayoutAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include <ostream>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

using namespace mlir;

namespace {

// Layouts the generator uses, and their spelling: the strided ones first
// (all an f32 scale can take), then SPEC v2's padded ones.
enum Layout {
  Row = 0,
  Col = 1,
  Col4 = 2,
  NumStrided = 3,
  Pack4 = 3,
  Swz = 4,
  Cdna = 5,
  NumLayouts = 6
};
const char *kEncoding[] = {"",
                           ", #fp8q.layout<col_major>",
                           ", #fp8q.layout<col_major, align = 4>",
                           ", #fp8q.layout<col_major, align = 4, pack = 4>",
                           ", #fp8q.layout<swizzle_32_4_4>",
                           ", #fp8q.layout<cdna4_mx>"};

int64_t roundUp(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

/// Byte offset of (i, j) of an [m, g] 1-byte scale in a padded layout, and
/// its allocation: SPEC v2's "Scale layouts" table, written out again.
int64_t paddedOffset(int layout, int64_t m, int64_t g, int64_t i, int64_t j) {
  switch (layout) {
  case Row:
    return i * g + j;
  case Col:
    return j * m + i;
  case Col4:
    return j * roundUp(m, 4) + i;
  case Pack4:
    return ((j / 4) * roundUp(m, 4) + i) * 4 + j % 4;
  case Swz: {
    int64_t tile = (i / 128) * (roundUp(g, 4) / 4) + j / 4;
    return tile * 512 + (i % 32) * 16 + ((i % 128) / 32) * 4 + j % 4;
  }
  default: {
    int64_t a = i / 32, b = (i / 16) % 2, c = i % 16;
    int64_t d = j / 8, e = (j / 4) % 2, f = j % 4;
    return ((((a * (roundUp(g, 8) / 8) + d) * 4 + f) * 16 + c) * 2 + e) * 2 + b;
  }
  }
}
int64_t paddedAlloc(int layout, int64_t m, int64_t g) {
  switch (layout) {
  case Row:
  case Col:
    return m * g;
  case Col4:
    return roundUp(m, 4) * g;
  case Pack4:
    return roundUp(g, 4) * roundUp(m, 4);
  case Swz:
    return roundUp(m, 128) * roundUp(g, 4);
  default:
    return roundUp(m, 256) * roundUp(g, 8);
  }
}

/// The cost of an assignment, compared lexicographically in this order.
struct FullCost {
  int64_t materializations = 0;
  int64_t copies = 0;
  int64_t weightedCopies = 0;
  int64_t churn = 0;

  auto tie() const {
    return std::tie(materializations, copies, weightedCopies, churn);
  }
  bool operator<(const FullCost &o) const { return tie() < o.tie(); }
  bool operator==(const FullCost &o) const { return tie() == o.tie(); }
  FullCost &operator+=(const FullCost &o) {
    materializations += o.materializations;
    copies += o.copies;
    weightedCopies += o.weightedCopies;
    churn += o.churn;
    return *this;
  }
  friend std::ostream &operator<<(std::ostream &os, const FullCost &c) {
    return os << "{" << c.materializations << " ops, " << c.copies
              << " copies, " << c.weightedCopies << " weighted, " << c.churn
              << " retyped}";
  }
};

/// The abstract program, as the cost model sees it.
struct Model {
  struct Node {
    bool pinned;
    int layout;
  };
  enum Kind { Exact, Bytes, Flow, Strided };
  struct Use {
    Kind kind;
    int layout; // Exact, Bytes
    int node;   // Flow
  };
  struct Value {
    int node;
    /// 8 per loop around the definition.
    int64_t weight;
    std::vector<Use> uses;
  };
  std::vector<Node> nodes;
  std::vector<Value> values;
  int64_t m = -1; // static M, or -1 when dynamic
  int64_t g = 2;
  /// 3 (the strided layouts, f32 scales) or 6 (e8m0 scales).
  int numLayouts = NumStrided;

  /// Stride vector of a layout for this model's shape, or nothing for a
  /// dynamic-M column stride.
  std::pair<int64_t, int64_t> strides(int layout) const {
    if (layout == Row)
      return {g, 1};
    int64_t align = layout == Col4 ? 4 : 1;
    if (m < 0)
      return {1, -1 - align}; // distinct per align, never equal to a number
    return {1, (m + align - 1) / align * align};
  }
  /// Same bytes: strides agree on every dimension of extent > 1 (two
  /// strided layouts), or every (i, j) has the same offset and the
  /// allocations agree (a padded one; with a dynamic M only itself).
  bool same(int a, int b) const {
    if (a == b)
      return true;
    if (a >= NumStrided || b >= NumStrided) {
      if (m < 0)
        return false;
      int key = a * NumLayouts + b;
      if (sameMemo.empty())
        sameMemo.assign(NumLayouts * NumLayouts, -1);
      if (sameMemo[key] < 0) {
        bool eq = paddedAlloc(a, m, g) == paddedAlloc(b, m, g);
        for (int64_t i = 0; eq && i < m; ++i)
          for (int64_t j = 0; eq && j < g; ++j)
            eq = paddedOffset(a, m, g, i, j) == paddedOffset(b, m, g, i, j);
        sameMemo[key] = eq;
      }
      return sameMemo[key];
    }
    auto [a0, a1] = strides(a);
    auto [b0, b1] = strides(b);
    bool dim0 = m == 1 || a0 == b0;
    bool dim1 = g == 1 || a1 == b1;
    return dim0 && dim1;
  }

  /// Materializations (and copies) one value needs when nodes have
  /// `assign`.
  FullCost valueCost(const Value &v, const std::vector<int> &assign) const {
    int own = assign[v.node];
    std::set<int> exact;
    bool stridedNeed = false;
    for (const Use &u : v.uses) {
      stridedNeed |= u.kind == Strided;
      int want = u.kind == Flow ? assign[u.node] : u.layout;
      if ((u.kind == Exact || u.kind == Flow) && want != own)
        exact.insert(want);
    }
    // Byte needs not served by the value or an exact materialization,
    // counted once per class of equal layouts.
    std::vector<int> classes;
    for (const Use &u : v.uses) {
      if (u.kind != Bytes || same(u.layout, own))
        continue;
      bool served = false;
      for (int e : exact)
        served |= same(e, u.layout);
      for (int c : classes)
        served |= same(c, u.layout);
      if (!served)
        classes.push_back(u.layout);
    }
    // A materialization copies unless it only changes the type; every byte
    // class is one the value's own layout does not cover.
    FullCost cost;
    cost.materializations = exact.size() + classes.size();
    for (int e : exact)
      cost.copies += !same(e, own);
    cost.copies += classes.size();
    // A strided need (triton) is served by the value or any op that is
    // strided, else by one more op to row_major.
    if (stridedNeed && own >= NumStrided) {
      bool served = false;
      for (int e : exact)
        served |= e < NumStrided;
      for (int c : classes)
        served |= c < NumStrided;
      if (!served) {
        ++cost.materializations;
        cost.copies += !same(Row, own);
      }
    }
    cost.weightedCopies = cost.copies * v.weight;
    return cost;
  }

  /// Cost of a whole assignment, retyped free nodes included.
  FullCost cost(const std::vector<int> &assign) const {
    FullCost total;
    for (const Value &v : values)
      total += valueCost(v, assign);
    for (unsigned n = 0; n < nodes.size(); ++n)
      total.churn += !nodes[n].pinned && assign[n] != nodes[n].layout;
    return total;
  }

  /// Exhaustive minimum over every layout of every free node.
  FullCost minimum() const {
    std::vector<int> freeNodes;
    std::vector<int> assign;
    for (unsigned n = 0; n < nodes.size(); ++n) {
      assign.push_back(nodes[n].layout);
      if (!nodes[n].pinned)
        freeNodes.push_back(n);
    }
    FullCost best;
    bool first = true;
    int64_t combos = 1;
    for (size_t i = 0; i < freeNodes.size(); ++i)
      combos *= numLayouts;
    for (int64_t c = 0; c < combos; ++c) {
      int64_t rest = c;
      for (int n : freeNodes) {
        assign[n] = rest % numLayouts;
        rest /= numLayouts;
      }
      FullCost total = cost(assign);
      if (first || total < best)
        best = total;
      first = false;
    }
    return best;
  }

private:
  mutable std::vector<int8_t> sameMemo;
};

/// Random program generator: the text and the model side by side.
class Generator {
public:
  Generator(unsigned seed, bool fuse, bool v2) : rng(seed), fuse(fuse), v2(v2) {
    // 256 rows: every padded allocation equals M * G, the offsets decide.
    static const int64_t ms[] = {-1, -1, 1, 16, 6, 256};
    model.m = ms[pick(v2 ? 6 : 5)];
    mText = model.m < 0 ? "?" : std::to_string(model.m);
    if (v2) {
      model.g = 8;
      model.numLayouts = NumLayouts;
    }
  }

  std::string generate() {
    std::vector<Scale> visible;
    int numArgs = pick(3);
    for (int i = 0; i < numArgs; ++i) {
      int layout = pick(model.numLayouts);
      std::string name = "%a" + std::to_string(i);
      args += ", " + name + ": " + scaleType(layout);
      visible.push_back({name, newValue(newNode(true, layout), 1), layout});
    }
    std::string body;
    block(body, visible, "    ", /*depth=*/0);
    // Public results: exact layouts.
    std::string results, returned;
    int numResults = visible.empty() ? 0 : pick(3);
    for (int i = 0; i < numResults; ++i) {
      Scale &v = visible[pick(visible.size())];
      int layout = pick(model.numLayouts);
      use(v, Model::Exact, layout);
      results += std::string(i ? ", " : "") + scaleType(layout);
      returned += std::string(i ? ", " : "") + convert(body, v, layout, "    ");
    }
    // v2: one weight scale per layout a kernel reads, already in it.
    std::string weightScales =
        v2 ? "%ws: tensor<128x8xf8E8M0FNU>, %wss: " + wScaleType(Swz) +
                 ", %wsc: " + wScaleType(Cdna) + ", %wsp: " + wScaleType(Pack4)
           : "%ws: tensor<1x2xf32>";
    std::string text =
        "func.func @main(%x: tensor<" + mText + "x256xbf16>, %q: tensor<" +
        mText +
        "x256xf8E4M3FN>, %w: tensor<128x256xf8E4M3FN>, %wp: "
        "tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, " +
        weightScales + ", %c: i1" + args + ") -> (" + results + ") {\n" +
        "    %c0 = arith.constant 0 : index\n"
        "    %c1 = arith.constant 1 : index\n"
        "    %c2 = arith.constant 2 : index\n" +
        body + "    return " + returned +
        (numResults ? " : " + results : std::string()) + "\n}\n";
    return text;
  }

  /// The layout a scale type spells, or -1.
  int layoutOf(Type type) const {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << type;
    for (int layout = 0; layout < model.numLayouts; ++layout)
      if (text == scaleType(layout))
        return layout;
    return -1;
  }

  Model model;

private:
  struct Scale {
    std::string name;
    int value;
    int layout;
  };

  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); }
  std::string fresh(const char *prefix) {
    return "%" + std::string(prefix) + std::to_string(counter++);
  }
  std::string scaleType(int layout) const {
    return "tensor<" + mText + (v2 ? "x8xf8E8M0FNU" : "x2xf32") +
           kEncoding[layout] + ">";
  }
  static std::string wScaleType(int layout) {
    return std::string("tensor<128x8xf8E8M0FNU") + kEncoding[layout] + ">";
  }
  int newNode(bool pinned, int layout) {
    model.nodes.push_back({pinned, layout});
    return model.nodes.size() - 1;
  }
  int newValue(int node, int64_t weight) {
    model.values.push_back({node, weight, {}});
    return model.values.size() - 1;
  }
  void use(const Scale &v, Model::Kind kind, int layoutOrNode) {
    Model::Use u{kind, 0, 0};
    (kind == Model::Flow ? u.node : u.layout) = layoutOrNode;
    model.values[v.value].uses.push_back(u);
  }
  /// Returns the name of `v` in `layout`, materializing when the input
  /// needs a type change (the pass strips and re-derives these).
  std::string convert(std::string &out, const Scale &v, int layout,
                      const std::string &indent) {
    if (v.layout == layout)
      return v.name;
    std::string name = fresh("m");
    out += indent + name + " = fp8q.materialize " + v.name + " : " +
           scaleType(v.layout) + " -> " + scaleType(layout) + "\n";
    return name;
  }

  void consume(std::string &out, const Scale &v, const std::string &indent) {
    // Sometimes hand the consumer a hand-written materialization.
    std::string name = v.name;
    int layout = v.layout;
    if (pick(4) == 0) {
      layout = pick(model.numLayouts);
      name = convert(out, v, layout, indent);
    }
    if (pick(5) == 0) {
      out += indent + "\"test.use\"(" + name + ") : (" + scaleType(layout) +
             ") -> ()\n";
      use(v, Model::Exact, Row);
      return;
    }
    if (v2)
      return consumeV2(out, v, name, layout, indent);
    static const char *kernels[] = {"ck_bpreshuffle", "ck",     "triton",
                                    "deepgemm",       "cublas", ""};
    static const int needs[] = {Col, Row, -1, Col4, Col, -1};
    int k = pick(6);
    bool pre = k == 0;
    out += indent + fresh("y") + " = fp8q.gemm %q, " + name + ", " +
           (pre ? "%wp" : "%w") + ", %ws" +
           (*kernels[k]
                ? std::string(" {kernel = #fp8q.kernel<") + kernels[k] + ">}"
                : std::string()) +
           " : tensor<" + mText + "x256xf8E4M3FN>, " + scaleType(layout) +
           ", tensor<128x256xf8E4M3FN" +
           (pre ? ", #fp8q.weight_layout<preshuffle_16x16>" : "") +
           ">, tensor<1x2xf32> -> tensor<" + mText + "x128xbf16>\n";
    if (needs[k] >= 0)
      use(v, Model::Bytes, needs[k]);
  }

  /// A gemm of MXFP8 reading `v` (as `name` in `layout`) with a kernel that
  /// reads a strided, a padded or any layout; its weight scale is an
  /// argument already in the layout the kernel reads. (The kernels' formats
  /// are --fp8q-verify-contracts' business, not propagation's.)
  void consumeV2(std::string &out, const Scale &v, const std::string &name,
                 int layout, const std::string &indent) {
    struct K {
      const char *name;
      Model::Kind kind;
      int need;
      const char *wScale;
      int wLayout;
    };
    static const K kernels[] = {
        {"triton", Model::Strided, Row, "%ws", Row},
        {"cublas_mx", Model::Bytes, Swz, "%wss", Swz},
        {"aiter_mxfp4", Model::Bytes, Cdna, "%wsc", Cdna},
        {"deepgemm_sm100", Model::Bytes, Pack4, "%wsp", Pack4},
        {"reference", Model::Exact, -1, "%ws", Row},
        {"", Model::Exact, -1, "%ws", Row}};
    const K &k = kernels[pick(6)];
    out += indent + fresh("y") + " = fp8q.gemm %q, " + name + ", %w, " +
           k.wScale +
           (*k.name ? std::string(" {kernel = #fp8q.kernel<") + k.name + ">}"
                    : std::string()) +
           " : tensor<" + mText + "x256xf8E4M3FN>, " + scaleType(layout) +
           ", tensor<128x256xf8E4M3FN>, " + wScaleType(k.wLayout) +
           " -> tensor<" + mText + "x128xbf16>\n";
    if (k.need >= 0)
      use(v, k.kind, k.need);
  }

  /// The attribute naming node `node`, for finding its layout afterwards.
  static std::string tag(int node) {
    return "{test.node = " + std::to_string(node) + " : i64}";
  }

  Scale produce(std::string &out, const std::string &indent, int64_t weight) {
    int layout = pick(model.numLayouts);
    std::string name = fresh("s");
    if (pick(4) == 0) {
      out += indent + name + " = \"test.make\"() : () -> " + scaleType(layout) +
             "\n";
      return {name, newValue(newNode(true, layout), weight), layout};
    }
    int node = newNode(!fuse, layout);
    std::string attrs = tag(node);
    if (v2) // MXFP8: groups of 32.
      attrs = "{group_size = 32 : i64, " + attrs.substr(1);
    out += indent + fresh("q") + ", " + name + " = fp8q.quantize %x " + attrs +
           " : tensor<" + mText + "x256xbf16> -> tensor<" + mText +
           "x256xf8E4M3FN>, " + scaleType(layout) + "\n";
    return {name, newValue(node, weight), layout};
  }

  void block(std::string &out, std::vector<Scale> &visible,
             const std::string &indent, int depth) {
    int64_t weight = 1;
    for (int d = 0; d < depth; ++d)
      weight *= 8;
    int statements = 1 + pick(depth ? 3 : 6);
    // v2 programs stay smaller: the exhaustive search tries 6 layouts per
    // free node.
    size_t maxValues = v2 ? 6 : 8;
    for (int s = 0; s < statements && model.values.size() < maxValues; ++s) {
      int what = pick(10);
      if (visible.empty() || what < 3) {
        visible.push_back(produce(out, indent, weight));
      } else if (what < 7) {
        consume(out, visible[pick(visible.size())], indent);
      } else if (what < 8 && visible.size() >= 1) {
        // scf.if merging two values.
        const Scale a = visible[pick(visible.size())];
        const Scale b = visible[pick(visible.size())];
        int layout = pick(model.numLayouts);
        int node = newNode(false, layout);
        use(a, Model::Flow, node);
        use(b, Model::Flow, node);
        std::string thenBody, elseBody;
        std::string inner = indent + "  ";
        std::string ya = convert(thenBody, a, layout, inner);
        std::string yb = convert(elseBody, b, layout, inner);
        std::string name = fresh("r");
        out += indent + name + " = scf.if %c -> (" + scaleType(layout) +
               ") {\n" + thenBody + inner + "scf.yield " + ya + " : " +
               scaleType(layout) + "\n" + indent + "} else {\n" + elseBody +
               inner + "scf.yield " + yb + " : " + scaleType(layout) + "\n" +
               indent + "} " + tag(node) + "\n";
        visible.push_back({name, newValue(node, weight), layout});
      } else if (depth < 2) {
        // scf.for carrying a scale.
        const Scale init = visible[pick(visible.size())];
        int layout = pick(model.numLayouts);
        int node = newNode(false, layout);
        use(init, Model::Flow, node);
        std::string iterName = fresh("it");
        std::string initName = convert(out, init, layout, indent);
        std::vector<Scale> inner = visible;
        inner.push_back({iterName, newValue(node, weight * 8), layout});
        std::string body;
        std::string innerIndent = indent + "  ";
        block(body, inner, innerIndent, depth + 1);
        const Scale &yielded = inner[pick(inner.size())];
        use(yielded, Model::Flow, node);
        std::string y = convert(body, yielded, layout, innerIndent);
        std::string name = fresh("r");
        out += indent + name + " = scf.for %i" + std::to_string(counter++) +
               " = %c0 to %c2 step %c1 iter_args(" + iterName + " = " +
               initName + ") -> (" + scaleType(layout) + ") {\n" + body +
               innerIndent + "scf.yield " + y + " : " + scaleType(layout) +
               "\n" + indent + "} " + tag(node) + "\n";
        visible.push_back({name, newValue(node, weight), layout});
      }
    }
  }

  std::mt19937 rng;
  bool fuse;
  bool v2;
  std::string mText;
  std::string args;
  int counter = 0;
};

class PropagateRandomTest : public ::testing::TestWithParam<unsigned> {
protected:
  PropagateRandomTest() {
    // The carrier models, as registerFp8qDialects adds them.
    DialectRegistry registry;
    fp8q::registerScaleLayoutCarrierExternalModels(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadDialect<fp8q::Fp8qDialect, func::FuncDialect, scf::SCFDialect,
                    arith::ArithDialect, tensor::TensorDialect>();
    ctx.allowUnregisteredDialects();
    // Remarks name every materialization; they are checked by lit tests.
    ctx.getDiagEngine().registerHandler([](Diagnostic &diag) {
      return success(diag.getSeverity() == DiagnosticSeverity::Remark);
    });
  }

  std::string run(ModuleOp module, bool fuse) {
    PassManager pm(&ctx);
    fp8q::PropagateScaleLayoutOptions options;
    options.fuseProducers = fuse;
    pm.addPass(fp8q::createPropagateScaleLayout(options));
    EXPECT_TRUE(succeeded(pm.run(module)));
    EXPECT_TRUE(succeeded(verify(module)));
    return print(module);
  }

  static std::string print(ModuleOp module) {
    std::string text;
    llvm::raw_string_ostream os(text);
    module.print(os);
    return text;
  }

  static fp8q::ScaleLayoutPlanSummary summarizeInPlace(ModuleOp module,
                                                       bool fuse) {
    fp8q::ScaleLayoutAnalysis analysis(module, fuse);
    return fp8q::summarizeScaleLayoutPlan(analysis.solveInPlace());
  }

  MLIRContext ctx;
};

TEST_P(PropagateRandomTest, MinimalContractsIdempotent) {
  unsigned seed = GetParam();
  bool fuse = seed % 2 == 0;
  bool v2 = seed % 3 == 1;
  Generator gen(seed, fuse, v2);
  std::string input = gen.generate();
  SCOPED_TRACE("seed " + std::to_string(seed) + " fuse " +
               std::to_string(fuse) + " v2 " + std::to_string(v2) + "\n" +
               input);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(input, &ctx);
  ASSERT_TRUE(module);
  // (d) Read-only mode changes nothing, and what it counts is what the
  // rewrite does (checked on a clone, then against the output's cost).
  std::string before = print(*module);
  fp8q::ScaleLayoutPlanSummary planned = summarizeInPlace(*module, fuse);
  EXPECT_EQ(print(*module), before);
  OwningOpRef<ModuleOp> clone = module->clone();
  fp8q::PropagationCounts applied = fp8q::propagateScaleLayouts(*clone, fuse);
  EXPECT_EQ(planned.materializations, int64_t(applied.remaining));
  EXPECT_EQ(planned.fusedProducers, int64_t(applied.fused));
  std::string once = run(*module, fuse);
  SCOPED_TRACE("after the pass:\n" + once);
  // FP8Q_RANDOM_DUMP_DIR=DIR writes each output to DIR/seed-N.mlir, for
  // comparing the pass's output before and after a change.
  if (const char *dir = std::getenv("FP8Q_RANDOM_DUMP_DIR")) {
    std::string path =
        std::string(dir) + "/seed-" + std::to_string(seed) + ".mlir";
    std::error_code ec;
    llvm::raw_fd_ostream file(path, ec);
    ASSERT_FALSE(ec) << path << ": " << ec.message();
    file << once;
  }

  // (a) Contracts hold.
  module->walk([&](fp8q::GemmOp gemm) {
    std::optional<fp8q::Kernel> kernel = gemm.getKernel();
    if (!kernel)
      return;
    auto type = cast<RankedTensorType>(gemm.getXScale().getType());
    EXPECT_TRUE(fp8q::scaleLayoutSatisfies(*kernel, fp8q::getScaleLayout(type),
                                           type.getShape()));
  });

  // (b) The cost of the output, read off the IR: materializations, those
  // between different bytes, those weighted by the loops around them (each
  // sits right after its value's definition), and the layout each free node
  // ended with. It must be the exhaustive minimum, and the model's cost of
  // the same assignment.
  const Model &model = gen.model;
  FullCost cost;
  std::vector<int> chosen;
  for (const Model::Node &node : model.nodes)
    chosen.push_back(node.layout);
  module->walk([&](Operation *op) {
    if (auto tag = op->getAttrOfType<IntegerAttr>("test.node")) {
      Value scale = op->getResult(isa<fp8q::QuantizeOp>(op) ? 1 : 0);
      chosen[tag.getInt()] = gen.layoutOf(scale.getType());
    }
    auto mat = dyn_cast<fp8q::MaterializeOp>(op);
    if (!mat)
      return;
    ++cost.materializations;
    int from = gen.layoutOf(mat.getScale().getType());
    int to = gen.layoutOf(mat.getResult().getType());
    ASSERT_GE(from, 0);
    ASSERT_GE(to, 0);
    if (model.same(from, to))
      return;
    int64_t weight = 1;
    for (Operation *parent = op->getParentOp(); parent;
         parent = parent->getParentOp())
      if (isa<scf::ForOp>(parent))
        weight *= 8;
    ++cost.copies;
    cost.weightedCopies += weight;
  });
  for (unsigned n = 0; n < model.nodes.size(); ++n) {
    ASSERT_GE(chosen[n], 0) << "node " << n;
    cost.churn += !model.nodes[n].pinned && chosen[n] != model.nodes[n].layout;
  }
  EXPECT_EQ(cost, model.minimum());
  EXPECT_EQ(cost, model.cost(chosen));
  int count = cost.materializations;
  EXPECT_EQ(planned.copies, cost.copies);
  // On the output, read-only mode sees its materializations as detached
  // ones: the same plan again, nothing left to fuse.
  fp8q::ScaleLayoutPlanSummary replanned = summarizeInPlace(*module, fuse);
  EXPECT_EQ(replanned.materializations, count);
  EXPECT_EQ(replanned.copies, cost.copies);
  EXPECT_EQ(replanned.fusedProducers, 0);

  // (c) A second run is a no-op: same IR, nothing inserted, removed or
  // retyped.
  fp8q::PropagationCounts again = fp8q::propagateScaleLayouts(*module, fuse);
  EXPECT_EQ(again.inserted, 0u);
  EXPECT_EQ(again.removed, 0u);
  EXPECT_EQ(again.fused, 0u);
  EXPECT_EQ(again.remaining, static_cast<unsigned>(count));
  EXPECT_EQ(print(*module), once);
}

std::vector<unsigned> seeds() {
  std::vector<unsigned> s;
  for (unsigned i = 0; i < 400; ++i)
    s.push_back(1000 + i * 7919);
  return s;
}

INSTANTIATE_TEST_SUITE_P(Seeds, PropagateRandomTest,
                         ::testing::ValuesIn(seeds()));

} // namespace
