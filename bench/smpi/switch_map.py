#!/usr/bin/env python3
"""--concurrent --switch-map beside the sequential schedule and --concurrent=8 --retest, on the
platforms of scripts/corpus's sw-* scenarios (a fast schedule as right as the slow one).

  bench/smpi/switch_map.py --out DIR [--build DIR] [--network-test BIN] [--only REGEX] [--lengths L] [-n N]

Per scenario and schedule: the simulated time of the job (network_test's "done in"), the host time,
and the scoreboard's verdict of the report against the truth; then the ratio of each schedule's
simulated time to the sequential one's. Every schedule runs the same platform, faults, host file,
lengths and samples (the scenario's, or --lengths/-n), one after the other.
"""
import argparse
import copy
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from mpigraph_peer import load_corpus  # noqa: E402  (scripts/corpus as a module)


SCHEDULES = [  # name, the scenario's fields changed
    ("sequential", {"concurrent": False, "switch_map": False, "nt": []}),
    ("switch-map", {}),
    ("k8+retest", {"concurrent": 8, "switch_map": False, "nt": ["--retest", "100000"]}),
]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True)
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--network-test", default=os.path.join(ROOT, "build-smpi", "bin", "network_test"))
    p.add_argument("--only", default="^sw-")
    p.add_argument("--lengths", help="the lengths of every run (default: the scenario's)")
    p.add_argument("-n", type=int, help="samples of every run (default: the scenario's)")
    a = p.parse_args()
    corpus = load_corpus()
    b = corpus.binaries(argparse.Namespace(build=a.build, network_test=a.network_test, analyze=None))
    rows = []
    for base in corpus.SCENARIOS:
        if base["backend"] != "sg" or not base.get("switch_map") or not re.search(a.only, base["name"]):
            continue
        seq_time = None
        for name, change in SCHEDULES:
            sc = {**copy.deepcopy(base), **change, "name": f"{base['name']}.{name}"}
            if a.lengths:
                sc["lengths"] = a.lengths
            if a.n:
                sc["n"] = a.n
            out = os.path.join(a.out, sc["name"])
            os.makedirs(out, exist_ok=True)
            t0 = time.time()
            with open(os.path.join(out, "simulation.log"), "w") as log:
                corpus.run_sg(sc, out, b, log)
            host = time.time() - t0
            text = open(os.path.join(out, "simulation.log")).read()
            m = re.search(r"done in ([0-9.]+) s", text)
            simulated = float(m.group(1)) if m else float("nan")
            names, levels, faults, rank_host = corpus.load_truth(sc, out)
            s = corpus.score(sc, names, levels, faults, rank_host, corpus.analyse(sc, out, b))
            verdict = "exact" if s["exact"] else ("wrong, warned" if s["warned"] else "WRONG")
            if name == "sequential":
                seq_time = simulated
            rows.append((base["name"], name, simulated, simulated / seq_time if seq_time else float("nan"), host,
                         verdict))
            print(f"{base['name']:<24} {name:<11} {simulated:9.4f} s simulated  {host:6.1f} s host  {verdict}",
                  flush=True)
    print("\n| scenario | schedule | simulated | vs sequential | host time | report |")
    print("|---|---|---:|---:|---:|---|")
    for n, s, sim, ratio, host, v in rows:
        print(f"| {n} | {s} | {sim:.4f} s | {ratio:.3f} | {host:.0f} s | {v} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
