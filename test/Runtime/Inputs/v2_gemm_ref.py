#!/usr/bin/env python3
"""Independent reference of test/Runtime/v2-gemm.mlir (plain Python).

Regenerates the activations and weights the program builds (the same
integer formulas as its @gen), computes every GEMM exactly (fractions:
the inputs are built so that quantization is exact in each format, so the
dequantized operands are the inputs themselves), rounds to bf16 (nearest
even) and compares with the [M, N] outputs mlir-runner printed, within
half a bf16 ulp (the fp32 accumulation tolerance; printMemrefF32 shows 6
significant digits). Prints one line per format; exits 1 on a mismatch.
"""

import math
import re
import sys
from fractions import Fraction

VALS = [0.0, 0.5, 1.0, -1.5, 2.0, -3.0, 4.0, -0.5]


def gen(rows, cols, seed, group, maxpos, rowfactor, vmax, pows):
    """@gen of the program: element (i, j)."""
    out = []
    for i in range(rows):
        row = []
        for j in range(cols):
            g = j // group
            v = vmax if j % group == maxpos else VALS[(i * 5 + j * 3 + seed) % 8]
            p = pows[(rowfactor * i + 2 * g + seed) % 3]
            row.append(Fraction(v) * Fraction(p))
        out.append(row)
    return out


def bf16(x):
    """Round a double to bf16, nearest even."""
    if x == 0 or math.isinf(x) or math.isnan(x):
        return x
    m, e = math.frexp(x)  # x = m * 2^e, 0.5 <= |m| < 1
    scaled = m * 256.0  # 8 significant bits
    r = round(scaled)  # Python rounds half to even
    return math.ldexp(r, e - 8)


# name, M, N, K, group, vmax, x pows (seed 0), w pows (seed 1), w rowfactor
CASES = [
    ("FP8 1x128 UE8M0", 3, 16, 256, 128, 448.0, [0.5, 1.0, 2.0], [1.0, 2.0, 4.0], 0),
    ("MXFP8 E4M3", 3, 24, 128, 32, 448.0, [0.5, 1.0, 2.0], [1.0, 2.0, 4.0], 1),
    ("MXFP8 E5M2", 3, 24, 128, 32, 57344.0, [2.0**-14, 2.0**-13, 2.0**-12], [0.25, 0.5, 1.0], 1),
    ("MXFP4", 3, 24, 128, 32, 6.0, [0.5, 1.0, 2.0], [1.0, 2.0, 4.0], 1),
    ("MXFP4 aiter_mxfp4", 3, 32, 128, 32, 6.0, [0.5, 1.0, 2.0], [1.0, 2.0, 4.0], 1),
    ("NVFP4", 3, 24, 64, 16, 6.0, [0.375, 0.75, 0.625], [0.1875, 0.375, 0.3125], 1),
]


def parse(text):
    """The numbers of every printed memref, in order."""
    blocks = text.split("Unranked Memref")[1:]
    result = []
    for b in blocks:
        data = b.split("data =", 1)[1]
        nums = re.findall(r"-?nan|-?inf|-?\d+(?:\.\d*)?(?:e[-+]?\d+)?", data)
        result.append([float(n) for n in nums])
    return result


def main():
    printed = parse(sys.stdin.read())
    if len(printed) != len(CASES):
        print("expected %d printed outputs, got %d" % (len(CASES), len(printed)))
        return 1
    ok = True
    for (name, M, N, K, group, vmax, xp, wp, wrf), got in zip(CASES, printed):
        x = gen(M, K, 0, group, 0, 1, vmax, xp)
        w = gen(N, K, 1, group, 1, wrf, vmax, wp)
        want = [bf16(float(sum(x[m][k] * w[n][k] for k in range(K))))
                for m in range(M) for n in range(N)]
        if len(got) != M * N:
            print("%s: expected %d values, got %d" % (name, M * N, len(got)))
            ok = False
            continue
        peak = max(abs(v) for v in want)
        bad = 0
        for i, (g, r) in enumerate(zip(got, want)):
            if not abs(g - r) <= abs(r) * 2.0**-9 + peak * 1e-7:
                if bad < 4:
                    print("%s: out[%d, %d] = %r, reference %r" % (name, i // N, i % N, g, r))
                bad += 1
        if bad:
            ok = False
            print("%s: %d of %d outputs differ" % (name, bad, M * N))
        else:
            print("%s: %dx%d match (peak %g)" % (name, M, N, peak))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
