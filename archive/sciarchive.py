#!/usr/bin/python3
"""Compress archives of FITS and SEG-Y files with the plugin's pipelines,
one task per file on a Dask cluster (or one Slurm array task per file), and
verify every output before it counts.

  FITS (.fits .fit .fts)  fitsdec all-hdus=true ! dpcmenc ! filesink
                          -> NAME.dpcm, verified exact: dpcmdec gives the
                          FITS file's samples back, frame for frame
  SEG-Y (.sgy .segy)      segysrc ! seismicenc ! filesink
                          -> NAME.seis, verified through seismicdec !
                          segysink: every header byte for byte, the samples
                          above --min-snr dB

An output is written as NAME.part and renamed only once verified, so a
task that dies leaves no output that looks done.  Each task's record goes
to the report; a file whose task failed (after --retries retries, or after
its worker died more often than the scheduler allows) is reported failed
by name, and the exit status is then 1.  See docs/archive.md.

  sciarchive.py -o OUT [--workers N | --scheduler ADDRESS] INPUT...
  sciarchive.py -o OUT --one INDEX --list FILE     (one file, no Dask)
  sciarchive.py -o OUT --collect --list FILE       (the records of --one)
"""
import argparse
import json
import math
import os
import socket
import sys
import time

FITS_SUFFIXES = (".fits", ".fit", ".fts")
SEGY_SUFFIXES = (".sgy", ".segy")
RECORDS = ".sciarchive"      # OUT/RECORDS/INDEX.json: the records of --one

_gst = None


class TaskError(Exception):
    """A file that could not be compressed or verified, with the reason."""


def gst():
    """GStreamer, initialised once in each process (Dask workers are
    processes of their own)."""
    global _gst
    if _gst is None:
        import gi
        gi.require_version("Gst", "1.0")
        gi.require_version("GstVideo", "1.0")
        from gi.repository import Gst, GstVideo
        Gst.init(None)
        _gst = (Gst, GstVideo)
    return _gst


def run_pipeline(desc, timeout, sink=None):
    """Runs a gst-launch description to EOS; with sink (an appsink's name)
    returns its buffers' bytes and caps.  A GStreamer error, or no EOS
    within timeout seconds, raises TaskError."""
    Gst, _ = gst()
    try:
        pipe = Gst.parse_launch(desc)
    except Exception as e:  # GLib.Error: no such element, bad syntax
        raise TaskError("pipeline '%s': %s" % (desc, e)) from None
    out = []
    if sink:
        def on_sample(s):
            sample = s.emit("pull-sample")
            buf = sample.get_buffer()
            out.append((sample.get_caps(), buf.extract_dup(0, buf.get_size())))
            return Gst.FlowReturn.OK
        app = pipe.get_by_name(sink)
        app.set_property("emit-signals", True)
        app.connect("new-sample", on_sample)
    bus = pipe.get_bus()
    pipe.set_state(Gst.State.PLAYING)
    msg = bus.timed_pop_filtered(int(timeout * Gst.SECOND),
                                 Gst.MessageType.ERROR | Gst.MessageType.EOS)
    pipe.set_state(Gst.State.NULL)
    if msg is None:
        raise TaskError("pipeline '%s': no end of stream in %g s"
                        % (desc, timeout))
    if msg.type == Gst.MessageType.ERROR:
        err, debug = msg.parse_error()
        raise TaskError("pipeline '%s': %s (%s: %s)"
                        % (desc, err.message, msg.src.get_name(), debug))
    return out


def frame_rows(caps, data):
    """A raw video frame's samples without row padding."""
    _, GstVideo = gst()
    info = GstVideo.VideoInfo.new_from_caps(caps)
    row = info.width * info.finfo.pixel_stride[0]
    stride = info.stride[0]
    return b"".join(data[y * stride:y * stride + row]
                    for y in range(info.height))


def quote(path):
    return '"%s"' % path.replace("\\", "\\\\").replace('"', '\\"')


