#!/usr/bin/python3
"""archive/sciarchive.py on a Dask LocalCluster on loopback (issue 25):
a folder of FITS and SEG-Y files made here is compressed with two worker
processes, one of which is killed while it holds tasks; every output must
be there and right, checked here without the plugin's decoders for FITS
(the FITS data parsed in numpy against dpcmdec's frames) and with our own
SEG-Y reading for the seismic files (headers byte for byte, SNR over the
floor).  A truncated FITS file must be reported failed by name.  The
dashboard must answer.  Then the Slurm array script, with the array task
ids set by hand, and --collect.

  test_sciarchive.py BUILD_ELEMENTS_DIR SOURCE_ROOT

Exits 77 (skipped) without Dask or PyGObject.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

try:
    import numpy as np
    import distributed  # noqa: F401
    import gi
    gi.require_version("Gst", "1.0")
except (ImportError, ValueError) as e:
    print("skipped: %s" % e)
    sys.exit(77)

ELEMENTS, ROOT = sys.argv[1], sys.argv[2]
os.environ["GST_PLUGIN_PATH_1_0"] = ELEMENTS
os.environ.setdefault("GST_REGISTRY_1_0", os.path.join(
    tempfile.gettempdir(), "sciarchive-test-registry-%d.bin" % os.getpid()))
sys.path.insert(0, os.path.join(ROOT, "archive"))
import sciarchive  # noqa: E402

rng = np.random.default_rng(25)
failures = []
passes = []


def check(ok, what):
    print("%s: %s" % ("ok" if ok else "FAIL", what), flush=True)
    (passes if ok else failures).append(what)


def card(key, value):
    return ("%-8s= %20s" % (key, value)).ljust(80).encode()


def write_fits(path, frames):
    """Unsigned 16-bit frames (BITPIX 16, BZERO 32768): the first in the
    primary HDU, the others as IMAGE extensions."""
    out = b""
    for i, f in enumerate(frames):
        h = f.shape[0]
        w = f.shape[1]
        cards = [card("XTENSION", "'IMAGE   '") if i else card("SIMPLE", "T"),
                 card("BITPIX", 16), card("NAXIS", 2), card("NAXIS1", w),
                 card("NAXIS2", h)]
        if i:
            cards += [card("PCOUNT", 0), card("GCOUNT", 1)]
        elif len(frames) > 1:
            cards.append(card("EXTEND", "T"))
        cards += [card("BZERO", 32768), card("BSCALE", 1), b"END".ljust(80)]
        head = b"".join(cards)
        head += b" " * (-len(head) % 2880)
        data = (f.astype(np.int32) - 32768).astype(">i2").tobytes()
        data += b"\0" * (-len(data) % 2880)
        out += head + data
    with open(path, "wb") as fh:
        fh.write(out)


def read_fits(path):
    """The frames of write_fits's files, parsed again here."""
    data = open(path, "rb").read()
    frames, at = [], 0
    while at < len(data):
        hdr = {}
        while True:
            c = data[at:at + 80].decode()
            at += 80
            if c.startswith("END"):
                break
            if c[8:10] == "= ":
                hdr[c[:8].strip()] = c[10:].strip()
        at += -at % 2880
        w, h = int(hdr["NAXIS1"]), int(hdr["NAXIS2"])
        v = np.frombuffer(data, ">i2", w * h, at).astype(np.int32) + 32768
        frames.append(v.reshape(h, w).astype(np.uint16))
        at += 2 * w * h
        at += -at % 2880
    return frames


def auroral_frame(h, w):
    """An all-sky-imager-like frame: a dark sky, a bright arc, stars,
    Poisson-like noise."""
    y, x = np.mgrid[0:h, 0:w]
    r = np.hypot(y - h / 2, x - w / 2) / (min(h, w) / 2)
    arc = 3000 * np.exp(-((y - 0.4 * h - 0.1 * h * np.sin(x / w * 6)) /
                          (0.05 * h)) ** 2)
    sky = 600 + 400 * r + arc
    stars = np.zeros((h, w))
    idx = rng.integers(0, h * w, 40)
    stars.flat[idx] = rng.uniform(2000, 20000, 40)
    v = rng.normal(sky + stars, np.sqrt(sky + stars))
    return np.clip(v, 0, 65535).astype(np.uint16)


