//===- encode_exhaustive_cpu.cpp - Issue 18's encoders, all 2^32 inputs ---===//
//
// The v2 quantize kernels' new element encoders (QuantizeV2Common.h) against
// the CPU runtime's, for every fp32 bit pattern, with the same code the
// kernels run (the E4M3FN hardware conversion replaced by its model,
// fnCodesPair's software branch; bench/encode_exhaustive_h200.cu checks the
// hardware itself):
//   e2m1_magic         encodeE2M1Magic vs fp8q_e2m1_encode, every input;
//   e2m1_magic_nonan   encodeE2M1MagicNoNaN, every non-NaN input;
//   fnuz_from_fn       fnuzFromFn(FN code of 2y, |y| > 232) per byte;
//   fnuz_codes8        fnuzCodes8 (fnuzFixWord, 8 values per call);
//   *_quot_*           the kernels' quotient paths, every x for one divisor
//                      each: x / divisor (exact scale) and x * rcp (pow2),
//                      against quantizeV2Value, which is fp8q_q_quantize
//                      with the CPU runtime's NaN rules;
//   corrected_quotient_{bf16,f16}  correctedQuotient against the division
//                      for every pair of a 16-bit and an fp32 divisor
//                      significand (2^32 and 2^35 pairs);
//   e2m1_quotient_packed[_ftz]  e2m1Pack8Quotients (E2M1Packed.h, NVFP4's
//                      packed encode) against encodeE2M1MagicNoNaN, every
//                      non-NaN fp32 quotient, subnormals kept / flushed.
// Build and run (repository root; 2 threads):
//   c++ -O2 -std=c++17 -ffp-contract=off -pthread -Iinclude -Ikernels/include \
//     bench/encode_exhaustive_cpu.cpp -o /tmp/exc && nice /tmp/exc
// Prints "NAME: N mismatches of D" per encoder; exit status 1 on any.
//
//===----------------------------------------------------------------------===//

#include "fp8q_kernels/E2M1Packed.h"
#include "fp8q_kernels/QuantizeV2Common.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <type_traits>
#include <thread>

using namespace fp8q::kern;

namespace {

constexpr int kThreads = 2;

/// Runs `bad(u)` (mismatch count of input u, or of the 8 inputs u..u+7 when
/// step is 8) over all 2^32 u on kThreads threads.
uint64_t sweep(uint32_t step, const std::function<uint64_t(uint32_t)> &bad,
               uint32_t *first) {
  std::atomic<uint64_t> total{0};
  std::atomic<uint32_t> firstBad{0xffffffffu};
  std::thread t[kThreads];
  for (int k = 0; k < kThreads; ++k)
    t[k] = std::thread([&, k] {
      uint64_t n = 0;
      const uint64_t lo = (1ull << 32) / kThreads * k,
                     hi = (1ull << 32) / kThreads * (k + 1);
      for (uint64_t u = lo; u < hi; u += step) {
        const uint64_t b = bad((uint32_t)u);
        if (b && n == 0) {
          uint32_t cur = firstBad.load();
          while ((uint32_t)u < cur &&
                 !firstBad.compare_exchange_weak(cur, (uint32_t)u)) {
          }
        }
        n += b;
      }
      total += n;
    });
  for (auto &th : t)
    th.join();
  *first = firstBad.load();
  return total.load();
}

bool isNaN(uint32_t u) { return (u & 0x7fffffffu) > 0x7f800000u; }

int report(const char *name, uint64_t bad, uint64_t of, uint32_t first) {
  if (bad)
    printf("%s: %llu mismatches of %llu (first input 0x%08x)\n", name,
           (unsigned long long)bad, (unsigned long long)of, first);
  else
    printf("%s: %llu mismatches of %llu\n", name, (unsigned long long)bad,
           (unsigned long long)of);
  fflush(stdout);
  return bad != 0;
}

} // namespace

