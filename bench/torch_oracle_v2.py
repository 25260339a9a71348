#!/usr/bin/env python3
"""PyTorch 2.11's low-precision conversions as an outside oracle for fp8q's
encoders (issue 18, item 4): every one of the 2^32 fp32 bit patterns is
converted by torch (`x.to(dtype)`, on the GPU) and by fp8q's CPU encoders
(bench/torch_oracle_v2_shim.cpp over fp8q_mx_numerics.h), and every
difference is classified: NaN inputs, inputs beyond the format's largest
finite value (torch does not saturate: it returns NaN or inf, fp8q's
quantize saturates), and the rest, with examples.

Usage: python3 torch_oracle_v2.py <libshim.so> [--log2-chunk 26]
"""
import argparse
import ctypes
import sys

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("shim")
    ap.add_argument("--log2-chunk", type=int, default=26)
    args = ap.parse_args()
    import torch

    lib = ctypes.CDLL(args.shim)
    enc = lib.fp8q_oracle_encode
    enc.restype = None
    enc.argtypes = [ctypes.c_uint64, ctypes.c_int64, ctypes.c_int,
                    ctypes.c_void_p]
    dev = torch.device("cuda")
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name(0)}")
    # (name, torch dtype, fp8q kind, largest finite magnitude)
    kinds = [("float8_e4m3fn", torch.float8_e4m3fn, 0, 448.0),
             ("float8_e4m3fnuz", torch.float8_e4m3fnuz, 1, 240.0),
             ("float8_e5m2", torch.float8_e5m2, 2, 57344.0),
             ("float8_e8m0fnu", torch.float8_e8m0fnu, 10, 2.0 ** 127)]
    chunk = 1 << args.log2_chunk
    ours = np.empty(chunk, dtype=np.uint8)
    failed = False
    for name, dt, kind, fmax in kinds:
        counts = {"nan input": 0, "beyond max": 0, "other": 0}
        examples = []
        for first in range(0, 1 << 32, chunk):
            bits = torch.arange(first, first + chunk, dtype=torch.int64,
                                device=dev).to(torch.int32)
            x = bits.view(torch.float32)
            theirs = x.to(dt).view(torch.uint8).cpu().numpy()
            enc(first, chunk, kind, ours.ctypes.data)
            diff = np.nonzero(theirs != ours)[0]
            if diff.size == 0:
                continue
            xs = x.cpu().numpy()[diff]
            nan = np.isnan(xs)
            big = ~nan & (np.abs(xs) > fmax)
            counts["nan input"] += int(nan.sum())
            counts["beyond max"] += int(big.sum())
            rest = diff[~nan & ~big]
            counts["other"] += int(rest.size)
            for i in rest[:max(0, 8 - len(examples))]:
                examples.append((first + int(i), float(xs[np.searchsorted(
                    diff, i)]), int(theirs[i]), int(ours[i])))
        total = sum(counts.values())
        print(f"{name}: {total} of 2^32 differ: " + ", ".join(
            f"{k} {v}" for k, v in counts.items()))
        for b, v, t, o in examples:
            print(f"  bits 0x{b:08x} ({v!r}): torch 0x{t:02x}, fp8q 0x{o:02x}")
    # The packed fp4 dtype: does torch 2.11 convert to it?
    try:
        torch.tensor([0.5, 1.0], device=dev).to(torch.float4_e2m1fn_x2)
        print("float4_e2m1fn_x2: torch converts fp32 to it (not compared)")
    except Exception as e:  # noqa: BLE001 - report whatever torch raises
        print(f"float4_e2m1fn_x2: no fp32 conversion in torch "
              f"({type(e).__name__}: {str(e).splitlines()[0][:120]})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