def compress_fits(src, tmp, o):
    bk = "backend=%s" % o["backend"]
    run_pipeline("filesrc location=%s ! fitsdec all-hdus=true ! dpcmenc %s "
                 "! filesink location=%s" % (quote(src), bk, quote(tmp)),
                 o["timeout"])
    a = run_pipeline("filesrc location=%s ! fitsdec all-hdus=true ! "
                     "video/x-raw ! appsink name=s sync=false" % quote(src),
                     o["timeout"], "s")
    b = run_pipeline("filesrc location=%s ! dpcmdec %s ! "
                     "appsink name=s sync=false" % (quote(tmp), bk),
                     o["timeout"], "s")
    if len(a) != len(b):
        raise TaskError("%d frames decoded from %d" % (len(b), len(a)))
    for i, ((ca, da), (cb, db)) in enumerate(zip(a, b)):
        if not ca.is_equal(cb) or frame_rows(ca, da) != frame_rows(cb, db):
            raise TaskError("frame %d does not come back exact" % i)
    return {"frames": len(a), "check": "exact"}


# SEG-Y (rev 1): 3200-byte textual header, 400-byte binary header, the
# extended textual headers it counts, then traces of a 240-byte header and
# the samples.  Format codes: bytes a sample.
SEGY_SAMPLE_BYTES = {1: 4, 2: 4, 3: 2, 5: 4, 6: 8, 8: 1, 10: 4, 11: 2, 16: 1}


def segy_layout(data):
    """(header bytes, samples a trace, format) of a big-endian SEG-Y file."""
    if len(data) < 3600:
        raise TaskError("a SEG-Y file of %d bytes" % len(data))
    ns = int.from_bytes(data[3220:3222], "big")
    fmt = int.from_bytes(data[3224:3226], "big")
    ext = int.from_bytes(data[3504:3506], "big", signed=True)
    if fmt not in SEGY_SAMPLE_BYTES:
        raise TaskError("SEG-Y sample format %d" % fmt)
    return 3600 + 3200 * max(ext, 0), ns, fmt


def segy_samples(data, head, ns, fmt):
    """The traces' headers (bytes) and samples (float64) of a SEG-Y file."""
    import numpy as np
    nb = SEGY_SAMPLE_BYTES[fmt]
    size = 240 + ns * nb
    n = (len(data) - head) // size
    if n < 1 or head + n * size != len(data):
        raise TaskError("SEG-Y traces of %d bytes do not fill the file" % size)
    t = np.frombuffer(data, np.uint8, n * size, head).reshape(n, size)
    raw = np.ascontiguousarray(t[:, 240:])
    if fmt == 1:    # IBM float: sign, base-16 exponent, 24-bit fraction
        w = raw.view(">u4").astype(np.int64)
        frac = (w & 0xFFFFFF) / float(1 << 24)
        expo = ((w >> 24) & 0x7F) - 64
        s = np.where(w >> 31, -1.0, 1.0) * frac * np.power(16.0, expo)
    else:
        dt = {2: ">i4", 3: ">i2", 5: ">f4", 6: ">f8", 8: "i1", 10: ">u4",
              11: ">u2", 16: "u1"}[fmt]
        s = raw.view(dt).astype(np.float64)
    return bytes(t[:, :240].tobytes()), s.reshape(n, ns)


