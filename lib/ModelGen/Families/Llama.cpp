//===- Llama.cpp - llama: GQA + dense SwiGLU MLP --------------------------===//
//
// Llama 3.x: q_proj / k_proj / v_proj / o_proj without q/k norms, a dense
// gate_up + down MLP in every layer.
//
//===----------------------------------------------------------------------===//

#include "../ConfigReader.h"

namespace fp8q {
namespace modelgen {
namespace {
constexpr StringRef kTypes[] = {"llama"};
constexpr std::pair<StringRef, StringRef> kArchs[] = {
    {"LlamaForCausalLM", "llama"}};

Error read(FieldReader &r, ModelConfig &c, StringRef fileName) {
  if (Error e = readGqaAttention(r, c, fileName))
    return e;
  c.hasMoe = false;
  r.required("intermediate_size", c.intermediateSize, kMaxWidth);
  return Error::success();
}
} // namespace

const Family kLlamaFamily{kTypes, kArchs, read};

} // namespace modelgen
} // namespace fp8q