def write_segy(path, gathers, traces, ns):
    """IEEE float samples (format 5), a gather of `traces` traces per
    field record (FFID, bytes 9-12): shot-like events over noise."""
    text = ("C 1 SYNTHETIC SHOTS FOR THE SCIARCHIVE TEST".ljust(80) * 40)
    binh = bytearray(400)
    binh[16:18] = (2000).to_bytes(2, "big")      # sample interval, us
    binh[20:22] = ns.to_bytes(2, "big")
    binh[24:26] = (5).to_bytes(2, "big")         # IEEE float
    binh[300:302] = (0x0100).to_bytes(2, "big")  # revision 1
    out = bytearray(text.encode("ascii") + bytes(binh))
    t = np.arange(ns) * 0.002
    n = 0
    for g in range(gathers):
        for k in range(traces):
            n += 1
            th = bytearray(240)
            th[0:4] = n.to_bytes(4, "big")
            th[8:12] = (g + 1).to_bytes(4, "big")
            th[12:16] = (k + 1).to_bytes(4, "big")
            th[36:40] = (25 * k).to_bytes(4, "big", signed=True)
            th[114:116] = ns.to_bytes(2, "big")
            th[116:118] = (2000).to_bytes(2, "big")
            s = np.zeros(ns)
            for v in (1500.0, 2200.0, 3000.0):
                t0 = np.hypot(0.2 + 0.1 * g, 25 * k / v)
                s += np.exp(-((t - t0) / 0.01) ** 2) * np.cos(
                    2 * np.pi * 30 * (t - t0)) / (1 + 5 * t0)
            s += rng.normal(0, 0.01, ns)
            out += th + s.astype(">f4").tobytes()
    with open(path, "wb") as fh:
        fh.write(out)


def check_outputs(records, src_dir, min_snr, skip=()):
    """Every output present and right, by our own reading."""
    by_name = {os.path.basename(r["input"]): r for r in records}
    for name in sorted(os.listdir(src_dir)):
        if name in skip:
            continue
        r = by_name.get(name)
        if name.startswith("broken"):
            check(r is not None and r["status"] == "failed" and
                  name in r.get("error", ""),
                  "%s reported failed by name (%s)" % (name, r and r.get("error")))
            continue
        if r is None or r["status"] != "ok" or not os.path.exists(r["output"]):
            check(False, "%s compressed (%s)" % (name, r))
            continue
        src = os.path.join(src_dir, name)
        if name.endswith(".fits"):
            want = read_fits(src)
            got = sciarchive.run_pipeline(
                "filesrc location=%s ! dpcmdec ! appsink name=s sync=false"
                % sciarchive.quote(r["output"]), 600, "s")
            same = len(got) == len(want) and all(
                np.array_equal(np.frombuffer(sciarchive.frame_rows(c, d),
                                             "<u2").reshape(f.shape), f)
                for (c, d), f in zip(got, want))
            check(same, "%s: %d frames back exact from %s (%.2fx)"
                  % (name, len(want), os.path.basename(r["output"]),
                     r["bytes_in"] / r["bytes_out"]))
        else:
            back = r["output"] + ".check.sgy"
            sciarchive.run_pipeline(
                "filesrc location=%s ! seismicdec ! segysink location=%s"
                % (sciarchive.quote(r["output"]), sciarchive.quote(back)), 600)
            a, b = open(src, "rb").read(), open(back, "rb").read()
            os.unlink(back)
            head, ns, fmt = sciarchive.segy_layout(a)
            ha, sa = sciarchive.segy_samples(a, head, ns, fmt)
            hb, sb = sciarchive.segy_samples(b, head, ns, fmt)
            # the samples by a reading of format 5 of our own
            raw = np.frombuffer(a, np.uint8, offset=head).reshape(
                -1, 240 + 4 * ns)[:, 240:].copy().view(">f4")
            snr = 10 * np.log10(np.sum(raw.astype(np.float64) ** 2) /
                                np.sum((raw - sb) ** 2))
            check(a[:head] == b[:head] and ha == hb and snr >= min_snr and
                  np.array_equal(raw, sa),
                  "%s: headers byte for byte, SNR %.2f dB >= %g (%.2fx)"
                  % (name, snr, min_snr, r["bytes_in"] / r["bytes_out"]))


def kill_a_busy_worker(client, done):
    """Kills (SIGKILL) the process of a worker that holds a task, once;
    the nanny starts a new one."""
    pids = client.run(os.getpid)
    while not done.is_set():
        busy = [w for w, keys in client.processing().items() if keys]
        if busy and busy[0] in pids:
            held = client.processing()[busy[0]]
            os.kill(pids[busy[0]], signal.SIGKILL)
            kill_a_busy_worker.killed = (busy[0], list(held))
            return
        time.sleep(0.05)