def compress_segy(src, tmp, o):
    import numpy as np
    bk = "backend=%s" % o["backend"]
    run_pipeline("segysrc location=%s ! seismicenc %s ! filesink location=%s"
                 % (quote(src), bk, quote(tmp)), o["timeout"])
    back = tmp + ".sgy"
    try:
        run_pipeline("filesrc location=%s ! seismicdec %s ! segysink "
                     "location=%s" % (quote(tmp), bk, quote(back)), o["timeout"])
        with open(src, "rb") as f:
            a = f.read()
        with open(back, "rb") as f:
            b = f.read()
    finally:
        if os.path.exists(back):
            os.unlink(back)
    head, ns, fmt = segy_layout(a)
    if len(a) != len(b) or a[:head] != b[:head]:
        raise TaskError("the file headers do not come back byte for byte")
    ha, sa = segy_samples(a, head, ns, fmt)
    hb, sb = segy_samples(b, head, ns, fmt)
    if ha != hb:
        raise TaskError("the trace headers do not come back byte for byte")
    e = float(np.sum((sa - sb) ** 2))
    s = float(np.sum(sa ** 2))
    snr = math.inf if e == 0 else 10 * math.log10(s / e) if s > 0 else -math.inf
    if snr < o["min_snr"]:
        raise TaskError("SNR %.2f dB, under the floor of %g dB"
                        % (snr, o["min_snr"]))
    return {"traces": sa.shape[0], "check": "SNR %.2f dB" % snr}


def compress_file(src, outdir, options):
    """One file: compressed, verified, then renamed into place.  Returns
    its record; raises TaskError (the reason) on failure."""
    t0 = time.time()
    low = src.lower()
    if low.endswith(FITS_SUFFIXES):
        ext, fn = ".dpcm", compress_fits
    elif low.endswith(SEGY_SUFFIXES):
        ext, fn = ".seis", compress_segy
    else:
        raise TaskError("%s: neither FITS nor SEG-Y by its name" % src)
    os.makedirs(outdir, exist_ok=True)
    out = os.path.join(outdir, os.path.basename(src) + ext)
    tmp = out + ".part"
    try:
        rec = fn(src, tmp, options)
        os.replace(tmp, out)
    except TaskError as e:
        raise TaskError("%s: %s" % (src, e)) from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    rec.update({"input": src, "output": out, "status": "ok",
                "bytes_in": os.path.getsize(src),
                "bytes_out": os.path.getsize(out),
                "seconds": round(time.time() - t0, 3),
                "host": socket.gethostname(), "pid": os.getpid()})
    return rec


def find_inputs(paths):
    """Files of known suffixes under paths (files or folders), sorted."""
    found = []
    for p in paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                found += [os.path.join(root, n) for n in names
                          if n.lower().endswith(FITS_SUFFIXES + SEGY_SUFFIXES)]
        else:
            found.append(p)
    return sorted(set(os.path.abspath(f) for f in found))


def archive(client, files, outdir, options, retries=2, on_record=None):
    """Every file as a task on client's cluster; returns the records in the
    order of files, failed ones with their error.  A worker that dies
    mid-task has its tasks run again elsewhere (the scheduler's
    allowed-failures); a task that raises is retried `retries` times."""
    from distributed import as_completed
    futures = {}
    for i, f in enumerate(files):
        fut = client.submit(compress_file, f, outdir, options, retries=retries,
                            key="sciarchive-%d-%s" % (i, os.path.basename(f)))
        futures[fut] = i
    records = [None] * len(files)
    for fut in as_completed(list(futures)):
        i = futures[fut]
        if fut.status == "finished":
            rec = fut.result()
        else:
            exc = fut.exception()
            rec = {"input": files[i], "status": "failed",
                   "error": "%s: %s" % (type(exc).__name__, exc)}
        records[i] = rec
        if on_record:
            on_record(rec)
    return records


def print_table(records, out=sys.stdout):
    ok = [r for r in records if r and r["status"] == "ok"]
    bi = sum(r["bytes_in"] for r in ok)
    bo = sum(r["bytes_out"] for r in ok)
    print("\n| file | status | ratio | check | seconds |", file=out)
    print("| --- | --- | --- | --- | --- |", file=out)
    for r in records:
        if r["status"] == "ok":
            print("| %s | ok | %.2f | %s | %.2f |" % (
                os.path.basename(r["input"]), r["bytes_in"] / r["bytes_out"],
                r["check"], r["seconds"]), file=out)
        else:
            print("| %s | %s | | %s | |" % (os.path.basename(r["input"]),
                  r["status"].upper(), r.get("error", "")), file=out)
    print("\n%d files: %d ok, %d failed; %d bytes in, %d out (%.2fx)"
          % (len(records), len(ok), len(records) - len(ok), bi, bo,
             bi / bo if bo else 0), file=out)


