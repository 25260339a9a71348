//===- fp8q-runtime-fuzz.cpp - libFuzzer target: the runtime C ABI --------===//
//
// Calls the plain C entry points of fp8q/Runtime/fp8q_runtime.h (quantize,
// rms_norm_quantize, add_rms_norm_quantize, silu_mul_quantize, materialize,
// preshuffle, unpreshuffle, gemm, all_gather, reduce_scatter_bf16) with
// descriptors decoded from the fuzz
// input: sizes, strides, offsets, null, misaligned and aliased pointers
// (in place and partially overlapping), bad scalar arguments. Every buffer is
// allocated with exactly the bytes its descriptor spans, so AddressSanitizer
// reports any access outside what the caller described. The ABI promises
// checked by the harness itself (abort = finding):
//  - a descriptor that no buffer can back (negative size, stride or offset;
//    a span past FP8Q_MAX_SPAN_BYTES) is rejected, whatever else is wrong;
//  - a rejected call writes nothing;
//  - an error status comes with a message (fp8q_last_error).
// Built with -DFP8Q_ENABLE_FUZZER=ON, once per runtime: fp8q-runtime-fuzz
// (CPU) and, where the HIP runtime is built, fp8q-hip-runtime-fuzz (its
// checks, up to the missing device). Links only a runtime (no MLIR).
//
//===----------------------------------------------------------------------===//

#include "fp8q/Runtime/fp8q_runtime.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace {

/// Buffers larger than this are not allocated: the call is skipped (the
/// runtime may legitimately touch every byte a descriptor spans).
constexpr __int128 kMaxAllocBytes = 1 << 20;
/// Work cap for one GEMM call (M * N * K multiply-adds).
constexpr __int128 kMaxGemmWork = 1 << 22;

/// One operand: its descriptor and the memory behind it.
struct Operand {
  fp8q_memref_2d d{};
  fp8q_memref_1d d1{};
  bool rank1 = false;
  size_t elt = 1;
  /// True when no buffer can back the descriptor: the call must fail.
  bool impossible = false;
};

/// Every allocation of one call, with a snapshot to prove "nothing written".
struct Arena {
  std::vector<std::unique_ptr<unsigned char[]>> blocks;
  std::vector<size_t> sizes;
  std::vector<std::vector<unsigned char>> snapshots;

  unsigned char *allocate(size_t bytes, FuzzedDataProvider &fdp) {
    blocks.emplace_back(new unsigned char[bytes]);
    sizes.push_back(bytes);
    unsigned char *p = blocks.back().get();
    // Contents: a pattern chosen by the input (NaNs, infinities and
    // denormals included as raw bytes).
    uint8_t a = fdp.ConsumeIntegral<uint8_t>(),
            b = fdp.ConsumeIntegral<uint8_t>();
    for (size_t i = 0; i < bytes; ++i)
      p[i] = uint8_t(a + b * (i * 2654435761u >> 7));
    return p;
  }
  void snapshot() {
    for (size_t i = 0; i < blocks.size(); ++i)
      snapshots.emplace_back(blocks[i].get(), blocks[i].get() + sizes[i]);
  }
  bool unchanged() const {
    for (size_t i = 0; i < blocks.size(); ++i)
      if (memcmp(blocks[i].get(), snapshots[i].data(), sizes[i]) != 0)
        return false;
    return true;
  }
};

/// A value near `hint` most of the time, anything some of the time.
int64_t pickExtent(FuzzedDataProvider &fdp, int64_t hint) {
  // An exhausted input reads 0: the consistent choice.
  switch (fdp.ConsumeIntegralInRange<int>(0, 15)) {
  case 15:
    return 0;
  case 1:
    return -fdp.ConsumeIntegralInRange<int64_t>(1, 3);
  case 2:
    return fdp.ConsumeIntegralInRange<int64_t>(1, 300);
  case 3:
    return (int64_t(1) << fdp.ConsumeIntegralInRange<int>(31, 62)) +
           fdp.ConsumeIntegralInRange<int64_t>(-1, 1);
  case 4:
    return hint + fdp.ConsumeIntegralInRange<int64_t>(-2, 2);
  default:
    return hint;
  }
}

