//===- DecoderBuilder.cpp - fp8q IR for an MLA + MoE decoder --------------===//

#include "DecoderBuilderImpl.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace fp8q {
namespace modelgen {

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
                             StringRef name, Value bf16In) {
  if (keepsBf16(name)) {
    if (bf16In)
      return bf16Linear(bf16In, n, k, name);
    if (!hadError)
      emitError(loc(name))
          << "quantization_config.modules_to_not_convert keeps '" << layerPrefix
          << name
          << "' bf16, but the builder models it only as an FP8 linear layer; "
             "remove it from modules_to_not_convert";
    hadError = true;
  }
  checkLinear(name, n, k);
  Value w = parameter((name + ".weight").str(), {n, k}, fp8);
  Value ws = parameter((name + ".weight_scale_inv").str(),
                       weightScaleShape(n, k), scaleElt);
  // NVFP4: the product of the input's and the weight's global scales, one
  // rank-0 f32 per linear layer, computed once at load time as serving
  // stacks do (vLLM's `alpha = input_scale * weight_scale_2`).
  Value global;
  if (o.format == BlockFormat::NvFp4)
    global = parameter((name + ".alpha").str(), {}, b.getF32Type());
  return GemmOp::create(b, loc(name), act(n), q, s, w, ws, global,
                        KernelAttr());
}

Value DecoderBuilder::linearOf(Value x, int64_t n, int64_t k, StringRef name) {
  if (keepsBf16(name))
    return bf16Linear(x, n, k, name);
  auto [q, s] = quant(x, k, (name + "_quant").str());
  return linear(q, s, n, k, name);
}

Value DecoderBuilder::bf16Linear(Value x, int64_t n, int64_t k,
                                 StringRef name) {
  Location l = loc(name);
  // Not an FP8 boundary: the weight is kept [k, n] bf16 (transposed from the
  // checkpoint's [n, k]) and multiplied in a plain linalg.matmul.
  Value w = parameter((name + ".weight").str(), {k, n}, b.getBF16Type());
  if (cast<RankedTensorType>(x.getType()).getElementType() != b.getBF16Type())
    x = arith::TruncFOp::create(b, l, act(k), x);
  SmallVector<OpFoldResult> sizes{b.getIndexAttr(rows), b.getIndexAttr(n)};
  if (ShapedType::isDynamic(rows))
    sizes[0] = tensor::DimOp::create(b, l, x, 0).getResult();
  Value init = tensor::EmptyOp::create(b, l, sizes, b.getBF16Type());
  Value zero = arith::ConstantOp::create(b, l, b.getZeroAttr(b.getBF16Type()));
  Value filled =
      linalg::FillOp::create(b, l, ValueRange{zero}, ValueRange{init})
          .getResult(0);
  return linalg::MatmulOp::create(b, l, TypeRange{act(n)}, ValueRange{x, w},
                                  ValueRange{filled})
      .getResult(0);
}

std::pair<Value, Value> DecoderBuilder::rmsNormQuant(Value x, int64_t k,
                                                     StringRef name,
                                                     Value *unquantized) {
  // SPEC v2 formats: fp8q.rms_norm_quantize writes FP8 1x128 only; the
  // producer is a quantize of the norm's input (see DecoderOptions::format).
  if (o.format != BlockFormat::Fp8Block) {
    if (unquantized)
      *unquantized = x;
    return quant(x, k, name);
  }
  Value gamma = parameter((name + ".weight").str(), {k}, b.getBF16Type());
  auto op = RmsNormQuantizeOp::create(
      b, loc(name), fp8Act(k), scale(k), unquantized ? act(k) : Type(),
      /*residual_sum=*/Type(), x, gamma, /*residual=*/Value(),
      b.getF32FloatAttr(c.rmsNormEps), b.getI64IntegerAttr(kBlock),
      unquantized ? b.getUnitAttr() : UnitAttr());
  if (unquantized)
    *unquantized = op.getUnquantized();
  return {op.getQ(), op.getScale()};
}

