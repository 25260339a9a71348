//===- Passes.td - fp8q conversion passes ------------------*- tablegen -*-===//

#ifndef FP8Q_CONVERSION_PASSES_TD
#define FP8Q_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def Bufferize : Pass<"fp8q-bufferize", "mlir::ModuleOp"> {
  let summary = "One-Shot Bufferize a whole module with fp8q scale layouts";
  let description = [{
    Runs upstream One-Shot Module Bufferize with function boundaries
    included. fp8q ops become their `fp8q.buffer.*` forms; a scale's layout
    encoding becomes the memref's strided layout (row_major: identity,
    col_major: `strided<[1, M]>`, col_major align a:
    `strided<[1, roundup(M, a)]>`, dynamic M: `strided<[1, ?]>`), and so do
    the function signatures that carry them. A tensor argument or result
    without encoding becomes an identity-layout memref (a public signature
    is an ABI). Column-major scales are allocated as the transposed [G, ld]
    buffer and viewed through `memref.reinterpret_cast`. A materialization
    between equal layouts becomes a view, never a copy. A public function's
    tensor arguments are read-only (its signature is an ABI): results are
    never written into them unless the argument is marked
    `bufferization.writable = true`. A constant scale materialized into a
    kernel's layout and read only by gemms is laid out at compile time
    instead of copied at run time: a private constant `memref.global` holds
    the layout's whole allocation in stored order (padding 0), viewed in
    the layout (lib/Conversion/FoldConstantScales.cpp).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numMaterializeCopies", "materialize-copies",
              "fp8q.materialize ops that became copies">,
    Statistic<"numMaterializeViews", "materialize-views",
              "fp8q.materialize ops between equal layouts that became views">,
    Statistic<"numConstantScalesFolded", "constant-scales-folded",
              "constant scales laid out at compile time (no copy)">
  ];
}

