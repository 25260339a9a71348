//===- Fp8qDialect.td - fp8q dialect definition ------------*- tablegen -*-===//

#ifndef FP8Q_DIALECT_IR_FP8QDIALECT_TD
#define FP8Q_DIALECT_IR_FP8QDIALECT_TD

include "mlir/IR/DialectBase.td"

def Fp8q_Dialect : Dialect {
  let name = "fp8q";
  let cppNamespace = "::fp8q";
  let summary = "Block-FP8 quantization with typed scale layouts";
  let description = [{
    The fp8q dialect models block-FP8 linear layers: per-1x128 activation
    quantization, weight preshuffling and block-scale GEMMs that name the
    kernel that runs them. The physical layout of each activation scale is
    part of its tensor type (`#fp8q.layout<...>` encoding), so the compiler
    can prove that every GEMM reads its scale in the layout its kernel
    expects, and insert the fewest `fp8q.materialize` copies to get there.
  }];
  let useDefaultAttributePrinterParser = 1;
  // Folded constants (fp8q.preshuffle of a constant) are arith.constant.
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    /// Registers the attributes; defined beside their storage classes.
    void registerAttributes();
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

#endif // FP8Q_DIALECT_IR_FP8QDIALECT_TD
