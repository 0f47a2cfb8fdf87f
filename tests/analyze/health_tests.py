#!/usr/bin/env python3
"""Incomplete runs, the monitoring line and the Prometheus textfile, on real files.

usage: health_tests.py TEST NETWORK_ANALYZE MAKE_SYNTH WORKDIR [NETWORK_TEST MPIEXEC]

The incomplete runs are real network_test runs of 2 ranks under the build's launcher: rank 1 hangs
at one length (network_test's NT_DEBUG_STALL hook, as a dead node would) and --timeout ends the
run, which leaves every completed length in its files, as a killed batch job does.
"""
import json
import os
import re
import subprocess
import sys

from analyze_cli import ANALYZE, TEST, WORK, analyze, check, load, run, synth

NT, MPIEXEC = (sys.argv[5], sys.argv[6]) if len(sys.argv) > 6 else (None, None)
SWEEP = ["-b", "0", "-e", "400", "-s", "100", "-n", "5", "--warmup", "1", "-q"]  # 5 lengths planned


def measure(prefix, stall=None, sweep=SWEEP):
    """network_test on 2 ranks; stall: the length at which rank 1 hangs (the run is cut there)."""
    env = dict(os.environ)
    if stall is not None:
        env["NT_DEBUG_STALL"] = f"1:{stall}"
    os.makedirs(os.path.join(WORK, prefix), exist_ok=True)
    args = [MPIEXEC, "-n", "2", NT, "-f", os.path.join(WORK, prefix, "one_to_one")] + sweep
    if stall is not None:
        args += ["--timeout", "2"]
    p = subprocess.run(args, env=env, capture_output=True, text=True, timeout=100, cwd=WORK)
    check((p.returncode == 0) == (stall is None), f"network_test {prefix}: exit {p.returncode}\n{p.stderr}")
    return os.path.join(prefix, "one_to_one_median.nc")


def records(path):
    out = subprocess.run(["ncdump", "-h", os.path.join(WORK, path)], capture_output=True, text=True).stdout
    return int(re.search(r"UNLIMITED ; // \((\d+) currently\)", out).group(1))


def first_line(text):
    return text.split("\n", 1)[0]


if TEST == "report_incomplete":
    full = measure("full")
    cut = measure("cut", stall=300)       # 0, 100, 200 stored of 5
    early = measure("early", stall=100)   # another cut point: 1 of 5
    empty = measure("empty", stall=0)     # nothing measured
    check(records(cut) == 3 and records(early) == 1 and records(empty) == 0,
          f"cut files hold {records(cut)}, {records(early)}, {records(empty)} lengths")
    # The complete run: never incomplete (0 or 3: two ranks of one machine may differ).
    p = analyze("report", full, "--check", "--json", "full.json", rc=None)
    check(p.returncode in (0, 3), f"complete run: exit {p.returncode}\n{p.stderr}")
    check(load("full.json")["status"] in ("ok", "findings") and "incomplete" not in load("full.json"), "full status")
    check(not p.stdout.startswith("INCOMPLETE"), "complete run said incomplete")
    for f, stored in ((cut, 3), (early, 1)):
        name = f.split("/")[0]
        p = analyze("report", f, "--check", "--json", name + ".json", "--html", name + ".html", rc=4)
        line = first_line(p.stdout)
        check(line.startswith("INCOMPLETE: ") and f"holds {stored} of the 5 lengths" in line, f"first line: {line}")
        check("Topology" in p.stdout, "the report still follows the line")
        last = p.stdout.rstrip("\n").split("\n")[-1]
        check(last.startswith("network_analyze check: status=incomplete ") and f"lengths={stored}/5" in last,
              f"summary line: {last}")
        j = load(name + ".json")
        check(j["status"] == "incomplete" and j["incomplete"] == line, f"JSON status {j.get('status')}")
        html = open(os.path.join(WORK, name + ".html")).read()
        body = html.split("<body>", 1)[1].lstrip()
        check(body.startswith('<p class="incomplete"') and f"holds {stored} of the 5" in body.split("</p>")[0],
              "HTML: the line is not first in the body")
        # Without --check the line is still first; the exit code stays 0 (no verdict asked).
        p = analyze("report", f, "--quiet")
        check(p.stdout == "", "--quiet without --check prints nothing")
        p = analyze("report", f)
        check(first_line(p.stdout) == line, "first line without --check")
        # --check --quiet: the one line.
        p = analyze("report", f, "--check", "--quiet", rc=4)
        check(len(p.stdout.splitlines()) == 1 and "status=incomplete" in p.stdout, f"--quiet: {p.stdout!r}")
    # Nothing measured: exit 4 with or without --check, one line in each output.
    for extra in ([], ["--check"]):
        p = analyze("report", empty, *extra, "--json", "empty.json", "--html", "empty.html", "--force", rc=4)
        check(p.stdout.startswith("INCOMPLETE: ") and "nothing was measured" in first_line(p.stdout), p.stdout)
        check(load("empty.json")["status"] == "incomplete", "empty JSON status")
        check("nothing was measured" in open(os.path.join(WORK, "empty.html")).read(), "empty HTML")
    p = analyze("report", empty, "--summary", rc=4)
    check(p.stdout.startswith("network_analyze check: status=incomplete findings=0") and "lengths=0/5" in p.stdout,
          p.stdout)

