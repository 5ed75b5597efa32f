#!/usr/bin/env python3
"""Our seismic codec against cuSZp at equal SNR (issue 24): joins
bench-seismic's --csv output (codec "ours") with cuszp-seis's
(bench/anchors/cuszp_seis.cu, codecs cuszp-MODE-1d/2d) and prints a
markdown table: for each gather and each of our points between 20 and
60 dB that lies inside cuSZp's measured SNR range there, cuSZp's CR at our
SNR, interpolated linearly in SNR of log(CR) between the two cuSZp points
that bracket it, for the cuSZp codec that gives the most there.

    bench-seismic --csv ours.csv .../f3.sgy .../volve10r12-full-twt-arb.sgy
    cuszp-seis --csv cuszp.csv .../f3.sgy .../volve10r12-full-twt-arb.sgy
    python3 scripts/seismic-vs-cuszp.py ours.csv cuszp.csv

Both name a SEG-Y file's gather after the file without its extension, and
the synthetic one "shot".  Rows that several of our files repeat are taken
once.  Standard library only.
"""
import csv
import math
import sys

LO_DB, HI_DB = 20.0, 60.0


def usage():
    sys.exit("usage: seismic-vs-cuszp.py OURS.csv [OURS.csv ...] CUSZP.csv")


def read_ours(path, ours, order):
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["codec"] != "ours":
                continue
            g = r["gather"]
            key = (g, int(r["bits"]), int(r["levels"]))
            if key not in ours:
                ours[key] = (float(r["cr"]), float(r["snr_db"]))
                if g not in order:
                    order.append(g)


def read_cuszp(path):
    """{gather: {codec: [(snr, cr), ...] sorted by SNR}}, finite SNRs."""
    pts = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if not r["codec"].startswith("cuszp"):
                continue
            snr = float(r["snr_db"])
            if math.isfinite(snr):
                pts.setdefault(r["gather"], {}).setdefault(
                    r["codec"], []).append((snr, float(r["cr"])))
    for codecs in pts.values():
        for p in codecs.values():
            p.sort()
    return pts


def cr_at(p, snr):
    """CR at snr on one codec's points, or None outside them."""
    for (s0, c0), (s1, c1) in zip(p, p[1:]):
        if s0 <= snr <= s1:
            if s1 == s0:
                return max(c0, c1)
            t = (snr - s0) / (s1 - s0)
            return math.exp(math.log(c0) + t * (math.log(c1) - math.log(c0)))
    return None


def main():
    if len(sys.argv) < 3:
        usage()
    ours, order = {}, []
    for arg in sys.argv[1:-1]:
        read_ours(arg, ours, order)
    cuszp = read_cuszp(sys.argv[-1])
    print("| gather | bits | levels | SNR dB | ours CR | cuSZp CR | cuSZp codec "
          "| ours / cuSZp |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |")
    for g in order:
        if g not in cuszp:
            print("no cuSZp points for gather %s" % g, file=sys.stderr)
            continue
        keys = sorted((k for k in ours if k[0] == g), key=lambda k: (k[2], k[1]))
        outside = 0
        for key in keys:
            cr, snr = ours[key]
            if not LO_DB <= snr <= HI_DB:
                continue
            best = None
            for name, p in cuszp[g].items():
                c = cr_at(p, snr)
                if c is not None and (best is None or c > best[0]):
                    best = (c, name)
            if best is None:
                outside += 1
                continue
            print("| %s | %d | %d | %.2f | %.2f | %.2f | %s | %.2f |"
                  % (g, key[1], key[2], snr, cr, best[0], best[1],
                     cr / best[0]))
        if outside:
            print("%s: %d of our points in %g..%g dB lie outside cuSZp's SNR "
                  "range" % (g, outside, LO_DB, HI_DB), file=sys.stderr)


main()
