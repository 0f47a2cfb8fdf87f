#!/usr/bin/python3
"""--precision against a fixed -n.

2 ranks, one_to_one, 0 B and 1 B..1 MiB (geometric factor 2, 22 lengths). Configurations run
ALTERNATELY, ROUNDS times: -n 100 (twice per round, so that two fixed runs give the run-to-run
spread to compare with), --precision 0.05 and --precision 0.02 (maximum -n 100, --min-repeats 10).
Per run: the measurement time network_test reports ("done in"), the samples it took, and per cell
the relative difference of its median to the first -n 100 run of the round.

usage: precision.py BUILD_DIR [ROUNDS=5] [MODE=one_to_one] [RANKS=2]
"""
import csv
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

build = sys.argv[1]
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
mode = sys.argv[3] if len(sys.argv) > 3 else "one_to_one"
ranks = sys.argv[4] if len(sys.argv) > 4 else "2"
nt = os.path.join(build, "bin", "network_test")
conv = os.path.join(build, "bin", "network_convert")
work = tempfile.mkdtemp(prefix="nt_prec_")
sweep = ["-t", mode, "-b", "0", "-e", "1048576", "--geometric", "2"]
configs = {
    "n100": ["-n", "100"],
    "n100_again": ["-n", "100"],
    "prec0.05": ["-n", "100", "--precision", "0.05", "--min-repeats", "10"],
    "prec0.02": ["-n", "100", "--precision", "0.02", "--min-repeats", "10"],
}


def medians(pre):
    out = os.path.join(work, "m.csv")
    subprocess.run([conv, "to-csv", pre + "_median.nc", "-o", out, "--force"], check=True, capture_output=True)
    with open(out) as f:
        return {(r["message_length"], r["sender"], r["receiver"]): float(r["value"]) for r in csv.DictReader(f)
                if r["sender"] != r["receiver"]}


def samples(pre):
    out = subprocess.run([conv, "info", pre + "_median.nc"], check=True, capture_output=True, text=True).stdout
    return out


def run(name):
    pre = os.path.join(work, name)
    r = subprocess.run(["mpiexec", "-n", ranks, nt] + sweep + configs[name] +
                       ["-f", pre, "--force", "--progress", "none"], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"failed: {name}\n{r.stdout}{r.stderr}")
    done = float(re.search(r"done in ([0-9.]+) s", r.stderr).group(1))
    return done, medians(pre), pre


times = {k: [] for k in configs}
diffs = {k: [] for k in configs}
print(f"# {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}, load average {os.getloadavg()}")
print(f"# mpiexec -n {ranks} network_test {' '.join(sweep)} ...")
for rnd in range(rounds):
    base = None
    line = []
    for name in configs:
        done, med, pre = run(name)
        times[name].append(done)
        if base is None:
            base = med
        else:
            diffs[name] += [abs(med[c] / base[c] - 1) for c in base]
        line.append(f"{name} {done:.3f} s")
    print(f"round {rnd}: " + ", ".join(line), flush=True)
print(f"\n{'config':<11} {'measure_s':>9} {'vs_n100':>8} {'|median diff| to n100: median':>30} {'p90':>7} {'max':>7}")
ref = statistics.median(times["n100"])
for name in configs:
    t = statistics.median(times[name])
    d = sorted(diffs[name]) or [0.0]
    print(f"{name:<11} {t:>9.3f} {t / ref:>8.2f} {100 * statistics.median(d):>29.2f}% "
          f"{100 * d[int(0.9 * (len(d) - 1))]:>6.2f}% {100 * d[-1]:>6.2f}%")
print("\n# samples per cell of the last --precision 0.02 run (network_convert info):")
print("\n".join(l for l in samples(os.path.join(work, "prec0.02")).splitlines() if re.match(r"\s+\d+\s", l)))