int main() {
  constexpr uint64_t kAll = 1ull << 32;
  constexpr uint64_t kNonNaN = kAll - 2 * (0x7fffffull); // 2^24 - 2 NaNs
  uint32_t first;
  int fails = 0;

  fails |= report("e2m1_magic",
                  sweep(
                      1,
                      [](uint32_t u) -> uint64_t {
                        const float f = fp8q_bits_f32(u);
                        return encodeE2M1Magic(f) != fp8q_e2m1_encode(f);
                      },
                      &first),
                  kAll, first);
  fails |= report("e2m1_magic_nonan",
                  sweep(
                      1,
                      [](uint32_t u) -> uint64_t {
                        const float f = fp8q_bits_f32(u);
                        return !isNaN(u) &&
                               encodeE2M1MagicNoNaN(f) != fp8q_e2m1_encode(f);
                      },
                      &first),
                  kNonNaN, first);
  fails |= report("fnuz_from_fn",
                  sweep(
                      1,
                      [](uint32_t u) -> uint64_t {
                        const float y = fp8q_bits_f32(u);
                        const uint32_t fn = fnCodesPair(2.0f * y, 0.0f) & 0xffu;
                        return fnuzFromFn(fn, fp8q_absf(y) > 232.0f) !=
                               fp8q_fp8_encode(y, FP8Q_F8E4M3FNUZ);
                      },
                      &first),
                  kAll, first);
  fails |= report("fnuz_codes8",
                  sweep(
                      8,
                      [](uint32_t u) -> uint64_t {
                        float y[8];
                        for (int i = 0; i < 8; ++i)
                          y[i] = fp8q_bits_f32(u + i);
                        uint32_t w[2];
                        fnuzCodes8(y, w);
                        uint64_t n = 0;
                        for (int i = 0; i < 8; ++i)
                          n += ((w[i / 4] >> (8 * (i % 4))) & 0xffu) !=
                               fp8q_fp8_encode(y[i], FP8Q_F8E4M3FNUZ);
                        return n;
                      },
                      &first),
                  kAll, first);

  // The quotient paths as the kernels take them: an exact scale (divisor
  // amax / q_max, a division) and a power-of-two scale (x * rcp).
  struct Quot {
    const char *name;
    int qt;
    float divisor, rcp;
    bool pow2;
  };
  const Quot quots[] = {
      {"fnuz_quot_div", FP8Q_Q_F8E4M3FNUZ, 3.0f / 240.0f, 0.0f, false},
      {"fnuz_quot_pow2", FP8Q_Q_F8E4M3FNUZ, 0.125f, 8.0f, true},
      {"e2m1_quot_div", FP8Q_Q_F4E2M1FN, 3.0f / 6.0f, 0.0f, false},
      {"e2m1_quot_pow2", FP8Q_Q_F4E2M1FN, 0.25f, 4.0f, true},
  };
  for (const Quot &q : quots) {
    uint64_t bad;
    if (q.qt == FP8Q_Q_F8E4M3FNUZ)
      bad = sweep(
          8,
          [&](uint32_t u) -> uint64_t {
            float v[8];
            for (int i = 0; i < 8; ++i)
              v[i] = fp8q_bits_f32(u + i);
            uint32_t w[2];
            fnuzQuantize8(v, q.divisor, q.rcp, q.pow2, w);
            uint64_t n = 0;
            for (int i = 0; i < 8; ++i)
              n += ((w[i / 4] >> (8 * (i % 4))) & 0xffu) !=
                   quantizeV2Value<FP8Q_Q_F8E4M3FNUZ>(v[i], q.divisor, q.rcp,
                                                      q.pow2);
            return n;
          },
          &first);
    else
      bad = sweep(
          1,
          [&](uint32_t u) -> uint64_t {
            const float x = fp8q_bits_f32(u);
            return quantizeE2M1<false>(x, q.divisor, q.rcp, q.pow2) !=
                   quantizeV2Value<FP8Q_Q_F4E2M1FN>(x, q.divisor, q.rcp,
                                                    q.pow2);
          },
          &first);
    fails |= report(q.name, bad, kAll, first);
  }
  // correctedQuotient against the division for every pair of a 16-bit
  // significand (bf16: 7 bits, f16: 10) and an fp32 divisor significand,
  // x in [1, 2) or [2, 4) against d in [1, 2), both signs of x: the
  // rounding depends on nothing else while no value leaves the normal
  // range (correctedQuotientOk). bf16 is one sweep of 2^32 (sign, 7 bits,
  // exponent order, 23 bits), f16 eight (3 more significand bits each).
  auto correctedOff = [](uint32_t sign, uint32_t xm, int xBits, uint32_t xe,
                         uint32_t dm) -> uint64_t {
    const float x =
        fp8q_bits_f32(sign << 31 | (127u + xe) << 23 | xm << (23 - xBits));
    const float d = fp8q_bits_f32(127u << 23 | dm), rcp = 1.0f / d;
    volatile float q = x / d;
    return fp8q_f32_bits(correctedQuotient(x, d, rcp)) != fp8q_f32_bits(q);
  };
  fails |= report("corrected_quotient_bf16",
                  sweep(
                      1,
                      [&](uint32_t u) -> uint64_t {
                        return correctedOff(u >> 31, (u >> 24) & 0x7fu, 7,
                                            (u >> 23) & 1u, u & 0x7fffffu);
                      },
                      &first),
                  kAll, first);
  for (uint32_t hi = 0; hi < 8; ++hi)
    fails |= report(
        hi ? "corrected_quotient_f16 (continued)" : "corrected_quotient_f16",
        sweep(
            1,
            [&](uint32_t u) -> uint64_t {
              return correctedOff(u >> 31, hi << 7 | ((u >> 24) & 0x7fu), 10,
                                  (u >> 23) & 1u, u & 0x7fffffu);
            },
            &first),
        kAll, first);
  // NVFP4's packed encode of fp32 quotients (E2M1Packed.h): every non-NaN
  // q, 8 per call, in the host model that keeps bf16 subnormals and in the
  // one that flushes them.
  auto quotientPacked = [](auto ftz) {
    return [](uint32_t u) -> uint64_t {
      float q[8];
      for (int i = 0; i < 8; ++i)
        q[i] = isNaN(u + i) ? 0.0f : fp8q_bits_f32(u + i);
      const uint32_t got = e2m1Pack8Quotients<decltype(ftz)::value>(q);
      uint64_t n = 0;
      for (int i = 0; i < 8; ++i)
        n += !isNaN(u + i) &&
             ((got >> (4 * i)) & 0xfu) != encodeE2M1MagicNoNaN(q[i]);
      return n;
    };
  };
  fails |= report("e2m1_quotient_packed",
                  sweep(8, quotientPacked(std::false_type{}), &first), kNonNaN,
                  first);
  fails |= report("e2m1_quotient_packed_ftz",
                  sweep(8, quotientPacked(std::true_type{}), &first), kNonNaN,
                  first);
  printf("EXHAUSTIVE CPU %s\n", fails ? "FAILED" : "passed");
  return fails;
}
