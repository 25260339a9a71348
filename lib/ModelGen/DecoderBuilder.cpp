//===- DecoderBuilder.cpp - fp8q IR for an MLA + MoE decoder --------------===//

#include "fp8q/ModelGen/DecoderBuilder.h"
#include "fp8q/Dialect/IR/Fp8qDialect.h"
#include "fp8q/Target/KernelContracts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace fp8q {
namespace {

/// Weight and scale block width along N and K.
constexpr int64_t kBlock = FP8Q_SCALE_BLOCK;

/// Builds one decode step into a module. Weights, weight scales and norm
/// weights become arguments of the public @decode_step (or, in loop mode,
/// stacked arguments sliced per layer), added as they are first needed.
class DecoderBuilder {
public:
  DecoderBuilder(MLIRContext *ctx, const ModelConfig &config,
                 const DecoderOptions &options)
      : ctx(ctx), b(ctx), c(config), o(options) {}

  OwningOpRef<ModuleOp> build();

private:
  // Types.
  RankedTensorType act(int64_t k, Type elt = {}) {
    return RankedTensorType::get({o.tokens, k}, elt ? elt : b.getBF16Type());
  }
  RankedTensorType fp8Act(int64_t k) {
    return RankedTensorType::get({o.tokens, k}, fp8);
  }
  RankedTensorType scale(int64_t k) {
    return RankedTensorType::get({o.tokens, k / kBlock}, b.getF32Type());
  }
  Location loc(const Twine &name) {
    return NameLoc::get(b.getStringAttr(layerPrefix + name));
  }

  /// An argument of @decode_step of type [n, k] (or [layers, n, k] sliced at
  /// the loop index in loop mode), keyed by `name` within the layer.
  Value parameter(StringRef name, ArrayRef<int64_t> shape, Type elt);

  /// Checks the shape rules of one linear layer; false after a diagnostic.
  bool checkLinear(StringRef name, int64_t n, int64_t k);

  /// q [M, k], scale [M, k/128] -> bf16 [M, n] through an FP8 weight [n, k].
  Value linear(Value q, Value s, int64_t n, int64_t k, StringRef name);

  std::pair<Value, Value> rmsNormQuant(Value x, int64_t k, StringRef name,
                                       Value *unquantized = nullptr);
  std::pair<Value, Value> quant(Value x, int64_t k, StringRef name);
  Value slice(Value x, int64_t col, int64_t width, StringRef name);
  /// SiLU(gate) * up in f32 over the two halves of a gate_up output.
  Value gatedActivation(Value gateUp, int64_t width, StringRef name);
  Value add(Value a, Value bValue, StringRef name) {
    return arith::AddFOp::create(b, loc(name), a, bValue);
  }

  Value attentionBlock(Value h);
  Value mlpBlock(Value h, bool dense);
  Value layer(Value h, bool dense) {
    return mlpBlock(attentionBlock(h), dense);
  }

  func::FuncOp attentionCore(TypeRange argTypes, Type resultType);
  func::FuncOp handoff();