elif TEST == "compare_incomplete":
    full = measure("full")
    again = measure("again")
    cut = measure("cut", stall=300)
    one = measure("one", sweep=["--lengths", "0", "-n", "5", "--warmup", "1", "-q"])  # complete, 1 length
    empty = measure("empty", stall=0)
    # Two complete runs: 0 or 3, never 4.
    p = analyze("compare", "full", "again", rc=None)
    check(p.returncode in (0, 3) and not p.stdout.startswith("INCOMPLETE"), f"complete runs: {p.returncode}")
    # The current run cut short (3 of 5 lengths): 4, the line first in text, JSON and HTML.
    p = analyze("compare", "full", "cut", "--json", "c.json", "--html", "c.html", rc=4)
    line = first_line(p.stdout)
    check(line.startswith("INCOMPLETE: ") and "holds 3 of the 5 lengths" in line, line)
    check(load("c.json")["status"] == "incomplete" and load("c.json")["incomplete"] == line, "compare JSON")
    check(open(os.path.join(WORK, "c.html")).read().split("<body>", 1)[1].lstrip().startswith('<p class="incomplete"'),
          "compare HTML")
    # The baseline cut short: the same.
    p = analyze("compare", "cut", "full", rc=4)
    check("holds 3 of the 5 lengths" in first_line(p.stdout), first_line(p.stdout))
    # A complete run of 1 length against a 5-length baseline: 1 common length, too few.
    p = analyze("compare", "full", "one", "--json", "one.json", rc=4)
    check(first_line(p.stdout).startswith("INCOMPLETE: the runs have 1 message length(s) in common of the baseline's 5"),
          first_line(p.stdout))
    check(load("one.json")["status"] == "incomplete", "too few common lengths: JSON status")
    # Nothing measured: 4, not 2.
    p = analyze("compare", "full", "empty", "--json", "e.json", rc=4)
    check("nothing was measured" in first_line(p.stdout), p.stdout)
    # scripts/simulate's folder: its file is run_median.nc, no one_to_one_median.nc.
    os.makedirs(os.path.join(WORK, "sim"))
    for st in ("median", "average", "min", "max", "deviation"):
        os.link(os.path.join(WORK, "again", f"one_to_one_{st}.nc"), os.path.join(WORK, "sim", f"run_{st}.nc"))
    os.link(os.path.join(WORK, "again", "one_to_one_hosts.txt"), os.path.join(WORK, "sim", "run_hosts.txt"))
    p = analyze("compare", "full", "sim", "--json", "sim.json", rc=None)
    check(p.returncode in (0, 3), f"compare DIR of run_*.nc: exit {p.returncode}\n{p.stderr}")
    check(load("sim.json")["current"].endswith("sim/run_median.nc"), load("sim.json")["current"])
    os.link(os.path.join(WORK, "full", "one_to_one_median.nc"), os.path.join(WORK, "sim", "other_median.nc"))
    p = analyze("compare", "full", "sim", rc=2)
    check("2 *_median.nc" in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr)