/// Strides for a [rows, cols] operand: dense row- or column-major, padded,
/// broadcast (0), random, negative or huge.
void pickStrides(FuzzedDataProvider &fdp, int64_t rows, int64_t cols,
                 int64_t strides[2]) {
  int64_t r = rows > 0 ? rows : 1, c = cols > 0 ? cols : 1;
  int64_t pad = fdp.ConsumeIntegralInRange<int64_t>(0, 8);
  switch (fdp.ConsumeIntegralInRange<int>(0, 11)) {
  case 0:
  case 1:
  case 2:
    strides[0] = c + pad, strides[1] = 1;
    return;
  case 3:
  case 4:
    strides[0] = 1, strides[1] = r + pad; // column-major, any leading dim
    return;
  case 5:
    strides[0] = 1, strides[1] = (r + 3) / 4 * 4; // aligned column-major
    return;
  case 6:
    strides[0] = fdp.ConsumeIntegralInRange<int64_t>(0, 2);
    strides[1] = fdp.ConsumeIntegralInRange<int64_t>(0, 2);
    return;
  case 7:
    strides[0] = fdp.ConsumeIntegralInRange<int64_t>(-4, 400);
    strides[1] = fdp.ConsumeIntegralInRange<int64_t>(-4, 400);
    return;
  case 8:
    strides[0] = int64_t(1) << fdp.ConsumeIntegralInRange<int>(30, 62);
    strides[1] = 1;
    return;
  case 9:
    strides[0] = c, strides[1] = -1;
    return;
  default:
    strides[0] = c, strides[1] = 1;
    return;
  }
}

/// Elements from the data pointer to the last addressed one, plus one
/// (exact, in 128 bits); negative when a negative field makes it meaningless.
__int128 spanElements(int64_t offset, int64_t rows, int64_t cols, int64_t s0,
                      int64_t s1) {
  if (offset < 0 || rows < 0 || cols < 0 || s0 < 0 || s1 < 0)
    return -1;
  if (rows == 0 || cols == 0)
    return __int128(offset) + 1;
  return __int128(offset) + __int128(rows - 1) * s0 + __int128(cols - 1) * s1 +
         1;
}

