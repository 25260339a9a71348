#!/usr/bin/env python3
"""Independent reference for the fp8q end-to-end tests.

The test programs generate their inputs with integer hashes (exactly
reproducible here), run them through `fp8q-opt --fp8q-pipeline | mlir-runner`
on a runtime library, and print results with printMemrefF32. This script
recomputes the same program in double precision, following SPEC.md's
numerics (fp32 scale arithmetic, round-to-nearest-even E4M3FN, bf16
rounding), and compares:

  * exact-emulation error: runtime output against the emulated quantized
    program (tight: the only differences are fp32 accumulation order and
    1-ulp bf16 rounding flips);
  * accuracy against an unquantized fp64 reference (cosine, relative error).

It prints one verdict line:
  PASS    - the output matches the emulation within tolerance;
  DAMAGED - it does not (used by the historical-failure tests);
and exits 0 either way; FileCheck decides which verdict a test expects.
No third-party modules: plain Python 3.
"""

import argparse
import math
import re
import struct
import sys

MASK32 = 0xFFFFFFFF
FP8_MAX = 448.0


def f32(v):
    """Rounds a double to the nearest fp32 (ties to even)."""
    return struct.unpack("<f", struct.pack("<f", v))[0]


def bf16(v):
    """Rounds a double to bf16 (via fp32, then RNE on the bit pattern)."""
    bits = struct.unpack("<I", struct.pack("<f", f32(v)))[0]
    lsb = (bits >> 16) & 1
    bits = (bits + 0x7FFF + lsb) & 0xFFFF0000
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def fp8_e4m3fn(v):
    """Rounds to f8E4M3FN, nearest even, saturated to +-448."""
    a = abs(v)
    if a >= FP8_MAX:
        r = FP8_MAX
    elif a < 2.0**-6:
        r = round(a / 2.0**-9) * 2.0**-9  # subnormals: step 2^-9
    else:
        e = math.floor(math.log2(a))
        step = 2.0 ** (e - 3)
        r = round(a / step) * step  # Python's round() ties to even
        r = min(r, FP8_MAX)
    return -r if v < 0 else r


def decode_e4m3fn(byte):
    s, e, m = byte >> 7, (byte >> 3) & 15, byte & 7
    v = (m / 8.0) * 2.0**-6 if e == 0 else (1 + m / 8.0) * 2.0 ** (e - 7)
    return -v if s else v


def hash_byte(i, j, seed):
    """The tests' input hash: ((i*1000003 + j*7919 + seed) * 2654435761
    mod 2^32) >> 16, low 8 bits. MLIR computes it in i64 arithmetic."""
    h = ((i * 1000003 + j * 7919 + seed) * 2654435761) & MASK32
    return (h >> 16) & 255


