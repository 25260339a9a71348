//===- Fp8qAttributes.td - fp8q attributes -----------------*- tablegen -*-===//

#ifndef FP8Q_DIALECT_IR_FP8QATTRIBUTES_TD
#define FP8Q_DIALECT_IR_FP8QATTRIBUTES_TD

include "fp8q/Dialect/IR/Fp8qDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/TensorEncoding.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Fp8q_ScaleOrder : I32EnumAttr<"ScaleOrder",
    "physical order of a [M, G] activation scale", [
      I32EnumAttrCase<"RowMajor", 0, "row_major">,
      I32EnumAttrCase<"ColMajor", 1, "col_major">
    ]> {
  let cppNamespace = "::fp8q";
  let genSpecializedAttr = 0;
}

def Fp8q_WeightLayout : I32EnumAttr<"WeightLayout",
    "physical layout of an FP8 weight", [
      I32EnumAttrCase<"Preshuffle16x16", 0, "preshuffle_16x16">
    ]> {
  let cppNamespace = "::fp8q";
  let genSpecializedAttr = 0;
}

// Values match FP8Q_KERNEL_* in fp8q/Runtime/fp8q_contracts.h (checked by a
// static_assert in the contract table).
def Fp8q_Kernel : I32EnumAttr<"Kernel", "block-scale GEMM kernel", [
      I32EnumAttrCase<"CkBpreshuffle", 0, "ck_bpreshuffle">,
      I32EnumAttrCase<"Ck", 1, "ck">,
      I32EnumAttrCase<"Triton", 2, "triton">,
      I32EnumAttrCase<"DeepGemm", 3, "deepgemm">,
      I32EnumAttrCase<"Cublas", 4, "cublas">,
      I32EnumAttrCase<"Reference", 5, "reference">
    ]> {
  let cppNamespace = "::fp8q";
  let genSpecializedAttr = 0;
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

class Fp8q_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Fp8q_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Fp8q_LayoutAttr : Fp8q_Attr<"Layout", "layout",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "physical layout of an activation scale tensor";
  let description = [{
    Encoding of a rank-2 f32 scale tensor of shape [M, G] (G = K / group
    size). `row_major` stores it with strides (G, 1), the same as no
    encoding. `col_major` stores it with strides (1, M); with `align = a` the
    leading dimension is M rounded up to a multiple of a, strides
    (1, roundup(M, a)).

    ```mlir
    tensor<?x56xf32, #fp8q.layout<col_major>>
    tensor<?x56xf32, #fp8q.layout<col_major, align = 4>>
    ```
  }];
  let parameters = (ins EnumParameter<Fp8q_ScaleOrder>:$order,
                        DefaultValuedParameter<"int64_t", "1">:$align);
  let assemblyFormat = "`<` $order (`,` `align` `=` $align^)? `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Returns the row-major layout (the meaning of "no encoding").
    static LayoutAttr getRowMajor(::mlir::MLIRContext *ctx) {
      return get(ctx, ScaleOrder::RowMajor, 1);
    }
    /// Returns the column-major layout with leading dimension M rounded up
    /// to `align`.
    static LayoutAttr getColMajor(::mlir::MLIRContext *ctx, int64_t align = 1) {
      return get(ctx, ScaleOrder::ColMajor, align);
    }
    bool isRowMajor() const { return getOrder() == ScaleOrder::RowMajor; }
    bool isColMajor() const { return getOrder() == ScaleOrder::ColMajor; }
  }];
}

def Fp8q_WeightLayoutAttr : EnumAttr<Fp8q_Dialect, Fp8q_WeightLayout,
    "weight_layout", [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "physical layout of an FP8 weight tensor";
  let description = [{
    `preshuffle_16x16`: the [N, K] weight permuted for MFMA 16x16 tiles.
    Element W[16*n0+n1, 32*k0+16*k1+k2] is stored at flat offset
    (((n0*(K/32)+k0)*2+k1)*16+n1)*16+k2. Requires N % 16 == 0, K % 32 == 0.
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Fp8q_KernelAttr : EnumAttr<Fp8q_Dialect, Fp8q_Kernel, "kernel"> {
  let summary = "block-scale GEMM kernel family";
  let assemblyFormat = "`<` $value `>`";
}

def Fp8q_TargetAttr : Fp8q_Attr<"Target", "target"> {
  let summary = "compilation target (module attribute `fp8q.target`)";
  let description = [{
    `#fp8q.target<arch = "gfx950", rocm = "7.2">`. `arch` is one of gfx942,
    gfx950, sm90; `rocm` (major.minor) is optional.
  }];
  let parameters = (ins StringRefParameter<"GPU architecture">:$arch,
                        StringRefParameter<"ROCm version", [{""}]>:$rocm);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Name of the module attribute that carries the target.
    static constexpr ::llvm::StringLiteral getModuleAttrName() {
      return ::llvm::StringLiteral("fp8q.target");
    }
    /// ROCm version as (major, minor); std::nullopt when absent.
    std::optional<std::pair<int, int>> getRocmVersion() const;
  }];
}

#endif // FP8Q_DIALECT_IR_FP8QATTRIBUTES_TD