/// Fills `op` (rank 2) near the shape [rows, cols]; returns false when the
/// call must be skipped (a backing buffer too large to allocate).
bool makeOperand(FuzzedDataProvider &fdp, Arena &arena,
                 std::vector<Operand *> &earlier, Operand &op, size_t elt,
                 int64_t rows, int64_t cols) {
  op.elt = elt;
  fp8q_memref_2d &d = op.d;
  d.sizes[0] = pickExtent(fdp, rows);
  d.sizes[1] = pickExtent(fdp, cols);
  pickStrides(fdp, d.sizes[0], d.sizes[1], d.strides);
  switch (fdp.ConsumeIntegralInRange<int>(0, 9)) {
  case 9:
    d.offset = fdp.ConsumeIntegralInRange<int64_t>(1, 64);
    break;
  case 1:
    d.offset = -fdp.ConsumeIntegralInRange<int64_t>(1, 4);
    break;
  case 2:
    d.offset = int64_t(1) << fdp.ConsumeIntegralInRange<int>(40, 62);
    break;
  default:
    d.offset = 0;
  }
  __int128 span = spanElements(d.offset, d.sizes[0], d.sizes[1], d.strides[0],
                               d.strides[1]);
  __int128 bytes = span * __int128(elt);
  op.impossible = span < 0 || bytes > FP8Q_MAX_SPAN_BYTES;
  // A descriptor no buffer can back gets a token buffer: the runtime must
  // reject it before touching memory.
  size_t alloc = op.impossible ? 64 : size_t(bytes);
  if (!op.impossible && bytes > kMaxAllocBytes)
    return false;

  int pointer = fdp.ConsumeIntegralInRange<int>(0, 15);
  if (pointer == 15) {
    d.allocated = d.aligned = nullptr;
  } else if (pointer == 1 && !earlier.empty()) {
    // Alias an earlier operand's buffer when it is large enough.
    Operand *other =
        earlier[fdp.ConsumeIntegralInRange<size_t>(0, earlier.size() - 1)];
    __int128 otherSpan =
        other->rank1 ? 0
                     : spanElements(other->d.offset, other->d.sizes[0],
                                    other->d.sizes[1], other->d.strides[0],
                                    other->d.strides[1]);
    if (!other->rank1 && !other->impossible && other->d.aligned &&
        otherSpan * __int128(other->elt) >= __int128(alloc)) {
      d.allocated = other->d.allocated;
      d.aligned = other->d.aligned;
    } else {
      d.allocated = d.aligned = arena.allocate(alloc, fdp);
    }
  } else if (pointer == 2 && elt > 1) {
    unsigned char *p = arena.allocate(alloc + 1, fdp);
    d.allocated = p;
    d.aligned = p + 1; // misaligned: must be rejected
  } else {
    d.allocated = d.aligned = arena.allocate(alloc, fdp);
  }
  earlier.push_back(&op);
  return true;
}

/// Rank-1 counterpart of makeOperand (the RMSNorm gamma).
bool makeVector(FuzzedDataProvider &fdp, Arena &arena, Operand &op, size_t elt,
                int64_t size) {
  op.rank1 = true;
  op.elt = elt;
  fp8q_memref_1d &d = op.d1;
  d.sizes[0] = pickExtent(fdp, size);
  d.strides[0] =
      fdp.ConsumeBool() ? fdp.ConsumeIntegralInRange<int64_t>(-1, 3) : 1;
  d.offset = fdp.ConsumeIntegralInRange<int>(0, 7) == 0
                 ? fdp.ConsumeIntegralInRange<int64_t>(-1, 16)
                 : 0;
  __int128 span = spanElements(d.offset, d.sizes[0], 1, d.strides[0], 0);
  __int128 bytes = span * __int128(elt);
  op.impossible = span < 0 || bytes > FP8Q_MAX_SPAN_BYTES;
  size_t alloc = op.impossible ? 64 : size_t(bytes);
  if (!op.impossible && bytes > kMaxAllocBytes)
    return false;
  if (fdp.ConsumeIntegralInRange<int>(0, 15) == 15)
    d.allocated = d.aligned = nullptr;
  else
    d.allocated = d.aligned = arena.allocate(alloc, fdp);
  return true;
}

int64_t pickGroup(FuzzedDataProvider &fdp) {
  static const int64_t groups[] = {128, 128, 128, 64, 32, 16, 8, 0, -128, 3};
  return groups[fdp.ConsumeIntegralInRange<size_t>(0, 9)];
}

int32_t pickFp8(FuzzedDataProvider &fdp) {
  int v = fdp.ConsumeIntegralInRange<int>(0, 9);
  return v < 5 ? FP8Q_F8E4M3FN : v < 9 ? FP8Q_F8E4M3FNUZ : 7;
}

/// An RMSNorm epsilon: usually valid, one time in eight negative (refused).
float pickEpsilon(FuzzedDataProvider &fdp) {
  return fdp.ConsumeIntegralInRange<int>(0, 7) == 7
             ? -1.0f
             : fdp.ConsumeFloatingPointInRange<float>(0.0f, 1e-3f);
}

