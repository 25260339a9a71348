#!/usr/bin/env python3
"""Lists every kernel entry point (`__global__` function) of the files
given and the first statement of its body: "OK <name>" when the body starts
with gridPrologue(), "MISSING <name>: <first statement>" otherwise, and
"UNCHECKED <macro>" for a macro that spells `__global__` in a way this
script cannot follow to its kernels (a function-like attribute macro, or an
attribute macro no kernel of the files uses). Exits 1 if anything is
MISSING or UNCHECKED. The CUDA launcher launches every fp8q kernel
programmatically (PDL), which is only right for kernels that wait for the
prior grid before they touch memory (kernels/include/fp8q_kernels/
Portability.h, gridPrologue)."""
import re
import sys


def scan(text):
    """Yields ("entry", name, first statement) per __global__ definition and
    ("unchecked", macro, "") per macro it cannot follow."""
    # Macro continuations joined, so a kernel defined in a macro reads as one
    # line; `##` pasted names keep their parameter spelling.
    text = text.replace("\\\n", " ")
    defines = re.findall(r"^\s*#define\s+(\w+)(\(?)([^\n]*)$", text, re.M)
    # Macros that spell a kernel's attributes (`#define K extern "C"
    # __global__ ...` with no body) make each use of K an entry point.
    attrs = []
    for name, params, body in defines:
        if name == "__global__" or "__global__" not in body or "{" in body:
            continue  # the host-compile spelling, unrelated, or a kernel
        if params:
            yield "unchecked", name, ""
        else:
            attrs.append(name)
    used = set()
    pattern = r"\b(" + "|".join(["__global__"] + attrs) + r")\b"
    for m in re.finditer(pattern, text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        head = text[line_start:m.start()].lstrip()
        if head.startswith("#undef") or (head.startswith("#define") and
                                         "{" not in text[m.end():text.find(
                                             "\n", m.end())]):
            continue  # an attribute macro's own definition, or its #undef
        brace = text.find("{", m.end())
        semi = text.find(";", m.end())
        if brace < 0 or (0 <= semi < brace):
            continue  # a declaration
        used.add(m.group(1))
        sig = text[m.end():brace]
        name = re.search(r"(\w+(?:\s*##\s*\w+)*)\s*\([^()]*\)\s*$", sig)
        name = re.sub(r"\s+", "", name.group(1)) if name else "?"
        end = text.find(";", brace)
        yield "entry", name, " ".join(text[brace + 1:end + 1].split())
    for name in attrs:
        if name not in used:
            yield "unchecked", name, ""


def main(paths):
    bad = 0
    for path in paths:
        with open(path) as f:
            text = f.read()
        for kind, name, first in scan(text):
            if kind == "unchecked":
                print(f"UNCHECKED {name}: a __global__ macro this check "
                      f"cannot follow ({path})")
                bad += 1
            elif first == "gridPrologue();":
                print(f"OK {name}")
            else:
                print(f"MISSING {name}: {first}")
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
