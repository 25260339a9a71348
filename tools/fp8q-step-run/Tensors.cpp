//===- Tensors.cpp - Seeded inputs, descriptors, comparisons --------------===//

#include "Tensors.h"

#include "fp8q/Runtime/fp8q_numerics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace fp8q::steprun {

size_t elementSize(const std::string &type) {
  if (type == "f32" || type == "i32")
    return 4;
  if (type == "bf16" || type == "f16")
    return 2;
  if (type == "f8E4M3FN" || type == "f8E4M3FNUZ" || type == "i8")
    return 1;
  return 0;
}

static bool isFp8(const std::string &type) {
  return type == "f8E4M3FN" || type == "f8E4M3FNUZ";
}

static int fp8Flavour(const std::string &type) {
  return type == "f8E4M3FNUZ" ? FP8Q_F8E4M3FNUZ : FP8Q_F8E4M3FN;
}

int64_t HostTensor::numElements() const {
  int64_t n = 1;
  for (int64_t size : sizes)
    n *= size;
  return n;
}

/// fp8q-run's generator: splitmix64 with 24-bit uniforms in [0, 1).
namespace {
struct Uniforms {
  uint64_t state;
  explicit Uniforms(uint64_t seed) : state(seed * 0x9E3779B97F4A7C15ull + 1) {}
  float operator()() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return float((z ^ (z >> 31)) >> 40) * (1.0f / 16777216.0f);
  }
  /// Irwin-Hall sum of four uniforms, scaled to unit variance.
  float normal() {
    float a = (*this)(), b = (*this)(), c = (*this)(), d = (*this)();
    return (a + b + c + d - 2.0f) * 1.7320508f;
  }
};
} // namespace

bool makeInputsLikeFp8qRun(const Entry &entry, uint64_t seed,
                           std::vector<HostTensor> &inputs,
                           std::string &error) {
  Uniforms uniform(seed);
  const std::vector<TensorSpec> &specs = entry.originalArgs;
  for (size_t i = 0; i < specs.size(); ++i) {
    const TensorSpec &spec = specs[i];
    HostTensor tensor{spec.type, spec.shape, {}};
    for (int64_t size : spec.shape)
      if (size < 0) {
        error =
            "--inputs=fp8q-run-seeds needs static shapes (as fp8q-run does)";
        return false;
      }
    int64_t n = tensor.numElements();
    if (spec.type == "bf16" && spec.shape.size() <= 2) {
      bool norm = spec.shape.size() == 1;
      tensor.bytes.resize(2 * n);
      for (int64_t e = 0; e < n; ++e) {
        float v = norm ? 1.0f + 0.1f * uniform.normal() : uniform.normal();
        uint16_t bits = fp8q_f32_to_bf16(v);
        std::memcpy(tensor.bytes.data() + 2 * e, &bits, 2);
      }
      inputs.push_back(std::move(tensor));
      continue;
    }
    if (isFp8(spec.type) && spec.shape.size() == 2 && i + 1 < specs.size() &&
        specs[i + 1].type == "f32") {
      int64_t rows = spec.shape[0], cols = spec.shape[1];
      int64_t blocksN = (rows + 127) / 128, blocksK = cols / 128;
      if (specs[i + 1].shape != std::vector<int64_t>{blocksN, blocksK}) {
        error = "fp8 weight argument #" + std::to_string(i) +
                " is not followed by its block scale";
        return false;
      }
      int flavour = fp8Flavour(spec.type);
      float sigma = 1.0f / std::sqrt(float(cols));
      std::vector<float> w(n);
      for (float &v : w)
        v = sigma * uniform.normal();
      std::vector<float> scales(blocksN * blocksK);
      tensor.bytes.resize(n);
      for (int64_t bn = 0; bn < blocksN; ++bn)
        for (int64_t bk = 0; bk < blocksK; ++bk) {
          int64_t rowEnd = std::min(rows, bn * 128 + 128);
          float amax = 0;
          for (int64_t r = bn * 128; r < rowEnd; ++r)
            for (int64_t c = bk * 128; c < bk * 128 + 128; ++c)
              amax = std::max(amax, std::fabs(w[r * cols + c]));
          float scale = fp8q_quant_scale(amax, flavour);
          scales[bn * blocksK + bk] = scale;
          for (int64_t r = bn * 128; r < rowEnd; ++r)
            for (int64_t c = bk * 128; c < bk * 128 + 128; ++c)
              tensor.bytes[r * cols + c] =
                  fp8q_quantize_value(w[r * cols + c], scale, flavour);
        }
      inputs.push_back(std::move(tensor));
      HostTensor scale{"f32", specs[i + 1].shape, {}};
      scale.bytes.resize(4 * scales.size());
      std::memcpy(scale.bytes.data(), scales.data(), scale.bytes.size());
      inputs.push_back(std::move(scale));
      ++i;
      continue;
    }
    error = "--inputs=fp8q-run-seeds: argument #" + std::to_string(i) + " is " +
            describe(spec) +
            "; fp8q-run's generator fills bf16 activations and norm "
            "weights and 2-D fp8 weights followed by their f32 block scale";
    return false;
  }
  return true;
}