[[noreturn]] void finding(const char *what, int32_t status) {
  fprintf(stderr, "fp8q-runtime-fuzz: %s (status %d: %s; last error '%s')\n",
          what, status, fp8q_status_name(status), fp8q_last_error());
  abort();
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  // One thread: the runtime would start threads per call otherwise.
  setenv("FP8Q_RT_THREADS", "1", 1);
  unsetenv("FP8Q_RT_UNCHECKED");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  Arena arena;
  std::vector<Operand *> earlier;
  Operand a, b, c, d, e, g, h, w;
  std::vector<Operand *> used; // operands the entry point must validate
  const int entry = fdp.ConsumeIntegralInRange<int>(0, 17);
  const int64_t m = fdp.ConsumeIntegralInRange<int64_t>(1, 40);
  int32_t status = FP8Q_OK;

  if (entry <= 5) {
    // quantize / rms_norm_quantize, bf16 / f16 / f32.
    const size_t es = entry % 3 == 2 ? 4 : 2;
    const bool rms = entry >= 3;
    int64_t group = pickGroup(fdp);
    int64_t groups = fdp.ConsumeIntegralInRange<int64_t>(1, 4);
    int64_t k = (group > 0 ? group : 128) * groups;
    bool keep = rms && fdp.ConsumeBool();
    if (!makeOperand(fdp, arena, earlier, a, es, m, k) ||
        !makeOperand(fdp, arena, earlier, b, 1, m, k) ||
        !makeOperand(fdp, arena, earlier, c, 4, m, groups) ||
        (keep && !makeOperand(fdp, arena, earlier, d, es, m, k)) ||
        (rms && !makeVector(fdp, arena, g, es, k)))
      return 0;
    used = {&a, &b, &c};
    if (keep)
      used.push_back(&d);
    if (rms)
      used.push_back(&g);
    int32_t fp8 = pickFp8(fdp);
    float eps = pickEpsilon(fdp);
    arena.snapshot();
    fp8q_memref_2d *y = keep ? &d.d : &a.d;
    switch (entry) {
    case 0:
      status = fp8q_quantize_bf16(&a.d, &b.d, &c.d, group, fp8);
      break;
    case 1:
      status = fp8q_quantize_f16(&a.d, &b.d, &c.d, group, fp8);
      break;
    case 2:
      status = fp8q_quantize_f32(&a.d, &b.d, &c.d, group, fp8);
      break;
    case 3:
      status = fp8q_rms_norm_quantize_bf16(&a.d, &g.d1, &b.d, &c.d, y, eps,
                                           group, fp8, keep);
      break;
    case 4:
      status = fp8q_rms_norm_quantize_f16(&a.d, &g.d1, &b.d, &c.d, y, eps,
                                          group, fp8, keep);
      break;
    default:
      status = fp8q_rms_norm_quantize_f32(&a.d, &g.d1, &b.d, &c.d, y, eps,
                                          group, fp8, keep);
      break;
    }
  } else if (entry >= 10 && entry <= 12) {
    // add_rms_norm_quantize, bf16 / f16 / f32: x (a), residual (h), q (b),
    // scale (c), y (d, when kept), sum (e), gamma (g). The sum is sometimes
    // exactly x or residual (in place), sometimes an alias of any earlier
    // buffer through its own descriptor (a partial overlap, or none).
    const size_t es = entry == 12 ? 4 : 2;
    int64_t group = pickGroup(fdp);
    int64_t groups = fdp.ConsumeIntegralInRange<int64_t>(1, 4);
    int64_t k = (group > 0 ? group : 128) * groups;
    bool keep = fdp.ConsumeBool();
    if (!makeOperand(fdp, arena, earlier, a, es, m, k) ||
        !makeOperand(fdp, arena, earlier, h, es, m, k) ||
        !makeOperand(fdp, arena, earlier, b, 1, m, k) ||
        !makeOperand(fdp, arena, earlier, c, 4, m, groups) ||
        (keep && !makeOperand(fdp, arena, earlier, d, es, m, k)) ||
        !makeVector(fdp, arena, g, es, k))
      return 0;
    switch (fdp.ConsumeIntegralInRange<int>(0, 3)) {
    case 1:
      e = a; // in place on x
      break;
    case 2:
      e = h; // in place on residual
      break;
    default:
      if (!makeOperand(fdp, arena, earlier, e, es, m, k))
        return 0;
    }
    used = {&a, &h, &b, &c, &e, &g};
    if (keep)
      used.push_back(&d);
    int32_t fp8 = pickFp8(fdp);
    float eps = pickEpsilon(fdp);
    arena.snapshot();
    fp8q_memref_2d *y = keep ? &d.d : &a.d;
    auto fn = entry == 10   ? fp8q_add_rms_norm_quantize_bf16
              : entry == 11 ? fp8q_add_rms_norm_quantize_f16
                            : fp8q_add_rms_norm_quantize_f32;
    status = fn(&a.d, &h.d, &g.d1, &b.d, &c.d, y, &e.d, eps, group, fp8, keep);
  } else if (entry >= 16) {
    // all_gather (16) / reduce_scatter_bf16 (17): x (a), out (b). The CPU
    // runtime is one rank (ranks > 1 refused after the checks); bad ranks
    // and element sizes are refused first.
    static const int64_t rankChoices[] = {1, 1, 1, 1, 2, 3, 0, -1};
    static const int64_t eltChoices[] = {1, 2, 4, 3};
    const int64_t ranks = rankChoices[fdp.ConsumeIntegralInRange<size_t>(0, 7)];
    const int64_t eb =
        entry == 17 ? 2 : eltChoices[fdp.ConsumeIntegralInRange<size_t>(0, 3)];
    const size_t es = eb == 3 ? 1 : size_t(eb);
    const int64_t cols = fdp.ConsumeIntegralInRange<int64_t>(1, 64);
    const int64_t r = ranks >= 1 ? ranks : 1;
    const int64_t outRows = entry == 16 ? r * m : m % r == 0 ? m / r : m;
    if (!makeOperand(fdp, arena, earlier, a, es, m, cols) ||
        !makeOperand(fdp, arena, earlier, b, es, outRows, cols))
      return 0;
    used = {&a, &b};
    arena.snapshot();
    status = entry == 16 ? fp8q_all_gather(&a.d, &b.d, eb, ranks)
                         : fp8q_reduce_scatter_bf16(&a.d, &b.d, ranks);
  } else if (entry >= 13) {
    // silu_mul_quantize, bf16 / f16 / f32: gate (a), up (h), q (b), scale
    // (c). gate and up are often the two column halves of one [m, 2k]
    // buffer (w), as the compiler passes them.
    const size_t es = entry == 15 ? 4 : 2;
    int64_t group = pickGroup(fdp);
    int64_t groups = fdp.ConsumeIntegralInRange<int64_t>(1, 4);
    int64_t k = (group > 0 ? group : 128) * groups;
    bool halves = fdp.ConsumeBool();
    if (halves) {
      if (!makeOperand(fdp, arena, earlier, w, es, m, 2 * k))
        return 0;
      halves = !w.impossible && w.d.aligned && w.d.sizes[0] > 0 &&
               w.d.sizes[1] == 2 * k && w.d.strides[0] >= 0 &&
               w.d.strides[1] >= 0;
    }
    if (halves) {
      // Both halves lie inside w's buffer: each is backed.
      a = w;
      a.d.sizes[1] = k;
      h = a;
      h.d.offset += k * w.d.strides[1];
    } else if (!makeOperand(fdp, arena, earlier, a, es, m, k) ||
               !makeOperand(fdp, arena, earlier, h, es, m, k)) {
      return 0;
    }
    if (!makeOperand(fdp, arena, earlier, b, 1, m, k) ||
        !makeOperand(fdp, arena, earlier, c, 4, m, groups))
      return 0;
    used = {&a, &h, &b, &c};
    int32_t fp8 = pickFp8(fdp);
    arena.snapshot();
    auto fn = entry == 13   ? fp8q_silu_mul_quantize_bf16
              : entry == 14 ? fp8q_silu_mul_quantize_f16
                            : fp8q_silu_mul_quantize_f32;
    status = fn(&a.d, &h.d, &b.d, &c.d, group, fp8);
  } else if (entry == 6) {
    int64_t groups = fdp.ConsumeIntegralInRange<int64_t>(1, 60);
    if (!makeOperand(fdp, arena, earlier, a, 4, m, groups) ||
        !makeOperand(fdp, arena, earlier, b, 4, m, groups))
      return 0;
    used = {&a, &b};
    arena.snapshot();
    status = fp8q_materialize(&a.d, &b.d);
  } else if (entry <= 8) {
    int64_t n = 16 * fdp.ConsumeIntegralInRange<int64_t>(1, 6);
    int64_t k = 32 * fdp.ConsumeIntegralInRange<int64_t>(1, 8);
    if (!makeOperand(fdp, arena, earlier, a, 1, n, k) ||
        !makeOperand(fdp, arena, earlier, b, 1, n, k))
      return 0;
    used = {&a, &b};
    arena.snapshot();
    status = entry == 7 ? fp8q_preshuffle(&a.d, &b.d)
                        : fp8q_unpreshuffle(&a.d, &b.d);
  } else if (entry == 9) {
    int64_t groups = fdp.ConsumeIntegralInRange<int64_t>(1, 3);
    int64_t k = 128 * groups;
    int64_t n = 16 * fdp.ConsumeIntegralInRange<int64_t>(1, 12);
    if (!makeOperand(fdp, arena, earlier, a, 1, m, k) ||
        !makeOperand(fdp, arena, earlier, b, 4, m, groups) ||
        !makeOperand(fdp, arena, earlier, c, 1, n, k) ||
        !makeOperand(fdp, arena, earlier, d, 4, (n + 127) / 128, groups) ||
        !makeOperand(fdp, arena, earlier, e, 2, m, n))
      return 0;
    // Bound the work by what the descriptors claim (the sizes the runtime
    // would use if it accepted them).
    auto factor = [](int64_t v) -> __int128 {
      return v<1 ? 1 : v>(int64_t(1) << 40) ? int64_t(1) << 40 : v;
    };
    __int128 work =
        factor(a.d.sizes[0]) * factor(c.d.sizes[0]) * factor(a.d.sizes[1]);
    if (work > kMaxGemmWork)
      return 0;
    used = {&a, &b, &c, &d, &e};
    int32_t kernel =
        fdp.ConsumeIntegralInRange<int32_t>(0, FP8Q_KERNEL_COUNT + 1);
    if (kernel == FP8Q_KERNEL_COUNT + 1)
      kernel = -1;
    int32_t fp8 = pickFp8(fdp);
    int32_t weightLayout = fdp.ConsumeIntegralInRange<int32_t>(0, 4) == 4
                               ? 2
                               : fdp.ConsumeIntegralInRange<int32_t>(0, 1);
    arena.snapshot();
    status = fp8q_gemm(&a.d, &b.d, &c.d, &d.d, &e.d, kernel, fp8, weightLayout);
  }

  // The HIP runtime without a GPU fails every call that passed validation
  // with FP8Q_ERR_DEVICE: for the checks below that is an acceptance.
  const bool accepted = status == FP8Q_OK || status == FP8Q_ERR_DEVICE;
  if (status != FP8Q_OK) {
    if (!arena.unchanged())
      finding("a rejected call wrote to an operand", status);
    if (!*fp8q_last_error())
      finding("an error status without a message", status);
  }
  if (!accepted)
    return 0;
  for (Operand *op : used)
    if (op->impossible)
      finding("a descriptor no buffer can back was accepted", status);
  return 0;
}
