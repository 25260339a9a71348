#!/usr/bin/env python3
"""Scale copies per decode step: hand-placed fix vs fp8q without and with fusion.

For each bundled model and target, generates one decode step with
fp8q-model-gen, routes kernels with --fp8q-select-kernels, then places scale
layouts three ways:
  hand-placed  --fp8q-hand-placed-copies (the historical fix: a copy at every
               consumer whose kernel reads another layout),
  no fusion    --fp8q-propagate-scale-layout{fuse-producers=false},
  fusion       --fp8q-propagate-scale-layout (default),
and checks every contract with --fp8q-verify-contracts. It counts the
fp8q.materialize ops that copy (a materialize between equal layouts copies
nothing), the bytes they move (read + write of an M x G f32 scale), and the
kernel launches fusion saves against the hand-placed fix.

A second table does the same for SPEC v2's block formats (fp8q-model-gen
--format): DeepSeek-V3.2 with UE8M0, MXFP8 and NVFP4 on sm100, MXFP4 on
gfx950 (every linear MXFP4, as GPT-OSS keeps its experts). It counts the
activation-scale copies per step (1-byte scales, padded layouts compared by
the bytes they address) and, apart, the weight-scale re-layouts, which a
serving stack does once at load time.

policy_rows() is one table's counting; the Python package's fp8q.analyze
imports this file (python/fp8q/_copies_per_step.py links to it) and calls it.

Usage: bench/copies_per_step.py BUILD_DIR [--tokens 16|?] [--tp 8] [--layers N]
Prints Markdown tables. With --tokens ? (dynamic M) bytes are per token.
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# (name, config, extra flags): each model at its usual serving configuration
# (--tp, default 8; EP 8 beside it where TP 8 would cut an expert below the
# 128-wide block).
MODELS = [("GLM-5", "examples/glm5/config.json", []),
          ("DeepSeek-V3.2", "examples/deepseek-v3.2/config.json", []),
          ("GLM-4.5 (EP 8)", "examples/glm-4.5/config.json", ["--ep=8"]),
          ("Qwen3-235B-A22B (EP 8)", "examples/qwen3-235b-a22b/config.json",
           ["--ep=8"]),
          ("Qwen3-32B", "examples/qwen3-32b/config.json", []),
          ("MiniMax-M2 (EP 8)", "examples/minimax-m2/config.json", ["--ep=8"]),
          ("Llama-3.1-70B", "examples/llama-3.1-70b/config.json", [])]
TARGETS = [("gfx950", "7.2"), ("gfx942", "7.2")]
POLICIES = [
    ("hand-placed", "fp8q-hand-placed-copies"),
    ("fp8q, no fusion", "fp8q-propagate-scale-layout{fuse-producers=false}"),
    ("fp8q, fusion", "fp8q-propagate-scale-layout"),
]
# M is a number or '?' (dynamic M, e.g. fp8q-model-gen --tokens=?).
MATERIALIZE = re.compile(
    r"fp8q\.materialize %\S+ : tensor<(\d+|\?)x(\d+)xf32(?:, ([^>]*>))?> -> "
    r"tensor<(?:\d+|\?)x\d+xf32(?:, ([^>]*>))?>")


def equal_layouts(m, g, a, b):
    """Mirror of fp8q::areEquivalentLayouts; m is None when M is dynamic."""
    def strides(enc):
        if not enc or "row_major" in enc:
            return ("G", 1)
        align = re.search(r"align = (\d+)", enc)
        a_ = int(align.group(1)) if align else 1
        if m is None:
            # ld = M, or M rounded up to a: unknown, and different layouts
            # unless a == 1.
            return (1, ("ld", a_))
        return (1, (m + a_ - 1) // a_ * a_)
    sa, sb = strides(a), strides(b)
    extents = (m, g)
    return all(sa[d] == sb[d] for d in range(2) if extents[d] != 1)


# SPEC v2 variants: (name, config, fp8q-model-gen flags, target, rocm).
V2_MODELS = [
    ("DeepSeek-V3.2 UE8M0", "examples/deepseek-v3.2/config.json",
     ["--format=ue8m0"], "sm100", ""),
    ("DeepSeek-V3.2 MXFP8", "examples/deepseek-v3.2/config.json",
     ["--format=mxfp8"], "sm100", ""),
    ("DeepSeek-V3.2 NVFP4", "examples/deepseek-v3.2/config.json",
     ["--format=nvfp4"], "sm100", ""),
    ("DeepSeek-V3.2 MXFP4", "examples/deepseek-v3.2/config.json",
     ["--format=mxfp4"], "gfx950", "7.2"),
    ("Qwen3-235B-A22B MXFP4 (EP 8)", "examples/qwen3-235b-a22b/config.json",
     ["--format=mxfp4", "--ep=8"], "gfx950", "7.2"),
]
# Any scale materialization: M (or N), G, element type, encodings.
MATERIALIZE_V2 = re.compile(
    r"fp8q\.materialize %\S+ : tensor<(\d+|\?)x(\d+)x(f32|f8E8M0FNU|f8E4M3FN)"
    r"(?:, (#fp8q\.layout<[^>]*>))?> -> "
    r"tensor<(?:\d+|\?)x\d+x\w+(?:, (#fp8q\.layout<[^>]*>))?>")


def roundup(x, a):
    return (x + a - 1) // a * a


def layout_bytes(enc, m, g):
    """(allocation, offset function) of a layout: SPEC v2's formulas."""
    enc = enc or "row_major"
    align = re.search(r"align = (\d+)", enc)
    a = int(align.group(1)) if align else 1
    if "swizzle_32_4_4" in enc:
        return roundup(m, 128) * roundup(g, 4), lambda i, j: (
            ((i // 128) * (roundup(g, 4) // 4) + j // 4) * 512 +
            (i % 32) * 16 + ((i % 128) // 32) * 4 + j % 4)
    if "cdna4_mx" in enc:
        def off(i, j):
            aa, b, c = i // 32, (i // 16) % 2, i % 16
            d, e, f = j // 8, (j // 4) % 2, j % 4
            return ((((aa * (roundup(g, 8) // 8) + d) * 4 + f) * 16 + c) * 2
                    + e) * 2 + b
        return roundup(m, 256) * roundup(g, 8), off
    if "pack = 4" in enc:
        return roundup(g, 4) * roundup(m, a), lambda i, j: (
            ((j // 4) * roundup(m, a) + i) * 4 + j % 4)
    if "col_major" in enc:
        return roundup(m, a) * g, lambda i, j: j * roundup(m, a) + i
    return m * g, lambda i, j: i * g + j


def equal_layouts_v2(m, g, a, b):
    """areEquivalentLayouts for any layout; m is None when M is dynamic."""
    padded = ("swizzle", "cdna4", "pack")
    if not any(p in (x or "") for x in (a, b) for p in padded):
        return equal_layouts(m, g, a, b)
    if (a or "row_major") == (b or "row_major"):
        return True
    if m is None:
        return False
    (alloc_a, off_a), (alloc_b, off_b) = layout_bytes(a, m, g), layout_bytes(b, m, g)
    return alloc_a == alloc_b and all(
        off_a(i, j) == off_b(i, j) for i in range(m) for j in range(g))


def count_v2(out, tokens):
    """(activation copies, their bytes, weight-scale re-layouts)."""
    copies, moved, weights = 0, 0, 0
    for rows, g, elt, src, dst in MATERIALIZE_V2.findall(out):
        m = None if rows == "?" else int(rows)
        g = int(g)
        if equal_layouts_v2(m, g, src, dst):
            continue
        if rows != tokens:
            weights += 1
            continue
        copies += 1
        moved += 2 * (1 if m is None else m) * g * (4 if elt == "f32" else 1)
    return copies, moved, weights


def run(cmd, stdin=None):
    proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"command failed: {' '.join(cmd)}\n{proc.stderr}")
    return proc.stdout


def step_ir(gen, config, arch, rocm, tokens, tp, flags, layers=None):
    """One decode step of `config` from fp8q-model-gen."""
    return run([gen, config if os.path.isabs(config) else
                os.path.join(ROOT, config), f"--target={arch}",
                f"--tokens={tokens}", f"--tp={tp}"]
               + ([f"--rocm={rocm}"] if rocm else []) + list(flags)
               + ([] if layers is None else [f"--layers={layers}"]))


def policy_rows(gen, opt, config, arch, rocm, tokens="16", tp="8", flags=(),
                layers=None, v2=False):
    """(policy, GEMMs, copies, bytes moved, launches saved vs hand-placed,
    weight-scale re-layouts or None) for each policy: one table's rows."""
    ir = step_ir(gen, config, arch, rocm, tokens, tp, flags, layers)
    gemms = ir.count("fp8q.gemm")
    rows, baseline = [], None
    for policy, pass_name in POLICIES:
        pipeline = ("builtin.module(fp8q-select-kernels,"
                    f"{pass_name},fp8q-verify-contracts)")
        out = run([opt, f"--pass-pipeline={pipeline}"], stdin=ir)
        if v2:
            copies, moved, weights = count_v2(out, tokens)
        else:
            copies, moved, weights = 0, 0, None
            for m, g, src, dst in MATERIALIZE.findall(out):
                m = None if m == "?" else int(m)
                g = int(g)
                if equal_layouts(m, g, src, dst):
                    continue
                copies += 1
                moved += 2 * (1 if m is None else m) * g * 4
        if baseline is None:
            baseline = copies
        rows.append((policy, gemms, copies, moved, baseline - copies, weights))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build")
    parser.add_argument("--tokens", default="16")
    parser.add_argument("--tp", default="8")
    parser.add_argument("--layers", default=None,
                        help="only the first N layers (default: all)")
    args = parser.parse_args()
    gen = os.path.join(args.build, "bin", "fp8q-model-gen")
    opt = os.path.join(args.build, "bin", "fp8q-opt")

    layers = "" if args.layers is None else f", first {args.layers} layers"
    bytes_label = "bytes moved per token" if args.tokens == "?" else "bytes moved"
    print(f"Scale copies per decode step (M = {args.tokens}, TP = {args.tp}"
          f"{layers}):\n")
    print(f"| model | target | GEMMs | policy | copies | {bytes_label} | "
          "launches saved vs hand-placed |")
    print("|---|---|---|---|---|---|---|")
    for name, config, flags in MODELS:
        for arch, rocm in TARGETS:
            for policy, gemms, copies, moved, saved, _ in policy_rows(
                    gen, opt, config, arch, rocm, args.tokens, args.tp, flags,
                    args.layers):
                print(f"| {name} | {arch} | {gemms} | {policy} | {copies} | "
                      f"{moved} | {saved} |")

    print(f"\nSPEC v2 formats: activation-scale copies per decode step "
          f"(M = {args.tokens}, TP = {args.tp}{layers}); weight-scale "
          "re-layouts happen once, at load:\n")
    print(f"| model | target | GEMMs | policy | copies | {bytes_label} | "
          "launches saved vs hand-placed | weight-scale re-layouts |")
    print("|---|---|---|---|---|---|---|---|")
    for name, config, flags, arch, rocm in V2_MODELS:
        for policy, gemms, copies, moved, saved, weights in policy_rows(
                gen, opt, config, arch, rocm, args.tokens, args.tp, flags,
                args.layers, v2=True):
            print(f"| {name} | {arch} | {gemms} | {policy} | {copies} | "
                  f"{moved} | {saved} | {weights} |")


if __name__ == "__main__":
    main()
