//===- Fp8qOps.td - fp8q operations ------------------------*- tablegen -*-===//

#ifndef FP8Q_DIALECT_IR_FP8QOPS_TD
#define FP8Q_DIALECT_IR_FP8QOPS_TD

include "fp8q/Dialect/IR/Fp8qAttributes.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Fp8q_Op<string mnemonic, list<Trait> traits = []>
    : Op<Fp8q_Dialect, mnemonic, traits>;

def Fp8q_Float8 : AnyTypeOf<[F8E4M3FN, F8E4M3FNUZ], "fp8 (f8E4M3FN or f8E4M3FNUZ)">;
// SPEC v2's quantized and scale element types (the format is chosen by the
// element types; ScaleLayout.h's getBlockFormat names it).
def Fp8q_QElem : AnyTypeOf<[F8E4M3FN, F8E4M3FNUZ, F8E5M2, F4E2M1FN],
    "quantized element (f8E4M3FN, f8E4M3FNUZ, f8E5M2 or f4E2M1FN)">;
def Fp8q_ScaleElem : AnyTypeOf<[F32, F8E8M0FNU, F8E4M3FN],
    "scale element (f32, f8E8M0FNU or f8E4M3FN)">;
def Fp8q_QTensor : TensorRankOf<[Fp8q_QElem], [2]>;
def Fp8q_AnyScaleTensor : TensorRankOf<[Fp8q_ScaleElem], [2]>;
def Fp8q_ActTensor : TensorRankOf<[BF16, F16, F32], [2]>;
def Fp8q_Fp8Tensor : TensorRankOf<[Fp8q_Float8], [2]>;
def Fp8q_ScaleTensor : TensorRankOf<[F32], [2]>;
def Fp8q_OutTensor : TensorRankOf<[BF16], [2]>;

def Fp8q_QuantizeOp : Fp8q_Op<"quantize", [Pure, AttrSizedOperandSegments]> {
  let summary = "per-1xg activation quantization to FP8";
  let description = [{
    Quantizes x [M, K] per group of `group_size` consecutive elements along
    K: scale = max(amax, 1e-10) / fp8_max, q = rne(x / scale) saturated.
    The scale result's type decides the layout the kernel writes, so a
    column-major (transposed) write is fused into the quantization.

    ```mlir
    %q, %s = fp8q.quantize %x {group_size = 128}
        : tensor<?x7168xbf16> -> tensor<?x7168xf8E4M3FN>,
          tensor<?x56xf32, #fp8q.layout<col_major>>
    ```

    SPEC v2: the element types of q and scale choose the format (MXFP8,
    MXFP4, NVFP4, FP8 1x128 with power-of-two scales); `scale_rounding`
    overrides the format's default rule; NVFP4 (f4E2M1FN q, f8E4M3FN
    scale) takes the rank-0 `global_scale` operand and computes q =
    rne(x / (scale * global)). An f4E2M1FN q is the logical [M, K] tensor;
    it is stored two values per byte, element 2i in the low nibble.

    ```mlir
    %q, %s = fp8q.quantize %x global(%g : tensor<f32>) {group_size = 16}
        : tensor<?x7168xbf16> -> tensor<?x7168xf4E2M1FN>,
          tensor<?x448xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>>
    ```

    With `silu_gate` (the fused SwiGLU producer, see
    --fp8q-fuse-elementwise-producers) the quantized input is
    silu(gate) * x, computed in f32 on the extended operands as
    g / (1 + exp(-g)) * x: serving stacks' `silu_and_mul` + group quant in
    one kernel. gate has x's type; FP8 1x128 formats only.

    ```mlir
    %q, %s = fp8q.quantize %up silu_gate(%gate : tensor<?x2048xbf16>)
        : tensor<?x2048xbf16> -> tensor<?x2048xf8E4M3FN>, tensor<?x16xf32>
    ```
  }];
  let arguments = (ins Fp8q_ActTensor:$x,
                       Optional<Fp8q_ActTensor>:$silu_gate,
                       Optional<0DTensorOf<[F32]>>:$global_scale,
                       DefaultValuedAttr<I64Attr, "FP8Q_SCALE_BLOCK">:$group_size,
                       OptionalAttr<Fp8q_ScaleRoundingAttr>:$scale_rounding);
  let results = (outs Fp8q_QTensor:$q, Fp8q_AnyScaleTensor:$scale);
  let assemblyFormat = [{
    $x (`silu_gate` `(` $silu_gate^ `:` type($silu_gate) `)`)?
    (`global` `(` $global_scale^ `:` type($global_scale) `)`)? attr-dict
    `:` type($x) `->` type($q) `,` type($scale)
  }];
  let hasVerifier = 1;
}