bool makeInputs(const Entry &entry, int64_t m, uint64_t seed,
                std::vector<HostTensor> &inputs,
                std::vector<std::string> &dynamic, std::string &error,
                bool constant, bool hostBytes) {
  // fp8q-run's generator: splitmix64, 24-bit uniforms in [0, 1).
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  auto uniform = [&]() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return float((z ^ (z >> 31)) >> 40) * (1.0f / 16777216.0f);
  };
  for (size_t i = 0; i < entry.originalArgs.size(); ++i) {
    const TensorSpec &spec = entry.originalArgs[i];
    HostTensor tensor{spec.type, {}, {}};
    size_t size = elementSize(spec.type);
    if (!size || spec.shape.size() > kMaxRank) {
      error = "argument #" + std::to_string(i) + " is " + describe(spec) +
              ": fp8q-step-run fills bf16, f16, f32 and fp8 tensors of rank "
              "<= 8";
      return false;
    }
    for (size_t d = 0; d < spec.shape.size(); ++d) {
      int64_t s = spec.shape[d];
      if (s < 0) {
        s = m;
        dynamic.push_back("arg #" + std::to_string(i) + " dim " +
                          std::to_string(d));
      }
      tensor.sizes.push_back(s);
    }
    int64_t n = tensor.numElements();
    if (constant) {
      // Every byte kConstantByte: fp8 1.25, f32 and bf16 about 7.1e-4, so
      // a step of a whole model needs no host seeding of its weights.
      if (hostBytes)
        tensor.bytes.assign(n * size, kConstantByte);
      inputs.push_back(std::move(tensor));
      continue;
    }
    tensor.bytes.resize(n * size);
    bool scale =
        spec.type == "f32" && i > 0 && isFp8(entry.originalArgs[i - 1].type);
    bool norm = spec.shape.size() == 1;
    for (int64_t e = 0; e < n; ++e) {
      float u = uniform();
      uint8_t *at = tensor.bytes.data() + e * size;
      if (isFp8(spec.type)) {
        int flavour = fp8Flavour(spec.type);
        float max = fp8q_fp8_max(flavour);
        *at = fp8q_fp8_encode((2 * u - 1) * max, flavour);
      } else if (spec.type == "f32") {
        float v = scale ? 0x1p-10f + u * (0x1p-7f - 0x1p-10f) : 2 * u - 1;
        std::memcpy(at, &v, 4);
      } else if (spec.type == "bf16" || spec.type == "f16") {
        float v = norm ? 1.0f + 0.1f * (2 * u - 1) : 2 * u - 1;
        uint16_t bits =
            spec.type == "bf16" ? fp8q_f32_to_bf16(v) : fp8q_f32_to_f16(v);
        std::memcpy(at, &bits, 2);
      } else {
        // i8 / i32: small integers.
        int32_t v = int32_t(u * 16) - 8;
        std::memcpy(at, &v, size);
      }
    }
    inputs.push_back(std::move(tensor));
  }
  return true;
}

size_t denseBytes(const HostTensor &tensor) {
  return size_t(tensor.numElements()) * elementSize(tensor.type);
}

Descriptor describeDense(const HostTensor &tensor, void *data) {
  Descriptor desc;
  desc.allocated = desc.aligned = data;
  size_t rank = tensor.sizes.size();
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    desc.sizesAndStrides[d] = tensor.sizes[d];
    desc.sizesAndStrides[rank + d] = stride;
    stride *= tensor.sizes[d];
  }
  return desc;
}

