//===- Fp8qBufferOps.td - memref forms of the fp8q ops -----*- tablegen -*-===//
//
// Bufferization turns every tensor-level fp8q op into one of these
// destination-passing ops on memrefs. They exist so that the layering stays
// tensor ops -> memref ops -> runtime calls: bufferization decides buffers
// and their strided layouts, --fp8q-lower-to-runtime only maps ops to ABI
// entry points. A scale's physical layout is the memref's strided layout
// (row_major: identity, col_major: strided<[1, ld]>), so every op reads and
// writes the bytes its types state.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_DIALECT_IR_FP8QBUFFEROPS_TD
#define FP8Q_DIALECT_IR_FP8QBUFFEROPS_TD

include "fp8q/Dialect/IR/Fp8qOps.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Fp8q_BufferOp<string mnemonic, list<Trait> traits = []>
    : Op<Fp8q_Dialect, "buffer." # mnemonic, traits> {
  let hasVerifier = 1;
}

def Fp8q_ActMemRef : MemRefRankOf<[BF16, F16, F32], [2]>;
def Fp8q_Fp8MemRef : MemRefRankOf<[Fp8q_Float8], [2]>;
def Fp8q_ScaleMemRef : MemRefRankOf<[F32], [2]>;
// SPEC v2: any quantized element type (f4E2M1FN buffers are logical [M, K]
// element buffers whose bytes are packed two per byte) and any scale
// element type; a padded scale layout is the memref's #fp8q.layout.
def Fp8q_QMemRef : MemRefRankOf<[Fp8q_QElem], [2]>;
def Fp8q_AnyScaleMemRef : MemRefRankOf<[Fp8q_ScaleElem], [2]>;
def Fp8q_OutMemRef : MemRefRankOf<[BF16], [2]>;
def Fp8q_WeightMemRef : MemRefRankOf<[Fp8q_Float8, F4E2M1FN], [2]>;

def Fp8q_BufferQuantizeOp : Fp8q_BufferOp<"quantize",
    [AttrSizedOperandSegments]> {
  let summary = "memref form of fp8q.quantize (destination-passing)";
  let description = [{
    Reads x [M, K], writes q [M, K] and scale [M, K / group_size]. The
    scale buffer's strides say where each scale goes: a column-major buffer
    (strides (1, ld)) receives the fused transposed write. With
    `silu_gate` the quantized input is silu(gate) * x (fp8q.quantize).

    SPEC v2 formats as for fp8q.quantize: the element types choose the
    format, `scale_rounding` the rule, `global_scale` (memref<f32>) is
    NVFP4's. A scale in a padded layout
    (`memref<MxGxT, #fp8q.layout<...>>`) is written with its padding.

    ```mlir
    fp8q.buffer.quantize %x, %q, %s {group_size = 128 : i64}
        : memref<?x256xbf16>, memref<?x256xf8E4M3FN>,
          memref<?x2xf32, strided<[1, ?]>>
    fp8q.buffer.quantize %x, %q, %s {group_size = 32 : i64}
        : memref<?x256xbf16>, memref<?x256xf4E2M1FN>,
          memref<?x8xf8E8M0FNU, #fp8q.layout<cdna4_mx>>
    ```
  }];
  let arguments = (ins Arg<Fp8q_ActMemRef, "input", [MemRead]>:$x,
                       Arg<Optional<Fp8q_ActMemRef>, "SiLU gate", [MemRead]>:
                           $silu_gate,
                       Arg<Optional<MemRefRankOf<[F32], [0]>>,
                           "NVFP4 global scale", [MemRead]>:$global_scale,
                       Arg<Fp8q_QMemRef, "quantized output", [MemWrite]>:$q,
                       Arg<Fp8q_AnyScaleMemRef, "scale output", [MemWrite]>:
                           $scale,
                       DefaultValuedAttr<I64Attr, "FP8Q_SCALE_BLOCK">:$group_size,
                       OptionalAttr<Fp8q_ScaleRoundingAttr>:$scale_rounding);
  let assemblyFormat = [{
    $x (`silu_gate` `(` $silu_gate^ `:` type($silu_gate) `)`)?
    (`global` `(` $global_scale^ `:` type($global_scale) `)`)? `,` $q `,`
    $scale attr-dict `:` type($x) `,` type($q) `,` type($scale)
  }];
  let extraClassDeclaration = [{
    /// True when the op needs SPEC v2's entry point (a format, layout or
    /// rounding the v1 FP8 1x128 quantize does not have).
    bool isV2();
  }];
}

