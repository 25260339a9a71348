#!/usr/bin/env python3
"""Decode GEMM on the H200: fp8q's weight-streaming kernels (the first
design, DecodeGemm.h, and v2, DecodeGemmV2.h) against the device copy
bandwidth and cuBLAS's blockwise FP8 GEMM, measured in one run.

For each weight shape [N, K] (the GLM-5 / DeepSeek-V3.2 TP 8 projections)
and M: a ring of distinct weight copies larger than twice the L2 (so that
L2 never serves a weight), one CUDA graph of one GEMM per ring entry,
replayed; time per GEMM = replay time / ring size (median of the replays).
Weight bandwidth = N * K bytes / time. Copy bandwidth = (read + write bytes)
/ time of a 1 GiB device copy in the same run. Correctness: every variant's
output against a float64 reference of the definition (bf16 tolerance); the
outputs are filled with NaN before each variant runs.

Per (shape, M) one FP8Q line: the first kernel (plain, then preshuffled
weight), "| V2" the second kernel (plain, preshuffled; its plan: rows per
block, K splits, blocks), the cuBLAS column, the speed-ups. --compact
prints one short line per (shape, M) instead (for sweeps).

Usage: python3 decode_gemm_h200.py <libdecode.so> [--iters N]
       [--shapes 6144x2048,...] [--ms 1,16,64] [--only-v2] [--no-v2]
       [--compact TAG] [--profile]
--profile (bench/decode_gemm_ncu.sh): no timing; per (shape, M) one launch
each of the first kernel, v2 (unless --no-v2; plain weight) and cuBLAS,
between cudaProfilerStart / Stop, for Nsight Compute's
--profile-from-start off.
Every kernel of the library (both designs, the read-only kernel) is
launched programmatically (PDL), as the CUDA runtime launches fp8q
kernels; FP8Q_PDL=0 launches them ordinarily (bench/decode_gemm_lib.cu).
"""
import argparse
import ctypes
import statistics
import sys

SHAPES = [(6144, 2048), (4096, 6144), (2624, 6144), (2048, 2048),
          (7168, 2048), (2112, 7168), (6144, 256), (24576, 1536)]
