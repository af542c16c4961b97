#!/usr/bin/env python3
"""Draws bench/validate.sh's table as an SVG (no plotting library needed): for each case, the measured and
the predicted time as two bars on a log scale, the error written beside them.
    validation_plot.py validation.csv validation.svg"""
import csv
import math
import sys


def main(src, dst):
    rows = [r for r in csv.DictReader(open(src)) if float(r["measured_s"]) > 0 and float(r["predicted_s"]) > 0]
    if not rows:
        sys.exit("validation_plot.py: no rows in " + src)
    values = [float(r[k]) for r in rows for k in ("measured_s", "predicted_s")]
    lo = math.floor(math.log10(min(values))) - 0.2
    hi = math.ceil(math.log10(max(values))) + 0.2
    left, width, bar, gap, top = 160, 560, 9, 10, 40
    height = top + len(rows) * (2 * bar + gap) + 40

    def x(v):
        return left + (math.log10(v) - lo) / (hi - lo) * width

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 110}" height="{height}" '
           'font-family="sans-serif" font-size="11">',
           f'<text x="{left}" y="18" font-size="13">xsim prediction (calibrated) against the measured native run, '
           'seconds (log scale)</text>',
           f'<rect x="{left}" y="24" width="10" height="8" fill="#4a7ab8"/><text x="{left + 14}" y="32">measured</text>',
           f'<rect x="{left + 80}" y="24" width="10" height="8" fill="#e08a2c"/>'
           f'<text x="{left + 94}" y="32">predicted</text>']
    for e in range(math.ceil(lo), math.floor(hi) + 1):
        xe = x(10 ** e)
        out.append(f'<line x1="{xe:.1f}" y1="{top}" x2="{xe:.1f}" y2="{height - 30}" stroke="#ddd"/>')
        out.append(f'<text x="{xe:.1f}" y="{height - 16}" text-anchor="middle">1e{e}</text>')
    y = top
    for r in rows:
        m, p = float(r["measured_s"]), float(r["predicted_s"])
        out.append(f'<text x="{left - 6}" y="{y + bar + 4}" text-anchor="end">{r["case"]}</text>')
        out.append(f'<rect x="{left}" y="{y}" width="{x(m) - left:.1f}" height="{bar}" fill="#4a7ab8"/>')
        out.append(f'<rect x="{left}" y="{y + bar}" width="{x(p) - left:.1f}" height="{bar}" fill="#e08a2c"/>')
        out.append(f'<text x="{max(x(m), x(p)) + 6:.1f}" y="{y + bar + 4}">{r["error"]}</text>')
        y += 2 * bar + gap
    out.append('</svg>')
    open(dst, "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