def Fp8q_BufferRmsNormQuantizeOp : Fp8q_BufferOp<"rms_norm_quantize",
    [AttrSizedOperandSegments]> {
  let summary = "memref form of fp8q.rms_norm_quantize (destination-passing)";
  let description = [{
    Reads x [M, K] and gamma [K]; writes q, scale and, when the
    `unquantized` buffer is present, the normalized x rounded to x's
    element type. With `residual`, x + residual rounded to x's element type
    is written to `residual_sum` and normalized instead of x.

    ```mlir
    fp8q.buffer.rms_norm_quantize %x, %g, %q, %s, %y {epsilon = 1.0e-06 : f32}
        : memref<4x256xbf16>, memref<256xbf16>, memref<4x256xf8E4M3FN>,
          memref<4x2xf32>, memref<4x256xbf16>
    ```
  }];
  let arguments = (ins
      Arg<Fp8q_ActMemRef, "input", [MemRead]>:$x,
      Arg<MemRefRankOf<[BF16, F16, F32], [1]>, "gamma", [MemRead]>:$gamma,
      Arg<Fp8q_Fp8MemRef, "quantized output", [MemWrite]>:$q,
      Arg<Fp8q_ScaleMemRef, "scale output", [MemWrite]>:$scale,
      Arg<Optional<Fp8q_ActMemRef>, "normalized output", [MemWrite]>:
          $unquantized,
      Arg<Optional<Fp8q_ActMemRef>, "residual", [MemRead]>:$residual,
      Arg<Optional<Fp8q_ActMemRef>, "x + residual output", [MemWrite]>:
          $residual_sum,
      DefaultValuedAttr<F32Attr, "1.0e-6">:$epsilon,
      DefaultValuedAttr<I64Attr, "FP8Q_SCALE_BLOCK">:$group_size);
  let assemblyFormat = [{
    $x `,` $gamma `,` $q `,` $scale (`,` $unquantized^)?
    (`residual` `(` $residual^ `:` type($residual) `->` $residual_sum `:`
     type($residual_sum) `)`)?
    attr-dict `:`
    type($x) `,` type($gamma) `,` type($q) `,` type($scale)
    (`,` type($unquantized)^)?
  }];
}

def Fp8q_BufferGemmOp : Fp8q_BufferOp<"gemm"> {
  let summary = "memref form of fp8q.gemm (destination-passing)";
  let description = [{
    out[m, n] = sum_kb x_scale[m, kb] * w_scale[n / 128, kb] *
    sum_{k in kb} q[m, k] * w[n, k]. Memref layouts cannot express the
    preshuffle permutation, so a preshuffled weight is a plain [N, K] buffer
    of permuted bytes and `w_layout` records how its bytes are ordered.
    `kernel` is required by --fp8q-lower-to-runtime. SPEC v2 formats: q
    and w in one format, scales of any element type and layout (a padded
    layout is the memref's #fp8q.layout), the group read from x_scale.
    NVFP4 takes `global_scale` (memref<f32>), the product of the two
    global scales (fp8q.gemm), and no other format does.

    ```mlir
    fp8q.buffer.gemm %q, %s, %w, %ws, %out
        {kernel = #fp8q.kernel<ck_bpreshuffle>,
         w_layout = #fp8q.weight_layout<preshuffle_16x16>}
        : memref<?x256xf8E4M3FN>, memref<?x2xf32, strided<[1, ?]>>,
          memref<320x256xf8E4M3FN>, memref<3x2xf32>, memref<?x320xbf16>
    fp8q.buffer.gemm %q, %s, %w, %ws global(%g : memref<f32>), %out
        {kernel = #fp8q.kernel<reference>}
        : memref<?x64xf4E2M1FN>, memref<?x4xf8E4M3FN>,
          memref<32x64xf4E2M1FN>, memref<32x4xf8E4M3FN>, memref<?x32xbf16>
    ```
  }];
  let arguments = (ins Arg<Fp8q_QMemRef, "q", [MemRead]>:$q,
                       Arg<Fp8q_AnyScaleMemRef, "x_scale", [MemRead]>:$x_scale,
                       Arg<Fp8q_QMemRef, "weight", [MemRead]>:$w,
                       Arg<Fp8q_AnyScaleMemRef, "w_scale", [MemRead]>:$w_scale,
                       Arg<Optional<MemRefRankOf<[F32], [0]>>,
                           "NVFP4 product of the global scales", [MemRead]>:
                           $global_scale,
                       Arg<Fp8q_OutMemRef, "output", [MemWrite]>:$out,
                       OptionalAttr<Fp8q_KernelAttr>:$kernel,
                       OptionalAttr<Fp8q_WeightLayoutAttr>:$w_layout);
  let assemblyFormat = [{
    $q `,` $x_scale `,` $w `,` $w_scale
    (`global` `(` $global_scale^ `:` type($global_scale) `)`)? `,` $out
    attr-dict `:`
    type($q) `,` type($x_scale) `,` type($w) `,` type($w_scale) `,`
    type($out)
  }];
  let builders = [
    // A gemm without a global scale (every format but NVFP4).
    OpBuilder<(ins "::mlir::Value":$q, "::mlir::Value":$x_scale,
                   "::mlir::Value":$w, "::mlir::Value":$w_scale,
                   "::mlir::Value":$out,
                   CArg<"::fp8q::KernelAttr", "{}">:$kernel,
                   CArg<"::fp8q::WeightLayoutAttr", "{}">:$w_layout), [{
      build($_builder, $_state, q, x_scale, w, w_scale,
            /*global_scale=*/::mlir::Value(), out, kernel, w_layout);
    }]>
  ];
  let extraClassDeclaration = [{
    /// True when the operands are not FP8 1x128 with f32 scales.
    bool isV2();
  }];
}

def Fp8q_BufferMaterializeOp : Fp8q_BufferOp<"materialize"> {
  let summary = "copy a scale between two buffers of different layouts";
  let description = [{
    Copies source into dest element by element; each side is addressed
    through its own strides. Bufferization emits it only for layouts that
    address different bytes: a materialization between equal layouts
    becomes a view of the source (no op, no copy).

    ```mlir
    fp8q.buffer.materialize %src, %dst
        : memref<?x2xf32>, memref<?x2xf32, strided<[1, ?]>>
    ```
  }];
  let arguments = (ins Arg<Fp8q_AnyScaleMemRef, "source", [MemRead]>:$source,
                       Arg<Fp8q_AnyScaleMemRef, "destination", [MemWrite]>:
                           $dest);
  let assemblyFormat = [{
    $source `,` $dest attr-dict `:` type($source) `,` type($dest)
  }];
  let extraClassDeclaration = [{
    /// True when a side is not a strided f32 scale (SPEC v2's entry point).
    bool isV2();
  }];
}

def Fp8q_BufferPreshuffleOp : Fp8q_BufferOp<"preshuffle"> {
  let summary = "write a weight in the preshuffle_16x16 byte order";
  let description = [{
    Reads the row-major [N, K] weight w and writes its bytes permuted per
    `#fp8q.weight_layout<preshuffle_16x16>` into dest (a plain [N, K]
    buffer). An f4E2M1FN weight is permuted byte-wise: its [N, K / 2]
    packed bytes move as an [N, K / 2] fp8 weight's would (AITER's
    shuffle_weight for fp4), so K % 64 == 0.

    ```mlir
    fp8q.buffer.preshuffle %w, %p : memref<320x256xf8E4M3FN>,
                                    memref<320x256xf8E4M3FN>
    ```
  }];
  let arguments = (ins Arg<Fp8q_WeightMemRef, "weight", [MemRead]>:$w,
                       Arg<Fp8q_WeightMemRef, "destination", [MemWrite]>:$dest);
  let assemblyFormat = "$w `,` $dest attr-dict `:` type($w) `,` type($dest)";
}

