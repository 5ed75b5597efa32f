#!/usr/bin/env python3
"""Plots the output of scripts/bench-j2kdec.sh (bench-j2kdec's tables: our
GPU decoder beside nvJPEG2000 in the same run, and the CPU decoders) as a
bar chart of frames per second.

    python3 scripts/plot-bench-j2kdec.py bench-j2kdec.txt docs/img/j2kdec-bench.png

Needs matplotlib (python3-matplotlib); only for the docs' figure.
"""
import re
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

text = open(sys.argv[1]).read()
streams = [("ht-lossless", "HT lossless"), ("ht-1bpp", "HT 1 bpp"),
           ("p1-lossless", "Part 1 lossless")]
fps = {}
# the CPU table comes after its heading (the stage table has rows alike)
cpu_text = text[text.index("## CPU decode"):]
for key, _ in streams:
    # the GPU table: the device path's row, best of 1..4 in flight, and
    # nvJPEG2000 on the same stream
    best, nv = 0.0, None
    for m in re.finditer(r"^\| %s \| [0-9.]+ \| [0-9.]+ \| "
                         r"([0-9. /]+) \| [0-9.]+ \| "
                         r"\w+ \| ([0-9.]+) \|" % key, text, re.M):
        best = max(best, *(float(v) for v in m.group(1).split(" / ")))
        nv = float(m.group(2))
    fps[("ours, GPU", key)] = best
    fps[("nvJPEG2000, GPU", key)] = nv
    # the CPU table: seconds a frame, except ours on 16 threads (frames/s)
    m = re.search(r"^\| %s \| ([0-9.]+) \| ([0-9.]+) \| ([0-9.n/a]+) \| "
                  r"([0-9.n/a]+) \| ([0-9.n/a]+) \|" % key, cpu_text, re.M)
    cpu = m.groups()
    fps[("ours, CPU 16 threads", key)] = float(cpu[1])
    for name, v in (("opj_decompress, 16 threads", cpu[2]),
                    ("ojph_expand, 1 thread", cpu[3]),
                    ("grk_decompress, 16 threads", cpu[4])):
        fps[(name, key)] = 1 / float(v) if v != "n/a" else None

who = ["ours, GPU", "nvJPEG2000, GPU", "grk_decompress, 16 threads",
       "ours, CPU 16 threads", "ojph_expand, 1 thread",
       "opj_decompress, 16 threads"]
fig, ax = plt.subplots(figsize=(8, 4.2), dpi=100)
width = 0.27
for k, (key, label) in enumerate(streams):
    ys, vals = [], []
    for i, w in enumerate(who):
        if fps[(w, key)] is not None:
            ys.append(i + (k - 1) * width)
            vals.append(fps[(w, key)])
    bars = ax.barh(ys, vals, height=width, label=label, log=True)
    ax.bar_label(bars, labels=["%.0f" % v if v >= 100 else "%.3g" % v
                               for v in vals], fontsize=7, padding=2)
ax.set_yticks(range(len(who)))
ax.set_yticklabels(who)
ax.invert_yaxis()
ax.set_xlabel("frames/s (log scale), 3840x2160 4:4:4 12-bit")
gpu = re.search(r"^GPU: (.*?);", text, re.M)
ax.set_title("JPEG 2000 decode, %s and its host's 16 cores"
             % (gpu.group(1) if gpu else "GPU"), fontsize=10)
ax.legend(fontsize=8, loc="lower right")
fig.tight_layout()
fig.savefig(sys.argv[2])
