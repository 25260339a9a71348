//===- Fp8qAttributes.td - fp8q attributes -----------------*- tablegen -*-===//

#ifndef FP8Q_DIALECT_IR_FP8QATTRIBUTES_TD
#define FP8Q_DIALECT_IR_FP8QATTRIBUTES_TD

include "fp8q/Dialect/IR/Fp8qDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/TensorEncoding.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Fp8q_ScaleOrder : I32EnumAttr<"ScaleOrder",
    "physical order of a [M, G] activation scale", [
      I32EnumAttrCase<"RowMajor", 0, "row_major">,
      I32EnumAttrCase<"ColMajor", 1, "col_major">,
      I32EnumAttrCase<"Swizzle32x4x4", 2, "swizzle_32_4_4">,
      I32EnumAttrCase<"Cdna4Mx", 3, "cdna4_mx">
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

// Values match FP8Q_ROUND_* in fp8q/Runtime/fp8q_formats.h (checked by a
// static_assert in ScaleLayout.cpp), so lowering passes the value as the code.
def Fp8q_ScaleRounding : I32EnumAttr<"ScaleRounding",
    "how a group's scale is derived from its amax (SPEC v2)", [
      I32EnumAttrCase<"Exact", 0, "exact">,
      I32EnumAttrCase<"Pow2Ceil", 1, "pow2_ceil">,
      I32EnumAttrCase<"Pow2Floor", 2, "pow2_floor">,
      I32EnumAttrCase<"E4M3", 3, "e4m3">
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
      I32EnumAttrCase<"Reference", 5, "reference">,
      I32EnumAttrCase<"AiterMxfp4", 6, "aiter_mxfp4">,
      I32EnumAttrCase<"CublasMx", 7, "cublas_mx">,
      I32EnumAttrCase<"DeepGemmSm100", 8, "deepgemm_sm100">
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
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>,
     DeclareAttrInterfaceMethods<MemRefLayoutAttrInterface,
                                 ["isIdentity", "verifyLayout",
                                  "getStridesAndOffset"]>]> {
  let summary = "physical layout of an activation scale tensor";
  let description = [{
    Encoding of a rank-2 scale tensor of shape [M, G] (G = K / group
    size; f32, f8E8M0FNU or f8E4M3FN elements). `row_major` stores it with
    strides (G, 1), the same as no encoding. `col_major` stores it with
    strides (1, M); with `align = a` the leading dimension is M rounded up
    to a multiple of a, strides (1, roundup(M, a)).

    SPEC v2's padded layouts hold 1-byte scales only (their offsets are
    bytes; fp8q_scale_layouts.h has every offset and allocation):
    `col_major, align = a, pack = 4` packs four scales along G per 32-bit
    word, words MN-major with leading dimension roundup(M, a) (DeepGEMM
    sm100); `swizzle_32_4_4` is NVIDIA Blackwell's 128x4 tile layout;
    `cdna4_mx` is AMD gfx950's MX scale shuffle.

    A padded layout is also the layout of the memref bufferization gives
    such a scale: `memref<?x224xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>`
    is the logical [M, G] scale whose bytes are the layout's whole
    allocation (fp8q_scale_layout_alloc) from its base, element (m, g) at
    the layout's offset. For MLIR it is a strided layout with strides
    (0, 0): descriptors, views and deallocation work on it, and no strided
    access can mistake it for a dense [M, G] buffer; only fp8q ops read or
    write its elements (docs/Lowering.md, "Padded scale layouts"). The
    strided layouts are memref layouts as `strided<...>`, never as
    `#fp8q.layout`.

    ```mlir
    tensor<?x56xf32, #fp8q.layout<col_major>>
    tensor<?x56xf32, #fp8q.layout<col_major, align = 4>>
    tensor<?x56xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>
    tensor<?x224xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
    tensor<?x224xf8E8M0FNU, #fp8q.layout<cdna4_mx>>
    ```
  }];
  // `pack` is last and defaults to 1 so that every v1 layout keeps its
  // syntax and printing.
  let parameters = (ins EnumParameter<Fp8q_ScaleOrder>:$order,
                        DefaultValuedParameter<"int64_t", "1">:$align,
                        DefaultValuedParameter<"int64_t", "1">:$pack);
  // `<order (, align = a)? (, pack = 4)?>` with align and pack in either
  // order; defaults are not printed.
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Returns the row-major layout (the meaning of "no encoding").
    static LayoutAttr getRowMajor(::mlir::MLIRContext *ctx) {
      return get(ctx, ScaleOrder::RowMajor, 1, 1);
    }
    /// Returns the column-major layout with leading dimension M rounded up
    /// to `align`.
    static LayoutAttr getColMajor(::mlir::MLIRContext *ctx, int64_t align = 1) {
      return get(ctx, ScaleOrder::ColMajor, align, 1);
    }
    /// Returns DeepGEMM sm100's packed UE8M0 layout (col_major, align = a,
    /// pack = 4).
    static LayoutAttr getColMajorPack4(::mlir::MLIRContext *ctx,
                                       int64_t align) {
      return get(ctx, ScaleOrder::ColMajor, align, 4);
    }
    /// Returns one of the tiled layouts (swizzle_32_4_4, cdna4_mx).
    static LayoutAttr getTiled(::mlir::MLIRContext *ctx, ScaleOrder order) {
      return get(ctx, order, 1, 1);
    }
    bool isRowMajor() const { return getOrder() == ScaleOrder::RowMajor; }
    /// True for the strided column-major layouts only (not pack = 4): the
    /// v1 code that reads strides from a col_major layout stays correct.
    bool isColMajor() const {
      return getOrder() == ScaleOrder::ColMajor && getPack() == 1;
    }
    /// True for the layouts a strided memref expresses (row_major,
    /// col_major [align]); false for SPEC v2's padded byte layouts.
    bool isStrided() const { return isRowMajor() || isColMajor(); }
    /// The layout's fp8q_scale_layout code (fp8q_formats.h), for the C
    /// offset / allocation functions and the runtime ABI.
    int getLayoutCode() const;
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

def Fp8q_ScaleRoundingAttr : EnumAttr<Fp8q_Dialect, Fp8q_ScaleRounding,
    "scale_rounding"> {
  let summary = "rule deriving a group's scale from its amax (SPEC v2)";
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
    gfx950, sm90, sm100; `rocm` (major.minor) is optional.
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
