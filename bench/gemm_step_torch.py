#!/usr/bin/env python3
"""The PyTorch anchor of a decode step's FP8 GEMMs, in the same run as fp8q's.

Reads the tensor IR of a decode step (fp8q-model-gen output, the file
bench/gemm_step.py reads), and runs exactly its fp8q.gemm ops in order with
PyTorch's cuBLAS blockwise FP8 GEMM (`F.scaled_mm`, BlockWise1x128 x
BlockWise128x128), each with its own weight and weight scale, on
pre-quantized activations with column-major scales (what fusion gives), one
CUDA graph, timed with CUDA events per replay: the anchor of
shared/REFERENCE.md ("18.2 ms at M = 16"), measured beside fp8q's
`<model>-gemms` artifact so that the two are compared on one GPU in one
run. A shape `scaled_mm` refuses is reported and left out; `--exclude`
prints the `bench/gemm_step.py --exclude` list that drops the same shapes
from fp8q's module.

  python3 bench/gemm_step_torch.py glm5-unrolled.mlir --m 16
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gemm_step import GEMM  # noqa: E402  (one definition of the parser)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("--m", type=int, action="append",
                    help="tokens per step (repeatable; default 16)")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--iters", type=int, default=20)
    args = ap.parse_args()
    import torch
    import torch.nn.functional as F

    text = open(args.model).read()
    # groups(): M, K, N, K, NB, G, N -> (K, N)
    gemms = [(int(g[3]), int(g[2])) for g in
             (m.groups() for m in GEMM.finditer(text))]
    if not gemms:
        sys.exit(f"{args.model}: no fp8q.gemm with fp8 operands found")
    dev = torch.device("cuda")
    fp8 = torch.float8_e4m3fn
    gen = torch.Generator(device=dev).manual_seed(1)

    def scaled_mm(a, b, sa, sb):
        return F.scaled_mm(a, b, sa, F.ScalingType.BlockWise1x128, sb,
                           F.ScalingType.BlockWise128x128,
                           output_dtype=torch.bfloat16)

    def weight(k, n):
        g, nb = k // 128, (n + 127) // 128
        w = (torch.randn(n, k, device=dev, generator=gen) * 0.02).to(fp8)
        # [round_up(G, 4), NB] with strides (1, G4): the view cuBLAS wants
        # (shared/REFERENCE.md), the pad rows never read.
        g4 = (g + 3) // 4 * 4
        sb = torch.rand(nb, g4, device=dev, generator=gen) * 1e-3
        return w.t(), sb.t()

    for m in args.m or [16]:
        acts = {}
        for k, _ in gemms:
            if k not in acts:
                q = (torch.randn(m, k, device=dev, generator=gen)).to(fp8)
                sa = torch.empty_strided((m, k // 128), (1, m), device=dev)
                sa.copy_(torch.rand(m, k // 128, device=dev, generator=gen))
                acts[k] = (q, sa)
        refused, ops = {}, []
        for k, n in gemms:
            if (n, k) in refused:
                continue
            b, sb = weight(k, n)
            q, sa = acts[k]
            try:
                scaled_mm(q, b, sa, sb)
            except Exception as e:  # report, do not hide
                refused[(n, k)] = str(e).splitlines()[0]
                continue
            ops.append((q, b, sa, sb))
        torch.cuda.synchronize()
        for (n, k), why in sorted(refused.items()):
            count = sum(1 for g in gemms if g == (k, n))
            print(f"refused N={n} K={k} ({count} gemms): {why}")
        stream = torch.cuda.Stream()
        graph = torch.cuda.CUDAGraph()
        outs = []
        with torch.cuda.stream(stream):
            for op in ops:  # warm-up outside capture
                scaled_mm(*op)
            torch.cuda.synchronize()
            with torch.cuda.graph(graph, stream=stream):
                outs = [scaled_mm(*op) for op in ops]
        for _ in range(args.warmup):
            graph.replay()
        torch.cuda.synchronize()
        times = []
        for _ in range(args.iters):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record(stream)
            with torch.cuda.stream(stream):
                graph.replay()
            end.record(stream)
            end.synchronize()
            times.append(start.elapsed_time(end) * 1000.0)
        print(f"TORCH m={m} gemms={len(ops)} of {len(gemms)} graph "
              f"min={min(times):.1f} median={statistics.median(times):.1f} "
              f"max={max(times):.1f} us")
        if refused:
            print("exclude: " + ",".join(f"{n}x{k}" for n, k in refused))
        del outs, graph, ops, acts
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
