//===- Tensors.h - Seeded inputs, descriptors, comparisons ------*- C++ -*-===//
//
// The host side of fp8q-step-run: element types of the manifest, the
// seeded input rules (fp8q-run's generator), MLIR memref descriptors for
// the artifact's C ABI, and the per-result comparison.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_STEP_RUN_TENSORS_H
#define FP8Q_STEP_RUN_TENSORS_H

#include "Manifest.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace fp8q::steprun {

/// MLIR's strided memref descriptor, rank <= 8: {allocated, aligned,
/// offset, sizes[rank], strides[rank]} (only the first 2*rank of the array
/// are the descriptor's).
struct Descriptor {
  void *allocated = nullptr, *aligned = nullptr;
  int64_t offset = 0;
  int64_t sizesAndStrides[16] = {};
};

constexpr size_t kMaxRank = 8;

/// Bytes per element of a manifest element type, or 0 if unsupported.
size_t elementSize(const std::string &type);

/// One argument: dense row-major host bytes and their sizes.
struct HostTensor {
  std::string type;
  std::vector<int64_t> sizes;
  std::vector<uint8_t> bytes;
  int64_t numElements() const;
};

/// Seeded inputs for `entry`, in the original layout of its arguments
/// (`originalArgs`: a prepared weight as its prepare entry takes it),
/// dynamic sizes set to `m`. Rules (those of
/// fp8q-run's generator, splitmix64 uniforms in one stream in argument
/// order): bf16/f16/f32 activations uniform in [-1, 1]; rank-1 bf16/f16
/// vectors (norm weights) in [0.9, 1.1]; an f32 argument right after an fp8
/// one (its block scale) in [2^-10, 2^-7]; fp8 weights the fp8 encoding of
/// uniform values in [-max, max] of their flavour (never a NaN byte).
/// `dynamic` receives "arg #i dim d" for every size set to `m`. With
/// `constant`, every byte is kConstantByte instead (for timing whole
/// models), and with `!hostBytes` no host bytes are made at all (a device
/// run fills its buffers on the device).
bool makeInputs(const Entry &entry, int64_t m, uint64_t seed,
                std::vector<HostTensor> &inputs,
                std::vector<std::string> &dynamic, std::string &error,
                bool constant = false, bool hostBytes = true);

/// The byte every element of `--inputs constant` consists of.
constexpr uint8_t kConstantByte = 0x3A;

/// Bytes of a tensor's dense data (its `bytes` may be empty for a device
/// run of `--inputs constant`).
size_t denseBytes(const HostTensor &tensor);

/// Seeded inputs exactly as fp8q-run generates them for an unrolled decode
/// step (static shapes): bf16 activations ~ N(0, 1), rank-1 bf16 norm
/// weights ~ 1 + N(0, 0.1), each fp8 weight [N, K] ~ N(0, 1/sqrt(K))
/// quantized per 128x128 block with its f32 block scale (the argument that
/// follows), in `originalArgs` as makeInputs. Same inputs, so the outputs
/// of both runners can be compared
/// bit for bit. Stacked (rank-3) weights are refused.
bool makeInputsLikeFp8qRun(const Entry &entry, uint64_t seed,
                           std::vector<HostTensor> &inputs, std::string &error);

/// A dense row-major descriptor of `tensor` at `data`.
Descriptor describeDense(const HostTensor &tensor, void *data);

/// Bytes a descriptor spans from `aligned` (offset included).
int64_t spanBytes(const Descriptor &desc, size_t rank, size_t eltSize);

/// Bytes a descriptor's buffer spans from `allocated` (its offset and the
/// gap to `aligned` included).
int64_t extentBytes(const Descriptor &desc, const TensorSpec &spec);

/// Memory a run holds as byte ranges: a result that points into one is an
/// argument returned unchanged (or a view of it), not the caller's to free.
class Holdings {
public:
  /// Adds [begin, begin + bytes).
  void add(const void *begin, size_t bytes);
  /// True if `ptr` lies in a range added.
  bool contains(const void *ptr) const;

private:
  std::vector<std::pair<uintptr_t, uintptr_t>> ranges;
};

/// The dense host copy of a result whose bytes (`span` as spanBytes says,
/// from `aligned`) are already on the host.
HostTensor gatherResult(const TensorSpec &spec, const Descriptor &desc,
                        const uint8_t *span);

/// The values of `tensor` as floats (fp8, bf16, f16, f32 decoded).
std::vector<double> toDoubles(const HostTensor &tensor);

/// One line comparing `actual` with `expected`: bit-exact count, max abs
/// diff, cosine, relative error. Returns false if the shapes differ.
bool compareResults(const HostTensor &actual, const HostTensor &expected,
                    std::string &line);

} // namespace fp8q::steprun

#endif // FP8Q_STEP_RUN_TENSORS_H
