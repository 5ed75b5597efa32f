#!/usr/bin/env python3
"""Looks for what the whole process waits on when bench-rtp-latency's frames
stall (issue 23: bursts of slow frames about every 1.6 s, encoder and decoder
slow together), by sampling beside the run and comparing the slow frames'
windows with the rest.

    scripts/stall-probe.py OUTDIR -- build-gpu/bench/net/bench-rtp-latency ... --csv F

Every INTERVAL seconds (env STALL_PROBE_INTERVAL, 0.004) it reads, for each
thread of the command: its CPU time and run-queue wait (schedstat, ns), its
state and the system call it is in (the number, -1 in user space,
"running"); and the kernel's /proc/vmstat counters and the machine's CPU time by kind
(/proc/stat, steal included).  nvidia-smi samples the
first GPU's clocks, power and clock-event reasons every 20 ms beside it.
The bench prints when its priming frame was captured on CLOCK_MONOTONIC
(Python's time.monotonic), and its --csv gives each frame's capture time
from there and its latency, so each sample lands on the frames in flight.

Printed at the end: for frames slower than twice the median latency
(env STALL_PROBE_FACTOR, 2) ("slow") against the others, the threads' CPU share and run-queue wait,
the system calls the threads were seen in, the vmstat counters whose rate
differs most, and the GPU's SM clock and clock-event reasons.  Raw samples
go to OUTDIR (samples.jsonl, smi.csv, stdout of the command).
"""
import collections
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import time

