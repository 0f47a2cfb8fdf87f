#!/usr/bin/env python3
"""Scale-path tests of network_analyze (threads, the linkage on real files), on real NetCDF files.

usage: scale_tests.py TEST NETWORK_ANALYZE MAKE_SYNTH WORKDIR
"""
import json
import os
import shutil
import sys

from analyze_cli import ANALYZE, TEST, WORK, check, partition, run, synth


def report(name, *args):
    out = name + ".json"
    run([ANALYZE, *args, "--json", out, "--force", "--quiet"])
    with open(os.path.join(WORK, out)) as f:
        j = json.load(f)
    j.pop("program", None)
    return j


if TEST == "threads":
    synth("t", "--nodes", "12", "--rpn", "4", "--nps", "4", "--shuffle", "--slow-node", "5", "--seed", "11")
    one = report("one", "report", "t_median.nc", "--threads", "1")
    two = report("two", "--threads", "2", "report", "t_median.nc")
    many = report("many", "report", "t_median.nc", "--threads", "7")  # more threads than CPUs
    dflt = report("dflt", "report", "t_median.nc")
    check(one == two == many == dflt, "the report depends on the number of threads")
    if shutil.which("taskset"):  # the default follows the affinity mask (one CPU here)
        run(["taskset", "-c", "0", ANALYZE, "report", "t_median.nc", "--json", "aff.json", "--quiet"])
        with open(os.path.join(WORK, "aff.json")) as f:
            aff = json.load(f)
        aff.pop("program", None)
        check(aff == one, "the report under taskset differs")
    for bad in ("0", "-1", "x"):
        p = run([ANALYZE, "report", "t_median.nc", "--threads", bad], rc=2)
        check(p.stderr.count("\n") == 1 and "--threads" in p.stderr, f"--threads {bad}: {p.stderr!r}")
elif TEST == "groups_large":
    # 256 shuffled ranks, 4 per node under 8 switches, noisy, one slow node: the
    # nearest-neighbour-chain linkage gives the planted nodes and switches on several seeds.
    for seed in (21, 22):
        t = synth(f"g{seed}", "--nodes", "64", "--rpn", "4", "--nps", "8", "--shuffle", "--noise", "0.05",
                  "--slow-node", str(seed % 64), "--seed", str(seed), "--max-pow", "16")
        j = report(f"g{seed}", "report", f"g{seed}_median.nc")
        check(sorted(j["groups"]) == partition(t["node_of_rank"]), f"seed {seed}: node groups differ from the truth")
        sw = [t["switch_of_node"][n] for n in t["node_of_rank"]]
        levels = j["hierarchy"]
        check(len(levels) >= 2 and sorted(levels[1]["groups"]) == partition(sw),
              f"seed {seed}: switch groups {[len(g) for g in levels[1]['groups']] if len(levels) > 1 else None} differ from the truth")
else:
    sys.exit(f"unknown test {TEST}")
print("ok")
