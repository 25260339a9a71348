//===- Passes.td - fp8q transformation passes --------------*- tablegen -*-===//

#ifndef FP8Q_TRANSFORMS_PASSES_TD
#define FP8Q_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def VerifyContracts : Pass<"fp8q-verify-contracts", "mlir::ModuleOp"> {
  let summary = "Fail on any GEMM whose operands break its kernel's contract";
  let description = [{
    Checks every `fp8q.gemm` against the kernel-contract table: the block
    format (SPEC v2: the kernel must read the gemm's format), the x_scale
    layout (compared by the bytes it addresses, or any strided layout for
    a kernel that takes strides; the need `--fp8q-propagate-scale-layout`
    solves for, found by the same scale-layout analysis run read-only), the
    w_scale layout (row_major for FP8 1x128 kernels; swizzle_32_4_4,
    cdna4_mx or col_major pack = 4 for SPEC v2's) and, for UE8M0 weight
    scales, their granularity (deepgemm_sm100 reads one per weight row,
    the others one per 128x128 block), the weight layout, and, when the
    module has an `fp8q.target`, that the kernel runs on that target (ROCm
    version; the fp8 flavour for FP8 1x128). A gemm without a kernel has no
    contract to prove and is an error. Every `shard.all_gather` /
    `shard.reduce_scatter` must be one fp8q lowers (dim 0, one static grid
    axis; docs/Lowering.md, "Collectives"), with every scale crossing it
    row_major and no packed f4E2M1FN operand. Changes nothing.
  }];
  let dependentDialects = ["::fp8q::Fp8qDialect"];
  let statistics = [
    Statistic<"numGemmsChecked", "gemms-checked",
              "Number of fp8q.gemm ops checked">,
    Statistic<"numViolations", "violations",
              "Number of contract violations reported">
  ];
}

def SelectKernels : Pass<"fp8q-select-kernels", "mlir::ModuleOp"> {
  let summary = "Choose the GEMM kernel from the module's target and shapes; "
                "preshuffle ck_bpreshuffle weights";
  let description = [{
    Runs, in order, `--fp8q-route-kernels` (with `tuned-table` and
    `sm90-kernel`), `--fp8q-check-fp8-type` (with `fix-fp8-type`) and
    `--fp8q-insert-preshuffle`, stopping at the first that fails; see each
    for what it does. In short:

    - every `fp8q.gemm` without a `kernel` gets the one a serving stack
      (SGLang) would route it to from the module's `fp8q.target` (an
      explicit kernel is kept; a module without `fp8q.target` is an error
      unless every gemm already names a kernel);
    - fp8 flavours the target's kernels do not read are reported, or with
      `fix-fp8-type` repaired;
    - every weight a ck_bpreshuffle or aiter_mxfp4 gemm reads gets its
      preshuffled form.

    Running the pass twice changes nothing.
  }];
  let dependentDialects = ["::fp8q::Fp8qDialect", "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    Option<"tunedTable", "tuned-table", "std::string", /*default=*/"\"\"",
           "JSON file that replaces the embedded tuned-shape table">,
    Option<"sm90Kernel", "sm90-kernel", "std::string",
           /*default=*/"\"deepgemm\"",
           "Kernel for sm90 gemms: deepgemm or cublas">,
    Option<"fixFp8Type", "fix-fp8-type", "bool", /*default=*/"false",
           "Rewrite quantize producers and constant weights to the target's "
           "fp8 flavour instead of reporting a mismatch">
  ];
}

