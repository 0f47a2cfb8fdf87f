#!/usr/bin/python3
"""--precision's batch rule, before and after capping a batch at the samples already taken.

Two network_test binaries run ALTERNATELY, ROUNDS times, on the demo's sweep (4 ranks, one_to_one,
0..64 KiB step 8 KiB) with --precision REL -n MAX --min-repeats 10; a third run per round takes a
fixed -n MAX with --raw, and from its samples the "oracle" is computed: for each cell, the first
sample count (10, then every count a check could see) at which the 95 % interval of the median of
the samples so far is within REL, i.e. the fewest samples any batch rule could stop at.
Per run: the samples taken (sum of sample_count) and network_test's own "done in" time.

usage: [LAUNCH="..."] precision_batches.py BEFORE_BIN AFTER_BIN CONVERT_BIN [ROUNDS=5] [REL=0.02] [MAX=200]
                            [-- extra mpiexec/network_test arguments]
"""
import math
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile

import netCDF4
import numpy as np

before, after, conv = sys.argv[1:4]
rest = sys.argv[4:]
extra = []
if "--" in rest:
    extra = rest[rest.index("--") + 1:]
    rest = rest[:rest.index("--")]
rounds = int(rest[0]) if len(rest) > 0 else 5
rel = float(rest[1]) if len(rest) > 1 else 0.02
nmax = int(rest[2]) if len(rest) > 2 else 200
# LAUNCH: the command before the program (default "mpiexec.mpich -n 4"; for the virtual cluster
# e.g. "scripts/virtual-cluster mpirun --ppn 2 --np 4 --" on a cluster that is up).
launch = shlex.split(os.environ.get("LAUNCH", "mpiexec.mpich -n 4"))
sweep = ["-t", "one_to_one", "-b", "0", "-e", "65536", "-s", "8192"]
work = tempfile.mkdtemp(prefix="nt_precb_")


def run(binary, args, prefix):
    cmd = launch + extra + [binary] + sweep + args + ["-f", prefix, "--force"]
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    out = p.stdout + p.stderr
    m = re.search(r"done in ([0-9.]+) s", out)
    return float(m.group(1)) if m else float("nan")


def samples(prefix):
    with netCDF4.Dataset(prefix + "_median.nc") as d:
        sc = np.array(d.variables["sample_count"][:], dtype=float)
    p = sc.shape[1]
    off = ~np.eye(p, dtype=bool)
    return int(sum(sc[k][off].sum() for k in range(sc.shape[0])))


def ci_ok(x):
    # The same interval as network_test (share/doc/network_test.md, "Precision").
    n = len(x)
    half = 1.959964 * math.sqrt(n) / 2
    j, k = math.floor(n / 2 - half), math.ceil(n / 2 + half + 1)
    if j < 1 or k > n:
        return False
    s = sorted(x)
    med = s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])
    return med > 0 and max(med - s[j - 1], s[k - 1] - med) <= rel * med


def oracle(prefix):
    with netCDF4.Dataset(prefix + "_all.nc") as d:
        v = d.variables[[n for n in d.variables if d.variables[n].ndim == 4][0]]
        allv = np.array(v[:], dtype=float)  # (length, x, y, sample) or similar: find the sample axis
    total = 0
    n, p = allv.shape[0], allv.shape[1]
    sample_axis = 3 if allv.shape[3] == nmax else 1
    for k in range(n):
        for i in range(p):
            for j in range(p):
                if i == j:
                    continue
                x = allv[k, i, j, :] if sample_axis == 3 else allv[k, :, i, j]
                x = [float(t) for t in x if np.isfinite(t)]
                stop = len(x)
                for m in range(10, len(x) + 1):
                    if ci_ok(x[:m]):
                        stop = m
                        break
                total += stop
    return total


rows = {"before": [], "after": [], "fixed": []}
print(f"# {' '.join(launch)} {' '.join(extra)} network_test {' '.join(sweep)} --precision {rel} -n {nmax} --min-repeats 10")
for r in range(rounds):
    line = []
    for name, binary in (("before", before), ("after", after)):
        pre = os.path.join(work, name)
        t = run(binary, ["--precision", str(rel), "-n", str(nmax), "--min-repeats", "10"], pre)
        s = samples(pre)
        rows[name].append((t, s))
        line.append(f"{name} {s} samples {t:.3f} s")
    pre = os.path.join(work, "fixed")
    t = run(after, ["-n", str(nmax), "--raw"], pre)
    o = oracle(pre)
    rows["fixed"].append((t, o))
    line.append(f"fixed -n {nmax}: {t:.3f} s, oracle {o} samples")
    print(f"round {r}: " + "; ".join(line), flush=True)
print()
print("config     samples(median)  time_s(median)")
for name in ("before", "after"):
    print(f"{name:10} {statistics.median(s for _, s in rows[name]):15.0f} {statistics.median(t for t, _ in rows[name]):14.3f}")
print(f"{'fixed':10} {'-':>15} {statistics.median(t for t, _ in rows['fixed']):14.3f}  (oracle: {statistics.median(o for _, o in rows['fixed']):.0f} samples)")
cells = None
with netCDF4.Dataset(os.path.join(work, "after_median.nc")) as d:
    sc = d.variables["sample_count"]
    cells = sc.shape[0] * sc.shape[1] * (sc.shape[1] - 1)
print(f"cells {cells}; fixed -n {nmax} takes {cells * nmax} samples")
