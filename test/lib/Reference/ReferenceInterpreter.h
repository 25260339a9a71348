//===- ReferenceInterpreter.h - Unquantized reference of fp8q IR -*- C++
//-*-===//
//
// Evaluates tensor-level fp8q IR in fp32 (double accumulation) with the
// quantization
// taken out: quantize returns its input with unit scales, so a gemm computes
// x @ dequant(w)^T exactly. This is the fp32-or-better reference that the
// compiled FP8 program is measured against. It knows the ops that
// fp8q-model-gen emits (fp8q, arith, math, tensor, func, scf.for).
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_TOOLS_FP8Q_RUN_REFERENCEINTERPRETER_H
#define FP8Q_TOOLS_FP8Q_RUN_REFERENCEINTERPRETER_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <vector>

namespace fp8q {

/// A dense row-major fp32 tensor; rank 0 holds a scalar (index or float).
/// Storage is shared, so passing weights around copies nothing.
struct RefTensor {
  llvm::SmallVector<int64_t, 3> shape;
  std::shared_ptr<const std::vector<float>> data;

  int64_t numElements() const;
  float operator[](int64_t i) const { return (*data)[i]; }
  /// A tensor of `shape` owning `values`.
  static RefTensor make(llvm::ArrayRef<int64_t> shape,
                        std::vector<float> values);
  static RefTensor scalar(double value) { return make({}, {float(value)}); }
};

/// Evaluates `fn` on `args`; fails with a located diagnostic on an op it
/// does not know.
mlir::FailureOr<llvm::SmallVector<RefTensor>>
evaluateReference(mlir::func::FuncOp fn, llvm::ArrayRef<RefTensor> args);

} // namespace fp8q

#endif // FP8Q_TOOLS_FP8Q_RUN_REFERENCEINTERPRETER_H