def RouteKernels : Pass<"fp8q-route-kernels", "mlir::ModuleOp"> {
  let summary = "Set the GEMM kernel of every unrouted fp8q.gemm from the "
                "module's target and shapes";
  let description = [{
    The first step of `--fp8q-select-kernels`. Sets `kernel` on every
    `fp8q.gemm` that has none (an explicit kernel is kept), following the
    routing a serving stack (SGLang) applies by hand, from the module
    attribute `fp8q.target`:

    - gfx950 where ck_bpreshuffle runs (ROCm >= 7.2, from the contract
      table): `ck_bpreshuffle`, or `triton` when the weight's (N, K) is
      tuned (or N % 16 != 0, which preshuffle_16x16 cannot hold);
    - gfx950 with an older or no ROCm: `ck`, or `triton` when (N, K) is tuned
      or M exceeds the shape's safe maximum for ck. With a dynamic M both
      variants are emitted under `scf.if (M > max)` so that layout
      propagation sees both consumers;
    - gfx942: `triton`;
    - sm90: `deepgemm`, or the kernel named by `sm90-kernel`.

    SPEC v2's formats (chosen by the gemm's element types and group), and
    FP8 1x128 on sm100, go to the first kernel in this order that the
    contract table lets read the format on the target (arch, ROCm version)
    and whose weight layout the weight can take:

    - MXFP4: `aiter_mxfp4` (gfx950, ROCm >= 7.0; the fp4 weight must be
      preshuffle-able: N % 16 == 0, K % 64 == 0), then `triton`;
    - MXFP8: `cublas_mx` (sm100), then `triton`;
    - NVFP4: `cublas_mx` (sm100);
    - FP8 1x128 with e8m0 scales (UE8M0): `deepgemm_sm100` (sm100);
    - FP8 1x128 (f32 scales) on sm100: `triton`.

    A gemm whose format no kernel of the target reads is a located error
    naming the format, its element types and the target.

    A module without `fp8q.target` is an error unless every gemm already
    names a kernel. Nothing else changes: fp8 flavours and weight layouts
    are `--fp8q-check-fp8-type`'s and `--fp8q-insert-preshuffle`'s.

    Tuned table (`tuned-table=<file.json>` replaces the embedded default of
    REFERENCE.md; it is read once, when the pass is initialized): a JSON
    object with exactly these keys, both optional:

    ```json
    {
      "triton_tuned": [[1024, 8192], [16384, 1536]],
      "ck_max_m": [ {"n": 4608, "k": 4096, "max_m": 512} ]
    }
    ```

    `triton_tuned` lists the gfx950 weight shapes [N, K] with a tuned Triton
    config; `ck_max_m` gives, per [N, K], the largest M the plain ck kernel
    handles correctly on ROCm < 7.2. N, K and max_m are positive integers.
    A malformed file is an error naming the file and the entry.
  }];
  let dependentDialects = ["::fp8q::Fp8qDialect", "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    Option<"tunedTable", "tuned-table", "std::string", /*default=*/"\"\"",
           "JSON file that replaces the embedded tuned-shape table">,
    Option<"sm90Kernel", "sm90-kernel", "std::string",
           /*default=*/"\"deepgemm\"",
           "Kernel for sm90 gemms: deepgemm or cublas">
  ];
  let statistics = [
    Statistic<"numCkBpreshuffle", "routed-ck-bpreshuffle",
              "Gemms routed to ck_bpreshuffle">,
    Statistic<"numCk", "routed-ck", "Gemms routed to ck">,
    Statistic<"numTriton", "routed-triton", "Gemms routed to triton">,
    Statistic<"numDeepGemm", "routed-deepgemm", "Gemms routed to deepgemm">,
    Statistic<"numCublas", "routed-cublas", "Gemms routed to cublas">,
    Statistic<"numAiterMxfp4", "routed-aiter-mxfp4",
              "Gemms routed to aiter_mxfp4">,
    Statistic<"numCublasMx", "routed-cublas-mx", "Gemms routed to cublas_mx">,
    Statistic<"numDeepGemmSm100", "routed-deepgemm-sm100",
              "Gemms routed to deepgemm_sm100">,
    Statistic<"numMBranches", "m-branches",
              "Dynamic-M gemms split into ck / triton under scf.if">
  ];
}

