#!/usr/bin/env python3
"""Plots the noise study (bench/noise/study.sh with OUT=FILE; docs/noise.md "Study"): slowdown against scale
per noise signature, on the normal network (solid) and the 10x faster one (dashed), and the virtual time
per iteration, noise-free and noisy, on both networks.
    plot.py STUDY.tsv OUT.png      (needs matplotlib: Debian's python3-matplotlib, /usr/bin/python3)
The TSV's rows: ranks, nodes, network, signature, iterations, time per iteration (s), slowdown, wall (s).
A size measured more than once keeps its last row."""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LABELS = {
    "none": "no noise",
    "periodic:1ms:25us:random": "frequent short: 25 us every 1 ms",
    "periodic:100ms:2.5ms:random": "rare long: 2.5 ms every 100 ms",
    "poisson:1kHz:25us": "Poisson: 25 us at 1 kHz",
}
COLORS = {"none": "black", "periodic:1ms:25us:random": "tab:blue", "periodic:100ms:2.5ms:random": "tab:red",
          "poisson:1kHz:25us": "tab:green"}


def read(path):
    rows = {}
    with open(path) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) < 8 or line.startswith("#"):
                continue
            rows[(p[2], p[3], int(p[0]))] = (float(p[5]) * 1e6, float(p[6]))
    return rows


def series(rows, net, sig, col):
    pts = sorted((np, v[col]) for (n, s, np), v in rows.items() if n == net and s == sig)
    return [p[0] for p in pts], [p[1] for p in pts]


def main():
    rows = read(sys.argv[1])
    sigs = [s for s in LABELS if any(k[1] == s for k in rows)]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.2))
    for sig in sigs:
        for net, style in (("normal", "-"), ("fast", "--")):
            x, y = series(rows, net, sig, 1)
            if x and sig != "none":
                a.plot(x, y, style, marker="o", ms=3, color=COLORS[sig],
                       label=f"{LABELS[sig]}, {'10x faster network' if net == 'fast' else 'network'}")
            x, y = series(rows, net, sig, 0)
            if x:
                b.plot(x, y, style, marker="o", ms=3, color=COLORS[sig])
    for ax in (a, b):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("virtual ranks (16 per node)")
        ax.grid(True, which="both", alpha=0.3)
    a.set_ylabel("slowdown (time per iteration / noise-free)")
    a.set_title("BSP loop, 100 us work + allreduce; noise 2.5%", fontsize=10)
    a.legend(fontsize=7, loc="upper left")
    b.set_ylabel("virtual time per iteration (us)")
    b.set_title("per iteration: solid = network, dashed = 10x faster", fontsize=10)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=72)


if __name__ == "__main__":
    main()
