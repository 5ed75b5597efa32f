#!/usr/bin/env python3
"""Plots the output of scripts/bench-j2kdec.sh (bench-j2kdec's tables: our
GPU decoder beside nvJPEG2000 in the same run, and the CPU decoders) as a
bar chart of frames per second.

    python3 scripts/plot-bench-j2kdec.py bench-j2kdec.txt [nvj2k-threads.txt] \
        docs/img/j2kdec-bench.png

GPU bars: one frame at a time, and the best of the frames in flight, for
both decoders (nvJPEG2000 in flight from bench-j2kdec's columns, or from
nvj2k-threads' own output given beside).

Needs matplotlib (python3-matplotlib); only for the docs' figure.
"""
import re
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

text = open(sys.argv[1]).read()
# nvj2k-threads' own output, for a run whose bench-j2kdec was not given it
extra = "".join(open(f).read() for f in sys.argv[2:-1])
out_png = sys.argv[-1]
streams = [("ht-lossless", "HT lossless"), ("ht-1bpp", "HT 1 bpp"),
           ("p1-lossless", "Part 1 lossless")]


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def rates(cell):
    return [float(v) for v in cell.split(" / ") if v not in ("n/a", "-1.0")]


# the GPU table, by its header's names (older runs have fewer columns)
head = next(l for l in text.splitlines()
            if l.startswith("| stream | bpp | GPU ms (1 frame) |"))
col = {name: i for i, name in enumerate(cells(head))}
# "GPU frames/s 1 / 2 / ... / N in flight" (N: 4 in older runs, then 8)
ours_in_flight = next(i for n, i in col.items()
                      if n.startswith("GPU frames/s 1 / ") and n.endswith(" in flight"))
nv_one = col.get("nvJPEG2000 frames/s, 1 frame", col.get("nvJPEG2000 frames/s"))
nv_in_flight = next((i for n, i in col.items()
                     if n.startswith("nvJPEG2000 frames/s 1 / ")
                     and n.endswith(" in flight")), None)
fps = {}
# the CPU table comes after its heading (the stage table has rows alike)
cpu_text = text[text.index("## CPU decode"):]
for key, _ in streams:
    row = next(cells(l) for l in text.splitlines()
               if l.startswith("| %s | " % key))
    ours = rates(row[ours_in_flight])
    fps[("ours, GPU, 1 frame", key)] = ours[0]
    fps[("ours, GPU, best in flight", key)] = max(ours)
    fps[("nvJPEG2000, 1 frame", key)] = (rates(row[nv_one]) or [None])[0]
    nv = rates(row[nv_in_flight]) if nv_in_flight is not None else []
    nv += [float(m) for m in re.findall(r"^\| \S*/%s\.j2c \| \d+ \| ([0-9.]+) \|"
                                        % key, extra, re.M)]
    fps[("nvJPEG2000, best in flight", key)] = max(nv) if nv else None
    # the CPU table: seconds a frame, except ours on 16 threads (frames/s)
    m = re.search(r"^\| %s \| ([0-9.]+) \| ([0-9.]+) \| ([0-9.n/a]+) \| "
                  r"([0-9.n/a]+) \| ([0-9.n/a]+) \|" % key, cpu_text, re.M)
    cpu = m.groups()
    fps[("ours, CPU 16 threads", key)] = float(cpu[1])
    for name, v in (("opj_decompress, 16 threads", cpu[2]),
                    ("ojph_expand, 1 thread", cpu[3]),
                    ("grk_decompress, 16 threads", cpu[4])):
        fps[(name, key)] = 1 / float(v) if v != "n/a" else None

who = [w for w in ["ours, GPU, best in flight", "nvJPEG2000, best in flight",
                   "ours, GPU, 1 frame", "nvJPEG2000, 1 frame",
                   "grk_decompress, 16 threads", "ours, CPU 16 threads",
                   "ojph_expand, 1 thread", "opj_decompress, 16 threads"]
       if any(fps[(w, k)] is not None for k, _ in streams)]
fig, ax = plt.subplots(figsize=(8, 5.2), dpi=100)
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
fig.savefig(out_png)