def CheckFp8Type : Pass<"fp8q-check-fp8-type", "mlir::ModuleOp"> {
  let summary = "Report, or with fix-fp8-type repair, fp8 flavours the "
                "target's kernels do not read";
  let description = [{
    The second step of `--fp8q-select-kernels`; every `fp8q.gemm` must name
    its kernel (run `--fp8q-route-kernels` first). A module without
    `fp8q.target` is left alone.

    gfx942 reads f8E4M3FNUZ, the other targets f8E4M3FN, and each gemm reads
    the flavour its kernel's contract names on the target. A quantize
    producer or gemm with another flavour is an error, unless `fix-fp8-type`
    is set: then quantize / rms_norm_quantize producers are retyped to the
    target's flavour (their q must feed gemms directly) and constant weights
    are converted exactly (E4M3FN -> E4M3FNUZ halves the value, same bits,
    and doubles the weight scale). Running the pass twice changes nothing.
  }];
  let dependentDialects = ["::fp8q::Fp8qDialect", "::mlir::arith::ArithDialect"];
  let options = [
    Option<"fixFp8Type", "fix-fp8-type", "bool", /*default=*/"false",
           "Rewrite quantize producers and constant weights to the target's "
           "fp8 flavour instead of reporting a mismatch">
  ];
  let statistics = [
    Statistic<"numFp8Retyped", "fp8-retyped",
              "Quantize producers and constant weights moved to the "
              "target's fp8 flavour">
  ];
}

def InsertPreshuffle : Pass<"fp8q-insert-preshuffle", "mlir::ModuleOp"> {
  let summary = "Give every weight a preshuffle-reading kernel reads its "
                "preshuffled form";
  let description = [{
    The third step of `--fp8q-select-kernels`; every `fp8q.gemm` must name
    its kernel (run `--fp8q-route-kernels` first). Which kernels read a
    preshuffled weight is the contract table's call (today ck_bpreshuffle
    and aiter_mxfp4, whose f4E2M1FN weights are shuffled byte-wise).

    Every such weight gets one `fp8q.preshuffle` per weight value, right
    after its definition, however many gemms share it (a preshuffle the
    input already has is reused). A dense `arith.constant` weight is
    permuted at compile time instead, by `fp8q.preshuffle`'s folder (the
    new constant's literal lists the stored bytes in preshuffled order), and
    an explicit `fp8q.preshuffle` of a constant is folded the same way.
    A weight that is already preshuffled is left alone, and no other
    kernel's weight is touched. A weight preshuffle_16x16 cannot hold
    (N % 16 != 0 or K % 32 != 0; K % 64 != 0 for f4E2M1FN) is an error.
    A non-splat f4E2M1FN constant is not folded (the permutation is
    byte-wise over packed nibbles): it keeps its fp8q.preshuffle. Running
    the pass twice changes nothing.
  }];
  let dependentDialects = ["::fp8q::Fp8qDialect", "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numPreshufflesInserted", "preshuffles-inserted",
              "fp8q.preshuffle ops inserted">,
    Statistic<"numConstantsPreshuffled", "constants-preshuffled",
              "Constant weights preshuffled at compile time">
  ];
}

def PropagateScaleLayout : Pass<"fp8q-propagate-scale-layout", "mlir::ModuleOp"> {
  let summary = "Assign activation-scale layouts and insert the fewest "
                "fp8q.materialize ops";
  let description = [{
    Gives every scale consumer the layout it reads, at the lowest copy cost.
    Existing `fp8q.materialize` ops are removed first (the pass re-derives
    every one it needs), scale values are grouped into nodes that must share
    a type (scf.for / scf.if / scf.while carried values, private function
    arguments and results, tensor.cast / extract_slice / concat along M),
    the free nodes get the layout assignment with the fewest
    materializations (exact branch and bound; the cost model is in
    fp8q/Transforms/ScaleLayoutSolver.h),
    and one `fp8q.materialize` per (value, needed layout) is inserted right
    after the value's definition. Public function signatures never change.
    With `fuse-producers`, fp8q.quantize / fp8q.rms_norm_quantize scale
    results are retyped (the transposed write is fused into the producer).
    Any other consumer of a scale gets it row-major, with a remark. Running
    the pass twice changes nothing.

    Scales are f32 (FP8 1x128) or SPEC v2's 1-byte f8E8M0FNU / f8E4M3FN.
    An f32 scale takes the strided layouts only; a 1-byte one also the
    padded layouts the contract table names (col_major pack = 4,
    swizzle_32_4_4, cdna4_mx), so a quantize can write the swizzled layout
    its kernel reads. A kernel that takes strides (triton) accepts any
    strided layout, and a value in a padded one gets one copy to row_major
    for it. SPEC v2 weight scales carry the kernel's w_scale layout too
    (FP8 1x128 ones stay row-major): a weight-scale argument read by many
    gemms, in or out of loops, is re-laid out once, where it is defined.
  }];
  let dependentDialects = ["::fp8q::Fp8qDialect"];
  let options = [
    Option<"fuseProducers", "fuse-producers", "bool", /*default=*/"true",
           "Retype quantize / rms_norm_quantize scale results to the layout "
           "that needs the fewest materializations">,
    Option<"reportCounts", "report-counts", "bool", /*default=*/"false",
           "Emit a remark on the module with the statistics' counts "
           "(release LLVM builds compile pass statistics out)">
  ];
  let statistics = [
    Statistic<"numMaterializationsInserted", "materializations-inserted",
              "fp8q.materialize ops inserted">,
    Statistic<"numProducersFused", "producers-fused",
              "Scale producers retyped to write another layout">,
    Statistic<"numMaterializationsRemoved", "materializations-removed",
              "fp8q.materialize ops removed as not needed">
  ];
}

