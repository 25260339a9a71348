//===- ArtifactInterface.h - The C ABI of an fp8q artifact ------*- C++ -*-===//
//
// Adds to the LLVM IR of a lowered module what a serving stack calls
// without MLIR (docs/Artifact.md): a uniform `void fp8q_step_<fn>(void **)`
// per entry, `const char *fp8q_artifact_manifest(void)`, and hidden
// visibility for every other definition, so that the object or shared
// library exports exactly the documented symbols.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_ARTIFACT_ARTIFACTINTERFACE_H
#define FP8Q_ARTIFACT_ARTIFACTINTERFACE_H

#include "fp8q/Artifact/ArtifactSpec.h"

#include "llvm/Support/Error.h"

namespace llvm {
class Module;
} // namespace llvm

namespace fp8q::artifact {

/// Defines `void fp8q_step_<name>(void **args)` for every entry of `spec`:
/// args[i] points at the value of argument i (a memref descriptor; in device
/// mode the last argument is a `void *` stream), then one slot per result
/// pointing at a descriptor the call fills. Each calls the entry's
/// `_mlir_ciface_<name>`, which must be in `module` with the parameters
/// `spec` says (resolveExecution checked them).
llvm::Error addEntryWrappers(llvm::Module &module, const ArtifactSpec &spec);

/// Defines `const char *fp8q_artifact_manifest(void)` returning `json`
/// (a NUL-terminated private constant).
void addManifest(llvm::Module &module, llvm::StringRef json);

/// Defines, hidden, the compiler-rt helpers that code generation calls for
/// bf16 arithmetic on targets without bf16 instructions (`__truncsfbf2`,
/// fp32 -> bf16 round-to-nearest-even, NaN kept quiet: the CPU runtime's
/// fp8q_f32_to_bf16), so that an artifact needs no compiler runtime
/// library (ExecutionEngine users get them from libmlir_c_runner_utils).
void addCompilerRuntimeHelpers(llvm::Module &module);

/// The bitcode of lib/Artifact/Support/ArtifactSupport.c, embedded at
/// build time.
llvm::StringRef getSupportBitcode();

/// Links into `module` the helpers of ArtifactSupport.c it calls (MLIR's
/// memrefCopy, which libmlir_c_runner_utils provides to ExecutionEngine
/// users), and nothing else; they become hidden definitions.
llvm::Error linkSupportLibrary(llvm::Module &module);

/// Inlines each entry's MLIR-lowered function into its `_mlir_ciface_`
/// wrapper, its only caller, and deletes it. That function takes every
/// descriptor field as a scalar: 27,000 parameters for the 3,961 tensors of
/// an unrolled 78-layer step, and code generation of a call and an entry
/// with that many takes minutes; the wrapper reads the fields straight from
/// the descriptors instead.
void inlineEntryBodies(llvm::Module &module, const ArtifactSpec &spec);

/// Marks `optnone noinline` every function of more than `maxInstructions`
/// instructions, and every loop-free one of more than an eighth of that. What
/// --fp8q-pipeline leaves in the public function of a decode step once its loop
/// nests are outlined is straight-line glue: allocations, descriptors and
/// runtime calls, tens of thousands of instructions in one block for a full
/// model. Optimizing and scheduling it costs time faster than linear in its
/// size (most of compiling 78 layers) and gains nothing measurable at run time,
/// where the runtime's kernels dominate; the loop nests in the chunk functions
/// keep -O2. In device mode the chunks themselves are such glue (launch
/// sequences, no loops).
void compileHugeFunctionsFast(llvm::Module &module, unsigned maxInstructions);

/// Gives every definition hidden visibility except the artifact's exports:
/// `fp8q_step_<fn>` and `_mlir_ciface_<fn>` of each entry and
/// `fp8q_artifact_manifest`. Declarations (the runtime's entry points, libc)
/// stay imports.
void restrictExports(llvm::Module &module, const ArtifactSpec &spec);

} // namespace fp8q::artifact

#endif // FP8Q_ARTIFACT_ARTIFACTINTERFACE_H