std::pair<Value, Value> DecoderBuilder::quant(Value x, int64_t k,
                                              StringRef name) {
  if (o.format == BlockFormat::NvFp4 && !globalScale) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(entry);
    globalScale =
        entry->addArgument(RankedTensorType::get({}, b.getF32Type()),
                           NameLoc::get(b.getStringAttr("input_global_scale")));
  }
  Value global = o.format == BlockFormat::NvFp4 ? globalScale : Value();
  auto op = QuantizeOp::create(b, loc(name), fp8Act(k), scale(k), x,
                               /*silu_gate=*/Value(), global,
                               b.getI64IntegerAttr(group()),
                               /*scale_rounding=*/nullptr);
  return {op.getQ(), op.getScale()};
}

Value DecoderBuilder::slice(Value x, int64_t col, int64_t width,
                            StringRef name) {
  OpFoldResult sliceRows = b.getIndexAttr(rows);
  if (ShapedType::isDynamic(rows))
    sliceRows = tensor::DimOp::create(b, loc(name), x, 0).getResult();
  auto type = cast<RankedTensorType>(x.getType());
  return tensor::ExtractSliceOp::create(
      b, loc(name), RankedTensorType::get({rows, width}, type.getElementType()),
      x, ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(col)},
      ArrayRef<OpFoldResult>{sliceRows, b.getIndexAttr(width)},
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
  if (ShapedType::isDynamic(rows))
    dynamicSizes.push_back(tensor::DimOp::create(b, l, gate, 0));
  Value one = tensor::SplatOp::create(
      b, l, f32, arith::ConstantOp::create(b, l, b.getF32FloatAttr(1.0f)),
      dynamicSizes);
  Value expNeg = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, gate));
  Value silu = arith::DivFOp::create(b, l, gate,
                                     arith::AddFOp::create(b, l, one, expNeg));
  return arith::MulFOp::create(b, l, silu, up);
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

FlatSymbolRefAttr DecoderBuilder::tpGrid() {
  if (tpGridRef)
    return tpGridRef;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  shard::GridOp::create(b, NameLoc::get(b.getStringAttr("tp_grid")), "tp",
                        ArrayRef<int64_t>{o.tp});
  tpGridRef = FlatSymbolRefAttr::get(ctx, "tp");
  return tpGridRef;
}

/// The rows of `v`'s type times / divided by the ranks (dynamic stays
/// dynamic).
static RankedTensorType withRows(Value v, int64_t rows) {
  auto type = cast<RankedTensorType>(v.getType());
  return RankedTensorType::get({rows, type.getDimSize(1)},
                               type.getElementType(), type.getEncoding());
}

Value DecoderBuilder::allGatherRows(Value v, StringRef name) {
  int64_t m = cast<RankedTensorType>(v.getType()).getDimSize(0);
  int64_t gathered = ShapedType::isDynamic(m) ? m : m * o.tp;
  return shard::AllGatherOp::create(b, loc(name), withRows(v, gathered),
                                    tpGrid(), b.getDenseI16ArrayAttr({0}), v,
                                    b.getIndexAttr(0));
}

Value DecoderBuilder::reduceScatterRows(Value v, StringRef name) {
  int64_t m = cast<RankedTensorType>(v.getType()).getDimSize(0);
  int64_t kept = ShapedType::isDynamic(m) ? m : m / o.tp;
  return shard::ReduceScatterOp::create(
      b, loc(name), withRows(v, kept), tpGrid(), b.getDenseI16ArrayAttr({0}), v,
      shard::ReductionKindAttr::get(ctx, shard::ReductionKind::Sum),
      b.getIndexAttr(0));
}