def PrepareWeightArgs : Pass<"fp8q-prepare-weight-args", "mlir::ModuleOp"> {
  let summary = "Move the re-layout of weight arguments out of the step into "
                "a companion function called once at load time";
  let description = [{
    Run after `--fp8q-propagate-scale-layout` (and `--fp8q-select-kernels`,
    whose preshuffles it moves too). Propagation re-lays out a weight scale
    argument whose layout is not its kernel's (swizzle_32_4_4, cdna4_mx,
    col_major pack = 4) with one `fp8q.materialize` at the function entry,
    and kernel selection preshuffles a weight argument with one
    `fp8q.preshuffle` there: both run on every call of the step, i.e.
    once per decode step, although weights never change. Serving stacks
    re-lay weights out once, when they load them; this pass gives the
    compiled step that contract.

    A public function argument is prepared when every use of it is one
    `fp8q.materialize` or `fp8q.preshuffle` (one result type) whose every
    use is the `w_scale` (materialize) or `w` (preshuffle) operand of an
    `fp8q.gemm`. Then, for function `@f`:
    - the argument's type becomes the op's result type (the layout is in
      the type) and the op is erased from `@f`;
    - `@f` gets `fp8q.prepared_args = array<i64: ...>`, the indices of its
      prepared arguments, ascending;
    - a public `@f_prepare_weights` is emitted (attribute
      `fp8q.prepares = @f`, and `llvm.emit_c_interface` when `@f` has
      it): its argument i has the original type of
      `@f`'s argument `prepared_args[i]`, and its result i is that argument
      in `@f`'s new type (the moved op computes it). A driver calls it once
      per weight set and passes its results to every step.
    - every `func.call @f` in the module first calls `@f_prepare_weights`
      with the original operands.

    This deliberately changes the public signature of `@f` (SPEC: a public
    signature is the ABI), which is why it is opt-in: the new ABI is stated
    by the types, `fp8q.prepared_args` and the prepare function.

    An argument that is also read in its own layout (by a gemm whose kernel
    reads it as is, or by any other op) is not prepared, with a remark at
    that reader: preparing it would need the original bytes too (two copies
    of the weight in memory) or a copy back on every step, which saves
    nothing. So is one re-laid out to two layouts (two kernels' w_scale
    layouts), remarked at the second re-layout: a step argument has one
    type. Hand-placed re-layouts anywhere in the body (in a loop, say)
    count as one when they agree. Activation scales and any other argument are left alone, and
    so is a function with a symbol use other than `func.call`. Running the
    pass twice changes nothing (a prepared argument has no re-layout left).
    A module that already holds a symbol named `@f_prepare_weights` when
    `@f` has arguments to prepare is an error.
  }];
  let dependentDialects = ["::fp8q::Fp8qDialect",
                           "::mlir::func::FuncDialect"];
  let statistics = [
    Statistic<"numArgsPrepared", "args-prepared",
              "Weight arguments re-laid out by a prepare function instead "
              "of every step">
  ];
}

