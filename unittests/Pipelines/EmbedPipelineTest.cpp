//===- EmbedPipelineTest.cpp - buildFp8qPipeline in a foreign compiler ----===//
//
// A compiler that embeds fp8q builds its own context: these tests give the
// pipeline a context holding only what registerFp8qPipelineDependencies
// adds (no registerAllDialects / registerAllExtensions, unlike fp8q-opt)
// and check that the bundled tiny model still lowers to the LLVM dialect
// with one runtime call per GEMM.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Dialect/IR/Fp8qDialect.h"
#include "fp8q/ModelGen/DecoderBuilder.h"
#include "fp8q/Pipelines/Pipelines.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

struct Lowered {
  int gemms = 0;
  int gemmCalls = 0;
  int materializeCalls = 0;
  /// Ops left outside the LLVM dialect (besides the module).
  int foreignOps = 0;
};

/// Builds the tiny model with `options` in a context made from
/// registerFp8qPipelineDependencies alone and runs the whole pipeline.
Lowered lowerTinyModel(const fp8q::DecoderOptions &options) {
  Lowered result;
  auto text =
      llvm::MemoryBuffer::getFile(FP8Q_EXAMPLES_DIR "/tiny/config.json");
  EXPECT_TRUE(bool(text)) << "cannot read examples/tiny/config.json";
  if (!text)
    return result;
  llvm::Expected<fp8q::ModelConfig> config =
      fp8q::parseModelConfig((*text)->getBuffer(), "tiny/config.json");
  EXPECT_TRUE(bool(config)) << llvm::toString(config.takeError());
  if (!config)
    return result;

  DialectRegistry registry;
  fp8q::registerFp8qPipelineDependencies(registry);
  MLIRContext ctx(registry);
  OwningOpRef<ModuleOp> module =
      fp8q::buildDecoderModule(&ctx, *config, options);
  EXPECT_TRUE(bool(module));
  if (!module)
    return result;
  module->walk([&](fp8q::GemmOp) { ++result.gemms; });

  PassManager pm(&ctx);
  fp8q::buildFp8qPipeline(pm, fp8q::Fp8qPipelineOptions());
  EXPECT_TRUE(succeeded(pm.run(*module)));

  module->walk([&](Operation *op) {
    if (auto call = dyn_cast<LLVM::CallOp>(op)) {
      std::optional<StringRef> callee = call.getCallee();
      if (callee == "fp8q_rt_gemm")
        ++result.gemmCalls;
      else if (callee == "fp8q_rt_materialize")
        ++result.materializeCalls;
    } else if (!isa<LLVM::LLVMDialect>(op->getDialect()) &&
               !isa<ModuleOp>(op)) {
      ++result.foreignOps;
    }
  });
  return result;
}

TEST(EmbedPipelineTest, UnrolledStaticTokensLowerToLLVM) {
  fp8q::DecoderOptions options;
  options.tokens = 8;
  Lowered lowered = lowerTinyModel(options);
  EXPECT_GT(lowered.gemms, 0);
  EXPECT_EQ(lowered.gemmCalls, lowered.gemms);
  EXPECT_EQ(lowered.materializeCalls, 0);
  EXPECT_EQ(lowered.foreignOps, 0);
}

TEST(EmbedPipelineTest, LoopWithDynamicTokensLowersToLLVM) {
  fp8q::DecoderOptions options;
  options.tokens = ShapedType::kDynamic;
  options.layersAsLoop = true;
  Lowered lowered = lowerTinyModel(options);
  EXPECT_GT(lowered.gemms, 0);
  // The loop body's gemms are lowered once each, like the unrolled ones.
  EXPECT_EQ(lowered.gemmCalls, lowered.gemms);
  EXPECT_EQ(lowered.foreignOps, 0);
}

} // namespace
