#!/usr/bin/env python3
"""The FP8 GEMMs of a decode step, alone: a module for timing them.

Reads the tensor IR of a decode step (fp8q-model-gen output) and writes a
module whose one function runs exactly its fp8q.gemm ops, in order, each
with its own weight and weight scale, on pre-quantized activations with
column-major scales (what fusion gives cuBLAS; one copy per activation
makes them from the dense arguments): the fp8q counterpart of the
PyTorch anchor in shared/REFERENCE.md ("the FP8 linear layers of one GLM-5
TP 8 decode step ... one CUDA graph": 18.2 ms at M = 16). Activations of
the same (M, K) are shared, as one layer's q projections share their input.
Every output is a result of the function, so no GEMM is dead and nothing
but the GEMMs runs.

  python3 bench/gemm_step.py glm5.mlir -o glm5-gemms.mlir [--exclude NxK,...]
"""
import argparse
import re
import sys

GEMM = re.compile(
    r"fp8q\.gemm [^:]+ : tensor<(\d+|\?)x(\d+)xf8E4M3FN>, tensor<[^>]*>, "
    r"tensor<(\d+)x(\d+)xf8E4M3FN>, tensor<(\d+)x(\d+)xf32> -> "
    r"tensor<(?:\d+|\?)x(\d+)xbf16>")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--exclude", default="",
                    help="NxK,... weight shapes to leave out (those the "
                         "PyTorch anchor refuses: bench/gemm_step_torch.py)")
    args = ap.parse_args()
    excluded = {tuple(int(v) for v in s.split("x"))
                for s in args.exclude.split(",") if s}
    text = open(args.model).read()
    target = re.search(r"fp8q\.target = (#fp8q\.target<[^>]*>)", text)
    gemms = [m.groups() for m in GEMM.finditer(text)
             if (int(m.group(3)), int(m.group(4))) not in excluded]
    if not gemms:
        sys.exit(f"{args.model}: no fp8q.gemm with fp8 operands found")
    m = gemms[0][0]
    if any(g[0] != m for g in gemms):
        sys.exit(f"{args.model}: gemms with different M")
    mt = "?" if m == "?" else m
    acts = {}  # K -> (q arg, scale arg)
    params, body = [], []
    def arg(ty):
        params.append(f"%a{len(params)}: {ty}")
        return f"%a{len(params) - 1}"
    for (_, k, n, k2, nb, g, n2) in gemms:
        k, n, g = int(k), int(n), int(g)
        if k not in acts:
            # Arguments are plain (the artifact ABI passes dense buffers);
            # one copy per activation makes the column-major scale every
            # GEMM of that K reads (a handful of copies for the whole step).
            q = arg(f"tensor<{mt}x{k}xf8E4M3FN>")
            s = arg(f"tensor<{mt}x{k // 128}xf32>")
            body.append(f"    %c{k} = fp8q.materialize {s} : "
                        f"tensor<{mt}x{k // 128}xf32> -> tensor<{mt}x"
                        f"{k // 128}xf32, #fp8q.layout<col_major>>")
            acts[k] = (q, f"%c{k}")
    for i, (_, k, n, _k2, nb, g, _n2) in enumerate(gemms):
        k, n = int(k), int(n)
        w = arg(f"tensor<{n}x{k}xf8E4M3FN>")
        ws = arg(f"tensor<{nb}x{g}xf32>")
        q, s = acts[k]
        body.append(
            f"    %g{i} = fp8q.gemm {q}, {s}, {w}, {ws} : "
            f"tensor<{mt}x{k}xf8E4M3FN>, tensor<{mt}x{k // 128}xf32, "
            f"#fp8q.layout<col_major>>, tensor<{n}x{k}xf8E4M3FN>, "
            f"tensor<{nb}x{g}xf32> -> tensor<{mt}x{n}xbf16>")
    results = [f"%g{i}" for i in range(len(gemms))]
    types = [f"tensor<{mt}x{g[6]}xbf16>" for g in gemms]
    attrs = f" attributes {{fp8q.target = {target.group(1)}}}" if target else ""
    with open(args.output, "w") as f:
        f.write(f"module{attrs} {{\n")
        f.write(f"  func.func @gemms({', '.join(params)}) -> "
                f"({', '.join(types)}) {{\n")
        f.write("\n".join(body) + "\n")
        f.write(f"    return {', '.join(results)} : {', '.join(types)}\n")
        f.write("  }\n}\n")
    print(f"{args.output}: {len(gemms)} gemms, {len(acts)} activations, "
          f"{len(results)} results", file=sys.stderr)


if __name__ == "__main__":
    main()
