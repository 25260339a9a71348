//===- GqaAttention.cpp - Grouped-query attention projections ------------===//
//
// input_layernorm (RMSNorm+quant), then q_proj / k_proj / v_proj as the
// llama, qwen3, qwen3_moe, glm4_moe and minimax_m2 checkpoints name them (or
// one fused qkv_proj where a checkpoint has it), the attention stand-in with
// the q/k RMS-norm weights where the family has them, o_proj (quant + FP8
// GEMM) and the residual add. Per rank: num_attention_heads / tp query heads
// and num_key_value_heads / tp KV heads, replicated to one when --tp exceeds
// them, as serving stacks do.
//
//===----------------------------------------------------------------------===//

#include "DecoderBuilderImpl.h"

namespace fp8q {
namespace modelgen {

func::FuncOp DecoderBuilder::gqaAttentionCore(TypeRange argTypes,
                                              Type resultType) {
  if (attentionCoreFn)
    return attentionCoreFn;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  Location l = NameLoc::get(b.getStringAttr("attention_core"));
  attentionCoreFn = func::FuncOp::create(
      b, l, "attention_core", b.getFunctionType(argTypes, resultType));
  attentionCoreFn.setPrivate();
  // Stand-in for the (non-FP8) attention kernel, q/k norms and RoPE
  // included: it keeps q, k and v live and returns q's shape, k + v written
  // over its first KV columns.
  Block *body = attentionCoreFn.addEntryBlock();
  b.setInsertionPointToStart(body);
  std::string saved = std::exchange(layerPrefix, "attention_core.");
  Value q = body->getArgument(0);
  Value kv = add(body->getArgument(1), body->getArgument(2), "kv");
  auto kvType = cast<RankedTensorType>(kv.getType());
  OpFoldResult rows = b.getIndexAttr(o.tokens);
  if (ShapedType::isDynamic(o.tokens))
    rows = tensor::DimOp::create(b, l, kv, 0).getResult();
  Value out = tensor::InsertSliceOp::create(
      b, l, kv, q, ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{rows, b.getIndexAttr(kvType.getDimSize(1))},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
  func::ReturnOp::create(b, l, out);
  layerPrefix = saved;
  return attentionCoreFn;
}

Value DecoderBuilder::gqaAttentionBlock(Value h) {
  int64_t hidden = c.hiddenSize, hd = c.headDim;
  int64_t heads = c.numAttentionHeads / o.attentionTp();
  int64_t kvHeads = std::max<int64_t>(1, c.numKeyValueHeads / o.attentionTp());
  int64_t qWidth = heads * hd, kvWidth = kvHeads * hd;
  StringRef names[] = {"self_attn.q_proj", "self_attn.k_proj",
                       "self_attn.v_proj", "self_attn.qkv_proj"};
  bool anyBf16 = false;
  for (StringRef n : names)
    anyBf16 |= keepsBf16(n);
  Value normed;
  auto [q0, s0] =
      rmsNormQuant(h, hidden, "input_layernorm", anyBf16 ? &normed : nullptr);
  Value q, k, v;
  if (c.fusedQkv) {
    Value qkv = linear(q0, s0, qWidth + 2 * kvWidth, hidden,
                       "self_attn.qkv_proj", normed);
    q = slice(qkv, 0, qWidth, "self_attn.q_slice");
    k = slice(qkv, qWidth, kvWidth, "self_attn.k_slice");
    v = slice(qkv, qWidth + kvWidth, kvWidth, "self_attn.v_slice");
  } else {
    q = linear(q0, s0, qWidth, hidden, "self_attn.q_proj", normed);
    k = linear(q0, s0, kvWidth, hidden, "self_attn.k_proj", normed);
    v = linear(q0, s0, kvWidth, hidden, "self_attn.v_proj", normed);
  }
  SmallVector<Value> coreArgs{q, k, v};
  if (c.qkNorm) {
    // Per-head RMSNorm weights of q and k, applied inside attention in bf16:
    // no FP8 boundary.
    coreArgs.push_back(
        parameter("self_attn.q_norm.weight", {hd}, b.getBF16Type()));
    coreArgs.push_back(
        parameter("self_attn.k_norm.weight", {hd}, b.getBF16Type()));
  }
  func::FuncOp core =
      gqaAttentionCore(ValueRange(coreArgs).getTypes(), act(qWidth));
  Value attn =
      func::CallOp::create(b, loc("self_attn.attention_core"), core, coreArgs)
          .getResult(0);
  Value out = linearOf(attn, hidden, qWidth, "self_attn.o_proj");
  return add(h, out, "attn_residual");
}

} // namespace modelgen
} // namespace fp8q
