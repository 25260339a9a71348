//===- Mlp.cpp - Dense and MoE MLP blocks --------------------------------===//
//
// The post-attention RMSNorm+quant, the tensor-parallel handoff of the
// pre-quantized pair (under --dp-attention an all-gather of it, and a
// reduce-scatter of the MLP's output), then a dense SwiGLU MLP (gate_up + down)
// or an MoE block: shared experts (split by --tp) and the top-k routed experts
// (whole per rank for the MLA families or under --ep, else split by --tp).
//
//===----------------------------------------------------------------------===//

#include "DecoderBuilderImpl.h"

#include "llvm/Support/FormatVariadic.h"

namespace fp8q {
namespace modelgen {

Value DecoderBuilder::mlpBlock(Value h, bool dense) {
  int64_t hidden = c.hiddenSize;
  // modules_to_not_convert may keep some gate_up_proj bf16: they read the
  // normalized activation before quantization.
  auto gateUpName = [](StringRef expert) {
    return (expert + ".gate_up_proj").str();
  };
  bool anyBf16 = false;
  if (!c.modulesToNotConvert.empty()) {
    anyBf16 = dense ? keepsBf16(gateUpName("mlp"))
                    : keepsBf16(gateUpName("mlp.shared_experts"));
    for (int64_t e = 0; !dense && e < c.numExpertsPerTok; ++e)
      anyBf16 |=
          keepsBf16(gateUpName(llvm::formatv("mlp.experts.{0}", e).str()));
  }
  Value q, s, normed;
  std::tie(q, s) = rmsNormQuant(h, hidden, "post_attention_layernorm",
                                anyBf16 ? &normed : nullptr);
  // --dp-attention: every rank's (q, scale) pair, and the bf16 input of the
  // layers kept out of FP8, gathered for the tensor-parallel MLP; its rows
  // are all ranks' tokens until the output is reduce-scattered back.
  int64_t saved = rows;
  if (o.dpAttention) {
    q = allGatherRows(q, "mlp_all_gather_q");
    s = allGatherRows(s, "mlp_all_gather_scale");
    if (normed)
      normed = allGatherRows(normed, "mlp_all_gather_normed");
    rows = cast<RankedTensorType>(q.getType()).getDimSize(0);
  } else if (o.tp > 1) {
    auto call =
        func::CallOp::create(b, loc("tp_handoff"), handoff(), ValueRange{q, s});
    q = call.getResult(0);
    s = call.getResult(1);
  }
  // The MLP's output back on this rank's tokens before the residual add.
  auto residual = [&](Value out) {
    if (o.dpAttention) {
      out = reduceScatterRows(out, "mlp_reduce_scatter");
      rows = saved;
    }
    return add(h, out, "mlp_residual");
  };
  auto expert = [&](int64_t width, StringRef name) {
    Value gateUp = linear(q, s, 2 * width, hidden, gateUpName(name), normed);
    Value a = gatedActivation(gateUp, width, (name + ".act").str());
    std::string down = (name + ".down_proj").str();
    if (keepsBf16(down))
      return bf16Linear(a, hidden, width, down);
    auto [qa, sa] = quant(a, width, (name + ".down_proj_quant").str());
    return linear(qa, sa, hidden, width, down);
  };
  if (dense)
    return residual(expert(c.intermediateSize / o.tp, "mlp"));
  Value sum;
  auto accumulate = [&](Value v) { sum = sum ? add(sum, v, "moe_sum") : v; };
  if (c.nSharedExperts > 0) {
    // Under --ep a shared expert that --tp would cut off the 128-wide block
    // (GLM-4.5 at TP 8: 1536 / 8) is replicated whole on every rank.
    int64_t shared = c.nSharedExperts * c.moeIntermediateSize;
    bool replicate = !c.routedExpertsWhole && o.ep > 1 &&
                     (shared % o.tp != 0 || (shared / o.tp) % kBlock != 0);
    accumulate(
        expert(replicate ? shared : shared / o.tp, "mlp.shared_experts"));
  }
  // The routed experts active for this step (top-k): whole per rank when
  // expert-parallel, else each split by the tensor-parallel degree.
  bool whole = c.routedExpertsWhole || o.ep > 1;
  int64_t width = whole ? c.moeIntermediateSize : c.moeIntermediateSize / o.tp;
  for (int64_t e = 0; e < c.numExpertsPerTok; ++e)
    accumulate(expert(width, llvm::formatv("mlp.experts.{0}", e).str()));
  if (!sum) {
    rows = saved;
    return h;
  }
  return residual(sum);
}

} // namespace modelgen
} // namespace fp8q