def gen_x(m, k, seed):
    """Activation: (byte - 128) * 2^((i + 2 * (j / 128)) % 5) / 256, exact
    in bf16. The power of two gives rows and groups different magnitudes,
    as real activations have, so a scrambled scale is visible."""
    return [[(hash_byte(i, j, seed) - 128) * 2.0 ** ((i + 2 * (j // 128)) % 5)
             / 256.0 for j in range(k)] for i in range(m)]


def gen_w(n, k, seed):
    """FP8 weight byte: sign bit 5, exponent 5 + bits 3-4, mantissa bits
    0-2 of the hash byte (values +-0.25 .. +-3.75, never NaN)."""
    out = []
    for i in range(n):
        row = []
        for j in range(k):
            v = hash_byte(i, j, seed)
            byte = ((v >> 5) & 1) << 7 | (5 + ((v >> 3) & 3)) << 3 | (v & 7)
            row.append(decode_e4m3fn(byte))
        out.append(row)
    return out


def gen_ws(nb, kb, seed):
    """Weight scale: 2^-(4 + (i + j + seed) % 3)."""
    return [[2.0 ** -(4 + (i + j + seed) % 3) for j in range(kb)]
            for i in range(nb)]


def gen_gamma(k, seed):
    """RMSNorm gamma: 0.5 + (byte % 8) / 8, exact in bf16."""
    return [0.5 + (hash_byte(0, j, seed) % 8) / 8.0 for j in range(k)]


def quantize(x, group):
    """SPEC quantize: scale = max(amax, 1e-10) / 448 and q = rne(x / scale)
    in fp32, saturated."""
    q, s = [], []
    for row in x:
        qrow, srow = [], []
        for g0 in range(0, len(row), group):
            grp = row[g0:g0 + group]
            amax = max(abs(v) for v in grp)
            scale = f32(max(amax, f32(1e-10)) / FP8_MAX)
            srow.append(scale)
            qrow.extend(fp8_e4m3fn(f32(v / scale)) for v in grp)
        q.append(qrow)
        s.append(srow)
    return q, s


def rms_norm(x, gamma, eps):
    """y = x / sqrt(mean(x^2) + eps) * gamma, rounded to bf16."""
    out = []
    for row in x:
        inv = 1.0 / math.sqrt(sum(v * v for v in row) / len(row) + eps)
        out.append([bf16(v * inv * g) for v, g in zip(row, gamma)])
    return out


def gemm(q, xs, w, ws, group=128):
    """Block-scale GEMM in double, rounded to bf16."""
    out = []
    for m, qrow in enumerate(q):
        orow = []
        for n, wrow in enumerate(w):
            acc = 0.0
            for kb in range(len(xs[m])):
                lo = kb * group
                part = sum(a * b for a, b in zip(qrow[lo:lo + group],
                                                 wrow[lo:lo + group]))
                acc += xs[m][kb] * ws[n // 128][kb] * part
            orow.append(bf16(acc))
        out.append(orow)
    return out


def dequant_weight(w, ws):
    return [[v * ws[n // 128][k // 128] for k, v in enumerate(row)]
            for n, row in enumerate(w)]


def matmul_f64(x, w):
    return [[sum(a * b for a, b in zip(row, wrow)) for wrow in w] for row in x]


def parse_memrefs(text):
    """All printMemrefF32 outputs in `text`, each as a flat list."""
    blocks = []
    for part in text.split("data =")[1:]:
        end = part.find("Unranked Memref")
        body = part if end < 0 else part[:end]
        blocks.append([float(v) for v in re.findall(
            r"-?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|inf|nan)", body)])
    return blocks


def flat(mat):
    return [v for row in mat for v in row]


def compare(name, got, want, ref64):
    if len(got) != len(want):
        print(f"{name}: FAIL size {len(got)} != {len(want)}")
        return False
    peak = max(abs(v) for v in want) or 1.0
    bad = sum(1 for g, e in zip(got, want)
              if not abs(g - e) <= 1e-2 * abs(e) + 2e-3 * peak)
    err = math.sqrt(sum((g - e) ** 2 for g, e in zip(got, want)))
    norm = math.sqrt(sum(e * e for e in want)) or 1.0
    dot = sum(g * r for g, r in zip(got, ref64))
    ng = math.sqrt(sum(g * g for g in got)) or 1.0
    nr = math.sqrt(sum(r * r for r in ref64)) or 1.0
    rel64 = math.sqrt(sum((g - r) ** 2 for g, r in zip(got, ref64))) / nr
    print(f"{name}: elements={len(got)} mismatches={bad} "
          f"emulation_rel_err={err / norm:.3e} "
          f"fp64_cosine={dot / (ng * nr):.6f} fp64_rel_err={rel64:.3e}")
    return bad == 0


def run_program(args, m):
    """The test program for `m` rows: the outputs it prints, in order, each
    as (emulated values, fp64 unquantized reference)."""
    outputs = []
    x = gen_x(m, args.k, args.seed)
    x64 = [row[:] for row in x]
    k = args.k
    for layer, n in enumerate(args.n):
        w = gen_w(n, k, args.seed + 10 + layer)
        ws = gen_ws((n + 127) // 128, k // 128, args.seed + layer)
        if args.rms_norm:
            gamma = gen_gamma(k, args.seed + 20 + layer)
            x = rms_norm(x, gamma, args.eps)
            inv = [1.0 / math.sqrt(sum(v * v for v in r) / k + args.eps)
                   for r in x64]
            x64 = [[v * i * g for v, g in zip(r, gamma)]
                   for r, i in zip(x64, inv)]
            if layer == 0 and args.print_norm:
                outputs.append((flat(x), flat(x64)))
        q, xs = quantize(x, 128)
        x = gemm(q, xs, w, ws)
        x64 = matmul_f64(x64, dequant_weight(w, ws))
        k = n
    outputs.append((flat(x), flat(x64)))
    return outputs


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--m", type=int, nargs="+", required=True,
                   help="rows of each run, in the order the program prints")
    p.add_argument("--k", type=int, required=True)
    p.add_argument("--n", type=int, nargs="+", required=True,
                   help="output width of each layer (a chain when several)")
    p.add_argument("--copies", type=int, default=1,
                   help="outputs printed per run (e.g. one per kernel)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--rms-norm", action="store_true",
                   help="each layer starts with rms_norm_quantize")
    p.add_argument("--eps", type=float, default=1e-6)
    p.add_argument("--print-norm", action="store_true",
                   help="the program first prints layer 0's unquantized "
                        "normalized x (keep_unquantized)")
    p.add_argument("--input", default="-")
    args = p.parse_args()

    text = (sys.stdin if args.input == "-" else open(args.input)).read()
    blocks = parse_memrefs(text)
    runs = [run_program(args, m) for m in args.m]
    expected = [(m, i, want, ref64)
                for m, outs in zip(args.m, runs)
                for i, (want, ref64) in enumerate(outs)
                for _ in range(args.copies)]
    if len(blocks) != len(expected):
        print(f"expected {len(expected)} printed outputs, got {len(blocks)}")
        print("DAMAGED")
        return 0
    ok = True
    for idx, ((m, i, want, ref64), got) in enumerate(zip(expected, blocks)):
        copy = idx % args.copies
        ok &= compare(f"M={m} output {i + copy}", got, want, ref64)
    print("PASS" if ok else "DAMAGED")
    return 0


if __name__ == "__main__":
    sys.exit(main())