def Fp8q_RmsNormQuantizeOp : Fp8q_Op<"rms_norm_quantize",
    [Pure, AttrSizedResultSegments]> {
  let summary = "fused RMSNorm and per-1xg FP8 quantization";
  let description = [{
    y = x / sqrt(mean(x^2) + epsilon) * gamma per row, rounded to x's
    element type, then quantized like `fp8q.quantize`. With
    `keep_unquantized` the rounded y is the third result.

    With `residual` (the fused residual add, serving stacks'
    `fused_add_rms_norm`; see --fp8q-fuse-elementwise-producers) the op
    first computes sum = x + residual rounded to x's element type, returns
    it as the last result and normalizes sum instead of x.

    ```mlir
    %q, %s, %sum = fp8q.rms_norm_quantize %attn, %gamma
        residual(%h : tensor<?x6144xbf16> -> tensor<?x6144xbf16>)
        : tensor<?x6144xbf16>, tensor<6144xbf16> -> tensor<?x6144xf8E4M3FN>,
          tensor<?x48xf32>
    ```

    ```mlir
    %q, %s, %y = fp8q.rms_norm_quantize %x, %gamma
        {epsilon = 1.0e-06 : f32, keep_unquantized}
        : tensor<?x6144xbf16>, tensor<6144xbf16> -> tensor<?x6144xf8E4M3FN>,
          tensor<?x48xf32>, tensor<?x6144xbf16>
    ```
  }];
  let arguments = (ins Fp8q_ActTensor:$x,
                       TensorRankOf<[BF16, F16, F32], [1]>:$gamma,
                       Optional<Fp8q_ActTensor>:$residual,
                       DefaultValuedAttr<F32Attr, "1.0e-6">:$epsilon,
                       DefaultValuedAttr<I64Attr, "FP8Q_SCALE_BLOCK">:$group_size,
                       UnitAttr:$keep_unquantized);
  let results = (outs Fp8q_Fp8Tensor:$q, Fp8q_ScaleTensor:$scale,
                      Optional<Fp8q_ActTensor>:$unquantized,
                      Optional<Fp8q_ActTensor>:$residual_sum);
  let assemblyFormat = [{
    $x `,` $gamma
    (`residual` `(` $residual^ `:` type($residual) `->` type($residual_sum)
     `)`)?
    attr-dict `:` type($x) `,` type($gamma) `->` type($q) `,`
    type($scale) (`,` type($unquantized)^)?
  }];
  let hasVerifier = 1;
}