kill_a_busy_worker.killed = None


def main():
    from distributed import Client, LocalCluster
    work = tempfile.mkdtemp(prefix="sciarchive-test-")
    try:
        src = os.path.join(work, "in")
        os.makedirs(src)
        for i in range(3):
            write_fits(os.path.join(src, "sky%d.fits" % i),
                       [auroral_frame(384, 320) for _ in range(2)])
            write_segy(os.path.join(src, "shots%d.sgy" % i), 3, 48, 751)
        write_fits(os.path.join(src, "broken.fits"), [auroral_frame(64, 64)])
        with open(os.path.join(src, "broken.fits"), "r+b") as f:
            f.truncate(2880 + 1000)
        files = sciarchive.find_inputs([src])
        check(len(files) == 7, "7 inputs found (%d)" % len(files))
        options = {"backend": "cpu", "min_snr": 20.0, "timeout": 600}

        cluster = LocalCluster(n_workers=2, threads_per_worker=1,
                               processes=True, host="127.0.0.1",
                               dashboard_address="127.0.0.1:0")
        client = Client(cluster)
        try:
            code = urllib.request.urlopen(client.dashboard_link,
                                          timeout=30).status
        except Exception as e:
            code = e
        check(code == 200, "dashboard %s answers (%s)"
              % (client.dashboard_link, code))
        done = threading.Event()
        killer = threading.Thread(target=kill_a_busy_worker,
                                  args=(client, done))
        killer.start()
        out = os.path.join(work, "out")
        records = sciarchive.archive(client, files, out, options, retries=1)
        done.set()
        killer.join()
        client.close()
        cluster.close()
        killed = kill_a_busy_worker.killed
        check(killed is not None, "a worker holding tasks was killed (%s)"
              % (killed,))
        check(all(r is not None for r in records), "a record for every file")
        sciarchive.print_table(records)
        check_outputs(records, src, options["min_snr"])
        check(not any(n.endswith(".part") for n in os.listdir(out)),
              "no partial outputs left")

        # the command line: its own local cluster, a report, exit 1 for the
        # broken file
        rep = os.path.join(work, "cli.jsonl")
        rc = subprocess.call([sys.executable, os.path.join(
            ROOT, "archive", "sciarchive.py"), "-o", os.path.join(work, "cli"),
            "--workers", "2", "--dashboard", "127.0.0.1:0", "--backend", "cpu",
            "--report", rep, src], stdout=subprocess.DEVNULL)
        recs = [json.loads(line) for line in open(rep)]
        check(rc == 1 and len(recs) == 7 and
              sum(r["status"] == "ok" for r in recs) == 6,
              "the command line: 7 records, 6 ok, exit %d" % rc)

        # the Slurm array: each task by hand, then --collect
        lst = os.path.join(work, "list.txt")
        with open(lst, "w") as f:
            f.write("\n".join(files) + "\n")
        out2 = os.path.join(work, "out-slurm")
        env = dict(os.environ, SLURM_SUBMIT_DIR=ROOT, PYTHON=sys.executable,
                   SCIARCHIVE_ARGS="--backend cpu")
        for i in range(len(files)):
            env["SLURM_ARRAY_TASK_ID"] = str(i)
            rc = subprocess.call(["bash", os.path.join(
                ROOT, "archive", "sciarchive-array.sh"), lst, out2], env=env,
                stdout=subprocess.DEVNULL)
            broken = os.path.basename(files[i]).startswith("broken")
            check(rc == (1 if broken else 0), "array task %d (%s) exit %d"
                  % (i, os.path.basename(files[i]), rc))
        gone = 1 if os.path.basename(files[0]).startswith("broken") else 0
        os.unlink(os.path.join(out2, ".sciarchive", "%d.json" % gone))
        rep = os.path.join(work, "report.jsonl")
        rc = subprocess.call([sys.executable, os.path.join(
            ROOT, "archive", "sciarchive.py"), "-o", out2, "--collect",
            "--list", lst, "--report", rep], stdout=subprocess.DEVNULL)
        recs = [json.loads(line) for line in open(rep)]
        check(rc == 1 and recs[gone]["status"] == "missing" and
              sum(r["status"] == "ok" for r in recs) == 5 and
              sum(r["status"] == "failed" for r in recs) == 1,
              "--collect: the task without a record missing by name, the "
              "broken file failed, 5 ok (exit %d)" % rc)
        check_outputs([r for r in recs if r["status"] != "missing"], src,
                      options["min_snr"], {os.path.basename(files[gone])})
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d passed, %d failed" % (len(passes), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
