#!/usr/bin/python3
"""Oversubscribed collectives, side by side with the original network_test2.

all_to_all and bcast, -b 0 -e 1000 -s 100 -n 100, on 2 ranks and on 4 ranks (2 cores: 4 ranks
oversubscribe them), network_test and the original run ALTERNATELY, ROUNDS times. Per run: wall
time (mpiexec start to exit), the median over the cells of the per-cell medians, and the share
of cells above 100 us. The original's -e is exclusive, so it gets -e 1001 (same 11 lengths).

The original builds from its public source (github.com/clustbench/network-tests2, src/core and
src/network_test) with mpicc and a three-line parus_config.h:
    #define PARUS_VERSION "2-bench"
    #define PARUS_DATA_DIR "."
    #define PARUS_INSTALL_DIR "."
    cd src/network_test && mpicc -O2 -D_GNU_SOURCE -I. -I../core -I.. -o network_test2 *2.c \
        parse_arguments.c test_noise_common.c tests_common.c ../core/{data_write_operations,\
        easy_matrices,my_malloc,my_time,string_id_converters}.c -lnetcdf -lm
(print_from_to.c and convert_to_netcdf.cpp left out.)

usage: collectives.py BUILD_DIR ORIGINAL_BINARY [ROUNDS=3]
"""
import csv
import os
import statistics
import subprocess
import sys
import tempfile
import time

build, original = sys.argv[1], sys.argv[2]
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
nt = os.path.join(build, "bin", "network_test")
conv = os.path.join(build, "bin", "network_convert")
work = tempfile.mkdtemp(prefix="nt_coll_")


def cells(prefix):
    out = os.path.join(work, "cells.csv")
    subprocess.run([conv, "to-csv", prefix + "_median.nc", "-o", out, "--force"], check=True, capture_output=True)
    with open(out) as f:
        return [float(r["value"]) for r in csv.DictReader(f)]


def run(tool, mode, P):
    pre = os.path.join(work, f"{tool}_{mode}_{P}")
    if tool == "network_test":
        cmd = [nt, "-t", mode, "-b", "0", "-e", "1000", "-s", "100", "-n", "100", "-f", pre, "--force", "-q"]
    else:
        for f in os.listdir(work):
            if f.startswith(os.path.basename(pre) + "_"):
                os.remove(os.path.join(work, f))
        cmd = [original, "-t", mode, "-b", "0", "-e", "1001", "-s", "100", "-n", "100", "-f", pre]
    t0 = time.monotonic()
    r = subprocess.run(["mpiexec", "-n", str(P)] + cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stdout}{r.stderr}")
    v = cells(pre)
    return wall, statistics.median(v), 100.0 * sum(x > 100e-6 for x in v) / len(v)


results = {}
print(f"# {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}, load average {os.getloadavg()}")
print(f"{'round':>5} {'tool':<13} {'mode':<11} {'P':>2} {'wall_s':>8} {'median_us':>10} {'cells>100us_%':>14}")
for rnd in range(rounds):
    for mode in ("all_to_all", "bcast"):
        for P in (2, 4):
            for tool in ("network_test", "original"):
                w, m, hi = run(tool, mode, P)
                results.setdefault((tool, mode, P), []).append((w, m, hi))
                print(f"{rnd:>5} {tool:<13} {mode:<11} {P:>2} {w:>8.2f} {m * 1e6:>10.2f} {hi:>14.1f}", flush=True)

print("\n# medians over the rounds")
print(f"{'tool':<13} {'mode':<11} {'P':>2} {'wall_s':>8} {'median_us':>10} {'cells>100us_%':>14} {'4r/2r':>7}")
for tool in ("network_test", "original"):
    for mode in ("all_to_all", "bcast"):
        base = statistics.median(m for _, m, _ in results[(tool, mode, 2)])
        for P in (2, 4):
            rs = results[(tool, mode, P)]
            w = statistics.median(r[0] for r in rs)
            m = statistics.median(r[1] for r in rs)
            hi = statistics.median(r[2] for r in rs)
            print(f"{tool:<13} {mode:<11} {P:>2} {w:>8.2f} {m * 1e6:>10.2f} {hi:>14.1f} {m / base:>7.1f}")
print("\n# wall-time ratio network_test / original (medians)")
for mode in ("all_to_all", "bcast"):
    for P in (2, 4):
        a = statistics.median(r[0] for r in results[("network_test", mode, P)])
        b = statistics.median(r[0] for r in results[("original", mode, P)])
        print(f"{mode:<11} {P:>2} {a / b:>6.2f}")
