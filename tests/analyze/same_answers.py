#!/usr/bin/env python3
"""The analysis read one length (or one block of rows) at a time gives the answers it gave when it
held the whole cube.

usage: same_answers.py TEST NETWORK_ANALYZE MAKE_SYNTH WORKDIR [GEN [BASELINE_ANALYZE [MPIEXEC]]]

Scenarios: the measured files of tests/analyze/data (with their deviation files and hosts), the
synthetic clusters of the CLI tests (slow node, protocol step, switches, lone node, one rank per
node, half duplex with --async), and files of bench_analyze_gen (GEN; its own generator: shuffled
placement, 5 % noise, 0.1 % gross outliers, a slow node) of 64-512 ranks. For each: `report --json`
(with --pairs on one), `model --json` and `report --async`, run

- with the default blocks, and with NT_ANALYZE_BLOCK_BYTES=4096, which cuts every pass into
  blocks of one or a few rows and makes the exact medians over the pairs take their several-pass
  path (more than 128 pairs in a class): the two JSON outputs must be byte-identical;
- with BASELINE_ANALYZE when given (e.g. the network_analyze of main before the streaming, which
  held the cube): the JSON must be identical but for "version" (cmake -DNT_ANALYZE_BASELINE=...);
- TEST "mpi": every `report` under `MPIEXEC -n 2` and `-n 4` with blocks of 4096 bytes (several
  blocks of senders per rank): the JSON and the text must be byte-identical to the serial run's;
  a missing and a corrupt file under `-n 2`: one line on stderr, exit 2, no hang.
"""
import json
import os
import shutil
import subprocess
import sys

from analyze_cli import TEST, ANALYZE, SYNTH, WORK, check, run, synth

GEN = sys.argv[5] if len(sys.argv) > 5 else ""
BASELINE = sys.argv[6] if len(sys.argv) > 6 else ""
MPIEXEC = sys.argv[7] if len(sys.argv) > 7 else ""
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def scenarios():
    """(name, [arguments after the subcommand]) of every case; writes their files."""
    cases = []
    for name in ("vc_loaded1", "vc_loaded2"):
        for suffix in ("median.nc", "deviation.nc", "hosts.txt"):
            shutil.copy(os.path.join(DATA, f"{name}_{suffix}"), WORK)
        cases.append((name, ["report", f"{name}_median.nc", "--hosts", f"{name}_hosts.txt"]))
    synth("s3", "--nodes", "8", "--rpn", "4", "--shuffle", "--slow-node", "3", "--seed", "3")
    cases += [("s3", ["report", "s3_median.nc"]), ("s3pairs", ["report", "s3_median.nc", "--pairs"]),
              ("s3avg", ["report", "s3_average.nc"]), ("s3model", ["model", "s3_median.nc"])]
    synth("h1", "--nodes", "6", "--rpn", "3", "--shuffle", "--seed", "1", "--noise", "0.03")
    cases.append(("h1", ["report", "h1_median.nc"]))
    synth("w", "--nodes", "8", "--rpn", "2", "--nps", "4", "--shuffle", "--seed", "5", "--protocol-step", "8192")
    cases += [("w", ["report", "w_median.nc"]), ("wmodel", ["model", "w_median.nc"])]
    synth("d1", "--nodes", "4", "--rpn", "2", "--shuffle", "--seed", "2")
    synth("d2", "--nodes", "4", "--rpn", "2", "--shuffle", "--seed", "2", "--mode", "async_one_to_one",
          "--scale-nodes", "1", "3", "2.0")
    cases.append(("duplex", ["report", "d1_median.nc", "--async", "d2_median.nc"]))
    synth("ln", "--nodes", "9", "--rpn", "2", "--nps", "4", "--shuffle", "--seed", "3")
    cases.append(("lone", ["report", "ln_median.nc"]))
    synth("o", "--nodes", "16", "--rpn", "1", "--nps", "4", "--shuffle", "--seed", "2")
    cases.append(("one_per_node", ["report", "o_median.nc"]))
    synth("sl", "--nodes", "12", "--rpn", "4", "--nps", "4", "--shuffle", "--seed", "9", "--scale-link", "2", "5",
          "3.0", "--outliers", "0.01", "--cell-noise", "0.05")
    cases.append(("links", ["report", "sl_median.nc"]))
    if GEN:
        for ranks, lengths, seed in ((64, 8, 1), (128, 16, 2), (256, 12, 3), (512, 8, 4)):
            name = f"gen{ranks}x{lengths}"
            run([GEN, "-o", os.path.join(WORK, name + ".nc"), "--ranks", str(ranks), "--ranks-per-node", "4",
                 "--nodes-per-switch", "8", "--lengths", str(lengths), "--seed", str(seed)])
            cases.append((name, ["report", name + ".nc"]))
    return cases