  MLIRContext *ctx;
  OpBuilder b;
  const ModelConfig &c;
  const DecoderOptions &o;
  Type fp8;
  ModuleOp module;
  Block *entry = nullptr;
  std::string layerPrefix;
  bool hadError = false;
  // Loop mode: the induction variable and the stacked arguments.
  Value loopIndex;
  int64_t loopLayers = 0;
  llvm::StringMap<Value> stacked;
  func::FuncOp attentionCoreFn, handoffFn;
};

Value DecoderBuilder::parameter(StringRef name, ArrayRef<int64_t> shape,
                                Type elt) {
  if (!loopIndex)
    return entry->addArgument(RankedTensorType::get(shape, elt), loc(name));
  Value &whole = stacked[name];
  if (!whole) {
    SmallVector<int64_t> stackedShape{loopLayers};
    stackedShape.append(shape.begin(), shape.end());
    whole = entry->addArgument(
        RankedTensorType::get(stackedShape, elt),
        NameLoc::get(b.getStringAttr("layers.stacked." + name)));
  }
  SmallVector<OpFoldResult> offsets{loopIndex}, sizes{b.getIndexAttr(1)},
      strides(shape.size() + 1, b.getIndexAttr(1));
  for (int64_t d : shape) {
    offsets.push_back(b.getIndexAttr(0));
    sizes.push_back(b.getIndexAttr(d));
  }
  return tensor::ExtractSliceOp::create(b, loc(name),
                                        RankedTensorType::get(shape, elt),
                                        whole, offsets, sizes, strides);
}

bool DecoderBuilder::checkLinear(StringRef name, int64_t n, int64_t k) {
  if (k % kBlock == 0 && k > 0 && n > 0 && n <= kMaxLinearWidth &&
      k <= kMaxLinearWidth)
    return true;
  if (!hadError) {
    InFlightDiagnostic diag = emitError(loc(name));
    diag << "linear layer '" << layerPrefix << name << "' has K = " << k
         << " (N = " << n << "); fp8q needs ";
    if (k % kBlock == 0 && k > 0 && n > 0)
      diag << "N and K of at most " << kMaxLinearWidth;
    else
      diag << "K to be a positive multiple of " << kBlock;
    diag << " at tensor-parallel degree " << o.tp;
  }
  hadError = true;
  return false;
}

Value DecoderBuilder::linear(Value q, Value s, int64_t n, int64_t k,
                             StringRef name) {
  checkLinear(name, n, k);
  Value w = parameter((name + ".weight").str(), {n, k}, fp8);
  Value ws = parameter((name + ".weight_scale_inv").str(),
                       {llvm::divideCeilSigned(n, kBlock), k / kBlock},
                       b.getF32Type());
  return GemmOp::create(b, loc(name), act(n), q, s, w, ws, KernelAttr());
}

std::pair<Value, Value> DecoderBuilder::rmsNormQuant(Value x, int64_t k,
                                                     StringRef name,
                                                     Value *unquantized) {
  Value gamma = parameter((name + ".weight").str(), {k}, b.getBF16Type());
  SmallVector<Type> results{fp8Act(k), scale(k)};
  if (unquantized)
    results.push_back(act(k));
  auto op = RmsNormQuantizeOp::create(
      b, loc(name), results, x, gamma, b.getF32FloatAttr(c.rmsNormEps),
      b.getI64IntegerAttr(kBlock), unquantized ? b.getUnitAttr() : UnitAttr());
  if (unquantized)
    *unquantized = op.getUnquantized();
  return {op.getQ(), op.getScale()};
}

std::pair<Value, Value> DecoderBuilder::quant(Value x, int64_t k,
                                              StringRef name) {
  auto op =
      QuantizeOp::create(b, loc(name), fp8Act(k), scale(k), x,
                         /*global_scale=*/Value(), b.getI64IntegerAttr(kBlock),
                         /*scale_rounding=*/nullptr);
  return {op.getQ(), op.getScale()};
}

Value DecoderBuilder::slice(Value x, int64_t col, int64_t width,
                            StringRef name) {
  OpFoldResult rows = b.getIndexAttr(o.tokens);
  if (ShapedType::isDynamic(o.tokens))
    rows = tensor::DimOp::create(b, loc(name), x, 0).getResult();
  auto type = cast<RankedTensorType>(x.getType());
  return tensor::ExtractSliceOp::create(
      b, loc(name),
      RankedTensorType::get({o.tokens, width}, type.getElementType()), x,
      ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(col)},
      ArrayRef<OpFoldResult>{rows, b.getIndexAttr(width)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
}

Value DecoderBuilder::gatedActivation(Value gateUp, int64_t width,
                                      StringRef name) {
  Location l = loc(name);
  RankedTensorType f32 = act(width, b.getF32Type());
  Value gate = arith::ExtFOp::create(b, l, f32, slice(gateUp, 0, width, name));
  Value up =
      arith::ExtFOp::create(b, l, f32, slice(gateUp, width, width, name));
  // SiLU(g) = g / (1 + exp(-g)).
  SmallVector<Value> dynamicSizes;
  if (ShapedType::isDynamic(o.tokens))
    dynamicSizes.push_back(tensor::DimOp::create(b, l, gate, 0));
  Value one = tensor::SplatOp::create(
      b, l, f32, arith::ConstantOp::create(b, l, b.getF32FloatAttr(1.0f)),
      dynamicSizes);
  Value expNeg = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, gate));
  Value silu = arith::DivFOp::create(b, l, gate,
                                     arith::AddFOp::create(b, l, one, expNeg));
  return arith::MulFOp::create(b, l, silu, up);
}

