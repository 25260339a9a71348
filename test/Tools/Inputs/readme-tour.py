#!/usr/bin/env python3
"""Writes README's tour (its first ```mlir block) and the same function
without the materialize, the preshuffle, the kernel and the layout
encodings, the form a model exporter writes.

Usage: readme-tour.py README.md TOUR.mlir PLAIN.mlir"""
import re
import sys

readme, tour_path, plain_path = sys.argv[1:4]
text = open(readme).read()
match = re.search(r"```mlir\n(.*?)```", text, re.S)
if not match:
    sys.exit("readme-tour.py: no ```mlir block in " + readme)
tour = match.group(1)
open(tour_path, "w").write(tour)

# Drop the ops that selection and propagation insert (each spans two lines)
# and forward their operands to their uses.
plain = tour
for op in ("materialize", "preshuffle"):
    for result, operand in re.findall(
            r"(%\w+) = fp8q\." + op + r" (%\w+)", plain):
        plain = re.sub(r"\n *" + result + r" = fp8q\." + op +
                       r" [^\n]*\n[^\n]*", "", plain)
        plain = re.sub(result + r"\b", operand, plain)
plain = re.sub(r" \{kernel = #fp8q\.kernel<\w+>\}", "", plain)
plain = re.sub(r", #fp8q\.(weight_)?layout<[^>]*>>", ">", plain)
plain = re.sub(r"\n *//[^\n]*", "", plain)
open(plain_path, "w").write(plain)