def report(exe, name, args, tag, env=None, launcher=(), text=False):
    """The JSON; with text=True (a report) the JSON and the text report on stdout."""
    out = f"{name}.{tag}.json"
    p = subprocess.run([*launcher, exe, *args, "--json", out, "--force"] +
                       (["--quiet"] if args[0] == "report" and not text else []),
                       capture_output=True, text=True, cwd=WORK, timeout=300, env={**os.environ, **(env or {})})
    check(p.returncode == 0, f"{name} ({tag}): exit {p.returncode}\n{p.stderr}")
    with open(os.path.join(WORK, out)) as f:
        return (f.read(), p.stdout) if text else f.read()


def without_version(text):
    j = json.loads(text)
    j.pop("version", None)
    return j


cases = scenarios()
if TEST == "streamed":
    for name, args in cases:
        a = report(ANALYZE, name, args, "default")
        b = report(ANALYZE, name, args, "small", {"NT_ANALYZE_BLOCK_BYTES": "4096"})
        check(a == b, f"{name}: the JSON differs with blocks of 4096 bytes ({name}.default.json, {name}.small.json)")
        if BASELINE:
            c = report(BASELINE, name, args, "baseline")
            check(without_version(a) == without_version(c),
                  f"{name}: the JSON differs from the baseline's ({name}.default.json, {name}.baseline.json)")
    print(f"{len(cases)} cases identical" + (" to the baseline" if BASELINE else ""))
elif TEST == "mpi":
    # Blocks of 4096 bytes: several blocks of senders per rank, on ranks that do not divide them evenly.
    small = {"NT_ANALYZE_BLOCK_BYTES": "4096"}
    reports = [(name, args) for name, args in cases if args[0] == "report"]
    for name, args in reports:
        a = report(ANALYZE, name, args, "serial", text=True)
        for n in (2, 4):
            b = report(ANALYZE, name, args, f"mpi{n}", small, launcher=(MPIEXEC, "-n", str(n)), text=True)
            check(a[0] == b[0], f"{name}: the JSON of mpiexec -n {n} differs ({name}.serial.json, {name}.mpi{n}.json)")
            check(a[1] == b[1], f"{name}: the text of mpiexec -n {n} differs from the serial run's")
    # Bad input: one line from rank 0, exit 2 on every rank, no hang.
    with open(os.path.join(WORK, "s3_median.nc"), "rb") as f:
        head = f.read(3000)
    with open(os.path.join(WORK, "corrupt.nc"), "wb") as f:
        f.write(head)
    for bad in ("missing.nc", "corrupt.nc"):
        p = subprocess.run([MPIEXEC, "-n", "2", ANALYZE, "report", bad], capture_output=True, text=True, cwd=WORK,
                           timeout=120, env={**os.environ, **small})
        lines = p.stderr.strip().splitlines()
        check(p.returncode == 2 and len(lines) == 1 and lines[0].startswith("network_analyze: error: " + bad),
              f"mpiexec -n 2 report {bad}: exit {p.returncode}, stderr {p.stderr!r} (expected one line, exit 2)")
        check(p.stdout == "", f"mpiexec -n 2 report {bad}: output {p.stdout!r}")
    print(f"{len(reports)} reports identical (JSON and text) under mpiexec -n 2 and -n 4; bad input exits 2")
else:
    sys.exit(f"unknown test {TEST}")