func::FuncOp DecoderBuilder::attentionCore(TypeRange argTypes,
                                           Type resultType) {
  if (attentionCoreFn)
    return attentionCoreFn;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  Location l = NameLoc::get(b.getStringAttr("attention_core"));
  attentionCoreFn = func::FuncOp::create(
      b, l, "attention_core", b.getFunctionType(argTypes, resultType));
  attentionCoreFn.setPrivate();
  // Stand-in for the (non-FP8) attention kernel: it keeps the projections
  // live and produces an output of the right shape from q_b and kv_b.
  Block *body = attentionCoreFn.addEntryBlock();
  b.setInsertionPointToStart(body);
  std::string saved = std::exchange(layerPrefix, "attention_core.");
  int64_t width = cast<RankedTensorType>(resultType).getDimSize(1);
  Value out = add(slice(body->getArgument(0), 0, width, "q"),
                  slice(body->getArgument(1), 0, width, "kv"), "sum");
  func::ReturnOp::create(b, l, out);
  layerPrefix = saved;
  return attentionCoreFn;
}

func::FuncOp DecoderBuilder::handoff() {
  if (handoffFn)
    return handoffFn;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  Location l = NameLoc::get(b.getStringAttr("tp_handoff"));
  Type q = fp8Act(c.hiddenSize), s = scale(c.hiddenSize);
  // The communicator hands a pre-quantized (fp8, scale) pair between
  // tensor-parallel ranks; private, so its scale layout follows its users.
  handoffFn = func::FuncOp::create(b, l, "tp_handoff",
                                   b.getFunctionType({q, s}, {q, s}));
  handoffFn.setPrivate();
  Block *body = handoffFn.addEntryBlock();
  b.setInsertionPointToStart(body);
  func::ReturnOp::create(b, l, body->getArguments());
  return handoffFn;
}

Value DecoderBuilder::attentionBlock(Value h) {
  int64_t hidden = c.hiddenSize, heads = c.numAttentionHeads / o.tp;
  int64_t qkHead = c.qkNopeHeadDim + c.qkRopeHeadDim;
  Value kvLatent;
  auto [q0, s0] = rmsNormQuant(h, hidden, "input_layernorm");
  Value qb, indexQ, indexK;
  if (c.qLoraRank) {
    int64_t qLora = *c.qLoraRank;
    Value a = linear(q0, s0, qLora + c.kvLoraRank + c.qkRopeHeadDim, hidden,
                     "self_attn.fused_qkv_a_proj");
    kvLatent = slice(a, qLora, c.kvLoraRank, "self_attn.kv_a_slice");
    auto [q1, s1] = rmsNormQuant(slice(a, 0, qLora, "self_attn.q_a_slice"),
                                 qLora, "self_attn.q_a_layernorm");
    qb = linear(q1, s1, heads * qkHead, qLora, "self_attn.q_b_proj");
    if (c.indexNHeads) {
      indexQ = linear(q1, s1, *c.indexNHeads * *c.indexHeadDim, qLora,
                      "self_attn.indexer.wq_b");
      indexK = linear(q0, s0, *c.indexHeadDim, hidden, "self_attn.indexer.wk");
    }
  } else {
    Value a = linear(q0, s0, c.kvLoraRank + c.qkRopeHeadDim, hidden,
                     "self_attn.kv_a_proj_with_mqa");
    kvLatent = slice(a, 0, c.kvLoraRank, "self_attn.kv_a_slice");
    qb = linear(q0, s0, heads * qkHead, hidden, "self_attn.q_proj");
    if (c.indexNHeads) {
      indexQ = linear(q0, s0, *c.indexNHeads * *c.indexHeadDim, hidden,
                      "self_attn.indexer.wq");
      indexK = linear(q0, s0, *c.indexHeadDim, hidden, "self_attn.indexer.wk");
    }
  }
  // The normalized latent also goes to the KV cache unquantized.
  Value kvCache;
  auto [q2, s2] = rmsNormQuant(kvLatent, c.kvLoraRank,
                               "self_attn.kv_a_layernorm", &kvCache);
  Value kvb = linear(q2, s2, heads * (c.qkNopeHeadDim + c.vHeadDim),
                     c.kvLoraRank, "self_attn.kv_b_proj");

  int64_t attnWidth = heads * c.vHeadDim;
  SmallVector<Value> coreArgs{qb, kvb, kvCache};
  if (indexQ)
    coreArgs.append({indexQ, indexK});
  func::FuncOp core =
      attentionCore(ValueRange(coreArgs).getTypes(), act(attnWidth));
  Value attn =
      func::CallOp::create(b, loc("self_attn.attention_core"), core, coreArgs)
          .getResult(0);
  auto [qo, so] = quant(attn, attnWidth, "self_attn.o_proj_quant");
  Value out = linear(qo, so, hidden, attnWidth, "self_attn.o_proj");
  return add(h, out, "attn_residual");
}