MS = [1, 16, 64]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lib")
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--shapes", default="")
    ap.add_argument("--ms", default="")
    which = ap.add_mutually_exclusive_group()
    which.add_argument("--only-v2", action="store_true",
                       help="skip the first kernel and cuBLAS")
    which.add_argument("--no-v2", action="store_true",
                       help="skip the second kernel")
    ap.add_argument("--compact", default="",
                    help="one short line per (shape, M), tagged")
    ap.add_argument("--profile", action="store_true",
                    help="one profiled launch per kernel, no timing")
    args = ap.parse_args()
    ms = [int(x) for x in args.ms.split(",")] if args.ms else MS
    say = (lambda *a, **k: None) if args.compact else print
    import torch
    import torch.nn.functional as F

    lib = ctypes.CDLL(args.lib)
    fn = lib.fp8q_bench_decode_gemm
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_void_p] * 5 + [ctypes.c_int64] * 10 + \
        [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
    fn2 = lib.fp8q_bench_decode_gemm_v2
    fn2.restype = ctypes.c_int
    fn2.argtypes = fn.argtypes
    plan = (ctypes.c_int * 4)()
    plan1 = (ctypes.c_int * 2)()  # the first kernel's splits, blocks
    dev = torch.device("cuda")
    fp8 = torch.float8_e4m3fn
    gen = torch.Generator(device=dev).manual_seed(7)
    props = torch.cuda.get_device_properties(dev)
    l2 = getattr(props, "L2_cache_size", 50 << 20)
    say(f"device {props.name}, {props.multi_processor_count} SMs, "
          f"L2 {l2 >> 20} MiB")

    def timed(stream, fn_, iters):
        g = torch.cuda.CUDAGraph()
        with torch.cuda.stream(stream):
            fn_()
            torch.cuda.synchronize()
            with torch.cuda.graph(g, stream=stream):
                fn_()
        for _ in range(3):
            g.replay()
        torch.cuda.synchronize()
        ts = []
        for _ in range(iters):
            a = torch.cuda.Event(enable_timing=True)
            b = torch.cuda.Event(enable_timing=True)
            a.record(stream)
            with torch.cuda.stream(stream):
                g.replay()
            b.record(stream)
            b.synchronize()
            ts.append(a.elapsed_time(b) * 1e3)
        return statistics.median(ts)

    stream = torch.cuda.Stream()
    if args.profile:
        return profile(args, ms, fn, plan1, None if args.no_v2 else fn2,
                       torch, F, dev, gen)
    # Copy bandwidth: 1 GiB, read + write.
    src = torch.empty(1 << 30, dtype=torch.uint8, device=dev)
    dst = torch.empty_like(src)
    t = timed(stream, lambda: dst.copy_(src), args.iters)
    copy_bw = 2 * src.numel() / (t * 1e-6) / 1e12
    say(f"COPY 1 GiB {t:.1f} us -> {copy_bw:.2f} TB/s (read + write)")
    rd = lib.fp8q_bench_read
    rd.restype = ctypes.c_int
    rd.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p,
                   ctypes.c_void_p]
    sink = torch.empty(1 << 16, dtype=torch.int32, device=dev)
    t = timed(stream, lambda: rd(src.data_ptr(), src.numel(), sink.data_ptr(),
                                 stream.cuda_stream), args.iters)
    read_bw = src.numel() / (t * 1e-6) / 1e12
    say(f"READ 1 GiB {t:.1f} us -> {read_bw:.2f} TB/s (16-byte loads)")
    del src, dst

    shapes = parse_shapes(args)
    fails = 0
    for n, k in shapes:
        g, nb = (k + 127) // 128, (n + 127) // 128
        ring = max(8, -(-4 * l2 // (n * k)))
        ws_list = [(torch.randn(n, k, device=dev, generator=gen) * 0.05)
                   .to(fp8) for _ in range(ring)]
        wsc = [torch.rand(nb, g, device=dev, generator=gen) * 1e-2 + 1e-3
               for _ in range(ring)]
        # The floor for this size: a kernel that only reads the weight
        # (16-byte loads, one launch per ring entry, the same graph).
        tr = timed(stream, lambda: [rd(w.data_ptr(), n * k, sink.data_ptr(),
                                       stream.cuda_stream) for w in ws_list],
                   args.iters) / ring
        say(f"READ-ONLY N={n} K={k} {tr:.2f} us "
              f"{n * k / (tr * 1e-6) / 1e12:.2f} TB/s", flush=True)
        for m in ms:
            q, xs = activations(torch, m, k, g, dev, gen)
            outs = [torch.empty(m, n, dtype=torch.bfloat16, device=dev)
                    for _ in range(ring)]
            sptr = stream.cuda_stream

            def run_fp8q(weights, pre):
                for i in range(ring):
                    rc = fn(*gemm_args(q, xs, weights[i], wsc[i], outs[i],
                                       pre, sptr), plan1)
                    if rc:
                        sys.exit(f"launch failed rc={rc}")

            def run_v2(weights, pre):
                for i in range(ring):
                    rc = fn2(*gemm_args(q, xs, weights[i], wsc[i], outs[i],
                                        pre, sptr), plan)
                    if rc:
                        sys.exit(f"v2 launch failed rc={rc}")
            # Reference of the definition in float64 (entry 0).
            qf = q.double()
            xe = xs.double().repeat_interleave(128, dim=1)[:, :k]
            we = wsc[0].double().repeat_interleave(128, dim=0)[:n] \
                .repeat_interleave(128, dim=1)[:, :k]
            ref = (qf * xe) @ (ws_list[0].double() * we).t()

            def worst(out):
                return ((out.double() - ref).abs() /
                        (ref.abs() * 2**-7 + 1e-3 * ref.abs().max())
                        ).max().item()

            def measure(runner, weights, pre):
                """(us per GEMM, worst err/tol of ring entry 0)."""
                for o in outs:
                    o.fill_(float("nan"))
                t_ = timed(stream, lambda: runner(weights, pre),
                           args.iters) / ring
                torch.cuda.synchronize()
                return t_, worst(outs[0])

            def tbps(t_):
                return n * k / (t_ * 1e-6) / 1e12
            shuffle_ok = n % 16 == 0 and k % 32 == 0
            # The weight in preshuffle_16x16 (SPEC): [N/16, 16, K/32, 2, 16]
            # -> [N/16, K/32, 2, 16, 16].
            shuf = [w.view(torch.uint8).view(n // 16, 16, k // 32, 2, 16)
                    .permute(0, 2, 3, 1, 4).contiguous()
                    for w in ws_list] if shuffle_ok else None

            def measure_v2(line):
                """The second kernel, both layouts: (best us, all PASS,
                plan, line, failures)."""
                nf = 0
                t2, err2 = measure(run_v2, ws_list, 0)
                ok2 = err2 <= 1.0
                nf += not ok2
                bw2 = tbps(t2)
                pl = f"R{plan[0]}/split{plan[1]}/{plan[2] * plan[1]}blk"
                line += (f" | V2 {t2:.2f} us {bw2:.2f} TB/s = "
                         f"{100 * bw2 / copy_bw:.0f}% of copy, "
                         f"{100 * bw2 / read_bw:.0f}% of read, "
                         f"{tr / t2:.2f}x read-only time ({pl}), check "
                         f"{'PASS' if ok2 else 'FAIL'} "
                         f"(worst err/tol {err2:.3f})")
                t2best, ok2all = t2, ok2
                if shuffle_ok:
                    t2p, err2p = measure(run_v2, shuf, 1)
                    ok2p = err2p <= 1.0
                    nf += not ok2p
                    ok2all = ok2all and ok2p
                    line += (f" | V2-PRESHUFFLE {t2p:.2f} us "
                             f"{tbps(t2p):.2f} TB/s = "
                             f"{100 * tbps(t2p) / read_bw:.0f}% of read, "
                             f"check {'PASS' if ok2p else 'FAIL'}")
                    t2best = min(t2, t2p)
                if t is not None:
                    line += f" | V2 vs FP8Q {t / t2best:.2f}x"
                return t2best, ok2all, pl, line, nf
            t = tp = None
            ok1 = True  # every check of the first kernel
            line = f"FP8Q N={n} K={k} M={m} ring={ring}"
            if not args.only_v2:
                t, err = measure(run_fp8q, ws_list, 0)
                ok = err <= 1.0
                fails += not ok
                ok1 = ok1 and ok
                bw = tbps(t)
                line += (f" {t:.2f} us (split{plan1[0]}/{plan1[1]}blk) "
                         f"weight {bw:.2f} TB/s = {100 * bw / copy_bw:.0f}% of "
                         f"copy, {100 * bw / read_bw:.0f}% of read, "
                         f"{tr / t:.2f}x read-only time, check {'PASS' if ok else 'FAIL'} "
                         f"(worst err/tol {err:.3f})")
                if shuffle_ok:
                    tp, perr = measure(run_fp8q, shuf, 1)
                    fails += not perr <= 1.0
                    ok1 = ok1 and perr <= 1.0
                    pbw = tbps(tp)
                    line += (f" | PRESHUFFLE {tp:.2f} us {pbw:.2f} TB/s = "
                             f"{100 * pbw / read_bw:.0f}% of read, check "
                             f"{'PASS' if perr <= 1.0 else 'FAIL'}")
                    t = min(t, tp)
            # The second kernel, both layouts.
            t2best, ok2all, pl = None, True, "-"
            if not args.no_v2:
                t2best, ok2all, pl, line, nf = measure_v2(line)
                fails += nf
            del shuf
            tc = None
            # cuBLAS blockwise on the same operands, where it runs.
            try:
                if args.only_v2:
                    raise RuntimeError("skipped (--only-v2)")
                sbs = [blockwise_scales(torch, wsc[i], nb, g, dev)
                       for i in range(ring)]
                couts = [None] * ring

                def run_cublas():
                    for i in range(ring):
                        couts[i] = F.scaled_mm(
                            q, ws_list[i].t(), xs, F.ScalingType.BlockWise1x128,
                            sbs[i], F.ScalingType.BlockWise128x128,
                            output_dtype=torch.bfloat16)
                tc = timed(stream, run_cublas, args.iters) / ring
                cbw = n * k / (tc * 1e-6) / 1e12
                cerr = worst(couts[0])
                line += (f" | CUBLAS {tc:.2f} us {cbw:.2f} TB/s (err/tol "
                         f"{cerr:.3f}), fp8q {tc / t:.2f}x"
                         + (f", v2 {tc / t2best:.2f}x"
                            if t2best is not None else ""))
            except Exception as e:  # report, do not hide
                tc = None
                line += f" | CUBLAS refused ({str(e).splitlines()[0][:60]})"
            if args.compact:
                # tag NxK M plan, v2 (best layout) us, % of the 1 GiB read,
                # % of the copy ("v2 -" with --no-v2), read-only floor us,
                # v1 (best layout) us, cuBLAS us, every check; the full line
                # goes to stderr.
                v2s = "v2 -"
                if t2best is not None:
                    bw2b = tbps(t2best)
                    v2s = (f"v2 {t2best:.2f}us {100 * bw2b / read_bw:.0f}%rd "
                           f"{100 * bw2b / copy_bw:.0f}%cp")
                print(f"{args.compact} {n}x{k} M={m} {pl} {v2s} ro {tr:.2f}"
                      + (f" v1 {t:.2f} s{plan1[0]}" if t is not None else "")
                      + (f" cublas {tc:.2f}" if tc is not None else "")
                      + f" {'PASS' if ok1 and ok2all else 'FAIL'}",
                      flush=True)
                print(line, file=sys.stderr, flush=True)
            else:
                print(line, flush=True)
            del outs
        del ws_list, wsc
        torch.cuda.empty_cache()
    if args.compact:
        print(f"{args.compact} copy {copy_bw:.2f} read {read_bw:.2f} TB/s "
              f"fails={fails}")
    else:
        print(f"DONE fails={fails}")
    return 1 if fails else 0


def parse_shapes(args):
    """--shapes NxK,... or the default list."""
    if not args.shapes:
        return SHAPES
    return [tuple(int(x) for x in s.split("x"))
            for s in args.shapes.split(",")]


def activations(torch, m, k, g, dev, gen):
    """fp8 activations [M, K] and their scale, column-major [M, G] (ld =
    M): what fusion hands the GEMM."""
    q = torch.randn(m, k, device=dev, generator=gen).to(torch.float8_e4m3fn)
    xs = torch.empty_strided((m, g), (1, m), device=dev)
    xs.copy_(torch.rand(m, g, device=dev, generator=gen) + 0.5)
    return q, xs


def gemm_args(q, xs, w, wsc, out, pre, stream):
    """The library launchers' arguments before the plan: dense row-major
    q / w / out, xs column-major, w_scale [NB, G] row-major."""
    m, k = q.shape
    n, g = out.shape[1], xs.shape[1]
    return (q.data_ptr(), xs.data_ptr(), w.data_ptr(), wsc.data_ptr(),
            out.data_ptr(), m, n, k, k, 1, m, k, g, 1, n, pre, stream)


def blockwise_scales(torch, wsc, nb, g, dev):
    """cuBLAS's 128x128 weight scale: [G4, NB] with G padded to 4."""
    sb = torch.zeros(nb, (g + 3) // 4 * 4, device=dev)
    sb[:, :g] = wsc
    return sb.t()


def profile(args, ms, fn, plan1, fn2, torch, F, dev, gen):
    """--profile: per (shape, M), after a warm-up launch of each, one
    launch of the first kernel, of the second (fn2, unless --no-v2) and one
    cuBLAS GEMM (where it runs) between cudaProfilerStart and Stop; prints
    which launches were profiled, in order, so the profiler's kernels can be
    matched to shapes."""
    shapes = parse_shapes(args)
    fp8 = torch.float8_e4m3fn
    plan2 = (ctypes.c_int * 4)()
    for n, k in shapes:
        g, nb = (k + 127) // 128, (n + 127) // 128
        w = (torch.randn(n, k, device=dev, generator=gen) * 0.05).to(fp8)
        wsc = torch.rand(nb, g, device=dev, generator=gen) * 1e-2 + 1e-3
        sb = blockwise_scales(torch, wsc, nb, g, dev)
        for m in ms:
            q, xs = activations(torch, m, k, g, dev, gen)
            out = torch.empty(m, n, dtype=torch.bfloat16, device=dev)
            sptr = torch.cuda.current_stream().cuda_stream

            def one_fp8q():
                ga = gemm_args(q, xs, w, wsc, out, 0, sptr)
                if fn(*ga, plan1):
                    sys.exit("launch failed")
                if fn2 and fn2(*ga, plan2):
                    sys.exit("v2 launch failed")

            def one_cublas():
                F.scaled_mm(q, w.t(), xs, F.ScalingType.BlockWise1x128, sb,
                            F.ScalingType.BlockWise128x128,
                            output_dtype=torch.bfloat16)
            one_fp8q()
            try:
                one_cublas()
                cublas = True
            except Exception:  # cuBLAS refuses M = 1: profile fp8q only
                cublas = False
            torch.cuda.synchronize()
            torch.cuda.profiler.start()
            one_fp8q()
            if cublas:
                one_cublas()
            torch.cuda.synchronize()
            torch.cuda.profiler.stop()
            print(f"PROFILED N={n} K={k} M={m} fp8q split{plan1[0]}/"
                  f"{plan1[1]}blk" + (f" + v2 R{plan2[0]}/split{plan2[1]}/"
                                     f"{plan2[2] * plan2[1]}blk" if fn2
                                     else "")
                  + (" + cublas" if cublas else ""),
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
