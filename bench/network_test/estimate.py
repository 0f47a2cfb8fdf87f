#!/usr/bin/python3
"""network_test --estimate against the real run.

Per configuration, alternately ROUNDS times: `--estimate` (its plan: line), then the real sweep.
Reported: the predicted measurement time against network_test's own "done in" time, and the
predicted wall time (prediction + the start-up the estimate measured) against the wall time of the
real mpiexec. Local: 4 ranks on the 2-core VM. With --vc: 8 emulated hosts x 1 rank
(scripts/virtual-cluster, TCP over veth links of 1 Gbit/s, needs root), sequential and --concurrent.

usage: estimate.py BUILD_DIR [ROUNDS=3] [--vc]
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

build = sys.argv[1]
rounds = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2].isdigit() else 3
vc = "--vc" in sys.argv
nt = os.path.join(build, "bin", "network_test")
here = os.path.dirname(os.path.abspath(__file__))
vcs = os.path.join(here, "..", "..", "scripts", "virtual-cluster")
work = tempfile.mkdtemp(prefix="nt_est_")

local = [
    ("4 ranks one_to_one -b 0 -e 1000 -s 100 -n 100", ["mpiexec", "-n", "4"],
     ["-b", "0", "-e", "1000", "-s", "100", "-n", "100"], False),
    ("4 ranks one_to_one 0..1 MiB x2 -n 100", ["mpiexec", "-n", "4"],
     ["-b", "0", "-e", "1048576", "--geometric", "2", "-n", "100"], False),
    ("4 ranks one_to_one --concurrent 0..1 MiB x2", ["mpiexec", "-n", "4"],
     ["-b", "0", "-e", "1048576", "--geometric", "2", "-n", "100", "--concurrent"], True),
    ("4 ranks all_to_all -b 0 -e 1000 -s 100", ["mpiexec", "-n", "4"],
     ["-t", "all_to_all", "-b", "0", "-e", "1000", "-s", "100", "-n", "100"], False),
    ("4 ranks bcast -b 0 -e 1000 -s 100", ["mpiexec", "-n", "4"],
     ["-t", "bcast", "-b", "0", "-e", "1000", "-s", "100", "-n", "100"], False),
]
hosts = [
    ("8 hosts one_to_one 0..1 MiB x4 -n 20", [vcs, "--name", "ntvce", "mpirun", "--ppn", "1", "--"],
     ["-b", "0", "-e", "1048576", "--geometric", "4", "-n", "20"], False),
    ("8 hosts one_to_one --concurrent 0..1 MiB x4 -n 20", [vcs, "--name", "ntvce", "mpirun", "--ppn", "1", "--"],
     ["-b", "0", "-e", "1048576", "--geometric", "4", "-n", "20", "--concurrent"], True),
]


def run(cmd):
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stdout}{r.stderr}")
    return time.monotonic() - t0, r.stdout + r.stderr


def one(name, launcher, args, concurrent):
    pre = os.path.join(work, "run")
    _, out = run(launcher + [nt] + args + ["--estimate", "-f", pre])
    m = re.search(r"plan: sequential_s=(\S+) concurrent_s=(\S+) startup_s=(\S+)", out)
    pred = float(m.group(2) if concurrent else m.group(1))
    startup = float(m.group(3))
    wall, out = run(launcher + [nt] + args + ["-f", pre, "--force", "--progress", "none"])
    done = float(re.search(r"done in ([0-9.]+) s", out).group(1))
    return pred, done, pred + startup, wall


configs = local + (hosts if vc else [])
res = {c[0]: [] for c in configs}
print(f"# {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}, load average {os.getloadavg()}")
if vc:
    subprocess.run([vcs, "--name", "ntvce", "up", "--hosts", "8", "--link-rate", "1gbit"], check=True,
                   capture_output=True)
try:
    for rnd in range(rounds if not vc else 1):
        for c in configs:
            p, d, pw, w = one(*c)
            res[c[0]].append((p, d, pw, w))
            print(f"round {rnd}: {c[0]:<46} predicted {p:8.3f} s measured {d:8.3f} s ({p / d:5.2f}x); "
                  f"wall predicted {pw:8.3f} s real {w:8.3f} s ({pw / w:5.2f}x)", flush=True)
finally:
    if vc:
        subprocess.run([vcs, "--name", "ntvce", "down"], capture_output=True)
print(f"\n{'configuration':<46} {'pred_s':>8} {'done_s':>8} {'ratio':>6} {'pred_wall':>9} {'wall':>8} {'ratio':>6}")
for c in configs:
    r = res[c[0]]
    med = [statistics.median(x[i] for x in r) for i in range(4)]
    print(f"{c[0]:<46} {med[0]:8.3f} {med[1]:8.3f} {med[0] / med[1]:6.2f} {med[2]:9.3f} {med[3]:8.3f} "
          f"{med[2] / med[3]:6.2f}")