// Collectives (docs/Lowering.md, "Collectives"): bufferized shard.all_gather
// and shard.reduce_scatter along dim 0. They move dense row-major bytes, so
// both sides are contiguous buffers; a scale in another layout is
// materialized row_major before it crosses (a dim-0 gather of a col_major
// scale would interleave the ranks' blocks: vLLM 42118).
def Fp8q_CollectiveMemRef
    : MemRefRankOf<[BF16, F16, F32, F8E4M3FN, F8E4M3FNUZ, F8E5M2,
                    F8E8M0FNU], [2]>;

def Fp8q_BufferAllGatherOp : Fp8q_BufferOp<"all_gather"> {
  let summary = "concatenate every rank's rows along dim 0";
  let description = [{
    dest[r * M + i, j] = input of rank r [i, j] for the `ranks` ranks of the
    communicator (shard.all_gather on a one-axis grid, gather_axis = 0).
    Both buffers are contiguous row-major; dest has ranks * M rows.

    ```mlir
    fp8q.buffer.all_gather %q, %g ranks(8)
        : memref<16x6144xf8E4M3FN>, memref<128x6144xf8E4M3FN>
    ```
  }];
  let arguments = (ins Arg<Fp8q_CollectiveMemRef, "input", [MemRead]>:$input,
                       Arg<Fp8q_CollectiveMemRef, "destination", [MemWrite]>:
                           $dest,
                       ConfinedAttr<I64Attr, [IntMinValue<1>]>:$ranks);
  let assemblyFormat = [{
    $input `,` $dest `ranks` `(` $ranks `)` attr-dict `:` type($input) `,`
    type($dest)
  }];
}

def Fp8q_BufferReduceScatterOp : Fp8q_BufferOp<"reduce_scatter"> {
  let summary = "sum every rank's rows, keep this rank's block of them";
  let description = [{
    dest[i, j] = sum over ranks r of input of rank r [rank * M / ranks + i, j]
    (shard.reduce_scatter on a one-axis grid, reduction = sum,
    scatter_axis = 0), bf16 in and out. Both buffers are contiguous
    row-major; dest has M / ranks rows.

    ```mlir
    fp8q.buffer.reduce_scatter %y, %r ranks(8)
        : memref<128x6144xbf16>, memref<16x6144xbf16>
    ```
  }];
  let arguments = (ins Arg<MemRefRankOf<[BF16], [2]>, "input", [MemRead]>:
                           $input,
                       Arg<MemRefRankOf<[BF16], [2]>, "destination",
                           [MemWrite]>:$dest,
                       ConfinedAttr<I64Attr, [IntMinValue<1>]>:$ranks);
  let assemblyFormat = [{
    $input `,` $dest `ranks` `(` $ranks `)` attr-dict `:` type($input) `,`
    type($dest)
  }];
}

#endif // FP8Q_DIALECT_IR_FP8QBUFFEROPS_TD
