#!/usr/bin/python3
"""scimultigpu's scaling (issue 25): each coder on one device, then through
scimultigpu on DEVICES, from frames made once (videotestsrc, K distinct
ones) and pushed again and again by an appsrc (the same buffers, no copy:
the source is not the bound, as videotestsrc was at 4K), into an appsink
that hashes every output frame.  Prints a table: frames/s of one device
and of all, the ratio, and whether the outputs are equal byte for byte.

  bench_multigpu.py [--devices 0,1] [--frames 300] [--unique 8]
                    [--backend cuda] [--quick]

--quick: small frames (a check of the script on a machine without GPUs,
with --backend cpu).  GST_PLUGIN_PATH_1_0 names the built elements.
"""
import argparse
import hashlib
import sys
import time

import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

CASES = [  # coder, its properties, caps of the frames (full size, quick size)
    ("ebcotcm", "bitrate=2", "Y444_12LE", (4096, 2160), (128, 96)),
    ("ebcotcm", "", "Y444_12LE", (4096, 2160), (128, 96)),
    ("htj2kenc", "reversible=true", "Y444_12LE", (3840, 2160), (128, 96)),
    ("dpcmenc", "", "GRAY16_LE", (1024, 1024), (96, 64)),
]


def make_frames(fmt, w, h, n):
    caps = "video/x-raw,format=%s,width=%d,height=%d,framerate=60/1" % (
        fmt, w, h)
    pipe = Gst.parse_launch("videotestsrc num-buffers=%d pattern=ball ! %s ! "
                            "appsink name=s sync=false" % (n, caps))
    sink = pipe.get_by_name("s")
    pipe.set_state(Gst.State.PLAYING)
    frames = []
    for _ in range(n):
        s = sink.emit("pull-sample")
        frames.append(s.get_buffer())
    pipe.set_state(Gst.State.NULL)
    return Gst.Caps.from_string(caps), frames


def run(element, caps, frames, total):
    """frames/s of appsrc ! element ! appsink, and the outputs' hashes"""
    pipe = Gst.parse_launch("appsrc name=src format=time is-live=false "
                            "block=true max-bytes=0 max-buffers=8 ! %s ! "
                            "appsink name=out sync=false" % element)
    src = pipe.get_by_name("src")
    src.set_property("caps", caps)
    out = pipe.get_by_name("out")
    hashes = []

    def on_sample(s):
        b = s.emit("pull-sample").get_buffer()
        hashes.append(hashlib.md5(b.extract_dup(0, b.get_size())).hexdigest())
        return Gst.FlowReturn.OK

    out.set_property("emit-signals", True)
    out.connect("new-sample", on_sample)
    pipe.set_state(Gst.State.PLAYING)
    dur = Gst.SECOND // 60
    t0 = time.time()
    for i in range(total):
        b = frames[i % len(frames)].copy()   # metadata only: same memory
        b.pts = i * dur
        b.duration = dur
        if src.emit("push-buffer", b) != Gst.FlowReturn.OK:
            break
    src.emit("end-of-stream")
    msg = pipe.get_bus().timed_pop_filtered(
        600 * Gst.SECOND, Gst.MessageType.ERROR | Gst.MessageType.EOS)
    t1 = time.time()
    pipe.set_state(Gst.State.NULL)
    if msg is None or msg.type == Gst.MessageType.ERROR:
        err = msg.parse_error()[0].message if msg else "no EOS"
        raise RuntimeError("%s: %s" % (element, err))
    return total / (t1 - t0), hashes


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--devices", default="0,1")
    ap.add_argument("--frames", type=int, default=300)
    ap.add_argument("--unique", type=int, default=8)
    ap.add_argument("--backend", default="cuda")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    Gst.init(None)
    first = a.devices.split(",")[0]
    rows = []
    for coder, props, fmt, full, small in CASES:
        w, h = small if a.quick else full
        caps, frames = make_frames(fmt, w, h, a.unique)
        p = ("%s backend=%s" % (props, a.backend)).strip()
        one = "%s %s cuda-device-id=%s" % (coder, p, first)
        multi = ('scimultigpu coder=%s cuda-device-ids=%s coder-properties="%s"'
                 % (coder, a.devices, p))
        run(one, caps, frames, min(a.frames, 2 * a.unique))    # warm-up
        f1, h1 = run(one, caps, frames, a.frames)
        f2, h2 = run(multi, caps, frames, a.frames)
        rows.append((coder, props or "(defaults)", "%dx%d" % (w, h), f1, f2,
                     "equal" if h1 == h2 and len(h1) == a.frames else
                     "DIFFER (%d / %d frames)" % (len(h1), len(h2))))
    print("\n| coder | properties | frame | device %s frames/s | devices %s "
          "frames/s | ratio | outputs |" % (first, a.devices))
    print("|---|---|---|---|---|---|---|")
    for c, p, s, f1, f2, eq in rows:
        print("| %s | %s | %s | %.1f | %.1f | %.2fx | %s |"
              % (c, p, s, f1, f2, f2 / f1, eq))
    return 0 if all(r[5] == "equal" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