OwningOpRef<ModuleOp> DecoderBuilder::build() {
  if (llvm::Error e = checkDecoderSize(c, o)) {
    emitError(NameLoc::get(b.getStringAttr("decoder")))
        << toString(std::move(e));
    return nullptr;
  }
  ctx->loadDialect<Fp8qDialect, arith::ArithDialect, func::FuncDialect,
                   linalg::LinalgDialect, math::MathDialect, scf::SCFDialect,
                   shard::ShardDialect, tensor::TensorDialect>();
  OwningOpRef<ModuleOp> owned =
      ModuleOp::create(NameLoc::get(b.getStringAttr("decoder")));
  module = *owned;
  if (failed(TargetAttr::verify([&] { return emitError(module.getLoc()); },
                                o.arch, o.rocm)))
    return nullptr;
  auto target = TargetAttr::get(ctx, o.arch, o.rocm);
  module->setAttr(TargetAttr::getModuleAttrName(), target);
  fp8 = getTargetFp8Type(target);
  scaleElt = b.getF32Type();
  switch (o.format) {
  case BlockFormat::Fp8Block:
    break;
  case BlockFormat::Fp8BlockE8M0:
  case BlockFormat::MxFp8:
    fp8 = b.getType<Float8E4M3FNType>();
    scaleElt = b.getType<Float8E8M0FNUType>();
    break;
  case BlockFormat::MxFp4:
    fp8 = b.getType<Float4E2M1FNType>();
    scaleElt = b.getType<Float8E8M0FNUType>();
    break;
  case BlockFormat::NvFp4:
    fp8 = b.getType<Float4E2M1FNType>();
    scaleElt = b.getType<Float8E4M3FNType>();
    break;
  }

  int64_t layers = o.numLayers > 0 ? o.numLayers : c.numHiddenLayers;
  if (c.numAttentionHeads % o.attentionTp() != 0) {
    emitError(module.getLoc())
        << "num_attention_heads = " << c.numAttentionHeads
        << " is not divisible by the tensor-parallel degree " << o.tp;
    return nullptr;
  }
  if (llvm::Error e = checkParallelism(c, o)) {
    emitError(module.getLoc()) << toString(std::move(e));
    return nullptr;
  }

  b.setInsertionPointToEnd(module.getBody());
  Location fnLoc = NameLoc::get(b.getStringAttr("decode_step"));
  auto fn =
      func::FuncOp::create(b, fnLoc, "decode_step", b.getFunctionType({}, {}));
  entry = fn.addEntryBlock();
  Value h = entry->addArgument(act(c.hiddenSize), fnLoc);
  b.setInsertionPointToStart(entry);

  // Loop mode repeats the tail of same-kind layers: the MoE layers, or every
  // layer of a dense-only family.
  int64_t loopStart = layers;
  if (o.layersAsLoop) {
    bool tailMoe = layers > 0 && c.isMoeLayer(layers - 1);
    if (tailMoe || !c.hasMoe) {
      loopStart = layers;
      while (loopStart > 0 && c.isMoeLayer(loopStart - 1) == tailMoe)
        --loopStart;
    }
  }
  for (int64_t l = 0; l < loopStart; ++l) {
    layerPrefix = llvm::formatv("layers.{0}.", l).str();
    h = layer(h, /*dense=*/!c.isMoeLayer(l));
  }
  if (loopStart < layers) {
    loopLayers = layers - loopStart;
    bool dense = !c.isMoeLayer(loopStart);
    Location l = NameLoc::get(
        b.getStringAttr(dense ? "layers.dense_loop" : "layers.moe_loop"));
    Value lb = arith::ConstantIndexOp::create(b, l, 0);
    Value ub = arith::ConstantIndexOp::create(b, l, loopLayers);
    Value step = arith::ConstantIndexOp::create(b, l, 1);
    auto loop = scf::ForOp::create(b, l, lb, ub, step, ValueRange{h});
    b.setInsertionPointToStart(loop.getBody());
    loopIndex = loop.getInductionVar();
    layerPrefix = "layers.i.";
    Value next = layer(loop.getRegionIterArgs()[0], dense);
    scf::YieldOp::create(b, l, next);
    b.setInsertionPointAfter(loop);
    loopIndex = {};
    h = loop.getResult(0);
  }
  layerPrefix.clear();
  func::ReturnOp::create(b, fnLoc, h);
  fn.setFunctionType(
      b.getFunctionType(entry->getArgumentTypes(), TypeRange{h.getType()}));
  if (hadError)
    return nullptr;
  return owned;
}

} // namespace modelgen

using namespace modelgen;

int64_t estimateDecoderOps(const ModelConfig &config,
                           const DecoderOptions &options) {
  // Ops and arguments per block, rounded up (an attention block with the
  // indexer, an expert with its activation and norm).
  constexpr int64_t kAttention = 30, kExpert = 20;
  int64_t layers =
      options.numLayers > 0 ? options.numLayers : config.numHiddenLayers;
  int64_t dense = 0, moe = 0;
  if (config.decoderSparseStep == 1 && config.mlpOnlyLayers.empty()) {
    dense =
        config.hasMoe ? std::min(config.firstKDenseReplace, layers) : layers;
    moe = layers - dense;
  } else {
    for (int64_t l = 0; l < layers; ++l)
      (config.isMoeLayer(l) ? moe : dense) += 1;
  }
  if (options.layersAsLoop) {
    if (config.hasMoe)
      moe = std::min<int64_t>(moe, 1);
    else
      dense = std::min<int64_t>(dense, 1);
  }
  int64_t experts =
      (config.nSharedExperts > 0 ? 1 : 0) + config.numExpertsPerTok;
  return dense * (kAttention + kExpert) +
         moe * (kAttention + experts * kExpert);
}