def FuseElementwiseProducers
    : Pass<"fp8q-fuse-elementwise-producers", "mlir::ModuleOp"> {
  let summary = "Fuse the residual add into fp8q.rms_norm_quantize and the "
                "SiLU x mul into fp8q.quantize";
  let description = [{
    Derives the two producers serving stacks hand-write (vLLM / SGLang
    `fused_add_rms_norm` and `silu_and_mul` + per-group quant), so the
    intermediate activation is never written and read back:

    - `fp8q.rms_norm_quantize(arith.addf(a, b))` becomes
      `fp8q.rms_norm_quantize a residual(b)`, whose extra result, the sum,
      replaces every other use of the add. Legal when every other use runs
      after the norm (in its block, or nested in an op after it), since the
      sum is now defined there.
    - `fp8q.quantize(arith.mulf(silu(g), u))`, silu(g) written as
      `g / (1 + exp(-g))` in f32 (`arith.divf`, `arith.addf` with a splat
      1.0, `math.exp`, `arith.negf`), becomes
      `fp8q.quantize u silu_gate(g)`; when g and u are `arith.extf` of one
      narrower type the fused op reads the narrow tensors (the extension is
      exact). Only when the product has no other use (else it is computed
      anyway), and only for FP8 quantization with f32 scales.

    Both rewrites keep the computed values bit for bit: the fused runtime
    entry points compute the same f32 operations in the same order (see
    docs/RuntimeABI.md). The pass matches arith / math ops on tensors (the
    form fp8q-model-gen emits, before `convert-elementwise-to-linalg`).
    Intermediate ops left without a use are erased. Running the pass twice
    changes nothing.
  }];
  let dependentDialects = ["::fp8q::Fp8qDialect"];
  let statistics = [
    Statistic<"numResidualAddsFused", "residual-adds-fused",
              "Residual adds fused into fp8q.rms_norm_quantize">,
    Statistic<"numSiluMulsFused", "silu-muls-fused",
              "SiLU x mul producers fused into fp8q.quantize">
  ];
}

def FreshElementwiseInits
    : Pass<"fp8q-fresh-elementwise-inits", "mlir::ModuleOp"> {
  let summary = "Give elementwise linalg.generic ops a fresh alloc_tensor "
                "init where writing in place would need a copy or grow a "
                "long in-place chain";
  let description = [{
    A bufferization-preparation pass of `--fp8q-pipeline`, run after
    `--convert-elementwise-to-linalg` and `--empty-tensor-to-alloc-tensor`
    and before One-Shot Bufferize. It changes no value computed, only which
    buffer a result may be written into.

    `convert-elementwise-to-linalg` takes an operand of the result's type as
    the init of each generic, so that the result may reuse its buffer.
    One-Shot Bufferize then proves every in-place write free of conflicts
    against every use of every value aliasing that buffer. In a model's
    decode step those alias sets grow with the function: the residual
    stream chains every layer's adds into one buffer, and the splat 1.0 of
    each SiLU folds into one constant that every layer's init names; the
    analysis becomes quadratic in the number of layers.

    An elementwise (all-parallel) generic on tensors whose payload never
    reads an init keeps that init only when the init value is not a
    constant (a write into a constant is always a copy), has no use after
    the generic (a later use would force a copy), and the chain of in-place
    writes it extends is at most `max-in-place-chain` long. Otherwise the
    init becomes a `bufferization.alloc_tensor` of the same type. Running
    the pass twice changes nothing.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    Option<"maxInPlaceChain", "max-in-place-chain", "unsigned",
           /*default=*/"16",
           "Longest chain of elementwise ops writing in place into one "
           "buffer (bounds One-Shot Bufferize's alias sets); 0 gives every "
           "elementwise generic a fresh init">
  ];
  let statistics = [
    Statistic<"numFreshInits", "fresh-inits",
              "Elementwise inits replaced by a fresh alloc_tensor">,
    Statistic<"numInPlaceInits", "in-place-inits",
              "Elementwise inits kept for an in-place write">
  ];
}

#endif // FP8Q_TRANSFORMS_PASSES_TD
