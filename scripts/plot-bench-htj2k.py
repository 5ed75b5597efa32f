#!/usr/bin/env python3
"""Plots the output of scripts/bench-htj2k.sh (the GPU encoder's frames/s
and the anchors' on the same picture, same run) as a bar chart.

    python3 scripts/plot-bench-htj2k.py bench.txt docs/img/htj2k-bench.png

Needs matplotlib (pip install matplotlib); only for the docs' figure.
"""
import re
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

text = open(sys.argv[1]).read()
fps = {}
for mode in ("lossless", "lossy"):
    m = re.search(r"^\| %s \| [0-9.]+ \| ([0-9.]+) \|" % mode, text, re.M)
    fps[("GPU htj2k, device-resident", mode)] = float(m.group(1))
    m = re.search(r"ojph_compress %s: 1 process ([0-9.]+) s/frame; "
                  r"16 processes ([0-9.]+) frames/s" % mode, text)
    fps[("ojph_compress, 1 process", mode)] = 1 / float(m.group(1))
    fps[("ojph_compress, 16 processes", mode)] = float(m.group(2))
    m = re.search(r"grk_compress HT %s, 16 threads: ([0-9.]+) s/frame" % mode,
                  text)
    fps[("grk_compress HT, 16 threads", mode)] = 1 / float(m.group(1))
    m = re.search(r"^\| GBR_12LE \| cuda \| %s \| \S+ \| \d+ \| ([0-9.]+) \|"
                  % mode, text, re.M)
    fps[("GPU htj2k, appsrc pipeline", mode)] = float(m.group(1))

who = ["GPU htj2k, device-resident", "GPU htj2k, appsrc pipeline",
       "ojph_compress, 16 processes", "grk_compress HT, 16 threads",
       "ojph_compress, 1 process"]
fig, ax = plt.subplots(figsize=(8, 3.6), dpi=100)
width = 0.38
for k, mode in enumerate(("lossless", "lossy")):
    vals = [fps[(w, mode)] for w in who]
    ys = [i + (k - 0.5) * width for i in range(len(who))]
    bars = ax.barh(ys, vals, height=width, label=mode, log=True)
    for y, v in zip(ys, vals):
        ax.text(v * 1.08, y, "%.4g" % v, va="center", fontsize=8)
ax.set_yticks(range(len(who)))
ax.set_yticklabels(who, fontsize=9)
ax.invert_yaxis()
ax.set_xlabel("frames/s, 3840x2160 4:4:4 12-bit (log scale)")
ax.set_xlim(1, 2e4)
ax.set_title("HTJ2K encoding on one H100 host (lossy: ~1 bit/pixel)",
             fontsize=10)
ax.legend(fontsize=8, loc="lower right")
fig.tight_layout()
fig.savefig(sys.argv[2])