def LowerToRuntime : Pass<"fp8q-lower-to-runtime", "mlir::ModuleOp"> {
  let summary = "Lower fp8q.buffer.* ops to calls into the fp8q runtime ABI";
  let description = [{
    A full dialect conversion. Each `fp8q.buffer.*` op becomes a `func.call`
    to the matching `fp8q_rt_*` entry point of
    include/fp8q/Runtime/fp8q_runtime.h (see docs/RuntimeABI.md). Each entry
    point is declared once per module as a private function with
    `llvm.emit_c_interface`, so after lowering to LLVM the call passes
    pointers to MLIR's strided memref descriptors. Memref operands are
    `memref.cast` to the fully dynamic strided form: the real offset, sizes
    and strides travel in the descriptor and the runtime sees the layout the
    buffer really has. fp8 operands are declared as bytes (`i8`), whatever
    their flavour: the flavour travels only in the `fp8_type` argument.
    Scalar arguments (group size, epsilon, kernel id, fp8 flavour, weight
    layout) follow the ABI. A gemm without a `kernel` is an error: run
    --fp8q-select-kernels first.

    The conversion target admits nothing of the fp8q dialect, so the result
    parses in tools that do not load it (upstream `mlir-opt`,
    `mlir-runner`). The type converter maps an fp8q-encoded tensor type to
    the memref bufferization gives it (scale layouts become strided layouts,
    a weight layout is dropped); function signatures, calls and returns
    that still name one are converted. The module's `fp8q.*` attributes
    (`fp8q.target`) and the fp8q encoding of tensor types nested in
    constants are dropped (a weight preshuffled at compile time becomes a
    `memref.global` whose initial value was typed with
    `#fp8q.weight_layout`: its bytes already are the stored layout). Any
    other fp8q op, type or attribute fails the conversion with an error at
    the op.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
  let options = [
    Option<"device", "device", "bool", /*default=*/"false",
           "Device execution: call the `fp8q_rt_device_*` entry points, each "
           "with the enclosing function's stream (its trailing "
           "`!gpu.async.token` argument, added by --fp8q-device-buffers) as "
           "the last argument">
  ];
  let statistics = [
    Statistic<"numCalls", "runtime-calls", "Runtime calls emitted">
  ];
}

def OutlineLoops : Pass<"fp8q-outline-loops", "mlir::ModuleOp"> {
  let summary = "Split large functions into chunks of loop nests";
  let description = [{
    A model's decode step is one large function; after bufferization and
    deallocation its elementwise ops are `scf.for` nests and its tail is one
    `scf.if` per buffer, thousands of them. The upstream lowering of `scf`
    to `cf` and of `func` to LLVM grows faster than linearly with the size
    of one function, and `func-to-llvm` also with the number of functions.
    In every function with more than `min-loops` outermost `scf.for` /
    `scf.if` nests, the pass moves runs of consecutive ops holding at most
    `chunk-nests` nests into private functions (`<function>_part<N>`):
    values a run uses become arguments (constants are cloned), values it
    defines and later ops use are returned. Terminators, branches and stack
    allocations stay. Semantics do not change.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::scf::SCFDialect"];
  let options = [
    Option<"minLoops", "min-loops", "unsigned", /*default=*/"16",
           "Split only functions with more than this many outermost "
           "loop nests">,
    Option<"chunkNests", "chunk-nests", "unsigned", /*default=*/"32",
           "Largest number of outermost nests per outlined function">
  ];
  let statistics = [
    Statistic<"numOutlined", "functions-outlined", "Functions outlined">
  ];
}

def LowerStridedClones : Pass<"fp8q-lower-strided-clones", "mlir::ModuleOp"> {
  let summary = "Lower bufferization.clone of strided buffers to a copy";
  let description = [{
    Ownership-based deallocation clones a buffer a function returns without
    owning it, such as a scale argument returned unchanged by a public
    function. Upstream `convert-bufferization-to-memref` lowers a clone only
    when an identity-layout allocation can be cast to its type, so the clone
    of a column-major scale (`strided<[1, M]>`, `strided<[1, ?]>`) fails to
    legalize. This pass runs before it and lowers every clone with a
    non-identity layout: a new buffer spanning exactly the source's
    addressed elements, viewed with the source's sizes and strides
    (`memref.reinterpret_cast`), filled by `linalg.copy`. The clone has the
    same layout as its source, so the result type is unchanged. Clones with
    identity layouts are left to upstream.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numClones", "clones-lowered", "Strided clones lowered">
  ];
}

def DeviceBuffers : Pass<"fp8q-device-buffers", "mlir::ModuleOp"> {
  let summary = "Device execution: every buffer of a step in device memory, "
                "one stream passed in";
  let description = [{
    Runs on the bufferized, deallocated module, before
    --fp8q-lower-to-runtime{device=true}. It makes the step's buffers device
    buffers and threads one stream through the step:

    - every function with a body gets a trailing `!gpu.async.token`
      argument, the stream (a `cudaStream_t` / `hipStream_t` after
      `gpu-to-llvm`), and every call of such a function passes the caller's;
      public functions get `llvm.emit_c_interface`: a step is called from C
      as `_mlir_ciface_<name>(results, descriptors..., void *stream)`;
    - `memref.alloc` / `memref.dealloc` of tensor data become
      `gpu.alloc async [%stream]` / `gpu.dealloc async [%stream]` (the
      runtime's stream-ordered allocator); buffers of `index` / `i1`
      elements are the deallocation's host-side bookkeeping and stay;
    - `memref.copy` between identity layouts becomes `gpu.memcpy async`,
      between strided ones `linalg.copy` (a GPU kernel after mapping);
    - at the entry of every public function one
      `fp8q_rt_device_check_arg(ptr, span_bytes, index, stream)` per memref
      argument lets the runtime reject a host pointer or a bad stream before
      anything runs;
    - the module's `fp8q.target` names the GPU target (sm90 -> NVVM sm_90,
      gfx950 / gfx942 -> ROCDL), recorded as `fp8q_device.gpu_targets` for
      --fp8q-device-launches.

    A constant tensor that is not a splat (a `memref.get_global`) has no
    device copy: it is an error at the constant; pass it as an argument.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::ROCDL::ROCDLDialect"];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "GPU chip (sm_90, gfx950, gfx942); empty: from fp8q.target">
  ];
  let statistics = [
    Statistic<"numAllocs", "device-allocs", "Buffers moved to device memory">,
    Statistic<"numChecks", "argument-checks", "Argument checks inserted">
  ];
}

def DeviceLaunches : Pass<"fp8q-device-launches", "mlir::ModuleOp"> {
  let summary = "Device execution: launches on the step's stream, GPU "
                "targets attached, no host access to tensor data";
  let description = [{
    Runs after `gpu-kernel-outlining`. Every `gpu.launch_func` becomes
    `async [%stream]` on the enclosing function's stream (its trailing
    `!gpu.async.token` argument), so a step is one stream-ordered sequence
    that a CUDA / HIP graph can capture; identical outlined kernels are
    merged into one `gpu.module`; every `gpu.module` gets the targets
    --fp8q-device-buffers recorded. Then it proves the step's host code
    touches no tensor data: a `memref.load`, `memref.store`, `memref.copy`
    or linalg op outside a `gpu.module` on anything but the deallocation's
    `index` / `i1` bookkeeping is an error at that op.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
  let statistics = [
    Statistic<"numLaunches", "launches", "Kernel launches on the stream">,
    Statistic<"numMerged", "kernels-merged", "Identical kernels merged">
  ];
}

def DeviceKernels : Pass<"fp8q-device-kernels", "mlir::ModuleOp"> {
  let summary = "Device execution: compile every gpu.module for its target "
                "and embed the binary";
  let description = [{
    Runs after --fp8q-device-launches. Each `gpu.module` is lowered by the
    upstream conversion of its target (`convert-gpu-to-nvvm` for
    `#nvvm.target`, `convert-gpu-to-rocdl{chipset=...}` for
    `#rocdl.target`), then upstream `gpu-module-to-binary` turns the modules
    into `gpu.binary` ops: NVVM as PTX (`format=isa`; the driver compiles it
    for the device at load, so no CUDA toolkit is needed at compile time),
    ROCDL as code objects (`format=bin`, linked by the `ld.lld` found under
    `rocdl-toolkit/llvm/bin`). The binaries are embedded in the output; at
    translation to LLVM IR they become globals loaded by a constructor.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::ROCDL::ROCDLDialect"];
  let options = [
    Option<"nvvmFormat", "nvvm-format", "std::string", /*default=*/"\"isa\"",
           "gpu-module-to-binary format for NVVM: isa (PTX), bin (cubin, "
           "needs ptxas), fatbin">,
    Option<"rocdlToolkit", "rocdl-toolkit", "std::string", /*default=*/"\"\"",
           "Folder holding llvm/bin/ld.lld for ROCDL code objects">
  ];
}

#endif // FP8Q_CONVERSION_PASSES_TD
