//===- ModelConfig.h - Decoder dimensions from a config.json ----*- C++ -*-===//
//
// The FP8 linear-layer dimensions of an MLA + MoE decoder (DeepSeek-V3 /
// V3.2, GLM-5 family), read from a Hugging Face `config.json` as published.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_MODELGEN_MODELCONFIG_H
#define FP8Q_MODELGEN_MODELCONFIG_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>

namespace fp8q {

/// The fields of config.json that shape the FP8 linear layers.
struct ModelConfig {
  int64_t hiddenSize = 0;
  int64_t numHiddenLayers = 0;
  int64_t numAttentionHeads = 0;
  /// Absent (null) for models whose q projection reads the hidden state.
  std::optional<int64_t> qLoraRank;
  int64_t kvLoraRank = 0;
  int64_t qkNopeHeadDim = 0;
  int64_t qkRopeHeadDim = 0;
  int64_t vHeadDim = 0;
  int64_t intermediateSize = 0;
  int64_t moeIntermediateSize = 0;
  int64_t nSharedExperts = 0;
  int64_t nRoutedExperts = 0;
  int64_t numExpertsPerTok = 0;
  int64_t firstKDenseReplace = 0;
  /// Sparse-attention indexer (DeepSeek-V3.2, GLM-5); absent otherwise.
  std::optional<int64_t> indexNHeads;
  std::optional<int64_t> indexHeadDim;
  /// quantization_config.weight_block_size; fp8q supports [128, 128].
  int64_t blockN = 128, blockK = 128;
  double rmsNormEps = 1e-6;
};

/// Parses and validates config.json text. Errors name the file and the
/// field (e.g. "glm5.json: field 'kv_lora_rank': missing").
llvm::Expected<ModelConfig> parseModelConfig(llvm::StringRef text,
                                             llvm::StringRef fileName);

} // namespace fp8q

#endif // FP8Q_MODELGEN_MODELCONFIG_H
