#!/usr/bin/python3
"""scimultigpu (issue 25) with the CPU backend standing in for devices: each
coder's output through 2 and 3 copies must equal one copy's, frame for
frame and byte for byte, with the same timestamps in the same order;
the decoders dpcmdec, j2kdec and seismicdec fed one frame a buffer
likewise; seismicenc on the gathers of a small SEG-Y file; the latency query answers;
bad settings are clear errors.  Exits 77 without PyGObject.

  test_scimultigpu.py BUILD_ELEMENTS_DIR
"""
import os
import sys

try:
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
except (ImportError, ValueError) as e:
    print("skipped: %s" % e)
    sys.exit(77)

os.environ["GST_PLUGIN_PATH_1_0"] = sys.argv[1]
Gst.init(None)
passes, failures = [], []


def check(ok, what):
    print("%s: %s" % ("ok" if ok else "FAIL", what), flush=True)
    (passes if ok else failures).append(what)


def run(desc, timeout=120):
    """(frames as (pts, bytes), error message or None, latency answer)"""
    pipe = Gst.parse_launch(desc)
    out = []

    def on_sample(s):
        b = s.emit("pull-sample").get_buffer()
        out.append((b.pts, b.extract_dup(0, b.get_size())))
        return Gst.FlowReturn.OK

    sink = pipe.get_by_name("out")
    sink.set_property("emit-signals", True)
    sink.connect("new-sample", on_sample)
    bus = pipe.get_bus()
    latency = None
    if pipe.set_state(Gst.State.PAUSED) != Gst.StateChangeReturn.FAILURE:
        pipe.get_state(10 * Gst.SECOND)
        q = Gst.Query.new_latency()
        if pipe.query(q):
            latency = q.parse_latency()
        pipe.set_state(Gst.State.PLAYING)
    msg = bus.timed_pop_filtered(timeout * Gst.SECOND,
                                 Gst.MessageType.ERROR | Gst.MessageType.EOS)
    pipe.set_state(Gst.State.NULL)
    err = None
    if msg is None:
        err = "no EOS in %d s" % timeout
    elif msg.type == Gst.MessageType.ERROR:
        err = msg.parse_error()[0].message
    return out, err, latency


SINK = "appsink name=out sync=false"


def same(what, reference, multi, frames):
    """multi's frames equal reference's, timestamps and bytes"""
    want, err, _ = run("%s ! %s" % (reference, SINK))
    got, err2, _ = run("%s ! %s" % (multi, SINK))
    check(err is None and err2 is None and len(want) == frames and
          got == want, "%s: %d frames equal to the reference's (%s)"
          % (what, len(got), err or err2))
CASES = [
    ("htj2kenc", "videotestsrc num-buffers=13 pattern=ball ! "
     "video/x-raw,format=I420,width=97,height=61", "backend=cpu reversible=true"),
    ("ebcotcm", "videotestsrc num-buffers=9 pattern=smpte ! "
     "video/x-raw,format=Y444_10LE,width=130,height=67", "backend=cpu bitrate=2"),
    ("dpcmenc", "videotestsrc num-buffers=7 pattern=gradient ! "
     "video/x-raw,format=GRAY16_LE,width=67,height=33", "backend=cpu"),
]


def main():
    for coder, src, props in CASES:
        want, err, _ = run("%s ! %s %s ! %s" % (src, coder, props, SINK))
        check(err is None and len(want) > 0, "%s alone: %d frames (%s)"
              % (coder, len(want), err))
        for ids in ("0,1", "0,1,0"):
            got, err, lat = run('%s ! scimultigpu coder=%s cuda-device-ids=%s '
                                'coder-properties="%s" ! %s'
                                % (src, coder, ids, props, SINK))
            pts = [p for p, _ in got]
            check(err is None and got == want and pts == sorted(pts),
                  "%s on devices %s: %d frames equal to one copy's, in order "
                  "(%s)" % (coder, ids, len(got), err))
            check(lat is not None, "%s on devices %s: latency %s"
                  % (coder, ids, lat))
    # a decoder fed one frame a buffer: dpcmdec after dpcmenc
    src = ("videotestsrc num-buffers=8 pattern=snow ! "
           "video/x-raw,format=GRAY16_LE,width=46,height=31")  # rows unpadded
    same("dpcmdec on devices 0,1, against the source", src,
         '%s ! dpcmenc backend=cpu ! scimultigpu coder=dpcmdec '
         'cuda-device-ids=0,1 coder-properties="backend=cpu"' % src, 8)
    # j2kdec after htj2kenc (one codestream a buffer), against j2kdec alone
    src = ("videotestsrc num-buffers=9 pattern=ball ! "
           "video/x-raw,format=Y444,width=64,height=48 ! "
           "htj2kenc backend=cpu reversible=true")
    same("j2kdec on devices 0,1,0", "%s ! j2kdec backend=cpu" % src,
         '%s ! scimultigpu coder=j2kdec cuda-device-ids=0,1,0 '
         'coder-properties="backend=cpu"' % src, 9)
    # seismicenc and seismicdec on gathers of a small SEG-Y file (IEEE
    # floats, 24 traces a gather): each copy against one
    if Gst.ElementFactory.find("segysrc"):
        import random
        import struct
        import tempfile
        rnd = random.Random(25)
        ns, traces = 301, 24 * 5
        tmp = tempfile.TemporaryDirectory(prefix="multigpu-")
        path = os.path.join(tmp.name, "s.sgy")
        binh = bytearray(400)
        binh[16:18] = (4000).to_bytes(2, "big")
        binh[20:22] = ns.to_bytes(2, "big")
        binh[24:26] = (5).to_bytes(2, "big")
        with open(path, "wb") as f:
            f.write(b"C".ljust(3200, b" ") + bytes(binh))
            for t in range(traces):
                th = bytearray(240)
                th[0:4] = (t + 1).to_bytes(4, "big")
                th[114:116] = ns.to_bytes(2, "big")
                f.write(bytes(th) + struct.pack(">%df" % ns, *[
                    rnd.gauss(0, 1) * (1 + (i % 50 == t % 50) * 20)
                    for i in range(ns)]))
        src = "segysrc location=%s gather-traces=24" % path
        same("seismicenc on devices 0,1", "%s ! seismicenc" % src,
             "%s ! scimultigpu coder=seismicenc cuda-device-ids=0,1" % src, 5)
        same("seismicdec on devices 0,1,0",
             "%s ! seismicenc ! seismicdec backend=cpu" % src,
             '%s ! seismicenc ! scimultigpu coder=seismicdec '
             'cuda-device-ids=0,1,0 coder-properties="backend=cpu"' % src, 5)
        tmp.cleanup()
    # bad settings
    for extra, what in (("", "no coder"),
                        ("coder=htj2kenc cuda-device-ids=0,x", "bad ids"),
                        ("coder=htj2kenc coder-properties=nosuch=1",
                         "a property the coder has not"),
                        ("coder=nosuchcoder", "no such coder")):
        got, err, _ = run("videotestsrc num-buffers=2 ! scimultigpu %s ! %s"
                          % (extra, SINK), timeout=20)
        check(err is not None and "no EOS" not in err,
              "%s: an error (%s)" % (what, err))
    print("%d passed, %d failed" % (len(passes), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
