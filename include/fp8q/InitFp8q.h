//===- InitFp8q.h - Register fp8q dialects and passes -----------*- C++ -*-===//
//
// One entry point for drivers and plugins: the fp8q dialect, the upstream
// dialects its passes create, and every fp8q pass and pipeline.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_INITFP8Q_H
#define FP8Q_INITFP8Q_H

#include "fp8q/Conversion/Passes.h"
#include "fp8q/Dialect/IR/Fp8qDialect.h"
#include "fp8q/Dialect/Transforms/BufferizableOpInterfaceImpl.h"
#include "fp8q/Interfaces/ScaleLayoutInterfaces.h"
#include "fp8q/Pipelines/Pipelines.h"
#include "fp8q/Transforms/Passes.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/IR/DialectRegistry.h"

namespace fp8q {

/// Adds the fp8q dialect to `registry`, with the external models fp8q
/// attaches to upstream ops (bufferization, scale-layout carriers), and
/// upstream's shard dialect, whose collectives model tensor-parallel
/// boundaries (docs/Lowering.md, "Collectives").
inline void registerFp8qDialects(mlir::DialectRegistry &registry) {
  registry.insert<Fp8qDialect, mlir::shard::ShardDialect>();
  registerBufferizableOpInterfaceExternalModels(registry);
  registerScaleLayoutCarrierExternalModels(registry);
}

/// Registers every fp8q pass and pipeline with the global pass registry.
inline void registerFp8qPassesAndPipelines() {
  registerFp8qPasses();
  registerFp8qConversionPasses();
  registerFp8qPipelines();
}

} // namespace fp8q

#endif // FP8Q_INITFP8Q_H