Value DecoderBuilder::mlpBlock(Value h, bool dense) {
  int64_t hidden = c.hiddenSize;
  Value q, s;
  std::tie(q, s) = rmsNormQuant(h, hidden, "post_attention_layernorm");
  if (o.tp > 1) {
    auto call =
        func::CallOp::create(b, loc("tp_handoff"), handoff(), ValueRange{q, s});
    q = call.getResult(0);
    s = call.getResult(1);
  }
  auto expert = [&](int64_t width, StringRef name) {
    Value gateUp =
        linear(q, s, 2 * width, hidden, (name + ".gate_up_proj").str());
    Value a = gatedActivation(gateUp, width, (name + ".act").str());
    auto [qa, sa] = quant(a, width, (name + ".down_proj_quant").str());
    return linear(qa, sa, hidden, width, (name + ".down_proj").str());
  };
  if (dense)
    return add(h, expert(c.intermediateSize / o.tp, "mlp"), "mlp_residual");
  Value sum;
  auto accumulate = [&](Value v) { sum = sum ? add(sum, v, "moe_sum") : v; };
  if (c.nSharedExperts > 0)
    accumulate(expert(c.nSharedExperts * c.moeIntermediateSize / o.tp,
                      "mlp.shared_experts"));
  // The routed experts active for this step (top-k), expert-parallel.
  for (int64_t e = 0; e < c.numExpertsPerTok; ++e)
    accumulate(expert(c.moeIntermediateSize,
                      llvm::formatv("mlp.experts.{0}", e).str()));
  return sum ? add(h, sum, "mlp_residual") : h;
}

