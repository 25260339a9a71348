//===- DecoderBuilderImpl.h - The decode-step builder ----------*- C++ -*-===//
//
// Private to lib/ModelGen. The builder's shared helpers (parameters,
// producers, FP8 and bf16 linear layers) live in DecoderBuilder.cpp; each
// block has its own file: MlaAttention.cpp, GqaAttention.cpp, Mlp.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_LIB_MODELGEN_DECODERBUILDERIMPL_H
#define FP8Q_LIB_MODELGEN_DECODERBUILDERIMPL_H

#include "fp8q/Dialect/IR/Fp8qDialect.h"
#include "fp8q/ModelGen/DecoderBuilder.h"
#include "fp8q/Target/KernelContracts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

namespace fp8q {
namespace modelgen {
using namespace mlir;

/// Weight and scale block width along N and K.
constexpr int64_t kBlock = FP8Q_SCALE_BLOCK;

/// Builds one decode step into a module. Weights, weight scales and norm
/// weights become arguments of the public @decode_step (or, in loop mode,
/// stacked arguments sliced per layer), added as they are first needed.
class DecoderBuilder {
public:
  DecoderBuilder(MLIRContext *ctx, const ModelConfig &config,
                 const DecoderOptions &options)
      : ctx(ctx), b(ctx), c(config), o(options), rows(options.tokens) {}

  OwningOpRef<ModuleOp> build();

  // Types.
  RankedTensorType act(int64_t k, Type elt = {}) {
    return RankedTensorType::get({rows, k}, elt ? elt : b.getBF16Type());
  }
  RankedTensorType fp8Act(int64_t k) {
    return RankedTensorType::get({rows, k}, fp8);
  }
  RankedTensorType scale(int64_t k) {
    return RankedTensorType::get({rows, k / group()}, scaleElt);
  }
  /// The quantization group along K of the format (128, 32 or 16).
  int64_t group() const {
    switch (o.format) {
    case BlockFormat::MxFp8:
    case BlockFormat::MxFp4:
      return 32;
    case BlockFormat::NvFp4:
      return 16;
    default:
      return kBlock;
    }
  }
  /// Shape of the weight scale of an [n, k] weight in the format.
  SmallVector<int64_t, 2> weightScaleShape(int64_t n, int64_t k) const {
    if (o.format == BlockFormat::Fp8Block)
      return {llvm::divideCeilSigned(n, kBlock), k / kBlock};
    return {n, k / group()};
  }
  Location loc(const Twine &name) {
    return NameLoc::get(b.getStringAttr(layerPrefix + name));
  }

  /// An argument of @decode_step of type [n, k] (or [layers, n, k] sliced at
  /// the loop index in loop mode), keyed by `name` within the layer.
  Value parameter(StringRef name, ArrayRef<int64_t> shape, Type elt);

  /// Checks the shape rules of one linear layer; false after a diagnostic.
  bool checkLinear(StringRef name, int64_t n, int64_t k);

  /// q [M, k], scale [M, k/128] -> bf16 [M, n] through an FP8 weight [n, k];
  /// a layer modules_to_not_convert keeps bf16 reads `bf16In` instead
  /// through a bf16 linalg.matmul (an error when there is none).
  Value linear(Value q, Value s, int64_t n, int64_t k, StringRef name,
               Value bf16In = {});
  /// bf16 x [M, k] -> [M, n] through quant + FP8 gemm, or through a bf16
  /// matmul when modules_to_not_convert keeps `name` bf16 (no producer).
  Value linearOf(Value x, int64_t n, int64_t k, StringRef name);
  /// x [M, k] @ w [k, n] in bf16: a layer kept out of FP8.
  Value bf16Linear(Value x, int64_t n, int64_t k, StringRef name);
  bool keepsBf16(StringRef name) const {
    return c.keepsBf16(layerPrefix + name.str());
  }

  std::pair<Value, Value> rmsNormQuant(Value x, int64_t k, StringRef name,
                                       Value *unquantized = nullptr);
  std::pair<Value, Value> quant(Value x, int64_t k, StringRef name);
  Value slice(Value x, int64_t col, int64_t width, StringRef name);
  /// SiLU(gate) * up in f32 over the two halves of a gate_up output.
  Value gatedActivation(Value gateUp, int64_t width, StringRef name);
  Value add(Value a, Value bValue, StringRef name) {
    return arith::AddFOp::create(b, loc(name), a, bValue);
  }

  /// MlaAttention.cpp.
  Value mlaAttentionBlock(Value h);
  /// GqaAttention.cpp.
  Value gqaAttentionBlock(Value h);
  /// Mlp.cpp: post-attention norm, TP handoff, dense or MoE MLP, residual.
  Value mlpBlock(Value h, bool dense);
  Value layer(Value h, bool dense) {
    Value a = c.attention == AttentionKind::MLA ? mlaAttentionBlock(h)
                                                : gqaAttentionBlock(h);
    return mlpBlock(a, dense);
  }

  /// The (non-FP8) attention kernel's stand-in, one per module.
  func::FuncOp attentionCore(TypeRange argTypes, Type resultType);
  /// The GQA form: (q, k, v[, q_norm, k_norm weights]) -> [M, heads*head_dim].
  func::FuncOp gqaAttentionCore(TypeRange argTypes, Type resultType);
  func::FuncOp handoff();
  /// --dp-attention: the one-axis grid @tp of the tensor-parallel ranks
  /// (shard.grid, created once), and the collectives along its rows:
  /// `v` [M, k] of every rank concatenated into [tp * M, k], and a bf16
  /// [tp * M, k] summed over the ranks with this rank's [M, k] block kept.
  FlatSymbolRefAttr tpGrid();
  Value allGatherRows(Value v, StringRef name);
  Value reduceScatterRows(Value v, StringRef name);

  MLIRContext *ctx;
  OpBuilder b;
  const ModelConfig &c;
  const DecoderOptions &o;
  /// Rows (M) of the activations being built: the step's tokens, or all
  /// ranks' tokens (tp * M) inside the MLP under --dp-attention.
  int64_t rows;
  /// The q / weight element type and the scale element type of the format.
  Type fp8, scaleElt;
  /// NVFP4's rank-0 f32 global scale, one argument of @decode_step.
  Value globalScale;
  ModuleOp module;
  Block *entry = nullptr;
  std::string layerPrefix;
  bool hadError = false;
  // Loop mode: the induction variable and the stacked arguments.
  Value loopIndex;
  int64_t loopLayers = 0;
  llvm::StringMap<Value> stacked;
  func::FuncOp attentionCoreFn, handoffFn;
  FlatSymbolRefAttr tpGridRef;
};

} // namespace modelgen
} // namespace fp8q

#endif // FP8Q_LIB_MODELGEN_DECODERBUILDERIMPL_H