llvm::Error checkParallelism(const ModelConfig &c,
                             const DecoderOptions &options) {
  auto error = [](const Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  };
  int64_t tp = options.tp, ep = options.ep;
  if (ep < 1 || ep > kMaxTensorParallel)
    return error(
        llvm::formatv("expert-parallel degree {0} is out of range [1, {1}]", ep,
                      kMaxTensorParallel));
  if (ep > 1 && !c.hasMoe)
    return error(llvm::formatv("--ep={0}: model_type '{1}' has no routed "
                               "experts to distribute; drop --ep",
                               ep, c.modelType));
  if (ep > 1 && c.nRoutedExperts % ep != 0)
    return error(llvm::formatv(
        "--ep={0} does not divide {1} = {2}: expert parallelism gives every "
        "rank whole experts; pick a divisor of {2}",
        ep, c.expertsField, c.nRoutedExperts));
  if (options.dpAttention && (options.format == BlockFormat::MxFp4 ||
                              options.format == BlockFormat::NvFp4))
    return error("--dp-attention gathers the quantized activation, and "
                 "packed f4E2M1FN codes are not gathered: use an FP8 format "
                 "(fp8, ue8m0, mxfp8) with --dp-attention");
  // Under --dp-attention attention keeps whole heads (nothing to split).
  if (c.attention == AttentionKind::GQA && !options.dpAttention) {
    int64_t kv = c.numKeyValueHeads;
    if (kv % tp != 0 && tp % kv != 0)
      return error(llvm::formatv(
          "num_key_value_heads = {0} and the tensor-parallel degree {1}: "
          "one must divide the other (KV heads are split, or replicated when "
          "--tp exceeds them)",
          kv, tp));
  }
  // TP splits the routed experts' intermediate unless they are whole.
  bool whole = c.routedExpertsWhole || ep > 1;
  if (c.hasMoe && c.nRoutedExperts > 0 && !whole && tp > 1) {
    int64_t width = c.moeIntermediateSize;
    if (width % tp != 0 || (width / tp) % kBlock != 0) {
      std::string hint;
      int64_t suggest = tp;
      while (suggest > 1 && c.nRoutedExperts % suggest != 0)
        --suggest;
      return error(llvm::formatv(
          "--tp={0} cuts each routed expert's {1} = {2} to {3} per rank, not "
          "a multiple of the {4}-wide weight block; serve the experts "
          "expert-parallel instead: pass --ep={5} ({6} = {7}, {8} whole "
          "experts per rank)",
          tp,
          c.hasMoe && c.intermediateSize == 0 ? "intermediate_size"
                                              : "moe_intermediate_size",
          width,
          width % tp == 0 ? std::to_string(width / tp)
                          : llvm::formatv("{0}/{1}", width, tp).str(),
          kBlock, suggest, c.expertsField, c.nRoutedExperts,
          c.nRoutedExperts / suggest));
    }
  }
  return llvm::Error::success();
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

std::optional<BlockFormat> parseBlockFormatOption(StringRef text) {
  return llvm::StringSwitch<std::optional<BlockFormat>>(text)
      .Case("fp8", BlockFormat::Fp8Block)
      .Case("ue8m0", BlockFormat::Fp8BlockE8M0)
      .Case("mxfp8", BlockFormat::MxFp8)
      .Case("mxfp4", BlockFormat::MxFp4)
      .Case("nvfp4", BlockFormat::NvFp4)
      .Default(std::nullopt);
}

OwningOpRef<ModuleOp> buildDecoderModule(MLIRContext *ctx,
                                         const ModelConfig &config,
                                         const DecoderOptions &options) {
  return modelgen::DecoderBuilder(ctx, config, options).build();
}

} // namespace fp8q