def read_list(path):
    with open(path) as f:
        return [line.strip() for line in f if line.strip()]


def main(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("inputs", nargs="*", help="files, or folders searched "
                    "for FITS and SEG-Y files")
    ap.add_argument("-o", "--output", required=True, help="output folder")
    ap.add_argument("--scheduler", help="a running Dask scheduler's address "
                    "(tcp://HOST:8786); without it a local cluster is made")
    ap.add_argument("--workers", type=int, default=0, help="local cluster: "
                    "worker processes (0: one a CPU core)")
    ap.add_argument("--dashboard", default="127.0.0.1:8787", help="local "
                    "cluster: the dashboard's address (':0' any port)")
    ap.add_argument("--retries", type=int, default=2, help="times a failed "
                    "task is run again (default 2)")
    ap.add_argument("--backend", default="auto", choices=["auto", "cuda", "cpu"],
                    help="the coders' backend property (default auto)")
    ap.add_argument("--min-snr", type=float, default=20.0, help="seismic: "
                    "the lowest SNR in dB that verifies (default 20)")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds a "
                    "pipeline may run (default 3600)")
    ap.add_argument("--report", help="write the records as JSON lines here")
    ap.add_argument("--list", help="a file of input paths, one a line "
                    "(with --one or --collect)")
    ap.add_argument("--one", type=int, help="only the list's INDEXth file "
                    "(from 0), without Dask: a Slurm array task")
    ap.add_argument("--collect", action="store_true", help="the records "
                    "that --one left for every file of the list")
    a = ap.parse_args(argv)
    options = {"backend": a.backend, "min_snr": a.min_snr,
               "timeout": a.timeout}

    if a.one is not None or a.collect:
        if not a.list:
            ap.error("--one and --collect take --list")
        files = read_list(a.list)
        recdir = os.path.join(a.output, RECORDS)
        if a.one is not None:
            if not 0 <= a.one < len(files):
                ap.error("--one %d: the list has %d files" % (a.one, len(files)))
            try:
                rec = compress_file(files[a.one], a.output, options)
            except Exception as e:
                rec = {"input": files[a.one], "status": "failed",
                       "error": "%s: %s" % (type(e).__name__, e)}
            os.makedirs(recdir, exist_ok=True)
            with open(os.path.join(recdir, "%d.json" % a.one), "w") as f:
                json.dump(rec, f)
            records = [rec]
        else:
            records = []
            for i, src in enumerate(files):
                p = os.path.join(recdir, "%d.json" % i)
                if os.path.exists(p):
                    with open(p) as f:
                        records.append(json.load(f))
                else:
                    records.append({"input": src, "status": "missing",
                                    "error": "no record: its task did not "
                                    "run or did not finish"})
    else:
        files = find_inputs(a.inputs)
        if not files:
            ap.error("no input files")
        from distributed import Client, LocalCluster
        cluster = None
        if a.scheduler:
            client = Client(a.scheduler)
        else:
            cluster = LocalCluster(n_workers=a.workers or os.cpu_count(),
                                   threads_per_worker=1, processes=True,
                                   dashboard_address=a.dashboard)
            client = Client(cluster)
        print("cluster: %s, dashboard %s, %d files"
              % (client.scheduler.address, client.dashboard_link, len(files)),
              flush=True)

        def progress(rec):
            print("%s %s" % (rec["status"], os.path.basename(rec["input"])),
                  flush=True)

        try:
            records = archive(client, files, os.path.abspath(a.output),
                              options, a.retries, progress)
        finally:
            client.close()
            if cluster:
                cluster.close()
    if a.report:
        with open(a.report, "w") as f:
            for r in records:
                f.write(json.dumps(r) + "\n")
    print_table(records)
    return 0 if all(r["status"] == "ok" for r in records) else 1


if __name__ == "__main__":
    sys.exit(main())
