#!/usr/bin/env python3
"""LogGP parameters of 2 local ranks (network_test's loggp mode, read by network_analyze model)
beside the small-message ping-pong, repeated RUNS times; prints medians.

usage: loggp_local.py BUILD_BIN_DIR WORKDIR [RUNS]
"""
import json
import os
import statistics as st
import subprocess
import sys

BIN, WORK = sys.argv[1], sys.argv[2]
RUNS = int(sys.argv[3]) if len(sys.argv) > 3 else 5
os.makedirs(WORK, exist_ok=True)
nt = os.path.join(BIN, "network_test")
na = os.path.join(BIN, "network_analyze")


def run(*a):
    subprocess.run(list(a), check=True, cwd=WORK, capture_output=True, text=True, timeout=600)


keys = ["L", "o_s", "o_r", "g", "G"]
vals = {k: [] for k in keys + ["fit_break", "residual", "pp_half_rtt_1B", "pp_half_rtt_0B", "oneway_1B"]}
for r in range(RUNS):
    run("mpiexec", "-n", "2", nt, "-t", "loggp", "-b", "1", "-e", "65536", "--geometric", "4", "-n", "40",
        "-f", "lg", "-q", "--force")
    run(na, "model", "--loggp", "lg_loggp.nc", "--json", "lg.json", "--force")
    c = json.load(open(os.path.join(WORK, "lg.json")))["classes"][0]
    for k in keys:
        vals[k].append(c[k if k != "o_s" else "o"] if k != "o_r" else c["o_r"])
    vals["fit_break"].append(c.get("fit_break", -1))
    vals["residual"].append(c.get("loggp_residual", float("nan")))
    run("mpiexec", "-n", "2", nt, "-t", "send_recv_and_recv_send", "--lengths", "0,1,8,64", "-n", "200", "-f", "pp",
        "-q", "--force")
    run(na, "report", "pp_median.nc", "--quiet", "--no-deviation", "--json", "pp.json", "--force")
    j = json.load(open(os.path.join(WORK, "pp.json")))
    vals["pp_half_rtt_0B"].append(j["logp"][0]["L_plus_2o"])
    # 1-byte value: from the per-pair Hockney fit of the short range at m = 1
    pr = j["hockney"]["pairs"]
    vals["pp_half_rtt_1B"].append(st.median(p["ranges"][0]["ts"] + 1 * (p["ranges"][0]["tw"] or 0) for p in pr))
    run("mpiexec", "-n", "2", nt, "-t", "one_to_one", "--lengths", "0,1,8,64", "-n", "200", "-f", "oo", "-q", "--force")
    run(na, "report", "oo_median.nc", "--quiet", "--no-deviation", "--json", "oo.json", "--force")
    j = json.load(open(os.path.join(WORK, "oo.json")))
    pr = j["hockney"]["pairs"]
    vals["oneway_1B"].append(st.median(p["ranges"][0]["ts"] + 1 * (p["ranges"][0]["tw"] or 0) for p in pr))

print(f"runs: {RUNS}")
for k, v in vals.items():
    unit = "s/B" if k == "G" else ("B" if k == "fit_break" else ("" if k == "residual" else "s"))
    print(f"{k:16s} median {st.median(v):.4g} {unit}   all: {', '.join(f'{x:.3g}' for x in v)}")
# On a loaded machine some runs are preempted (delays of 100s of microseconds); the runs whose
# g+G*s fit is good (relative residual < 0.1) are the undisturbed ones.
quiet = [i for i, r in enumerate(vals["residual"]) if r < 0.1]
print(f"quiet runs (fit residual < 0.1): {len(quiet)} of {RUNS}")
if quiet:
    q = {k: st.median(vals[k][i] for i in quiet) for k in keys}
    print("  " + "  ".join(f"{k}={q[k]:.3g}" for k in keys))
    print(f"  L + o_s + o_r = {q['L'] + q['o_s'] + q['o_r']:.4g} s (LogGP one-way small message)")
print(f"ping-pong half round trip, 1 B: min {min(vals['pp_half_rtt_1B']):.4g} s, median {st.median(vals['pp_half_rtt_1B']):.4g} s")
print(f"one_to_one, 1 B:                min {min(vals['oneway_1B']):.4g} s, median {st.median(vals['oneway_1B']):.4g} s")