INTERVAL = float(os.environ.get("STALL_PROBE_INTERVAL", "0.004"))
FACTOR = float(os.environ.get("STALL_PROBE_FACTOR", "2"))


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def sample(pid):
    tasks = {}
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return None
    for tid in tids:
        base = "/proc/%d/task/%s/" % (pid, tid)
        sched, stat, sysc = read(base + "schedstat"), read(base + "stat"), read(base + "syscall")
        if sched is None or stat is None:
            continue
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        state = stat[stat.rindex(")") + 2]
        run_ns, wait_ns = (int(x) for x in sched.split()[:2])
        call = (sysc or "?").split()[0] if sysc else "?"
        tasks[tid] = (comm, state, run_ns, wait_ns, call)
    vm = {}
    for line in (read("/proc/vmstat") or "").splitlines():
        k, v = line.split()
        vm[k] = int(v)
    # the machine's CPU time by kind, in USER_HZ ticks: "steal" is time a
    # virtual machine's CPUs were ready to run while the hypervisor ran
    # something else
    cpu = (read("/proc/stat") or "cpu").splitlines()[0].split()[1:]
    for k, v in zip(("user", "nice", "system", "idle", "iowait", "irq", "softirq",
                     "steal"), cpu):
        vm["cpu_" + k] = int(v)
    return {"t": time.monotonic(), "tasks": tasks, "vm": vm}


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit(__doc__)
    out = sys.argv[1]
    cmd = sys.argv[3:]
    csv_path = cmd[cmd.index("--csv") + 1] if "--csv" in cmd else None
    if not csv_path:
        sys.exit("the command needs --csv FILE")
    os.makedirs(out, exist_ok=True)
    wall0, mono0 = time.time(), time.monotonic()
    try:
        smi = subprocess.Popen(
            ["nvidia-smi", "-i", "0", "--query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,"
             "utilization.gpu,clocks_event_reasons.active", "--format=csv,noheader,nounits",
             "-lms", "20"], stdout=open(os.path.join(out, "smi.csv"), "w"),
            stderr=subprocess.DEVNULL)
    except FileNotFoundError:
        smi = None
    log = open(os.path.join(out, "stdout.txt"), "w")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    samples = []
    while proc.poll() is None:
        s = sample(proc.pid)
        if s:
            samples.append(s)
        time.sleep(INTERVAL)
    if smi:
        smi.terminate()
    log.close()
    with open(os.path.join(out, "samples.jsonl"), "w") as f:
        for s in samples:
            f.write(json.dumps(s) + "\n")
    text = read(os.path.join(out, "stdout.txt")) or ""
    m = re.search(r"priming frame captured at ([\d.]+) s", text)
    if not m:
        sys.exit("no capture origin in the command's output (exit status %s)" % proc.returncode)
    origin = float(m.group(1))
    frames = []
    with open(csv_path) as f:
        for row in csv.DictReader(f):
            cap, dec = float(row["capture_s"]), float(row["decoded_ms"])
            if row["counted"] == "1" and cap >= 0 and dec > 0:
                frames.append((origin + cap, origin + cap + dec / 1e3, dec))
    med = statistics.median(d for _, _, d in frames)
    slow = [(a, b) for a, b, d in frames if d > FACTOR * med]
    span = (frames[0][0], frames[-1][1])
    print("%d counted frames, median latency %.2f ms, %d slower than %.2f ms"
          % (len(frames), med, len(slow), FACTOR * med))

    def in_slow(t):
        return any(a <= t <= b for a, b in slow)

    # per-interval deltas, each attributed to slow or normal by its midpoint
    acc = {True: collections.Counter(), False: collections.Counter()}
    dur = {True: 0.0, False: 0.0}
    calls = {True: collections.Counter(), False: collections.Counter()}
    vm = {True: collections.Counter(), False: collections.Counter()}
    names = {}
    for p, q in zip(samples, samples[1:]):
        mid = (p["t"] + q["t"]) / 2
        if not span[0] <= mid <= span[1]:
            continue
        k = in_slow(mid)
        dt = q["t"] - p["t"]
        dur[k] += dt
        for tid, (comm, state, run, wait, call) in q["tasks"].items():
            names[tid] = comm
            if tid in p["tasks"]:
                acc[k][(tid, "run")] += run - p["tasks"][tid][2]
                acc[k][(tid, "wait")] += wait - p["tasks"][tid][3]
            calls[k][(comm, state, call)] += 1
        for c, v in q["vm"].items():
            vm[k][c] += v - p["vm"].get(c, v)
    if not dur[True] or not dur[False]:
        print("no sampled interval inside %s frames" % ("slow" if not dur[True] else "normal"))
        return
    print("\nsampled %.2f s inside slow frames, %.2f s outside" % (dur[True], dur[False]))
    print("\n| thread | CPU share slow | normal | run-queue wait slow | normal |")
    print("| --- | --- | --- | --- | --- |")
    tids = sorted(names, key=lambda t: -(acc[True][(t, "run")] / dur[True]
                                         + acc[False][(t, "run")] / dur[False]))
    for tid in tids[:14]:
        print("| %s (%s) | %.0f %% | %.0f %% | %.1f %% | %.1f %% |" % (
            names[tid], tid, 100 * acc[True][(tid, "run")] / 1e9 / dur[True],
            100 * acc[False][(tid, "run")] / 1e9 / dur[False],
            100 * acc[True][(tid, "wait")] / 1e9 / dur[True],
            100 * acc[False][(tid, "wait")] / 1e9 / dur[False]))
    print("\nthreads seen in (thread, state, system call), share of samples, slow / normal:")
    ns, nn = sum(calls[True].values()), sum(calls[False].values())
    keys = set(calls[True]) | set(calls[False])
    diff = sorted(keys, key=lambda c: -abs(calls[True][c] / ns - calls[False][c] / nn))
    for c in diff[:16]:
        print("  %-18s %s %-8s %5.1f %% / %5.1f %%" % (c[0], c[1], c[2],
              100 * calls[True][c] / ns, 100 * calls[False][c] / nn))
    print("\nvmstat counters, per second, slow / normal (largest differences):")
    rates = []
    for c in set(vm[True]) | set(vm[False]):
        a, b = vm[True][c] / dur[True], vm[False][c] / dur[False]
        if a or b:
            rates.append((abs(a - b) / (a + b + 1e-9) * (a + b), c, a, b))
    for _, c, a, b in sorted(rates, reverse=True)[:14]:
        print("  %-28s %12.1f / %12.1f" % (c, a, b))
    off = wall0 - mono0
    clk = {True: [], False: []}
    reasons = {True: collections.Counter(), False: collections.Counter()}
    for line in open(os.path.join(out, "smi.csv")) if smi else ():
        f = [x.strip() for x in line.split(",")]
        try:
            t = time.mktime(time.strptime(f[0][:19], "%Y/%m/%d %H:%M:%S")) + float("0" + f[0][19:])
            sm = float(f[1])
        except (ValueError, IndexError):
            continue
        t -= off
        if span[0] <= t <= span[1]:
            clk[in_slow(t)].append(sm)
            reasons[in_slow(t)][f[5]] += 1
    for k in (True, False):
        if clk[k]:
            print("GPU 0 SM clock, %s: median %.0f MHz, min %.0f, %d samples, event reasons %s"
                  % ("slow" if k else "normal", statistics.median(clk[k]), min(clk[k]),
                     len(clk[k]), dict(reasons[k])))
    print("\ncommand exit status %d" % proc.returncode)


main()
