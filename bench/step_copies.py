#!/usr/bin/env python3
"""Scale copies in one module: the fp8q.materialize ops that move bytes.

Counts them exactly as bench/copies_per_step.py does (a materialize between
equal layouts copies nothing; with a dynamic M, col_major with an alignment
differs from col_major), for a module already through a layout policy, e.g.

  fp8q-opt step.mlir --fp8q-select-kernels=sm90-kernel=cublas \\
      --fp8q-propagate-scale-layout | python3 bench/step_copies.py -

Prints the count (one number). bench/device_step_artifacts.sh writes these
per model and policy into copies.csv, the `copies` column of the step-time
CSV of bench/device_step_h200.sh.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from copies_per_step import MATERIALIZE, equal_layouts  # noqa: E402


def count_copies(text):
    """The number of fp8q.materialize ops in `text` that copy."""
    copies = 0
    for m, g, src, dst in MATERIALIZE.findall(text):
        if not equal_layouts(None if m == "?" else int(m), int(g), src, dst):
            copies += 1
    return copies


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("module", help="an .mlir file, or - for standard input")
    args = ap.parse_args()
    if args.module == "-":
        text = sys.stdin.read()
    else:
        with open(args.module) as f:
            text = f.read()
    if "fp8q.gemm" not in text:
        sys.exit(f"{args.module}: no fp8q.gemm: not an fp8q decode step "
                 "(did the fp8q-opt before it fail?)")
    print(count_copies(text))


if __name__ == "__main__":
    main()