def Fp8q_GemmOp : Fp8q_Op<"gemm", [Pure]> {
  let summary = "block-scale FP8 GEMM";
  let description = [{
    out[m, n] = sum_kb x_scale[m, kb] * w_scale[n / 128, kb] *
                sum_{k in kb} q[m, k] * w[n, k], accumulated in fp32 and
    rounded to bf16. `kernel` names the kernel family that runs it; its
    contract (see the kernel-contract table) fixes the layouts it reads.

    ```mlir
    %y = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>}
        : tensor<?x7168xf8E4M3FN>, tensor<?x56xf32, #fp8q.layout<col_major>>,
          tensor<2112x7168xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>,
          tensor<17x56xf32> -> tensor<?x2112xbf16>
    ```

    NVFP4 (f4E2M1FN q and w, f8E4M3FN scales) takes the rank-0 f32
    `global_scale` operand, required for NVFP4 and rejected for every other
    format: the PRODUCT of the activation's and the weight's global scales
    (each the `global_scale` its quantize used), so that
    out = global_scale * sum_g x_scale * w_scale * dot. Serving stacks
    fold the two into one GEMM alpha the same way.

    ```mlir
    %y = fp8q.gemm %q, %s, %w, %ws global(%g : tensor<f32>)
        : tensor<?x64xf4E2M1FN>, tensor<?x4xf8E4M3FN>,
          tensor<32x64xf4E2M1FN>, tensor<32x4xf8E4M3FN> -> tensor<?x32xbf16>
    ```
  }];
  let arguments = (ins Fp8q_QTensor:$q, Fp8q_AnyScaleTensor:$x_scale,
                       Fp8q_QTensor:$w, Fp8q_AnyScaleTensor:$w_scale,
                       Optional<0DTensorOf<[F32]>>:$global_scale,
                       OptionalAttr<Fp8q_KernelAttr>:$kernel);
  let results = (outs Fp8q_OutTensor:$out);
  let assemblyFormat = [{
    $q `,` $x_scale `,` $w `,` $w_scale
    (`global` `(` $global_scale^ `:` type($global_scale) `)`)? attr-dict `:`
    type($q) `,` type($x_scale) `,` type($w) `,` type($w_scale) `->`
    type($out)
  }];
  let builders = [
    // A gemm without a global scale (every format but NVFP4): the builder
    // the passes and fp8q-model-gen call.
    OpBuilder<(ins "::mlir::Type":$out, "::mlir::Value":$q,
                   "::mlir::Value":$x_scale, "::mlir::Value":$w,
                   "::mlir::Value":$w_scale,
                   CArg<"::fp8q::KernelAttr", "{}">:$kernel), [{
      build($_builder, $_state, out, q, x_scale, w, w_scale,
            /*global_scale=*/::mlir::Value(), kernel);
    }]>
  ];
  let hasVerifier = 1;
}

def Fp8q_MaterializeOp : Fp8q_Op<"materialize", [Pure]> {
  let summary = "re-store a scale in another physical layout";
  let description = [{
    Returns the same logical scale stored in the layout of the result type.
    Idempotent: it folds away when the operand already has the result
    layout, a chain of materializations is one materialization, and a
    materialization between layouts that address the same bytes (see
    `isNoCopy`) lowers to no copy.

    ```mlir
    %c = fp8q.materialize %s
        : tensor<?x56xf32> -> tensor<?x56xf32, #fp8q.layout<col_major>>
    ```
  }];
  let arguments = (ins Fp8q_AnyScaleTensor:$scale);
  let results = (outs Fp8q_AnyScaleTensor:$result);
  let assemblyFormat = "$scale attr-dict `:` type($scale) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// True when operand and result layouts address the same bytes, so the
    /// materialization needs no copy.
    bool isNoCopy();
  }];
}

// SPEC v2: f4E2M1FN weights are preshuffled byte-wise (aiter_mxfp4).
def Fp8q_WeightTensor : TensorRankOf<[Fp8q_Float8, F4E2M1FN], [2]>;

def Fp8q_PreshuffleOp : Fp8q_Op<"preshuffle", [Pure]> {
  let summary = "permute an FP8 (or, byte-wise, f4E2M1FN) weight into the "
                "preshuffle_16x16 layout";
  let arguments = (ins Fp8q_WeightTensor:$w);
  let results = (outs Fp8q_WeightTensor:$result);
  let assemblyFormat = "$w attr-dict `:` type($w) `->` type($result)";
  let hasVerifier = 1;
  // A dense constant operand folds to the permuted constant (its literal
  // lists the stored bytes in preshuffled order).
  let hasFolder = 1;
}

#endif // FP8Q_DIALECT_IR_FP8QOPS_TD
