#!/usr/bin/env python3
"""Plots bench/dragonfly_routing.sh's CSV: accepted against offered throughput (fractions of the injection
bandwidth), one panel per traffic pattern, one line per routing, with the analytic limits of Kim, Dally,
Scott, Abts (ISCA 2008) for the minimal and Valiant routes as dashed lines.
Usage: bench/dragonfly_routing_plot.py dragonfly_routing.csv docs/dragonfly-routing.png"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PATTERNS = [("ur", "uniform random"), ("shift", "shift by one group"), ("wc", "worst case (group i to i+1)")]
ROUTINGS = [("minimal", "MIN"), ("valiant", "VAL"), ("ugal-l", "UGAL-L"), ("ugal-g", "UGAL-G")]
# Analytic saturation limits, p = h = 4, a = 8, g = 33: MIN on uniform random 1 (injection bound); on the
# shift and the worst case one global link per group pair carries a*p = 32 nodes: 1/32; VAL crosses two
# global links per message: 1/2.
LIMITS = {"ur": {"MIN": 1.0, "VAL": 0.5}, "shift": {"MIN": 1 / 32, "VAL": 0.5}, "wc": {"MIN": 1 / 32, "VAL": 0.5}}


def main(src, dst):
    rows = list(csv.DictReader(open(src)))
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.8), sharey=True)
    for ax, (pattern, title) in zip(axes, PATTERNS):
        for routing, label in ROUTINGS:
            pts = sorted((float(r["offered"]), float(r["accepted"])) for r in rows
                         if r["pattern"] == pattern and r["routing"] == routing)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=3, label=label)
        for label, limit in LIMITS[pattern].items():
            ax.axhline(limit, linestyle="--", linewidth=0.8, color="grey")
            ax.text(0.02, limit + 0.01, label + " limit", fontsize=7, color="grey")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("offered load (fraction of injection bandwidth)")
        ax.set_xlim(0, 1.02)
        ax.set_ylim(0, 1.05)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("accepted throughput")
    axes[0].legend(fontsize=8, loc="upper left", bbox_to_anchor=(0.0, 0.92))
    fig.suptitle("xsim dragonfly p=h=4, a=8, g=33 (1,056 nodes), -xsim-contention links", fontsize=10)
    fig.tight_layout()
    fig.savefig(dst, dpi=90)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
