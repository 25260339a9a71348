//===- CheckpointBinding.h - Decode-step arguments and checkpoints -*- C++
//-*-===//
//
// Binds the arguments of a generated decode step to the tensors of a Hugging
// Face FP8 checkpoint, one to one, by name. The generator names each
// argument by its location: "layers.<l>.<module>.weight" (an FP8 weight
// [N, K], or a bf16 norm weight [K], or a bf16 weight [K, N] kept out of FP8
// by modules_to_not_convert), "layers.<l>.<module>.weight_scale_inv" (its
// f32 [ceil(N/128), K/128] block scale), and "layers.stacked.<module>..." for
// the stacked [L, ...] arguments of --layers-as-loop. The checkpoint spells
// the same tensors "model.layers.<l>.<module>.weight" and so on, except where
// the generator fuses what the checkpoint stores apart (rows concatenated
// along N): fused_qkv_a_proj = q_a_proj ++ kv_a_proj_with_mqa, gate_up_proj
// = gate_proj ++ up_proj (w1 ++ w3 in MiniMax-M2's block_sparse_moe), qkv_proj
// = q_proj ++ k_proj ++ v_proj; MiniMax-M2's down_proj is w2.
// docs/Checkpoints.md has the whole table.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_MODELGEN_CHECKPOINTBINDING_H
#define FP8Q_MODELGEN_CHECKPOINTBINDING_H

#include "fp8q/Support/Safetensors.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>
#include <vector>

namespace fp8q {

/// Where the values of one per-layer argument may be stored, in the order
/// they are tried: each candidate is a list of checkpoint tensor names whose
/// rows, concatenated along dimension 0, make up the argument. `irName` is
/// the generator's name without the stacking ("layers.0.mlp.down_proj.weight").
std::vector<std::vector<std::string>>
checkpointCandidates(llvm::StringRef irName);

/// One argument of the step bound to checkpoint tensors.
struct BoundArgument {
  unsigned argIndex = 0;
  /// The generator's name of the argument (its location).
  std::string irName;
  /// The safetensors dtype every part has.
  std::string dtype;
  /// For each stacked layer (one entry when not stacked), the tensors whose
  /// rows make up that layer's slice, in order.
  std::vector<std::vector<const SafetensorsTensor *>> parts;
  /// A bf16 weight [K, N] read from the checkpoint's [N, K] (transposed).
  bool transposed = false;
};

/// The outcome of binding a step to a checkpoint.
struct CheckpointBinding {
  /// Every argument that was found, matching in dtype and shape.
  std::vector<BoundArgument> arguments;
  /// Located mismatches ("<file>: tensor '<name>': ..."), in argument order.
  std::vector<std::string> errors;
  /// FP8 tensors of the checkpoint that no argument reads, by name.
  std::vector<std::string> uncovered;
  /// The FP8 weights bound (a fused one counts once) and the routed-expert
  /// tensors the IR's top-k experts stand for (checked against them).
  int64_t fp8Weights = 0, representedExperts = 0;
};

/// Binds every argument of `fn` to `checkpoint`. Names come from the
/// arguments' locations (the generator's NameLocs; a printed module keeps
/// them with --mlir-print-debuginfo). The step's input (the argument the
/// generator names after the function, or any argument named outside
/// "layers.") is bound when the checkpoint holds a tensor of its name and
/// skipped otherwise; a missing weight is an error. With `acceptFnuz`, an
/// f8E4M3FNUZ argument matches an F8_E4M3 tensor (converted at load time
/// for gfx942, as serving stacks do; assembleArgument does not convert).
CheckpointBinding bindCheckpoint(mlir::func::FuncOp fn,
                                 const SafetensorsCheckpoint &checkpoint,
                                 bool acceptFnuz);

/// The bytes of `arg` as the step reads them, row-major little-endian:
/// its parts concatenated per layer, transposed where `arg.transposed`.
std::vector<uint8_t> assembleArgument(const BoundArgument &arg,
                                      const SafetensorsCheckpoint &checkpoint);

} // namespace fp8q

#endif // FP8Q_MODELGEN_CHECKPOINTBINDING_H
