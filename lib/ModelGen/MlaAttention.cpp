//===- MlaAttention.cpp - MLA attention projections ----------------------===//
//
// DeepSeek-V3-style multi-head latent attention: fused q_a/kv_a (or q_proj
// and kv_a_proj_with_mqa without q LoRA), q_b, kv_b, the sparse-attention
// indexer's projections, o_proj.
//
//===----------------------------------------------------------------------===//

#include "DecoderBuilderImpl.h"

namespace fp8q {
namespace modelgen {

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

Value DecoderBuilder::mlaAttentionBlock(Value h) {
  int64_t hidden = c.hiddenSize, heads = c.numAttentionHeads / o.attentionTp();
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

} // namespace modelgen
} // namespace fp8q
