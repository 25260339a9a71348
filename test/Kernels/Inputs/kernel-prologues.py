#!/usr/bin/env python3
"""Lists every kernel entry point (`__global__` function) of the .hip files
given and the first statement of its body: "OK <name>" when the body starts
with gridPrologue(), "MISSING <name>: <first statement>" otherwise. Exits 1 if any is missing. The CUDA launcher launches
every fp8q kernel programmatically (PDL), which is only right for kernels
that wait for the prior grid before they touch memory
(kernels/include/fp8q_kernels/Portability.h, gridPrologue)."""
import re
import sys


def entries(text):
    """(name, first statement) of each __global__ definition in `text`."""
    # Macro continuations joined, so a kernel defined in a macro reads as one
    # line; `##` pasted names keep their parameter spelling.
    text = text.replace("\\\n", " ")
    # Macros that spell a kernel's attributes (`#define K extern "C"
    # __global__ ...` with no body) make each use of K an entry point.
    attrs = [m.group(1) for m in re.finditer(
        r"^\s*#define\s+(\w+)\s[^\n{]*__global__[^\n{]*$", text, re.M)]
    pattern = r"\b(" + "|".join(["__global__"] + attrs) + r")\b"
    for m in re.finditer(pattern, text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        head = text[line_start:m.start()]
        brace = text.find("{", m.end())
        semi = text.find(";", m.end())
        if brace < 0 or (0 <= semi < brace):
            continue  # a declaration, or a macro that only names the attributes
        if head.lstrip().startswith("#define") and \
                text.find("\n", m.end()) < brace:
            continue
        sig = text[m.end():brace]
        name = re.search(r"(\w+(?:\s*##\s*\w+)*)\s*\([^()]*\)\s*$", sig)
        name = re.sub(r"\s+", "", name.group(1)) if name else "?"
        end = text.find(";", brace)
        yield name, " ".join(text[brace + 1:end + 1].split())


def main(paths):
    missing = 0
    for path in paths:
        with open(path) as f:
            text = f.read()
        for name, first in entries(text):
            if first == "gridPrologue();":
                print(f"OK {name}")
            else:
                print(f"MISSING {name}: {first}")
                missing += 1
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