OwningOpRef<ModuleOp> DecoderBuilder::build() {
  if (llvm::Error e = checkDecoderSize(c, o)) {
    emitError(NameLoc::get(b.getStringAttr("decoder")))
        << toString(std::move(e));
    return nullptr;
  }
  ctx->loadDialect<Fp8qDialect, arith::ArithDialect, func::FuncDialect,
                   math::MathDialect, scf::SCFDialect, tensor::TensorDialect>();
  OwningOpRef<ModuleOp> owned =
      ModuleOp::create(NameLoc::get(b.getStringAttr("decoder")));
  module = *owned;
  if (failed(TargetAttr::verify([&] { return emitError(module.getLoc()); },
                                o.arch, o.rocm)))
    return nullptr;
  auto target = TargetAttr::get(ctx, o.arch, o.rocm);
  module->setAttr(TargetAttr::getModuleAttrName(), target);
  fp8 = getTargetFp8Type(target);

  int64_t layers = o.numLayers > 0 ? o.numLayers : c.numHiddenLayers;
  int64_t dense = std::min(c.firstKDenseReplace, layers);
  if (c.numAttentionHeads % o.tp != 0) {
    emitError(module.getLoc())
        << "num_attention_heads = " << c.numAttentionHeads
        << " is not divisible by the tensor-parallel degree " << o.tp;
    return nullptr;
  }

  b.setInsertionPointToEnd(module.getBody());
  Location fnLoc = NameLoc::get(b.getStringAttr("decode_step"));
  auto fn =
      func::FuncOp::create(b, fnLoc, "decode_step", b.getFunctionType({}, {}));
  entry = fn.addEntryBlock();
  Value h = entry->addArgument(act(c.hiddenSize), fnLoc);
  b.setInsertionPointToStart(entry);

  for (int64_t l = 0; l < dense; ++l) {
    layerPrefix = llvm::formatv("layers.{0}.", l).str();
    h = layer(h, /*dense=*/true);
  }
  if (o.layersAsLoop && layers > dense) {
    loopLayers = layers - dense;
    Location l = NameLoc::get(b.getStringAttr("layers.moe_loop"));
    Value lb = arith::ConstantIndexOp::create(b, l, 0);
    Value ub = arith::ConstantIndexOp::create(b, l, loopLayers);
    Value step = arith::ConstantIndexOp::create(b, l, 1);
    auto loop = scf::ForOp::create(b, l, lb, ub, step, ValueRange{h});
    b.setInsertionPointToStart(loop.getBody());
    loopIndex = loop.getInductionVar();
    layerPrefix = "layers.i.";
    Value next = layer(loop.getRegionIterArgs()[0], /*dense=*/false);
    scf::YieldOp::create(b, l, next);
    b.setInsertionPointAfter(loop);
    loopIndex = {};
    h = loop.getResult(0);
  } else {
    for (int64_t l = dense; l < layers; ++l) {
      layerPrefix = llvm::formatv("layers.{0}.", l).str();
      h = layer(h, /*dense=*/false);
    }
  }
  layerPrefix.clear();
  func::ReturnOp::create(b, fnLoc, h);
  fn.setFunctionType(
      b.getFunctionType(entry->getArgumentTypes(), TypeRange{h.getType()}));
  if (hadError)
    return nullptr;
  return owned;
}

} // namespace

int64_t estimateDecoderOps(const ModelConfig &config,
                           const DecoderOptions &options) {
  // Ops and arguments per block, rounded up (an attention block with the
  // indexer, an expert with its activation and norm).
  constexpr int64_t kAttention = 30, kExpert = 20;
  int64_t layers =
      options.numLayers > 0 ? options.numLayers : config.numHiddenLayers;
  int64_t dense = std::min(config.firstKDenseReplace, layers);
  int64_t moe = layers - dense;
  if (options.layersAsLoop)
    moe = std::min<int64_t>(moe, 1);
  int64_t experts =
      (config.nSharedExperts > 0 ? 1 : 0) + config.numExpertsPerTok;
  return dense * (kAttention + kExpert) +
         moe * (kAttention + experts * kExpert);
}

llvm::Error checkDecoderSize(const ModelConfig &config,
                             const DecoderOptions &options) {
  auto error = [](const Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  };
  if (options.tp < 1 || options.tp > kMaxTensorParallel)
    return error(
        llvm::formatv("tensor-parallel degree {0} is out of range [1, {1}]",
                      options.tp, kMaxTensorParallel));
  if (!ShapedType::isDynamic(options.tokens) &&
      (options.tokens < 1 || options.tokens > kMaxTokens))
    return error(llvm::formatv("tokens per step {0} is out of range [1, {1}]",
                               options.tokens, kMaxTokens));
  if (options.numLayers < 0 || options.numLayers > kMaxLayers)
    return error(llvm::formatv("layer count {0} is out of range [0, {1}]",
                               options.numLayers, kMaxLayers));
  int64_t ops = estimateDecoderOps(config, options);
  if (ops <= kMaxDecoderOps)
    return llvm::Error::success();
  bool override = options.numLayers > 0;
  return error(llvm::formatv(
      "the decode step would have about {0} ops ({1} layers, {2} routed "
      "experts per token), more than the {3} fp8q-model-gen builds; lower {4} "
      "or num_experts_per_tok, or pass --layers-as-loop",
      ops, override ? options.numLayers : config.numHiddenLayers,
      config.numExpertsPerTok, kMaxDecoderOps,
      override ? "--layers" : "num_hidden_layers (or pass --layers)"));
}

OwningOpRef<ModuleOp> buildDecoderModule(MLIRContext *ctx,
                                         const ModelConfig &config,
                                         const DecoderOptions &options) {
  return DecoderBuilder(ctx, config, options).build();
}

} // namespace fp8q
