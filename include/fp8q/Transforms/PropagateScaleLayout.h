//===- PropagateScaleLayout.h - Scale-layout propagation API ----*- C++ -*-===//
//
// The C++ entry point of --fp8q-propagate-scale-layout, for tools and tests
// that want its counts: the pass reports the same numbers as statistics,
// which Debian's release build of LLVM compiles out (NoopStatistic).
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_TRANSFORMS_PROPAGATESCALELAYOUT_H
#define FP8Q_TRANSFORMS_PROPAGATESCALELAYOUT_H

#include "mlir/IR/BuiltinOps.h"

namespace fp8q {

/// What one propagation run did.
struct PropagationCounts {
  /// fp8q.materialize ops created.
  unsigned inserted = 0;
  /// fp8q.quantize / rms_norm_quantize scale results retyped.
  unsigned fused = 0;
  /// fp8q.materialize ops (hand-written or from an earlier run) erased.
  unsigned removed = 0;
  /// fp8q.materialize ops in the module afterwards.
  unsigned remaining = 0;
};

/// Assigns scale layouts in `module` and inserts the fewest
/// materializations (see the pass description). Never fails; the context
/// must have the carrier models (fp8q::registerFp8qDialects, see
/// checkScaleLayoutAnalysisContext).
PropagationCounts propagateScaleLayouts(mlir::ModuleOp module,
                                        bool fuseProducers);

} // namespace fp8q

#endif // FP8Q_TRANSFORMS_PROPAGATESCALELAYOUT_H
