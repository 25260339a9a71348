"""PyTorch eager baselines for bench/RESULTS.md (run by bench/run_h200.sh).

Per-call device time (CUDA events over back-to-back calls) and host wall time
per call with synchronization, for the two eager operations the fp8q kernels
replace: the scale transposition `s.t().contiguous().t()` and a per-1x128
fp8 quantization written in eager PyTorch.
"""
import time

import torch


def dev_us(fn, iters=500):
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    a = torch.cuda.Event(enable_timing=True)
    b = torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(iters):
        fn()
    b.record()
    b.synchronize()
    return a.elapsed_time(b) * 1000.0 / iters


def wall_us(fn, iters=300):
    for _ in range(10):
        fn()
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(iters):
        fn()
        torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e6 / iters


def quant(x):
    m, k = x.shape
    xg = x.float().view(m, k // 128, 128)
    s = xg.abs().amax(-1).clamp(min=1e-10) / 448.0
    q = (xg / s.unsqueeze(-1)).clamp(-448.0, 448.0).to(torch.float8_e4m3fn)
    return q.view(m, k), s


def main():
    print("TORCH", torch.__version__, torch.cuda.get_device_name())
    k = 7168
    g = k // 128
    for m in (1, 16, 64, 1024, 16384):
        s = torch.rand(m, g, device="cuda")
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        t_dev = dev_us(lambda: s.t().contiguous().t())
        t_wall = wall_us(lambda: s.t().contiguous().t())
        q_dev = dev_us(lambda: quant(x), 200)
        q_wall = wall_us(lambda: quant(x), 100)
        print(f"TORCH M={m:<6d} t().contiguous().t() {t_dev:8.2f} us device "
              f"{t_wall:8.2f} us wall | eager quant {q_dev:9.2f} us device "
              f"{q_wall:9.2f} us wall")


if __name__ == "__main__":
    main()