elif TEST == "summary_prometheus":
    synth("s", "--nodes", "8", "--rpn", "2", "--shuffle", "--slow-node", "5", "--seed", "3")
    synth("h", "--nodes", "6", "--rpn", "2", "--shuffle", "--seed", "2", "--noise", "0.03")
    p = analyze("report", "s_median.nc", "--check", "--quiet", rc=3)
    check(p.stdout == "network_analyze check: status=findings findings=1 slow_node=1 hosts=node5 lengths=" +
          p.stdout.split("lengths=")[1], f"summary: {p.stdout!r}")
    check(len(p.stdout.splitlines()) == 1, "one line")
    p = analyze("report", "s_median.nc", "--check", rc=3)
    check(p.stdout.rstrip("\n").split("\n")[-1].startswith("network_analyze check: status=findings"), "last line")
    check("Anomalies (1)" in p.stdout, "text report before the summary")
    p = analyze("report", "s_median.nc", "--summary")  # the line alone; no --check: exit 0
    check(len(p.stdout.splitlines()) == 1 and "slow_node=1" in p.stdout, p.stdout)
    p = analyze("report", "h_median.nc", "--check", "--quiet")
    check(p.stdout.startswith("network_analyze check: status=ok findings=0 hosts=none "), p.stdout)
    # Prometheus textfile: HELP/TYPE before each metric, one sample per host, no timestamps.
    analyze("report", "s_median.nc", "--quiet", "--prometheus", "s.prom")
    text = open(os.path.join(WORK, "s.prom")).read()
    samples, typed = {}, set()
    for l in text.splitlines():
        if l.startswith("# TYPE "):
            typed.add(l.split()[2])
            check(l.split()[3] == "gauge", l)
        elif l.startswith("# HELP "):
            continue
        else:
            name, value = l.split(" ")  # two fields: no timestamp
            check(name.split("{")[0] in typed, f"sample before its # TYPE: {l}")
            samples[name] = float(value)
    check(samples["network_tests_status"] == 3 and samples["network_tests_incomplete"] == 0, str(samples))
    check(samples['network_tests_findings{kind="slow_node"}'] == 1, "findings per kind")
    hosts = [f"node{i}" for i in range(8)]
    for h in hosts:
        check(samples[f'network_tests_host_slow{{host="{h}"}}'] == (1 if h == "node5" else 0), h)
        check(f'network_tests_host_findings{{host="{h}"}}' in samples, h)
    # Written through the output discipline: not replaced without --force, then replaced whole.
    p = analyze("report", "s_median.nc", "--quiet", "--prometheus", "s.prom", rc=2)
    check(len(p.stderr.strip().splitlines()) == 1, p.stderr)
    analyze("report", "h_median.nc", "--quiet", "--prometheus", "s.prom", "--force")
    text = open(os.path.join(WORK, "s.prom")).read()
    check("network_tests_status 0\n" in text and "node5\"} 1" not in text, text)
    check(not [f for f in os.listdir(WORK) if f.startswith(".s.prom") or f.endswith(".tmp")], "temporary left")

elif TEST == "cli_words":
    p = run([ANALYZE, "reprot", "x.nc"], 2)
    check(len(p.stderr.strip().splitlines()) == 1, p.stderr)
    check("unknown subcommand 'reprot' (did you mean 'report'?)" in p.stderr and "compare" in p.stderr, p.stderr)
    p = run([ANALYZE, "--threads", "2", "frobnicate"], 2)
    check("unknown subcommand 'frobnicate'" in p.stderr and "did you mean" not in p.stderr, p.stderr)
    p = run([ANALYZE, "--version"], 0)
    check(re.fullmatch(r"network_analyze \d+\.\d+\.\d+\n", p.stdout) is not None, p.stdout)
    p = run([ANALYZE, "report", "--help"], 0)
    check("[1.5]" in p.stdout or "default" in p.stdout.lower(), "defaults in --help")
    check("4 incomplete" in run([ANALYZE, "--help"], 0).stdout, "exit code 4 in --help")
else:
    sys.exit("unknown test " + TEST)
