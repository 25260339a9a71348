//===- BufferizableOpInterfaceImpl.h - Bufferizing fp8q ops -----*- C++ -*-===//
//
// One-Shot Bufferize support for the fp8q dialect: external
// BufferizableOpInterface models that turn the tensor ops into the
// fp8q.buffer.* ops, and the tensor -> memref type mapping that makes a
// scale's layout encoding a memref strided layout (SPEC):
//   row_major (or none)   -> identity layout, strides (G, 1)
//   col_major             -> strided<[1, M]>
//   col_major, align = a  -> strided<[1, roundup(M, a)]>
//   (dynamic M: strided<[1, ?]>)
// A preshuffled weight has no strided form: it is a plain [N, K] buffer of
// permuted bytes, and the gemm records the order in `w_layout`.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_DIALECT_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
#define FP8Q_DIALECT_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H

#include "mlir/IR/BuiltinTypes.h"

namespace mlir {
class DialectRegistry;
namespace bufferization {
struct OneShotBufferizationOptions;
} // namespace bufferization
} // namespace mlir

namespace fp8q {

/// Attaches BufferizableOpInterface to the fp8q tensor ops.
void registerBufferizableOpInterfaceExternalModels(
    mlir::DialectRegistry &registry);

/// Returns the memref type a value of `type` bufferizes to, or a null type
/// when `type` carries no fp8q encoding (upstream rules then apply).
mlir::MemRefType getFp8qMemRefType(mlir::RankedTensorType type);

/// Returns the memref type of an fp8q-typed tensor: its fp8q mapping when it
/// has an fp8q encoding, the static identity layout otherwise.
mlir::MemRefType getFp8qOrIdentityMemRefType(mlir::RankedTensorType type);

/// Configures whole-module One-Shot Bufferize for fp8q: function boundaries
/// are bufferized, a tensor argument or result without encoding becomes an
/// identity-layout memref (a public signature is an ABI; a scale without
/// encoding is row-major), an fp8q-encoded one its strided layout.
void configureFp8qBufferization(
    mlir::bufferization::OneShotBufferizationOptions &options);

} // namespace fp8q

#endif // FP8Q_DIALECT_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
