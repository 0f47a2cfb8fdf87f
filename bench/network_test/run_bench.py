#!/usr/bin/python3
"""network_test benchmark (results: bench/results/network_test.md).

1. Small-message medians: the minimal ping-pong (nt_pingpong, 2 ranks) run ALTERNATELY with
   network_test one_to_one and send_recv_and_recv_send on 2 ranks and on 4 ranks (2 cores,
   oversubscribed), ROUNDS times in the same session; prints every round, the medians and the
   ratios to the ping-pong.
2. Wall time of a full sweep per mode (4 ranks, lengths 0..1000 step 100, 100 repetitions) and
   the fraction network_test reports as timed communication (sum of the timed intervals of the
   task leaders / wall time).

usage: run_bench.py BUILD_DIR [ROUNDS=5] [--no-sweep] [--samples=N (network_test samples per pair, 2000)]
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import netCDF4
import numpy as np

build = sys.argv[1] if len(sys.argv) > 1 else "build"
rounds = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2].isdigit() else 5
sweep = "--no-sweep" not in sys.argv
nt = os.path.join(build, "bin", "network_test")
pp = os.path.join(build, "bin", "nt_pingpong")
work = tempfile.mkdtemp(prefix="nt_bench_")
SAMPLES = 2000
for a in sys.argv:
    if a.startswith("--samples="):
        SAMPLES = int(a.split("=", 1)[1])


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stdout}{r.stderr}")
    return r.stdout + r.stderr


def pingpong():
    out = run(["mpiexec", "-n", "2", pp, "0", "10000", "1000"])
    return float(re.search(r"half_rtt_median_s=(\S+)", out).group(1))


def nt_median(mode, ranks):
    pre = os.path.join(work, f"{mode}_{ranks}")
    run(["mpiexec", "-n", str(ranks), nt, "-t", mode, "--lengths", "0", "-n", str(SAMPLES), "--warmup", "1000",
         "-f", pre, "--force", "-q", "--seed", "1"])
    d = np.asarray(netCDF4.Dataset(pre + "_median.nc")["data"][0])
    off = d[~np.eye(d.shape[0], dtype=bool)]
    return float(np.median(off))


cols = ["pingpong_2", "one_to_one_2", "send_recv_2", "one_to_one_4", "send_recv_4"]
rows = []
print(f"# network_test samples per pair: {SAMPLES} (+1000 warm-up); ping-pong: 10000 round trips (+1000)")
print(f"# {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}, load average {os.getloadavg()}")
print("round " + " ".join(f"{c:>14}" for c in cols) + "   (microseconds, 0-byte messages)")
for i in range(rounds):
    row = [pingpong(), nt_median("one_to_one", 2), nt_median("send_recv_and_recv_send", 2),
           nt_median("one_to_one", 4), nt_median("send_recv_and_recv_send", 4)]
    rows.append(row)
    print(f"{i + 1:5d} " + " ".join(f"{v * 1e6:14.3f}" for v in row), flush=True)
med = [statistics.median(r[j] for r in rows) for j in range(len(cols))]
print("median" + " ".join(f"{v * 1e6:14.3f}" for v in med))
print("ratio " + " ".join(f"{v / med[0]:14.3f}" for v in med) + "   (medians / pingpong_2 median)")
per_round = [statistics.median(r[j] / r[0] for r in rows) for j in range(len(cols))]
print("rratio" + " ".join(f"{v:14.3f}" for v in per_round) + "   (median of the per-round ratios to pingpong_2)")

if sweep:
    print("\n# full sweeps: 4 ranks, -b 0 -e 1000 -s 100 -n 100")
    print(f"{'mode':26} {'wall_s':>8} {'timed_s':>8} {'timed_%':>8}")
    for mode in ["one_to_one", "async_one_to_one", "send_recv_and_recv_send", "all_to_all", "noise",
                 "noise_blocking", "put", "get", "bcast"]:
        pre = os.path.join(work, "sweep_" + mode)
        t0 = time.time()
        out = run(["mpiexec", "-n", "4", nt, "-t", mode, "-b", "0", "-e", "1000", "-s", "100", "-n", "100",
                   "-f", pre, "--force", "--seed", "1"])
        wall = time.time() - t0
        m = re.search(r"done in ([0-9.]+) s; timed communication ([0-9.]+) s \(([0-9.]+)%", out)
        print(f"{mode:26} {wall:8.2f} {float(m.group(2)):8.3f} {float(m.group(3)):8.1f}   (measurement loop {m.group(1)} s)",
              flush=True)