int64_t spanBytes(const Descriptor &desc, size_t rank, size_t eltSize) {
  int64_t last = desc.offset;
  for (size_t d = 0; d < rank; ++d) {
    if (desc.sizesAndStrides[d] == 0)
      return 0;
    last += (desc.sizesAndStrides[d] - 1) * desc.sizesAndStrides[rank + d];
  }
  return (last + 1) * int64_t(eltSize);
}

int64_t extentBytes(const Descriptor &desc, const TensorSpec &spec) {
  return static_cast<const uint8_t *>(desc.aligned) -
         static_cast<const uint8_t *>(desc.allocated) +
         spanBytes(desc, spec.shape.size(), elementSize(spec.type));
}

void Holdings::add(const void *begin, size_t bytes) {
  auto at = reinterpret_cast<uintptr_t>(begin);
  ranges.emplace_back(at, at + bytes);
}

bool Holdings::contains(const void *ptr) const {
  auto at = reinterpret_cast<uintptr_t>(ptr);
  for (auto [begin, end] : ranges)
    if (at >= begin && at < end)
      return true;
  return false;
}

HostTensor gatherResult(const TensorSpec &spec, const Descriptor &desc,
                        const uint8_t *span) {
  size_t rank = spec.shape.size(), size = elementSize(spec.type);
  HostTensor tensor{spec.type, {}, {}};
  for (size_t d = 0; d < rank; ++d)
    tensor.sizes.push_back(desc.sizesAndStrides[d]);
  int64_t n = tensor.numElements();
  tensor.bytes.resize(n * size);
  std::vector<int64_t> index(rank, 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t at = desc.offset;
    for (size_t d = 0; d < rank; ++d)
      at += index[d] * desc.sizesAndStrides[rank + d];
    std::memcpy(tensor.bytes.data() + e * size, span + at * size, size);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < tensor.sizes[d])
        break;
      index[d] = 0;
    }
  }
  return tensor;
}

std::vector<double> toDoubles(const HostTensor &tensor) {
  int64_t n = tensor.numElements();
  std::vector<double> values(n);
  size_t size = elementSize(tensor.type);
  for (int64_t e = 0; e < n; ++e) {
    const uint8_t *at = tensor.bytes.data() + e * size;
    uint16_t h;
    float f;
    int32_t i = 0;
    if (isFp8(tensor.type)) {
      values[e] = fp8q_fp8_decode(*at, fp8Flavour(tensor.type));
    } else if (tensor.type == "bf16" || tensor.type == "f16") {
      std::memcpy(&h, at, 2);
      values[e] =
          tensor.type == "bf16" ? fp8q_bf16_to_f32(h) : fp8q_f16_to_f32(h);
    } else if (tensor.type == "f32") {
      std::memcpy(&f, at, 4);
      values[e] = f;
    } else {
      std::memcpy(&i, at, size);
      values[e] = size == 1 ? double(int8_t(i)) : double(i);
    }
  }
  return values;
}

bool compareResults(const HostTensor &actual, const HostTensor &expected,
                    std::string &line) {
  if (actual.sizes != expected.sizes || actual.type != expected.type) {
    line = "shapes or element types differ";
    return false;
  }
  size_t size = elementSize(actual.type);
  int64_t n = actual.numElements(), exact = 0;
  for (int64_t e = 0; e < n; ++e)
    exact += std::memcmp(actual.bytes.data() + e * size,
                         expected.bytes.data() + e * size, size) == 0;
  std::vector<double> a = toDoubles(actual), b = toDoubles(expected);
  double maxDiff = 0, dot = 0, na = 0, nb = 0, nd = 0;
  for (int64_t e = 0; e < n; ++e) {
    double d = a[e] - b[e];
    maxDiff = std::fmax(maxDiff, std::fabs(d));
    dot += a[e] * b[e];
    na += a[e] * a[e];
    nb += b[e] * b[e];
    nd += d * d;
  }
  double cosine = na > 0 && nb > 0 ? dot / std::sqrt(na * nb)
                  : na == nb       ? 1.0
                                   : 0.0;
  double relErr = nb > 0 ? std::sqrt(nd / nb) : std::sqrt(nd);
  char text[256];
  std::snprintf(text, sizeof text,
                "bit-exact %lld/%lld, max abs diff %g, cosine %.6f, rel. "
                "error %.3g",
                (long long)exact, (long long)n, maxDiff, cosine, relErr);
  line = text;
  return true;
}

} // namespace fp8q::steprun
