#!/usr/bin/env python3
"""Decode step time per policy against M: the steps phase of the H200 run.

Reads what bench/device_step_h200.sh's `steps` phase wrote: its CSV
(OUT/step_time.csv: model, policy, m, graph, min_us, median_us, max_us,
copies, ...) or, for older runs, its log (the `STEP model=... m=...
policy=... graph=... steps: min ... us, median ... us, max ... us` lines).
Several inputs may be given; a later line for the same model, policy, M
and graph mode replaces an earlier one. Draws one panel per model: the
median step time per policy against M (log scale), bars from min to max,
solid lines for steps replayed from one CUDA graph and dashed ones for
eager steps. Needs Debian's python3-matplotlib (Agg backend, no display,
no network).

  python3 bench/plot_step_time.py OUT/step_time.csv \\
      -o bench/results/step_time.png
"""
import argparse
import csv
import io
import os
import re
import sys

POLICIES = {  # name in the CSV -> (label, colour)
    "fused": ("fp8q, fusion", "tab:blue"),
    "fused-noprod": ("fp8q, fusion, producers unfused", "tab:purple"),
    "nofusion": ("fp8q, no fusion", "tab:orange"),
    "hand": ("hand-placed fix", "tab:red"),
    "gemms": ("FP8 GEMMs alone", "tab:gray"),
    "gemms-torchset": ("FP8 GEMMs of the PyTorch anchor", "tab:green"),
}
MODELS = {
    "glm5": "GLM-5, 78 layers, TP 8",
    "deepseek": "DeepSeek-V3.2, 61 layers, TP 8",
}
STEP = re.compile(
    r"^STEP model=(\S+) m=(\d+) policy=(\S+) graph=(\S+) steps: min ([0-9.]+) "
    r"us, median ([0-9.]+) us, max ([0-9.]+) us")


def read_rows(path):
    """(model, policy, m, graph, min, median, max, copies) per result."""
    with open(path) as f:
        text = f.read()
    rows = []
    if text.startswith("model,policy,"):
        for r in csv.DictReader(io.StringIO(text)):
            try:
                rows.append((r["model"], r["policy"], int(r["m"]),
                             r["graph"] == "yes", float(r["min_us"]),
                             float(r["median_us"]), float(r["max_us"]),
                             r.get("copies") or ""))
            except (KeyError, ValueError) as e:
                sys.exit(f"{path}: bad CSV line {r}: {e}")
        return rows
    for line in text.splitlines():
        s = STEP.match(line)
        if s:
            model, m, policy, graph, lo, med, hi = s.groups()
            # Older logs wrote graph=yes--graph for graph runs.
            rows.append((model, policy, int(m), graph.startswith("yes"),
                         float(lo), float(med), float(hi), ""))
    if not rows:
        sys.exit(f"{path}: neither a step_time.csv (header 'model,policy,"
                 "...') nor a log with STEP lines of device_step_h200.sh")
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="+",
                    help="step_time.csv files or device_step_h200.sh logs")
    ap.add_argument("-o", "--output", default="bench/results/step_time.png")
    ap.add_argument("--title", default="Decode step time on the H200 "
                    "(median; bars: min to max)")
    args = ap.parse_args()

    results = {}
    for path in args.inputs:
        for model, policy, m, graph, lo, med, hi, copies in read_rows(path):
            results[(model, policy, m, graph)] = (lo, med, hi, copies)
    models = sorted({k[0] for k in results},
                    key=lambda n: (list(MODELS).index(n) if n in MODELS
                                   else len(MODELS), n))

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(models), figsize=(6 * len(models), 6),
                             squeeze=False)
    for ax, model in zip(axes[0], models):
        ms = sorted({k[2] for k in results if k[0] == model})
        policies = [p for p in POLICIES if any(
            k[0] == model and k[1] == p for k in results)]
        policies += sorted({k[1] for k in results
                            if k[0] == model and k[1] not in POLICIES})
        for policy in policies:
            label, colour = POLICIES.get(policy, (policy, None))
            copies = {v[3] for k, v in results.items()
                      if k[0] == model and k[1] == policy and v[3] != ""}
            if len(copies) == 1 and not policy.startswith("gemms"):
                label += f" ({copies.pop()} copies)"
            for graph in (True, False):
                points = sorted((k[2], v) for k, v in results.items()
                                if k[:2] == (model, policy) and k[3] == graph)
                if not points:
                    continue
                x = [m for m, _ in points]
                med = [v[1] / 1e3 for _, v in points]
                err = [[(v[1] - v[0]) / 1e3 for _, v in points],
                       [(v[2] - v[1]) / 1e3 for _, v in points]]
                ax.errorbar(x, med, yerr=err, color=colour, capsize=3,
                            linestyle="-" if graph else "--",
                            marker="o" if graph else "s",
                            markerfacecolor=colour if graph else "white",
                            label=f"{label}, {'graph' if graph else 'eager'}")
        ax.set_xscale("log", base=2)
        ax.set_xticks(ms)
        ax.set_xticklabels([str(m) for m in ms])
        ax.set_xlabel("M (tokens per step)")
        ax.set_ylabel("step time (ms)")
        ax.set_title(MODELS.get(model, model))
        ax.grid(True, alpha=0.3)
        # Below the panel: the lines fill it from M = 1 to the largest M.
        ax.legend(fontsize=7, loc="upper center", ncol=2,
                  bbox_to_anchor=(0.5, -0.14))
    fig.suptitle(args.title)
    fig.tight_layout()
    out_dir = os.path.dirname(args.output)
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)
    fig.savefig(args.output, dpi=120)
    print(f"wrote {args.output}: {len(models)} model(s), "
          f"{len(results)} results")


if __name__ == "__main__":
    main()
