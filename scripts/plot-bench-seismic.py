#!/usr/bin/env python3
"""Plots SNR against compression ratio from bench-seismic's --csv output:
our codec (one line per number of DWT levels, points at bits 6..16) and
ZFP at the same ratios, fixed-rate (a line) and fixed-accuracy (the two
tolerances whose sizes bracket each of our points), for the F3 gather and
the synthetic shot.  With cuszp-seis's --csv output as a third argument
(bench/anchors/cuszp_seis.cu), cuSZp's points too (every mode; the rows it
coded wrongly are not in that file), and every gather the two files share.

    bench-seismic --csv seismic.csv > seismic.txt
    python3 scripts/plot-bench-seismic.py seismic.csv docs/img/seismic-snr-cr.png
    python3 scripts/plot-bench-seismic.py seismic.csv OUT.png cuszp.csv

Needs matplotlib (pip install matplotlib); only for the docs' figure.
"""
import csv
import math
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

rows = list(csv.DictReader(open(sys.argv[1])))
cuszp = list(csv.DictReader(open(sys.argv[3]))) if len(sys.argv) > 3 else []
gathers = [("f3", "F3 (real, 414 x 75, int16)"),
           ("shot", "synthetic shot (96 x 3584, 2 ms)")]
if cuszp:
    named = dict(gathers)
    gathers = [(g, named.get(g, g)) for g in
               dict.fromkeys(r["gather"] for r in cuszp)]
gathers = [g for g in gathers if any(r["gather"] == g[0] for r in rows)]

fig, axes = plt.subplots(1, len(gathers), figsize=(5.2 * len(gathers), 4.2),
                         dpi=100, squeeze=False)
for ax, (name, title) in zip(axes[0], gathers):
    sel = [r for r in rows if r["gather"] == name]
    finite = [float(r["snr_db"]) for r in sel
              if math.isfinite(float(r["snr_db"]))]
    top = max(finite) + 5 if finite else 100

    def pts(codec, levels=None):
        """(CR, SNR) points; ours in the order of bits (CR need not fall
        monotonically with bits), ZFP's sorted by CR."""
        out = []
        for r in sel:
            if r["codec"] != codec:
                continue
            if levels is not None and int(r["levels"]) != levels:
                continue
            s = float(r["snr_db"])
            out.append((int(r["bits"]), float(r["cr"]),
                        s if math.isfinite(s) else top))
        if codec == "ours":
            return [(c, s) for _, c, s in sorted(out)]
        return sorted({(c, s) for _, c, s in out})

    for levels in sorted({int(r["levels"]) for r in sel
                          if r["codec"] == "ours"}):
        p = pts("ours", levels)
        ax.plot([a for a, _ in p], [b for _, b in p], "o-", ms=3,
                label="ours, %d level%s" % (levels, "s" if levels > 1 else ""))
    p = pts("zfp-rate")
    ax.plot([a for a, _ in p], [b for _, b in p], "k--", lw=1,
            label="ZFP fixed rate")
    p = pts("zfp-accuracy")
    ax.plot([a for a, _ in p], [b for _, b in p], "k^", ms=4, mfc="none",
            label="ZFP fixed accuracy")
    p = [(float(r["cr"]), float(r["snr_db"])) for r in cuszp
         if r["gather"] == name and 0 < float(r["snr_db"]) <= top]
    if p:
        ax.plot([a for a, _ in p], [b for _, b in p], "x", color="0.45",
                ms=3, label="cuSZp 3.0, six modes")
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(FixedLocator([1, 1.5, 2, 3, 4, 6, 8, 10, 15,
                                             20, 30, 40, 60, 100, 200, 400]))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: "%g" % v))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("compression ratio (float32 bytes / compressed bytes)")
    ax.set_ylabel("SNR (dB)")
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", lw=0.3)
    if any(not math.isfinite(float(r["snr_db"])) for r in sel):
        ax.text(0.02, 0.98, "top edge: lossless", transform=ax.transAxes,
                va="top", fontsize=7)
    ax.legend(fontsize=7)
fig.suptitle("Seismic codec (5/3 DWT + n-bit quantization + Huffman) "
             "against ZFP%s, same data, same run" % (" and cuSZp" if cuszp
                                                     else ""), fontsize=10)
fig.tight_layout()
fig.savefig(sys.argv[2])
