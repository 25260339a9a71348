#!/usr/bin/env bash
# PTX instruction counts of the E2M1 encodes of one 8-element chunk
# (bench/e2m1_encode_ptx.cu) for sm_90: the packed encode against the fp32
# path, bf16 and f16 input (MXFP4), and NVFP4's fp32 quotients encoded
# per element against e2m1Pack8Quotients (kNvfp4Fp32 / kNvfp4Packed).
# Needs nvcc only (no GPU). Usage, from the repository root:
# bash bench/e2m1_encode_ptx.sh
# Prints "KERNEL INSTRUCTIONS BRANCHES" per kernel; the load / store
# address arithmetic and parameter loads are left out of the count.
set -euo pipefail
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$NVCC" -std=c++17 -O3 -Iinclude -Ikernels/include -arch=sm_90 -ptx \
  bench/e2m1_encode_ptx.cu -o "$tmp/enc.ptx"
python3 - "$tmp/enc.ptx" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
skip = ('ld.param', 'cvta', 'ret', 'mul.wide', 'add.s64')
for m in re.finditer(r'\.entry (\S+)\(', t):
    j = t.find('.entry ', m.start() + 10)
    body = t[m.start():j if j > 0 else None]
    ins = [l.strip() for l in body.split('\n')
           if re.match(r'\s+[a-z@]', l) and not l.strip().startswith('.')]
    ins = [x for x in ins if not x.startswith(skip) and '%tid' not in x]
    name = re.sub(r'_Z\d+(\w+?)IN4fp8q4kern\d+(\w+?)EE.*', r'\1<\2>', m.group(1))
    print(name, len(ins), sum('bra' in x for x in ins))
PY
